// Conversions disappear: cheap values are recomputed in the layout users want, and elementwise ops and
// reductions move into the layout their operands come from.

#a = #brickgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#b = #brickgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>

// Pointers and masks built from ranges and splats are recomputed in the load's layout.
// CHECK-LABEL: func.func @recompute_addresses
// CHECK-NOT: brickgpu.convert_layout
// CHECK: brick.make_range 0, 1024 : tensor<1024xi32, #[[B:.*]]>
// CHECK: brick.load {{.*}} : tensor<1024x!brick.ptr<f32>, #[[B]]>
func.func @recompute_addresses(%p: !brick.ptr<f32>, %n: i32) -> tensor<1024xf32, #b> {
  %r = brick.make_range 0, 1024 : tensor<1024xi32, #a>
  %ns = brick.splat %n : tensor<1024xi32, #a>
  %m = arith.cmpi slt, %r, %ns : tensor<1024xi32, #a>
  %ps = brick.splat %p : tensor<1024x!brick.ptr<f32>, #a>
  %ptrs = brick.addptr %ps, %r : tensor<1024x!brick.ptr<f32>, #a>, tensor<1024xi32, #a>
  %ptrs_b = brickgpu.convert_layout %ptrs : tensor<1024x!brick.ptr<f32>, #a> -> tensor<1024x!brick.ptr<f32>, #b>
  %m_b = brickgpu.convert_layout %m : tensor<1024xi1, #a> -> tensor<1024xi1, #b>
  %x = brick.load %ptrs_b, %m_b : tensor<1024x!brick.ptr<f32>, #b>
  return %x : tensor<1024xf32, #b>
}
