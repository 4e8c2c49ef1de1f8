func.func @addptr_shape(%p: tensor<128x!brick.ptr<f32>>, %o: tensor<64xi32>) {
  %0 = brick.addptr %p, %o : tensor<128x!brick.ptr<f32>>, tensor<64xi32>
  return
}
