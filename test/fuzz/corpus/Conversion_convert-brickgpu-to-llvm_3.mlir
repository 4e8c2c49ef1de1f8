#v1 = #brickgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {brickgpu.num_warps = 1 : i32, brickgpu.shared = 0 : i32} {
  // exp through ex2.approx.ftz (x * log2 e); f16 math computes in f32.
  // CHECK-LABEL: llvm.func @math
  // CHECK: llvm.fpext {{.*}} : f16 to f32
  // CHECK: llvm.fmul {{.*}} : f32
  // CHECK: llvm.inline_asm "ex2.approx.ftz.f32 $0, $1;", "=f,f"
  // CHECK: llvm.fptrunc {{.*}} : f32 to f16
  func.func @math(%x: tensor<32xf16, #v1>) -> tensor<32xf16, #v1> {
    %y = math.exp %x : tensor<32xf16, #v1>
    return %y : tensor<32xf16, #v1>
  }
}
