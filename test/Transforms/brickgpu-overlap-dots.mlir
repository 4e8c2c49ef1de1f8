// A wgmma dot whose result is read only after another dot is issued goes asynchronous, and so does that dot:
// each waits right before the first op that reads its result or may write memory, leaving pending the groups
// committed after it.
// RUN: brick-opt %s -split-input-file -brickgpu-overlap-dots | FileCheck %s

#mma = #brickgpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
#slice = #brickgpu.slice<{dim = 1, parent = #mma}>
#dot_a = #brickgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#rows = #brickgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#a = #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
module attributes {brickgpu.num_warps = 4 : i32} {
  // The next block's scores, this block's P V, then the softmax of the scores: the scores' wait lets P V run on
  // (pendings 1), P V's comes at the end.
  // CHECK-LABEL: func.func @rotated_step
  // CHECK: %[[S:.*]] = brickgpu.warpgroup_dot %{{.*}} {isAsync}
  // CHECK-NEXT: %[[O:.*]] = brickgpu.warpgroup_dot %{{.*}} {isAsync}
  // CHECK-NEXT: %[[SW:.*]] = brickgpu.warpgroup_dot_wait %[[S]] {pendings = 1 : i32}
  // CHECK-NEXT: brick.reduce(%[[SW]])
  // CHECK: math.exp2
  // CHECK: %[[OW:.*]] = brickgpu.warpgroup_dot_wait %[[O]] {pendings = 0 : i32}
  // CHECK-NEXT: return %[[OW]], %{{.*}}
  func.func @rotated_step(%q: !brickgpu.memdesc<64x64xf16, #a>, %k: !brickgpu.memdesc<64x64xf16, #a>,
                          %p: tensor<64x64xf16, #dot_a>, %v: !brickgpu.memdesc<64x64xf16, #a>,
                          %acc: tensor<64x64xf32, #mma>) -> (tensor<64x64xf32, #mma>, tensor<64xf32, #slice>) {
    %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    %s = brickgpu.warpgroup_dot %q, %k, %zero : !brickgpu.memdesc<64x64xf16, #a>, !brickgpu.memdesc<64x64xf16, #a> -> tensor<64x64xf32, #mma>
    %o = brickgpu.warpgroup_dot %p, %v, %acc : tensor<64x64xf16, #dot_a>, !brickgpu.memdesc<64x64xf16, #a> -> tensor<64x64xf32, #mma>
    %m = brick.reduce(%s) axis = 1 : (tensor<64x64xf32, #mma>) -> tensor<64xf32, #slice> {
    ^bb0(%x: f32, %y: f32):
      %r = arith.maxnumf %x, %y : f32
      brick.reduce.return %r : f32
    }
    %e = math.exp2 %m : tensor<64xf32, #slice>
    return %o, %e : tensor<64x64xf32, #mma>, tensor<64xf32, #slice>
  }

  // A store to shared memory between them (a buffer the first dot may still read): the first waits before it;
  // the second, with nothing issued in its way, stays synchronous. A dot read at once stays so too.
  // CHECK-LABEL: func.func @store_between
  // CHECK: %[[S:.*]] = brickgpu.warpgroup_dot
  // CHECK-NOT: isAsync
  // CHECK-NOT: warpgroup_dot_wait
  // CHECK: brickgpu.local_store
  // CHECK: brickgpu.warpgroup_dot
  // CHECK-NOT: isAsync
  // CHECK-NOT: warpgroup_dot_wait
  // CHECK: return
  func.func @store_between(%q: !brickgpu.memdesc<64x64xf16, #a>, %k: !brickgpu.memdesc<64x64xf16, #a>,
                           %x: tensor<64x64xf16, #rows>, %acc: tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma> {
    %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    %s = brickgpu.warpgroup_dot %q, %k, %zero : !brickgpu.memdesc<64x64xf16, #a>, !brickgpu.memdesc<64x64xf16, #a> -> tensor<64x64xf32, #mma>
    brickgpu.local_store %x, %k : tensor<64x64xf16, #rows> -> !brickgpu.memdesc<64x64xf16, #a>
    %o = brickgpu.warpgroup_dot %q, %k, %s : !brickgpu.memdesc<64x64xf16, #a>, !brickgpu.memdesc<64x64xf16, #a> -> tensor<64x64xf32, #mma>
    %sum = arith.addf %o, %acc : tensor<64x64xf32, #mma>
    return %sum : tensor<64x64xf32, #mma>
  }
}
