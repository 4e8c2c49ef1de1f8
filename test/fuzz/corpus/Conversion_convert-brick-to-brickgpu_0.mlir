// Every tensor gets its shape's default layout; expand_dims, broadcast and reduce get conversions.

// CHECK-DAG: #[[ROW:.*]] = #brickgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// CHECK-DAG: #[[COL:.*]] = #brickgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-DAG: #[[TILE:.*]] = #brickgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-DAG: #[[SLICE_COL:.*]] = #brickgpu.slice<{dim = 1, parent = #[[COL]]}>
// CHECK-DAG: #[[SLICE_TILE:.*]] = #brickgpu.slice<{dim = 1, parent = #[[TILE]]}>
// CHECK: module attributes {brickgpu.num_warps = 4 : i32}
// WARPS8: warpsPerCTA = [8]
// WARPS8: module attributes {brickgpu.num_warps = 8 : i32}

// CHECK-LABEL: func.func @k
func.func @k(%p: !brick.ptr<f32>, %n: i32) attributes {brick.kernel} {
  // CHECK: %[[R:.*]] = brick.make_range 0, 64 : tensor<64xi32, #[[ROW]]>
  %r = brick.make_range 0, 64 : tensor<64xi32>
  // CHECK: %[[RS:.*]] = brickgpu.convert_layout %[[R]] : tensor<64xi32, #[[ROW]]> -> tensor<64xi32, #[[SLICE_COL]]>
  // CHECK: %[[E:.*]] = brick.expand_dims %[[RS]] {axis = 1 : i32} : tensor<64xi32, #[[SLICE_COL]]> -> tensor<64x1xi32, #[[COL]]>
  %e = brick.expand_dims %r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  // CHECK: %[[EB:.*]] = brickgpu.convert_layout %[[E]] : tensor<64x1xi32, #[[COL]]> -> tensor<64x1xi32, #[[TILE]]>
  // CHECK: %[[B:.*]] = brick.broadcast %[[EB]] : tensor<64x1xi32, #[[TILE]]> -> tensor<64x32xi32, #[[TILE]]>
  %b = brick.broadcast %e : tensor<64x1xi32> -> tensor<64x32xi32>
  // CHECK: %[[RED:.*]] = brick.reduce(%[[B]]) axis = 1 : (tensor<64x32xi32, #[[TILE]]>) -> tensor<64xi32, #[[SLICE_TILE]]>
  %red = brick.reduce(%b) axis = 1 : (tensor<64x32xi32>) -> tensor<64xi32> {
  ^bb0(%x: i32, %y: i32):
    %s = arith.addi %x, %y : i32
    brick.reduce.return %s : i32
  }
  // CHECK: %[[BACK:.*]] = brickgpu.convert_layout %[[RED]] : tensor<64xi32, #[[SLICE_TILE]]> -> tensor<64xi32, #[[ROW]]>
  // CHECK: arith.addi %[[BACK]], %[[R]] : tensor<64xi32, #[[ROW]]>
  %s = arith.addi %red, %r : tensor<64xi32>
  // Constants take the layout in their value too.
  // CHECK: arith.constant dense<0> : tensor<64xi32, #[[ROW]]>
  %z = arith.constant dense<0> : tensor<64xi32>
  %t = arith.addi %s, %z : tensor<64xi32>
  // Loop-carried blocks keep one layout in and out.
  // CHECK: scf.for {{.*}} iter_args({{.*}}) -> (tensor<64xi32, #[[ROW]]>)
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %l = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %t) -> (tensor<64xi32>) : i32 {
    %next = arith.addi %acc, %r : tensor<64xi32>
    scf.yield %next : tensor<64xi32>
  }
  return
}
