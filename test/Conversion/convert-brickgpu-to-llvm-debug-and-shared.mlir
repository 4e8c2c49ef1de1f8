// brick.print, brick.assert, brick.hint, brick.assume, brick.inline_asm_elementwise and the shared-memory ops in LLVM.
// RUN: brick-opt %s -split-input-file -convert-brickgpu-to-llvm -reconcile-unrealized-casts | FileCheck %s

#b = #brickgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {brickgpu.num_warps = 1 : i32, brickgpu.shared = 0 : i32} {
  // CHECK-DAG: llvm.func @vprintf(!llvm.ptr, !llvm.ptr) -> i32
  // CHECK-DAG: llvm.func @__assertfail(!llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64)
  // CHECK-DAG: llvm.mlir.global internal constant @{{.*}}("x = pid (%u, %u, %u) idx (%u) %f\0A\00")
  // CHECK-DAG: llvm.mlir.global internal constant @{{.*}}("x must be positive\00")
  // A '%' in a prefix prints as itself: doubled in the format (it used to read an argument that was not there).
  // CHECK-DAG: llvm.mlir.global internal constant @{{.*}}("100%% of x: pid (%u, %u, %u) idx (%u) %f\0A\00")
  // CHECK-LABEL: llvm.func @debug
  func.func @debug(%x: tensor<32xf32, #b>, %n: i32) {
    // CHECK: llvm.fpext {{.*}} : f32 to f64
    // CHECK: llvm.call @vprintf
    brick.print "x = " %x : tensor<32xf32, #b>
    brick.print "100% of x: " %x : tensor<32xf32, #b>
    %zero = arith.constant dense<0.0> : tensor<32xf32, #b>
    %positive = arith.cmpf ogt, %x, %zero : tensor<32xf32, #b>
    // CHECK: llvm.cond_br
    // CHECK: llvm.call @__assertfail
    brick.assert %positive, "x must be positive" : tensor<32xi1, #b>
    // A boolean prints 1 for true: zero-extended, where narrower integers are sign-extended.
    // CHECK: llvm.zext %{{.*}} : i1 to i32
    // CHECK: llvm.call @vprintf
    brick.print "positive: " %positive : tensor<32xi1, #b>
    return
  }
}

// -----

#b = #brickgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
#shared = #brickgpu.shared<{vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0]}>
module attributes {brickgpu.num_warps = 1 : i32, brickgpu.shared = 2048 : i32} {
  // CHECK-LABEL: llvm.func @round_trip
  func.func @round_trip(%x: tensor<16x32xf32, #b>) -> tensor<16x32xf32, #b> {
    // Stores between barriers, at swizzled offsets (XOR of the column group with the row's phase).
    // CHECK: nvvm.barrier0
    // CHECK: llvm.xor
    // CHECK: llvm.store {{.*}} : f32, !llvm.ptr<3>
    // CHECK: nvvm.barrier0
    %buf = brickgpu.local_alloc %x {brickgpu.offset = 0 : i32} : (tensor<16x32xf32, #b>) -> !brickgpu.memdesc<16x32xf32, #shared>
    // CHECK: nvvm.barrier0
    brickgpu.barrier
    // CHECK: llvm.load {{.*}} : !llvm.ptr<3> -> f32
    %y = brickgpu.local_load %buf : !brickgpu.memdesc<16x32xf32, #shared> -> tensor<16x32xf32, #b>
    return %y : tensor<16x32xf32, #b>
  }
}

// -----

// Registers that run along a row come back as one load of 16 bytes (a staged block read whole), as they are stored.
#b = #brickgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
#shared = #brickgpu.shared<{vec = 8, perPhase = 1, maxPhase = 1, order = [1, 0]}>
module attributes {brickgpu.num_warps = 1 : i32, brickgpu.shared = 4096 : i32} {
  // CHECK-LABEL: llvm.func @vector_round_trip
  func.func @vector_round_trip(%x: tensor<16x64xf16, #b>) -> tensor<16x64xf16, #b> {
    // CHECK: llvm.store {{.*}} : vector<8xf16>, !llvm.ptr<3>
    %buf = brickgpu.local_alloc %x {brickgpu.offset = 0 : i32} : (tensor<16x64xf16, #b>) -> !brickgpu.memdesc<16x64xf16, #shared>
    // CHECK-COUNT-4: llvm.load {{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<8xf16>
    // CHECK-NOT: llvm.load {{.*}} -> f16
    %y = brickgpu.local_load %buf : !brickgpu.memdesc<16x64xf16, #shared> -> tensor<16x64xf16, #b>
    return %y : tensor<16x64xf16, #b>
  }
}

// -----

#b = #brickgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {brickgpu.num_warps = 1 : i32, brickgpu.shared = 0 : i32} {
  // A constant block that is not a splat: a table in global memory, read at each thread's coordinates.
  // CHECK: llvm.mlir.global internal constant @brick_table_0(dense<[3, 1, 4, 1]> : tensor<4xi32>) {addr_space = 1 : i32, alignment = 16 : i64} : !llvm.array<4 x i32>
  // CHECK-LABEL: llvm.func @table
  // CHECK: llvm.mlir.addressof @brick_table_0 : !llvm.ptr<1>
  // CHECK: llvm.load {{.*}} : !llvm.ptr<1> -> i32
  func.func @table() -> tensor<4xi32, #b> {
    %c = arith.constant dense<[3, 1, 4, 1]> : tensor<4xi32, #b>
    return %c : tensor<4xi32, #b>
  }
}

// -----

// A hint is gone once the analysis has read it; assume is llvm.intr.assume of each element a thread holds.
#b = #brickgpu.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {brickgpu.num_warps = 1 : i32, brickgpu.shared = 0 : i32} {
  // CHECK-LABEL: llvm.func @hint_and_assume
  func.func @hint_and_assume(%n: i32) attributes {brick.kernel} {
    %x = brick.make_range 0, 64 : tensor<64xi32, #b>
    // CHECK-NOT: brick.hint
    %h = brick.hint %x {divisibility = array<i64: 16>} : tensor<64xi32, #b>
    %zero = arith.constant dense<0> : tensor<64xi32, #b>
    %positive = arith.cmpi sge, %h, %zero : tensor<64xi32, #b>
    // CHECK: llvm.intr.assume
    // CHECK: llvm.intr.assume
    // CHECK-NOT: llvm.intr.assume
    brick.assume %positive : tensor<64xi1, #b>
    return
  }
}

// -----

// inline_asm_elementwise: the programmer's PTX once per element a thread holds (2 here); two results come back
// from each as a struct.
#b = #brickgpu.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {brickgpu.num_warps = 1 : i32, brickgpu.shared = 0 : i32} {
  // CHECK-LABEL: llvm.func @inline_asm
  func.func @inline_asm(%n: i32) attributes {brick.kernel} {
    %x = brick.make_range 0, 64 : tensor<64xi32, #b>
    %s = brick.splat %n : tensor<64xi32, #b>
    // CHECK: llvm.inline_asm "shf.l.wrap.b32 $0, $1, $1, $2;", "=r,r,r" %{{.*}}, %{{.*}} : (i32, i32) -> i32
    // CHECK: llvm.inline_asm "shf.l.wrap.b32 $0, $1, $1, $2;", "=r,r,r" %{{.*}}, %{{.*}} : (i32, i32) -> i32
    %r = brick.inline_asm_elementwise "shf.l.wrap.b32 $0, $1, $1, $2;" "=r,r,r" pure %x, %s : (tensor<64xi32, #b>, tensor<64xi32, #b>) -> tensor<64xi32, #b>
    // CHECK: llvm.inline_asm has_side_effects "add.cc.u32 $0, $2, $3; addc.u32 $1, 0, 0;", "=r,=r,r,r" {{.*}} -> !llvm.struct<(i32, i32)>
    // CHECK: llvm.extractvalue
    %lo, %carry = brick.inline_asm_elementwise "add.cc.u32 $0, $2, $3; addc.u32 $1, 0, 0;" "=r,=r,r,r" %r, %x : (tensor<64xi32, #b>, tensor<64xi32, #b>) -> (tensor<64xi32, #b>, tensor<64xi32, #b>)
    brick.print "" %lo, %carry : tensor<64xi32, #b>, tensor<64xi32, #b>
    return
  }
}
