//===- attention.h - Fused attention forward: softmax(Q K^T * scale) V, one pass over K and V ---===//
#ifndef BRICK_EXAMPLES_ATTENTION_H
#define BRICK_EXAMPLES_ATTENTION_H

#include "brick/brick.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace examples {
using namespace brick;

/// O = softmax(Q K^T * scale) V for every (batch, head), as FlashAttention computes it: a program takes BLOCK_M
/// query rows of one head and walks that head's keys and values BLOCK_N rows at a time, keeping the running row
/// max m, the running row sum l and the unnormalized output in registers (online softmax), so the seqLen x seqLen
/// score matrix never reaches memory. Q, K, V and O are [batch * heads * seqLen, HEAD_DIM] row-major through
/// tensor descriptors of BLOCK_M x HEAD_DIM (Q, O) and BLOCK_N x HEAD_DIM (K, V) blocks; seqLen is a multiple of
/// BLOCK_M and BLOCK_N. Launch with (seqLen / BLOCK_M, batch * heads) programs.
///
/// The second dot's A operand, P, is computed in registers: on sm_90a wgmma takes it from there, in the layout
/// the first dot's accumulator already has, so P never goes through shared memory.
template <ElementTag T = f16> auto attention() {
  return kernel("attention", [](TensorDescriptor<T, 2> q, TensorDescriptor<T, 2> k, TensorDescriptor<T, 2> v,
                                TensorDescriptor<T, 2> o, Int seqLen, Float scale, Const<int> BLOCK_M,
                                Const<int> BLOCK_N, Const<int> HEAD_DIM) {
    Int head = program_id(1);
    Int first = head * seqLen; // the head's first row
    Int queryRow = first + program_id(0) * BLOCK_M;
    Tensor queries = q.load({queryRow, 0});
    // exp(x * scale) as exp2(x * scale * log2(e)): ex2.approx is one instruction.
    Tensor scaleLog2 = scale * 1.4426950408889634f;
    Tensor rowMax = full<f32>({BLOCK_M}, -INFINITY);
    Tensor rowSum = zeros<f32>({BLOCK_M});
    Tensor acc = zeros<f32>({BLOCK_M, HEAD_DIM});
    for_range(0, seqLen, BLOCK_N, carry(acc, rowMax, rowSum), [&](Int start) {
      Tensor scores = dot(queries, k.load({first + start, 0}).trans());
      Tensor newMax = maximum(rowMax, max(scores, 1) * scaleLog2);
      Tensor p = exp2(scores * scaleLog2 - newMax.column());
      Tensor correction = exp2(rowMax - newMax); // rescales what earlier blocks added
      rowSum = rowSum * correction + sum(p, 1);
      acc = dot(p.to<T>(), v.load({first + start, 0}), acc * correction.column());
      rowMax = newMax;
    });
    o.store({queryRow, 0}, (acc / rowSum.column()).to<T>());
  });
}

/// Row `row` of O in float64 (q, k and v as the kernel reads them: [heads * seqLen, headDim], row-major; the row's
/// head is row / seqLen), into `out` (headDim values). The check the host program and the benchmark share.
inline void attentionReferenceRow(const float *q, const float *k, const float *v, int64_t row, int seqLen,
                                  int headDim, float scale, double *out) {
  int64_t first = row / seqLen * seqLen;
  std::vector<double> p(seqLen);
  double top = -INFINITY, total = 0;
  for (int j = 0; j < seqLen; ++j) {
    double s = 0;
    for (int c = 0; c < headDim; ++c)
      s += double(q[row * headDim + c]) * k[(first + j) * headDim + c];
    top = std::max(top, p[j] = s * scale);
  }
  for (double &x : p)
    total += (x = std::exp(x - top));
  for (int c = 0; c < headDim; ++c) {
    double o = 0;
    for (int j = 0; j < seqLen; ++j)
      o += p[j] * v[(first + j) * headDim + c];
    out[c] = o / total;
  }
}

/// How to launch attention: the tiles, warps and pipeline stages.
struct AttentionConfig {
  int blockM = 128, blockN = 64;
  unsigned warps = 8, stages = 2;
};

/// Two warpgroups of 64 query rows each, over 128 keys a step for a head dimension up to 64 and 64 beyond (the
/// accumulator, the scores and P then take about half of a thread's registers). On an H100 these were the best
/// of five configs at every bench shape (bench/run --attention with a sweep).
inline AttentionConfig attentionConfig(int headDim) {
  return AttentionConfig{128, headDim <= 64 ? 128 : 64, 8, 2};
}

} // namespace examples

#endif // BRICK_EXAMPLES_ATTENTION_H
