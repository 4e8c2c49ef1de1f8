func.func @atomic_add_float(%p: !brick.ptr<f32>, %v: f32) {
  %0 = brick.atomic_rmw add, relaxed, gpu, %p, %v : !brick.ptr<f32>
  return
}
