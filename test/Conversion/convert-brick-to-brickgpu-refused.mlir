// What cannot be laid out is one error, before anything is: a block in the signature of a function other than a
// kernel (blocks do not cross calls; it gave an MLIR dump, "type of entry block argument ... must match"), a rank-0
// tensor in any signature (it crashed the layout assignment), a block far past what its threads can hold.
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

// -----

// A block far past what a thread can hold (2^30 elements: LLVM ran out of memory building it after half a minute)
// is one error at the op that makes it.
func.func @huge(%p: !brick.ptr<f32>) attributes {brick.kernel} {
  // expected-error @+1 {{a block of 1073741824 elements ('tensor<1073741824xi32>') over 128 threads is 8388608 elements a thread, more than the 4096}}
  %r = brick.make_range 0, 1073741824 : tensor<1073741824xi32>
  %s = brick.splat %p : tensor<1073741824x!brick.ptr<f32>>
  %q = brick.addptr %s, %r : tensor<1073741824x!brick.ptr<f32>>, tensor<1073741824xi32>
  %x = brick.load %q : tensor<1073741824x!brick.ptr<f32>>
  brick.store %q, %x : tensor<1073741824x!brick.ptr<f32>>
  return
}
