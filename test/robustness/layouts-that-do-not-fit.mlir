// Layouts that do not fit their block or their module are refused by every GPU pass (they used to compute part of
// the block, or pair registers that hold different elements).
// RUN: brick-opt %s -split-input-file -verify-diagnostics -convert-brickgpu-to-llvm

// More warps than the module runs: half of the block would never be computed.
#eight = #brickgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>
module attributes {brickgpu.num_warps = 4 : i32} {
  func.func @warps() {
    // expected-error @+1 {{convert-brickgpu-to-llvm: the layout of 'tensor<256xi32, #brickgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>>' spreads a block over 8 warps, but the module runs 4 (brickgpu.num_warps)}}
    %r = brick.make_range 0, 256 : tensor<256xi32, #eight>
    return
  }
}

// -----

// A rank-1 layout on a rank-2 block.
#one = #brickgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {brickgpu.num_warps = 4 : i32} {
  func.func @rank() {
    // expected-error @+1 {{is for rank-1 blocks}}
    %c = arith.constant dense<0> : tensor<4x32xi32, #one>
    return
  }
}

// -----

// A batched (3-D) tensor-core layout on a 2-D block.
#mma3 = #brickgpu.mma<{version = 2, warpsPerCTA = [2, 2, 1], instrShape = [16, 8]}>
module attributes {brickgpu.num_warps = 4 : i32} {
  func.func @mma_rank() {
    // expected-error @+1 {{is for rank-3 blocks}}
    %c = arith.constant dense<0.0> : tensor<32x16xf32, #mma3>
    return
  }
}

// -----

// An elementwise op whose operands are in different layouts (arith's own verifier already refuses it; the GPU
// passes check every elementwise op the same way).
#a = #brickgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#b = #brickgpu.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {brickgpu.num_warps = 4 : i32} {
  func.func @mixed(%x: tensor<256xi32, #a>, %y: tensor<256xi32, #b>) {
    // expected-error @+1 {{requires the same encoding for all operands and results}}
    %z = "arith.addi"(%x, %y) : (tensor<256xi32, #a>, tensor<256xi32, #b>) -> tensor<256xi32, #a>
    return
  }
}
