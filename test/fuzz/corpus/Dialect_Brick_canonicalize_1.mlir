// CHECK-LABEL: func.func @addptr_by_zero
// CHECK-SAME: (%[[P:.*]]: tensor<32x!brick.ptr<f16>>, %[[Q:.*]]: !brick.ptr<f16>)
// CHECK-NOT: brick.addptr
// CHECK: return %[[P]], %[[Q]]
func.func @addptr_by_zero(%p: tensor<32x!brick.ptr<f16>>, %q: !brick.ptr<f16>) -> (tensor<32x!brick.ptr<f16>>, !brick.ptr<f16>) {
  %z = arith.constant dense<0> : tensor<32xi32>
  %0 = brick.addptr %p, %z : tensor<32x!brick.ptr<f16>>, tensor<32xi32>
  %zs = arith.constant 0 : i64
  %1 = brick.addptr %q, %zs : !brick.ptr<f16>, i64
  return %0, %1 : tensor<32x!brick.ptr<f16>>, !brick.ptr<f16>
}
