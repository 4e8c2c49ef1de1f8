func.func @dot_acc_type(%a: tensor<16x16xbf16>, %b: tensor<16x16xbf16>, %c: tensor<16x16xbf16>) {
  %0 = brick.dot %a, %b, %c : tensor<16x16xbf16> * tensor<16x16xbf16> -> tensor<16x16xbf16>
  return
}
