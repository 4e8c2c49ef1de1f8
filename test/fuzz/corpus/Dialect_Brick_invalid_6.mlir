func.func @block_not_pow2(%x: f32) {
  %0 = brick.splat %x : tensor<3xf32>
  return
}
