// CHECK-LABEL: func.func @reshape_and_trans_chains
// CHECK: brick.reshape %{{.*}} : tensor<4x8xf32> -> tensor<32xf32>
// CHECK-NOT: brick.reshape
// CHECK: brick.trans %{{.*}} [2, 0, 1] : tensor<2x4x8xf32> -> tensor<8x2x4xf32>
// CHECK-NOT: brick.trans
func.func @reshape_and_trans_chains(%x: tensor<4x8xf32>, %y: tensor<2x4x8xf32>) -> (tensor<32xf32>, tensor<8x2x4xf32>) {
  %0 = brick.reshape %x : tensor<4x8xf32> -> tensor<2x16xf32>
  %1 = brick.reshape %0 : tensor<2x16xf32> -> tensor<32xf32>
  %2 = brick.trans %y [1, 0, 2] : tensor<2x4x8xf32> -> tensor<4x2x8xf32>
  %3 = brick.trans %2 [2, 1, 0] : tensor<4x2x8xf32> -> tensor<8x2x4xf32>
  return %1, %3 : tensor<32xf32>, tensor<8x2x4xf32>
}
