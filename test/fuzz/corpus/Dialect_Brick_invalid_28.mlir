func.func @dot_rank(%a: tensor<4x16x16xf16>, %b: tensor<16x16xf16>, %c: tensor<16x16xf32>) {
  %0 = brick.dot %a, %b, %c : tensor<4x16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
  return
}
