// Nothing known about the pointer's alignment or n: one element per access, and the load keeps its layout.
// CHECK-LABEL: func.func @unaligned
// CHECK-NOT: brickgpu.convert_layout
// CHECK: brick.load {{.*}} : tensor<1024x!brick.ptr<f32>, #brickgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
func.func @unaligned(%p: !brick.ptr<f32>, %n: i32) {
  %r = brick.make_range 0, 1024 : tensor<1024xi32>
  %ns = brick.splat %n : tensor<1024xi32>
  %m = arith.cmpi slt, %r, %ns : tensor<1024xi32>
  %ps = brick.splat %p : tensor<1024x!brick.ptr<f32>>
  %ptrs = brick.addptr %ps, %r : tensor<1024x!brick.ptr<f32>>, tensor<1024xi32>
  %x = brick.load %ptrs, %m : tensor<1024x!brick.ptr<f32>>
  return
}
