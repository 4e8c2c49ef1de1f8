// Loads that fill a loop's shared buffers become cp.async copies into a ring, num-stages - 1 iterations ahead.
// RUN: brick-opt %s -split-input-file -brickgpu-pipeline=num-stages=3 | FileCheck %s
// RUN: brick-opt %s -split-input-file -brickgpu-pipeline=num-stages=1 | FileCheck %s --check-prefix=OFF

#b = #brickgpu.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#s = #brickgpu.shared<{vec = 8, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {brickgpu.num_warps = 4 : i32} {
  // CHECK-LABEL: func.func @stream
  // CHECK: %[[RING:.*]] = brickgpu.local_alloc : () -> !brickgpu.memdesc<3x1024xf16, #{{.*}}>
  // The ring may reuse bytes read before the loop: a barrier before the first copy.
  // CHECK-NEXT: brickgpu.barrier
  // Prologue: iterations 0 and 1 into slots 0 and 1, each masked to the loop's range and its own group; the
  // pointers advance by the loop's own update.
  // CHECK: %[[NEXT:.*]] = brick.addptr %[[FIRST:.*]], %{{.*}}
  // CHECK: %[[IN0:.*]] = arith.cmpi slt, %c0_i32, %arg1 : i32
  // CHECK: %[[M0:.*]] = brick.splat %[[IN0]] : tensor<1024xi1, #{{.*}}>
  // CHECK: %[[K0:.*]] = arith.andi %{{.*}}, %[[M0]]
  // CHECK: %[[S0:.*]] = brickgpu.memdesc_index %[[RING]][%{{.*}}]
  // CHECK: brickgpu.async_copy_global_to_local %[[FIRST]], %[[S0]] mask %[[K0]]
  // CHECK-NEXT: brickgpu.async_commit_group
  // CHECK: %[[AHEAD:.*]] = brick.addptr %[[NEXT]], %{{.*}}
  // CHECK: %[[S1:.*]] = brickgpu.memdesc_index %[[RING]][%{{.*}}]
  // CHECK: brickgpu.async_copy_global_to_local %[[NEXT]], %[[S1]] mask
  // CHECK-NEXT: brickgpu.async_commit_group
  // The loop carries the pointers of iteration i + 2 and the slot it reads.
  // CHECK: scf.for %[[I:.*]] = %c0_i32 to %arg1 step %c1_i32 iter_args(%[[ACC:.*]] = %{{.*}}, %{{.*}} = %[[FIRST]], %[[P:.*]] = %[[AHEAD]], %[[SLOT:.*]] = %{{.*}})
  // CHECK-NEXT: brickgpu.async_wait {pending = 1 : i32}
  // CHECK-NEXT: brickgpu.barrier
  // The slot written: (slot + 2) % 3.
  // CHECK: %[[SUM:.*]] = arith.addi %[[SLOT]], %c2_i32{{.*}} : i32
  // CHECK: %[[WRAPS:.*]] = arith.cmpi sge, %[[SUM]], %c3_i32{{.*}} : i32
  // CHECK: %[[WRITE:.*]] = arith.select %[[WRAPS]], %{{.*}}, %[[SUM]] : i32
  // CHECK: %[[AT:.*]] = arith.addi %[[I]], %{{.*}} : i32
  // CHECK: arith.cmpi slt, %[[AT]], %arg1 : i32
  // CHECK: %[[INTO:.*]] = brickgpu.memdesc_index %[[RING]][%[[WRITE]]]
  // CHECK: brickgpu.async_copy_global_to_local %[[P]], %[[INTO]] mask
  // CHECK-NEXT: brickgpu.async_commit_group
  // CHECK: %[[READ:.*]] = brickgpu.memdesc_index %[[RING]][%[[SLOT]]]
  // CHECK: brickgpu.local_load %[[READ]]
  // CHECK-NOT: brick.load
  // CHECK: scf.yield
  // Every copy lands before the ring's bytes can be reused.
  // CHECK: brickgpu.async_wait %[[RING]] : !brickgpu.memdesc<3x1024xf16, #{{.*}}> {pending = 0 : i32}
  // CHECK-NEXT: brickgpu.barrier
  // OFF-LABEL: func.func @stream
  // OFF-NOT: async
  // OFF: brick.load
  func.func @stream(%p: !brick.ptr<f16> {brick.divisibility = 16 : i32}, %n: i32, %limit: i32 {brick.divisibility = 16 : i32}) -> tensor<1024xf16, #b> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c1024 = arith.constant 1024 : i32
    %r = brick.make_range 0, 1024 : tensor<1024xi32, #b>
    %ps = brick.splat %p : tensor<1024x!brick.ptr<f16>, #b>
    %ptrs = brick.addptr %ps, %r : tensor<1024x!brick.ptr<f16>, #b>, tensor<1024xi32, #b>
    %init = arith.constant dense<0.0> : tensor<1024xf16, #b>
    %step = arith.constant dense<1024> : tensor<1024xi32, #b>
    %out:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init, %q = %ptrs) -> (tensor<1024xf16, #b>, tensor<1024x!brick.ptr<f16>, #b>) : i32 {
      %done = arith.muli %i, %c1024 : i32
      %left = arith.subi %limit, %done : i32
      %lefts = brick.splat %left : tensor<1024xi32, #b>
      %m = arith.cmpi slt, %r, %lefts : tensor<1024xi32, #b>
      %x = brick.load %q, %m, %init : tensor<1024x!brick.ptr<f16>, #b>
      %buf = brickgpu.local_alloc %x : (tensor<1024xf16, #b>) -> !brickgpu.memdesc<1024xf16, #s>
      %y = brickgpu.local_load %buf : !brickgpu.memdesc<1024xf16, #s> -> tensor<1024xf16, #b>
      %sum = arith.addf %acc, %y : tensor<1024xf16, #b>
      %q2 = brick.addptr %q, %step : tensor<1024x!brick.ptr<f16>, #b>, tensor<1024xi32, #b>
      scf.yield %sum, %q2 : tensor<1024xf16, #b>, tensor<1024x!brick.ptr<f16>, #b>
    }
    return %out#0 : tensor<1024xf16, #b>
  }
}

// -----

// Loads that cannot become cp.async stay: `other` is not zero (zero fill cannot give it), or nothing proves more
// than 2 contiguous bytes (an f16 pointer of unknown alignment).
#b = #brickgpu.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#s = #brickgpu.shared<{vec = 8, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {brickgpu.num_warps = 4 : i32} {
  // CHECK-LABEL: func.func @stays
  // CHECK-NOT: async
  // CHECK: brick.load
  // CHECK: brick.load
  func.func @stays(%p: !brick.ptr<f16> {brick.divisibility = 16 : i32}, %u: !brick.ptr<f16>, %n: i32) -> tensor<1024xf16, #b> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = brick.make_range 0, 1024 : tensor<1024xi32, #b>
    %ps = brick.splat %p : tensor<1024x!brick.ptr<f16>, #b>
    %ptrs = brick.addptr %ps, %r : tensor<1024x!brick.ptr<f16>, #b>, tensor<1024xi32, #b>
    %us = brick.splat %u : tensor<1024x!brick.ptr<f16>, #b>
    %uptrs = brick.addptr %us, %r : tensor<1024x!brick.ptr<f16>, #b>, tensor<1024xi32, #b>
    %init = arith.constant dense<0.0> : tensor<1024xf16, #b>
    %one = arith.constant dense<1.0> : tensor<1024xf16, #b>
    %true = arith.constant dense<true> : tensor<1024xi1, #b>
    %out = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (tensor<1024xf16, #b>) : i32 {
      %x = brick.load %ptrs, %true, %one : tensor<1024x!brick.ptr<f16>, #b>
      %buf = brickgpu.local_alloc %x : (tensor<1024xf16, #b>) -> !brickgpu.memdesc<1024xf16, #s>
      %y = brickgpu.local_load %buf : !brickgpu.memdesc<1024xf16, #s> -> tensor<1024xf16, #b>
      %z = brick.load %uptrs : tensor<1024x!brick.ptr<f16>, #b>
      %buf2 = brickgpu.local_alloc %z : (tensor<1024xf16, #b>) -> !brickgpu.memdesc<1024xf16, #s>
      %w = brickgpu.local_load %buf2 : !brickgpu.memdesc<1024xf16, #s> -> tensor<1024xf16, #b>
      %s1 = arith.addf %acc, %y : tensor<1024xf16, #b>
      %s2 = arith.addf %s1, %w : tensor<1024xf16, #b>
      scf.yield %s2 : tensor<1024xf16, #b>
    }
    return %out : tensor<1024xf16, #b>
  }
}

// -----

// Loop values that yield one another (a swap) or the induction variable: the copies ahead follow them.
#b = #brickgpu.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#s = #brickgpu.shared<{vec = 8, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {brickgpu.num_warps = 4 : i32} {
  // CHECK-LABEL: func.func @swap
  // CHECK: scf.for
  // CHECK: brickgpu.async_copy_global_to_local
  // CHECK: scf.yield
  func.func @swap(%p: !brick.ptr<f16> {brick.divisibility = 16 : i32}, %n: i32) -> tensor<1024xf16, #b> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = brick.make_range 0, 1024 : tensor<1024xi32, #b>
    %ps = brick.splat %p : tensor<1024x!brick.ptr<f16>, #b>
    %ptrs = brick.addptr %ps, %r : tensor<1024x!brick.ptr<f16>, #b>, tensor<1024xi32, #b>
    %step = arith.constant dense<1024> : tensor<1024xi32, #b>
    %other = brick.addptr %ptrs, %step : tensor<1024x!brick.ptr<f16>, #b>, tensor<1024xi32, #b>
    %init = arith.constant dense<0.0> : tensor<1024xf16, #b>
    %out:4 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init, %q = %ptrs, %q2 = %other, %j = %c0) -> (tensor<1024xf16, #b>, tensor<1024x!brick.ptr<f16>, #b>, tensor<1024x!brick.ptr<f16>, #b>, i32) : i32 {
      %c1024 = arith.constant 1024 : i32
      %jk = arith.muli %j, %c1024 : i32
      %js = brick.splat %jk : tensor<1024xi32, #b>
      %at = brick.addptr %q, %js : tensor<1024x!brick.ptr<f16>, #b>, tensor<1024xi32, #b>
      %x = brick.load %at : tensor<1024x!brick.ptr<f16>, #b>
      %buf = brickgpu.local_alloc %x : (tensor<1024xf16, #b>) -> !brickgpu.memdesc<1024xf16, #s>
      %y = brickgpu.local_load %buf : !brickgpu.memdesc<1024xf16, #s> -> tensor<1024xf16, #b>
      %sum = arith.addf %acc, %y : tensor<1024xf16, #b>
      scf.yield %sum, %q2, %q, %i : tensor<1024xf16, #b>, tensor<1024x!brick.ptr<f16>, #b>, tensor<1024x!brick.ptr<f16>, #b>, i32
    }
    return %out#0 : tensor<1024xf16, #b>
  }

  // A loop that stores keeps its loads where they are: a load copied ahead would pass the store.
  // CHECK-LABEL: func.func @stores
  // CHECK-NOT: async_copy
  // CHECK: brick.load
  func.func @stores(%p: !brick.ptr<f16> {brick.divisibility = 16 : i32}, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = brick.make_range 0, 1024 : tensor<1024xi32, #b>
    %ps = brick.splat %p : tensor<1024x!brick.ptr<f16>, #b>
    %ptrs = brick.addptr %ps, %r : tensor<1024x!brick.ptr<f16>, #b>, tensor<1024xi32, #b>
    scf.for %i = %c0 to %n step %c1 : i32 {
      %x = brick.load %ptrs : tensor<1024x!brick.ptr<f16>, #b>
      %buf = brickgpu.local_alloc %x : (tensor<1024xf16, #b>) -> !brickgpu.memdesc<1024xf16, #s>
      %y = brickgpu.local_load %buf : !brickgpu.memdesc<1024xf16, #s> -> tensor<1024xf16, #b>
      %z = arith.addf %y, %y : tensor<1024xf16, #b>
      brick.store %ptrs, %z : tensor<1024x!brick.ptr<f16>, #b>
    }
    return
  }
}

// -----

// A wgmma dot that only accumulates across iterations stays in flight into the next one: it becomes asynchronous,
// followed by a wait for all but the newest group (the accumulator passed through it), and a wait for all after
// the loop. Its slot may still be read while the next iteration's copies start, so the copies run S-2 = 1
// iteration ahead: one prologue group, wait_group 0 at the top of the loop, writes into slot (slot + 1) % 3.
#l = #brickgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #brickgpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
#nv = #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
module attributes {brickgpu.num_warps = 4 : i32} {
  // CHECK-LABEL: func.func @wgmma
  // CHECK: %[[RING:.*]] = brickgpu.local_alloc : () -> !brickgpu.memdesc<3x64x64xf16, #{{.*}}>
  // CHECK: brickgpu.async_copy_global_to_local
  // CHECK-NEXT: brickgpu.async_commit_group
  // CHECK-NOT: brickgpu.async_copy_global_to_local
  // CHECK: scf.for
  // CHECK-NEXT: brickgpu.async_wait {pending = 0 : i32}
  // CHECK-NEXT: brickgpu.barrier
  // CHECK: %[[SUM:.*]] = arith.addi %{{.*}}, %c1_i32{{.*}} : i32
  // CHECK: %[[WRAPS:.*]] = arith.cmpi sge, %[[SUM]], %c3_i32 : i32
  // CHECK: brickgpu.async_copy_global_to_local
  // CHECK: %[[D:.*]] = brickgpu.warpgroup_dot %{{.*}}, %{{.*}}, %{{.*}} {isAsync}
  // CHECK-NEXT: %[[W:.*]] = brickgpu.warpgroup_dot_wait %[[D]] {pendings = 1 : i32}
  // CHECK: scf.yield %[[W]]
  // CHECK: %[[LAST:.*]] = brickgpu.warpgroup_dot_wait %{{.*}}#0 {pendings = 0 : i32}
  // CHECK-NEXT: brickgpu.async_wait %[[RING]]
  // CHECK: return %[[LAST]]
  func.func @wgmma(%p: !brick.ptr<f16> {brick.divisibility = 16 : i32}, %n: i32) -> tensor<64x64xf32, #mma> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = brick.make_range 0, 64 : tensor<64xi32, #brickgpu.slice<{dim = 0, parent = #l}>>
    %row = brick.expand_dims %r {axis = 0 : i32} : tensor<64xi32, #brickgpu.slice<{dim = 0, parent = #l}>> -> tensor<1x64xi32, #l>
    %cols = brick.broadcast %row : tensor<1x64xi32, #l> -> tensor<64x64xi32, #l>
    %ps = brick.splat %p : tensor<64x64x!brick.ptr<f16>, #l>
    %ptrs = brick.addptr %ps, %cols : tensor<64x64x!brick.ptr<f16>, #l>, tensor<64x64xi32, #l>
    %step = arith.constant dense<64> : tensor<64x64xi32, #l>
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    %out:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero, %q = %ptrs) -> (tensor<64x64xf32, #mma>, tensor<64x64x!brick.ptr<f16>, #l>) : i32 {
      %x = brick.load %q : tensor<64x64x!brick.ptr<f16>, #l>
      %buf = brickgpu.local_alloc %x : (tensor<64x64xf16, #l>) -> !brickgpu.memdesc<64x64xf16, #nv>
      %d = brickgpu.warpgroup_dot %buf, %buf, %acc : !brickgpu.memdesc<64x64xf16, #nv>, !brickgpu.memdesc<64x64xf16, #nv> -> tensor<64x64xf32, #mma>
      %q2 = brick.addptr %q, %step : tensor<64x64x!brick.ptr<f16>, #l>, tensor<64x64xi32, #l>
      scf.yield %d, %q2 : tensor<64x64xf32, #mma>, tensor<64x64x!brick.ptr<f16>, #l>
    }
    return %out#0 : tensor<64x64xf32, #mma>
  }
}

// -----

// Two wgmma dots in flight (gate and up, one A buffer read by both, each B its own): both become asynchronous, and
// each waits for all but the two newest groups, so that its own previous iteration is done before its slots are
// written again. The shared A is one prefetched load.
#l = #brickgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #brickgpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
#nv = #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
module attributes {brickgpu.num_warps = 4 : i32} {
  // CHECK-LABEL: func.func @two_dots
  // CHECK-COUNT-3: brickgpu.local_alloc : () -> !brickgpu.memdesc<3x64x64xf16
  // CHECK: scf.for
  // CHECK-NOT: brick.load
  // CHECK: %[[G:.*]] = brickgpu.warpgroup_dot %{{.*}}, %{{.*}}, %{{.*}} {isAsync}
  // CHECK-NEXT: brickgpu.warpgroup_dot_wait %[[G]] {pendings = 2 : i32}
  // CHECK: %[[U:.*]] = brickgpu.warpgroup_dot %{{.*}}, %{{.*}}, %{{.*}} {isAsync}
  // CHECK-NEXT: brickgpu.warpgroup_dot_wait %[[U]] {pendings = 2 : i32}
  // CHECK-COUNT-2: brickgpu.warpgroup_dot_wait %{{.*}} {pendings = 0 : i32}
  func.func @two_dots(%p: !brick.ptr<f16> {brick.divisibility = 16 : i32}, %n: i32) -> (tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = brick.make_range 0, 64 : tensor<64xi32, #brickgpu.slice<{dim = 0, parent = #l}>>
    %row = brick.expand_dims %r {axis = 0 : i32} : tensor<64xi32, #brickgpu.slice<{dim = 0, parent = #l}>> -> tensor<1x64xi32, #l>
    %cols = brick.broadcast %row : tensor<1x64xi32, #l> -> tensor<64x64xi32, #l>
    %ps = brick.splat %p : tensor<64x64x!brick.ptr<f16>, #l>
    %ptrs = brick.addptr %ps, %cols : tensor<64x64x!brick.ptr<f16>, #l>, tensor<64x64xi32, #l>
    %step = arith.constant dense<64> : tensor<64x64xi32, #l>
    %far = arith.constant dense<4096> : tensor<64x64xi32, #l>
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    %out:3 = scf.for %i = %c0 to %n step %c1 iter_args(%gate = %zero, %up = %zero, %q = %ptrs) -> (tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>, tensor<64x64x!brick.ptr<f16>, #l>) : i32 {
      %x = brick.load %q : tensor<64x64x!brick.ptr<f16>, #l>
      %a = brickgpu.local_alloc %x : (tensor<64x64xf16, #l>) -> !brickgpu.memdesc<64x64xf16, #nv>
      %qg = brick.addptr %q, %far : tensor<64x64x!brick.ptr<f16>, #l>, tensor<64x64xi32, #l>
      %g = brick.load %qg : tensor<64x64x!brick.ptr<f16>, #l>
      %bg = brickgpu.local_alloc %g : (tensor<64x64xf16, #l>) -> !brickgpu.memdesc<64x64xf16, #nv>
      %d = brickgpu.warpgroup_dot %a, %bg, %gate : !brickgpu.memdesc<64x64xf16, #nv>, !brickgpu.memdesc<64x64xf16, #nv> -> tensor<64x64xf32, #mma>
      %qu = brick.addptr %qg, %far : tensor<64x64x!brick.ptr<f16>, #l>, tensor<64x64xi32, #l>
      %u = brick.load %qu : tensor<64x64x!brick.ptr<f16>, #l>
      %bu = brickgpu.local_alloc %u : (tensor<64x64xf16, #l>) -> !brickgpu.memdesc<64x64xf16, #nv>
      %e = brickgpu.warpgroup_dot %a, %bu, %up : !brickgpu.memdesc<64x64xf16, #nv>, !brickgpu.memdesc<64x64xf16, #nv> -> tensor<64x64xf32, #mma>
      %q2 = brick.addptr %q, %step : tensor<64x64x!brick.ptr<f16>, #l>, tensor<64x64xi32, #l>
      scf.yield %d, %e, %q2 : tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>, tensor<64x64x!brick.ptr<f16>, #l>
    }
    return %out#0, %out#1 : tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>
  }
}

// -----

// A load that reaches the dot's buffer through elementwise work (here scaled, as a dequantized weight is) is staged:
// it fills a ring of its own, laid out as it reads memory (8 halves a copy), each iteration reads its slot back,
// scales it and writes the dot's buffer, which is written in the loop, so the dot stays synchronous.
#l = #brickgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #brickgpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
#nv = #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
module attributes {brickgpu.num_warps = 4 : i32} {
  // CHECK-LABEL: func.func @scaled
  // CHECK: %[[RING:.*]] = brickgpu.local_alloc : () -> !brickgpu.memdesc<3x64x64xf16, #[[STAGE:shared[0-9]*]]>
  // CHECK: scf.for
  // CHECK: brickgpu.async_copy_global_to_local %{{.*}}, %{{.*}} mask %{{.*}} : tensor<64x64x!brick.ptr<f16>, #{{.*}}> -> !brickgpu.memdesc<64x64xf16, #[[STAGE]]>
  // CHECK: %[[SLOT:.*]] = brickgpu.memdesc_index %[[RING]]
  // CHECK: %[[X:.*]] = brickgpu.local_load %[[SLOT]]
  // CHECK: %[[Y:.*]] = arith.mulf %[[X]]
  // CHECK: %[[BUF:.*]] = brickgpu.local_alloc %[[Y]] : (tensor<64x64xf16, #{{.*}}>) -> !brickgpu.memdesc<64x64xf16, #nvmma_shared>
  // CHECK: brickgpu.warpgroup_dot %[[BUF]], %[[BUF]], %{{.*}} :
  // CHECK-NOT: isAsync
  // CHECK-NOT: brick.load
  // CHECK: scf.yield
  func.func @scaled(%p: !brick.ptr<f16> {brick.divisibility = 16 : i32}, %n: i32) -> tensor<64x64xf32, #mma> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = brick.make_range 0, 64 : tensor<64xi32, #brickgpu.slice<{dim = 0, parent = #l}>>
    %row = brick.expand_dims %r {axis = 0 : i32} : tensor<64xi32, #brickgpu.slice<{dim = 0, parent = #l}>> -> tensor<1x64xi32, #l>
    %cols = brick.broadcast %row : tensor<1x64xi32, #l> -> tensor<64x64xi32, #l>
    %ps = brick.splat %p : tensor<64x64x!brick.ptr<f16>, #l>
    %ptrs = brick.addptr %ps, %cols : tensor<64x64x!brick.ptr<f16>, #l>, tensor<64x64xi32, #l>
    %step = arith.constant dense<64> : tensor<64x64xi32, #l>
    %half = arith.constant dense<0.5> : tensor<64x64xf16, #l>
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    %out:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero, %q = %ptrs) -> (tensor<64x64xf32, #mma>, tensor<64x64x!brick.ptr<f16>, #l>) : i32 {
      %x = brick.load %q : tensor<64x64x!brick.ptr<f16>, #l>
      %y = arith.mulf %x, %half : tensor<64x64xf16, #l>
      %buf = brickgpu.local_alloc %y : (tensor<64x64xf16, #l>) -> !brickgpu.memdesc<64x64xf16, #nv>
      %d = brickgpu.warpgroup_dot %buf, %buf, %acc : !brickgpu.memdesc<64x64xf16, #nv>, !brickgpu.memdesc<64x64xf16, #nv> -> tensor<64x64xf32, #mma>
      %q2 = brick.addptr %q, %step : tensor<64x64x!brick.ptr<f16>, #l>, tensor<64x64xi32, #l>
      scf.yield %d, %q2 : tensor<64x64xf32, #mma>, tensor<64x64x!brick.ptr<f16>, #l>
    }
    return %out#0 : tensor<64x64xf32, #mma>
  }
  // With A prefetched into the dot's own ring and B scaled on the way, the dot stays in flight: B's buffer, written
  // every iteration, becomes two taken in turn (the iteration's parity), so that an iteration writes the one the dot
  // of two iterations ago read.
  // CHECK-LABEL: func.func @scaled_b
  // CHECK: %[[PAIR:.*]] = brickgpu.local_alloc : () -> !brickgpu.memdesc<2x64x64xf16, #nvmma_shared>
  // CHECK: scf.for %[[I:[^ ]*]] =
  // CHECK: %[[X:.*]] = brickgpu.local_load
  // CHECK: %[[Y:.*]] = arith.mulf %[[X]]
  // CHECK: %[[PARITY:.*]] = arith.andi %{{.*}}, %c1_i32
  // CHECK: %[[SLOT:.*]] = brickgpu.memdesc_index %[[PAIR]][%[[PARITY]]]
  // CHECK: brickgpu.local_store %[[Y]], %[[SLOT]]
  // CHECK: %[[D:.*]] = brickgpu.warpgroup_dot %{{.*}}, %[[SLOT]], %{{.*}} {isAsync}
  // CHECK-NEXT: brickgpu.warpgroup_dot_wait %[[D]] {pendings = 1 : i32}
  // CHECK: brickgpu.warpgroup_dot_wait %{{.*}} {pendings = 0 : i32}
  // CHECK-NEXT: brickgpu.async_wait %{{.*}}, %{{.*}}, %[[PAIR]]
  func.func @scaled_b(%p: !brick.ptr<f16> {brick.divisibility = 16 : i32}, %n: i32) -> tensor<64x64xf32, #mma> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = brick.make_range 0, 64 : tensor<64xi32, #brickgpu.slice<{dim = 0, parent = #l}>>
    %row = brick.expand_dims %r {axis = 0 : i32} : tensor<64xi32, #brickgpu.slice<{dim = 0, parent = #l}>> -> tensor<1x64xi32, #l>
    %cols = brick.broadcast %row : tensor<1x64xi32, #l> -> tensor<64x64xi32, #l>
    %ps = brick.splat %p : tensor<64x64x!brick.ptr<f16>, #l>
    %ptrs = brick.addptr %ps, %cols : tensor<64x64x!brick.ptr<f16>, #l>, tensor<64x64xi32, #l>
    %step = arith.constant dense<64> : tensor<64x64xi32, #l>
    %half = arith.constant dense<0.5> : tensor<64x64xf16, #l>
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    %out:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero, %q = %ptrs) -> (tensor<64x64xf32, #mma>, tensor<64x64x!brick.ptr<f16>, #l>) : i32 {
      %a = brick.load %q : tensor<64x64x!brick.ptr<f16>, #l>
      %abuf = brickgpu.local_alloc %a : (tensor<64x64xf16, #l>) -> !brickgpu.memdesc<64x64xf16, #nv>
      %x = brick.load %q : tensor<64x64x!brick.ptr<f16>, #l>
      %y = arith.mulf %x, %half : tensor<64x64xf16, #l>
      %bbuf = brickgpu.local_alloc %y : (tensor<64x64xf16, #l>) -> !brickgpu.memdesc<64x64xf16, #nv>
      %d = brickgpu.warpgroup_dot %abuf, %bbuf, %acc : !brickgpu.memdesc<64x64xf16, #nv>, !brickgpu.memdesc<64x64xf16, #nv> -> tensor<64x64xf32, #mma>
      %q2 = brick.addptr %q, %step : tensor<64x64x!brick.ptr<f16>, #l>, tensor<64x64xi32, #l>
      scf.yield %d, %q2 : tensor<64x64xf32, #mma>, tensor<64x64x!brick.ptr<f16>, #l>
    }
    return %out#0 : tensor<64x64xf32, #mma>
  }
  // cp.async fills masked-off elements with +0: a load whose `other` is -0, with work after it that could tell
  // the two apart, is not staged.
  // CHECK-LABEL: func.func @negative_zero_other
  // CHECK-NOT: async_copy
  // CHECK: brick.load
  func.func @negative_zero_other(%p: !brick.ptr<f16> {brick.divisibility = 16 : i32}, %n: i32, %inside: i1) -> tensor<64x64xf32, #mma> {
    %mask = brick.splat %inside : tensor<64x64xi1, #l>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = brick.make_range 0, 64 : tensor<64xi32, #brickgpu.slice<{dim = 0, parent = #l}>>
    %row = brick.expand_dims %r {axis = 0 : i32} : tensor<64xi32, #brickgpu.slice<{dim = 0, parent = #l}>> -> tensor<1x64xi32, #l>
    %cols = brick.broadcast %row : tensor<1x64xi32, #l> -> tensor<64x64xi32, #l>
    %ps = brick.splat %p : tensor<64x64x!brick.ptr<f16>, #l>
    %ptrs = brick.addptr %ps, %cols : tensor<64x64x!brick.ptr<f16>, #l>, tensor<64x64xi32, #l>
    %minus = arith.constant dense<-0.0> : tensor<64x64xf16, #l>
    %one = arith.constant dense<1.0> : tensor<64x64xf16, #l>
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    %out = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<64x64xf32, #mma>) : i32 {
      %x = brick.load %ptrs, %mask, %minus : tensor<64x64x!brick.ptr<f16>, #l>
      %y = arith.divf %one, %x : tensor<64x64xf16, #l>
      %buf = brickgpu.local_alloc %y : (tensor<64x64xf16, #l>) -> !brickgpu.memdesc<64x64xf16, #nv>
      %d = brickgpu.warpgroup_dot %buf, %buf, %acc : !brickgpu.memdesc<64x64xf16, #nv>, !brickgpu.memdesc<64x64xf16, #nv> -> tensor<64x64xf32, #mma>
      scf.yield %d : tensor<64x64xf32, #mma>
    }
    return %out : tensor<64x64xf32, #mma>
  }
  // A load that something else reads too (here the loop's result) is left alone.
  // CHECK-LABEL: func.func @also_returned
  // CHECK-NOT: async_copy
  // CHECK: brick.load
  func.func @also_returned(%p: !brick.ptr<f16> {brick.divisibility = 16 : i32}, %n: i32) -> tensor<64x64xf16, #l> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = brick.make_range 0, 64 : tensor<64xi32, #brickgpu.slice<{dim = 0, parent = #l}>>
    %row = brick.expand_dims %r {axis = 0 : i32} : tensor<64xi32, #brickgpu.slice<{dim = 0, parent = #l}>> -> tensor<1x64xi32, #l>
    %cols = brick.broadcast %row : tensor<1x64xi32, #l> -> tensor<64x64xi32, #l>
    %ps = brick.splat %p : tensor<64x64x!brick.ptr<f16>, #l>
    %ptrs = brick.addptr %ps, %cols : tensor<64x64x!brick.ptr<f16>, #l>, tensor<64x64xi32, #l>
    %half = arith.constant dense<0.5> : tensor<64x64xf16, #l>
    %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    %out:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero, %last = %half) -> (tensor<64x64xf32, #mma>, tensor<64x64xf16, #l>) : i32 {
      %x = brick.load %ptrs : tensor<64x64x!brick.ptr<f16>, #l>
      %y = arith.mulf %x, %half : tensor<64x64xf16, #l>
      %buf = brickgpu.local_alloc %y : (tensor<64x64xf16, #l>) -> !brickgpu.memdesc<64x64xf16, #nv>
      %d = brickgpu.warpgroup_dot %buf, %buf, %acc : !brickgpu.memdesc<64x64xf16, #nv>, !brickgpu.memdesc<64x64xf16, #nv> -> tensor<64x64xf32, #mma>
      scf.yield %d, %y : tensor<64x64xf32, #mma>, tensor<64x64xf16, #l>
    }
    return %out#1 : tensor<64x64xf16, #l>
  }
}
