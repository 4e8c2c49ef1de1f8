// A running sum over 2048 elements (registers, lanes, warps, and registers again above the warps) and a
// reverse running max down the rows of a 64x32 block.
func.func @scans(%p: !brick.ptr<f32> {brick.divisibility = 16 : i32}, %q: !brick.ptr<i32> {brick.divisibility = 16 : i32}) attributes {brick.kernel} {
  %r = brick.make_range 0, 2048 : tensor<2048xi32>
  %ps = brick.splat %p : tensor<2048x!brick.ptr<f32>>
  %ptrs = brick.addptr %ps, %r : tensor<2048x!brick.ptr<f32>>, tensor<2048xi32>
  %x = brick.load %ptrs : tensor<2048x!brick.ptr<f32>>
  %sum = brick.scan(%x) axis = 0 reverse = false : (tensor<2048xf32>) -> tensor<2048xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    brick.scan.return %s : f32
  }
  brick.store %ptrs, %sum : tensor<2048x!brick.ptr<f32>>
  %rows = brick.make_range 0, 64 : tensor<64xi32>
  %cols = brick.make_range 0, 32 : tensor<32xi32>
  %rows2 = brick.expand_dims %rows {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %cols2 = brick.expand_dims %cols {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %c32 = arith.constant dense<32> : tensor<64x1xi32>
  %rowStart = arith.muli %rows2, %c32 : tensor<64x1xi32>
  %rowStartB = brick.broadcast %rowStart : tensor<64x1xi32> -> tensor<64x32xi32>
  %colsB = brick.broadcast %cols2 : tensor<1x32xi32> -> tensor<64x32xi32>
  %offsets = arith.addi %rowStartB, %colsB : tensor<64x32xi32>
  %qs = brick.splat %q : tensor<64x32x!brick.ptr<i32>>
  %qptrs = brick.addptr %qs, %offsets : tensor<64x32x!brick.ptr<i32>>, tensor<64x32xi32>
  %y = brick.load %qptrs : tensor<64x32x!brick.ptr<i32>>
  %max = brick.scan(%y) axis = 0 reverse = true : (tensor<64x32xi32>) -> tensor<64x32xi32> {
  ^bb0(%a: i32, %b: i32):
    %m = arith.maxsi %a, %b : i32
    brick.scan.return %m : i32
  }
  brick.store %qptrs, %max : tensor<64x32x!brick.ptr<i32>>
  return
}
