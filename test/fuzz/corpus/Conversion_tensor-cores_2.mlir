#mma = #brickgpu.mma<{version = 2, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #brickgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>
#b = #brickgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>
module attributes {brickgpu.num_warps = 1 : i32} {
  func.func @i8(%a: tensor<16x32xi8, #a>, %b: tensor<32x8xi8, #b>, %c: tensor<16x8xi32, #mma>) -> tensor<16x8xi32, #mma> {
    %d = brick.dot %a, %b, %c : tensor<16x32xi8, #a> * tensor<32x8xi8, #b> -> tensor<16x8xi32, #mma>
    return %d : tensor<16x8xi32, #mma>
  }
}
