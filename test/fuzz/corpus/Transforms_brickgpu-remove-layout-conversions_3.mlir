#a = #brickgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#b = #brickgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>

// A loaded value that must change layout for a store keeps its conversion.
// CHECK-LABEL: func.func @keeps_needed_conversion
// CHECK: brickgpu.convert_layout %{{.*}} : tensor<1024xf32, #{{.*}}> -> tensor<1024xf32, #{{.*}}>
func.func @keeps_needed_conversion(%pa: tensor<1024x!brick.ptr<f32>, #a>, %pb: tensor<1024x!brick.ptr<f32>, #b>) {
  %x = brick.load %pa : tensor<1024x!brick.ptr<f32>, #a>
  %xb = brickgpu.convert_layout %x : tensor<1024xf32, #a> -> tensor<1024xf32, #b>
  brick.store %pb, %xb : tensor<1024x!brick.ptr<f32>, #b>
  return
}
