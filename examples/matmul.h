//===- matmul.h - C = A * B, tiled, with dot over a K loop and grouped program order ---===//
#ifndef BRICK_EXAMPLES_MATMUL_H
#define BRICK_EXAMPLES_MATMUL_H

#include "brick/brick.h"

namespace examples {
using namespace brick;

/// Launch with cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N) programs. Programs run in groups of GROUP_M rows of
/// tiles, so consecutive programs share tiles of B in L2.
template <ElementTag T = f16> auto matmul() {
  return kernel("matmul", [](Ptr<T> a, Ptr<T> b, Ptr<T> c, Int M, Int N, Int K, Int strideAM, Int strideAK,
                             Int strideBK, Int strideBN, Int strideCM, Int strideCN, Const<int> BLOCK_M,
                             Const<int> BLOCK_N, Const<int> BLOCK_K, Const<int> GROUP_M) {
    auto [tileM, tileN] = grouped_tile(program_id(0), cdiv(M, BLOCK_M), cdiv(N, BLOCK_N), GROUP_M);

    // Rows and columns wrap around (% M, % N) so loads stay in bounds; the store masks them instead.
    Tensor rowsA = (tileM * BLOCK_M + arange(0, BLOCK_M)) % M;
    Tensor colsB = (tileN * BLOCK_N + arange(0, BLOCK_N)) % N;
    Tensor ks = arange(0, BLOCK_K);
    Tensor aTile = a + rowsA.column() * strideAM + ks.row() * strideAK;
    Tensor bTile = b + ks.column() * strideBK + colsB.row() * strideBN;
    Tensor acc = zeros<f32>({BLOCK_M, BLOCK_N});
    for_range(0, cdiv(K, BLOCK_K), 1, carry(acc, aTile, bTile), [&](Int k) {
      Tensor kLeft = K - k * BLOCK_K;
      acc = dot(load(aTile, ks.row() < kLeft, 0.0), load(bTile, ks.column() < kLeft, 0.0), acc);
      aTile = aTile + BLOCK_K * strideAK;
      bTile = bTile + BLOCK_K * strideBK;
    });

    Tensor rowsC = tileM * BLOCK_M + arange(0, BLOCK_M);
    Tensor colsC = tileN * BLOCK_N + arange(0, BLOCK_N);
    store(c + rowsC.column() * strideCM + colsC.row() * strideCN, acc, (rowsC.column() < M) & (colsC.row() < N));
  });
}

} // namespace examples

#endif // BRICK_EXAMPLES_MATMUL_H
