// A tensor-core dot whose operand layouts do not hold the accumulator's fragments (hand-written IR: the operands'
// parent splits the warps differently) is refused, not computed from the wrong registers.
// RUN: brick-opt %s -convert-brickgpu-to-llvm -verify-diagnostics

#mma = #brickgpu.mma<{version = 2, warpsPerCTA = [1, 4], instrShape = [16, 8]}>
#other = #brickgpu.mma<{version = 2, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
#a = #brickgpu.dot_op<{opIdx = 0, parent = #other, kWidth = 2}>
#b = #brickgpu.dot_op<{opIdx = 1, parent = #other, kWidth = 2}>
module attributes {brickgpu.num_warps = 4 : i32} {
  func.func @mismatch(%a: tensor<64x16xf16, #a>, %b: tensor<16x64xf16, #b>, %c: tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma> {
    // expected-error @+1 {{failed to legalize operation 'brick.dot'}}
    %d = brick.dot %a, %b, %c : tensor<64x16xf16, #a> * tensor<16x64xf16, #b> -> tensor<64x64xf32, #mma>
    return %d : tensor<64x64xf32, #mma>
  }
}
