#mma = #brickgpu.mma<{version = 2, warpsPerCTA = [1, 1], instrShape = [16, 8]}>
#a = #brickgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 1}>
#b = #brickgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 1}>
module attributes {brickgpu.num_warps = 1 : i32} {
  func.func @tf32(%a: tensor<16x8xf32, #a>, %b: tensor<8x8xf32, #b>, %c: tensor<16x8xf32, #mma>) -> tensor<16x8xf32, #mma> {
    %d = brick.dot %a, %b, %c inputPrecision = tf32 : tensor<16x8xf32, #a> * tensor<8x8xf32, #b> -> tensor<16x8xf32, #mma>
    return %d : tensor<16x8xf32, #mma>
  }
  func.func @tf32x3(%a: tensor<16x8xf32, #a>, %b: tensor<8x8xf32, #b>, %c: tensor<16x8xf32, #mma>) -> tensor<16x8xf32, #mma> {
    %d = brick.dot %a, %b, %c inputPrecision = tf32x3 : tensor<16x8xf32, #a> * tensor<8x8xf32, #b> -> tensor<16x8xf32, #mma>
    return %d : tensor<16x8xf32, #mma>
  }
}
