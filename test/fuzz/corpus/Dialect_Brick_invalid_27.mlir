func.func @atomic_cas_width(%p: !brick.ptr<i8>, %v: i8) {
  %0 = brick.atomic_cas relaxed, gpu, %p, %v, %v : !brick.ptr<i8>
  return
}
