func.func @reshape_count(%x: tensor<16x128xf32>) {
  %0 = brick.reshape %x : tensor<16x128xf32> -> tensor<1024xf32>
  return
}
