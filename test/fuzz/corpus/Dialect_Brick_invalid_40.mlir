func.func @reduce_return_count(%x: tensor<64xf32>) {
  %0 = brick.reduce(%x) axis = 0 : (tensor<64xf32>) -> f32 {
  ^bb0(%a: f32, %b: f32):
    brick.reduce.return %a, %b : f32, f32
  }
  return
}
