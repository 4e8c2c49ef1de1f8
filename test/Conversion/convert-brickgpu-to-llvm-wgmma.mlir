// warpgroup_dot in the LLVM and NVVM dialects: one wgmma.mma_async per instruction tile and K step, between a
// wgmma.fence and one commit group; the descriptors' fixed bits (leading byte offset, stride byte offset, swizzle)
// from the buffers' layouts; a synchronous dot waits through inline assembly that passes the accumulator through.
// RUN: brick-opt %s -split-input-file -brickgpu-allocate-shared-memory -convert-brickgpu-to-llvm | FileCheck %s
// RUN: brick-opt %s -split-input-file -brickgpu-allocate-shared-memory -convert-brickgpu-to-llvm -convert-nvvm-to-llvm | FileCheck %s --check-prefix=PTX

#mma = #brickgpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128]}>
#a = #brickgpu.nvmma_shared<{swizzle = 64, order = [1, 0]}>
#b = #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
module attributes {brickgpu.num_warps = 4 : i32} {
  // a: 128 rows of 64 bytes (one swizzle column: 8192 bytes), 512 bytes per 8 rows, 64-byte swizzle (mode 2):
  //   (8192 >> 4) << 16 | (512 >> 4) << 32 | 2 << 62.
  // CHECK-LABEL: llvm.func @sync
  // The warpgroup's part of the addresses comes from the warp index as lane 0 has it (ptxas then keeps the
  // descriptors on the uniform datapath).
  // CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x
  // CHECK: %[[WARP:.*]] = llvm.lshr %[[TID]]
  // CHECK: nvvm.shfl.sync  idx %{{.*}}, %[[WARP]], %{{.*}}, %{{.*}} : i32 -> i32
  // CHECK-DAG: llvm.mlir.constant(-9223371899382267904 : i64) : i64
  // b, contiguous along N: 32 rows per 128-byte column (4096 bytes), 1024 bytes per 8 rows, mode 1:
  //   (4096 >> 4) << 16 | (1024 >> 4) << 32 | 1 << 62.
  // CHECK-DAG: llvm.mlir.constant(4611686293322072064 : i64) : i64
  // CHECK: nvvm.wgmma.fence.aligned
  // Two M tiles (rows 0 and 64) x two K steps of 16.
  // CHECK-COUNT-4: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>]
  // CHECK-NOT: nvvm.wgmma.mma_async
  // CHECK: nvvm.wgmma.commit.group.sync.aligned
  // CHECK: llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;", "=f,=f,{{.*}},0,1,2,
  // CHECK: llvm.return
  // PTX: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
  func.func @sync(%c: tensor<128x128xf32, #mma>) -> tensor<128x128xf32, #mma> {
    %sa = brickgpu.local_alloc : () -> !brickgpu.memdesc<128x32xf16, #a>
    %sb = brickgpu.local_alloc : () -> !brickgpu.memdesc<32x128xf16, #b>
    %d = brickgpu.warpgroup_dot %sa, %sb, %c : !brickgpu.memdesc<128x32xf16, #a>, !brickgpu.memdesc<32x128xf16, #b> -> tensor<128x128xf32, #mma>
    return %d : tensor<128x128xf32, #mma>
  }
}

// -----

// An asynchronous dot commits without waiting; warpgroup_dot_wait {pendings = 1} waits for all but the newest
// group, its operands passed through the wait. b contiguous along K is not transposed (layout col).
#mma = #brickgpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
#a = #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#bk = #brickgpu.nvmma_shared<{swizzle = 128, order = [0, 1]}>
module attributes {brickgpu.num_warps = 4 : i32} {
  // CHECK-LABEL: llvm.func @async
  // CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
  // CHECK: nvvm.wgmma.commit.group.sync.aligned
  // CHECK-NOT: wait_group
  // CHECK: llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 1;"
  func.func @async(%c: tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma> {
    %sa = brickgpu.local_alloc : () -> !brickgpu.memdesc<64x64xbf16, #a>
    %sb = brickgpu.local_alloc : () -> !brickgpu.memdesc<64x64xbf16, #bk>
    %d = brickgpu.warpgroup_dot %sa, %sb, %c {isAsync} : !brickgpu.memdesc<64x64xbf16, #a>, !brickgpu.memdesc<64x64xbf16, #bk> -> tensor<64x64xf32, #mma>
    %w = brickgpu.warpgroup_dot_wait %d {pendings = 1 : i32} : tensor<64x64xf32, #mma>
    return %w : tensor<64x64xf32, #mma>
  }
}

// -----

// A in registers: inline PTX (the NVVM op takes A from shared memory only) with four 32-bit words of A per
// instruction, each two f16 along K (or four i8), B's descriptor, and B's transpose bit (1: b contiguous along N).
#mma = #brickgpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
#dot_a = #brickgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#mma8 = #brickgpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 32]}>
#dot_a8 = #brickgpu.dot_op<{opIdx = 0, parent = #mma8, kWidth = 4}>
#b = #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#bk = #brickgpu.nvmma_shared<{swizzle = 32, order = [0, 1]}>
module attributes {brickgpu.num_warps = 4 : i32} {
  // CHECK-LABEL: llvm.func @registers_a
  // CHECK: nvvm.wgmma.fence.aligned
  // CHECK: llvm.bitcast %{{.*}} : vector<2xf16> to i32
  // Two K steps of 16; the accumulator's 32 registers are tied to the outputs.
  // CHECK-COUNT-2: llvm.inline_asm has_side_effects "{\0A.reg .pred p;\0Asetp.ne.b32 p, 1, 0;\0Awgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {$0, {{.*}}, $31}, {$64, $65, $66, $67}, $68, p, 1, 1, 1;\0A}", "=f,{{.*}},=f,0,{{.*}},31,r,r,r,r,l"
  // CHECK-NOT: nvvm.wgmma.mma_async
  // CHECK: nvvm.wgmma.commit.group.sync.aligned
  // CHECK: "wgmma.wait_group.sync.aligned 0;"
  func.func @registers_a(%a: tensor<64x32xf16, #dot_a>, %c: tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma> {
    %sb = brickgpu.local_alloc : () -> !brickgpu.memdesc<32x64xf16, #b>
    %d = brickgpu.warpgroup_dot %a, %sb, %c : tensor<64x32xf16, #dot_a>, !brickgpu.memdesc<32x64xf16, #b> -> tensor<64x64xf32, #mma>
    return %d : tensor<64x64xf32, #mma>
  }
  // s8 names no scales and no transpose.
  // CHECK-LABEL: llvm.func @registers_a_i8
  // CHECK: llvm.bitcast %{{.*}} : vector<4xi8> to i32
  // CHECK: "{\0A.reg .pred p;\0Asetp.ne.b32 p, 1, 0;\0Awgmma.mma_async.sync.aligned.m64n32k32.s32.s8.s8 {$0, {{.*}}, $15}, {$32, $33, $34, $35}, $36, p;\0A}", "=r,{{.*}},r,r,r,r,l"
  func.func @registers_a_i8(%a: tensor<64x32xi8, #dot_a8>, %c: tensor<64x32xi32, #mma8>) -> tensor<64x32xi32, #mma8> {
    %sb = brickgpu.local_alloc : () -> !brickgpu.memdesc<32x32xi8, #bk>
    %d = brickgpu.warpgroup_dot %a, %sb, %c : tensor<64x32xi8, #dot_a8>, !brickgpu.memdesc<32x32xi8, #bk> -> tensor<64x32xi32, #mma8>
    return %d : tensor<64x32xi32, #mma8>
  }
}

// -----

// zero_rows_from %n (A's rows from n on are zero): each M tile's wgmmas sit behind a branch on the warpgroup's
// first row of that tile (64 * the warpgroup's index along M, plus the tile's row) being below n; the skipped
// path passes the accumulator's registers of that tile to the join unchanged. One warpgroup, two M tiles: two
// branches, each around that tile's two K steps, then one commit for both.
#mma = #brickgpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
#a = #brickgpu.nvmma_shared<{swizzle = 64, order = [1, 0]}>
#b = #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
module attributes {brickgpu.num_warps = 4 : i32} {
  // CHECK-LABEL: llvm.func @zero_rows_from
  // CHECK-SAME: %{{.*}}: !llvm.struct{{.*}}, %[[N:.*]]: i32)
  // CHECK: %[[GROUP:.*]] = llvm.udiv %{{.*}}, %{{.*}} : i32
  // The bound as lane 0 has it.
  // CHECK: %[[BOUND:.*]] = nvvm.shfl.sync  idx %{{.*}}, %[[N]], %{{.*}}, %{{.*}} : i32 -> i32
  // CHECK: nvvm.wgmma.fence.aligned
  // Tile 0's first row: 0 + 64 * the warpgroup's index along M.
  // CHECK-NEXT: %[[S0:.*]] = llvm.mlir.constant(64 : i32) : i32
  // CHECK-NEXT: %[[OFF0:.*]] = llvm.mul %[[GROUP]], %[[S0]] : i32
  // CHECK-NEXT: %[[M0:.*]] = llvm.mlir.constant(0 : i32) : i32
  // CHECK-NEXT: %[[FIRST0:.*]] = llvm.add %[[M0]], %[[OFF0]] : i32
  // CHECK-NEXT: %[[LIVE0:.*]] = llvm.icmp "slt" %[[FIRST0]], %[[BOUND]] : i32
  // CHECK: llvm.cond_br %[[LIVE0]], ^[[TILE0:.*]], ^[[JOIN0:.*]](
  // CHECK: ^[[TILE0]]:
  // CHECK-COUNT-2: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>
  // CHECK-NOT: nvvm.wgmma
  // CHECK: llvm.br ^[[JOIN0]](
  // CHECK: ^[[JOIN0]](
  // Tile 1's: 64 + 64 * the index.
  // CHECK: %[[S1:.*]] = llvm.mlir.constant(64 : i32) : i32
  // CHECK-NEXT: %[[OFF1:.*]] = llvm.mul %[[GROUP]], %[[S1]] : i32
  // CHECK-NEXT: %[[M1:.*]] = llvm.mlir.constant(64 : i32) : i32
  // CHECK-NEXT: %[[FIRST1:.*]] = llvm.add %[[M1]], %[[OFF1]] : i32
  // CHECK-NEXT: %[[LIVE1:.*]] = llvm.icmp "slt" %[[FIRST1]], %[[BOUND]] : i32
  // CHECK: llvm.cond_br %[[LIVE1]], ^[[TILE1:.*]], ^[[JOIN1:.*]](
  // CHECK: ^[[TILE1]]:
  // CHECK-COUNT-2: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>
  // CHECK-NOT: nvvm.wgmma
  // CHECK: llvm.br ^[[JOIN1]](
  // CHECK: ^[[JOIN1]](
  // CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
  // CHECK: "wgmma.wait_group.sync.aligned 0;"
  // PTX-LABEL: llvm.func @zero_rows_from
  // PTX-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
  func.func @zero_rows_from(%c: tensor<128x64xf32, #mma>, %n: i32) -> tensor<128x64xf32, #mma> {
    %sa = brickgpu.local_alloc : () -> !brickgpu.memdesc<128x32xf16, #a>
    %sb = brickgpu.local_alloc : () -> !brickgpu.memdesc<32x64xf16, #b>
    %d = brickgpu.warpgroup_dot %sa, %sb, %c zero_rows_from %n : !brickgpu.memdesc<128x32xf16, #a>, !brickgpu.memdesc<32x64xf16, #b> -> tensor<128x64xf32, #mma>
    return %d : tensor<128x64xf32, #mma>
  }
}

// -----

// zero_rows_from with one M tile per warpgroup (two warpgroups over 128 rows): the branch holds the fence and the
// commit as well, and the skipping side commits an empty group, so that each warpgroup commits one group per dot.
#mma = #brickgpu.mma<{version = 3, warpsPerCTA = [8, 1], instrShape = [64, 64]}>
#a = #brickgpu.nvmma_shared<{swizzle = 64, order = [1, 0]}>
#b = #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
module attributes {brickgpu.num_warps = 8 : i32} {
  // CHECK-LABEL: llvm.func @zero_rows_from_one_tile
  // CHECK-SAME: %{{.*}}: !llvm.struct{{.*}}, %[[N:.*]]: i32)
  // CHECK-NOT: nvvm.wgmma
  // CHECK: %[[BOUND:.*]] = nvvm.shfl.sync  idx %{{.*}}, %[[N]], %{{.*}}, %{{.*}} : i32 -> i32
  // CHECK: %[[LIVE:.*]] = llvm.icmp "slt" %{{.*}}, %[[BOUND]] : i32
  // CHECK: llvm.cond_br %[[LIVE]], ^[[TILE:.*]], ^[[SKIP:[a-z0-9]*]]
  // CHECK: ^[[TILE]]:
  // CHECK: nvvm.wgmma.fence.aligned
  // CHECK-COUNT-2: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>
  // CHECK: nvvm.wgmma.commit.group.sync.aligned
  // CHECK-NEXT: llvm.br ^[[JOIN:[a-z0-9]*]](
  // CHECK: ^[[SKIP]]:
  // CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
  // CHECK-NEXT: llvm.br ^[[JOIN]](
  // CHECK: ^[[JOIN]](
  // CHECK-NOT: nvvm.wgmma.commit
  // CHECK: "wgmma.wait_group.sync.aligned 0;"
  func.func @zero_rows_from_one_tile(%c: tensor<128x64xf32, #mma>, %n: i32) -> tensor<128x64xf32, #mma> {
    %sa = brickgpu.local_alloc : () -> !brickgpu.memdesc<128x32xf16, #a>
    %sb = brickgpu.local_alloc : () -> !brickgpu.memdesc<32x64xf16, #b>
    %d = brickgpu.warpgroup_dot %sa, %sb, %c zero_rows_from %n : !brickgpu.memdesc<128x32xf16, #a>, !brickgpu.memdesc<32x64xf16, #b> -> tensor<128x64xf32, #mma>
    return %d : tensor<128x64xf32, #mma>
  }
}

// -----

// A zero accumulator (attention's scores): the first K step's wgmma ignores its input (scale-d zero), the later
// ones accumulate; no registers of zeros.
#mma = #brickgpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
#a = #brickgpu.nvmma_shared<{swizzle = 64, order = [1, 0]}>
#b = #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
module attributes {brickgpu.num_warps = 4 : i32} {
  // CHECK-LABEL: llvm.func @zero_start
  // CHECK: llvm.mlir.poison : f32
  // CHECK: nvvm.wgmma.fence.aligned
  // CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>, D[<f32>, <zero>]
  // CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>, D[<f32>, <one>]
  // CHECK-NOT: nvvm.wgmma.mma_async
  func.func @zero_start() -> tensor<64x64xf32, #mma> {
    %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    %sa = brickgpu.local_alloc : () -> !brickgpu.memdesc<64x32xf16, #a>
    %sb = brickgpu.local_alloc : () -> !brickgpu.memdesc<32x64xf16, #b>
    %d = brickgpu.warpgroup_dot %sa, %sb, %zero : !brickgpu.memdesc<64x32xf16, #a>, !brickgpu.memdesc<32x64xf16, #b> -> tensor<64x64xf32, #mma>
    return %d : tensor<64x64xf32, #mma>
  }
}

// -----

// A head dimension read in pieces: Q K^T as dot(q1, k1, dot(q0, k0, 0)). The first dot's only use is the second's
// accumulator, so its wgmmas join the second's group: one fence each, one commit and one wait for both. A store to
// shared memory between two such dots (a buffer the first may still read) keeps the first's commit and wait.
#mma = #brickgpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
#a = #brickgpu.nvmma_shared<{swizzle = 64, order = [1, 0]}>
#b = #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#blocked = #brickgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {brickgpu.num_warps = 4 : i32} {
  // CHECK-LABEL: llvm.func @chained
  // CHECK: nvvm.wgmma.fence.aligned
  // CHECK-COUNT-2: nvvm.wgmma.mma_async
  // CHECK-NOT: commit
  // CHECK-NOT: wait_group
  // CHECK: nvvm.wgmma.fence.aligned
  // CHECK-COUNT-2: nvvm.wgmma.mma_async
  // CHECK: nvvm.wgmma.commit.group.sync.aligned
  // CHECK-NEXT: llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;"
  // CHECK-NOT: nvvm.wgmma
  // CHECK: llvm.return
  func.func @chained() -> tensor<64x64xf32, #mma> {
    %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    %q0 = brickgpu.local_alloc : () -> !brickgpu.memdesc<64x32xf16, #a>
    %k0 = brickgpu.local_alloc : () -> !brickgpu.memdesc<32x64xf16, #b>
    %q1 = brickgpu.local_alloc : () -> !brickgpu.memdesc<64x32xf16, #a>
    %k1 = brickgpu.local_alloc : () -> !brickgpu.memdesc<32x64xf16, #b>
    %s0 = brickgpu.warpgroup_dot %q0, %k0, %zero : !brickgpu.memdesc<64x32xf16, #a>, !brickgpu.memdesc<32x64xf16, #b> -> tensor<64x64xf32, #mma>
    %s1 = brickgpu.warpgroup_dot %q1, %k1, %s0 : !brickgpu.memdesc<64x32xf16, #a>, !brickgpu.memdesc<32x64xf16, #b> -> tensor<64x64xf32, #mma>
    return %s1 : tensor<64x64xf32, #mma>
  }

  // CHECK-LABEL: llvm.func @store_between
  // CHECK: nvvm.wgmma.commit.group.sync.aligned
  // CHECK-NEXT: llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;"
  // CHECK: nvvm.wgmma.commit.group.sync.aligned
  // CHECK-NEXT: llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;"
  func.func @store_between(%x: tensor<64x32xf16, #blocked>) -> tensor<64x64xf32, #mma> {
    %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    %q0 = brickgpu.local_alloc : () -> !brickgpu.memdesc<64x32xf16, #a>
    %k0 = brickgpu.local_alloc : () -> !brickgpu.memdesc<32x64xf16, #b>
    %k1 = brickgpu.local_alloc : () -> !brickgpu.memdesc<32x64xf16, #b>
    %s0 = brickgpu.warpgroup_dot %q0, %k0, %zero : !brickgpu.memdesc<64x32xf16, #a>, !brickgpu.memdesc<32x64xf16, #b> -> tensor<64x64xf32, #mma>
    brickgpu.local_store %x, %q0 : tensor<64x32xf16, #blocked> -> !brickgpu.memdesc<64x32xf16, #a>
    %s1 = brickgpu.warpgroup_dot %q0, %k1, %s0 : !brickgpu.memdesc<64x32xf16, #a>, !brickgpu.memdesc<32x64xf16, #b> -> tensor<64x64xf32, #mma>
    return %s1 : tensor<64x64xf32, #mma>
  }
}
