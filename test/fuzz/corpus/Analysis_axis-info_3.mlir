func.func @wraparound(%m: i32 {brick.divisibility = 16 : i32}) {
  %r = brick.make_range 0, 128 : tensor<128xi32>
  %ms = brick.splat %m : tensor<128xi32>
  // x % m with m a multiple of 16: runs of 16 survive.
  %w = arith.remsi %r, %ms : tensor<128xi32>
  // x / m: constant over aligned runs of 16.
  %d = arith.divsi %r, %ms : tensor<128xi32>
  return
}
