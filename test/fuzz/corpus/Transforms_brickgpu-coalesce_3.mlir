// A column-major tile (contiguous along dimension 0): that dimension goes first in the order.
// CHECK-LABEL: func.func @column_major
// CHECK: brick.load {{.*}} : tensor<64x32x!brick.ptr<f32>, #brickgpu.blocked<{sizePerThread = [4, 1], threadsPerWarp = [16, 2], warpsPerCTA = [1, 4], order = [0, 1]}>>
func.func @column_major(%p: !brick.ptr<f32> {brick.divisibility = 16 : i32}, %ld: i32 {brick.divisibility = 16 : i32}) {
  %rows = brick.make_range 0, 64 : tensor<64xi32>
  %cols = brick.make_range 0, 32 : tensor<32xi32>
  %r2 = brick.expand_dims %rows {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %rb = brick.broadcast %r2 : tensor<64x1xi32> -> tensor<64x32xi32>
  %c2 = brick.expand_dims %cols {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %lds = brick.splat %ld : tensor<1x32xi32>
  %co = arith.muli %c2, %lds : tensor<1x32xi32>
  %cb = brick.broadcast %co : tensor<1x32xi32> -> tensor<64x32xi32>
  %offs = arith.addi %rb, %cb : tensor<64x32xi32>
  %ps = brick.splat %p : tensor<64x32x!brick.ptr<f32>>
  %ptrs = brick.addptr %ps, %offs : tensor<64x32x!brick.ptr<f32>>, tensor<64x32xi32>
  %x = brick.load %ptrs : tensor<64x32x!brick.ptr<f32>>
  return
}
