func.func @k(%p: !brick.ptr<f32>) attributes {brick.kernel} {
  return
}
