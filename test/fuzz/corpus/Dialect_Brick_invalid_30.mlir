func.func @dot_acc_shape(%a: tensor<64x32xf16>, %b: tensor<32x128xf16>, %c: tensor<64x64xf32>) {
  %0 = brick.dot %a, %b, %c : tensor<64x32xf16> * tensor<32x128xf16> -> tensor<64x64xf32>
  return
}
