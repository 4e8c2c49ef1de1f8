//===- softmax.h - Fused row softmax: ROWS rows per program, each read once and written once ---===//
#ifndef BRICK_EXAMPLES_SOFTMAX_H
#define BRICK_EXAMPLES_SOFTMAX_H

#include "brick/brick.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace examples {
using namespace brick;

/// ROWS rows per tile, cdiv(rows, ROWS) tiles; program p does tiles p, p + programs, p + 2 * programs, ... so a
/// launch may have one program per tile or fewer (a persistent grid). BLOCK is the next power of two >= cols.
/// T is the element type in memory (f32, f16 or bf16); the arithmetic is f32.
template <ElementTag T = f32> auto softmax() {
  return kernel("softmax", [](Ptr<T> out, Ptr<T> in, Int inRowStride, Int outRowStride, Int rows, Int cols,
                              Const<int> BLOCK, Const<int> ROWS) {
    Tensor columns = arange(0, BLOCK);
    for_range(program_id(0), cdiv(rows, ROWS), num_programs(0), [&](Int tile) {
      Tensor rowIds = tile * ROWS + arange(0, ROWS);
      Tensor inBounds = (rowIds < rows).column() & (columns < cols).row();
      // Masked-off columns read -inf: they add exp(-inf) = 0 to the sum and never win the max.
      Tensor stored = load(in + rowIds.column() * inRowStride + columns.row(), inBounds, -INFINITY);
      Tensor x = stored.to<f32>();
      Tensor numerator = exp(x - max(x, 1).column());
      store(out + rowIds.column() * outRowStride + columns.row(), numerator / sum(numerator, 1).column(), inBounds);
    });
  });
}

/// How to launch softmax on rows of `cols` elements of `elementBytes` each.
struct SoftmaxConfig {
  int block;         // BLOCK: the next power of two >= cols
  int rows;          // ROWS per tile
  unsigned warps;    // warps per program
  /// Programs for `rowCount` rows: one per tile, or at most `maxPrograms` when that is given (a persistent grid).
  unsigned programs(int rowCount, unsigned maxPrograms = 0) const {
    unsigned tiles = unsigned((rowCount + rows - 1) / rows);
    return maxPrograms ? std::min(tiles, maxPrograms) : tiles;
  }
};

/// About 2 KB of row per warp (four 16-byte vectors per thread), from 1 to 16 warps; rows shorter than 2 KB
/// share a program (up to 4, a warp each). `bench/run.py --sweep` measures the alternatives: on an H100, several
/// rows per program paid off only for short rows, and persistent grids never.
inline SoftmaxConfig softmaxConfig(int cols, int elementBytes) {
  SoftmaxConfig config{1, 1, 1};
  while (config.block < cols)
    config.block *= 2;
  unsigned rowBytes = unsigned(config.block) * unsigned(elementBytes);
  while (config.rows < 4 && unsigned(config.rows) * 2 * rowBytes <= 2048)
    config.rows *= 2;
  while (config.warps < 16 && config.warps * 2048u < unsigned(config.rows) * rowBytes)
    config.warps *= 2;
  config.warps = std::max(config.warps, unsigned(config.rows));
  return config;
}

/// What the softmax examples autotune over (brick/JIT/Autotune.h): ROWS from 1 to 4 and 1 to 16 warps (at least
/// one per row); BLOCK follows the columns. softmaxCandidateNear keeps, for rows of `cols`, softmaxConfig's choice
/// and its neighbours (half or twice the rows, half or twice the warps).
inline std::vector<SoftmaxConfig> softmaxCandidates() {
  std::vector<SoftmaxConfig> configs;
  for (int rows : {1, 2, 4})
    for (unsigned warps : {1u, 2u, 4u, 8u, 16u})
      if (warps >= unsigned(rows))
        configs.push_back({0, rows, warps});
  return configs;
}
inline bool softmaxCandidateNear(const SoftmaxConfig &candidate, int cols, int elementBytes) {
  SoftmaxConfig rule = softmaxConfig(cols, elementBytes);
  auto near = [](unsigned a, unsigned b) { return a == b || a == 2 * b || 2 * a == b; };
  return near(unsigned(candidate.rows), unsigned(rule.rows)) && near(candidate.warps, rule.warps);
}

} // namespace examples

#endif // BRICK_EXAMPLES_SOFTMAX_H
