func.func @addptr_not_pointer(%p: tensor<128xi64>, %o: tensor<128xi32>) {
  %0 = "brick.addptr"(%p, %o) : (tensor<128xi64>, tensor<128xi32>) -> tensor<128xi64>
  return
}
