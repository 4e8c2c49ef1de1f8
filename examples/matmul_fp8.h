//===- matmul_fp8.h - FP8 GEMM with DeepSeek-V3's block scales, promoted to f32 every block of K ---===//
#ifndef BRICK_EXAMPLES_MATMUL_FP8_H
#define BRICK_EXAMPLES_MATMUL_FP8_H

#include "brick/brick.h"

namespace examples {
using namespace brick;

/// C (M x N, bf16) = (A x scaleA) (B x scaleB)^T for A (M x K) and B (N x K, a weight) in e4m3, with DeepSeek-V3's
/// block scales: one f32 per 1 x 128 of A (scaleA stored [K / 128, M], as DeepGEMM's TMA-friendly layout) and one
/// per 128 x 128 of B (scaleB [N / 128, K / 128]). BLOCK_K is 128, one scale block: each step's product starts
/// from zero on the tensor cores and is scaled and added to the f32 accumulator in registers, so the tensor cores'
/// narrower FP8 accumulation never spans more than 128 of K (DeepGEMM's promotion).
///
/// Launch with cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N) programs, in groups of GROUP_M rows of tiles. K must be a
/// multiple of 128, and BLOCK_N at most 128 or a multiple of it.
inline auto matmulFp8BlockScaled() {
  return kernel("matmul_fp8_block_scaled", [](TensorDescriptor<f8e4m3, 2> a, TensorDescriptor<f8e4m3, 2> b,
                                              TensorDescriptor<bf16, 2> c, Ptr<f32> scaleA, Ptr<f32> scaleB, Int M,
                                              Int N, Int K, Const<int> BLOCK_M, Const<int> BLOCK_N, Const<int> GROUP_M) {
    constexpr int BLOCK_K = 128;
    auto [tileM, tileN] = grouped_tile(program_id(0), cdiv(M, BLOCK_M), cdiv(N, BLOCK_N), GROUP_M);
    Int row = tileM * BLOCK_M, column = tileN * BLOCK_N;
    Tensor rows = row + arange(0, BLOCK_M), columns = column + arange(0, BLOCK_N);
    Tensor weightBlocks = minimum(columns, N - 1) / 128 * (K / 128); // the row of scaleB each column reads
    Tensor acc = zeros<f32>({BLOCK_M, BLOCK_N});
    // The scales of step k + 1 are read during step k: their latency hides behind the step's product.
    Int steps = K / BLOCK_K;
    Tensor rowScales = load(scaleA + rows, rows < M, 0.0f), columnScales = load(scaleB + weightBlocks);
    for_range(0, steps, 1, carry(acc, rowScales, columnScales), [&](Int k) {
      Tensor next = minimum(k + 1, steps - 1);
      Tensor nextRowScales = load(scaleA + next * M + rows, rows < M, 0.0f);
      Tensor nextColumnScales = load(scaleB + weightBlocks + next);
      Tensor partial = dot(a.load({row, k * BLOCK_K}), b.load({column, k * BLOCK_K}).trans());
      acc = acc + partial * (rowScales.column() * columnScales.row());
      rowScales = nextRowScales, columnScales = nextColumnScales;
    });
    c.store({row, column}, acc);
  });
}

} // namespace examples

#endif // BRICK_EXAMPLES_MATMUL_FP8_H
