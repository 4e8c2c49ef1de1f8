// A volatile load under a false mask stays: it must not be removed.
// CHECK-LABEL: func.func @volatile_load_stays
// CHECK: brick.load %{{.*}}, %{{.*}}, %{{.*}} volatile
func.func @volatile_load_stays(%p: tensor<8x!brick.ptr<f32>>, %o: tensor<8xf32>) -> tensor<8xf32> {
  %f = arith.constant dense<false> : tensor<8xi1>
  %0 = brick.load %p, %f, %o volatile : tensor<8x!brick.ptr<f32>>
  return %0 : tensor<8xf32>
}
