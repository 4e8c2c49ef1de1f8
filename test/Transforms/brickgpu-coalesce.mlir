// Memory ops get layouts for 16-byte accesses where alignment, contiguity and the mask allow.
// RUN: brick-opt %s -convert-brick-to-brickgpu=num-warps=4 -brickgpu-coalesce -split-input-file -mlir-print-local-scope | FileCheck %s

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

// -----

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

// -----

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

// -----

// A column-major tile (contiguous along dimension 0): that dimension goes first in the order.
// CHECK-LABEL: func.func @column_major
// CHECK: brick.load {{.*}} : tensor<64x32x!brick.ptr<f32>, #brickgpu.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]}>>
func.func @column_major(%p: !brick.ptr<f32> {brick.divisibility = 16 : i32}, %ld: i32 {brick.divisibility = 16 : i32}) {
  %rows = brick.make_range 0, 64 : tensor<64xi32>
  %cols = brick.make_range 0, 32 : tensor<32xi32>
  %r2 = brick.expand_dims %rows {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %rb = brick.broadcast %r2 : tensor<64x1xi32> -> tensor<64x32xi32>
  %c2 = brick.expand_dims %cols {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %lds = brick.splat %ld : tensor<1x32xi32>
  %co = arith.muli %c2, %lds : tensor<1x32xi32>
  %cb = brick.broadcast %co : tensor<1x32xi32> -> tensor<64x32xi32>
  %offs = arith.addi %rb, %cb : tensor<64x32xi32>
  %ps = brick.splat %p : tensor<64x32x!brick.ptr<f32>>
  %ptrs = brick.addptr %ps, %offs : tensor<64x32x!brick.ptr<f32>>, tensor<64x32xi32>
  %x = brick.load %ptrs : tensor<64x32x!brick.ptr<f32>>
  return
}
