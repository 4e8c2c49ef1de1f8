// On sm_90a (wgmma=true) dots that fit wgmma read both operands from #nvmma_shared buffers through a
// brickgpu.warpgroup_dot with an #mma version 3 accumulator; the others keep mma.sync (version 2).
// RUN: brick-opt %s -split-input-file -brickgpu-accelerate-dot=wgmma=true | FileCheck %s
// RUN: brick-opt %s -split-input-file -brickgpu-accelerate-dot | FileCheck %s --check-prefix=SM80

#rows = #brickgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#cols = #brickgpu.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
#acc = #brickgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
// One warpgroup over 128x128: it covers 64 rows, twice; the instruction is m64n128.
// CHECK-DAG: #[[MMA:.*]] = #brickgpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128]}>
// a: 32 f16 along K = 64-byte rows: 64-byte swizzle. b, contiguous along N: 128 f16 = 256-byte rows, 128-byte columns.
// CHECK-DAG: #[[A:.*]] = #brickgpu.nvmma_shared<{swizzle = 64, order = [1, 0]}>
// CHECK-DAG: #[[B:.*]] = #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
// b contiguous along K (a [N, K] weight) is stored along K.
// CHECK-DAG: #[[BK:.*]] = #brickgpu.nvmma_shared<{swizzle = 64, order = [0, 1]}>
module attributes {brickgpu.num_warps = 4 : i32} {
  // CHECK-LABEL: func.func @f16
  // CHECK: %[[SA:.*]] = brickgpu.local_alloc %arg0 : (tensor<128x32xf16, #{{.*}}>) -> !brickgpu.memdesc<128x32xf16, #[[A]]>
  // CHECK: %[[SB:.*]] = brickgpu.local_alloc %arg1 : (tensor<32x128xf16, #{{.*}}>) -> !brickgpu.memdesc<32x128xf16, #[[B]]>
  // CHECK: %[[C:.*]] = brickgpu.convert_layout %arg2 : tensor<128x128xf32, #{{.*}}> -> tensor<128x128xf32, #[[MMA]]>
  // CHECK: %[[D:.*]] = brickgpu.warpgroup_dot %[[SA]], %[[SB]], %[[C]] : !brickgpu.memdesc<128x32xf16, #[[A]]>, !brickgpu.memdesc<32x128xf16, #[[B]]> -> tensor<128x128xf32, #[[MMA]]>
  // CHECK: brickgpu.convert_layout %[[D]] : tensor<128x128xf32, #[[MMA]]> -> tensor<128x128xf32, #{{.*}}>
  // SM80-NOT: warpgroup_dot
  // SM80: brick.dot {{.*}}#dot_op
  func.func @f16(%a: tensor<128x32xf16, #rows>, %b: tensor<32x128xf16, #rows>, %c: tensor<128x128xf32, #acc>) -> tensor<128x128xf32, #acc> {
    %d = brick.dot %a, %b, %c : tensor<128x32xf16, #rows> * tensor<32x128xf16, #rows> -> tensor<128x128xf32, #acc>
    return %d : tensor<128x128xf32, #acc>
  }
  // Two dots of one A (an MoE's gate and up projections) share its buffer: one copy into shared memory.
  // CHECK-LABEL: func.func @shared_a
  // CHECK: %[[SA:.*]] = brickgpu.local_alloc %arg0
  // CHECK-NOT: brickgpu.local_alloc %arg0
  // CHECK: brickgpu.warpgroup_dot %[[SA]]
  // CHECK-NOT: brickgpu.local_alloc %arg0
  // CHECK: brickgpu.warpgroup_dot %[[SA]]
  func.func @shared_a(%a: tensor<128x32xf16, #rows>, %b: tensor<32x128xf16, #rows>, %b2: tensor<32x128xf16, #rows>, %c: tensor<128x128xf32, #acc>) -> (tensor<128x128xf32, #acc>, tensor<128x128xf32, #acc>) {
    %d = brick.dot %a, %b, %c : tensor<128x32xf16, #rows> * tensor<32x128xf16, #rows> -> tensor<128x128xf32, #acc>
    %e = brick.dot %a, %b2, %c : tensor<128x32xf16, #rows> * tensor<32x128xf16, #rows> -> tensor<128x128xf32, #acc>
    return %d, %e : tensor<128x128xf32, #acc>, tensor<128x128xf32, #acc>
  }
  // CHECK-LABEL: func.func @bf16_weights_along_k
  // CHECK: brickgpu.warpgroup_dot {{.*}} : !brickgpu.memdesc<128x32xbf16, #[[A]]>, !brickgpu.memdesc<32x128xbf16, #[[BK]]> -> tensor<128x128xf32, #[[MMA]]>
  func.func @bf16_weights_along_k(%a: tensor<128x32xbf16, #rows>, %b: tensor<32x128xbf16, #cols>, %c: tensor<128x128xf32, #acc>) -> tensor<128x128xf32, #acc> {
    %d = brick.dot %a, %b, %c : tensor<128x32xbf16, #rows> * tensor<32x128xbf16, #cols> -> tensor<128x128xf32, #acc>
    return %d : tensor<128x128xf32, #acc>
  }
  // i8 takes wgmma only with both operands contiguous along K: b along N stays on mma.sync. tf32 always does
  // (mma.sync takes its operands rounded to nearest; wgmma would truncate them).
  // CHECK-LABEL: func.func @i8_b_along_n
  // CHECK-NOT: warpgroup_dot
  // CHECK: brick.dot {{.*}}#dot_op
  func.func @i8_b_along_n(%a: tensor<128x64xi8, #rows>, %b: tensor<64x128xi8, #rows>, %c: tensor<128x128xi32, #acc>) -> tensor<128x128xi32, #acc> {
    %d = brick.dot %a, %b, %c : tensor<128x64xi8, #rows> * tensor<64x128xi8, #rows> -> tensor<128x128xi32, #acc>
    return %d : tensor<128x128xi32, #acc>
  }
  // CHECK-LABEL: func.func @tf32_along_k
  // CHECK-NOT: warpgroup_dot
  // CHECK: brick.dot {{.*}}#dot_op
  func.func @tf32_along_k(%a: tensor<128x32xf32, #rows>, %b: tensor<32x128xf32, #cols>, %c: tensor<128x128xf32, #acc>) -> tensor<128x128xf32, #acc> {
    %d = brick.dot %a, %b, %c inputPrecision = tf32 : tensor<128x32xf32, #rows> * tensor<32x128xf32, #cols> -> tensor<128x128xf32, #acc>
    return %d : tensor<128x128xf32, #acc>
  }
  // CHECK-LABEL: func.func @i8_along_k
  // CHECK: brickgpu.warpgroup_dot {{.*}} -> tensor<128x128xi32, #[[MMA]]>
  func.func @i8_along_k(%a: tensor<128x64xi8, #rows>, %b: tensor<64x128xi8, #cols>, %c: tensor<128x128xi32, #acc>) -> tensor<128x128xi32, #acc> {
    %d = brick.dot %a, %b, %c : tensor<128x64xi8, #rows> * tensor<64x128xi8, #cols> -> tensor<128x128xi32, #acc>
    return %d : tensor<128x128xi32, #acc>
  }
  // M under one warpgroup's 64 rows, tf32x3 (three products per step) and an f16 accumulator stay on mma.sync.
  // CHECK-LABEL: func.func @m32
  // CHECK-NOT: warpgroup_dot
  // CHECK: brick.dot {{.*}}#dot_op
  func.func @m32(%a: tensor<32x32xf16, #rows>, %b: tensor<32x128xf16, #rows>, %c: tensor<32x128xf32, #acc>) -> tensor<32x128xf32, #acc> {
    %d = brick.dot %a, %b, %c : tensor<32x32xf16, #rows> * tensor<32x128xf16, #rows> -> tensor<32x128xf32, #acc>
    return %d : tensor<32x128xf32, #acc>
  }
  // CHECK-LABEL: func.func @tf32x3
  // CHECK-NOT: warpgroup_dot
  func.func @tf32x3(%a: tensor<128x32xf32, #rows>, %b: tensor<32x128xf32, #cols>, %c: tensor<128x128xf32, #acc>) -> tensor<128x128xf32, #acc> {
    %d = brick.dot %a, %b, %c inputPrecision = tf32x3 : tensor<128x32xf32, #rows> * tensor<32x128xf32, #cols> -> tensor<128x128xf32, #acc>
    return %d : tensor<128x128xf32, #acc>
  }
  // CHECK-LABEL: func.func @f16_accumulator
  // CHECK-NOT: warpgroup_dot
  func.func @f16_accumulator(%a: tensor<128x32xf16, #rows>, %b: tensor<32x128xf16, #rows>, %c: tensor<128x128xf16, #acc>) -> tensor<128x128xf16, #acc> {
    %d = brick.dot %a, %b, %c : tensor<128x32xf16, #rows> * tensor<32x128xf16, #rows> -> tensor<128x128xf16, #acc>
    return %d : tensor<128x128xf16, #acc>
  }
}

// -----

// Eight warps: two warpgroups along M while M has rows for them (128 = 2 x 64), else along N (64 rows: the
// warpgroups split N, each an m64n64 instruction).
#l = #brickgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]}>
// CHECK-DAG: #brickgpu.mma<{version = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>
// CHECK-DAG: #brickgpu.mma<{version = 3, warpsPerCTA = [4, 2], instrShape = [64, 64]}>
module attributes {brickgpu.num_warps = 8 : i32} {
  func.func @tall(%a: tensor<128x64xf16, #l>, %b: tensor<64x128xf16, #l>, %c: tensor<128x128xf32, #l>) -> tensor<128x128xf32, #l> {
    %d = brick.dot %a, %b, %c : tensor<128x64xf16, #l> * tensor<64x128xf16, #l> -> tensor<128x128xf32, #l>
    return %d : tensor<128x128xf32, #l>
  }
  func.func @flat(%a: tensor<64x64xf16, #l>, %b: tensor<64x128xf16, #l>, %c: tensor<64x128xf32, #l>) -> tensor<64x128xf32, #l> {
    %d = brick.dot %a, %b, %c : tensor<64x64xf16, #l> * tensor<64x128xf16, #l> -> tensor<64x128xf32, #l>
    return %d : tensor<64x128xf32, #l>
  }
}
