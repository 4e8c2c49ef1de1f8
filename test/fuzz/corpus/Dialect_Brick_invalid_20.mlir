func.func @load_result(%p: tensor<4x!brick.ptr<f32>>) {
  %0 = "brick.load"(%p) <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (tensor<4x!brick.ptr<f32>>) -> tensor<4xf16>
  return
}
