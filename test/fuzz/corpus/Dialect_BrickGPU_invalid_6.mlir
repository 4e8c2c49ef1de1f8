#blocked = #brickgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @f(%x: !brickgpu.memdesc<64xf32, #blocked>) { return }
