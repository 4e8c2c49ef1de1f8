#blocked = #brickgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#shared = #brickgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @f(%b: !brickgpu.memdesc<64xf32, #shared>) {
  %x = brickgpu.local_load %b : !brickgpu.memdesc<64xf32, #shared> -> tensor<64xf16, #blocked>
  return
}
