// inline_asm_elementwise: the programmer's PTX once per `pack` elements of a thread, 8- and 16-bit elements packed
// into 32-bit registers (the first in the lowest bits), a last partial invocation padded with zeros.
// RUN: brick-opt %s -split-input-file -convert-brickgpu-to-llvm -reconcile-unrealized-casts | FileCheck %s

#v4 = #brickgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {brickgpu.num_warps = 4 : i32, brickgpu.shared = 0 : i32} {
  // CHECK-LABEL: llvm.func @pack_one
  func.func @pack_one(%x: tensor<512xi32, #v4>) -> tensor<512xi32, #v4> {
    // Four elements a thread, one invocation each.
    // CHECK-COUNT-4: llvm.inline_asm "shf.l.wrap.b32 $0, $1, $1, 8;", "=r,r" %{{.*}} : (i32) -> i32
    // CHECK-NOT: llvm.inline_asm
    %r = brick.inline_asm_elementwise "shf.l.wrap.b32 $0, $1, $1, 8;" "=r,r" pure %x : (tensor<512xi32, #v4>) -> tensor<512xi32, #v4>
    return %r : tensor<512xi32, #v4>
  }
}

// -----

#v4 = #brickgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {brickgpu.num_warps = 4 : i32, brickgpu.shared = 0 : i32} {
  // CHECK-LABEL: llvm.func @f32_to_f16x2
  func.func @f32_to_f16x2(%x: tensor<512xf32, #v4>) -> tensor<512xf16, #v4> {
    // Two invocations of two f32 registers in and one <2 x f16> register out; element 0 from the low half.
    // CHECK: %[[A:.*]] = llvm.inline_asm "cvt.rn.f16x2.f32 $0, $2, $1;", "=r,r,r" %{{.*}}, %{{.*}} : (f32, f32) -> vector<2xf16>
    // CHECK: %[[ZERO:.*]] = llvm.mlir.constant(0 : i32)
    // CHECK: llvm.extractelement %[[A]][%[[ZERO]] : i32] : vector<2xf16>
    // CHECK: %[[ONE:.*]] = llvm.mlir.constant(1 : i32)
    // CHECK: llvm.extractelement %[[A]][%[[ONE]] : i32] : vector<2xf16>
    // CHECK: llvm.inline_asm "cvt.rn.f16x2.f32 $0, $2, $1;", "=r,r,r" %{{.*}}, %{{.*}} : (f32, f32) -> vector<2xf16>
    // CHECK-NOT: llvm.inline_asm
    %r = brick.inline_asm_elementwise "cvt.rn.f16x2.f32 $0, $2, $1;" "=r,r,r" pure %x {pack = 2 : i32} : (tensor<512xf32, #v4>) -> tensor<512xf16, #v4>
    return %r : tensor<512xf16, #v4>
  }
}

// -----

#v1 = #brickgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {brickgpu.num_warps = 4 : i32, brickgpu.shared = 0 : i32} {
  // CHECK-LABEL: llvm.func @padded
  func.func @padded(%x: tensor<128xi8, #v1>) -> tensor<128xi8, #v1> {
    // One element a thread, pack 4: one invocation on a register of the element and three zero bytes; only the
    // first byte of what comes out is kept.
    // CHECK: %[[X:.*]] = llvm.extractvalue %arg0[0]
    // CHECK: llvm.insertelement %[[X]], %{{.*}} : vector<4xi8>
    // CHECK: %[[P1:.*]] = llvm.mlir.zero : i8
    // CHECK: llvm.insertelement %[[P1]]
    // CHECK: %[[P2:.*]] = llvm.mlir.zero : i8
    // CHECK: llvm.insertelement %[[P2]]
    // CHECK: %[[P3:.*]] = llvm.mlir.zero : i8
    // CHECK: llvm.insertelement %[[P3]]
    // CHECK: %[[OUT:.*]] = llvm.inline_asm "and.b32 $0, $1, 0x7f7f7f7f;", "=r,r" %{{.*}} : (vector<4xi8>) -> vector<4xi8>
    // CHECK-COUNT-1: llvm.extractelement %[[OUT]]
    // CHECK-NOT: llvm.extractelement
    %r = brick.inline_asm_elementwise "and.b32 $0, $1, 0x7f7f7f7f;" "=r,r" pure %x {pack = 4 : i32} : (tensor<128xi8, #v1>) -> tensor<128xi8, #v1>
    return %r : tensor<128xi8, #v1>
  }
}
