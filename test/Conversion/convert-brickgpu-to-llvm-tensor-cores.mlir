// The tensor-core path in the LLVM and NVVM dialects: ldmatrix for #dot_op operands (plain where the buffer runs
// along K, .trans where it runs along M or N), mma.sync per 16x8 accumulator tile and K step, cp.async copies
// with zero fill, their groups and waits, and ring slots as byte offsets.
// RUN: brick-opt %s -split-input-file -brickgpu-allocate-shared-memory -convert-brickgpu-to-llvm | FileCheck %s

#mma = #brickgpu.mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#a = #brickgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#b = #brickgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
#rows = #brickgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
module attributes {brickgpu.num_warps = 4 : i32} {
  // Each warp holds a 16x16 tile of the 32x32 result (two n8 tiles, 16 columns apart) and one K step of 16: one
  // ldmatrix.x4 for its a fragment, one ldmatrix.x4.trans for both b fragments, read right before the mma.sync.
  // CHECK-LABEL: llvm.func @f16
  // CHECK: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
  // CHECK: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
  // CHECK: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
  // CHECK-NOT: nvvm.ldmatrix
  // CHECK: nvvm.mma.sync
  // CHECK-NOT: nvvm.mma.sync
  // CHECK: llvm.return
  func.func @f16(%c: tensor<32x32xf32, #mma>) -> tensor<32x32xf32, #mma> {
    %sa = brickgpu.local_alloc : () -> !brickgpu.memdesc<32x16xf16, #rows>
    %sb = brickgpu.local_alloc : () -> !brickgpu.memdesc<16x32xf16, #rows>
    %a = brickgpu.local_load %sa : !brickgpu.memdesc<32x16xf16, #rows> -> tensor<32x16xf16, #a>
    %b = brickgpu.local_load %sb : !brickgpu.memdesc<16x32xf16, #rows> -> tensor<16x32xf16, #b>
    %d = brick.dot %a, %b, %c : tensor<32x16xf16, #a> * tensor<16x32xf16, #b> -> tensor<32x32xf32, #mma>
    return %d : tensor<32x32xf32, #mma>
  }
}

// -----

// tf32: each f32 rounded to nearest (cvt.rna.tf32.f32) and fed as i32; tf32x3 adds the rounded remainders' products
// first, then the big one: three mma.sync per tile.
#mma = #brickgpu.mma<{version = 2, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #brickgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 1}>
#b = #brickgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 1}>
module attributes {brickgpu.num_warps = 1 : i32} {
  // CHECK-LABEL: llvm.func @tf32
  // CHECK: nvvm.convert.float.to.tf32 %{{.*}} {rnd = #nvvm.fp_rnd_mode<rna>}
  // CHECK: nvvm.mma.sync {{.*}} multiplicandAPtxType = #nvvm.mma_type<tf32>, multiplicandBPtxType = #nvvm.mma_type<tf32>, shape = #nvvm.shape<m = 16, n = 8, k = 8>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
  // CHECK-NOT: nvvm.mma.sync
  // CHECK: llvm.return
  func.func @tf32(%a: tensor<16x8xf32, #a>, %b: tensor<8x8xf32, #b>, %c: tensor<16x8xf32, #mma>) -> tensor<16x8xf32, #mma> {
    %d = brick.dot %a, %b, %c inputPrecision = tf32 : tensor<16x8xf32, #a> * tensor<8x8xf32, #b> -> tensor<16x8xf32, #mma>
    return %d : tensor<16x8xf32, #mma>
  }
  // CHECK-LABEL: llvm.func @tf32x3
  // CHECK: llvm.fsub
  // CHECK-COUNT-3: nvvm.mma.sync {{.*}}#nvvm.mma_type<tf32>
  // CHECK-NOT: nvvm.mma.sync
  // CHECK: llvm.return
  func.func @tf32x3(%a: tensor<16x8xf32, #a>, %b: tensor<8x8xf32, #b>, %c: tensor<16x8xf32, #mma>) -> tensor<16x8xf32, #mma> {
    %d = brick.dot %a, %b, %c inputPrecision = tf32x3 : tensor<16x8xf32, #a> * tensor<8x8xf32, #b> -> tensor<16x8xf32, #mma>
    return %d : tensor<16x8xf32, #mma>
  }
}

// -----

// i8 into i32: m16n8k32, wrapping (as the interpreter and plain integer arithmetic do).
#mma = #brickgpu.mma<{version = 2, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #brickgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #brickgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
module attributes {brickgpu.num_warps = 1 : i32} {
  // CHECK-LABEL: llvm.func @i8
  // CHECK: nvvm.mma.sync {{.*}}intOverflowBehavior = #nvvm.mma_int_overflow<wrapped>{{.*}}multiplicandAPtxType = #nvvm.mma_type<s8>{{.*}}shape = #nvvm.shape<m = 16, n = 8, k = 32>} : (i32, i32, i32) -> !llvm.struct<(i32, i32, i32, i32)>
  func.func @i8(%a: tensor<16x32xi8, #a>, %b: tensor<32x8xi8, #b>, %c: tensor<16x8xi32, #mma>) -> tensor<16x8xi32, #mma> {
    %d = brick.dot %a, %b, %c : tensor<16x32xi8, #a> * tensor<32x8xi8, #b> -> tensor<16x8xi32, #mma>
    return %d : tensor<16x8xi32, #mma>
  }
}

// -----

// 8-bit floats into f32: m16n8k32 through LLVM's intrinsic (nvvm.mma.sync has no e4m3 or e5m2 forms), named by the
// result, A, B and accumulator types; four elements along K a word, as i8.
#mma = #brickgpu.mma<{version = 2, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #brickgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #brickgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
module attributes {brickgpu.num_warps = 1 : i32} {
  // CHECK-LABEL: llvm.func @float8
  // CHECK-COUNT-2: llvm.call_intrinsic "llvm.nvvm.mma.m16n8k32.row.col.f32.e4m3.e5m2.f32"({{.*}}) : (i32, i32, i32, i32, i32, i32, f32, f32, f32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
  // CHECK-NOT: nvvm.mma.sync
  func.func @float8(%a: tensor<16x64xf8E4M3FN, #a>, %b: tensor<64x8xf8E5M2, #b>, %c: tensor<16x8xf32, #mma>) -> tensor<16x8xf32, #mma> {
    %d = brick.dot %a, %b, %c : tensor<16x64xf8E4M3FN, #a> * tensor<64x8xf8E5M2, #b> -> tensor<16x8xf32, #mma>
    return %d : tensor<16x8xf32, #mma>
  }
}

// -----

#b = #brickgpu.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#s = #brickgpu.shared<{vec = 8, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {brickgpu.num_warps = 4 : i32} {
  // 1024 f16 over 128 threads: one 16-byte cp.async each (.cg: around L1), 16 or 0 source bytes by the mask, into
  // ring slot %slot (2048 bytes each).
  // CHECK-LABEL: llvm.func @copy
  // CHECK: %[[SLOT:.*]] = llvm.mul %arg2, %{{.*}} : i32
  // CHECK: %[[BUFFER:.*]] = llvm.getelementptr %{{.*}}[%[[SLOT]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
  // CHECK: %[[SIZE:.*]] = llvm.select %{{.*}}, %{{.*}}, %{{.*}} : i1, i32
  // CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg, %[[SIZE]] : !llvm.ptr<3>, !llvm.ptr<1>, i32
  // CHECK-NOT: nvvm.cp.async.shared.global
  // CHECK: nvvm.cp.async.commit.group
  // CHECK: nvvm.cp.async.wait.group 0
  func.func @copy(%p: !brick.ptr<f16> {brick.divisibility = 16 : i32}, %n: i32 {brick.divisibility = 16 : i32}, %slot: i32) attributes {brick.kernel} {
    %r = brick.make_range 0, 1024 : tensor<1024xi32, #b>
    %ps = brick.splat %p : tensor<1024x!brick.ptr<f16>, #b>
    %ptrs = brick.addptr %ps, %r : tensor<1024x!brick.ptr<f16>, #b>, tensor<1024xi32, #b>
    %ns = brick.splat %n : tensor<1024xi32, #b>
    %m = arith.cmpi slt, %r, %ns : tensor<1024xi32, #b>
    %ring = brickgpu.local_alloc : () -> !brickgpu.memdesc<3x1024xf16, #s>
    %buffer = brickgpu.memdesc_index %ring[%slot] : !brickgpu.memdesc<3x1024xf16, #s> -> !brickgpu.memdesc<1024xf16, #s>
    brickgpu.async_copy_global_to_local %ptrs, %buffer mask %m : tensor<1024x!brick.ptr<f16>, #b> -> !brickgpu.memdesc<1024xf16, #s>, tensor<1024xi1, #b>
    brickgpu.async_commit_group
    brickgpu.async_wait %ring : !brickgpu.memdesc<3x1024xf16, #s> {pending = 0 : i32}
    return
  }
}

// -----

// The epilogue: the accumulator (pairs of columns per thread) to a coalesced layout (8 columns per thread) through
// padded rows of scratch: 4-byte stores of pairs, 16-byte loads; rows 128 + 8 f16 apart.
#mma = #brickgpu.mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#out = #brickgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {brickgpu.num_warps = 4 : i32} {
  // CHECK-LABEL: llvm.func @epilogue
  // CHECK: llvm.mlir.constant(136 : i32)
  // CHECK: llvm.store {{.*}} {alignment = 4 : i64} : vector<2xf16>, !llvm.ptr<3>
  // CHECK: nvvm.barrier0
  // CHECK: llvm.load {{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<8xf16>
  func.func @epilogue(%acc: tensor<64x128xf16, #mma>) -> tensor<64x128xf16, #out> {
    %y = brickgpu.convert_layout %acc : tensor<64x128xf16, #mma> -> tensor<64x128xf16, #out>
    return %y : tensor<64x128xf16, #out>
  }
}

// -----

// An f16 accumulator: the pairs of each row travel as vector<2xf16>, two per instruction.
#mma = #brickgpu.mma<{version = 2, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #brickgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#b = #brickgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
module attributes {brickgpu.num_warps = 1 : i32} {
  // CHECK-LABEL: llvm.func @f16_accumulator
  // CHECK: nvvm.mma.sync {{.*}} : (vector<2xf16>, vector<2xf16>, vector<2xf16>) -> !llvm.struct<(vector<2xf16>, vector<2xf16>)>
  func.func @f16_accumulator(%a: tensor<16x16xf16, #a>, %b: tensor<16x8xf16, #b>, %c: tensor<16x8xf16, #mma>) -> tensor<16x8xf16, #mma> {
    %d = brick.dot %a, %b, %c : tensor<16x16xf16, #a> * tensor<16x8xf16, #b> -> tensor<16x8xf16, #mma>
    return %d : tensor<16x8xf16, #mma>
  }
}

// -----

// A batched dot: four 32x16 by 16x16 products over warps [2 batches, 2 along M, 1 along N]. Each thread holds two
// n8 tiles of two batches (the batch repeats two apart): four mma.sync for the one K step, their fragments read by
// two ldmatrix.x4 for a and two ldmatrix.x4.trans for b.
#mma3 = #brickgpu.mma<{version = 2, warpsPerCTA = [2, 2, 1], instrShape = [16, 8]}>
#a3 = #brickgpu.dot_op<{opIdx = 0, parent = #mma3, kWidth = 2}>
#b3 = #brickgpu.dot_op<{opIdx = 1, parent = #mma3, kWidth = 2}>
#rows3 = #brickgpu.shared<{vec = 8, perPhase = 4, maxPhase = 2, order = [2, 1, 0]}>
module attributes {brickgpu.num_warps = 4 : i32} {
  // CHECK-LABEL: llvm.func @batched
  // Per batch: a's fragment (one ldmatrix.x4), b's (one ldmatrix.x4.trans), then its two mma.sync.
  // CHECK: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4
  // CHECK: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>, num = 4
  // CHECK-COUNT-2: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>}
  // CHECK: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4
  // CHECK: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>, num = 4
  // CHECK-COUNT-2: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>}
  // CHECK-NOT: nvvm.mma.sync
  // CHECK: llvm.return
  func.func @batched(%c: tensor<4x32x16xf32, #mma3>) -> tensor<4x32x16xf32, #mma3> {
    %sa = brickgpu.local_alloc : () -> !brickgpu.memdesc<4x32x16xf16, #rows3>
    %sb = brickgpu.local_alloc : () -> !brickgpu.memdesc<4x16x16xf16, #rows3>
    %a = brickgpu.local_load %sa : !brickgpu.memdesc<4x32x16xf16, #rows3> -> tensor<4x32x16xf16, #a3>
    %b = brickgpu.local_load %sb : !brickgpu.memdesc<4x16x16xf16, #rows3> -> tensor<4x16x16xf16, #b3>
    %d = brick.dot %a, %b, %c : tensor<4x32x16xf16, #a3> * tensor<4x16x16xf16, #b3> -> tensor<4x32x16xf32, #mma3>
    return %d : tensor<4x32x16xf32, #mma3>
  }
}
