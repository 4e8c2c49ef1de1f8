func.func @reduce_combiner_type(%x: tensor<64xf32>) {
  %0 = brick.reduce(%x) axis = 0 : (tensor<64xf32>) -> f32 {
  ^bb0(%a: f32, %b: f16):
    brick.reduce.return %a : f32
  }
  return
}
