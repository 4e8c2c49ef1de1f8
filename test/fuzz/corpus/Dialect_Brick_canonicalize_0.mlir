// Folds and canonicalization patterns of the brick ops.

// CHECK-LABEL: func.func @splat_of_constant
// CHECK: %[[C:.*]] = arith.constant dense<2.500000e+00> : tensor<64xf32>
// CHECK-NOT: brick.splat
// CHECK: return %[[C]]
func.func @splat_of_constant() -> tensor<64xf32> {
  %c = arith.constant 2.5 : f32
  %0 = brick.splat %c : tensor<64xf32>
  return %0 : tensor<64xf32>
}
