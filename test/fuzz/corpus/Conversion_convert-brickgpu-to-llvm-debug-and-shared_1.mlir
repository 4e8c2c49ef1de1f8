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
