#v4 = #brickgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {brickgpu.num_warps = 4 : i32, brickgpu.shared = 16 : i32} {
  // CHECK: llvm.mlir.global external @brick_shared_memory() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
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
