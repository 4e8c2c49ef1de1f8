#b = #brickgpu.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#s = #brickgpu.shared<{vec = 8, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {brickgpu.num_warps = 4 : i32} {
  func.func @stays(%p: !brick.ptr<f16> {brick.divisibility = 16 : i32}, %u: !brick.ptr<f16>, %n: i32) -> tensor<1024xf16, #b> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = brick.make_range 0, 1024 : tensor<1024xi32, #b>
    %ps = brick.splat %p : tensor<1024x!brick.ptr<f16>, #b>
    %ptrs = brick.addptr %ps, %r : tensor<1024x!brick.ptr<f16>, #b>, tensor<1024xi32, #b>
    %us = brick.splat %u : tensor<1024x!brick.ptr<f16>, #b>
    %uptrs = brick.addptr %us, %r : tensor<1024x!brick.ptr<f16>, #b>, tensor<1024xi32, #b>
    %init = arith.constant dense<0.0> : tensor<1024xf16, #b>
    %one = arith.constant dense<1.0> : tensor<1024xf16, #b>
    %true = arith.constant dense<true> : tensor<1024xi1, #b>
    %out = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (tensor<1024xf16, #b>) : i32 {
      %x = brick.load %ptrs, %true, %one : tensor<1024x!brick.ptr<f16>, #b>
      %buf = brickgpu.local_alloc %x : (tensor<1024xf16, #b>) -> !brickgpu.memdesc<1024xf16, #s>
      %y = brickgpu.local_load %buf : !brickgpu.memdesc<1024xf16, #s> -> tensor<1024xf16, #b>
      %z = brick.load %uptrs : tensor<1024x!brick.ptr<f16>, #b>
      %buf2 = brickgpu.local_alloc %z : (tensor<1024xf16, #b>) -> !brickgpu.memdesc<1024xf16, #s>
      %w = brickgpu.local_load %buf2 : !brickgpu.memdesc<1024xf16, #s> -> tensor<1024xf16, #b>
      %s1 = arith.addf %acc, %y : tensor<1024xf16, #b>
      %s2 = arith.addf %s1, %w : tensor<1024xf16, #b>
      scf.yield %s2 : tensor<1024xf16, #b>
    }
    return %out : tensor<1024xf16, #b>
  }
}
