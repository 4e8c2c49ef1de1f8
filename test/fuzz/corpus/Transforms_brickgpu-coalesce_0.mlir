// Memory ops get layouts for 16-byte accesses where alignment, contiguity and the mask allow.

// f32, aligned pointer, n a multiple of 16: four elements (16 bytes) per thread.
// CHECK-LABEL: func.func @aligned_f32
// CHECK: brick.load {{.*}} : tensor<1024x!brick.ptr<f32>, #brickgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// CHECK: brick.store {{.*}} : tensor<1024x!brick.ptr<f32>, #brickgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
func.func @aligned_f32(%p: !brick.ptr<f32> {brick.divisibility = 16 : i32}, %n: i32 {brick.divisibility = 16 : i32}) {
  %r = brick.make_range 0, 1024 : tensor<1024xi32>
  %ns = brick.splat %n : tensor<1024xi32>
  %m = arith.cmpi slt, %r, %ns : tensor<1024xi32>
  %ps = brick.splat %p : tensor<1024x!brick.ptr<f32>>
  %ptrs = brick.addptr %ps, %r : tensor<1024x!brick.ptr<f32>>, tensor<1024xi32>
  %x = brick.load %ptrs, %m : tensor<1024x!brick.ptr<f32>>
  brick.store %ptrs, %x, %m : tensor<1024x!brick.ptr<f32>>
  return
}
