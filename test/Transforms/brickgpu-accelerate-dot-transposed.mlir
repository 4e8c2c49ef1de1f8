// A dot's operand that transposes a block (brick.trans) reads that block's buffer through a transposed view
// (brickgpu.memdesc_trans) instead of transposing it in registers: wgmma in place (sm_90a), mma.sync through a
// local_load of the view (ldmatrix; without .trans for a [N, K] weight's block, contiguous along K).
// RUN: brick-opt %s -brickgpu-accelerate-dot=wgmma=true | FileCheck %s
// RUN: brick-opt %s -brickgpu-accelerate-dot=wgmma=false | FileCheck %s --check-prefix=SYNC

// A transposed block (x * W^T, W a [N, K] weight, its block contiguous along K) is stored as it was loaded and
// read through a transposed view: no transpose in registers. A descriptor's block keeps the layout TMA writes.
#rows = #brickgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#cols = #brickgpu.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
#acc = #brickgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
// CHECK-DAG: #[[MMA:.*]] = #brickgpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128]}>
// CHECK-DAG: #[[ROWS64:.*]] = #brickgpu.nvmma_shared<{swizzle = 64, order = [1, 0]}>
// CHECK-DAG: #[[COLS64:.*]] = #brickgpu.nvmma_shared<{swizzle = 64, order = [0, 1]}>
// CHECK-DAG: #[[ROWS128:.*]] = #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
// CHECK-DAG: #[[COLS128:.*]] = #brickgpu.nvmma_shared<{swizzle = 128, order = [0, 1]}>
// SYNC-DAG: #[[MROWS64:.*]] = #brickgpu.nvmma_shared<{swizzle = 64, order = [1, 0]}>
// SYNC-DAG: #[[MCOLS64:.*]] = #brickgpu.nvmma_shared<{swizzle = 64, order = [0, 1]}>
// SYNC-DAG: #[[MROWS128:.*]] = #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
// SYNC-DAG: #[[MCOLS128:.*]] = #brickgpu.nvmma_shared<{swizzle = 128, order = [0, 1]}>
// SYNC-DAG: #[[B:.*]] = #brickgpu.dot_op<{opIdx = 1, parent = #{{.*}}, kWidth = 2}>
module attributes {brickgpu.num_warps = 4 : i32} {
  // SYNC-LABEL: func.func @transposed_weights
  // SYNC-NOT: brick.trans
  // SYNC: %[[W:.*]] = brickgpu.local_alloc %arg1 : (tensor<128x32xbf16, #{{.*}}>) -> !brickgpu.memdesc<128x32xbf16, #[[MROWS64]]>
  // SYNC: %[[WT:.*]] = brickgpu.memdesc_trans %[[W]] : !brickgpu.memdesc<128x32xbf16, #[[MROWS64]]> -> !brickgpu.memdesc<32x128xbf16, #[[MCOLS64]]>
  // SYNC: %[[WR:.*]] = brickgpu.local_load %[[WT]] : !brickgpu.memdesc<32x128xbf16, #[[MCOLS64]]> -> tensor<32x128xbf16, #[[B]]>
  // SYNC: brick.dot %{{.*}}, %[[WR]], %{{.*}}
  // CHECK-LABEL: func.func @transposed_weights
  // CHECK-NOT: brick.trans
  // CHECK: %[[W:.*]] = brickgpu.local_alloc %arg1 : (tensor<128x32xbf16, #{{.*}}>) -> !brickgpu.memdesc<128x32xbf16, #[[ROWS64]]>
  // CHECK: %[[WT:.*]] = brickgpu.memdesc_trans %[[W]] : !brickgpu.memdesc<128x32xbf16, #[[ROWS64]]> -> !brickgpu.memdesc<32x128xbf16, #[[COLS64]]>
  // CHECK: brickgpu.warpgroup_dot %{{.*}}, %[[WT]], %{{.*}} : !brickgpu.memdesc<128x32xbf16, #[[ROWS64]]>, !brickgpu.memdesc<32x128xbf16, #[[COLS64]]> -> tensor<128x128xf32, #[[MMA]]>
  func.func @transposed_weights(%a: tensor<128x32xbf16, #rows>, %w: tensor<128x32xbf16, #rows>, %c: tensor<128x128xf32, #acc>) -> tensor<128x128xf32, #acc> {
    %wt = brick.trans %w [1, 0] : tensor<128x32xbf16, #rows> -> tensor<32x128xbf16, #cols>
    %d = brick.dot %a, %wt, %c : tensor<128x32xbf16, #rows> * tensor<32x128xbf16, #cols> -> tensor<128x128xf32, #acc>
    return %d : tensor<128x128xf32, #acc>
  }
  // One block as both operands (dot(x, x)): one buffer, and the conversion they shared is gone once.
  // CHECK-LABEL: func.func @same_operand
  // CHECK: %[[X:.*]] = brickgpu.local_alloc %arg0
  // CHECK: brickgpu.warpgroup_dot %[[X]], %[[X]]
  // CHECK-NOT: brickgpu.convert_layout %arg0
  func.func @same_operand(%x: tensor<64x64xf16, #rows>, %c: tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc> {
    %y = brickgpu.convert_layout %x : tensor<64x64xf16, #rows> -> tensor<64x64xf16, #cols>
    %d = brick.dot %y, %y, %c : tensor<64x64xf16, #cols> * tensor<64x64xf16, #cols> -> tensor<64x64xf32, #acc>
    return %d : tensor<64x64xf32, #acc>
  }
  // ... and transposed as both (CSE leaves one brick.trans): one buffer, two views.
  // SYNC-LABEL: func.func @same_transposed_operand
  // SYNC-NOT: brick.trans
  // SYNC: %[[X:.*]] = brickgpu.local_alloc %arg0 : (tensor<64x64xf16, #{{.*}}>) -> !brickgpu.memdesc<64x64xf16, #[[MROWS128]]>
  // SYNC: %[[TA:.*]] = brickgpu.memdesc_trans %[[X]]
  // SYNC: brickgpu.local_load %[[TA]] : !brickgpu.memdesc<64x64xf16, #[[MCOLS128]]> -> tensor<64x64xf16, #[[A:.*]]>
  // SYNC: %[[TB:.*]] = brickgpu.memdesc_trans %[[X]]
  // SYNC: brickgpu.local_load %[[TB]] : !brickgpu.memdesc<64x64xf16, #[[MCOLS128]]> -> tensor<64x64xf16, #[[B]]>
  // SYNC-NOT: brickgpu.local_alloc
  // CHECK-LABEL: func.func @same_transposed_operand
  // CHECK-NOT: brick.trans
  // CHECK: %[[X:.*]] = brickgpu.local_alloc %arg0
  // CHECK: %[[T:.*]] = brickgpu.memdesc_trans %[[X]]
  // CHECK: brickgpu.warpgroup_dot %[[T]], %{{.*}}
  func.func @same_transposed_operand(%x: tensor<64x64xf16, #rows>, %c: tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc> {
    %y = brick.trans %x [1, 0] : tensor<64x64xf16, #rows> -> tensor<64x64xf16, #cols>
    %d = brick.dot %y, %y, %c : tensor<64x64xf16, #cols> * tensor<64x64xf16, #cols> -> tensor<64x64xf32, #acc>
    return %d : tensor<64x64xf32, #acc>
  }
  // SYNC-LABEL: func.func @transposed_descriptor_block
  // SYNC-NOT: brick.trans
  // SYNC: %[[Y:.*]] = brick.descriptor_load
  // SYNC: %[[W:.*]] = brickgpu.local_alloc %[[Y]] : (tensor<128x64xbf16, #{{.*}}>) -> !brickgpu.memdesc<128x64xbf16, #[[MROWS128]]>
  // SYNC: %[[WT:.*]] = brickgpu.memdesc_trans %[[W]] : !brickgpu.memdesc<128x64xbf16, #[[MROWS128]]> -> !brickgpu.memdesc<64x128xbf16, #[[MCOLS128]]>
  // SYNC: brickgpu.local_load %[[WT]] : !brickgpu.memdesc<64x128xbf16, #[[MCOLS128]]> -> tensor<64x128xbf16, #[[B]]>
  // CHECK-LABEL: func.func @transposed_descriptor_block
  // CHECK-NOT: brick.trans
  // CHECK: %[[Y:.*]] = brick.descriptor_load
  // CHECK: %[[W:.*]] = brickgpu.local_alloc %[[Y]] : (tensor<128x64xbf16, #{{.*}}>) -> !brickgpu.memdesc<128x64xbf16, #[[ROWS128]]>
  // CHECK: %[[WT:.*]] = brickgpu.memdesc_trans %[[W]] : !brickgpu.memdesc<128x64xbf16, #[[ROWS128]]> -> !brickgpu.memdesc<64x128xbf16, #[[COLS128]]>
  // CHECK: brickgpu.warpgroup_dot %{{.*}}, %[[WT]], %{{.*}}
  func.func @transposed_descriptor_block(%a: tensor<128x64xbf16, #rows>, %d: !brick.tensordesc<128x64xbf16>, %n: i32, %k: i32, %c: tensor<128x128xf32, #acc>) -> tensor<128x128xf32, #acc> {
    %y = brick.descriptor_load %d[%n, %k] : !brick.tensordesc<128x64xbf16> -> tensor<128x64xbf16, #rows>
    %yt = brick.trans %y [1, 0] : tensor<128x64xbf16, #rows> -> tensor<64x128xbf16, #cols>
    %r = brick.dot %a, %yt, %c : tensor<128x64xbf16, #rows> * tensor<64x128xbf16, #cols> -> tensor<128x128xf32, #acc>
    return %r : tensor<128x128xf32, #acc>
  }
}
