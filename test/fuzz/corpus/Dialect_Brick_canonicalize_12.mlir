// Loads without uses disappear; stores and atomics stay.
// CHECK-LABEL: func.func @dead_memory_ops
// CHECK-NOT: brick.load
// CHECK: brick.atomic_rmw
// CHECK: brick.store
func.func @dead_memory_ops(%p: tensor<8x!brick.ptr<i32>>, %v: tensor<8xi32>) {
  %0 = brick.load %p : tensor<8x!brick.ptr<i32>>
  %1 = brick.atomic_rmw add, relaxed, gpu, %p, %v : tensor<8x!brick.ptr<i32>>
  brick.store %p, %v : tensor<8x!brick.ptr<i32>>
  return
}
