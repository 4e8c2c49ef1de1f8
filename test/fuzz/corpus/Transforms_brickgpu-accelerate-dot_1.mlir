#l = #brickgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [8, 1], order = [1, 0]}>
module attributes {brickgpu.num_warps = 8 : i32} {
  func.func @tf32(%a: tensor<128x32xf32, #l>, %b: tensor<32x128xf32, #l>, %c: tensor<128x128xf32, #l>) -> tensor<128x128xf32, #l> {
    %d = brick.dot %a, %b, %c inputPrecision = tf32 : tensor<128x32xf32, #l> * tensor<32x128xf32, #l> -> tensor<128x128xf32, #l>
    return %d : tensor<128x128xf32, #l>
  }
  func.func @ieee(%a: tensor<128x32xf32, #l>, %b: tensor<32x128xf32, #l>, %c: tensor<128x128xf32, #l>) -> tensor<128x128xf32, #l> {
    %d = brick.dot %a, %b, %c : tensor<128x32xf32, #l> * tensor<32x128xf32, #l> -> tensor<128x128xf32, #l>
    return %d : tensor<128x128xf32, #l>
  }
  func.func @i8(%a: tensor<128x64xi8, #l>, %b: tensor<64x128xi8, #l>, %c: tensor<128x128xi32, #l>) -> tensor<128x128xi32, #l> {
    %d = brick.dot %a, %b, %c : tensor<128x64xi8, #l> * tensor<64x128xi8, #l> -> tensor<128x128xi32, #l>
    return %d : tensor<128x128xi32, #l>
  }
  func.func @small(%a: tensor<8x32xf16, #l>, %b: tensor<32x64xf16, #l>, %c: tensor<8x64xf32, #l>) -> tensor<8x64xf32, #l> {
    %d = brick.dot %a, %b, %c : tensor<8x32xf16, #l> * tensor<32x64xf16, #l> -> tensor<8x64xf32, #l>
    return %d : tensor<8x64xf32, #l>
  }
}
