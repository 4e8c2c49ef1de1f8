// CHECK-LABEL: func.func @bias_plus_dot
// CHECK-SAME: (%[[A:.*]]: tensor<16x16xf32>, %[[B:.*]]: tensor<16x16xf32>, %[[D:.*]]: tensor<16x16xf32>)
// CHECK: brick.dot %[[A]], %[[B]], %[[D]] inputPrecision = tf32
// CHECK-NOT: arith.addf
func.func @bias_plus_dot(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>, %d: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %z = arith.constant dense<0.0> : tensor<16x16xf32>
  %0 = brick.dot %a, %b, %z inputPrecision = tf32 : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32>
  %1 = arith.addf %d, %0 : tensor<16x16xf32>
  return %1 : tensor<16x16xf32>
}
