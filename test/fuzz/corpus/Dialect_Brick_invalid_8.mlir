func.func @broadcast_rank(%x: tensor<128xf32>) {
  %0 = brick.broadcast %x : tensor<128xf32> -> tensor<4x128xf32>
  return
}
