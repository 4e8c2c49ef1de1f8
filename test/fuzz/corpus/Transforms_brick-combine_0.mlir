// CHECK-LABEL: func.func @dot_plus_bias
// CHECK-SAME: (%[[A:.*]]: tensor<64x32xf16>, %[[B:.*]]: tensor<32x16xf16>, %[[D:.*]]: tensor<64x16xf32>)
// CHECK: %[[R:.*]] = brick.dot %[[A]], %[[B]], %[[D]]
// CHECK-NOT: arith.addf
// CHECK: return %[[R]]
func.func @dot_plus_bias(%a: tensor<64x32xf16>, %b: tensor<32x16xf16>, %d: tensor<64x16xf32>) -> tensor<64x16xf32> {
  %z = arith.constant dense<0.0> : tensor<64x16xf32>
  %0 = brick.dot %a, %b, %z : tensor<64x32xf16> * tensor<32x16xf16> -> tensor<64x16xf32>
  %1 = arith.addf %0, %d : tensor<64x16xf32>
  return %1 : tensor<64x16xf32>
}
