func.func @reduce_shapes(%x: tensor<64xf32>, %y: tensor<32xi32>) {
  %0:2 = brick.reduce(%x, %y) axis = 0 : (tensor<64xf32>, tensor<32xi32>) -> (f32, i32) {
  ^bb0(%a: f32, %b: i32, %c: f32, %d: i32):
    brick.reduce.return %a, %b : f32, i32
  }
  return
}
