#a = #brickgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#b = #brickgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>

// A reduction across 4 warps keeps one partial per warp (16 bytes for f32); a conversion between layouts
// that agree needs none.
// CHECK: module attributes {brickgpu.shared = 16 : i32}
// CHECK: brick.reduce{{.*}}brickgpu.offset = 0 : i32
// CHECK: brickgpu.convert_layout
// CHECK-NOT: brickgpu.offset
func.func @reduce_partials(%x: tensor<1024xf32, #b>) -> (f32, tensor<1024xf32, #b>) {
  %m = brick.reduce(%x) axis = 0 : (tensor<1024xf32, #b>) -> f32 {
  ^bb0(%u: f32, %v: f32):
    %w = arith.maxnumf %u, %v : f32
    brick.reduce.return %w : f32
  }
  %same = brickgpu.convert_layout %x : tensor<1024xf32, #b> -> tensor<1024xf32, #b>
  return %m, %same : f32, tensor<1024xf32, #b>
}
