func.func @unknown_size(%n: i32) {
  %r = brick.make_range 0, 128 : tensor<128xi32>
  %ns = brick.splat %n : tensor<128xi32>
  // Nothing known about n: the mask may change at every element.
  %mask = arith.cmpi slt, %r, %ns : tensor<128xi32>
  return
}
