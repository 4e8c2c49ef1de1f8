// Descriptor blocks kept for TMA that fill a dot's buffers: TMA copies into rings, one mbarrier per slot.
// RUN: brick-opt %s -split-input-file -brickgpu-pipeline=num-stages=4 | FileCheck %s

#rows = #brickgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #brickgpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128]}>
#a = #brickgpu.nvmma_shared<{swizzle = 64, order = [1, 0]}>
#b = #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
module attributes {brickgpu.num_warps = 4 : i32} {
  // CHECK-LABEL: func.func @matmul
  // CHECK: %[[RA:.*]] = brickgpu.local_alloc : () -> !brickgpu.memdesc<4x128x32xf16, #{{.*}}>
  // CHECK: %[[RB:.*]] = brickgpu.local_alloc : () -> !brickgpu.memdesc<4x32x128xf16, #{{.*}}>
  // CHECK: %[[BARS:.*]] = brickgpu.local_alloc : () -> !brickgpu.memdesc<4x1xi64, #{{.*}}>
  // CHECK-NEXT: brickgpu.barrier
  // Every slot's barrier is initialized for one arrival, then all threads see it.
  // CHECK-COUNT-4: brickgpu.init_barrier %{{.*}}, 1
  // CHECK-NEXT: brickgpu.barrier
  // Prologue (the dot stays in flight: copies 2 iterations ahead): each iteration expects both blocks' bytes
  // (8 KiB each) on its slot's barrier, masked to the loop's range; the A copy at (m, k), the B copy at (k, n).
  // CHECK: %[[IN0:.*]] = arith.cmpi slt, %{{.*}}, %[[END:.*]] : i32
  // CHECK: %[[BAR0:.*]] = brickgpu.memdesc_index %[[BARS]]
  // CHECK: brickgpu.barrier_expect %[[BAR0]], 16384, %[[IN0]]
  // CHECK: %[[A0:.*]] = brickgpu.memdesc_index %[[RA]]
  // CHECK: brickgpu.async_tma_copy_global_to_local %arg1[%arg3, %{{.*}}] %[[A0]], %[[BAR0]], %[[IN0]]
  // CHECK: brickgpu.async_tma_copy_global_to_local %arg2[%{{.*}}, %arg4] %{{.*}}, %[[BAR0]], %[[IN0]]
  // CHECK: brickgpu.barrier_expect
  // CHECK-COUNT-2: brickgpu.async_tma_copy_global_to_local
  // The loop carries the slot and its barrier's parity; no cp.async groups to wait for.
  // CHECK: scf.for %{{.*}} = %{{.*}} to %[[END]] step %{{.*}} iter_args(%{{.*}}, %[[SLOT:.*]] = %c0_i32{{.*}}, %[[PHASE:.*]] = %c0_i32{{.*}})
  // CHECK-NOT: async_wait
  // CHECK: brickgpu.barrier
  // CHECK: brickgpu.barrier_expect
  // CHECK-COUNT-2: brickgpu.async_tma_copy_global_to_local
  // CHECK: %[[BAR:.*]] = brickgpu.memdesc_index %[[BARS]][%[[SLOT]]]
  // CHECK-NEXT: brickgpu.wait_barrier %[[BAR]], %[[PHASE]]
  // CHECK: brickgpu.warpgroup_dot {{.*}} {isAsync}
  // CHECK: %[[LAST:.*]] = arith.cmpi eq, %[[SLOT]], %c3_i32
  // CHECK: %[[FLIP:.*]] = arith.xori %[[PHASE]], %c1_i32
  // CHECK: %[[NEXT:.*]] = arith.select %[[LAST]], %[[FLIP]], %[[PHASE]]
  // CHECK: scf.yield {{.*}}, %[[NEXT]]
  // After the loop: all copies were awaited; a barrier, then every slot's barrier is invalidated.
  // CHECK: brickgpu.warpgroup_dot_wait {{.*}} {pendings = 0 : i32}
  // CHECK-NOT: async_wait
  // CHECK: brickgpu.barrier
  // CHECK-COUNT-4: brickgpu.inval_barrier
  // CHECK-NOT: brick.descriptor_load
  func.func @matmul(%p: !brick.ptr<f16>, %mapA: !brick.tensormap, %mapB: !brick.tensormap, %m: i32, %n: i32,
                    %kTiles: i32, %s: i64) -> tensor<128x128xf32, #mma> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c32 = arith.constant 32 : i32
    %c1_i64 = arith.constant 1 : i64
    %zero = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
    %da = brick.make_tensor_descriptor %p, [%m, %m], [%s, %c1_i64], %mapA : !brick.ptr<f16> -> !brick.tensordesc<128x32xf16>
    %db = brick.make_tensor_descriptor %p, [%m, %m], [%s, %c1_i64], %mapB : !brick.ptr<f16> -> !brick.tensordesc<32x128xf16>
    %acc = scf.for %k = %c0 to %kTiles step %c1 iter_args(%c = %zero) -> (tensor<128x128xf32, #mma>) : i32 {
      %kk = arith.muli %k, %c32 : i32
      %x = brick.descriptor_load %da[%m, %kk] : !brick.tensordesc<128x32xf16> -> tensor<128x32xf16, #rows>
      %y = brick.descriptor_load %db[%kk, %n] : !brick.tensordesc<32x128xf16> -> tensor<32x128xf16, #rows>
      %xa = brickgpu.local_alloc %x : (tensor<128x32xf16, #rows>) -> !brickgpu.memdesc<128x32xf16, #a>
      %yb = brickgpu.local_alloc %y : (tensor<32x128xf16, #rows>) -> !brickgpu.memdesc<32x128xf16, #b>
      %d = brickgpu.warpgroup_dot %xa, %yb, %c : !brickgpu.memdesc<128x32xf16, #a>, !brickgpu.memdesc<32x128xf16, #b> -> tensor<128x128xf32, #mma>
      scf.yield %d : tensor<128x128xf32, #mma>
    }
    return %acc : tensor<128x128xf32, #mma>
  }
}

// -----

// A buffer not laid out as the tensor map writes it (B's rows are 256 bytes: TMA swizzles 128, the buffer 64) is
// staged: TMA fills a ring in the tensor map's layout, and each iteration reads its slot back and writes the dot's
// buffer from registers.
#rows = #brickgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #brickgpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 32]}>
#a = #brickgpu.nvmma_shared<{swizzle = 64, order = [1, 0]}>
module attributes {brickgpu.num_warps = 4 : i32} {
  // The dot stays synchronous: the buffer of the block left in the loop is written every iteration, and a dot in
  // flight would still read it.
  // CHECK-LABEL: func.func @mismatch
  // CHECK: %[[RING:.*]] = brickgpu.local_alloc : () -> !brickgpu.memdesc<4x32x128xf16, #[[TMA:.*]]>
  // CHECK: scf.for
  // CHECK: brickgpu.async_tma_copy_global_to_local
  // CHECK: brickgpu.wait_barrier
  // CHECK: %[[SLOT:.*]] = brickgpu.memdesc_index %[[RING]]
  // CHECK: %[[BLOCK:.*]] = brickgpu.local_load %[[SLOT]] : !brickgpu.memdesc<32x128xf16, #[[TMA]]>
  // CHECK: %[[B:.*]] = brickgpu.local_alloc %[[BLOCK]] {{.*}} -> !brickgpu.memdesc<32x128xf16, #nvmma_shared>
  // CHECK: brickgpu.warpgroup_dot %{{.*}}, %[[B]]
  // CHECK-NOT: brick.descriptor_load
  // CHECK-NOT: isAsync
  // CHECK-NOT: warpgroup_dot_wait
  func.func @mismatch(%p: !brick.ptr<f16>, %map: !brick.tensormap, %m: i32, %kTiles: i32, %s: i64,
                      %a: !brickgpu.memdesc<128x32xf16, #a>) -> tensor<128x128xf32, #mma> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c1_i64 = arith.constant 1 : i64
    %zero = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
    %db = brick.make_tensor_descriptor %p, [%m, %m], [%s, %c1_i64], %map : !brick.ptr<f16> -> !brick.tensordesc<32x128xf16>
    %acc = scf.for %k = %c0 to %kTiles step %c1 iter_args(%c = %zero) -> (tensor<128x128xf32, #mma>) : i32 {
      %y = brick.descriptor_load %db[%k, %m] : !brick.tensordesc<32x128xf16> -> tensor<32x128xf16, #rows>
      %yb = brickgpu.local_alloc %y : (tensor<32x128xf16, #rows>) -> !brickgpu.memdesc<32x128xf16, #a>
      %d = brickgpu.warpgroup_dot %a, %yb, %c : !brickgpu.memdesc<128x32xf16, #a>, !brickgpu.memdesc<32x128xf16, #a> -> tensor<128x128xf32, #mma>
      scf.yield %d : tensor<128x128xf32, #mma>
    }
    return %acc : tensor<128x128xf32, #mma>
  }
}

// -----

// A weight's block read through a transposed view (x * W^T) is still the buffer TMA fills: a ring of slots, the
// view taken of each iteration's slot, and the dot in flight across iterations.
#rows = #brickgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #brickgpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128]}>
#a = #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#bt = #brickgpu.nvmma_shared<{swizzle = 128, order = [0, 1]}>
module attributes {brickgpu.num_warps = 4 : i32} {
  // CHECK-LABEL: func.func @transposed_weights
  // CHECK: brickgpu.local_alloc : () -> !brickgpu.memdesc<4x128x64xbf16, #{{.*}}>
  // CHECK: %[[RW:.*]] = brickgpu.local_alloc : () -> !brickgpu.memdesc<4x128x64xbf16, #{{.*}}>
  // CHECK: brickgpu.barrier_expect %{{.*}}, 32768
  // CHECK: scf.for %{{.*}} iter_args(%{{.*}}, %[[SLOT:.*]] = %c0_i32{{.*}}, %{{.*}} = %c0_i32{{.*}})
  // CHECK: brickgpu.wait_barrier
  // CHECK: %[[W:.*]] = brickgpu.memdesc_index %[[RW]][%[[SLOT]]]
  // CHECK: %[[WT:.*]] = brickgpu.memdesc_trans %[[W]] : !brickgpu.memdesc<128x64xbf16, #{{.*}}> -> !brickgpu.memdesc<64x128xbf16, #{{.*}}>
  // CHECK: brickgpu.warpgroup_dot %{{.*}}, %[[WT]], %{{.*}} {isAsync}
  // CHECK: brickgpu.warpgroup_dot_wait {{.*}} {pendings = 1 : i32}
  // CHECK-NOT: brick.descriptor_load
  func.func @transposed_weights(%p: !brick.ptr<bf16>, %mapA: !brick.tensormap, %mapW: !brick.tensormap, %m: i32,
                                %n: i32, %kTiles: i32, %s: i64) -> tensor<128x128xf32, #mma> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %c1_i64 = arith.constant 1 : i64
    %zero = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
    %da = brick.make_tensor_descriptor %p, [%m, %m], [%s, %c1_i64], %mapA : !brick.ptr<bf16> -> !brick.tensordesc<128x64xbf16>
    %dw = brick.make_tensor_descriptor %p, [%m, %m], [%s, %c1_i64], %mapW : !brick.ptr<bf16> -> !brick.tensordesc<128x64xbf16>
    %acc = scf.for %k = %c0 to %kTiles step %c1 iter_args(%c = %zero) -> (tensor<128x128xf32, #mma>) : i32 {
      %kk = arith.muli %k, %c64 : i32
      %x = brick.descriptor_load %da[%m, %kk] : !brick.tensordesc<128x64xbf16> -> tensor<128x64xbf16, #rows>
      %y = brick.descriptor_load %dw[%n, %kk] : !brick.tensordesc<128x64xbf16> -> tensor<128x64xbf16, #rows>
      %xa = brickgpu.local_alloc %x : (tensor<128x64xbf16, #rows>) -> !brickgpu.memdesc<128x64xbf16, #a>
      %yb = brickgpu.local_alloc %y : (tensor<128x64xbf16, #rows>) -> !brickgpu.memdesc<128x64xbf16, #a>
      %yt = brickgpu.memdesc_trans %yb : !brickgpu.memdesc<128x64xbf16, #a> -> !brickgpu.memdesc<64x128xbf16, #bt>
      %d = brickgpu.warpgroup_dot %xa, %yt, %c : !brickgpu.memdesc<128x64xbf16, #a>, !brickgpu.memdesc<64x128xbf16, #bt> -> tensor<128x128xf32, #mma>
      scf.yield %d : tensor<128x128xf32, #mma>
    }
    return %acc : tensor<128x128xf32, #mma>
  }
}

// -----

// A weight's N x K block transposed and widened on its way to mma.sync (FP8 before sm_90a's wgmma, or with 16-row
// blocks): staged by TMA in its tensor map's layout and read back through a transposed view of the slot, so the
// transpose costs no second trip through shared memory.
#rows = #brickgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
#cols = #brickgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 2], order = [1, 0]}>
#mma = #brickgpu.mma<{version = 2, warpsPerCTA = [1, 4], instrShape = [16, 8]}>
#shared = #brickgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#dot_a = #brickgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#dot_b = #brickgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
module attributes {brickgpu.num_warps = 4 : i32} {
  // CHECK-LABEL: func.func @transposed_and_widened
  // CHECK: %[[RING:.*]] = brickgpu.local_alloc : () -> !brickgpu.memdesc<4x64x256xf8E4M3FN, #[[TMA:.*]]>
  // CHECK: scf.for
  // CHECK: brickgpu.async_tma_copy_global_to_local
  // CHECK: %[[SLOT:.*]] = brickgpu.memdesc_index %[[RING]]
  // CHECK: %[[VIEW:.*]] = brickgpu.memdesc_trans %[[SLOT]] : !brickgpu.memdesc<64x256xf8E4M3FN, #[[TMA]]> -> !brickgpu.memdesc<256x64xf8E4M3FN
  // CHECK: %[[BLOCK:.*]] = brickgpu.local_load %[[VIEW]] {{.*}} -> tensor<256x64xf8E4M3FN
  // CHECK: arith.extf %[[BLOCK]]
  // CHECK-NOT: brick.trans
  // CHECK-NOT: brick.descriptor_load
  // CHECK: scf.yield
  func.func @transposed_and_widened(%p: !brick.ptr<f8E4M3FN>, %map: !brick.tensormap, %n: i32, %kTiles: i32,
                                    %s: i64, %a: tensor<16x256xf16, #dot_a>) -> tensor<16x64xf32, #mma> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c256 = arith.constant 256 : i32
    %c1_i64 = arith.constant 1 : i64
    %zero = arith.constant dense<0.000000e+00> : tensor<16x64xf32, #mma>
    %dw = brick.make_tensor_descriptor %p, [%n, %n], [%s, %c1_i64], %map : !brick.ptr<f8E4M3FN> -> !brick.tensordesc<64x256xf8E4M3FN>
    %acc = scf.for %k = %c0 to %kTiles step %c1 iter_args(%c = %zero) -> (tensor<16x64xf32, #mma>) : i32 {
      %column = arith.muli %k, %c256 : i32
      %w = brick.descriptor_load %dw[%c0, %column] : !brick.tensordesc<64x256xf8E4M3FN> -> tensor<64x256xf8E4M3FN, #rows>
      %wt = brick.trans %w [1, 0] : tensor<64x256xf8E4M3FN, #rows> -> tensor<256x64xf8E4M3FN, #cols>
      %wide = arith.extf %wt : tensor<256x64xf8E4M3FN, #cols> to tensor<256x64xf16, #cols>
      %buf = brickgpu.local_alloc %wide : (tensor<256x64xf16, #cols>) -> !brickgpu.memdesc<256x64xf16, #shared>
      %b = brickgpu.local_load %buf : !brickgpu.memdesc<256x64xf16, #shared> -> tensor<256x64xf16, #dot_b>
      %d = brick.dot %a, %b, %c : tensor<16x256xf16, #dot_a> * tensor<256x64xf16, #dot_b> -> tensor<16x64xf32, #mma>
      scf.yield %d : tensor<16x64xf32, #mma>
    }
    return %acc : tensor<16x64xf32, #mma>
  }
}
