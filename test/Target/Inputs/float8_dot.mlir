// C = A B^T of 8-bit floats: A 128 x 128 e4m3fn, B 128 x 128 e5m2 stored N x K (both along K, as wgmma reads 8-bit
// operands), f32 accumulator.
module {
  func.func @float8_dot(%a: !brick.ptr<f8E4M3FN> {brick.divisibility = 16 : i32}, %b: !brick.ptr<f8E5M2> {brick.divisibility = 16 : i32}, %c: !brick.ptr<f32> {brick.divisibility = 16 : i32}) attributes {brick.kernel} {
    %r = brick.make_range 0, 128 : tensor<128xi32>
    %c128 = arith.constant dense<128> : tensor<128x1xi32>
    %rows = brick.expand_dims %r {axis = 1 : i32} : tensor<128xi32> -> tensor<128x1xi32>
    %cols = brick.expand_dims %r {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
    %rs = arith.muli %rows, %c128 : tensor<128x1xi32>
    %rb = brick.broadcast %rs : tensor<128x1xi32> -> tensor<128x128xi32>
    %cb = brick.broadcast %cols : tensor<1x128xi32> -> tensor<128x128xi32>
    %off = arith.addi %rb, %cb : tensor<128x128xi32>
    %as = brick.splat %a : tensor<128x128x!brick.ptr<f8E4M3FN>>
    %ap = brick.addptr %as, %off : tensor<128x128x!brick.ptr<f8E4M3FN>>, tensor<128x128xi32>
    %x = brick.load %ap : tensor<128x128x!brick.ptr<f8E4M3FN>>
    %bs = brick.splat %b : tensor<128x128x!brick.ptr<f8E5M2>>
    %bp = brick.addptr %bs, %off : tensor<128x128x!brick.ptr<f8E5M2>>, tensor<128x128xi32>
    %y = brick.load %bp : tensor<128x128x!brick.ptr<f8E5M2>>
    %yt = brick.trans %y [1, 0] : tensor<128x128xf8E5M2> -> tensor<128x128xf8E5M2>
    %zero = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
    %d = brick.dot %x, %yt, %zero : tensor<128x128xf8E4M3FN> * tensor<128x128xf8E5M2> -> tensor<128x128xf32>
    %cs = brick.splat %c : tensor<128x128x!brick.ptr<f32>>
    %cp = brick.addptr %cs, %off : tensor<128x128x!brick.ptr<f32>>, tensor<128x128xi32>
    brick.store %cp, %d : tensor<128x128x!brick.ptr<f32>>
    return
  }
}
