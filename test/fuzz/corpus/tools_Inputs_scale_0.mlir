func.func @scale(%p: !brick.ptr<f32> {brick.divisibility = 16 : i32}, %s: f32) attributes {brick.kernel} {
  %r = brick.make_range 0, 256 : tensor<256xi32>
  %ps = brick.splat %p : tensor<256x!brick.ptr<f32>>
  %ptrs = brick.addptr %ps, %r : tensor<256x!brick.ptr<f32>>, tensor<256xi32>
  %x = brick.load %ptrs : tensor<256x!brick.ptr<f32>>
  %ss = brick.splat %s : tensor<256xf32>
  %y = arith.mulf %x, %ss : tensor<256xf32>
  brick.store %ptrs, %y : tensor<256x!brick.ptr<f32>>
  return
}
