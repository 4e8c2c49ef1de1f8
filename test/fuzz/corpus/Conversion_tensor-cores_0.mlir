#mma = #brickgpu.mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#a = #brickgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#b = #brickgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
#rows = #brickgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
module attributes {brickgpu.num_warps = 4 : i32} {
  func.func @f16(%c: tensor<32x32xf32, #mma>) -> tensor<32x32xf32, #mma> {
    %sa = brickgpu.local_alloc : () -> !brickgpu.memdesc<32x16xf16, #rows>
    %sb = brickgpu.local_alloc : () -> !brickgpu.memdesc<16x32xf16, #rows>
    %a = brickgpu.local_load %sa : !brickgpu.memdesc<32x16xf16, #rows> -> tensor<32x16xf16, #a>
    %b = brickgpu.local_load %sb : !brickgpu.memdesc<16x32xf16, #rows> -> tensor<16x32xf16, #b>
    %d = brick.dot %a, %b, %c : tensor<32x16xf16, #a> * tensor<16x32xf16, #b> -> tensor<32x32xf32, #mma>
    return %d : tensor<32x32xf32, #mma>
  }
}
