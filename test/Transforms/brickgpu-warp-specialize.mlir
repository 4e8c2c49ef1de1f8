// A K loop of TMA blocks and wgmma dots split into a producer warpgroup and the consumer warps.
// RUN: brick-opt %s -split-input-file -brickgpu-warp-specialize=num-stages=3 | FileCheck %s

#mma = #brickgpu.mma<{version = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>
#rows = #brickgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [8, 1], order = [1, 0]}>
#a = #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#b = #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#s = #brickgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
// CHECK: module attributes {brickgpu.num_warps = 8 : i32, brickgpu.producer_warps = 4 : i32}
module attributes {brickgpu.num_warps = 8 : i32} {
  // CHECK-LABEL: func.func @matmul
  // CHECK: %[[RA:.*]] = brickgpu.local_alloc : () -> !brickgpu.memdesc<3x128x64xf16
  // CHECK: %[[RB:.*]] = brickgpu.local_alloc : () -> !brickgpu.memdesc<3x64x128xf16
  // CHECK: %[[FULL:.*]] = brickgpu.local_alloc : () -> !brickgpu.memdesc<3x1xi64
  // CHECK: %[[EMPTY:.*]] = brickgpu.local_alloc : () -> !brickgpu.memdesc<3x1xi64
  // Every warp initializes: full counts one arrival (the producer's expect), empty one per consumer warpgroup.
  // CHECK: brickgpu.barrier {allWarps}
  // CHECK: brickgpu.init_barrier %{{.*}}, 1
  // CHECK: brickgpu.init_barrier %{{.*}}, 2
  // CHECK: brickgpu.barrier {allWarps}
  // The producer: fewer registers; per iteration wait until the slot is empty (the parity before its phase),
  // expect both blocks' bytes, copy.
  // CHECK: brickgpu.warp_specialize {
  // CHECK-NEXT: brickgpu.set_max_registers 40
  // CHECK: scf.for %[[I:.*]] = %{{.*}} iter_args(%[[PS:.*]] = %c0_i32{{.*}}, %[[PP:.*]] = %c0_i32{{.*}})
  // CHECK: %[[K:.*]] = arith.muli %[[I]], %c64_i32
  // CHECK: %[[E:.*]] = brickgpu.memdesc_index %[[EMPTY]][%[[PS]]]
  // CHECK: %[[NOT:.*]] = arith.xori %[[PP]], %c1_i32
  // CHECK: brickgpu.wait_barrier %[[E]], %[[NOT]] {brickgpu.producer}
  // CHECK: %[[F:.*]] = brickgpu.memdesc_index %[[FULL]][%[[PS]]]
  // CHECK: brickgpu.barrier_expect %[[F]], 32768, %true {brickgpu.producer}
  // CHECK: brickgpu.async_tma_copy_global_to_local %arg1[%arg3, %[[K]]] {{.*}}, %[[F]], %true {brickgpu.producer}
  // CHECK: brickgpu.async_tma_copy_global_to_local %arg2[%[[K]], %arg4] {{.*}}, %[[F]], %true {brickgpu.producer}
  // CHECK: scf.yield
  // CHECK: brickgpu.warp_return
  // The consumers: more registers; wait until the slot is full, multiply in flight, release the previous slot.
  // CHECK: brickgpu.set_max_registers 232 {increase}
  // CHECK: scf.for %[[J:.*]] = {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[S:.*]] = %c0_i32{{.*}}, %[[P:.*]] = %c0_i32{{.*}})
  // CHECK: %[[F2:.*]] = brickgpu.memdesc_index %[[FULL]][%[[S]]]
  // CHECK-NEXT: brickgpu.wait_barrier %[[F2]], %[[P]] :
  // CHECK: %[[D:.*]] = brickgpu.warpgroup_dot {{.*}} {isAsync}
  // CHECK-NEXT: %[[W:.*]] = brickgpu.warpgroup_dot_wait %[[D]] {pendings = 1 : i32}
  // CHECK: %[[PREV:.*]] = arith.select {{.*}}, %c2_i32{{.*}}, %{{.*}}
  // CHECK: %[[LATER:.*]] = arith.cmpi ne, %[[J]], %c0_i32
  // CHECK: %[[E2:.*]] = brickgpu.memdesc_index %[[EMPTY]][%[[PREV]]]
  // CHECK: brickgpu.barrier_arrive %[[E2]], %[[LATER]]
  // CHECK: scf.yield %[[W]]
  // After the loop: the last dot, a consumer barrier, the barriers invalidated.
  // CHECK: brickgpu.warpgroup_dot_wait %{{.*}} {pendings = 0 : i32}
  // CHECK-NEXT: brickgpu.barrier
  // CHECK-COUNT-6: brickgpu.inval_barrier
  // CHECK-NOT: brick.descriptor_load
  func.func @matmul(%p: !brick.ptr<f16>, %mapA: !brick.tensormap, %mapB: !brick.tensormap, %m: i32, %n: i32,
                    %kTiles: i32, %s: i64) attributes {brick.kernel} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %c1_i64 = arith.constant 1 : i64
    %zero = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
    %da = brick.make_tensor_descriptor %p, [%m, %m], [%s, %c1_i64], %mapA : !brick.ptr<f16> -> !brick.tensordesc<128x64xf16>
    %db = brick.make_tensor_descriptor %p, [%m, %m], [%s, %c1_i64], %mapB : !brick.ptr<f16> -> !brick.tensordesc<64x128xf16>
    %acc = scf.for %k = %c0 to %kTiles step %c1 iter_args(%c = %zero) -> (tensor<128x128xf32, #mma>) : i32 {
      %kk = arith.muli %k, %c64 : i32
      %x = brick.descriptor_load %da[%m, %kk] : !brick.tensordesc<128x64xf16> -> tensor<128x64xf16, #rows>
      %y = brick.descriptor_load %db[%kk, %n] : !brick.tensordesc<64x128xf16> -> tensor<64x128xf16, #rows>
      %xa = brickgpu.local_alloc %x : (tensor<128x64xf16, #rows>) -> !brickgpu.memdesc<128x64xf16, #a>
      %yb = brickgpu.local_alloc %y : (tensor<64x128xf16, #rows>) -> !brickgpu.memdesc<64x128xf16, #b>
      %d = brickgpu.warpgroup_dot %xa, %yb, %c : !brickgpu.memdesc<128x64xf16, #a>, !brickgpu.memdesc<64x128xf16, #b> -> tensor<128x128xf32, #mma>
      scf.yield %d : tensor<128x128xf32, #mma>
    }
    %kept = brickgpu.local_alloc %acc : (tensor<128x128xf32, #mma>) -> !brickgpu.memdesc<128x128xf32, #s>
    return
  }
}

// -----

// Two dots sharing A (gate and up): the previous slot is released once the first dot is waited for (every group
// issued before it is done), before the second dot is issued, not at the end of the iteration.
#mma = #brickgpu.mma<{version = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>
#rows = #brickgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [8, 1], order = [1, 0]}>
#a = #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#s = #brickgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
module attributes {brickgpu.num_warps = 8 : i32} {
  // CHECK-LABEL: func.func @gate_up
  // CHECK: brickgpu.set_max_registers 232 {increase}
  // CHECK: scf.for %[[J:.*]] = {{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %[[S:.*]] = %c0_i32{{.*}}, %{{.*}} = %c0_i32{{.*}})
  // CHECK: %[[G:.*]] = brickgpu.warpgroup_dot {{.*}} {isAsync}
  // CHECK-NEXT: %[[GW:.*]] = brickgpu.warpgroup_dot_wait %[[G]] {pendings = 1 : i32}
  // CHECK-NOT: brickgpu.warpgroup_dot
  // CHECK: %[[LATER:.*]] = arith.cmpi ne, %[[J]], %c0_i32
  // CHECK: brickgpu.barrier_arrive %{{.*}}, %[[LATER]]
  // CHECK-NEXT: %[[U:.*]] = brickgpu.warpgroup_dot {{.*}} {isAsync}
  // CHECK-NEXT: %[[UW:.*]] = brickgpu.warpgroup_dot_wait %[[U]] {pendings = 1 : i32}
  // CHECK-NOT: brickgpu.barrier_arrive
  // CHECK: scf.yield %[[GW]], %[[UW]]
  func.func @gate_up(%p: !brick.ptr<f16>, %mapA: !brick.tensormap, %mapB: !brick.tensormap, %m: i32, %n: i32,
                     %kTiles: i32, %s: i64) attributes {brick.kernel} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %c1_i64 = arith.constant 1 : i64
    %zero = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
    %da = brick.make_tensor_descriptor %p, [%m, %m], [%s, %c1_i64], %mapA : !brick.ptr<f16> -> !brick.tensordesc<128x64xf16>
    %db = brick.make_tensor_descriptor %p, [%m, %m], [%s, %c1_i64], %mapB : !brick.ptr<f16> -> !brick.tensordesc<64x128xf16>
    %gate, %up = scf.for %k = %c0 to %kTiles step %c1 iter_args(%g = %zero, %u = %zero) -> (tensor<128x128xf32, #mma>, tensor<128x128xf32, #mma>) : i32 {
      %kk = arith.muli %k, %c64 : i32
      %n2 = arith.addi %n, %c64 : i32
      %x = brick.descriptor_load %da[%m, %kk] : !brick.tensordesc<128x64xf16> -> tensor<128x64xf16, #rows>
      %y = brick.descriptor_load %db[%kk, %n] : !brick.tensordesc<64x128xf16> -> tensor<64x128xf16, #rows>
      %z = brick.descriptor_load %db[%kk, %n2] : !brick.tensordesc<64x128xf16> -> tensor<64x128xf16, #rows>
      %xa = brickgpu.local_alloc %x : (tensor<128x64xf16, #rows>) -> !brickgpu.memdesc<128x64xf16, #a>
      %yb = brickgpu.local_alloc %y : (tensor<64x128xf16, #rows>) -> !brickgpu.memdesc<64x128xf16, #a>
      %zb = brickgpu.local_alloc %z : (tensor<64x128xf16, #rows>) -> !brickgpu.memdesc<64x128xf16, #a>
      %dg = brickgpu.warpgroup_dot %xa, %yb, %g : !brickgpu.memdesc<128x64xf16, #a>, !brickgpu.memdesc<64x128xf16, #a> -> tensor<128x128xf32, #mma>
      %du = brickgpu.warpgroup_dot %xa, %zb, %u : !brickgpu.memdesc<128x64xf16, #a>, !brickgpu.memdesc<64x128xf16, #a> -> tensor<128x128xf32, #mma>
      scf.yield %dg, %du : tensor<128x128xf32, #mma>, tensor<128x128xf32, #mma>
    }
    %kg = brickgpu.local_alloc %gate : (tensor<128x128xf32, #mma>) -> !brickgpu.memdesc<128x128xf32, #s>
    %ku = brickgpu.local_alloc %up : (tensor<128x128xf32, #mma>) -> !brickgpu.memdesc<128x128xf32, #s>
    return
  }
}

// -----

// Code before the loop that writes memory would run on the producer warps too, or, moved after the split, after
// the producer's first copies: the loop is left alone.
#mma = #brickgpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128]}>
#rows = #brickgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#a = #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#s = #brickgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
// CHECK-NOT: producer_warps
// CHECK-LABEL: func.func @store_first
// CHECK-NOT: warp_specialize
// CHECK: brick.descriptor_load
module attributes {brickgpu.num_warps = 4 : i32} {
  func.func @store_first(%p: !brick.ptr<f16>, %map: !brick.tensormap, %m: i32, %kTiles: i32, %s: i64, %flag: !brick.ptr<i32>) attributes {brick.kernel} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c1_i64 = arith.constant 1 : i64
    %zero = arith.constant dense<0.000000e+00> : tensor<64x128xf32, #mma>
    brick.store %flag, %c1 : !brick.ptr<i32>
    %da = brick.make_tensor_descriptor %p, [%m, %m], [%s, %c1_i64], %map : !brick.ptr<f16> -> !brick.tensordesc<64x128xf16>
    %db = brick.make_tensor_descriptor %p, [%m, %m], [%s, %c1_i64], %map : !brick.ptr<f16> -> !brick.tensordesc<128x128xf16>
    %acc = scf.for %k = %c0 to %kTiles step %c1 iter_args(%c = %zero) -> (tensor<64x128xf32, #mma>) : i32 {
      %x = brick.descriptor_load %da[%m, %k] : !brick.tensordesc<64x128xf16> -> tensor<64x128xf16, #rows>
      %xa = brickgpu.local_alloc %x : (tensor<64x128xf16, #rows>) -> !brickgpu.memdesc<64x128xf16, #a>
      %y = brick.descriptor_load %db[%k, %m] : !brick.tensordesc<128x128xf16> -> tensor<128x128xf16, #rows>
      %yb = brickgpu.local_alloc %y : (tensor<128x128xf16, #rows>) -> !brickgpu.memdesc<128x128xf16, #a>
      %d = brickgpu.warpgroup_dot %xa, %yb, %c : !brickgpu.memdesc<64x128xf16, #a>, !brickgpu.memdesc<128x128xf16, #a> -> tensor<64x128xf32, #mma>
      scf.yield %d : tensor<64x128xf32, #mma>
    }
    %kept = brickgpu.local_alloc %acc : (tensor<64x128xf32, #mma>) -> !brickgpu.memdesc<64x128xf32, #s>
    return
  }
}

// -----

// A scalar load before the loop (an MoE block's expert) reads one address whichever warp runs it: the producer
// warps run it too, and the loop is specialized.
#mma = #brickgpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128]}>
#rows = #brickgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#a = #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#s = #brickgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
// CHECK-LABEL: func.func @scalar_load_first
// CHECK: brick.load %arg5
// CHECK: brickgpu.warp_specialize
module attributes {brickgpu.num_warps = 4 : i32} {
  func.func @scalar_load_first(%p: !brick.ptr<f16>, %map: !brick.tensormap, %m: i32, %kTiles: i32, %s: i64, %flag: !brick.ptr<i32>) attributes {brick.kernel} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c1_i64 = arith.constant 1 : i64
    %zero = arith.constant dense<0.000000e+00> : tensor<64x128xf32, #mma>
    %row = brick.load %flag : !brick.ptr<i32>
    %da = brick.make_tensor_descriptor %p, [%m, %m], [%s, %c1_i64], %map : !brick.ptr<f16> -> !brick.tensordesc<64x128xf16>
    %db = brick.make_tensor_descriptor %p, [%m, %m], [%s, %c1_i64], %map : !brick.ptr<f16> -> !brick.tensordesc<128x128xf16>
    %acc = scf.for %k = %c0 to %kTiles step %c1 iter_args(%c = %zero) -> (tensor<64x128xf32, #mma>) : i32 {
      %x = brick.descriptor_load %da[%row, %k] : !brick.tensordesc<64x128xf16> -> tensor<64x128xf16, #rows>
      %xa = brickgpu.local_alloc %x : (tensor<64x128xf16, #rows>) -> !brickgpu.memdesc<64x128xf16, #a>
      %y = brick.descriptor_load %db[%k, %m] : !brick.tensordesc<128x128xf16> -> tensor<128x128xf16, #rows>
      %yb = brickgpu.local_alloc %y : (tensor<128x128xf16, #rows>) -> !brickgpu.memdesc<128x128xf16, #a>
      %d = brickgpu.warpgroup_dot %xa, %yb, %c : !brickgpu.memdesc<64x128xf16, #a>, !brickgpu.memdesc<128x128xf16, #a> -> tensor<64x128xf32, #mma>
      scf.yield %d : tensor<64x128xf32, #mma>
    }
    %kept = brickgpu.local_alloc %acc : (tensor<64x128xf32, #mma>) -> !brickgpu.memdesc<64x128xf32, #s>
    return
  }
}

// -----

// A K loop in a persistent tile loop: the producer runs the tile loop too (the tile's row recomputed), the ring's
// slot and phase carry on from tile to tile in both; the consumers release a tile's last slot after its last dot.
#mma = #brickgpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128]}>
#rows = #brickgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#a = #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#s = #brickgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
module attributes {brickgpu.num_warps = 4 : i32} {
  // CHECK-LABEL: func.func @persistent
  // CHECK: brickgpu.warp_specialize {
  // CHECK: %[[PT:.*]]:2 = scf.for %[[T:.*]] = %arg6 to %arg7 step %arg8 iter_args(%[[TS:.*]] = %c0_i32{{.*}}, %[[TP:.*]] = %c0_i32{{.*}})
  // CHECK: %[[ROW:.*]] = arith.muli %[[T]], %c64_i32
  // CHECK: %[[PK:.*]]:2 = scf.for {{.*}} iter_args(%{{.*}} = %[[TS]], %{{.*}} = %[[TP]])
  // CHECK: brickgpu.async_tma_copy_global_to_local %arg1[%[[ROW]], %{{.*}}]
  // CHECK: scf.yield %[[PK]]#0, %[[PK]]#1
  // CHECK: brickgpu.warp_return
  // CHECK: %[[CT:.*]]:2 = scf.for %{{.*}} = %arg6 to %arg7 step %arg8 iter_args(%[[CS:.*]] = %c0_i32{{.*}}, %[[CP:.*]] = %c0_i32{{.*}})
  // CHECK: %[[CK:.*]]:3 = scf.for %[[K:.*]] = %[[LB:.*]] to %[[UB:.*]] step {{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %[[CS]], %{{.*}} = %[[CP]])
  // CHECK: brickgpu.warpgroup_dot_wait %[[CK]]#0 {pendings = 0 : i32}
  // CHECK: %[[LAST:.*]] = arith.select {{.*}}, %c2_i32{{.*}}, %{{.*}}
  // CHECK: %[[RAN:.*]] = arith.cmpi slt, %[[LB]], %[[UB]]
  // CHECK: %[[E:.*]] = brickgpu.memdesc_index %{{.*}}[%[[LAST]]]
  // CHECK: brickgpu.barrier_arrive %[[E]], %[[RAN]]
  // CHECK: brickgpu.local_alloc
  // CHECK: scf.yield %[[CK]]#1, %[[CK]]#2
  // CHECK: brickgpu.barrier
  // CHECK-COUNT-6: brickgpu.inval_barrier
  func.func @persistent(%p: !brick.ptr<f16>, %map: !brick.tensormap, %m: i32, %kTiles: i32, %s: i64, %flag: i32,
                        %first: i32, %tiles: i32, %programs: i32) attributes {brick.kernel} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %c1_i64 = arith.constant 1 : i64
    %zero = arith.constant dense<0.000000e+00> : tensor<64x128xf32, #mma>
    %da = brick.make_tensor_descriptor %p, [%m, %m], [%s, %c1_i64], %map : !brick.ptr<f16> -> !brick.tensordesc<64x128xf16>
    %db = brick.make_tensor_descriptor %p, [%m, %m], [%s, %c1_i64], %map : !brick.ptr<f16> -> !brick.tensordesc<128x128xf16>
    scf.for %t = %first to %tiles step %programs : i32 {
      %row = arith.muli %t, %c64 : i32
      %acc = scf.for %k = %c0 to %kTiles step %c1 iter_args(%c = %zero) -> (tensor<64x128xf32, #mma>) : i32 {
        %x = brick.descriptor_load %da[%row, %k] : !brick.tensordesc<64x128xf16> -> tensor<64x128xf16, #rows>
        %xa = brickgpu.local_alloc %x : (tensor<64x128xf16, #rows>) -> !brickgpu.memdesc<64x128xf16, #a>
        %y = brick.descriptor_load %db[%k, %m] : !brick.tensordesc<128x128xf16> -> tensor<128x128xf16, #rows>
        %yb = brickgpu.local_alloc %y : (tensor<128x128xf16, #rows>) -> !brickgpu.memdesc<128x128xf16, #a>
        %d = brickgpu.warpgroup_dot %xa, %yb, %c : !brickgpu.memdesc<64x128xf16, #a>, !brickgpu.memdesc<128x128xf16, #a> -> tensor<64x128xf32, #mma>
        scf.yield %d : tensor<64x128xf32, #mma>
      }
      %kept = brickgpu.local_alloc %acc : (tensor<64x128xf32, #mma>) -> !brickgpu.memdesc<64x128xf32, #s>
    }
    return
  }
}

// -----

// A persistent tile loop whose tile reads scalars (an MoE tile's expert row) through an argument the kernel never
// writes: the producer warps load them again in their own tile loop, ahead of the consumers. Stores through another
// argument (the tile's result) do not stop it.
#mma = #brickgpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128]}>
#rows = #brickgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#a = #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
module attributes {brickgpu.num_warps = 4 : i32} {
  // CHECK-LABEL: func.func @persistent_scalar_load
  // CHECK: brickgpu.warp_specialize {
  // CHECK: scf.for %[[T:.*]] = %arg6 to %arg7 step %arg8
  // CHECK: %[[P:.*]] = brick.addptr %arg9, %[[T]]
  // CHECK: %[[ROW:.*]] = brick.load %[[P]] : !brick.ptr<i32>
  // CHECK: brickgpu.async_tma_copy_global_to_local %arg1[%[[ROW]], %{{.*}}]
  // CHECK: brickgpu.warp_return
  // CHECK: brick.load
  // CHECK: %[[O:.*]] = brick.addptr %arg10
  // CHECK: brick.store %[[O]]
  func.func @persistent_scalar_load(%p: !brick.ptr<f16>, %map: !brick.tensormap, %m: i32, %kTiles: i32, %s: i64,
                                    %flag: i32, %first: i32, %tiles: i32, %programs: i32, %rowsOf: !brick.ptr<i32>,
                                    %out: !brick.ptr<i32>) attributes {brick.kernel} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c1_i64 = arith.constant 1 : i64
    %zero = arith.constant dense<0.000000e+00> : tensor<64x128xf32, #mma>
    %da = brick.make_tensor_descriptor %p, [%m, %m], [%s, %c1_i64], %map : !brick.ptr<f16> -> !brick.tensordesc<64x128xf16>
    %db = brick.make_tensor_descriptor %p, [%m, %m], [%s, %c1_i64], %map : !brick.ptr<f16> -> !brick.tensordesc<128x128xf16>
    scf.for %t = %first to %tiles step %programs : i32 {
      %at = brick.addptr %rowsOf, %t : !brick.ptr<i32>, i32
      %row = brick.load %at : !brick.ptr<i32>
      %acc = scf.for %k = %c0 to %kTiles step %c1 iter_args(%c = %zero) -> (tensor<64x128xf32, #mma>) : i32 {
        %x = brick.descriptor_load %da[%row, %k] : !brick.tensordesc<64x128xf16> -> tensor<64x128xf16, #rows>
        %xa = brickgpu.local_alloc %x : (tensor<64x128xf16, #rows>) -> !brickgpu.memdesc<64x128xf16, #a>
        %y = brick.descriptor_load %db[%k, %m] : !brick.tensordesc<128x128xf16> -> tensor<128x128xf16, #rows>
        %yb = brickgpu.local_alloc %y : (tensor<128x128xf16, #rows>) -> !brickgpu.memdesc<128x128xf16, #a>
        %d = brickgpu.warpgroup_dot %xa, %yb, %c : !brickgpu.memdesc<64x128xf16, #a>, !brickgpu.memdesc<128x128xf16, #a> -> tensor<64x128xf32, #mma>
        scf.yield %d : tensor<64x128xf32, #mma>
      }
      %o = brick.addptr %out, %t : !brick.ptr<i32>, i32
      brick.store %o, %row : !brick.ptr<i32>
    }
    return
  }
}

// -----

// The same tile loop storing through the argument it reads its scalars from: a producer running ahead could read
// a value before the consumers' store of an earlier tile, so the loop is left alone.
#mma = #brickgpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128]}>
#rows = #brickgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#a = #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
module attributes {brickgpu.num_warps = 4 : i32} {
  // CHECK-LABEL: func.func @persistent_scalar_load_written
  // CHECK-NOT: brickgpu.warp_specialize
  // CHECK: return
  func.func @persistent_scalar_load_written(%p: !brick.ptr<f16>, %map: !brick.tensormap, %m: i32, %kTiles: i32,
                                            %s: i64, %flag: i32, %first: i32, %tiles: i32, %programs: i32,
                                            %rowsOf: !brick.ptr<i32>) attributes {brick.kernel} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c1_i64 = arith.constant 1 : i64
    %zero = arith.constant dense<0.000000e+00> : tensor<64x128xf32, #mma>
    %da = brick.make_tensor_descriptor %p, [%m, %m], [%s, %c1_i64], %map : !brick.ptr<f16> -> !brick.tensordesc<64x128xf16>
    %db = brick.make_tensor_descriptor %p, [%m, %m], [%s, %c1_i64], %map : !brick.ptr<f16> -> !brick.tensordesc<128x128xf16>
    scf.for %t = %first to %tiles step %programs : i32 {
      %at = brick.addptr %rowsOf, %t : !brick.ptr<i32>, i32
      %row = brick.load %at : !brick.ptr<i32>
      %acc = scf.for %k = %c0 to %kTiles step %c1 iter_args(%c = %zero) -> (tensor<64x128xf32, #mma>) : i32 {
        %x = brick.descriptor_load %da[%row, %k] : !brick.tensordesc<64x128xf16> -> tensor<64x128xf16, #rows>
        %xa = brickgpu.local_alloc %x : (tensor<64x128xf16, #rows>) -> !brickgpu.memdesc<64x128xf16, #a>
        %y = brick.descriptor_load %db[%k, %m] : !brick.tensordesc<128x128xf16> -> tensor<128x128xf16, #rows>
        %yb = brickgpu.local_alloc %y : (tensor<128x128xf16, #rows>) -> !brickgpu.memdesc<128x128xf16, #a>
        %d = brickgpu.warpgroup_dot %xa, %yb, %c : !brickgpu.memdesc<64x128xf16, #a>, !brickgpu.memdesc<128x128xf16, #a> -> tensor<64x128xf32, #mma>
        scf.yield %d : tensor<64x128xf32, #mma>
      }
      %next = arith.addi %t, %c1 : i32
      %o = brick.addptr %rowsOf, %next : !brick.ptr<i32>, i32
      brick.store %o, %row : !brick.ptr<i32>
    }
    return
  }
}

// -----

// A tile loop that stores its result by descriptor (an MoE tile's activations, by TMA) into a tensor made from
// another argument than the one its scalars are read through: the producer warps still run ahead. The consumers
// store each tile's block during the next tile's K loop: the tile loop carries the block, its coordinates and
// whether it waits to be stored (not before the first tile); the block's four 32-column TMA windows (128-byte
// swizzle spans of f32) go in K steps min(c, last), each just after the step's wgmma was issued and the previous
// slot released. The last tile stores its own block at its end, and so does every tile if the K loop (its bounds
// the same for every tile) has no steps.
#mma = #brickgpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128]}>
#rows = #brickgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#a = #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
module attributes {brickgpu.num_warps = 4 : i32} {
  // CHECK-LABEL: func.func @persistent_descriptor_store
  // CHECK-SAME: %[[K_TILES:[a-z0-9]+]]: i32, %{{[a-z0-9]+}}: i64, %[[FIRST:[a-z0-9]+]]: i32, %[[END:[a-z0-9]+]]: i32, %[[PROGRAMS:[a-z0-9]+]]: i32
  // CHECK: %[[OUT:.*]] = brick.make_tensor_descriptor {{.*}} -> !brick.tensordesc<64x128xf32>
  // CHECK: brickgpu.warp_specialize {
  // CHECK: brick.load %{{.*}} : !brick.ptr<i32>
  // CHECK: brickgpu.async_tma_copy_global_to_local
  // CHECK: brickgpu.warp_return
  // CHECK-NOT: brick.descriptor_store
  // CHECK: %[[STEPS:.*]] = arith.divsi
  // CHECK: %[[LAST:.*]] = arith.subi %[[STEPS]]
  // CHECK: %[[W0:.*]] = arith.minsi %c0{{.*}}, %[[LAST]]
  // CHECK: %[[S0:.*]] = arith.muli %[[W0]], %c1
  // CHECK: %[[AT0:.*]] = arith.addi %c0{{.*}}, %[[S0]] : i32
  // CHECK: %[[W1:.*]] = arith.minsi %c1{{.*}}, %[[LAST]]
  // CHECK: %[[S1:.*]] = arith.muli %[[W1]], %c1
  // CHECK: %[[AT1:.*]] = arith.addi %c0{{.*}}, %[[S1]] : i32
  // CHECK: %[[W2:.*]] = arith.minsi %c2{{.*}}, %[[LAST]]
  // CHECK: %[[S2:.*]] = arith.muli %[[W2]], %c1
  // CHECK: %[[AT2:.*]] = arith.addi %c0{{.*}}, %[[S2]] : i32
  // CHECK: %[[W3:.*]] = arith.minsi %c3{{.*}}, %[[LAST]]
  // CHECK: %[[S3:.*]] = arith.muli %[[W3]], %c1
  // CHECK: %[[AT3:.*]] = arith.addi %c0{{.*}}, %[[S3]] : i32
  // CHECK: %[[NO_STEPS:.*]] = arith.cmpi sle, %[[STEPS]]
  // CHECK: %[[NONE:.*]] = arith.constant dense<0.000000e+00> : tensor<64x128xf32, #mma>
  // CHECK: %[[NO:.*]] = arith.constant false
  // CHECK: scf.for %[[T:.*]] = %[[FIRST]] to %[[END]] step %[[PROGRAMS]] iter_args({{.*}}, %[[BLOCK:.*]] = %[[NONE]],
  // CHECK-SAME: %[[ROW:[a-z0-9]+]] = %{{[a-z0-9_]+}}, %[[COL:[a-z0-9]+]] = %{{[a-z0-9_]+}}, %[[WAITING:[a-z0-9]+]] = %[[NO]])
  // CHECK: scf.for %[[K:.*]] = {{.*}} to %[[K_TILES]]
  // CHECK: brickgpu.warpgroup_dot {{.*}} {isAsync}
  // CHECK: brickgpu.barrier_arrive
  // CHECK: %[[NOW0:.*]] = arith.cmpi eq, %[[K]], %[[AT0]]
  // CHECK: %[[IF0:.*]] = arith.andi %[[WAITING]], %[[NOW0]]
  // CHECK: scf.if %[[IF0]] {
  // CHECK-NEXT: brick.descriptor_store %[[OUT]][%[[ROW]], %[[COL]]], %[[BLOCK]] {brickgpu.store_window = 0 : i64}
  // CHECK: %[[NOW1:.*]] = arith.cmpi eq, %[[K]], %[[AT1]]
  // CHECK: arith.andi %[[WAITING]], %[[NOW1]]
  // CHECK: store_window = 1
  // CHECK: %[[NOW2:.*]] = arith.cmpi eq, %[[K]], %[[AT2]]
  // CHECK: arith.andi %[[WAITING]], %[[NOW2]]
  // CHECK: store_window = 2
  // CHECK: %[[NOW3:.*]] = arith.cmpi eq, %[[K]], %[[AT3]]
  // CHECK: %[[IF3:.*]] = arith.andi %[[WAITING]], %[[NOW3]]
  // CHECK: scf.if %[[IF3]] {
  // CHECK-NEXT: brick.descriptor_store %[[OUT]][%[[ROW]], %[[COL]]], %[[BLOCK]] {brickgpu.store_window = 3 : i64}
  // CHECK: scf.yield
  // CHECK: %[[ACC:.*]] = brickgpu.warpgroup_dot_wait %{{.*}} {pendings = 0 : i32}
  // CHECK: %[[LEFT:.*]] = arith.subi %[[END]], %[[T]]
  // CHECK: %[[LAST_TILE:.*]] = arith.cmpi sle, %[[LEFT]], %[[PROGRAMS]]
  // CHECK: %[[NOW:.*]] = arith.ori %[[LAST_TILE]], %[[NO_STEPS]]
  // CHECK: scf.if %[[NOW]] {
  // CHECK-NEXT: brick.descriptor_store %[[OUT]][%[[T]], %c0{{.*}}], %[[ACC]] :
  // CHECK: %[[LATER:.*]] = arith.xori %[[NOW]], %true
  // CHECK: scf.yield {{.*}}, %[[ACC]], %[[T]], %c0{{.*}}, %[[LATER]] :
  // CHECK-NOT: brick.descriptor_store
  // CHECK: return
  func.func @persistent_descriptor_store(%p: !brick.ptr<f16>, %map: !brick.tensormap, %m: i32, %kTiles: i32,
                                         %s: i64, %first: i32, %tiles: i32, %programs: i32, %rowsOf: !brick.ptr<i32>,
                                         %out: !brick.ptr<f32>, %outMap: !brick.tensormap) attributes {brick.kernel} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c1_i64 = arith.constant 1 : i64
    %zero = arith.constant dense<0.000000e+00> : tensor<64x128xf32, #mma>
    %da = brick.make_tensor_descriptor %p, [%m, %m], [%s, %c1_i64], %map : !brick.ptr<f16> -> !brick.tensordesc<64x128xf16>
    %db = brick.make_tensor_descriptor %p, [%m, %m], [%s, %c1_i64], %map : !brick.ptr<f16> -> !brick.tensordesc<128x128xf16>
    %dout = brick.make_tensor_descriptor %out, [%m, %m], [%s, %c1_i64], %outMap : !brick.ptr<f32> -> !brick.tensordesc<64x128xf32>
    scf.for %t = %first to %tiles step %programs : i32 {
      %at = brick.addptr %rowsOf, %t : !brick.ptr<i32>, i32
      %row = brick.load %at : !brick.ptr<i32>
      %acc = scf.for %k = %c0 to %kTiles step %c1 iter_args(%c = %zero) -> (tensor<64x128xf32, #mma>) : i32 {
        %x = brick.descriptor_load %da[%row, %k] : !brick.tensordesc<64x128xf16> -> tensor<64x128xf16, #rows>
        %xa = brickgpu.local_alloc %x : (tensor<64x128xf16, #rows>) -> !brickgpu.memdesc<64x128xf16, #a>
        %y = brick.descriptor_load %db[%k, %m] : !brick.tensordesc<128x128xf16> -> tensor<128x128xf16, #rows>
        %yb = brickgpu.local_alloc %y : (tensor<128x128xf16, #rows>) -> !brickgpu.memdesc<128x128xf16, #a>
        %d = brickgpu.warpgroup_dot %xa, %yb, %c : !brickgpu.memdesc<64x128xf16, #a>, !brickgpu.memdesc<128x128xf16, #a> -> tensor<64x128xf32, #mma>
        scf.yield %d : tensor<64x128xf32, #mma>
      }
      brick.descriptor_store %dout[%t, %c0], %acc : !brick.tensordesc<64x128xf32>, tensor<64x128xf32, #mma>
    }
    return
  }
}

// -----

// The K loop's bound computed in each tile from what every tile shares (cdiv(K, 64), as the DSL's examples write
// it) is moved before the tile loop, and a constant step of 2 is rounded up into steps. A block converted for its
// store is carried in the registers it was computed in (the accumulator's), the conversion gone: 64x128 f16 is two
// 64-column TMA windows.
#mma = #brickgpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128]}>
#rows = #brickgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#a = #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
module attributes {brickgpu.num_warps = 4 : i32} {
  // CHECK-LABEL: func.func @persistent_bound_in_tile
  // CHECK-SAME: %[[K_ELEMS:[a-z0-9]+]]: i32, %{{[a-z0-9]+}}: i64
  // CHECK: brickgpu.warp_return
  // CHECK: %[[PLUS:.*]] = arith.addi %[[K_ELEMS]], %c63
  // CHECK: %[[K_TILES:.*]] = arith.divsi %[[PLUS]], %c64
  // CHECK: %[[SPAN:.*]] = arith.subi %[[K_TILES]], %c0
  // CHECK: %[[ROUNDED:.*]] = arith.addi %[[SPAN]], %c1
  // CHECK: %[[STEPS:.*]] = arith.divsi %[[ROUNDED]], %c2
  // CHECK: %[[LAST:.*]] = arith.subi %[[STEPS]], %c1
  // CHECK: arith.minsi %c0{{.*}}, %[[LAST]]
  // CHECK: arith.minsi %c1{{.*}}, %[[LAST]]
  // CHECK-NOT: arith.minsi
  // CHECK: scf.for {{.*}} -> (i32, i32, tensor<64x128xf16, #mma>, i32, i32, i1)
  // CHECK-NOT: arith.divsi
  // CHECK: scf.for %{{.*}} = %c0{{.*}} to %[[K_TILES]] step %c2
  // CHECK: store_window = 0 : i64} : !brick.tensordesc<64x128xf16>, tensor<64x128xf16, #mma>
  // CHECK: store_window = 1 : i64} : !brick.tensordesc<64x128xf16>, tensor<64x128xf16, #mma>
  // CHECK-NOT: store_window
  // CHECK: %[[HALF:.*]] = arith.truncf
  // CHECK-NOT: brickgpu.convert_layout
  // CHECK: brick.descriptor_store %{{.*}}, %[[HALF]] : !brick.tensordesc<64x128xf16>, tensor<64x128xf16, #mma>
  // CHECK: return
  func.func @persistent_bound_in_tile(%p: !brick.ptr<f16>, %map: !brick.tensormap, %m: i32, %kElements: i32,
                                      %s: i64, %first: i32, %tiles: i32, %programs: i32,
                                      %out: !brick.ptr<f16>, %outMap: !brick.tensormap) attributes {brick.kernel} {
    %c0 = arith.constant 0 : i32
    %c2 = arith.constant 2 : i32
    %c63 = arith.constant 63 : i32
    %c64 = arith.constant 64 : i32
    %c1_i64 = arith.constant 1 : i64
    %zero = arith.constant dense<0.000000e+00> : tensor<64x128xf32, #mma>
    %da = brick.make_tensor_descriptor %p, [%m, %m], [%s, %c1_i64], %map : !brick.ptr<f16> -> !brick.tensordesc<64x128xf16>
    %db = brick.make_tensor_descriptor %p, [%m, %m], [%s, %c1_i64], %map : !brick.ptr<f16> -> !brick.tensordesc<128x128xf16>
    %dout = brick.make_tensor_descriptor %out, [%m, %m], [%s, %c1_i64], %outMap : !brick.ptr<f16> -> !brick.tensordesc<64x128xf16>
    scf.for %t = %first to %tiles step %programs : i32 {
      %kPlus = arith.addi %kElements, %c63 : i32
      %kTiles = arith.divsi %kPlus, %c64 : i32
      %acc = scf.for %k = %c0 to %kTiles step %c2 iter_args(%c = %zero) -> (tensor<64x128xf32, #mma>) : i32 {
        %x = brick.descriptor_load %da[%t, %k] : !brick.tensordesc<64x128xf16> -> tensor<64x128xf16, #rows>
        %xa = brickgpu.local_alloc %x : (tensor<64x128xf16, #rows>) -> !brickgpu.memdesc<64x128xf16, #a>
        %y = brick.descriptor_load %db[%k, %m] : !brick.tensordesc<128x128xf16> -> tensor<128x128xf16, #rows>
        %yb = brickgpu.local_alloc %y : (tensor<128x128xf16, #rows>) -> !brickgpu.memdesc<128x128xf16, #a>
        %d = brickgpu.warpgroup_dot %xa, %yb, %c : !brickgpu.memdesc<64x128xf16, #a>, !brickgpu.memdesc<128x128xf16, #a> -> tensor<64x128xf32, #mma>
        scf.yield %d : tensor<64x128xf32, #mma>
      }
      %half = arith.truncf %acc : tensor<64x128xf32, #mma> to tensor<64x128xf16, #mma>
      %rowsOut = brickgpu.convert_layout %half : tensor<64x128xf16, #mma> -> tensor<64x128xf16, #rows>
      brick.descriptor_store %dout[%t, %c0], %rowsOut : !brick.tensordesc<64x128xf16>, tensor<64x128xf16, #rows>
    }
    return
  }
}

// -----

// Two dots a step (an MoE tile's gate and up): the windows are stored after both are issued, not between them.
#mma = #brickgpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128]}>
#rows = #brickgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#a = #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
module attributes {brickgpu.num_warps = 4 : i32} {
  // CHECK-LABEL: func.func @persistent_gate_up
  // CHECK: brickgpu.warp_return
  // CHECK: scf.for
  // CHECK: brickgpu.warpgroup_dot {{.*}} {isAsync}
  // CHECK-NEXT: brickgpu.warpgroup_dot_wait
  // CHECK-NOT: store_window
  // CHECK: brickgpu.barrier_arrive
  // CHECK-NOT: store_window
  // CHECK: brickgpu.warpgroup_dot {{.*}} {isAsync}
  // CHECK-NEXT: brickgpu.warpgroup_dot_wait
  // CHECK: store_window = 0
  // CHECK: store_window = 3
  // CHECK: scf.yield
  func.func @persistent_gate_up(%p: !brick.ptr<f16>, %map: !brick.tensormap, %m: i32, %kTiles: i32, %s: i64,
                                %first: i32, %tiles: i32, %programs: i32,
                                %out: !brick.ptr<f32>, %outMap: !brick.tensormap) attributes {brick.kernel} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c1_i64 = arith.constant 1 : i64
    %zero = arith.constant dense<0.000000e+00> : tensor<64x128xf32, #mma>
    %da = brick.make_tensor_descriptor %p, [%m, %m], [%s, %c1_i64], %map : !brick.ptr<f16> -> !brick.tensordesc<64x128xf16>
    %db = brick.make_tensor_descriptor %p, [%m, %m], [%s, %c1_i64], %map : !brick.ptr<f16> -> !brick.tensordesc<128x128xf16>
    %dout = brick.make_tensor_descriptor %out, [%m, %m], [%s, %c1_i64], %outMap : !brick.ptr<f32> -> !brick.tensordesc<64x128xf32>
    scf.for %t = %first to %tiles step %programs : i32 {
      %acc:2 = scf.for %k = %c0 to %kTiles step %c1 iter_args(%g = %zero, %u = %zero) -> (tensor<64x128xf32, #mma>, tensor<64x128xf32, #mma>) : i32 {
        %x = brick.descriptor_load %da[%t, %k] : !brick.tensordesc<64x128xf16> -> tensor<64x128xf16, #rows>
        %xa = brickgpu.local_alloc %x : (tensor<64x128xf16, #rows>) -> !brickgpu.memdesc<64x128xf16, #a>
        %y = brick.descriptor_load %db[%k, %m] : !brick.tensordesc<128x128xf16> -> tensor<128x128xf16, #rows>
        %yb = brickgpu.local_alloc %y : (tensor<128x128xf16, #rows>) -> !brickgpu.memdesc<128x128xf16, #a>
        %z = brick.descriptor_load %db[%k, %c0] : !brick.tensordesc<128x128xf16> -> tensor<128x128xf16, #rows>
        %zb = brickgpu.local_alloc %z : (tensor<128x128xf16, #rows>) -> !brickgpu.memdesc<128x128xf16, #a>
        %gate = brickgpu.warpgroup_dot %xa, %yb, %g : !brickgpu.memdesc<64x128xf16, #a>, !brickgpu.memdesc<128x128xf16, #a> -> tensor<64x128xf32, #mma>
        %up = brickgpu.warpgroup_dot %xa, %zb, %u : !brickgpu.memdesc<64x128xf16, #a>, !brickgpu.memdesc<128x128xf16, #a> -> tensor<64x128xf32, #mma>
        scf.yield %gate, %up : tensor<64x128xf32, #mma>, tensor<64x128xf32, #mma>
      }
      %h = arith.mulf %acc#0, %acc#1 : tensor<64x128xf32, #mma>
      brick.descriptor_store %dout[%t, %c0], %h : !brick.tensordesc<64x128xf32>, tensor<64x128xf32, #mma>
    }
    return
  }
}

// -----

// A tile that also writes elsewhere (a flag per tile, before its block): its block is stored at the end of the
// tile, as the kernel says, not during the next one.
#mma = #brickgpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128]}>
#rows = #brickgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#a = #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
module attributes {brickgpu.num_warps = 4 : i32} {
  // CHECK-LABEL: func.func @persistent_store_and_flag
  // CHECK: brickgpu.warp_return
  // CHECK: scf.for
  // CHECK: scf.for
  // CHECK-NOT: brick.descriptor_store
  // CHECK: scf.yield
  // CHECK: brick.store
  // CHECK-NEXT: brick.descriptor_store %{{.*}}, %{{.*}} : !brick.tensordesc<64x128xf32>
  // CHECK-NEXT: scf.yield
  // CHECK-NOT: brick.descriptor_store
  // CHECK: return
  func.func @persistent_store_and_flag(%p: !brick.ptr<f16>, %map: !brick.tensormap, %m: i32, %kTiles: i32,
                                       %s: i64, %first: i32, %tiles: i32, %programs: i32, %flags: !brick.ptr<i32>,
                                       %out: !brick.ptr<f32>, %outMap: !brick.tensormap) attributes {brick.kernel} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c1_i64 = arith.constant 1 : i64
    %zero = arith.constant dense<0.000000e+00> : tensor<64x128xf32, #mma>
    %da = brick.make_tensor_descriptor %p, [%m, %m], [%s, %c1_i64], %map : !brick.ptr<f16> -> !brick.tensordesc<64x128xf16>
    %db = brick.make_tensor_descriptor %p, [%m, %m], [%s, %c1_i64], %map : !brick.ptr<f16> -> !brick.tensordesc<128x128xf16>
    %dout = brick.make_tensor_descriptor %out, [%m, %m], [%s, %c1_i64], %outMap : !brick.ptr<f32> -> !brick.tensordesc<64x128xf32>
    scf.for %t = %first to %tiles step %programs : i32 {
      %acc = scf.for %k = %c0 to %kTiles step %c1 iter_args(%c = %zero) -> (tensor<64x128xf32, #mma>) : i32 {
        %x = brick.descriptor_load %da[%t, %k] : !brick.tensordesc<64x128xf16> -> tensor<64x128xf16, #rows>
        %xa = brickgpu.local_alloc %x : (tensor<64x128xf16, #rows>) -> !brickgpu.memdesc<64x128xf16, #a>
        %y = brick.descriptor_load %db[%k, %m] : !brick.tensordesc<128x128xf16> -> tensor<128x128xf16, #rows>
        %yb = brickgpu.local_alloc %y : (tensor<128x128xf16, #rows>) -> !brickgpu.memdesc<128x128xf16, #a>
        %d = brickgpu.warpgroup_dot %xa, %yb, %c : !brickgpu.memdesc<64x128xf16, #a>, !brickgpu.memdesc<128x128xf16, #a> -> tensor<64x128xf32, #mma>
        scf.yield %d : tensor<64x128xf32, #mma>
      }
      %at = brick.addptr %flags, %t : !brick.ptr<i32>, i32
      brick.store %at, %c1 : !brick.ptr<i32>
      brick.descriptor_store %dout[%t, %c0], %acc : !brick.tensordesc<64x128xf32>, tensor<64x128xf32, #mma>
    }
    return
  }
}

// -----

// A K loop whose steps each tile reads (a ragged expert): a tile without steps would leave the block before it
// unstored, so the block is stored at the end of its tile.
#mma = #brickgpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128]}>
#rows = #brickgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#a = #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
module attributes {brickgpu.num_warps = 4 : i32} {
  // CHECK-LABEL: func.func @persistent_steps_per_tile
  // CHECK: brickgpu.warp_return
  // CHECK: scf.for
  // CHECK: scf.for
  // CHECK-NOT: brick.descriptor_store
  // CHECK: scf.yield
  // CHECK: brick.descriptor_store %{{.*}}, %{{.*}} : !brick.tensordesc<64x128xf32>
  // CHECK-NEXT: scf.yield
  // CHECK-NOT: brick.descriptor_store
  // CHECK: return
  func.func @persistent_steps_per_tile(%p: !brick.ptr<f16>, %map: !brick.tensormap, %m: i32, %stepsOf: !brick.ptr<i32>,
                                       %s: i64, %first: i32, %tiles: i32, %programs: i32,
                                       %out: !brick.ptr<f32>, %outMap: !brick.tensormap) attributes {brick.kernel} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c1_i64 = arith.constant 1 : i64
    %zero = arith.constant dense<0.000000e+00> : tensor<64x128xf32, #mma>
    %da = brick.make_tensor_descriptor %p, [%m, %m], [%s, %c1_i64], %map : !brick.ptr<f16> -> !brick.tensordesc<64x128xf16>
    %db = brick.make_tensor_descriptor %p, [%m, %m], [%s, %c1_i64], %map : !brick.ptr<f16> -> !brick.tensordesc<128x128xf16>
    %dout = brick.make_tensor_descriptor %out, [%m, %m], [%s, %c1_i64], %outMap : !brick.ptr<f32> -> !brick.tensordesc<64x128xf32>
    scf.for %t = %first to %tiles step %programs : i32 {
      %at = brick.addptr %stepsOf, %t : !brick.ptr<i32>, i32
      %kTiles = brick.load %at : !brick.ptr<i32>
      %acc = scf.for %k = %c0 to %kTiles step %c1 iter_args(%c = %zero) -> (tensor<64x128xf32, #mma>) : i32 {
        %x = brick.descriptor_load %da[%t, %k] : !brick.tensordesc<64x128xf16> -> tensor<64x128xf16, #rows>
        %xa = brickgpu.local_alloc %x : (tensor<64x128xf16, #rows>) -> !brickgpu.memdesc<64x128xf16, #a>
        %y = brick.descriptor_load %db[%k, %m] : !brick.tensordesc<128x128xf16> -> tensor<128x128xf16, #rows>
        %yb = brickgpu.local_alloc %y : (tensor<128x128xf16, #rows>) -> !brickgpu.memdesc<128x128xf16, #a>
        %d = brickgpu.warpgroup_dot %xa, %yb, %c : !brickgpu.memdesc<64x128xf16, #a>, !brickgpu.memdesc<128x128xf16, #a> -> tensor<64x128xf32, #mma>
        scf.yield %d : tensor<64x128xf32, #mma>
      }
      brick.descriptor_store %dout[%t, %c0], %acc : !brick.tensordesc<64x128xf32>, tensor<64x128xf32, #mma>
    }
    return
  }
}

// -----

// The same with the descriptor's tensor where the scalars are read: a producer running ahead could read a row
// before the store of an earlier tile wrote it, so the loop is left alone.
#mma = #brickgpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128]}>
#rows = #brickgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#a = #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
module attributes {brickgpu.num_warps = 4 : i32} {
  // CHECK-LABEL: func.func @persistent_descriptor_store_aliased
  // CHECK-NOT: brickgpu.warp_specialize
  // CHECK: return
  func.func @persistent_descriptor_store_aliased(%p: !brick.ptr<f16>, %map: !brick.tensormap, %m: i32,
                                                 %kTiles: i32, %s: i64, %first: i32, %tiles: i32, %programs: i32,
                                                 %rowsOf: !brick.ptr<i32>, %outMap: !brick.tensormap)
      attributes {brick.kernel} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c1_i64 = arith.constant 1 : i64
    %zero = arith.constant dense<0.000000e+00> : tensor<64x128xf32, #mma>
    %da = brick.make_tensor_descriptor %p, [%m, %m], [%s, %c1_i64], %map : !brick.ptr<f16> -> !brick.tensordesc<64x128xf16>
    %db = brick.make_tensor_descriptor %p, [%m, %m], [%s, %c1_i64], %map : !brick.ptr<f16> -> !brick.tensordesc<128x128xf16>
    %dout = brick.make_tensor_descriptor %rowsOf, [%m, %m], [%s, %c1_i64], %outMap : !brick.ptr<i32> -> !brick.tensordesc<64x128xi32>
    scf.for %t = %first to %tiles step %programs : i32 {
      %at = brick.addptr %rowsOf, %t : !brick.ptr<i32>, i32
      %row = brick.load %at : !brick.ptr<i32>
      %acc = scf.for %k = %c0 to %kTiles step %c1 iter_args(%c = %zero) -> (tensor<64x128xf32, #mma>) : i32 {
        %x = brick.descriptor_load %da[%row, %k] : !brick.tensordesc<64x128xf16> -> tensor<64x128xf16, #rows>
        %xa = brickgpu.local_alloc %x : (tensor<64x128xf16, #rows>) -> !brickgpu.memdesc<64x128xf16, #a>
        %y = brick.descriptor_load %db[%k, %m] : !brick.tensordesc<128x128xf16> -> tensor<128x128xf16, #rows>
        %yb = brickgpu.local_alloc %y : (tensor<128x128xf16, #rows>) -> !brickgpu.memdesc<128x128xf16, #a>
        %d = brickgpu.warpgroup_dot %xa, %yb, %c : !brickgpu.memdesc<64x128xf16, #a>, !brickgpu.memdesc<128x128xf16, #a> -> tensor<64x128xf32, #mma>
        scf.yield %d : tensor<64x128xf32, #mma>
      }
      %ints = arith.fptosi %acc : tensor<64x128xf32, #mma> to tensor<64x128xi32, #mma>
      brick.descriptor_store %dout[%t, %c0], %ints : !brick.tensordesc<64x128xi32>, tensor<64x128xi32, #mma>
    }
    return
  }
}

// -----

// In clusters of 2, B's block shared by the cluster (two 64-column TMA boxes: one from each program, multicast)
// and A's not: the empty barriers count both programs' consumer warpgroups, a cluster barrier follows their
// initialization, consumers release slots in every program of the cluster, the last slot too, and wait until
// all slots were released everywhere before the barriers go.
#mma = #brickgpu.mma<{version = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>
#rows = #brickgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [8, 1], order = [1, 0]}>
#a = #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#s = #brickgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
module attributes {brickgpu.cluster_size = 2 : i32, brickgpu.num_warps = 8 : i32} {
  // CHECK-LABEL: func.func @shared_by_cluster
  // CHECK: brickgpu.init_barrier %{{.*}}, 1
  // CHECK: brickgpu.init_barrier %{{.*}}, 4
  // CHECK-COUNT-2: brickgpu.init_barrier
  // CHECK: brickgpu.cluster_barrier
  // CHECK: brickgpu.warp_specialize {
  // CHECK: brickgpu.async_tma_copy_global_to_local %arg1[%arg3, %{{.*}}] {{.*}}, %true {brickgpu.producer}
  // CHECK: brickgpu.async_tma_copy_global_to_local %arg2[%{{.*}}, %arg4] {{.*}}, %true multicast %arg7 {brickgpu.producer}
  // CHECK: brickgpu.warp_return
  // CHECK: scf.for
  // CHECK: brickgpu.barrier_arrive %{{.*}}, %{{.*}} {cluster}
  // CHECK: scf.yield
  // CHECK: brickgpu.warpgroup_dot_wait %{{.*}} {pendings = 0 : i32}
  // CHECK: brickgpu.barrier_arrive %{{.*}}, %{{.*}} {cluster}
  // CHECK-COUNT-3: brickgpu.wait_barrier
  // CHECK: brickgpu.barrier
  // CHECK-COUNT-6: brickgpu.inval_barrier
  func.func @shared_by_cluster(%p: !brick.ptr<f16>, %mapA: !brick.tensormap, %mapB: !brick.tensormap, %m: i32,
                               %n: i32, %kTiles: i32, %s: i64, %same: i1) attributes {brick.kernel} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %c1_i64 = arith.constant 1 : i64
    %zero = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
    %da = brick.make_tensor_descriptor %p, [%m, %m], [%s, %c1_i64], %mapA : !brick.ptr<f16> -> !brick.tensordesc<128x64xf16>
    %db = brick.make_tensor_descriptor %p, [%m, %m], [%s, %c1_i64], %mapB : !brick.ptr<f16> -> !brick.tensordesc<64x128xf16>
    %acc = scf.for %k = %c0 to %kTiles step %c1 iter_args(%c = %zero) -> (tensor<128x128xf32, #mma>) : i32 {
      %kk = arith.muli %k, %c64 : i32
      %x = brick.descriptor_load %da[%m, %kk] shared_by_cluster %same : !brick.tensordesc<128x64xf16> -> tensor<128x64xf16, #rows>
      %y = brick.descriptor_load %db[%kk, %n] shared_by_cluster %same : !brick.tensordesc<64x128xf16> -> tensor<64x128xf16, #rows>
      %xa = brickgpu.local_alloc %x : (tensor<128x64xf16, #rows>) -> !brickgpu.memdesc<128x64xf16, #a>
      %yb = brickgpu.local_alloc %y : (tensor<64x128xf16, #rows>) -> !brickgpu.memdesc<64x128xf16, #a>
      %d = brickgpu.warpgroup_dot %xa, %yb, %c : !brickgpu.memdesc<128x64xf16, #a>, !brickgpu.memdesc<64x128xf16, #a> -> tensor<128x128xf32, #mma>
      scf.yield %d : tensor<128x128xf32, #mma>
    }
    %kept = brickgpu.local_alloc %acc : (tensor<128x128xf32, #mma>) -> !brickgpu.memdesc<128x128xf32, #s>
    return
  }
}

// -----

// A block of 256 rows is two TMA boxes of 128 rows (runtime::tmaBoxRows), so the cluster shares it too: both
// copies multicast.
#mma = #brickgpu.mma<{version = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>
#rows = #brickgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [8, 1], order = [1, 0]}>
#a = #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#s = #brickgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
module attributes {brickgpu.cluster_size = 2 : i32, brickgpu.num_warps = 8 : i32} {
  // CHECK-LABEL: func.func @shared_by_cluster_tall
  // CHECK: brickgpu.init_barrier %{{.*}}, 1
  // CHECK: brickgpu.init_barrier %{{.*}}, 4
  // CHECK-COUNT-2: brickgpu.init_barrier
  // CHECK: brickgpu.cluster_barrier
  // CHECK: brickgpu.warp_specialize {
  // CHECK: brickgpu.async_tma_copy_global_to_local %arg1[%arg3, %{{.*}}] {{.*}}, %true multicast %arg7 {brickgpu.producer}
  // CHECK: brickgpu.async_tma_copy_global_to_local %arg2[%{{.*}}, %arg4] {{.*}}, %true multicast %arg7 {brickgpu.producer}
  // CHECK: brickgpu.warp_return
  func.func @shared_by_cluster_tall(%p: !brick.ptr<f16>, %mapA: !brick.tensormap, %mapB: !brick.tensormap, %m: i32,
                               %n: i32, %kTiles: i32, %s: i64, %same: i1) attributes {brick.kernel} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %c1_i64 = arith.constant 1 : i64
    %zero = arith.constant dense<0.000000e+00> : tensor<256x128xf32, #mma>
    %da = brick.make_tensor_descriptor %p, [%m, %m], [%s, %c1_i64], %mapA : !brick.ptr<f16> -> !brick.tensordesc<256x64xf16>
    %db = brick.make_tensor_descriptor %p, [%m, %m], [%s, %c1_i64], %mapB : !brick.ptr<f16> -> !brick.tensordesc<64x128xf16>
    %acc = scf.for %k = %c0 to %kTiles step %c1 iter_args(%c = %zero) -> (tensor<256x128xf32, #mma>) : i32 {
      %kk = arith.muli %k, %c64 : i32
      %x = brick.descriptor_load %da[%m, %kk] shared_by_cluster %same : !brick.tensordesc<256x64xf16> -> tensor<256x64xf16, #rows>
      %y = brick.descriptor_load %db[%kk, %n] shared_by_cluster %same : !brick.tensordesc<64x128xf16> -> tensor<64x128xf16, #rows>
      %xa = brickgpu.local_alloc %x : (tensor<256x64xf16, #rows>) -> !brickgpu.memdesc<256x64xf16, #a>
      %yb = brickgpu.local_alloc %y : (tensor<64x128xf16, #rows>) -> !brickgpu.memdesc<64x128xf16, #a>
      %d = brickgpu.warpgroup_dot %xa, %yb, %c : !brickgpu.memdesc<256x64xf16, #a>, !brickgpu.memdesc<64x128xf16, #a> -> tensor<256x128xf32, #mma>
      scf.yield %d : tensor<256x128xf32, #mma>
    }
    %kept = brickgpu.local_alloc %acc : (tensor<256x128xf32, #mma>) -> !brickgpu.memdesc<256x128xf32, #s>
    return
  }
}

// -----

// Registers move only where they must and can: one consumer warpgroup (256 threads) may have 255 registers a
// thread from the start, so no setmaxnreg (ptxas would ignore it); 16 consumer warps (640 threads, 96 registers
// each at the start) raise theirs to 104, not 232, which the program does not have.
#mma = #brickgpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128]}>
#rows = #brickgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#a = #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#b = #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#s = #brickgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
// CHECK: module attributes {brickgpu.num_warps = 4 : i32, brickgpu.producer_warps = 4 : i32}
module attributes {brickgpu.num_warps = 4 : i32} {
  // CHECK-LABEL: func.func @one_warpgroup
  // CHECK-NOT: set_max_registers
  // CHECK: brickgpu.warp_specialize {
  // CHECK-NOT: set_max_registers
  // CHECK: brickgpu.warpgroup_dot
  // CHECK-NOT: set_max_registers
  // CHECK: return
  func.func @one_warpgroup(%p: !brick.ptr<f16>, %mapA: !brick.tensormap, %mapB: !brick.tensormap, %m: i32, %n: i32,
                           %kTiles: i32, %s: i64) attributes {brick.kernel} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %c1_i64 = arith.constant 1 : i64
    %zero = arith.constant dense<0.000000e+00> : tensor<64x128xf32, #mma>
    %da = brick.make_tensor_descriptor %p, [%m, %m], [%s, %c1_i64], %mapA : !brick.ptr<f16> -> !brick.tensordesc<64x64xf16>
    %db = brick.make_tensor_descriptor %p, [%m, %m], [%s, %c1_i64], %mapB : !brick.ptr<f16> -> !brick.tensordesc<64x128xf16>
    %acc = scf.for %k = %c0 to %kTiles step %c1 iter_args(%c = %zero) -> (tensor<64x128xf32, #mma>) : i32 {
      %kk = arith.muli %k, %c64 : i32
      %x = brick.descriptor_load %da[%m, %kk] : !brick.tensordesc<64x64xf16> -> tensor<64x64xf16, #rows>
      %y = brick.descriptor_load %db[%kk, %n] : !brick.tensordesc<64x128xf16> -> tensor<64x128xf16, #rows>
      %xa = brickgpu.local_alloc %x : (tensor<64x64xf16, #rows>) -> !brickgpu.memdesc<64x64xf16, #a>
      %yb = brickgpu.local_alloc %y : (tensor<64x128xf16, #rows>) -> !brickgpu.memdesc<64x128xf16, #b>
      %d = brickgpu.warpgroup_dot %xa, %yb, %c : !brickgpu.memdesc<64x64xf16, #a>, !brickgpu.memdesc<64x128xf16, #b> -> tensor<64x128xf32, #mma>
      scf.yield %d : tensor<64x128xf32, #mma>
    }
    %kept = brickgpu.local_alloc %acc : (tensor<64x128xf32, #mma>) -> !brickgpu.memdesc<64x128xf32, #s>
    return
  }
}

// -----

#mma = #brickgpu.mma<{version = 3, warpsPerCTA = [16, 1], instrShape = [64, 128]}>
#rows = #brickgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [16, 1], order = [1, 0]}>
#a = #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#b = #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#s = #brickgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
// CHECK: module attributes {brickgpu.num_warps = 16 : i32, brickgpu.producer_warps = 4 : i32}
module attributes {brickgpu.num_warps = 16 : i32} {
  // CHECK-LABEL: func.func @four_warpgroups
  // CHECK: brickgpu.warp_specialize {
  // CHECK-NEXT: brickgpu.set_max_registers 40
  // CHECK: brickgpu.warp_return
  // CHECK: brickgpu.set_max_registers 104 {increase}
  func.func @four_warpgroups(%p: !brick.ptr<f16>, %mapA: !brick.tensormap, %mapB: !brick.tensormap, %m: i32, %n: i32,
                             %kTiles: i32, %s: i64) attributes {brick.kernel} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %c1_i64 = arith.constant 1 : i64
    %zero = arith.constant dense<0.000000e+00> : tensor<256x128xf32, #mma>
    %da = brick.make_tensor_descriptor %p, [%m, %m], [%s, %c1_i64], %mapA : !brick.ptr<f16> -> !brick.tensordesc<256x64xf16>
    %db = brick.make_tensor_descriptor %p, [%m, %m], [%s, %c1_i64], %mapB : !brick.ptr<f16> -> !brick.tensordesc<64x128xf16>
    %acc = scf.for %k = %c0 to %kTiles step %c1 iter_args(%c = %zero) -> (tensor<256x128xf32, #mma>) : i32 {
      %kk = arith.muli %k, %c64 : i32
      %x = brick.descriptor_load %da[%m, %kk] : !brick.tensordesc<256x64xf16> -> tensor<256x64xf16, #rows>
      %y = brick.descriptor_load %db[%kk, %n] : !brick.tensordesc<64x128xf16> -> tensor<64x128xf16, #rows>
      %xa = brickgpu.local_alloc %x : (tensor<256x64xf16, #rows>) -> !brickgpu.memdesc<256x64xf16, #a>
      %yb = brickgpu.local_alloc %y : (tensor<64x128xf16, #rows>) -> !brickgpu.memdesc<64x128xf16, #b>
      %d = brickgpu.warpgroup_dot %xa, %yb, %c : !brickgpu.memdesc<256x64xf16, #a>, !brickgpu.memdesc<64x128xf16, #b> -> tensor<256x128xf32, #mma>
      scf.yield %d : tensor<256x128xf32, #mma>
    }
    %kept = brickgpu.local_alloc %acc : (tensor<256x128xf32, #mma>) -> !brickgpu.memdesc<256x128xf32, #s>
    return
  }
}

// -----

// Attention: the loops at the top level (the blocks every row sees whole, then the masked ones) fill the same
// rings, the producer copying K and V for one after the other with the ring's slot and phase carried on. Their
// dots complete where they are (Q K^T feeds the softmax, P V reads P from registers): each iteration releases its
// own slot after its last dot. Q's load before the loops, and what uses it, is the consumers' alone: it moves
// after the split.
#mma = #brickgpu.mma<{version = 3, warpsPerCTA = [8, 1], instrShape = [64, 64]}>
#mma1 = #brickgpu.mma<{version = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>
#rows = #brickgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 4], order = [1, 0]}>
#k = #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#kt = #brickgpu.nvmma_shared<{swizzle = 128, order = [0, 1]}>
#p = #brickgpu.dot_op<{opIdx = 0, parent = #mma1, kWidth = 2}>
#row = #brickgpu.slice<{dim = 1, parent = #mma}>
#row1 = #brickgpu.slice<{dim = 1, parent = #mma1}>
// CHECK: module attributes {brickgpu.num_warps = 8 : i32, brickgpu.producer_warps = 4 : i32}
module attributes {brickgpu.num_warps = 8 : i32} {
  // CHECK-LABEL: func.func @attention
  // CHECK-NOT: brick.descriptor_load
  // CHECK: %[[RK:.*]] = brickgpu.local_alloc : () -> !brickgpu.memdesc<3x64x128xbf16
  // CHECK: %[[RV:.*]] = brickgpu.local_alloc : () -> !brickgpu.memdesc<3x64x128xbf16
  // CHECK: %[[FULL:.*]] = brickgpu.local_alloc : () -> !brickgpu.memdesc<3x1xi64
  // CHECK: %[[EMPTY:.*]] = brickgpu.local_alloc : () -> !brickgpu.memdesc<3x1xi64
  // CHECK: brickgpu.warp_specialize {
  // CHECK: %[[P1:.*]]:2 = scf.for %{{.*}} = %c0_i32 to %[[MID:[^ ]*]] step %c64_i32 iter_args(%{{.*}} = %c0_i32{{.*}}, %{{.*}} = %c0_i32{{.*}})
  // CHECK-COUNT-2: brickgpu.async_tma_copy_global_to_local
  // CHECK: scf.for %{{.*}} = %[[MID]] to %arg5 step %c64_i32 iter_args(%{{.*}} = %[[P1]]#0, %{{.*}} = %[[P1]]#1)
  // CHECK-COUNT-2: brickgpu.async_tma_copy_global_to_local
  // CHECK: brickgpu.warp_return
  // CHECK: brickgpu.set_max_registers 232 {increase}
  // CHECK-NEXT: %[[Q:.*]] = brick.descriptor_load %{{.*}} : !brick.tensordesc<128x128xbf16>
  // CHECK-NEXT: %[[QN:.*]] = arith.negf %[[Q]]
  // CHECK-NEXT: %[[QS:.*]] = brickgpu.local_alloc %[[QN]]
  // CHECK: %[[C1:.*]]:4 = scf.for {{.*}} iter_args({{.*}}, %[[S:[^ ]*]] = %c0_i32{{.*}}, %[[PH:[^ ]*]] = %c0_i32{{.*}})
  // CHECK: %[[F:.*]] = brickgpu.memdesc_index %[[FULL]][%[[S]]]
  // CHECK-NEXT: brickgpu.wait_barrier %[[F]], %[[PH]] :
  // CHECK: brickgpu.warpgroup_dot %[[QS]], %{{.*}}, %{{.*}} : !brickgpu.memdesc<128x128xbf16
  // CHECK-NOT: isAsync
  // CHECK: %[[PV:.*]] = brickgpu.warpgroup_dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<128x64xbf16, #dot_op>
  // CHECK-NOT: isAsync
  // CHECK: %[[E:.*]] = brickgpu.memdesc_index %[[EMPTY]][%[[S]]]
  // CHECK-NEXT: brickgpu.barrier_arrive %[[E]], %true
  // CHECK: scf.yield %[[PV]]
  // CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[C1]]#0, %{{.*}} = %[[C1]]#1, %{{.*}} = %[[C1]]#2, %{{.*}} = %[[C1]]#3)
  // CHECK: brickgpu.barrier_arrive
  // CHECK: brickgpu.barrier
  // CHECK-COUNT-6: brickgpu.inval_barrier
  func.func @attention(%p: !brick.ptr<bf16>, %mapQ: !brick.tensormap, %mapK: !brick.tensormap, %mapV: !brick.tensormap,
                       %mid: i32, %end: i32, %s: i64, %scale: f32) attributes {brick.kernel} {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %c1_i64 = arith.constant 1 : i64
    %zeroS = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #mma>
    %zeroO = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma1>
    %low = arith.constant dense<0xFF800000> : tensor<128xf32, #row>
    %dq = brick.make_tensor_descriptor %p, [%end, %end], [%s, %c1_i64], %mapQ : !brick.ptr<bf16> -> !brick.tensordesc<128x128xbf16>
    %dk = brick.make_tensor_descriptor %p, [%end, %end], [%s, %c1_i64], %mapK : !brick.ptr<bf16> -> !brick.tensordesc<64x128xbf16>
    %dv = brick.make_tensor_descriptor %p, [%end, %end], [%s, %c1_i64], %mapV : !brick.ptr<bf16> -> !brick.tensordesc<64x128xbf16>
    %q = brick.descriptor_load %dq[%c0, %c0] : !brick.tensordesc<128x128xbf16> -> tensor<128x128xbf16, #rows>
    %qn = arith.negf %q : tensor<128x128xbf16, #rows>
    %qs = brickgpu.local_alloc %qn : (tensor<128x128xbf16, #rows>) -> !brickgpu.memdesc<128x128xbf16, #k>
    %r1:2 = scf.for %j = %c0 to %mid step %c64 iter_args(%acc = %zeroO, %m = %low) -> (tensor<128x128xf32, #mma1>, tensor<128xf32, #row>) : i32 {
      %kb = brick.descriptor_load %dk[%j, %c0] : !brick.tensordesc<64x128xbf16> -> tensor<64x128xbf16, #rows>
      %ks = brickgpu.local_alloc %kb : (tensor<64x128xbf16, #rows>) -> !brickgpu.memdesc<64x128xbf16, #k>
      %kt = brickgpu.memdesc_trans %ks : !brickgpu.memdesc<64x128xbf16, #k> -> !brickgpu.memdesc<128x64xbf16, #kt>
      %sc = brickgpu.warpgroup_dot %qs, %kt, %zeroS : !brickgpu.memdesc<128x128xbf16, #k>, !brickgpu.memdesc<128x64xbf16, #kt> -> tensor<128x64xf32, #mma>
      %mx = brick.reduce(%sc) axis = 1 : (tensor<128x64xf32, #mma>) -> tensor<128xf32, #row> {
      ^bb0(%a: f32, %b: f32):
        %x = arith.maxnumf %a, %b : f32
        brick.reduce.return %x : f32
      }
      %nm = arith.maxnumf %m, %mx : tensor<128xf32, #row>
      %e = math.exp2 %sc : tensor<128x64xf32, #mma>
      %pb = arith.truncf %e : tensor<128x64xf32, #mma> to tensor<128x64xbf16, #mma>
      %pa = brickgpu.convert_layout %pb : tensor<128x64xbf16, #mma> -> tensor<128x64xbf16, #p>
      %vb = brick.descriptor_load %dv[%j, %c0] : !brick.tensordesc<64x128xbf16> -> tensor<64x128xbf16, #rows>
      %vs = brickgpu.local_alloc %vb : (tensor<64x128xbf16, #rows>) -> !brickgpu.memdesc<64x128xbf16, #k>
      %o = brickgpu.warpgroup_dot %pa, %vs, %acc : tensor<128x64xbf16, #p>, !brickgpu.memdesc<64x128xbf16, #k> -> tensor<128x128xf32, #mma1>
      scf.yield %o, %nm : tensor<128x128xf32, #mma1>, tensor<128xf32, #row>
    }
    %r2:2 = scf.for %j = %mid to %end step %c64 iter_args(%acc = %r1#0, %m = %r1#1) -> (tensor<128x128xf32, #mma1>, tensor<128xf32, #row>) : i32 {
      %kb = brick.descriptor_load %dk[%j, %c0] : !brick.tensordesc<64x128xbf16> -> tensor<64x128xbf16, #rows>
      %ks = brickgpu.local_alloc %kb : (tensor<64x128xbf16, #rows>) -> !brickgpu.memdesc<64x128xbf16, #k>
      %kt = brickgpu.memdesc_trans %ks : !brickgpu.memdesc<64x128xbf16, #k> -> !brickgpu.memdesc<128x64xbf16, #kt>
      %sc = brickgpu.warpgroup_dot %qs, %kt, %zeroS : !brickgpu.memdesc<128x128xbf16, #k>, !brickgpu.memdesc<128x64xbf16, #kt> -> tensor<128x64xf32, #mma>
      %e = math.exp2 %sc : tensor<128x64xf32, #mma>
      %pb = arith.truncf %e : tensor<128x64xf32, #mma> to tensor<128x64xbf16, #mma>
      %pa = brickgpu.convert_layout %pb : tensor<128x64xbf16, #mma> -> tensor<128x64xbf16, #p>
      %vb = brick.descriptor_load %dv[%j, %c0] : !brick.tensordesc<64x128xbf16> -> tensor<64x128xbf16, #rows>
      %vs = brickgpu.local_alloc %vb : (tensor<64x128xbf16, #rows>) -> !brickgpu.memdesc<64x128xbf16, #k>
      %o = brickgpu.warpgroup_dot %pa, %vs, %acc : tensor<128x64xbf16, #p>, !brickgpu.memdesc<64x128xbf16, #k> -> tensor<128x128xf32, #mma1>
      scf.yield %o, %m : tensor<128x128xf32, #mma1>, tensor<128xf32, #row>
    }
    %out = brick.splat %p : tensor<128x128x!brick.ptr<bf16>, #mma1>
    %ob = arith.truncf %r2#0 : tensor<128x128xf32, #mma1> to tensor<128x128xbf16, #mma1>
    brick.store %out, %ob : tensor<128x128x!brick.ptr<bf16>, #mma1>
    return
  }
}

// -----

// A loop bound read through a pointer the kernel writes: the producer, running ahead, could read it before the
// write. The loops stay whole.
#mma = #brickgpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
#mma1 = #brickgpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128]}>
#rows = #brickgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
#k = #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#kt = #brickgpu.nvmma_shared<{swizzle = 128, order = [0, 1]}>
#p = #brickgpu.dot_op<{opIdx = 0, parent = #mma1, kWidth = 2}>
// CHECK-LABEL: func.func @bound_written
// CHECK-NOT: brickgpu.warp_specialize
module attributes {brickgpu.num_warps = 4 : i32} {
  func.func @bound_written(%p: !brick.ptr<bf16>, %mapQ: !brick.tensormap, %mapK: !brick.tensormap, %bound: !brick.ptr<i32>,
                           %end: i32, %s: i64) attributes {brick.kernel} {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %c1_i64 = arith.constant 1 : i64
    %zeroS = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    %zeroO = arith.constant dense<0.000000e+00> : tensor<64x128xf32, #mma1>
    %dq = brick.make_tensor_descriptor %p, [%end, %end], [%s, %c1_i64], %mapQ : !brick.ptr<bf16> -> !brick.tensordesc<64x128xbf16>
    %dk = brick.make_tensor_descriptor %p, [%end, %end], [%s, %c1_i64], %mapK : !brick.ptr<bf16> -> !brick.tensordesc<64x128xbf16>
    %q = brick.descriptor_load %dq[%c0, %c0] : !brick.tensordesc<64x128xbf16> -> tensor<64x128xbf16, #rows>
    %qs = brickgpu.local_alloc %q : (tensor<64x128xbf16, #rows>) -> !brickgpu.memdesc<64x128xbf16, #k>
    %hi = brick.load %bound : !brick.ptr<i32>
    %r = scf.for %j = %c0 to %hi step %c64 iter_args(%acc = %zeroO) -> (tensor<64x128xf32, #mma1>) : i32 {
      %kb = brick.descriptor_load %dk[%j, %c0] : !brick.tensordesc<64x128xbf16> -> tensor<64x128xbf16, #rows>
      %ks = brickgpu.local_alloc %kb : (tensor<64x128xbf16, #rows>) -> !brickgpu.memdesc<64x128xbf16, #k>
      %kt = brickgpu.memdesc_trans %ks : !brickgpu.memdesc<64x128xbf16, #k> -> !brickgpu.memdesc<128x64xbf16, #kt>
      %sc = brickgpu.warpgroup_dot %qs, %kt, %zeroS : !brickgpu.memdesc<64x128xbf16, #k>, !brickgpu.memdesc<128x64xbf16, #kt> -> tensor<64x64xf32, #mma>
      %pb = arith.truncf %sc : tensor<64x64xf32, #mma> to tensor<64x64xbf16, #mma>
      %pa = brickgpu.convert_layout %pb : tensor<64x64xbf16, #mma> -> tensor<64x64xbf16, #p>
      %o = brickgpu.warpgroup_dot %pa, %ks, %acc : tensor<64x64xbf16, #p>, !brickgpu.memdesc<64x128xbf16, #k> -> tensor<64x128xf32, #mma1>
      scf.yield %o : tensor<64x128xf32, #mma1>
    }
    %c1 = arith.constant 1 : i32
    brick.store %bound, %c1 : !brick.ptr<i32>
    return
  }
}

// -----

// One loop whose dot completes in place (DeepSeek-V3's promotion: each step's product scaled into the
// accumulator) and that reads its scales with plain loads, followed by a store: it splits. The consumers run the
// loads (before the split, and in their loop) and release each slot after the dot; the producer only copies.
#mma = #brickgpu.mma<{version = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>
#rows = #brickgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [8, 1], order = [1, 0]}>
#row = #brickgpu.slice<{dim = 1, parent = #mma}>
#a = #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#bt = #brickgpu.nvmma_shared<{swizzle = 128, order = [0, 1]}>
module attributes {brickgpu.num_warps = 8 : i32} {
  // CHECK-LABEL: func.func @promotion
  // CHECK: brickgpu.warp_specialize {
  // CHECK: scf.for
  // CHECK-NOT: brick.load
  // CHECK-COUNT-2: brickgpu.async_tma_copy_global_to_local
  // CHECK: brickgpu.warp_return
  // CHECK: brickgpu.set_max_registers 232 {increase}
  // CHECK: brick.load
  // CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %[[S:[^ ]*]] = %c0_i32{{.*}}, %{{.*}} = %c0_i32{{.*}})
  // CHECK: brickgpu.wait_barrier
  // CHECK: brick.load {{.*}} : tensor<128x!brick.ptr<f32>, #{{.*}}>
  // CHECK: brick.load {{.*}} : !brick.ptr<f32>
  // CHECK: %[[D:.*]] = brickgpu.warpgroup_dot
  // CHECK-NOT: isAsync
  // CHECK: %[[E:.*]] = brickgpu.memdesc_index %{{.*}}[%[[S]]]
  // CHECK-NEXT: brickgpu.barrier_arrive %[[E]], %true
  // CHECK: math.fma %[[D]]
  // CHECK: scf.yield
  // CHECK: brick.store
  func.func @promotion(%out: !brick.ptr<f32>, %codes: !brick.ptr<f8E4M3FN>, %scaleA: !brick.ptr<f32>, %scaleB: !brick.ptr<f32>, %mapA: !brick.tensormap,
                       %mapB: !brick.tensormap, %m: i32, %steps: i32, %s: i64) attributes {brick.kernel} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c128 = arith.constant 128 : i32
    %c1_i64 = arith.constant 1 : i64
    %zero = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
    %da = brick.make_tensor_descriptor %codes, [%m, %m], [%s, %c1_i64], %mapA : !brick.ptr<f8E4M3FN> -> !brick.tensordesc<128x128xf8E4M3FN>
    %db = brick.make_tensor_descriptor %codes, [%m, %m], [%s, %c1_i64], %mapB : !brick.ptr<f8E4M3FN> -> !brick.tensordesc<128x128xf8E4M3FN>
    %rows = brick.make_range 0, 128 : tensor<128xi32, #row>
    %base = brick.splat %scaleA : tensor<128x!brick.ptr<f32>, #row>
    %first = brick.addptr %base, %rows : tensor<128x!brick.ptr<f32>, #row>, tensor<128xi32, #row>
    %s0 = brick.load %first : tensor<128x!brick.ptr<f32>, #row>
    %r:2 = scf.for %k = %c0 to %steps step %c1 iter_args(%acc = %zero, %sc = %s0) -> (tensor<128x128xf32, #mma>, tensor<128xf32, #row>) : i32 {
      %kn = arith.addi %k, %c1 : i32
      %off = arith.muli %kn, %m : i32
      %at = brick.splat %off : tensor<128xi32, #row>
      %next = arith.addi %rows, %at : tensor<128xi32, #row>
      %ptrs = brick.addptr %base, %next : tensor<128x!brick.ptr<f32>, #row>, tensor<128xi32, #row>
      %rowScales = brick.load %ptrs : tensor<128x!brick.ptr<f32>, #row>
      %bp = brick.addptr %scaleB, %kn : !brick.ptr<f32>, i32
      %b = brick.load %bp : !brick.ptr<f32>
      %bs = brick.splat %b : tensor<128xf32, #row>
      %sn = arith.mulf %rowScales, %bs : tensor<128xf32, #row>
      %kk = arith.muli %k, %c128 : i32
      %x = brick.descriptor_load %da[%c0, %kk] : !brick.tensordesc<128x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN, #rows>
      %y = brick.descriptor_load %db[%c0, %kk] : !brick.tensordesc<128x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN, #rows>
      %xa = brickgpu.local_alloc %x : (tensor<128x128xf8E4M3FN, #rows>) -> !brickgpu.memdesc<128x128xf8E4M3FN, #a>
      %yb = brickgpu.local_alloc %y : (tensor<128x128xf8E4M3FN, #rows>) -> !brickgpu.memdesc<128x128xf8E4M3FN, #a>
      %yt = brickgpu.memdesc_trans %yb : !brickgpu.memdesc<128x128xf8E4M3FN, #a> -> !brickgpu.memdesc<128x128xf8E4M3FN, #bt>
      %d = brickgpu.warpgroup_dot %xa, %yt, %zero : !brickgpu.memdesc<128x128xf8E4M3FN, #a>, !brickgpu.memdesc<128x128xf8E4M3FN, #bt> -> tensor<128x128xf32, #mma>
      %col = brick.expand_dims %sc {axis = 1 : i32} : tensor<128xf32, #row> -> tensor<128x1xf32, #mma>
      %wide = brick.broadcast %col : tensor<128x1xf32, #mma> -> tensor<128x128xf32, #mma>
      %acc1 = math.fma %d, %wide, %acc : tensor<128x128xf32, #mma>
      scf.yield %acc1, %sn : tensor<128x128xf32, #mma>, tensor<128xf32, #row>
    }
    %o = brick.splat %out : tensor<128x128x!brick.ptr<f32>, #mma>
    brick.store %o, %r#0 : tensor<128x128x!brick.ptr<f32>, #mma>
    return
  }
}

// -----

// A K loop in a tile loop that reads memory with a plain load stays whole: the previous tile's store would move
// into the K steps, after loads that ran after it (here of the very memory it writes).
// CHECK-LABEL: func.func @reads_output_in_k_loop
// CHECK-NOT: brickgpu.warp_specialize
#mma = #brickgpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128]}>
#rows = #brickgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#a = #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
module attributes {brickgpu.num_warps = 4 : i32} {
  func.func @reads_output_in_k_loop(%p: !brick.ptr<f16>, %map: !brick.tensormap, %m: i32, %kTiles: i32,
                                         %s: i64, %first: i32, %tiles: i32, %programs: i32,
                                         %out: !brick.ptr<f32>, %outMap: !brick.tensormap) attributes {brick.kernel} {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c1_i64 = arith.constant 1 : i64
    %f0 = arith.constant 0.0 : f32
    %zero = arith.constant dense<0.000000e+00> : tensor<64x128xf32, #mma>
    %da = brick.make_tensor_descriptor %p, [%m, %m], [%s, %c1_i64], %map : !brick.ptr<f16> -> !brick.tensordesc<64x128xf16>
    %db = brick.make_tensor_descriptor %p, [%m, %m], [%s, %c1_i64], %map : !brick.ptr<f16> -> !brick.tensordesc<128x128xf16>
    %dout = brick.make_tensor_descriptor %out, [%m, %m], [%s, %c1_i64], %outMap : !brick.ptr<f32> -> !brick.tensordesc<64x128xf32>
    scf.for %t = %first to %tiles step %programs : i32 {
      %acc:2 = scf.for %k = %c0 to %kTiles step %c1 iter_args(%c = %zero, %sum = %f0) -> (tensor<64x128xf32, #mma>, f32) : i32 {
        %x = brick.descriptor_load %da[%t, %k] : !brick.tensordesc<64x128xf16> -> tensor<64x128xf16, #rows>
        %xa = brickgpu.local_alloc %x : (tensor<64x128xf16, #rows>) -> !brickgpu.memdesc<64x128xf16, #a>
        %y = brick.descriptor_load %db[%k, %m] : !brick.tensordesc<128x128xf16> -> tensor<128x128xf16, #rows>
        %yb = brickgpu.local_alloc %y : (tensor<128x128xf16, #rows>) -> !brickgpu.memdesc<128x128xf16, #a>
        %d = brickgpu.warpgroup_dot %xa, %yb, %c : !brickgpu.memdesc<64x128xf16, #a>, !brickgpu.memdesc<128x128xf16, #a> -> tensor<64x128xf32, #mma>
        %q = brick.addptr %out, %k : !brick.ptr<f32>, i32
        %v = brick.load %q : !brick.ptr<f32>
        %sum1 = arith.addf %sum, %v : f32
        scf.yield %d, %sum1 : tensor<64x128xf32, #mma>, f32
      }
      %bs = brick.splat %acc#1 : tensor<64x128xf32, #mma>
      %r = arith.addf %acc#0, %bs : tensor<64x128xf32, #mma>
      brick.descriptor_store %dout[%t, %c0], %r : !brick.tensordesc<64x128xf32>, tensor<64x128xf32, #mma>
    }
    return
  }
}
