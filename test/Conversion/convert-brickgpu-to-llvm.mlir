// Per-thread code: blocks become structs of registers; memory ops become predicated vector PTX.
// RUN: brick-opt %s -split-input-file -convert-brickgpu-to-llvm -reconcile-unrealized-casts | FileCheck %s

#v4 = #brickgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {brickgpu.num_warps = 4 : i32, brickgpu.shared = 0 : i32} {
  // CHECK-LABEL: llvm.func @copy
  // CHECK-SAME: %{{.*}}: !llvm.ptr<1> {llvm.align = 16 : i64}
  // CHECK-SAME: attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>}
  func.func @copy(%p: !brick.ptr<f32> {brick.divisibility = 16 : i32}, %n: i32 {brick.divisibility = 16 : i32}) attributes {brick.kernel} {
    // CHECK: nvvm.read.ptx.sreg.ctaid.x
    %pid = brick.program_id 0
    // CHECK: nvvm.read.ptx.sreg.tid.x
    %r = brick.make_range 0, 1024 : tensor<1024xi32, #v4>
    %ns = brick.splat %n : tensor<1024xi32, #v4>
    %m = arith.cmpi slt, %r, %ns : tensor<1024xi32, #v4>
    %ps = brick.splat %p : tensor<1024x!brick.ptr<f32>, #v4>
    // An address per 16-byte access: the other elements' addresses are dead after the vectorized loads and
    // stores, and the lowering's sweep erases them.
    // CHECK-COUNT-2: llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
    // CHECK-NOT: llvm.getelementptr
    %ptrs = brick.addptr %ps, %r : tensor<1024x!brick.ptr<f32>, #v4>, tensor<1024xi32, #v4>
    // 1024 elements over 128 threads: two 16-byte loads each, under the mask, with `other` moved in first.
    // CHECK-COUNT-2: llvm.inline_asm has_side_effects "mov.b32 $0, $6;{{.*}}@$5 ld.global.v4.b32 {$0, $1, $2, $3}, [ $4 + 0 ];"
    %zero = arith.constant dense<0.0> : tensor<1024xf32, #v4>
    %x = brick.load %ptrs, %m, %zero : tensor<1024x!brick.ptr<f32>, #v4>
    // CHECK-COUNT-8: llvm.fadd
    %pidf = arith.sitofp %pid : i32 to f32
    %pids = brick.splat %pidf : tensor<1024xf32, #v4>
    %y = arith.addf %x, %pids : tensor<1024xf32, #v4>
    // CHECK-COUNT-2: llvm.inline_asm has_side_effects "@$5 st.global.v4.b32 [ $0 + 0 ], {$1, $2, $3, $4};"
    brick.store %ptrs, %y, %m : tensor<1024x!brick.ptr<f32>, #v4>
    return
  }
}

// -----

#v4 = #brickgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {brickgpu.num_warps = 4 : i32, brickgpu.shared = 16 : i32} {
  // CHECK: llvm.mlir.global external @brick_shared_memory() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
  // CHECK-LABEL: llvm.func @row_max
  func.func @row_max(%x: tensor<1024xf32, #v4>) -> f32 {
    // Four registers per thread combine first, then 5 butterfly steps over the lanes, then 4 warps through
    // shared memory between two barriers.
    // CHECK-COUNT-3: llvm.intr.maxnum
    // CHECK: nvvm.shfl.sync bfly {{.*}} : i32 -> i32
    // CHECK-COUNT-4: nvvm.shfl.sync bfly
    // CHECK: nvvm.barrier0
    // CHECK: llvm.store {{.*}} : f32, !llvm.ptr<3>
    // CHECK: nvvm.barrier0
    // CHECK-COUNT-4: llvm.load {{.*}} : !llvm.ptr<3> -> f32
    %m = brick.reduce(%x) axis = 0 {brickgpu.offset = 0 : i32} : (tensor<1024xf32, #v4>) -> f32 {
    ^bb0(%u: f32, %v: f32):
      %w = arith.maxnumf %u, %v : f32
      brick.reduce.return %w : f32
    }
    return %m : f32
  }
}

// -----

#a = #brickgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#b = #brickgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {brickgpu.num_warps = 4 : i32, brickgpu.shared = 4096 : i32} {
  // A real conversion: write at the old positions, barrier, read the new ones; vectors where a thread's registers
  // run along the row (four f32 of #b: one 16-byte load each).
  // CHECK-LABEL: llvm.func @convert
  // CHECK: nvvm.barrier0
  // CHECK-COUNT-8: llvm.store {{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<3>
  // CHECK: nvvm.barrier0
  // CHECK-COUNT-2: llvm.load {{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
  // CHECK-NOT: llvm.load
  func.func @convert(%x: tensor<1024xf32, #a>) -> tensor<1024xf32, #b> {
    %y = brickgpu.convert_layout %x {brickgpu.offset = 0 : i32} : tensor<1024xf32, #a> -> tensor<1024xf32, #b>
    return %y : tensor<1024xf32, #b>
  }
}

// -----

#v1 = #brickgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {brickgpu.num_warps = 1 : i32, brickgpu.shared = 0 : i32} {
  // exp through ex2.approx.ftz (x * log2 e); f16 math computes in f32.
  // CHECK-LABEL: llvm.func @math
  // CHECK: llvm.fpext {{.*}} : f16 to f32
  // CHECK: llvm.fmul {{.*}} : f32
  // CHECK: llvm.inline_asm "ex2.approx.ftz.f32 $0, $1;", "=f,f"
  // CHECK: llvm.fptrunc {{.*}} : f32 to f16
  // f32 division through div.full.f32, one over a value through rcp.approx.ftz.f32 (a splat 1 or a scalar
  // one, not 2); f64 division stays IEEE.
  // CHECK: llvm.inline_asm "div.full.f32 $0, $1, $2;", "=f,f,f"
  // CHECK: llvm.fdiv {{.*}} : f64
  // CHECK: llvm.inline_asm "rcp.approx.ftz.f32 $0, $1;", "=f,f"
  // CHECK: llvm.inline_asm "div.full.f32 $0, $1, $2;", "=f,f,f"
  // CHECK: llvm.inline_asm "rcp.approx.ftz.f32 $0, $1;", "=f,f"
  // CHECK-NOT: rcp.approx
  func.func @math(%x: tensor<32xf16, #v1>, %a: tensor<32xf32, #v1>, %b: tensor<32xf64, #v1>, %s: f32) -> (tensor<32xf16, #v1>, tensor<32xf32, #v1>, tensor<32xf64, #v1>, tensor<32xf32, #v1>, tensor<32xf32, #v1>, f32) {
    %y = math.exp %x : tensor<32xf16, #v1>
    %q = arith.divf %a, %a : tensor<32xf32, #v1>
    %r = arith.divf %b, %b : tensor<32xf64, #v1>
    %one = arith.constant dense<1.0> : tensor<32xf32, #v1>
    %two = arith.constant dense<2.0> : tensor<32xf32, #v1>
    %inverse = arith.divf %one, %a : tensor<32xf32, #v1>
    %half = arith.divf %two, %a : tensor<32xf32, #v1>
    %scalarOne = arith.constant 1.0 : f32
    %scalarInverse = arith.divf %scalarOne, %s : f32
    return %y, %q, %r, %inverse, %half, %scalarInverse : tensor<32xf16, #v1>, tensor<32xf32, #v1>, tensor<32xf64, #v1>, tensor<32xf32, #v1>, tensor<32xf32, #v1>, f32
  }
}

// -----

#v4r = #brickgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {brickgpu.num_warps = 1 : i32, brickgpu.shared = 0 : i32} {
  // One over a value with several registers a thread: each register's division is rcp.approx.ftz where the
  // numerator is 1 (a splat constant, or a scalar 1 splat into a block), div.full where it is -1.
  // CHECK-LABEL: llvm.func @reciprocals
  // CHECK-COUNT-4: llvm.inline_asm "rcp.approx.ftz.f32 $0, $1;", "=f,f"
  // CHECK-COUNT-4: llvm.inline_asm "rcp.approx.ftz.f32 $0, $1;", "=f,f"
  // CHECK-COUNT-4: llvm.inline_asm "div.full.f32 $0, $1, $2;", "=f,f,f"
  // CHECK-NOT: llvm.inline_asm
  // CHECK: llvm.return
  func.func @reciprocals(%a: tensor<128xf32, #v4r>) -> (tensor<128xf32, #v4r>, tensor<128xf32, #v4r>, tensor<128xf32, #v4r>) {
    %one = arith.constant dense<1.0> : tensor<128xf32, #v4r>
    %scalarOne = arith.constant 1.0 : f32
    %splatOne = brick.splat %scalarOne : tensor<128xf32, #v4r>
    %minusOne = arith.constant dense<-1.0> : tensor<128xf32, #v4r>
    %x = arith.divf %one, %a : tensor<128xf32, #v4r>
    %y = arith.divf %splatOne, %a : tensor<128xf32, #v4r>
    %z = arith.divf %minusOne, %a : tensor<128xf32, #v4r>
    return %x, %y, %z : tensor<128xf32, #v4r>, tensor<128xf32, #v4r>, tensor<128xf32, #v4r>
  }
}

// -----

#v2 = #brickgpu.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#s1 = #brickgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {brickgpu.num_warps = 1 : i32, brickgpu.shared = 0 : i32} {
  // f32 -> f16/bf16 two registers at a time (cvt.rn.f16x2.f32 takes the upper half first); a block of one
  // register per thread, or a truncation with a rounding mode of its own, goes one register at a time.
  // CHECK-LABEL: llvm.func @packed_truncation
  // CHECK: %[[LO:.*]] = llvm.extractvalue %[[X:.*]][0] : !llvm.struct<(f32, f32)>
  // CHECK: %[[HI:.*]] = llvm.extractvalue %[[X]][1] : !llvm.struct<(f32, f32)>
  // CHECK: %[[PAIR:.*]] = llvm.call_intrinsic "llvm.nvvm.ff2f16x2.rn"(%[[HI]], %[[LO]]) : (f32, f32) -> vector<2xf16>
  // CHECK: llvm.extractelement %[[PAIR]]
  // CHECK: llvm.call_intrinsic "llvm.nvvm.ff2bf16x2.rn"
  // CHECK-NOT: llvm.call_intrinsic
  // CHECK: llvm.fptrunc {{.*}} : f32 to f16
  // CHECK-NOT: llvm.call_intrinsic
  // CHECK: llvm.return
  func.func @packed_truncation(%x: tensor<64xf32, #v2>, %y: tensor<32xf32, #s1>)
      -> (tensor<64xf16, #v2>, tensor<64xbf16, #v2>, tensor<32xf16, #s1>, tensor<64xf16, #v2>) {
    %h = arith.truncf %x : tensor<64xf32, #v2> to tensor<64xf16, #v2>
    %b = arith.truncf %x : tensor<64xf32, #v2> to tensor<64xbf16, #v2>
    %o = arith.truncf %y : tensor<32xf32, #s1> to tensor<32xf16, #s1>
    %z = arith.truncf %x toward_zero : tensor<64xf32, #v2> to tensor<64xf16, #v2>
    return %h, %b, %o, %z : tensor<64xf16, #v2>, tensor<64xbf16, #v2>, tensor<32xf16, #s1>, tensor<64xf16, #v2>
  }
}

// -----

#v1 = #brickgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>
module attributes {brickgpu.num_warps = 2 : i32, brickgpu.shared = 0 : i32} {
  // Atomics: one atom.global per element, with the ordering and scope asked for.
  // CHECK-LABEL: llvm.func @atomics
  // CHECK: atom.acq_rel.gpu.global.add.f32
  // CHECK: atom.relaxed.cta.global.cas.b32
  func.func @atomics(%p: tensor<64x!brick.ptr<f32>, #v1>, %q: tensor<64x!brick.ptr<i32>, #v1>, %v: tensor<64xf32, #v1>, %w: tensor<64xi32, #v1>) {
    %0 = brick.atomic_rmw fadd, acq_rel, gpu, %p, %v : tensor<64x!brick.ptr<f32>, #v1>
    %1 = brick.atomic_cas relaxed, cta, %q, %w, %w : tensor<64x!brick.ptr<i32>, #v1>
    return
  }
}

// -----

#a = #brickgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#i = #brickgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {brickgpu.num_warps = 4 : i32, brickgpu.shared = 4096 : i32} {
  // gather: the source into shared memory in row-major order, then each element read at its own row and the
  // column its index names (i8 indices widened to i32 with their sign).
  // CHECK-LABEL: llvm.func @gather_columns
  // CHECK: nvvm.barrier0
  // CHECK-COUNT-4: llvm.store {{.*}} : f32, !llvm.ptr<3>
  // CHECK: nvvm.barrier0
  // CHECK: llvm.sext {{.*}} : i8 to i32
  // CHECK: llvm.load {{.*}} : !llvm.ptr<3> -> f32
  func.func @gather_columns(%x: tensor<16x32xf32, #a>, %idx: tensor<16x8xi8, #i>) -> tensor<16x8xf32, #i> {
    %g = brick.gather %x[%idx] axis = 1 {brickgpu.offset = 0 : i32} : (tensor<16x32xf32, #a>, tensor<16x8xi8, #i>) -> tensor<16x8xf32, #i>
    return %g : tensor<16x8xf32, #i>
  }
}
