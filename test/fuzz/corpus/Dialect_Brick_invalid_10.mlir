func.func @expand_dims_axis(%x: tensor<128xf32>) {
  %0 = brick.expand_dims %x {axis = 2 : i32} : tensor<128xf32> -> tensor<128x1xf32>
  return
}
