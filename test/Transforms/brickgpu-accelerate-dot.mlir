// Dots the tensor cores take get an #mma result and #dot_op operands read from swizzled shared memory.
// RUN: brick-opt %s -split-input-file -brickgpu-accelerate-dot | FileCheck %s
// RUN: brick-opt %s -split-input-file -brickgpu-accelerate-dot=compute-capability=75 | FileCheck %s --check-prefix=OLD
// RUN: brick-opt %s -split-input-file -brickgpu-accelerate-dot=compute-capability=80 | FileCheck %s --check-prefix=SM80

#rows = #brickgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#cols = #brickgpu.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
#acc = #brickgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
// CHECK-DAG: #[[MMA:.*]] = #brickgpu.mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
// 64 f16 = 128-byte rows: 16-byte groups, a new phase every row, 8 phases.
// CHECK-DAG: #[[ROWS:.*]] = #brickgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
// b is contiguous along K (its loads run down the columns): stored column by column.
// CHECK-DAG: #[[COLS:.*]] = #brickgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1]}>
// CHECK-DAG: #[[A:.*]] = #brickgpu.dot_op<{opIdx = 0, parent = #[[MMA]], kWidth = 2}>
// CHECK-DAG: #[[B:.*]] = #brickgpu.dot_op<{opIdx = 1, parent = #[[MMA]], kWidth = 2}>
module attributes {brickgpu.num_warps = 4 : i32} {
  // CHECK-LABEL: func.func @f16
  func.func @f16(%a: tensor<128x64xf16, #rows>, %b: tensor<64x128xf16, #cols>, %c: tensor<128x128xf32, #acc>) -> tensor<128x128xf32, #acc> {
    // CHECK: %[[SA:.*]] = brickgpu.local_alloc %arg0 : (tensor<128x64xf16, #{{.*}}>) -> !brickgpu.memdesc<128x64xf16, #[[ROWS]]>
    // CHECK: %[[RA:.*]] = brickgpu.local_load %[[SA]] : !brickgpu.memdesc<128x64xf16, #[[ROWS]]> -> tensor<128x64xf16, #[[A]]>
    // CHECK: %[[SB:.*]] = brickgpu.local_alloc %arg1 : (tensor<64x128xf16, #{{.*}}>) -> !brickgpu.memdesc<64x128xf16, #[[COLS]]>
    // CHECK: %[[RB:.*]] = brickgpu.local_load %[[SB]] : !brickgpu.memdesc<64x128xf16, #[[COLS]]> -> tensor<64x128xf16, #[[B]]>
    // CHECK: %[[C:.*]] = brickgpu.convert_layout %arg2 : tensor<128x128xf32, #{{.*}}> -> tensor<128x128xf32, #[[MMA]]>
    // CHECK: %[[D:.*]] = brick.dot %[[RA]], %[[RB]], %[[C]] : tensor<128x64xf16, #[[A]]> * tensor<64x128xf16, #[[B]]> -> tensor<128x128xf32, #[[MMA]]>
    // CHECK: brickgpu.convert_layout %[[D]] : tensor<128x128xf32, #[[MMA]]> -> tensor<128x128xf32, #{{.*}}>
    // OLD-NOT: brickgpu.mma
    %d = brick.dot %a, %b, %c : tensor<128x64xf16, #rows> * tensor<64x128xf16, #cols> -> tensor<128x128xf32, #acc>
    return %d : tensor<128x128xf32, #acc>
  }
}

// -----

// f32 under tf32 takes m16n8k8 (one element per register); under ieee precision it stays on FMAs. i8 takes
// m16n8k32 into i32. Eight warps over 128x128: four along M, two along N. Blocks under one instruction stay on
// FMAs.
#l = #brickgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]}>
// CHECK-DAG: #[[MMA8:.*]] = #brickgpu.mma<{version = 2, warpsPerCTA = [4, 2], instrShape = [16, 8]}>
// 32 f32 = 128-byte rows (and 128 f32 rows of b: the same layout).
// CHECK-DAG: #[[F32ROWS:.*]] = #brickgpu.shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]}>
// 64 i8 = 64-byte rows: two rows per 128 bytes, 4 phases.
// CHECK-DAG: #[[I8ROWS:.*]] = #brickgpu.shared<{vec = 16, perPhase = 2, maxPhase = 4, order = [1, 0]}>
// CHECK-DAG: #[[TF32A:.*]] = #brickgpu.dot_op<{opIdx = 0, parent = #[[MMA8]], kWidth = 1}>
// CHECK-DAG: #[[I8B:.*]] = #brickgpu.dot_op<{opIdx = 1, parent = #[[MMA8]], kWidth = 4}>
module attributes {brickgpu.num_warps = 8 : i32} {
  // CHECK-LABEL: func.func @tf32
  // CHECK: brick.dot {{.*}} : tensor<128x32xf32, #[[TF32A]]> * tensor<32x128xf32, #{{.*}}> -> tensor<128x128xf32, #[[MMA8]]>
  func.func @tf32(%a: tensor<128x32xf32, #l>, %b: tensor<32x128xf32, #l>, %c: tensor<128x128xf32, #l>) -> tensor<128x128xf32, #l> {
    %d = brick.dot %a, %b, %c inputPrecision = tf32 : tensor<128x32xf32, #l> * tensor<32x128xf32, #l> -> tensor<128x128xf32, #l>
    return %d : tensor<128x128xf32, #l>
  }
  // CHECK-LABEL: func.func @ieee
  // CHECK-NOT: brickgpu.local_alloc
  // CHECK: brick.dot %arg0, %arg1, %arg2 : tensor<128x32xf32, #{{.*}}> * tensor<32x128xf32, #{{.*}}> -> tensor<128x128xf32, #{{.*}}>
  func.func @ieee(%a: tensor<128x32xf32, #l>, %b: tensor<32x128xf32, #l>, %c: tensor<128x128xf32, #l>) -> tensor<128x128xf32, #l> {
    %d = brick.dot %a, %b, %c : tensor<128x32xf32, #l> * tensor<32x128xf32, #l> -> tensor<128x128xf32, #l>
    return %d : tensor<128x128xf32, #l>
  }
  // CHECK-LABEL: func.func @i8
  // CHECK: brickgpu.local_alloc %arg1 : (tensor<64x128xi8, #{{.*}}>) -> !brickgpu.memdesc<64x128xi8, #{{.*}}>
  // CHECK: brick.dot {{.*}} : tensor<128x64xi8, #{{.*}}> * tensor<64x128xi8, #[[I8B]]> -> tensor<128x128xi32, #[[MMA8]]>
  func.func @i8(%a: tensor<128x64xi8, #l>, %b: tensor<64x128xi8, #l>, %c: tensor<128x128xi32, #l>) -> tensor<128x128xi32, #l> {
    %d = brick.dot %a, %b, %c : tensor<128x64xi8, #l> * tensor<64x128xi8, #l> -> tensor<128x128xi32, #l>
    return %d : tensor<128x128xi32, #l>
  }
  // CHECK-LABEL: func.func @small
  // CHECK-NOT: brickgpu.local_alloc
  // CHECK: brick.dot %arg0, %arg1, %arg2 : tensor<8x32xf16, #{{.*}}> * tensor<32x64xf16, #{{.*}}> -> tensor<8x64xf32, #{{.*}}>
  func.func @small(%a: tensor<8x32xf16, #l>, %b: tensor<32x64xf16, #l>, %c: tensor<8x64xf32, #l>) -> tensor<8x64xf32, #l> {
    %d = brick.dot %a, %b, %c : tensor<8x32xf16, #l> * tensor<32x64xf16, #l> -> tensor<8x64xf32, #l>
    return %d : tensor<8x64xf32, #l>
  }
}

// -----

// A batched dot ([B, M, K] x [B, K, N]) goes on mma.sync too: warps over the batches first (4 batches, 8 warps:
// 4 along B, the other 2 over M and N as for a 2-D dot), each operand staged with its last dimension fastest.
#b3 = #brickgpu.blocked<{sizePerThread = [1, 1, 8], threadsPerWarp = [1, 4, 8], warpsPerCTA = [8, 1, 1], order = [2, 1, 0]}>
// CHECK-DAG: #[[MMA3:.*]] = #brickgpu.mma<{version = 2, warpsPerCTA = [4, 2, 1], instrShape = [16, 8]}>
// CHECK-DAG: #[[S3:.*]] = #brickgpu.shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [2, 1, 0]}>
// CHECK-DAG: #[[A3:.*]] = #brickgpu.dot_op<{opIdx = 0, parent = #[[MMA3]], kWidth = 2}>
// CHECK-DAG: #[[B3:.*]] = #brickgpu.dot_op<{opIdx = 1, parent = #[[MMA3]], kWidth = 2}>
module attributes {brickgpu.num_warps = 8 : i32} {
  // CHECK-LABEL: func.func @batched
  // CHECK: brickgpu.local_alloc %arg0 : (tensor<4x32x32xf16, #{{.*}}>) -> !brickgpu.memdesc<4x32x32xf16, #[[S3]]>
  // CHECK: brick.dot {{.*}} : tensor<4x32x32xf16, #[[A3]]> * tensor<4x32x32xf16, #[[B3]]> -> tensor<4x32x32xf32, #[[MMA3]]>
  // OLD-NOT: brickgpu.mma
  func.func @batched(%a: tensor<4x32x32xf16, #b3>, %b: tensor<4x32x32xf16, #b3>, %c: tensor<4x32x32xf32, #b3>) -> tensor<4x32x32xf32, #b3> {
    %d = brick.dot %a, %b, %c : tensor<4x32x32xf16, #b3> * tensor<4x32x32xf16, #b3> -> tensor<4x32x32xf32, #b3>
    return %d : tensor<4x32x32xf32, #b3>
  }
}

// -----

// 8-bit floats (e4m3 times e5m2, f32 accumulator) that wgmma does not take (16 rows: under its 64) go on
// mma.sync m16n8k32 from sm_89, four elements along K a register, as i8 does; on sm_80 the operands are widened
// to f16 (which holds every e4m3fn and e5m2 value) for m16n8k16.
#f8 = #brickgpu.blocked<{sizePerThread = [1, 16], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-DAG: #[[F8A:.*]] = #brickgpu.dot_op<{opIdx = 0, parent = #[[F8MMA:.*]], kWidth = 4}>
// CHECK-DAG: #[[F8B:.*]] = #brickgpu.dot_op<{opIdx = 1, parent = #[[F8MMA]], kWidth = 4}>
// SM80-DAG: #[[H16A:.*]] = #brickgpu.dot_op<{opIdx = 0, parent = #[[H16MMA:.*]], kWidth = 2}>
module attributes {brickgpu.num_warps = 4 : i32} {
  // CHECK-LABEL: func.func @float8
  // CHECK-NOT: arith.extf
  // CHECK: brick.dot {{.*}} : tensor<16x128xf8E4M3FN, #[[F8A]]> * tensor<128x64xf8E5M2, #[[F8B]]> -> tensor<16x64xf32, #[[F8MMA]]>
  // SM80-LABEL: func.func @float8
  // SM80-DAG: arith.extf %arg0 : tensor<16x128xf8E4M3FN, #{{.*}}> to tensor<16x128xf16, #{{.*}}>
  // SM80-DAG: arith.extf %arg1 : tensor<128x64xf8E5M2, #{{.*}}> to tensor<128x64xf16, #{{.*}}>
  // SM80: brick.dot {{.*}} : tensor<16x128xf16, #[[H16A]]> * tensor<128x64xf16, #{{.*}}> -> tensor<16x64xf32, #[[H16MMA]]>
  func.func @float8(%a: tensor<16x128xf8E4M3FN, #f8>, %b: tensor<128x64xf8E5M2, #f8>, %c: tensor<16x64xf32, #f8>) -> tensor<16x64xf32, #f8> {
    %d = brick.dot %a, %b, %c : tensor<16x128xf8E4M3FN, #f8> * tensor<128x64xf8E5M2, #f8> -> tensor<16x64xf32, #f8>
    return %d : tensor<16x64xf32, #f8>
  }
}
