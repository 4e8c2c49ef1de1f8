// CHECK-LABEL: func.func @shape_ops_of_constants
// CHECK-DAG: arith.constant dense<1.000000e+00> : tensor<4x1xf32>
// CHECK-DAG: arith.constant dense<1.000000e+00> : tensor<1x4xf32>
// CHECK-DAG: arith.constant dense<1.000000e+00> : tensor<2x2xf32>
// CHECK-DAG: arith.constant dense<1.000000e+00> : tensor<4x4xf32>
// CHECK-NOT: brick.
func.func @shape_ops_of_constants() -> (tensor<4x1xf32>, tensor<1x4xf32>, tensor<2x2xf32>, tensor<4x4xf32>) {
  %c = arith.constant dense<1.0> : tensor<4xf32>
  %0 = brick.expand_dims %c {axis = 1 : i32} : tensor<4xf32> -> tensor<4x1xf32>
  %1 = brick.trans %0 [1, 0] : tensor<4x1xf32> -> tensor<1x4xf32>
  %2 = brick.reshape %c : tensor<4xf32> -> tensor<2x2xf32>
  %3 = brick.broadcast %1 : tensor<1x4xf32> -> tensor<4x4xf32>
  return %0, %1, %2, %3 : tensor<4x1xf32>, tensor<1x4xf32>, tensor<2x2xf32>, tensor<4x4xf32>
}
