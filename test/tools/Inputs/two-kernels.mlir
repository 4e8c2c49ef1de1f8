// Two kernels: each could be compiled to PTX, but a bundle holds one.
func.func @first(%p: !brick.ptr<f32>) attributes {brick.kernel} {
  return
}
func.func @second(%n: i32) attributes {brick.kernel} {
  return
}
