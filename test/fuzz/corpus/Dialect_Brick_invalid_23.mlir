func.func @atomic_fadd_int(%p: !brick.ptr<i32>, %v: i32) {
  %0 = brick.atomic_rmw fadd, relaxed, gpu, %p, %v : !brick.ptr<i32>
  return
}
