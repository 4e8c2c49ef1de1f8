// Shared memory: buffers live at the same time never overlap; buffers that are not reuse bytes.
// RUN: brick-opt %s -brickgpu-allocate-shared-memory -split-input-file | FileCheck %s

#a = #brickgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#b = #brickgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#shared = #brickgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>

// Two conversions one after the other: their scratch (4 KiB each) shares offset 0. A shared buffer live
// across both takes its own bytes after them.
// CHECK: module attributes {brickgpu.shared = 6144 : i32}
// CHECK-LABEL: func.func @reuse
// CHECK: brickgpu.local_alloc {{.*}}brickgpu.offset = 4096 : i32
// CHECK: brickgpu.convert_layout {{.*}}brickgpu.offset = 0 : i32
// CHECK: brickgpu.convert_layout {{.*}}brickgpu.offset = 0 : i32
// CHECK: brickgpu.local_load
func.func @reuse(%x: tensor<1024xf32, #a>, %y: tensor<512xf32, #a>) -> (tensor<1024xf32, #b>, tensor<1024xf32, #a>, tensor<512xf32, #a>) {
  %buf = brickgpu.local_alloc %y : (tensor<512xf32, #a>) -> !brickgpu.memdesc<512xf32, #shared>
  %1 = brickgpu.convert_layout %x : tensor<1024xf32, #a> -> tensor<1024xf32, #b>
  %2 = brickgpu.convert_layout %1 : tensor<1024xf32, #b> -> tensor<1024xf32, #a>
  %3 = brickgpu.local_load %buf : !brickgpu.memdesc<512xf32, #shared> -> tensor<512xf32, #a>
  return %1, %2, %3 : tensor<1024xf32, #b>, tensor<1024xf32, #a>, tensor<512xf32, #a>
}

// -----

#a = #brickgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#b = #brickgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>

// A reduction across 4 warps keeps one partial per warp (16 bytes for f32); a conversion between layouts
// that agree needs none.
// CHECK: module attributes {brickgpu.shared = 16 : i32}
// CHECK: brick.reduce{{.*}}brickgpu.offset = 0 : i32
// CHECK: brickgpu.convert_layout
// CHECK-NOT: brickgpu.offset
func.func @reduce_partials(%x: tensor<1024xf32, #b>) -> (f32, tensor<1024xf32, #b>) {
  %m = brick.reduce(%x) axis = 0 : (tensor<1024xf32, #b>) -> f32 {
  ^bb0(%u: f32, %v: f32):
    %w = arith.maxnumf %u, %v : f32
    brick.reduce.return %w : f32
  }
  %same = brickgpu.convert_layout %x : tensor<1024xf32, #b> -> tensor<1024xf32, #b>
  return %m, %same : f32, tensor<1024xf32, #b>
}

// -----

// A ring lives as long as its slots are used: the barriers invalidated after a conversion keep their bytes,
// which the conversion's scratch does not reuse.
#a = #brickgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#b = #brickgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#s = #brickgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
// CHECK-LABEL: func.func @ring_slots
// CHECK: brickgpu.local_alloc {{.*}}brickgpu.offset = 4096 : i32
// CHECK: brickgpu.convert_layout {{.*}}brickgpu.offset = 0 : i32
// CHECK: brickgpu.inval_barrier
func.func @ring_slots(%x: tensor<1024xf32, #a>, %i: i32) -> tensor<1024xf32, #b> {
  %bars = brickgpu.local_alloc : () -> !brickgpu.memdesc<4x1xi64, #s>
  %bar = brickgpu.memdesc_index %bars[%i] : !brickgpu.memdesc<4x1xi64, #s> -> !brickgpu.memdesc<1xi64, #s>
  brickgpu.init_barrier %bar, 1 : !brickgpu.memdesc<1xi64, #s>
  %1 = brickgpu.convert_layout %x : tensor<1024xf32, #a> -> tensor<1024xf32, #b>
  brickgpu.inval_barrier %bar : !brickgpu.memdesc<1xi64, #s>
  return %1 : tensor<1024xf32, #b>
}
