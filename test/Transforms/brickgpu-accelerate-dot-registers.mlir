// A dot whose accumulator cannot fit in the registers of its threads is an error at the dot, with the numbers.
// RUN: brick-opt %s -brickgpu-accelerate-dot -verify-diagnostics -split-input-file

#l = #brickgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {brickgpu.num_warps = 4 : i32} {
  func.func @big(%a: tensor<256x64xf16, #l>, %b: tensor<64x256xf16, #l>, %c: tensor<256x256xf32, #l>) -> tensor<256x256xf32, #l> {
    // expected-error @+1 {{kernel 'big': this dot's 256x256 'f32' accumulator over 4 warps needs at least 576 registers per thread (512 for the accumulator), more than the 255 a thread may have with 128 threads; use more warps or smaller blocks}}
    %d = brick.dot %a, %b, %c : tensor<256x64xf16, #l> * tensor<64x256xf16, #l> -> tensor<256x256xf32, #l>
    return %d : tensor<256x256xf32, #l>
  }
}

// -----

// 16 warps leave 128 registers per thread; an FMA dot counts its accumulator alone.
#l = #brickgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [16, 1], order = [1, 0]}>
module attributes {brickgpu.num_warps = 16 : i32} {
  func.func @fma(%a: tensor<256x64xf32, #l>, %b: tensor<64x512xf32, #l>, %c: tensor<256x512xf32, #l>) -> tensor<256x512xf32, #l> {
    // expected-error @+1 {{needs at least 256 registers per thread (256 for the accumulator), more than the 128 a thread may have with 512 threads}}
    %d = brick.dot %a, %b, %c : tensor<256x64xf32, #l> * tensor<64x512xf32, #l> -> tensor<256x512xf32, #l>
    return %d : tensor<256x512xf32, #l>
  }
}
