func.func @two_dimensions(%stride: i32 {brick.divisibility = 16 : i32}) {
  %rows = brick.make_range 0, 64 : tensor<64xi32>
  %cols = brick.make_range 0, 32 : tensor<32xi32>
  // The new dimension has one element per run: every element must be divisible, and rows 0..63 are not.
  %r2 = brick.expand_dims %rows {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %ss = brick.splat %stride : tensor<64x1xi32>
  // Row offsets: multiples of 16 everywhere.
  %rowOffsets = arith.muli %r2, %ss : tensor<64x1xi32>
  // ... and constant along each row.
  %rb = brick.broadcast %rowOffsets : tensor<64x1xi32> -> tensor<64x32xi32>
  %c2 = brick.expand_dims %cols {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %cb = brick.broadcast %c2 : tensor<1x32xi32> -> tensor<64x32xi32>
  // Each row: 32 contiguous offsets starting at a multiple of 16.
  %offs = arith.addi %rb, %cb : tensor<64x32xi32>
  return
}
