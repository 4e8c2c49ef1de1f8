#a = #brickgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#b = #brickgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>

// A reduction reads its operand where it was loaded.
// CHECK-LABEL: func.func @sink_into_reduce
// CHECK-NOT: brickgpu.convert_layout
// CHECK: brick.reduce(%{{.*}}) axis = 0 : (tensor<1024xf32, #[[B:.*]]>) -> f32
func.func @sink_into_reduce(%p: tensor<1024x!brick.ptr<f32>, #b>) -> f32 {
  %x = brick.load %p : tensor<1024x!brick.ptr<f32>, #b>
  %xa = brickgpu.convert_layout %x : tensor<1024xf32, #b> -> tensor<1024xf32, #a>
  %m = brick.reduce(%xa) axis = 0 : (tensor<1024xf32, #a>) -> f32 {
  ^bb0(%u: f32, %v: f32):
    %w = arith.maxnumf %u, %v : f32
    brick.reduce.return %w : f32
  }
  return %m : f32
}
