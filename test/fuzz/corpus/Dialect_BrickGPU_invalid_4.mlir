#blocked = #brickgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#bad = #brickgpu.slice<{dim = 1, parent = #blocked}>
func.func @f(%x: tensor<64xf32, #bad>) { return }
