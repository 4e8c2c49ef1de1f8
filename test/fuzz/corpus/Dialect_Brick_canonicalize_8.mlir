// CHECK-LABEL: func.func @identity_shape_ops
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: return %[[X]], %[[X]], %[[X]]
func.func @identity_shape_ops(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = brick.trans %x [0, 1] : tensor<4x8xf32> -> tensor<4x8xf32>
  %1 = brick.reshape %x : tensor<4x8xf32> -> tensor<4x8xf32>
  %2 = brick.broadcast %x : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0, %1, %2 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}
