// CHECK-LABEL: func.func @addptr_of_splats
// CHECK-SAME: (%[[P:.*]]: !brick.ptr<f32>, %[[O:.*]]: i32)
// CHECK: %[[S:.*]] = brick.addptr %[[P]], %[[O]] : !brick.ptr<f32>, i32
// CHECK: %[[B:.*]] = brick.splat %[[S]] : tensor<16x!brick.ptr<f32>>
// CHECK: return %[[B]]
func.func @addptr_of_splats(%p: !brick.ptr<f32>, %o: i32) -> tensor<16x!brick.ptr<f32>> {
  %ps = brick.splat %p : tensor<16x!brick.ptr<f32>>
  %os = brick.splat %o : tensor<16xi32>
  %0 = brick.addptr %ps, %os : tensor<16x!brick.ptr<f32>>, tensor<16xi32>
  return %0 : tensor<16x!brick.ptr<f32>>
}
