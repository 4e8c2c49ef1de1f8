func.func @ptr_to_tensor(%p: !brick.ptr<tensor<4xf32>>) {
  return
}
