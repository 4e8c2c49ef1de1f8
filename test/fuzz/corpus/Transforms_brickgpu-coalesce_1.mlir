// f16: eight elements make 16 bytes.
// CHECK-LABEL: func.func @aligned_f16
// CHECK: brick.load {{.*}} : tensor<1024x!brick.ptr<f16>, #brickgpu.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
func.func @aligned_f16(%p: !brick.ptr<f16> {brick.divisibility = 16 : i32}) {
  %r = brick.make_range 0, 1024 : tensor<1024xi32>
  %ps = brick.splat %p : tensor<1024x!brick.ptr<f16>>
  %ptrs = brick.addptr %ps, %r : tensor<1024x!brick.ptr<f16>>, tensor<1024xi32>
  %x = brick.load %ptrs : tensor<1024x!brick.ptr<f16>>
  brick.store %ptrs, %x : tensor<1024x!brick.ptr<f16>>
  return
}
