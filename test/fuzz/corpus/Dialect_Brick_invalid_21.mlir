func.func @store_value(%p: tensor<4x!brick.ptr<f32>>, %v: tensor<4xf16>) {
  "brick.store"(%p, %v) : (tensor<4x!brick.ptr<f32>>, tensor<4xf16>) -> ()
  return
}
