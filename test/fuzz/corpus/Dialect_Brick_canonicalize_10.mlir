// CHECK-LABEL: func.func @constant_masks
// CHECK-SAME: (%[[P:.*]]: tensor<8x!brick.ptr<f32>>, %[[O:.*]]: tensor<8xf32>)
// CHECK: %[[L:.*]] = brick.load %[[P]] : tensor<8x!brick.ptr<f32>>
// CHECK: brick.store %[[P]], %[[L]] : tensor<8x!brick.ptr<f32>>
// CHECK-NOT: brick.store
// CHECK: return %[[L]], %[[O]]
func.func @constant_masks(%p: tensor<8x!brick.ptr<f32>>, %o: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %t = arith.constant dense<true> : tensor<8xi1>
  %f = arith.constant dense<false> : tensor<8xi1>
  %0 = brick.load %p, %t, %o : tensor<8x!brick.ptr<f32>>
  %1 = brick.load %p, %f, %o : tensor<8x!brick.ptr<f32>>
  brick.store %p, %0, %t : tensor<8x!brick.ptr<f32>>
  brick.store %p, %1, %f : tensor<8x!brick.ptr<f32>>
  return %0, %1 : tensor<8xf32>, tensor<8xf32>
}
