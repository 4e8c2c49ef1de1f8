// CHECK-LABEL: func.func @shape_ops_of_splat
// CHECK-SAME: (%[[X:.*]]: f16)
// CHECK-DAG: brick.splat %[[X]] : tensor<4x1xf16>
// CHECK-DAG: brick.splat %[[X]] : tensor<1x4xf16>
// CHECK-DAG: brick.splat %[[X]] : tensor<2x2xf16>
// CHECK-NOT: brick.expand_dims
// CHECK-NOT: brick.trans
// CHECK-NOT: brick.reshape
func.func @shape_ops_of_splat(%x: f16) -> (tensor<4x1xf16>, tensor<1x4xf16>, tensor<2x2xf16>) {
  %s = brick.splat %x : tensor<4xf16>
  %0 = brick.expand_dims %s {axis = 1 : i32} : tensor<4xf16> -> tensor<4x1xf16>
  %1 = brick.trans %0 [1, 0] : tensor<4x1xf16> -> tensor<1x4xf16>
  %2 = brick.reshape %s : tensor<4xf16> -> tensor<2x2xf16>
  return %0, %1, %2 : tensor<4x1xf16>, tensor<1x4xf16>, tensor<2x2xf16>
}
