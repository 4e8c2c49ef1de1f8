// Not a test on its own: brickc.test checks that an op the GPU cannot run (here a scalar atomic whose old value is
// used) is named at its location.
func.func @counter(%p: !brick.ptr<i32>, %out: !brick.ptr<i32>) attributes {brick.kernel} {
  %one = arith.constant 1 : i32
  %old = brick.atomic_rmw add, acq_rel, gpu, %p, %one : !brick.ptr<i32>
  brick.store %out, %old : !brick.ptr<i32>
  return
}
