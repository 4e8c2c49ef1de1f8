func.func @reduce_return_outside(%x: f32) {
  brick.reduce.return %x : f32
}
