func.func @load_mask_shape(%p: tensor<4x!brick.ptr<f32>>, %m: tensor<8xi1>) {
  %0 = "brick.load"(%p, %m) <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (tensor<4x!brick.ptr<f32>>, tensor<8xi1>) -> tensor<4xf32>
  return
}
