#bad = #brickgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 1]}>
func.func @f(%x: tensor<64x64xf32, #bad>) { return }
