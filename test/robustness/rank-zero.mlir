// Rank-0 tensors are scalars, not blocks (layout assignment used to crash on them); kernels take scalars and
// pointers and return nothing (a tensor argument gave an IR dump, a result invalid PTX).
// RUN: brick-opt %s -split-input-file -verify-diagnostics

func.func @f(%p: !brick.ptr<f32>) {
  %s = brick.splat %p : tensor<1x!brick.ptr<f32>>
  // expected-error @+1 {{'brick.load' op result #0 must be}}
  %x = "brick.load"(%s) {operandSegmentSizes = array<i32: 1, 0, 0>} : (tensor<1x!brick.ptr<f32>>) -> tensor<f32>
  return
}

// -----

// expected-error @+1 {{kernel argument #1 is 'tensor<i1>': a kernel takes scalars (integers, floats), !brick.ptr pointers and !brick.tensormap tensor maps; pass a block as a pointer and load it}}
func.func @k(%p: !brick.ptr<f32>, %m: tensor<i1>) attributes {brick.kernel} {
  return
}

// -----

// expected-error @+1 {{a kernel returns nothing (it has 1 results): store what it computes through a pointer argument}}
func.func @k(%x: i32) -> i32 attributes {brick.kernel} {
  return %x : i32
}
