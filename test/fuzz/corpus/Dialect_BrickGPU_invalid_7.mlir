#blocked = #brickgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#shared = #brickgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @f(%x: tensor<64xf32, #blocked>) {
  %b = brickgpu.local_alloc %x : (tensor<64xf32, #blocked>) -> !brickgpu.memdesc<128xf32, #shared>
  return
}
