// A function's signature cannot carry a block's layout across a call, and a rank-0 tensor is not a block: each is
// one error at the function (a rank-0 argument crashed the layout assignment; a block argument of a helper gave an
// MLIR dump, "type of entry block argument ... must match").
// RUN: brick-opt %s -split-input-file -convert-brick-to-brickgpu=num-warps=4 -verify-diagnostics

// expected-error @+1 {{argument #0 of 'helper' is 'tensor<f32>', a rank-0 tensor: not a block; pass a scalar ('f32')}}
func.func @helper(%x: tensor<f32>) {
  return
}

// -----

// expected-error @+1 {{argument #0 of 'twice' is the block 'tensor<16xf32>': functions other than kernels take and return scalars and pointers only}}
func.func @twice(%x: tensor<16xf32>) -> tensor<16xf32> {
  %y = arith.addf %x, %x : tensor<16xf32>
  return %y : tensor<16xf32>
}

// -----

// expected-error @+1 {{result #0 of 'ones' is the block 'tensor<16xf32>'}}
func.func @ones() -> tensor<16xf32> {
  %y = arith.constant dense<1.0> : tensor<16xf32>
  return %y : tensor<16xf32>
}

// -----

// A helper of scalars and pointers is laid out as before.
func.func @scalars(%x: i32, %p: !brick.ptr<f32>) -> i32 {
  return %x : i32
}
