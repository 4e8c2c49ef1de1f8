func.func @broadcast_dim(%x: tensor<2x128xf32>) {
  %0 = brick.broadcast %x : tensor<2x128xf32> -> tensor<64x128xf32>
  return
}
