// local_store's column window: each thread writes only the registers holding the window's columns, at their
// column less the window's first, into a buffer of the window's width. wgmma's accumulator (64x128 over 4 warps,
// 64 registers a thread) holds columns [64, 128) in its registers 32..63; a pair of columns stays together under
// the 128-byte swizzle (which moves 16-byte groups), so 16 pair stores a window.
// RUN: brick-opt %s -brickgpu-allocate-shared-memory -convert-brickgpu-to-llvm -cse | FileCheck %s

#mma = #brickgpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128]}>
#b = #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#s = #brickgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#wide = #brickgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {brickgpu.num_warps = 4 : i32} {
  // CHECK-LABEL: llvm.func @second_window
  // CHECK-DAG: %[[C64:.*]] = llvm.mlir.constant(64 : i32) : i32
  // CHECK-DAG: %[[R32:.*]] = llvm.extractvalue %arg0[32]
  // CHECK-DAG: %[[R33:.*]] = llvm.extractvalue %arg0[33]
  // CHECK: llvm.sub %{{.*}}, %[[C64]] : i32
  // CHECK: %[[P:.*]] = llvm.insertelement %[[R32]], %{{.*}}[%{{.*}} : i32] : vector<2xf16>
  // CHECK-NEXT: %[[Q:.*]] = llvm.insertelement %[[R33]], %[[P]][%{{.*}} : i32] : vector<2xf16>
  // CHECK-NEXT: llvm.store %[[Q]], %{{.*}} {alignment = 4 : i64} : vector<2xf16>, !llvm.ptr<3>
  // CHECK-COUNT-15: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<2xf16>, !llvm.ptr<3>
  // CHECK-NOT: llvm.store
  // CHECK: llvm.return
  func.func @second_window(%acc: tensor<64x128xf16, #mma>) {
    %buffer = brickgpu.local_alloc : () -> !brickgpu.memdesc<64x64xf16, #b>
    brickgpu.local_store %acc, %buffer {column_offset = 64 : i64} : tensor<64x128xf16, #mma> -> !brickgpu.memdesc<64x64xf16, #b>
    return
  }

  // The first window needs no column shift; its first pair is registers 0 and 1.
  // CHECK-LABEL: llvm.func @first_window
  // CHECK-DAG: %[[R0:.*]] = llvm.extractvalue %arg0[0]
  // CHECK-DAG: %[[R1:.*]] = llvm.extractvalue %arg0[1]
  // CHECK-NOT: llvm.sub
  // CHECK: %[[P:.*]] = llvm.insertelement %[[R0]], %{{.*}}[%{{.*}} : i32] : vector<2xf16>
  // CHECK-NEXT: %[[Q:.*]] = llvm.insertelement %[[R1]], %[[P]][%{{.*}} : i32] : vector<2xf16>
  // CHECK-NEXT: llvm.store %[[Q]]
  // CHECK-COUNT-15: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<2xf16>, !llvm.ptr<3>
  // CHECK-NOT: llvm.store
  // CHECK: llvm.return
  func.func @first_window(%acc: tensor<64x128xf16, #mma>) {
    %buffer = brickgpu.local_alloc : () -> !brickgpu.memdesc<64x64xf16, #b>
    brickgpu.local_store %acc, %buffer {column_offset = 0 : i64} : tensor<64x128xf16, #mma> -> !brickgpu.memdesc<64x64xf16, #b>
    return
  }

  // A swizzled #shared keeps `vec` (8) elements together: a thread's 8 f16 along its row are one 16-byte store.
  // CHECK-LABEL: llvm.func @swizzled_rows
  // CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<8xf16>, !llvm.ptr<3>
  // CHECK-NOT: llvm.store
  // CHECK: llvm.return
  func.func @swizzled_rows(%x: tensor<128x8xf16, #wide>) {
    %buffer = brickgpu.local_alloc : () -> !brickgpu.memdesc<128x8xf16, #s>
    brickgpu.local_store %x, %buffer : tensor<128x8xf16, #wide> -> !brickgpu.memdesc<128x8xf16, #s>
    return
  }
}
