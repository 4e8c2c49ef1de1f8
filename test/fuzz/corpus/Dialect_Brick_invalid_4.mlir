func.func @make_range_not_pow2() {
  %0 = brick.make_range 0, 3 : tensor<4xi32>
  return
}
