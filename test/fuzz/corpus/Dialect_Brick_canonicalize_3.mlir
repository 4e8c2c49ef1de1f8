// CHECK-LABEL: func.func @addptr_chain
// CHECK-SAME: (%[[P:.*]]: tensor<16x!brick.ptr<f32>>, %[[A:.*]]: tensor<16xi32>, %[[B:.*]]: tensor<16xi32>)
// CHECK: %[[SUM:.*]] = arith.addi %[[A]], %[[B]] : tensor<16xi32>
// CHECK: %[[R:.*]] = brick.addptr %[[P]], %[[SUM]]
// CHECK: return %[[R]]
func.func @addptr_chain(%p: tensor<16x!brick.ptr<f32>>, %a: tensor<16xi32>, %b: tensor<16xi32>) -> tensor<16x!brick.ptr<f32>> {
  %0 = brick.addptr %p, %a : tensor<16x!brick.ptr<f32>>, tensor<16xi32>
  %1 = brick.addptr %0, %b : tensor<16x!brick.ptr<f32>>, tensor<16xi32>
  return %1 : tensor<16x!brick.ptr<f32>>
}
