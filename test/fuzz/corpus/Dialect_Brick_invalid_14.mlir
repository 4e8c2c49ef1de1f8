func.func @trans_shape(%x: tensor<16x32xf32>) {
  %0 = brick.trans %x [1, 0] : tensor<16x32xf32> -> tensor<16x32xf32>
  return
}
