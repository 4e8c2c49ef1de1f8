// The brick canonicalizations run too.
// CHECK-LABEL: func.func @canonicalizes
// CHECK-NOT: brick.addptr
func.func @canonicalizes(%p: !brick.ptr<f32>) -> !brick.ptr<f32> {
  %z = arith.constant 0 : i32
  %0 = brick.addptr %p, %z : !brick.ptr<f32>, i32
  return %0 : !brick.ptr<f32>
}
