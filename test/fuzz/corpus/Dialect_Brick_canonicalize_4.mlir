// CHECK-LABEL: func.func @broadcast_of_splat
// CHECK-SAME: (%[[X:.*]]: i32)
// CHECK: %[[S:.*]] = brick.splat %[[X]] : tensor<8x16xi32>
// CHECK-NOT: brick.broadcast
// CHECK: return %[[S]]
func.func @broadcast_of_splat(%x: i32) -> tensor<8x16xi32> {
  %0 = brick.splat %x : tensor<1x16xi32>
  %1 = brick.broadcast %0 : tensor<1x16xi32> -> tensor<8x16xi32>
  return %1 : tensor<8x16xi32>
}
