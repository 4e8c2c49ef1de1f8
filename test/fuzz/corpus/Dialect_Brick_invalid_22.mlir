func.func @store_mask(%p: tensor<4x!brick.ptr<f32>>, %v: tensor<4xf32>, %m: tensor<4xi32>) {
  "brick.store"(%p, %v, %m) : (tensor<4x!brick.ptr<f32>>, tensor<4xf32>, tensor<4xi32>) -> ()
  return
}
