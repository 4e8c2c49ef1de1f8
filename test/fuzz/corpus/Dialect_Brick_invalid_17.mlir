func.func @load_other_without_mask(%p: tensor<4x!brick.ptr<f32>>, %o: tensor<4xf32>) {
  %0 = "brick.load"(%p, %o) <{operandSegmentSizes = array<i32: 1, 0, 1>}> : (tensor<4x!brick.ptr<f32>>, tensor<4xf32>) -> tensor<4xf32>
  return
}
