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
