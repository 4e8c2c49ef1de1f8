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
// CHECK-DAG: #[[BK128:.*]] = #brickgpu.nvmma_shared<{swizzle = 128, order = [0, 1]}>
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
  // The promise that A's rows from %n on are zero goes with the dot, to wgmma and to mma.sync.
  // CHECK-LABEL: func.func @zero_rows_from
  // CHECK: brickgpu.warpgroup_dot %{{.*}}, %{{.*}}, %{{.*}} zero_rows_from %arg3 :
  // SM80-LABEL: func.func @zero_rows_from
  // SM80: brick.dot %{{.*}}, %{{.*}}, %{{.*}} zero_rows_from %arg3 :
  func.func @zero_rows_from(%a: tensor<128x32xf16, #rows>, %b: tensor<32x128xf16, #rows>, %c: tensor<128x128xf32, #acc>, %n: i32) -> tensor<128x128xf32, #acc> {
    %d = brick.dot %a, %b, %c zero_rows_from %n : tensor<128x32xf16, #rows> * tensor<32x128xf16, #rows> -> tensor<128x128xf32, #acc>
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
  // wgmma reads i8 and tf32 only along K: b along N gets a buffer along K all the same, written from registers
  // (brickgpu-pipeline stages the load that feeds it).
  // CHECK-LABEL: func.func @i8_b_along_n
  // CHECK: brickgpu.local_alloc %arg1 {{.*}} -> !brickgpu.memdesc<64x128xi8, #[[BK]]>
  // CHECK: brickgpu.warpgroup_dot
  func.func @i8_b_along_n(%a: tensor<128x64xi8, #rows>, %b: tensor<64x128xi8, #rows>, %c: tensor<128x128xi32, #acc>) -> tensor<128x128xi32, #acc> {
    %d = brick.dot %a, %b, %c : tensor<128x64xi8, #rows> * tensor<64x128xi8, #rows> -> tensor<128x128xi32, #acc>
    return %d : tensor<128x128xi32, #acc>
  }
  // CHECK-LABEL: func.func @tf32_b_along_n
  // CHECK: brickgpu.local_alloc %arg1 {{.*}} -> !brickgpu.memdesc<32x128xf32, #[[BK128]]>
  // CHECK: brickgpu.warpgroup_dot
  func.func @tf32_b_along_n(%a: tensor<128x32xf32, #rows>, %b: tensor<32x128xf32, #rows>, %c: tensor<128x128xf32, #acc>) -> tensor<128x128xf32, #acc> {
    %d = brick.dot %a, %b, %c inputPrecision = tf32 : tensor<128x32xf32, #rows> * tensor<32x128xf32, #rows> -> tensor<128x128xf32, #acc>
    return %d : tensor<128x128xf32, #acc>
  }
  // tf32 along K: wgmma m64nNk8, each operand's rows of 32 f32 one 128-byte swizzle row.
  // CHECK-LABEL: func.func @tf32_along_k
  // CHECK: brickgpu.local_alloc {{.*}} -> !brickgpu.memdesc<128x32xf32, #[[B]]>
  // CHECK: brickgpu.local_alloc {{.*}} -> !brickgpu.memdesc<32x128xf32, #[[BK128]]>
  // CHECK: brickgpu.warpgroup_dot {{.*}} {inputPrecision = 1 : i32} {{.*}} -> tensor<128x128xf32, #[[MMA]]>
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

// -----

// An A computed in registers (attention's P = exp(S - max) as f16) stays there: wgmma reads it in the #dot_op
// layout of its #mma accumulator. A loaded A (or a function argument) goes through shared memory, and so does
// a computed one when it and the accumulator would take more than half of a thread's registers.
#l = #brickgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#k = #brickgpu.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
// CHECK-DAG: #[[MMA:.*]] = #brickgpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
// CHECK-DAG: #[[DOT_A:.*]] = #brickgpu.dot_op<{opIdx = 0, parent = #[[MMA]], kWidth = 2}>
// CHECK-DAG: #[[MMA8:.*]] = #brickgpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 32]}>
// CHECK-DAG: #[[DOT_A8:.*]] = #brickgpu.dot_op<{opIdx = 0, parent = #[[MMA8]], kWidth = 4}>
module attributes {brickgpu.num_warps = 4 : i32} {
  // CHECK-LABEL: func.func @computed_a
  // CHECK: %[[P:.*]] = arith.truncf
  // CHECK: %[[A:.*]] = brickgpu.convert_layout %[[P]] : tensor<64x64xf16, #{{.*}}> -> tensor<64x64xf16, #[[DOT_A]]>
  // CHECK-NOT: brickgpu.local_alloc %[[P]]
  // CHECK: brickgpu.warpgroup_dot %[[A]], %{{.*}}, %{{.*}} : tensor<64x64xf16, #[[DOT_A]]>, !brickgpu.memdesc<64x64xf16, #{{.*}}> -> tensor<64x64xf32, #[[MMA]]>
  func.func @computed_a(%s: tensor<64x64xf32, #l>, %b: tensor<64x64xf16, #l>, %c: tensor<64x64xf32, #l>) -> tensor<64x64xf32, #l> {
    %e = math.exp2 %s : tensor<64x64xf32, #l>
    %p = arith.truncf %e : tensor<64x64xf32, #l> to tensor<64x64xf16, #l>
    %d = brick.dot %p, %b, %c : tensor<64x64xf16, #l> * tensor<64x64xf16, #l> -> tensor<64x64xf32, #l>
    return %d : tensor<64x64xf32, #l>
  }
  // i8: four elements along K per register (B stored along K, as wgmma reads 8-bit operands).
  // CHECK-LABEL: func.func @computed_a_i8
  // CHECK: brickgpu.warpgroup_dot %{{.*}} : tensor<64x64xi8, #[[DOT_A8]]>
  func.func @computed_a_i8(%x: tensor<64x64xi32, #l>, %b: tensor<64x32xi8, #k>, %c: tensor<64x32xi32, #l>) -> tensor<64x32xi32, #l> {
    %a = arith.trunci %x : tensor<64x64xi32, #l> to tensor<64x64xi8, #l>
    %d = brick.dot %a, %b, %c : tensor<64x64xi8, #l> * tensor<64x32xi8, #k> -> tensor<64x32xi32, #l>
    return %d : tensor<64x32xi32, #l>
  }
  // A 128x128 f32 accumulator over 128 threads takes 128 registers each: no room for A.
  // CHECK-LABEL: func.func @computed_a_no_room
  // CHECK: %[[P:.*]] = arith.truncf
  // CHECK: %[[SA:.*]] = brickgpu.local_alloc %[[P]]
  // CHECK: brickgpu.warpgroup_dot %[[SA]]
  func.func @computed_a_no_room(%s: tensor<128x64xf32, #l>, %b: tensor<64x128xf16, #l>, %c: tensor<128x128xf32, #l>) -> tensor<128x128xf32, #l> {
    %p = arith.truncf %s : tensor<128x64xf32, #l> to tensor<128x64xf16, #l>
    %d = brick.dot %p, %b, %c : tensor<128x64xf16, #l> * tensor<64x128xf16, #l> -> tensor<128x128xf32, #l>
    return %d : tensor<128x128xf32, #l>
  }
  // CHECK-LABEL: func.func @loaded_a
  // CHECK: %[[SA:.*]] = brickgpu.local_alloc
  // CHECK: brickgpu.warpgroup_dot %[[SA]]
  func.func @loaded_a(%pa: tensor<64x64x!brick.ptr<f16>, #l>, %b: tensor<64x64xf16, #l>, %c: tensor<64x64xf32, #l>) -> tensor<64x64xf32, #l> {
    %a = brick.load %pa : tensor<64x64x!brick.ptr<f16>, #l>
    %d = brick.dot %a, %b, %c : tensor<64x64xf16, #l> * tensor<64x64xf16, #l> -> tensor<64x64xf32, #l>
    return %d : tensor<64x64xf32, #l>
  }
  // A block loaded before a loop (attention's queries) is stored into shared memory once, before the loop.
  // CHECK-LABEL: func.func @invariant_a
  // CHECK: %[[A:.*]] = brick.load
  // CHECK-NEXT: %[[SA:.*]] = brickgpu.local_alloc %[[A]]
  // CHECK: scf.for
  // CHECK-NOT: brickgpu.local_alloc %[[A]]
  // CHECK: brickgpu.warpgroup_dot %[[SA]]
  func.func @invariant_a(%pa: tensor<64x64x!brick.ptr<f16>, #l>, %b: tensor<64x64xf16, #l>, %c: tensor<64x64xf32, #l>, %n: i32) -> tensor<64x64xf32, #l> {
    %a = brick.load %pa : tensor<64x64x!brick.ptr<f16>, #l>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c) -> (tensor<64x64xf32, #l>) : i32 {
      %d = brick.dot %a, %b, %acc : tensor<64x64xf16, #l> * tensor<64x64xf16, #l> -> tensor<64x64xf32, #l>
      scf.yield %d : tensor<64x64xf32, #l>
    }
    return %r : tensor<64x64xf32, #l>
  }
}
