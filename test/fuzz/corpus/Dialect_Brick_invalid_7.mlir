func.func @splat_element(%x: f32) {
  %0 = "brick.splat"(%x) : (f32) -> tensor<4xi32>
  return
}
