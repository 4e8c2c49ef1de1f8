func.func @reduce_result(%x: tensor<64x8xf32>) {
  %0 = brick.reduce(%x) axis = 0 : (tensor<64x8xf32>) -> tensor<64xf32> {
  ^bb0(%a: f32, %b: f32):
    brick.reduce.return %a : f32
  }
  return
}
