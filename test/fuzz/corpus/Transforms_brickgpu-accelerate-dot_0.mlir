#rows = #brickgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#cols = #brickgpu.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
#acc = #brickgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
module attributes {brickgpu.num_warps = 4 : i32} {
  func.func @f16(%a: tensor<128x64xf16, #rows>, %b: tensor<64x128xf16, #cols>, %c: tensor<128x128xf32, #acc>) -> tensor<128x128xf32, #acc> {
    %d = brick.dot %a, %b, %c : tensor<128x64xf16, #rows> * tensor<64x128xf16, #cols> -> tensor<128x128xf32, #acc>
    return %d : tensor<128x128xf32, #acc>
  }
}
