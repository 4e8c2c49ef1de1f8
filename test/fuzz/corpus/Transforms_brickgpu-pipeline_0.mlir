#b = #brickgpu.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#s = #brickgpu.shared<{vec = 8, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {brickgpu.num_warps = 4 : i32} {
  func.func @stream(%p: !brick.ptr<f16> {brick.divisibility = 16 : i32}, %n: i32, %limit: i32 {brick.divisibility = 16 : i32}) -> tensor<1024xf16, #b> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c1024 = arith.constant 1024 : i32
    %r = brick.make_range 0, 1024 : tensor<1024xi32, #b>
    %ps = brick.splat %p : tensor<1024x!brick.ptr<f16>, #b>
    %ptrs = brick.addptr %ps, %r : tensor<1024x!brick.ptr<f16>, #b>, tensor<1024xi32, #b>
    %init = arith.constant dense<0.0> : tensor<1024xf16, #b>
    %step = arith.constant dense<1024> : tensor<1024xi32, #b>
    %out:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init, %q = %ptrs) -> (tensor<1024xf16, #b>, tensor<1024x!brick.ptr<f16>, #b>) : i32 {
      %done = arith.muli %i, %c1024 : i32
      %left = arith.subi %limit, %done : i32
      %lefts = brick.splat %left : tensor<1024xi32, #b>
      %m = arith.cmpi slt, %r, %lefts : tensor<1024xi32, #b>
      %x = brick.load %q, %m, %init : tensor<1024x!brick.ptr<f16>, #b>
      %buf = brickgpu.local_alloc %x : (tensor<1024xf16, #b>) -> !brickgpu.memdesc<1024xf16, #s>
      %y = brickgpu.local_load %buf : !brickgpu.memdesc<1024xf16, #s> -> tensor<1024xf16, #b>
      %sum = arith.addf %acc, %y : tensor<1024xf16, #b>
      %q2 = brick.addptr %q, %step : tensor<1024x!brick.ptr<f16>, #b>, tensor<1024xi32, #b>
      scf.yield %sum, %q2 : tensor<1024xf16, #b>, tensor<1024x!brick.ptr<f16>, #b>
    }
    return %out#0 : tensor<1024xf16, #b>
  }
}
