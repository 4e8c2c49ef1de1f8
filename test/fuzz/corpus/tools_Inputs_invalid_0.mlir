// Not a test on its own: brickc.test compiles it and expects the verifier's error at line 3.
func.func @bad() attributes {brick.kernel} {
  %r = brick.make_range 0, 3 : tensor<4xi32>
  return
}
