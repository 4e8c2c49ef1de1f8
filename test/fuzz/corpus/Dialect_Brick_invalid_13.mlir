func.func @trans_order(%x: tensor<16x32xf32>) {
  %0 = brick.trans %x [0, 0] : tensor<16x32xf32> -> tensor<16x32xf32>
  return
}
