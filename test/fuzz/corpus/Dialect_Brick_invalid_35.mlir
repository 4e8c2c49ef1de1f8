func.func @reduce_axis(%x: tensor<64xf32>) {
  %0 = brick.reduce(%x) axis = 1 : (tensor<64xf32>) -> f32 {
  ^bb0(%a: f32, %b: f32):
    brick.reduce.return %a : f32
  }
  return
}
