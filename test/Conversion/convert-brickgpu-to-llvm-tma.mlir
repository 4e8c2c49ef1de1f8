// mbarriers and TMA copies as PTX: thread 0 initializes, arrives and copies (one box per 128-byte swizzle span of
// the rows and 128 rows at most, boxes a column of rows apart), everyone waits on the barrier's parity.
// RUN: brick-opt %s -split-input-file -brickgpu-allocate-shared-memory -convert-brickgpu-to-llvm | FileCheck %s

#b = #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#s = #brickgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {brickgpu.num_warps = 4 : i32} {
  // CHECK-LABEL: llvm.func @copy
  // CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x
  // CHECK: %[[FIRST:.*]] = llvm.icmp "eq" %[[TID]]
  // The init, then the fence that makes it visible to the async proxy (TMA completes transactions there).
  // CHECK: llvm.inline_asm has_side_effects "@$2 mbarrier.init.shared::cta.b64 [$0], $1;\0A\09@$2 fence.mbarrier_init.release.cluster;", "r,r,b" %{{.*}}, %{{.*}}, %[[FIRST]]
  // CHECK: %[[ARRIVE:.*]] = llvm.and %{{.*}}, %arg4 : i1
  // CHECK: llvm.inline_asm has_side_effects "@$2 mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], $1;", "r,r,b" %{{.*}}, %{{.*}}, %[[ARRIVE]]
  // 32 rows of 256 bytes: two boxes of 64 columns, the second 32 x 128 bytes further on.
  // CHECK: %[[DST:.*]] = llvm.ptrtoint %0 : !llvm.ptr<3> to i32
  // CHECK: %[[BAR:.*]] = llvm.ptrtoint %2 : !llvm.ptr<3> to i32
  // CHECK: %[[ISSUE:.*]] = llvm.and %{{.*}}, %arg4 : i1
  // CHECK: %[[COL0:.*]] = llvm.add %arg3, %{{.*}} : i32
  // CHECK: %[[DST0:.*]] = llvm.add %[[DST]], %{{.*}} : i32
  // CHECK: llvm.inline_asm has_side_effects "@$5 cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [$0], [$1, {$2, $3}], [$4];", "r,l,r,r,r,b" %[[DST0]], %arg0, %[[COL0]], %arg2, %[[BAR]], %[[ISSUE]]
  // CHECK: %[[C64:.*]] = llvm.mlir.constant(64 : i32)
  // CHECK: %[[COL1:.*]] = llvm.add %arg3, %[[C64]]
  // CHECK: %[[OFF:.*]] = llvm.mlir.constant(4096 : i32)
  // CHECK: %[[DST1:.*]] = llvm.add %[[DST]], %[[OFF]]
  // CHECK: cp.async.bulk.tensor.2d{{.*}} %[[DST1]], %arg0, %[[COL1]], %arg2, %[[BAR]], %[[ISSUE]]
  // CHECK: llvm.inline_asm has_side_effects "{{.*}}mbarrier.try_wait.parity.shared::cta.b64 done, [$0], $1;{{.*}}@!done bra LAB_WAIT;{{.*}}", "r,r" %{{.*}}, %arg5
  // CHECK: llvm.inline_asm has_side_effects "@$1 mbarrier.inval.shared::cta.b64 [$0];", "r,b"
  func.func @copy(%map: !brick.tensormap, %unused: i32, %i: i32, %j: i32, %pred: i1, %phase: i32) {
    %buffer = brickgpu.local_alloc : () -> !brickgpu.memdesc<32x128xf16, #b>
    %bar = brickgpu.local_alloc : () -> !brickgpu.memdesc<1xi64, #s>
    brickgpu.init_barrier %bar, 1 : !brickgpu.memdesc<1xi64, #s>
    brickgpu.barrier_expect %bar, 8192, %pred : !brickgpu.memdesc<1xi64, #s>
    brickgpu.async_tma_copy_global_to_local %map[%i, %j] %buffer, %bar, %pred : !brickgpu.memdesc<32x128xf16, #b>, !brickgpu.memdesc<1xi64, #s>
    brickgpu.wait_barrier %bar, %phase buffers %buffer : !brickgpu.memdesc<32x128xf16, #b> : !brickgpu.memdesc<1xi64, #s>
    brickgpu.inval_barrier %bar : !brickgpu.memdesc<1xi64, #s>
    return
  }
}

// -----

// Warp specialization: 8 consumer warps and 4 producer warps (384 threads). Warps 8 and up branch into the
// producer code and give registers up, after which all but the first producer warp (8) return; the producer's
// copies are issued by its first thread (256); the consumers take registers, arrive once per warpgroup, and
// synchronize among themselves on named barrier 1.
#b = #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#s = #brickgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {brickgpu.num_warps = 8 : i32, brickgpu.producer_warps = 4 : i32} {
  // CHECK-LABEL: llvm.func @specialized
  // CHECK-SAME: nvvm.maxntid = array<i32: 384, 1, 1>
  // CHECK: nvvm.barrier0
  // CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x
  // CHECK: %[[WARP:.*]] = llvm.lshr %[[TID]]
  // CHECK: %[[PRODUCER:.*]] = llvm.icmp "uge" %[[WARP]], %{{.*}}
  // CHECK: llvm.cond_br %[[PRODUCER]], ^[[P:.*]], ^[[C:.*]]
  // CHECK: ^[[P]]:
  // CHECK: "setmaxnreg.dec.sync.aligned.u32 40;"
  // CHECK-NEXT: %[[EIGHT:.*]] = llvm.mlir.constant(8 : i32)
  // CHECK-NEXT: %[[FIRSTWARP:.*]] = llvm.icmp "eq" %[[WARP]], %[[EIGHT]]
  // CHECK-NEXT: llvm.cond_br %[[FIRSTWARP]], ^[[GO:.*]], ^[[LEAVE:.*]]
  // CHECK-NEXT: ^[[LEAVE]]:
  // CHECK-NEXT: llvm.return
  // CHECK-NEXT: ^[[GO]]:
  // CHECK: %[[FIRST:.*]] = llvm.mlir.constant(256 : i32)
  // CHECK: llvm.icmp "eq" %{{.*}}, %[[FIRST]]
  // CHECK: cp.async.bulk.tensor.2d
  // CHECK: llvm.return
  // CHECK: ^[[C]]:
  // CHECK: "setmaxnreg.inc.sync.aligned.u32 232;"
  // CHECK: %[[LANE:.*]] = llvm.mlir.constant(127 : i32)
  // CHECK: "@$1 mbarrier.arrive.shared::cta.b64 _, [$0];", "r,b"
  // CHECK: "bar.sync 1, 256;"
  func.func @specialized(%map: !brick.tensormap, %i: i32, %pred: i1) attributes {brick.kernel} {
    %buffer = brickgpu.local_alloc : () -> !brickgpu.memdesc<32x128xf16, #b>
    %bar = brickgpu.local_alloc : () -> !brickgpu.memdesc<1xi64, #s>
    brickgpu.barrier {allWarps}
    brickgpu.warp_specialize {
      brickgpu.set_max_registers 40
      brickgpu.async_tma_copy_global_to_local %map[%i, %i] %buffer, %bar, %pred {brickgpu.producer} : !brickgpu.memdesc<32x128xf16, #b>, !brickgpu.memdesc<1xi64, #s>
      brickgpu.warp_return
    }
    brickgpu.set_max_registers 232 {increase}
    brickgpu.barrier_arrive %bar, %pred : !brickgpu.memdesc<1xi64, #s>
    brickgpu.barrier
    return
  }
}

// -----

// One consumer warpgroup (256 threads) moves no registers: still only the first producer warp (4) goes on.
#b = #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#s = #brickgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {brickgpu.num_warps = 4 : i32, brickgpu.producer_warps = 4 : i32} {
  // CHECK-LABEL: llvm.func @specialized_one_warpgroup
  // CHECK-SAME: nvvm.maxntid = array<i32: 256, 1, 1>
  // CHECK-NOT: setmaxnreg
  // CHECK: %[[PRODUCER:.*]] = llvm.icmp "uge" %[[WARP:.*]], %{{.*}}
  // CHECK: llvm.cond_br %[[PRODUCER]], ^[[P:.*]], ^[[C:.*]]
  // CHECK: ^[[P]]:
  // CHECK-NEXT: %[[FOUR:.*]] = llvm.mlir.constant(4 : i32)
  // CHECK-NEXT: %[[FIRSTWARP:.*]] = llvm.icmp "eq" %[[WARP]], %[[FOUR]]
  // CHECK-NEXT: llvm.cond_br %[[FIRSTWARP]], ^[[GO:.*]], ^[[LEAVE:.*]]
  // CHECK-NEXT: ^[[LEAVE]]:
  // CHECK-NEXT: llvm.return
  // CHECK-NEXT: ^[[GO]]:
  // CHECK: cp.async.bulk.tensor.2d
  // CHECK-NOT: setmaxnreg
  // CHECK: llvm.return
  func.func @specialized_one_warpgroup(%map: !brick.tensormap, %i: i32, %pred: i1) attributes {brick.kernel} {
    %buffer = brickgpu.local_alloc : () -> !brickgpu.memdesc<32x128xf16, #b>
    %bar = brickgpu.local_alloc : () -> !brickgpu.memdesc<1xi64, #s>
    brickgpu.barrier {allWarps}
    brickgpu.warp_specialize {
      brickgpu.async_tma_copy_global_to_local %map[%i, %i] %buffer, %bar, %pred {brickgpu.producer} : !brickgpu.memdesc<32x128xf16, #b>, !brickgpu.memdesc<1xi64, #s>
      brickgpu.warp_return
    }
    brickgpu.barrier_arrive %bar, %pred : !brickgpu.memdesc<1xi64, #s>
    brickgpu.barrier
    return
  }
}

// -----

// A TMA store: thread 0 stores each 128-byte swizzle span of the rows (32 rows of 256 bytes: two boxes, the second
// 4096 bytes further into the buffer) and commits the bulk group; async_tma_store_wait has thread 0 wait until
// the buffer has been read.
#b = #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
module attributes {brickgpu.num_warps = 4 : i32} {
  // CHECK-LABEL: llvm.func @store
  // CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
  // CHECK: %[[SRC:.*]] = llvm.ptrtoint %{{.*}} : !llvm.ptr<3> to i32
  // CHECK: %[[ISSUE:.*]] = llvm.icmp "eq"
  // CHECK: %[[SRC0:.*]] = llvm.add %[[SRC]], %{{.*}}
  // CHECK: "@$4 cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [$0, {$1, $2}], [$3];", "l,r,r,r,b" %arg0, %{{.*}}, %arg1, %[[SRC0]], %[[ISSUE]]
  // CHECK: %[[OFF:.*]] = llvm.mlir.constant(4096 : i32)
  // CHECK: %[[SRC1:.*]] = llvm.add %[[SRC]], %[[OFF]]
  // CHECK: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group{{.*}} %arg0, %{{.*}}, %arg1, %[[SRC1]], %[[ISSUE]]
  // CHECK: "@$0 cp.async.bulk.commit_group;", "b" %[[ISSUE]]
  // CHECK-NOT: wait_group
  // CHECK: nvvm.read.ptx.sreg.tid.x
  // CHECK: %[[WAITER:.*]] = llvm.icmp "eq"
  // CHECK: "@$0 cp.async.bulk.wait_group.read 0;", "b" %[[WAITER]]
  func.func @store(%map: !brick.tensormap, %i: i32, %j: i32) {
    %buffer = brickgpu.local_alloc : () -> !brickgpu.memdesc<32x128xf16, #b>
    brickgpu.fence_async_shared
    brickgpu.async_tma_copy_local_to_global %map[%i, %j] %buffer : !brickgpu.memdesc<32x128xf16, #b>
    brickgpu.async_tma_store_wait
    return
  }
}

// -----

// In clusters of 2: a copy shared by the cluster (32 rows of 256 bytes: two boxes) has program r issue box r to
// both programs (mask 0b11) where %shared holds, and every box to itself where it does not; a release arrives on
// the barrier at the same offset in both programs (mapa); cluster_rank is program_id(0) mod 2.
#b = #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#s = #brickgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {brickgpu.cluster_size = 2 : i32, brickgpu.num_warps = 4 : i32} {
  // CHECK-LABEL: llvm.func @multicast
  // CHECK: "barrier.cluster.arrive.release;\0A\09barrier.cluster.wait.acquire;"
  // CHECK: %[[ISSUE:.*]] = llvm.and %{{.*}}, %arg2 : i1
  // CHECK: %[[CTA:.*]] = nvvm.read.ptx.sreg.ctaid.x
  // CHECK: %[[RANK:.*]] = llvm.and %[[CTA]], %{{.*}} : i32
  // CHECK: %[[NOT:.*]] = llvm.xor %arg3, %{{.*}} : i1
  // CHECK: %[[ALONE:.*]] = llvm.and %[[ISSUE]], %[[NOT]] : i1
  // CHECK: %[[MASK:.*]] = llvm.mlir.constant(3 : i16)
  // CHECK: "@$5 cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [$0], [$1, {$2, $3}], [$4];", "r,l,r,r,r,b" {{.*}}, %[[ALONE]]
  // CHECK: %[[BOX0:.*]] = llvm.icmp "eq" %[[RANK]], %{{.*}}
  // CHECK: %[[SHARING:.*]] = llvm.and %[[ISSUE]], %arg3
  // CHECK: %[[MINE0:.*]] = llvm.and %[[SHARING]], %[[BOX0]]
  // CHECK: .multicast::cluster [$0], [$1, {$2, $3}], [$4], $5;", "r,l,r,r,r,h,b" {{.*}}, %[[MASK]], %[[MINE0]]
  // CHECK: "@$5 cp.async.bulk.tensor{{.*}}", "r,l,r,r,r,b" {{.*}}, %[[ALONE]]
  // CHECK: .multicast::cluster{{.*}}", "r,l,r,r,r,h,b"
  // CHECK-COUNT-2: "{\0A\09.reg .b32 remote;\0A\09@$2 mapa.shared::cluster.u32 remote, $0, $1;\0A\09@$2 mbarrier.arrive.shared::cluster.b64 _, [remote];\0A\09}", "r,r,b"
  // CHECK: %[[CTA2:.*]] = nvvm.read.ptx.sreg.ctaid.x
  // CHECK: %[[ONE:.*]] = llvm.mlir.constant(1 : i32)
  // CHECK: llvm.and %[[CTA2]], %[[ONE]]
  // CHECK: llvm.mlir.constant(2 : i32)
  func.func @multicast(%map: !brick.tensormap, %i: i32, %pred: i1, %shared: i1) -> (i32, i32) {
    %buffer = brickgpu.local_alloc : () -> !brickgpu.memdesc<32x128xf16, #b>
    %bar = brickgpu.local_alloc : () -> !brickgpu.memdesc<1xi64, #s>
    brickgpu.cluster_barrier
    brickgpu.async_tma_copy_global_to_local %map[%i, %i] %buffer, %bar, %pred multicast %shared : !brickgpu.memdesc<32x128xf16, #b>, !brickgpu.memdesc<1xi64, #s>
    brickgpu.barrier_arrive %bar, %pred {cluster} : !brickgpu.memdesc<1xi64, #s>
    %rank = brick.cluster_rank
    %size = brick.cluster_size
    return %rank, %size : i32, i32
  }
}

// -----

// A block of more than 128 rows goes in boxes of 128 rows (runtime::tmaBoxRows), one below the other: 256 rows of
// 128 bytes are two boxes, the second at row %i + 128 and 128 x 128 bytes further on, for loads and stores alike.
#b = #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#s = #brickgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {brickgpu.num_warps = 4 : i32} {
  // CHECK-LABEL: llvm.func @tall
  // CHECK: %[[DST:.*]] = llvm.ptrtoint %0 : !llvm.ptr<3> to i32
  // CHECK: %[[DST0:.*]] = llvm.add %[[DST]], %{{.*}} : i32
  // CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [$0], [$1, {$2, $3}], [$4];", "r,l,r,r,r,b" %[[DST0]], %arg0, %{{.*}}, %arg1,
  // CHECK: %[[C128:.*]] = llvm.mlir.constant(128 : i32)
  // CHECK: %[[ROW1:.*]] = llvm.add %arg1, %[[C128]] : i32
  // CHECK: %[[OFF:.*]] = llvm.mlir.constant(16384 : i32)
  // CHECK: %[[DST1:.*]] = llvm.add %[[DST]], %[[OFF]] : i32
  // CHECK: cp.async.bulk.tensor.2d{{.*}}, "r,l,r,r,r,b" %[[DST1]], %arg0, %{{.*}}, %[[ROW1]],
  // CHECK-NOT: cp.async.bulk.tensor.2d.shared
  // CHECK: "@$4 cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [$0, {$1, $2}], [$3];", "l,r,r,r,b" %arg0, %{{.*}}, %arg1, %{{.*}},
  // CHECK: %[[S128:.*]] = llvm.mlir.constant(128 : i32)
  // CHECK: %[[SROW1:.*]] = llvm.add %arg1, %[[S128]] : i32
  // CHECK: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group{{.*}}, "l,r,r,r,b" %arg0, %{{.*}}, %[[SROW1]],
  // CHECK-NOT: cp.async.bulk.tensor
  // CHECK: cp.async.bulk.commit_group
  func.func @tall(%map: !brick.tensormap, %i: i32, %pred: i1) {
    %buffer = brickgpu.local_alloc : () -> !brickgpu.memdesc<256x64xf16, #b>
    %bar = brickgpu.local_alloc : () -> !brickgpu.memdesc<1xi64, #s>
    brickgpu.async_tma_copy_global_to_local %map[%i, %i] %buffer, %bar, %pred : !brickgpu.memdesc<256x64xf16, #b>, !brickgpu.memdesc<1xi64, #s>
    brickgpu.async_tma_copy_local_to_global %map[%i, %i] %buffer : !brickgpu.memdesc<256x64xf16, #b>
    return
  }
}
