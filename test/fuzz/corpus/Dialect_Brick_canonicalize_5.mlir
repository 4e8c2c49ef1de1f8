// CHECK-LABEL: func.func @broadcast_chain
// CHECK: brick.broadcast %{{.*}} : tensor<1x1xf32> -> tensor<8x16xf32>
// CHECK-NOT: brick.broadcast
func.func @broadcast_chain(%x: tensor<1x1xf32>) -> tensor<8x16xf32> {
  %0 = brick.broadcast %x : tensor<1x1xf32> -> tensor<1x16xf32>
  %1 = brick.broadcast %0 : tensor<1x16xf32> -> tensor<8x16xf32>
  return %1 : tensor<8x16xf32>
}
