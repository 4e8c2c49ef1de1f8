func.func @dot_inner(%a: tensor<64x32xf16>, %b: tensor<16x128xf16>, %c: tensor<64x128xf32>) {
  %0 = brick.dot %a, %b, %c : tensor<64x32xf16> * tensor<16x128xf16> -> tensor<64x128xf32>
  return
}
