//===- softmax.h - Fused row softmax: one row per program, read once, written once ---===//
#ifndef BRICK_EXAMPLES_SOFTMAX_H
#define BRICK_EXAMPLES_SOFTMAX_H

#include "brick/brick.h"

#include <cmath>

namespace examples {
using namespace brick;

/// Launch with one program per row; BLOCK is the next power of two >= cols. T is the element type in memory
/// (f32, f16 or bf16); the arithmetic is f32.
template <ElementTag T = f32> auto softmax() {
  return kernel("softmax", [](Ptr<T> out, Ptr<T> in, Int inRowStride, Int outRowStride, Int cols, Const<int> BLOCK) {
    Int row = program_id(0);
    Tensor columns = arange(0, BLOCK);
    Tensor inRow = columns < cols;
    // Masked-off columns read -inf: they add exp(-inf) = 0 to the sum and never win the max.
    Tensor stored = load(in + row * inRowStride + columns, inRow, -INFINITY);
    Tensor x = stored.to<f32>();
    Tensor numerator = exp(x - max(x, 0));
    store(out + row * outRowStride + columns, numerator / sum(numerator, 0), inRow);
  });
}

/// Warps per program for rows of `block` elements of `elementBytes` each: about 2 KB of the row per warp (four
/// 16-byte vectors per thread), from 1 to 16. This is what `bench/run.py --sweep` found best on an H100 at most
/// sizes; the Triton tutorial's rule (by block size alone) gives wide rows of small elements too many warps.
inline unsigned softmaxWarps(int block, int elementBytes) {
  unsigned warps = 1;
  while (warps < 16 && warps * 2048u < unsigned(block) * unsigned(elementBytes))
    warps *= 2;
  return warps;
}

} // namespace examples

#endif // BRICK_EXAMPLES_SOFTMAX_H
