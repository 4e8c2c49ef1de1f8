#bad = #brickgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @f(%x: tensor<64xf32, #bad>) { return }
