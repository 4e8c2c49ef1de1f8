func.func @load_not_pointer(%p: tensor<4xf32>) {
  %0 = brick.load %p : tensor<4xf32>
  return
}
