#a = #brickgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @f(%x: tensor<64xf32, #a>) {
  %y = brickgpu.convert_layout %x : tensor<64xf32, #a> -> tensor<128xf32, #a>
  return
}
