func.func @assert_condition(%x: tensor<4xi32>) {
  brick.assert %x, "not a condition" : tensor<4xi32>
  return
}
