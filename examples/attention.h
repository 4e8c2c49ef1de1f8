//===- attention.h - Fused attention forward (prefill): causal, grouped-query, variable lengths ---===//
#ifndef BRICK_EXAMPLES_ATTENTION_H
#define BRICK_EXAMPLES_ATTENTION_H

#include "brick/JIT/JIT.h"
#include "brick/brick.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace examples {
using namespace brick;

/// O = softmax(Q K^T * scale) V for every sequence of a batch and every query head, as FlashAttention computes
/// it: a program takes BLOCK_M query rows of one sequence and one head and walks the keys and values it may see
/// BLOCK_N rows at a time, keeping the running row max, the running row sum and the unnormalized output in
/// registers (online softmax), so the scores never reach memory.
///
/// The layout is FlashAttention's: Q is [tokens, qHeads, HEAD_DIM], K [tokens, qHeads / GROUP, HEAD_DIM], V
/// [tokens, qHeads / GROUP, V_DIM] and O [tokens, qHeads, V_DIM], all sequences packed one after another without
/// padding. Blocks have power-of-two shapes, so a head dimension such as 96 or 192 is read in pieces: Q and K
/// through 2-D descriptors of [tokens, heads * HEAD_DIM] in BLOCK_M x BLOCK_D and BLOCK_N x BLOCK_D blocks (BLOCK_D
/// divides HEAD_DIM: 96 is three pieces of 32), V in BLOCK_N x BLOCK_DV blocks. Q K^T adds the pieces' dots on
/// one accumulator and P V keeps one accumulator per piece of V, so no work is padded. Sequence b's queries are rows
/// cuSeqlensQ[b] to cuSeqlensQ[b + 1] and its keys cuSeqlensK[b] to cuSeqlensK[b + 1] (VARLEN), or b * seqLenQ and
/// b * seqLenK on (all lengths equal, nothing read). Query head h reads K/V head h / GROUP (grouped-query).
///
/// Query i of a sequence sees key j where j < its keys and, with an offset of keys - queries (the masks aligned
/// bottom-right, as FlashAttention's), j <= i + offset (CAUSAL) and, with WINDOW, i + offset - windowLeft <= j
/// <= i + offset + windowRight (a negative bound is none). SOFTCAP replaces the scaled score s by softcap *
/// tanh(s / softcap). Key blocks nothing may see are never loaded; only blocks that cross a mask's edge are
/// masked. A row that sees no key gets zeros (and a log-sum-exp of -inf). With LSE, lse[h * totalQ + row] is the
/// row's natural log-sum-exp of its scaled scores (FlashAttention's [qHeads, totalQ] layout).
///
/// Launch with (cdiv(longest query sequence, BLOCK_M), qHeads, batch) programs. A program past its sequence's
/// queries does nothing; offsets past totalQ or totalK read zeros and write nothing.
template <ElementTag T = f16> auto attention() {
  return kernel("attention", [](TensorDescriptor<T, 2> q, TensorDescriptor<T, 2> k, TensorDescriptor<T, 2> v, Ptr<T> o,
                                Ptr<f32> lse, Ptr<i32> cuSeqlensQ, Ptr<i32> cuSeqlensK, Int seqLenQ, Int seqLenK,
                                Int totalQ, Int totalK, Int qHeads, Float scale, Float softcap, Int windowLeft,
                                Int windowRight, Const<int> BLOCK_M, Const<int> BLOCK_N, Const<int> BLOCK_D,
                                Const<int> BLOCK_DV, Const<int> HEAD_DIM, Const<int> V_DIM, Const<int> GROUP,
                                Const<int> VARLEN, Const<int> CAUSAL, Const<int> WINDOW, Const<int> SOFTCAP,
                                Const<int> LSE) {
    Int head = program_id(1), sequence = program_id(2);
    auto clamp = [](const Operand &x, const Operand &lo, const Operand &hi) { return minimum(maximum(x, lo), hi); };
    // The sequence's first query and key rows and their counts, clamped to the tensors (never past them).
    Tensor qFirst, kFirst, queries, keys;
    if (VARLEN.value()) {
      qFirst = clamp(load(cuSeqlensQ + sequence), 0, totalQ);
      kFirst = clamp(load(cuSeqlensK + sequence), 0, totalK);
      queries = clamp(load(cuSeqlensQ + sequence + 1), qFirst, totalQ) - qFirst;
      keys = clamp(load(cuSeqlensK + sequence + 1), kFirst, totalK) - kFirst;
    } else {
      qFirst = clamp(sequence * seqLenQ, 0, totalQ);
      kFirst = clamp(sequence * seqLenK, 0, totalK);
      queries = clamp(qFirst + seqLenQ, qFirst, totalQ) - qFirst;
      keys = clamp(kFirst + seqLenK, kFirst, totalK) - kFirst;
    }
    // Causal blocks do the most work at the bottom: the grid's first programs take them, so the last wave is short.
    Tensor block = CAUSAL.value() ? num_programs(0) - 1 - program_id(0) : program_id(0);
    Tensor first = block * BLOCK_M; // this program's first query, within its sequence
    Tensor last = minimum(first + BLOCK_M, queries) - 1;
    Tensor offset = keys - queries;

    // The keys rows first to last may see: [lo, hi), lo a whole number of blocks. Every row sees the whole of
    // each block in [fullStart, fullEnd); the blocks before and after are masked.
    bool right = CAUSAL.value() || WINDOW.value(), left = WINDOW.value();
    Operand rightBound = CAUSAL.value() ? Operand(0) : Operand(windowRight);
    Tensor hi = keys, fullHi = keys / BLOCK_N * BLOCK_N;
    if (right) {
      Tensor bounded = clamp(last + offset + rightBound + 1, 0, keys);
      Tensor boundedFull = clamp(first + offset + rightBound + 1, 0, fullHi) / BLOCK_N * BLOCK_N;
      hi = CAUSAL.value() ? bounded : where(windowRight < 0, hi, bounded);
      fullHi = CAUSAL.value() ? boundedFull : where(windowRight < 0, fullHi, boundedFull);
    }
    hi = where(first < queries, hi, 0); // a program past its sequence's queries loads nothing
    Tensor lo;
    Operand fullStart = 0;
    if (left) {
      lo = where(windowLeft < 0, 0, clamp(first + offset - windowLeft, 0, keys) / BLOCK_N * BLOCK_N);
      Tensor fullLo = where(windowLeft < 0, 0, cdiv(clamp(last + offset - windowLeft, 0, keys), BLOCK_N) * BLOCK_N);
      fullStart = clamp(fullLo, lo, hi);
    }
    Tensor fullEnd = clamp(fullHi, fullStart, hi);

    Tensor rows = first + arange(0, BLOCK_M);
    const int queryPieces = HEAD_DIM.value() / BLOCK_D.value(), valuePieces = V_DIM.value() / BLOCK_DV.value();
    std::vector<Tensor> queryBlock;
    for (int d = 0; d < queryPieces; ++d)
      queryBlock.push_back(q.load({qFirst + first, head * HEAD_DIM + d * BLOCK_D}));
    // exp(x * scale) as exp2(x * scale * log2(e)): ex2.approx is one instruction. With a softcap the scores are
    // softcap * tanh(s * scale / softcap): the scale goes into tanh's argument and softcap becomes the scale.
    Tensor scaleLog2 = (SOFTCAP.value() ? softcap : scale) * 1.4426950408889634f;
    Tensor rowMax = full<f32>({BLOCK_M}, -INFINITY);
    Tensor rowSum = zeros<f32>({BLOCK_M});
    std::vector<Tensor> acc(valuePieces, zeros<f32>({BLOCK_M, BLOCK_DV}));
    Int kvHead = head / GROUP;

    auto step = [&](Int start, bool masked) {
      Tensor scores = dot(queryBlock[0], k.load({kFirst + start, kvHead * HEAD_DIM}).trans());
      for (int d = 1; d < queryPieces; ++d)
        scores = dot(queryBlock[d], k.load({kFirst + start, kvHead * HEAD_DIM + d * BLOCK_D}).trans(), scores);
      if (SOFTCAP.value())
        scores = tanh(scores * (scale / softcap));
      if (masked) {
        Tensor key = (start + arange(0, BLOCK_N)).row();
        Tensor seen = key < keys;
        if (CAUSAL.value())
          seen = seen & (key <= rows.column() + offset);
        else if (right)
          seen = seen & ((windowRight < 0) | (key <= rows.column() + (offset + windowRight)));
        if (left)
          seen = seen & ((windowLeft < 0) | (key >= rows.column() + (offset - windowLeft)));
        scores = where(seen, scores, -INFINITY);
      }
      Tensor newMax = maximum(rowMax, max(scores, 1) * scaleLog2);
      // A row that has seen no key yet keeps a max of -inf: subtract 0 instead, so that its p is 0, not NaN.
      Tensor shift = masked ? where(newMax == -INFINITY, 0.0f, newMax) : newMax;
      Tensor p = exp2(scores * scaleLog2 - shift.column());
      Tensor correction = exp2(rowMax - shift); // rescales what earlier blocks added
      rowSum = rowSum * correction + sum(p, 1);
      Tensor probabilities = p.to<T>();
      for (int d = 0; d < valuePieces; ++d) {
        Tensor values = v.load({kFirst + start, kvHead * V_DIM + d * BLOCK_DV});
        acc[d] = dot(probabilities, values, acc[d] * correction.column());
      }
      rowMax = newMax;
    };
    if (left)
      for_range(lo, fullStart, BLOCK_N, carry(acc, rowMax, rowSum), [&](Int start) { step(start, true); });
    for_range(fullStart, fullEnd, BLOCK_N, carry(acc, rowMax, rowSum), [&](Int start) { step(start, false); });
    for_range(fullEnd, hi, BLOCK_N, carry(acc, rowMax, rowSum), [&](Int start) { step(start, true); });

    Tensor live = rows < queries;
    Tensor inverse = where(rowSum == 0.0f, 0.0f, 1.0f / rowSum);
    Tensor token = (qFirst + rows).to<i64>();
    for (int d = 0; d < valuePieces; ++d) {
      Tensor columns = head * V_DIM + d * BLOCK_DV + arange(0, BLOCK_DV);
      store(o + token.column() * (qHeads * V_DIM) + columns.row(), (acc[d] * inverse.column()).to<T>(), live.column());
    }
    if (LSE.value()) {
      Tensor logSumExp = where(rowSum == 0.0f, -INFINITY, (rowMax + log2(rowSum)) * 0.6931471805599453f);
      store(lse + head.to<i64>() * totalQ + token, logSumExp, live);
    }
  });
}

/// One attention problem: a batch of sequences (all of seqLenQ queries and seqLenK keys, or of the lengths that
/// cumulative offsets give), its heads and options, in FlashAttention's packed layout (see attention()).
struct AttentionShape {
  int batch = 1, seqLenQ = 0, seqLenK = 0;
  /// Variable lengths: the host's copy of the offsets (batch + 1 each, from 0, never decreasing) the kernel reads
  /// on the device; then batch, seqLenQ and seqLenK are not used.
  std::vector<int32_t> cuSeqlensQ, cuSeqlensK;
  int qHeads = 1, kvHeads = 1;
  int headDim = 64;  // of Q and K: a multiple of 16 from 16 to 256
  int valueDim = 0;  // of V and O, as headDim; 0: headDim (DeepSeek-V3's prefill: 192 and 128)
  bool causal = false;
  int windowLeft = -1, windowRight = -1; // a sliding window's bounds; -1: none on that side
  float softcap = 0;                     // 0: none
  float scale = 0;                       // 0: 1 / sqrt(headDim)
  bool logSumExp = false;                // also write the log-sum-exp of each row and head

  bool varlen() const { return !cuSeqlensQ.empty(); }
  int sequences() const { return varlen() ? int(cuSeqlensQ.size()) - 1 : batch; }
  int64_t queryStart(int b) const { return varlen() ? cuSeqlensQ[b] : int64_t(b) * seqLenQ; }
  int64_t keyStart(int b) const { return varlen() ? cuSeqlensK[b] : int64_t(b) * seqLenK; }
  int64_t queries(int b) const { return queryStart(b + 1) - queryStart(b); }
  int64_t keys(int b) const { return keyStart(b + 1) - keyStart(b); }
  int64_t totalQ() const { return queryStart(sequences()); }
  int64_t totalK() const { return keyStart(sequences()); }
  int vDim() const { return valueDim ? valueDim : headDim; }
  float softmaxScale() const { return scale != 0 ? scale : 1.0f / std::sqrt(float(headDim)); }
  bool windowed() const { return windowLeft >= 0 || windowRight >= 0; }
  /// Whether query i of a sequence of `queries` queries and `keys` keys sees key j.
  bool sees(int64_t i, int64_t j, int64_t queries, int64_t keys) const;
  /// The (query, key) pairs some query sees, over every sequence and head, times 2 * (headDim + vDim()): the
  /// useful FLOPs.
  double flops() const;
  /// What is wrong with this shape (a sentence), or nothing.
  std::string check() const;
};

/// How to launch attention: the tiles, warps and pipeline stages, and whether a producer warpgroup copies K and
/// V (LaunchOptions::warpSpecialize).
struct AttentionConfig {
  int blockM = 128, blockN = 64;
  unsigned warps = 8, stages = 2;
  bool warpSpecialize = false;
  bool operator==(const AttentionConfig &) const = default;
};

/// Two warpgroups of 64 query rows each, over 128 keys a step for a head dimension up to 64 and 64 beyond (the
/// accumulator, the scores and P then take about half of a thread's registers).
inline AttentionConfig attentionConfig(int headDim) {
  return AttentionConfig{128, headDim <= 64 ? 128 : 64, 8, 2};
}

/// The device buffers of one launch: Q [totalQ, qHeads, headDim], K [totalK, kvHeads, headDim], V [totalK,
/// kvHeads, vDim()] and O [totalQ, qHeads, vDim()] of T; the
/// log-sum-exp [qHeads, totalQ] f32 (logSumExp); the offsets [batch + 1] int32 (varlen).
struct AttentionBuffers {
  const runtime::DeviceBuffer *q = nullptr, *k = nullptr, *v = nullptr, *o = nullptr, *lse = nullptr;
  const runtime::DeviceBuffer *cuSeqlensQ = nullptr, *cuSeqlensK = nullptr;
};

/// Launches attention<T>() for `shape` after checking it and the buffers' sizes (an error says what is wrong).
template <ElementTag T>
runtime::Error launchAttention(const AttentionShape &shape, const AttentionBuffers &buffers,
                               const AttentionConfig &config, LaunchOptions options = {});

/// What the autotuner tries for a head dimension: attentionConfig's choice first, then other tiles, pipelined or
/// warp-specialized (those that do not fit the GPU are skipped at tuning).
std::vector<AttentionConfig> attentionCandidates(int headDim);

/// launchAttention through brick::autotune: the fastest of attentionCandidates(headDim), chosen at the first launch
/// for each element type, head dimension, mask, softcap and bucket of keys (a power of two), and kept on disk.
/// `chosen`, when given, says which config ran.
template <ElementTag T>
runtime::Error launchAttentionTuned(const AttentionShape &shape, const AttentionBuffers &buffers,
                                    LaunchOptions options = {}, std::string *chosen = nullptr);

/// Row `token` (of the packed queries) of head `head` of O in float64, into `out` (vDim() values), and its
/// log-sum-exp: q, k and v as the kernel reads them. The check the host program and the benchmark share.
void attentionReferenceRow(const AttentionShape &shape, const float *q, const float *k, const float *v,
                           int64_t token, int head, double *out, double *logSumExp = nullptr);

} // namespace examples

#endif // BRICK_EXAMPLES_ATTENTION_H
