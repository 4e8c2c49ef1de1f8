#mma = #brickgpu.mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#out = #brickgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {brickgpu.num_warps = 4 : i32} {
  func.func @epilogue(%acc: tensor<64x128xf16, #mma>) -> tensor<64x128xf16, #out> {
    %y = brickgpu.convert_layout %acc : tensor<64x128xf16, #mma> -> tensor<64x128xf16, #out>
    return %y : tensor<64x128xf16, #out>
  }
}
