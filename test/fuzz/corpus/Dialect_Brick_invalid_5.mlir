func.func @make_range_result() {
  %0 = brick.make_range 0, 8 : tensor<16xi32>
  return
}
