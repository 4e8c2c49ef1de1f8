func.func @atomic_f16_max(%p: !brick.ptr<f16>, %v: f16) {
  %0 = brick.atomic_rmw max, relaxed, gpu, %p, %v : !brick.ptr<f16>
  return
}
