// Not a test on its own: brickc.test checks that an op without a lowering is named at its location.
func.func @printer(%x: i32) attributes {brick.kernel} {
  %c = arith.constant 1 : i32
  brick.print "x = " %x : i32
  return
}
