#a = #brickgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#b = #brickgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>

// Loaded values converted away and back meet after the elementwise op moves into their layout.
// CHECK-LABEL: func.func @sink_through_elementwise
// CHECK-NOT: brickgpu.convert_layout
// CHECK: arith.addf {{.*}} : tensor<1024xf32, #[[B:.*]]>
// CHECK: math.exp {{.*}} : tensor<1024xf32, #[[B]]>
// CHECK: brick.store {{.*}} : tensor<1024x!brick.ptr<f32>, #[[B]]>
func.func @sink_through_elementwise(%pa: tensor<1024x!brick.ptr<f32>, #b>, %pb: tensor<1024x!brick.ptr<f32>, #b>, %c: f32) {
  %x = brick.load %pa : tensor<1024x!brick.ptr<f32>, #b>
  %y = brick.load %pb : tensor<1024x!brick.ptr<f32>, #b>
  %xa = brickgpu.convert_layout %x : tensor<1024xf32, #b> -> tensor<1024xf32, #a>
  %ya = brickgpu.convert_layout %y : tensor<1024xf32, #b> -> tensor<1024xf32, #a>
  %cs = brick.splat %c : tensor<1024xf32, #a>
  %s = arith.addf %xa, %ya : tensor<1024xf32, #a>
  %t = arith.mulf %s, %cs : tensor<1024xf32, #a>
  %e = math.exp %t : tensor<1024xf32, #a>
  %eb = brickgpu.convert_layout %e : tensor<1024xf32, #a> -> tensor<1024xf32, #b>
  brick.store %pa, %eb : tensor<1024x!brick.ptr<f32>, #b>
  return
}
