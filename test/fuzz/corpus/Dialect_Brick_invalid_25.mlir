func.func @atomic_width(%p: !brick.ptr<i8>, %v: i8) {
  %0 = brick.atomic_rmw max, relaxed, gpu, %p, %v : !brick.ptr<i8>
  return
}
