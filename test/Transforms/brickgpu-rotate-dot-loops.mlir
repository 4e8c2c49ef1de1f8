// An attention loop (scores = Q K^T; a softmax of them; acc = P V + acc * correction) is rotated: S1 (the first
// dot and the softmax) runs one iteration ahead of S2 (the second dot, V's load, the rescaled accumulator), its
// first iteration peeled before the loop and S2's last after it, under lo < hi; P and the correction are carried.
// RUN: brick-opt %s -split-input-file -brickgpu-rotate-dot-loops | FileCheck %s

#rows = #brickgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #brickgpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
#slice = #brickgpu.slice<{dim = 1, parent = #mma}>
#dot_a = #brickgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#a = #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
#kt = #brickgpu.nvmma_shared<{swizzle = 128, order = [0, 1]}>
module attributes {brickgpu.num_warps = 4 : i32} {
  // CHECK-LABEL: func.func @attention
  // CHECK: %[[NONEMPTY:.*]] = arith.cmpi slt, %[[LO:.*]], %[[HI:.*]] : i32
  // CHECK: %[[R:.*]]:2 = scf.if %[[NONEMPTY]]
  // Prologue: S1 of iteration lo (K's block, Q K^T, the softmax); no V.
  // CHECK: brick.descriptor_load %{{.*}}[%[[LO]], %{{.*}}] : !brick.tensordesc<64x64xf16>
  // CHECK: %[[S0:.*]] = brickgpu.warpgroup_dot
  // CHECK: math.exp2
  // CHECK-NOT: brickgpu.warpgroup_dot
  // The loop stops before the original's last iteration, lo + (hi - lo - 1) / step * step.
  // CHECK: %[[SPAN:.*]] = arith.subi %{{.*}}, %c1
  // CHECK: %[[N:.*]] = arith.divsi %[[SPAN]], %[[STEP:.*]] : i32
  // CHECK: %[[LAST:.*]] = arith.addi %[[LO]], %{{.*}} : i32
  // CHECK: %[[LOOP:.*]]:4 = scf.for %[[J:.*]] = %[[LO]] to %[[LAST]] step %[[STEP]] iter_args(%[[ACC:.*]] = %{{.*}}, %[[MAX:.*]] = %{{.*}}, %[[C:.*]] = %{{.*}}, %[[P:.*]] = %{{.*}}) -> (tensor<64x64xf32, #mma>, tensor<64xf32, #slice>, tensor<64xf32, #slice>, tensor<64x64xf16, #mma>)
  // S1 of iteration j + step up to its dot, then S2 of iteration j (V at j, the carried P and correction), then
  // the rest of S1.
  // CHECK-NEXT: %[[AHEAD:.*]] = arith.addi %[[J]], %[[STEP]] : i32
  // CHECK-NEXT: brick.descriptor_load %{{.*}}[%[[AHEAD]], %{{.*}}]
  // CHECK: %[[S:.*]] = brickgpu.warpgroup_dot
  // CHECK-NEXT: %[[PA:.*]] = brickgpu.convert_layout %[[P]] : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #dot_op>
  // CHECK-NEXT: brick.descriptor_load %{{.*}}[%[[J]], %{{.*}}]
  // CHECK: brick.expand_dims %[[C]]
  // CHECK: %[[SCALED:.*]] = arith.mulf %[[ACC]]
  // CHECK: %[[O:.*]] = brickgpu.warpgroup_dot %[[PA]], %{{.*}}, %[[SCALED]]
  // CHECK: brick.reduce(%[[S]])
  // CHECK: math.exp2
  // CHECK: scf.yield %[[O]], %{{.*}}, %{{.*}}, %{{.*}} :
  // Epilogue: S2 of the last iteration.
  // CHECK: brick.descriptor_load %{{.*}}[%[[LAST]], %{{.*}}]
  // CHECK: %[[OUT:.*]] = brickgpu.warpgroup_dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x64xf16, #dot_op>
  // CHECK: scf.yield %[[OUT]], %[[LOOP]]#1
  // CHECK: } else {
  // CHECK: scf.yield %{{.*}}, %{{.*}} :
  // CHECK: return %[[R]]#0
  func.func @attention(%p: !brick.ptr<f16>, %map: !brick.tensormap, %q: !brickgpu.memdesc<64x64xf16, #a>,
                       %lo: i32, %hi: i32, %s: i64) -> tensor<64x64xf32, #mma> {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %c1_i64 = arith.constant 1 : i64
    %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    %ninf = arith.constant dense<0xFF800000> : tensor<64xf32, #slice>
    %dk = brick.make_tensor_descriptor %p, [%hi, %c64], [%s, %c1_i64], %map : !brick.ptr<f16> -> !brick.tensordesc<64x64xf16>
    %dv = brick.make_tensor_descriptor %p, [%hi, %c64], [%s, %c1_i64], %map : !brick.ptr<f16> -> !brick.tensordesc<64x64xf16>
    %r:2 = scf.for %j = %lo to %hi step %c64 iter_args(%acc = %zero, %max = %ninf) -> (tensor<64x64xf32, #mma>, tensor<64xf32, #slice>) : i32 {
      %k = brick.descriptor_load %dk[%j, %c0] : !brick.tensordesc<64x64xf16> -> tensor<64x64xf16, #rows>
      %ka = brickgpu.local_alloc %k : (tensor<64x64xf16, #rows>) -> !brickgpu.memdesc<64x64xf16, #a>
      %kt = brickgpu.memdesc_trans %ka : !brickgpu.memdesc<64x64xf16, #a> -> !brickgpu.memdesc<64x64xf16, #kt>
      %scores = brickgpu.warpgroup_dot %q, %kt, %zero : !brickgpu.memdesc<64x64xf16, #a>, !brickgpu.memdesc<64x64xf16, #kt> -> tensor<64x64xf32, #mma>
      %rowMax = brick.reduce(%scores) axis = 1 : (tensor<64x64xf32, #mma>) -> tensor<64xf32, #slice> {
      ^bb0(%x: f32, %y: f32):
        %m = arith.maxnumf %x, %y : f32
        brick.reduce.return %m : f32
      }
      %newMax = arith.maxnumf %max, %rowMax : tensor<64xf32, #slice>
      %column = brick.expand_dims %newMax {axis = 1 : i32} : tensor<64xf32, #slice> -> tensor<64x1xf32, #mma>
      %shift = brick.broadcast %column : tensor<64x1xf32, #mma> -> tensor<64x64xf32, #mma>
      %centered = arith.subf %scores, %shift : tensor<64x64xf32, #mma>
      %e = math.exp2 %centered : tensor<64x64xf32, #mma>
      %delta = arith.subf %max, %newMax : tensor<64xf32, #slice>
      %correction = math.exp2 %delta : tensor<64xf32, #slice>
      %p16 = arith.truncf %e : tensor<64x64xf32, #mma> to tensor<64x64xf16, #mma>
      %pa = brickgpu.convert_layout %p16 : tensor<64x64xf16, #mma> -> tensor<64x64xf16, #dot_a>
      %v = brick.descriptor_load %dv[%j, %c0] : !brick.tensordesc<64x64xf16> -> tensor<64x64xf16, #rows>
      %va = brickgpu.local_alloc %v : (tensor<64x64xf16, #rows>) -> !brickgpu.memdesc<64x64xf16, #a>
      %cc = brick.expand_dims %correction {axis = 1 : i32} : tensor<64xf32, #slice> -> tensor<64x1xf32, #mma>
      %cb = brick.broadcast %cc : tensor<64x1xf32, #mma> -> tensor<64x64xf32, #mma>
      %scaled = arith.mulf %acc, %cb : tensor<64x64xf32, #mma>
      %o = brickgpu.warpgroup_dot %pa, %va, %scaled : tensor<64x64xf16, #dot_a>, !brickgpu.memdesc<64x64xf16, #a> -> tensor<64x64xf32, #mma>
      scf.yield %o, %newMax : tensor<64x64xf32, #mma>, tensor<64xf32, #slice>
    }
    return %r#0 : tensor<64x64xf32, #mma>
  }
}

// -----

// A loop that stores, or whose second dot does not read what follows from the first (matmul's, MoE's), stays.
#rows = #brickgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #brickgpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
#a = #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
module attributes {brickgpu.num_warps = 4 : i32} {
  // CHECK-LABEL: func.func @two_independent_dots
  // CHECK-NOT: scf.if
  // CHECK: scf.for
  func.func @two_independent_dots(%x: !brickgpu.memdesc<64x64xf16, #a>, %p: !brick.ptr<f16>, %map: !brick.tensormap,
                                  %n: i32, %s: i64) -> tensor<64x64xf32, #mma> {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %c1_i64 = arith.constant 1 : i64
    %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #mma>
    %d = brick.make_tensor_descriptor %p, [%n, %c64], [%s, %c1_i64], %map : !brick.ptr<f16> -> !brick.tensordesc<64x64xf16>
    %r:2 = scf.for %j = %c0 to %n step %c64 iter_args(%gate = %zero, %up = %zero) -> (tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>) : i32 {
      %w = brick.descriptor_load %d[%j, %c0] : !brick.tensordesc<64x64xf16> -> tensor<64x64xf16, #rows>
      %wa = brickgpu.local_alloc %w : (tensor<64x64xf16, #rows>) -> !brickgpu.memdesc<64x64xf16, #a>
      %g = brickgpu.warpgroup_dot %x, %wa, %gate : !brickgpu.memdesc<64x64xf16, #a>, !brickgpu.memdesc<64x64xf16, #a> -> tensor<64x64xf32, #mma>
      %u = brickgpu.warpgroup_dot %x, %wa, %up : !brickgpu.memdesc<64x64xf16, #a>, !brickgpu.memdesc<64x64xf16, #a> -> tensor<64x64xf32, #mma>
      scf.yield %g, %u : tensor<64x64xf32, #mma>, tensor<64x64xf32, #mma>
    }
    %sum = arith.addf %r#0, %r#1 : tensor<64x64xf32, #mma>
    return %sum : tensor<64x64xf32, #mma>
  }
}
