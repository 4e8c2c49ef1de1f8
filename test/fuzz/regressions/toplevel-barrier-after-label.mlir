#a = #brickgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#b = #brickgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {brickgpu.num_warps = 8 : i32, brickgpu.shared = 4096 : i32} {
  // A real c8xf32>) -> tensor<65xf32> {
  ^bbCK: nvvm.barrier0
  // CHECK-COU<3> -> f32
  func.func @convert(%x: tensor<1024xf32, #a>) -> tensor<1024xf32, #b> {
    %y = brickgpu.convert_layout %x {brickgpu.offset = 0 : i32} : tensor<1024xf32, #a> -> tensor<1024xf32, #b>
    return %y : tensor<1024xf32, #b>
  }
}
