//===- moe.h - Grouped GEMM of a fused mixture-of-experts layer ---------------===//
//
// Each of T tokens is routed to `topk` experts. The host sorts the T * topk (token, expert) pairs by expert
// and pads each expert's run to a multiple of BLOCK_M (padding entries hold T * topk, an invalid id);
// blockExpert[i] is the expert of the i-th block of BLOCK_M sorted rows. Each program multiplies one block
// of gathered token rows by one expert's weights and scatters the result rows back by pair id:
//   c[pair, :] = a[pair / topk, :] * w[expert(pair)]^T        with w of shape [E, N, K]
//
//===----------------------------------------------------------------------===//
#ifndef BRICK_EXAMPLES_MOE_H
#define BRICK_EXAMPLES_MOE_H

#include "brick/brick.h"

namespace examples {
using namespace brick;

/// Launch with (paddedPairs / BLOCK_M) * cdiv(N, BLOCK_N) programs.
template <ElementTag T = bf16> auto moe() {
  return kernel("moe", [](Ptr<T> a, Ptr<T> w, Ptr<T> c, Ptr<i32> sortedPairIds, Ptr<i32> blockExpert,
                          Int paddedPairs, Int N, Int K, Int topk, Int numPairs, Int strideAM, Int strideAK,
                          Int strideWE, Int strideWN, Int strideWK, Int strideCM, Int strideCN, Const<int> BLOCK_M,
                          Const<int> BLOCK_N, Const<int> BLOCK_K, Const<int> GROUP_M) {
    auto [tileM, tileN] = grouped_tile(program_id(0), cdiv(paddedPairs, BLOCK_M), cdiv(N, BLOCK_N), GROUP_M);

    Tensor pairs = load(sortedPairIds + tileM * BLOCK_M + arange(0, BLOCK_M));
    Tensor realPair = pairs < numPairs;
    // Expert offsets exceed 2^31 elements for large models: index the weights in i64.
    Long expert = load(blockExpert + tileM).to<i64>();
    Tensor colsW = (tileN * BLOCK_N + arange(0, BLOCK_N)) % N;
    Tensor ks = arange(0, BLOCK_K);
    Tensor aTile = a + (pairs / topk).column() * strideAM + ks.row() * strideAK;
    Tensor wTile = w + expert * strideWE + colsW.row() * strideWN + ks.column() * strideWK;
    Tensor acc = zeros<f32>({BLOCK_M, BLOCK_N});
    for_range(0, cdiv(K, BLOCK_K), 1, carry(acc, aTile, wTile), [&](Int k) {
      Tensor kLeft = K - k * BLOCK_K;
      Tensor aBlock = load(aTile, realPair.column() & (ks.row() < kLeft), 0.0);
      Tensor wBlock = load(wTile, ks.column() < kLeft, 0.0);
      acc = dot(aBlock, wBlock, acc);
      aTile = aTile + BLOCK_K * strideAK;
      wTile = wTile + BLOCK_K * strideWK;
    });

    Tensor colsC = tileN * BLOCK_N + arange(0, BLOCK_N);
    store(c + pairs.column() * strideCM + colsC.row() * strideCN, acc, realPair.column() & (colsC.row() < N));
  });
}

} // namespace examples

#endif // BRICK_EXAMPLES_MOE_H
