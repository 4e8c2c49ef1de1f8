//===- moe.h - The mixture-of-experts layer of LLM inference, as five kernels ---===//
//
// T tokens of H features go through E experts, `topk` per token (the fused_moe algorithm of vLLM and SGLang):
//
//   1. moe_route:  router logits [T, E] -> scores (softmax, or sigmoid DeepSeek-V3 style, an optional bias
//                  choosing but not weighting), the top-k experts per token and their weights (renormalized to
//                  sum to 1 if asked); each program also counts its tokens per expert and ranks each of its
//                  (token, k) pairs among its own pairs of that expert.
//   2. moe_align:  from those counts, every expert's rows padded to BLOCK_M, the sorted pair ids (each expert's
//                  pairs in token order, then the invalid id T * topk as padding), the expert of each block of
//                  BLOCK_M sorted rows, the run of blocks that expert has and the block's real (unpadded) rows, and
//                  the padded total. Positions come from counts and ranks, not atomics, so the order is the same
//                  on every run.
//   3. moe_gate_up: grouped GEMM 1: for each block of sorted rows, the gathered token rows times the block's
//                  expert's gate and up projections (w13 [E, 2I, H]: gate rows, then up rows), with
//                  silu(gate) * up in the epilogue: h [T * topk, I], a row per pair. moe_gate_up_tma reads the
//                  weights through a tensor descriptor; moe_gate_up_sorted reads the token rows too, after
//                  moe_gather_rows has copied them into sorted order, and writes h in that order (a row per
//                  sorted row, padding included) by descriptor.
//   4. moe_down:   grouped GEMM 2: h's rows of the block's pairs times w2 [E, H, I], times the pair's routing
//                  weight: y [T * topk, H].
//   5. moe_sum:    out [T, H] = the sum over each token's topk rows of y, in f32, in k order.
//
// Nothing goes back to the host: the GEMMs are launched for the most blocks any routing can need
// (moeMaxBlocks), and blocks past the padded total, which the GEMMs read from memory, run no K iterations and
// store nothing.
//
//===----------------------------------------------------------------------===//
#ifndef BRICK_EXAMPLES_MOE_H
#define BRICK_EXAMPLES_MOE_H

#include "brick/brick.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

namespace examples {
using namespace brick;

/// The smallest power of two >= n: blocks have power-of-two shapes, so `n` experts take a block of this many
/// (the extra ones masked off).
inline int moeBlockSize(int n) {
  int size = 1;
  while (size < n)
    size *= 2;
  return size;
}

/// The most blocks of BLOCK_M sorted rows a routing of `pairs` (token, expert) pairs over `experts` experts can
/// fill: each expert's run is padded by less than one block, and only experts with pairs have one.
inline int64_t moeMaxBlocks(int64_t pairs, int64_t experts, int64_t blockM) {
  return std::min(pairs, (pairs + std::min(experts, pairs) * (blockM - 1)) / blockM);
}

/// Routing for tokens [BLOCK_T * program, ...): launch cdiv(T, BLOCK_T) programs. E experts (any number: a
/// block of moeBlockSize(E), the rest masked), TOPK <= E; SIGMOID, HAS_BIAS and RENORMALIZE are 0 or 1.
template <ElementTag T = bf16> auto moeRoute() {
  return kernel("moe_route", [](Ptr<T> logits, Ptr<f32> bias, Ptr<i32> topkIds, Ptr<f32> topkWeights,
                                Ptr<i32> blockCounts, Ptr<i32> pairRanks, Int tokens, Int strideLogits, Const<int> E,
                                Const<int> TOPK, Const<int> BLOCK_T, Const<int> SIGMOID, Const<int> HAS_BIAS,
                                Const<int> RENORMALIZE) {
    Int program = program_id(0);
    Tensor rows = program * BLOCK_T + arange(0, BLOCK_T);
    Tensor valid = rows < tokens;
    Tensor experts = arange(0, moeBlockSize(E.value()));
    Tensor real = experts < E;
    Tensor x = load(logits + rows.column() * strideLogits + experts.row(), valid.column() & real.row(), -INFINITY)
                   .template to<f32>();
    Tensor scores;
    if (SIGMOID.value()) {
      scores = sigmoid(x); // 0 for the block's extra experts
    } else {
      Tensor e = exp(x - max(x, 1).column());
      scores = e / sum(e, 1).column();
    }
    // The bias (DeepSeek-V3's expert load balancing) chooses experts; the weights are the scores without it.
    Tensor choice = HAS_BIAS.value() ? scores + load(bias + experts, real, 0.0).row() : scores;
    choice = where(real.row(), choice, -INFINITY);
    Tensor pair = rows * TOPK;
    std::vector<Tensor> picks, weights;
    Tensor weightSum = zeros<f32>({BLOCK_T});
    Tensor chosen = zeros<i32>({BLOCK_T, moeBlockSize(E.value())});
    for (int j = 0; j < TOPK.value(); ++j) {
      Tensor best = argmax(choice, 1);
      Tensor hit = experts.row() == best.column();
      Tensor weight = sum(where(hit, scores, 0.0), 1);
      store(topkIds + pair + j, best, valid);
      picks.push_back(best);
      weights.push_back(weight);
      weightSum = weightSum + weight;
      chosen = chosen + (hit & valid.column()).to<i32>();
      choice = where(hit, -INFINITY, choice);
    }
    for (int j = 0; j < TOPK.value(); ++j)
      store(topkWeights + pair + j, RENORMALIZE.value() ? weights[j] / weightSum : weights[j], valid);

    // This program's pairs per expert, and each pair's rank among them (tokens in order; one token never
    // picks an expert twice).
    store(blockCounts + program * E + experts, sum(chosen, 0), real);
    Tensor before = cumsum(chosen, 0) - chosen;
    for (int j = 0; j < TOPK.value(); ++j)
      store(pairRanks + pair + j, sum(where(experts.row() == picks[j].column(), before, 0), 1), valid);
  });
}

/// Launch one program per routing program (numRouteBlocks = cdiv(T, BLOCK_T), the same BLOCK_T). Program p
/// places its pairs; the last one writes the padding, program 0 the expert of every block, its run (blockRuns:
/// [2 * maxBlocks], the first block of the block's expert and the block after its last; a block past the total is
/// a run of its own), its real rows (blockRows: [maxBlocks], BLOCK_M but in an expert's last block; 0 past the
/// total) and the total.
inline auto moeAlign() {
  return kernel("moe_align", [](Ptr<i32> topkIds, Ptr<i32> blockCounts, Ptr<i32> pairRanks, Ptr<i32> sortedPairIds,
                                Ptr<i32> blockExpert, Ptr<i32> blockRuns, Ptr<i32> blockRows, Ptr<i32> totalPadded,
                                Int tokens, Int numRouteBlocks, Int maxBlocks, Const<int> E, Const<int> TOPK,
                                Const<int> BLOCK_T, Const<int> BLOCK_M, Const<int> CHUNK) {
    Int program = program_id(0);
    const int eBlock = moeBlockSize(E.value()), pairBlock = moeBlockSize(BLOCK_T.value() * TOPK.value());
    Tensor experts = arange(0, eBlock);
    Tensor real = experts < E;
    // Pairs per expert in all routing programs, and in those before this one (none for the block's extra experts).
    Tensor total = zeros<i32>({eBlock}), before = zeros<i32>({eBlock});
    for_range(0, cdiv(numRouteBlocks, CHUNK), 1, carry(total, before), [&](Int chunk) {
      Tensor blocks = chunk * CHUNK + arange(0, CHUNK);
      Tensor counts = load(blockCounts + blocks.column() * E + experts.row(),
                           (blocks < numRouteBlocks).column() & real.row(), 0);
      total = total + sum(counts, 0);
      before = before + sum(where((blocks < program).column(), counts, 0), 0);
    });
    Tensor padded = cdiv(total, BLOCK_M) * BLOCK_M;
    Tensor ends = cumsum(padded, 0);
    Tensor starts = ends - padded;

    Tensor lane = arange(0, pairBlock);
    Tensor pairs = program * (BLOCK_T.value() * TOPK.value()) + lane;
    Int numPairs = tokens * TOPK;
    Tensor valid = (lane < BLOCK_T.value() * TOPK.value()) & (pairs < numPairs);
    Tensor expert = load(topkIds + pairs, valid, 0);
    Tensor rank = load(pairRanks + pairs, valid, 0);
    store(sortedPairIds + gather(starts + before, expert, 0) + rank, pairs, valid);

    // The last program pads each expert's run with the invalid pair id, one slot of every expert at a time.
    if_(program == numRouteBlocks - 1, [&] {
      for_range(0, BLOCK_M, 1, [&](Int slot) {
        Tensor position = starts + total + slot;
        store(sortedPairIds + position, numPairs, position < ends);
      });
    });

    // Program 0: the expert of each block of sorted rows (experts whose runs end at or before the block's start
    // come before it), that expert's run of blocks, the block's rows before the expert's padding, and the padded
    // total.
    if_(program == 0, [&] {
      Tensor totalRows = sum(padded, 0);
      for_range(0, cdiv(maxBlocks, CHUNK), 1, [&](Int chunk) {
        Tensor blocks = chunk * CHUNK + arange(0, CHUNK);
        Tensor owner = minimum(sum((ends.row() <= (blocks * BLOCK_M).column()).to<i32>(), 1), E.value() - 1);
        Tensor inside = blocks < maxBlocks, live = blocks * BLOCK_M < totalRows;
        store(blockExpert + blocks, owner, inside);
        store(blockRuns + blocks * 2, where(live, gather(starts, owner, 0) / BLOCK_M, blocks), inside);
        store(blockRuns + blocks * 2 + 1, where(live, gather(ends, owner, 0) / BLOCK_M, blocks + 1), inside);
        Tensor realRows = gather(starts + total, owner, 0) - blocks * BLOCK_M;
        store(blockRows + blocks, where(live, minimum(maximum(realRows, 0), BLOCK_M.value()), 0), inside);
      });
      store(totalPadded, totalRows);
    });
  });
}

/// What both grouped GEMMs start with: the program's block of sorted rows and tile of N columns, the block's pair
/// ids (the invalid id past the padded total), which of them are real, the block's expert (in i64: expert offsets
/// exceed 2^31 elements in large models), and the K steps to run (none for a block past the padded total, which
/// the GEMM reads from memory).
///
/// Tiles go in grouped order within each expert's run of blocks: program p of the row-major order lies in block
/// b = p / tilesN, whose expert's run [first, end) is cut evenly into groups of at most groupM blocks; the programs
/// of a group take its blocks fastest, then N. Programs running together then share one expert's tiles of weights (each
/// read from memory once) and its few blocks of rows, where groups across experts' boundaries read weights twice.
struct MoeBlock {
  Int tileM, tileN;
  Tensor pairs, realPair, expert, kTiles, live;
};
/// The block's pair ids and which are real, into `block`.
inline void moeBlockRows(MoeBlock &block, const Ptr<i32> &sortedPairIds, const Int &numPairs, int blockM) {
  block.pairs = load(sortedPairIds + block.tileM * blockM + arange(0, blockM), block.live, numPairs);
  block.realPair = block.pairs < numPairs;
}
/// The block of a tile: everything before the K loop is scalars (what a warp-specialized kernel's producer warps
/// may run too); moeBlockRows loads its pair ids where they are needed.
/// `program`: the index in the row-major order of tiles (a persistent kernel's tile; else program_id(0)).
/// `allLive`: every block is below the padded total (a persistent kernel's tiles): every K loop has the same steps.
inline MoeBlock moeBlockOf(const Int &program, const Ptr<i32> &blockExpert, const Ptr<i32> &blockRuns,
                           const Ptr<i32> &totalPadded, const Int &N, const Int &K, int blockM, int blockN, int blockK,
                           int groupM, bool allLive = false) {
  Int tilesN = cdiv(N, blockN);
  Int block = program / tilesN;
  Int first = load(blockRuns + block * 2), end = load(blockRuns + block * 2 + 1);
  // The run's blocks split evenly: `groups` groups, the first `longer` of them one block longer than the rest.
  Int runBlocks = end - first;
  Int groups = cdiv(runBlocks, groupM);
  Int shortRows = runBlocks / groups, longer = runBlocks % groups;
  Int offset = block - first, longBlocks = longer * (shortRows + 1);
  Bool inLong = offset < longBlocks;
  Int groupStart = first + where(inLong, offset / (shortRows + 1) * (shortRows + 1),
                                 longBlocks + (offset - longBlocks) / shortRows * shortRows);
  Int groupRows = shortRows + inLong.to<i32>();
  Int inGroup = program - groupStart * tilesN;
  Int tileM = groupStart + inGroup % groupRows, tileN = inGroup / groupRows;
  Tensor live = tileM * blockM < load(totalPadded);
  MoeBlock result{tileM, tileN, {}, {}, {}, {}, live};
  result.expert = load(blockExpert + tileM, live, 0).to<i64>();
  if (allLive)
    result.kTiles = cdiv(K, blockK);
  else
    result.kTiles = where(live, cdiv(K, blockK), 0);
  return result;
}
/// program_id(0)'s block with its pair ids.
inline MoeBlock moeBlock(const Ptr<i32> &sortedPairIds, const Ptr<i32> &blockExpert, const Ptr<i32> &blockRuns,
                         const Ptr<i32> &totalPadded, const Int &N, const Int &K, const Int &numPairs, int blockM,
                         int blockN, int blockK, int groupM) {
  MoeBlock block = moeBlockOf(program_id(0), blockExpert, blockRuns, totalPadded, N, K, blockM, blockN, blockK, groupM);
  moeBlockRows(block, sortedPairIds, numPairs, blockM);
  return block;
}

/// GEMM 1's activation: silu(gate) * up.
inline Tensor moeActivation(const Tensor &gate, const Tensor &up) { return gate * sigmoid(gate) * up; }

/// GEMM 1's epilogue: h[pair, n] = silu(gate) * up for the block's real pairs and n < I.
inline void moeStoreActivation(const Tensor &h, const Tensor &pairs, const Tensor &realPair, const Tensor &gate,
                               const Tensor &up, const Int &tileN, const Int &I, const Int &strideHM,
                               const Int &strideHN, int blockN) {
  Tensor cols = tileN * blockN + arange(0, blockN);
  store(h + pairs.column() * strideHM + cols.row() * strideHN, moeActivation(gate, up),
        realPair.column() & (cols.row() < I));
}

/// The first rows of the tile's gate and up blocks in w13 seen as an [E * 2I, H] matrix (a descriptor's).
inline std::pair<Int, Int> moeWeightRows(const Tensor &expert, const Int &tileN, const Int &I, int blockN) {
  Int gateRow = Int(expert.to<i32>()) * 2 * I + tileN * blockN;
  return {gateRow, gateRow + I};
}

/// Grouped GEMM 1 with the activation: h[pair, n] = silu(a[token] . wGate[e, n]) * (a[token] . wUp[e, n]) for
/// n < I, token = pair / topk, e = the expert of the pair's block; w13 is [E, 2I, H] (gate rows, then up rows).
/// Launch maxBlocks * cdiv(I, BLOCK_N) programs.
template <ElementTag T = bf16> auto moeGateUp() {
  return kernel("moe_gate_up", [](Ptr<T> a, Ptr<T> w13, Ptr<T> h, Ptr<i32> sortedPairIds, Ptr<i32> blockExpert,
                                  Ptr<i32> blockRuns, Ptr<i32> totalPadded, Int I, Int K, Int topk, Int numPairs,
                                  Int strideAM, Int strideAK, Int strideWE, Int strideWN, Int strideWK, Int strideHM,
                                  Int strideHN, Const<int> BLOCK_M, Const<int> BLOCK_N, Const<int> BLOCK_K,
                                  Const<int> GROUP_M) {
    [[maybe_unused]] auto [tileM, tileN, pairs, realPair, expert, kTiles, live] =
        moeBlock(sortedPairIds, blockExpert, blockRuns, totalPadded, I, K, numPairs, BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M);
    Tensor cols = (tileN * BLOCK_N + arange(0, BLOCK_N)) % I;
    Tensor ks = arange(0, BLOCK_K);
    Tensor aTile = a + (pairs / topk).column() * strideAM + ks.row() * strideAK;
    Tensor gateTile = w13 + expert * strideWE + cols.row() * strideWN + ks.column() * strideWK;
    Tensor upTile = gateTile + I * strideWN;
    Tensor gate = zeros<f32>({BLOCK_M, BLOCK_N}), up = zeros<f32>({BLOCK_M, BLOCK_N});
    for_range(0, kTiles, 1, carry(gate, up, aTile, gateTile, upTile), [&](Int k) {
      Tensor kLeft = K - k * BLOCK_K;
      Tensor aBlock = load(aTile, realPair.column() & (ks.row() < kLeft), 0.0);
      gate = dot(aBlock, load(gateTile, ks.column() < kLeft, 0.0), gate);
      up = dot(aBlock, load(upTile, ks.column() < kLeft, 0.0), up);
      aTile = aTile + BLOCK_K * strideAK;
      gateTile = gateTile + BLOCK_K * strideWK;
      upTile = upTile + BLOCK_K * strideWK;
    });
    moeStoreActivation(h, pairs, realPair, gate, up, tileN, I, strideHM, strideHN, BLOCK_N);
  });
}

/// moe_gate_up with the weights through a tensor descriptor: w13 seen as an [E * 2I, H] matrix (rows
/// contiguous along H, H * sizeof(T) a multiple of 16 bytes, E * 2I < 2^31) in BLOCK_N x BLOCK_K blocks, each
/// taken transposed: on sm_90a TMA copies the weights and wgmma reads them in place; the token rows are still
/// gathered through pointers. Blocks reaching past I (the last tile of N) read the next rows, which the store masks
/// off; past H or the matrix, zeros. Launch as moe_gate_up.
template <ElementTag T = bf16> auto moeGateUpDescriptors() {
  return kernel("moe_gate_up_tma", [](Ptr<T> a, TensorDescriptor<T, 2> w13, Ptr<T> h, Ptr<i32> sortedPairIds,
                                      Ptr<i32> blockExpert, Ptr<i32> blockRuns, Ptr<i32> totalPadded, Int I, Int K,
                                      Int topk, Int numPairs, Int strideAM, Int strideAK, Int strideHM, Int strideHN,
                                      Const<int> BLOCK_M, Const<int> BLOCK_N, Const<int> BLOCK_K, Const<int> GROUP_M) {
    [[maybe_unused]] auto [tileM, tileN, pairs, realPair, expert, kTiles, live] =
        moeBlock(sortedPairIds, blockExpert, blockRuns, totalPadded, I, K, numPairs, BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M);
    Tensor ks = arange(0, BLOCK_K);
    Tensor aTile = a + (pairs / topk).column() * strideAM + ks.row() * strideAK;
    auto [gateRow, upRow] = moeWeightRows(expert, tileN, I, BLOCK_N);
    Tensor gate = zeros<f32>({BLOCK_M, BLOCK_N}), up = zeros<f32>({BLOCK_M, BLOCK_N});
    for_range(0, kTiles, 1, carry(gate, up, aTile), [&](Int k) {
      Tensor aBlock = load(aTile, realPair.column() & (ks.row() < K - k * BLOCK_K), 0.0);
      gate = dot(aBlock, w13.load({gateRow, k * BLOCK_K}).trans(), gate);
      up = dot(aBlock, w13.load({upRow, k * BLOCK_K}).trans(), up);
      aTile = aTile + BLOCK_K * strideAK;
    });
    moeStoreActivation(h, pairs, realPair, gate, up, tileN, I, strideHM, strideHN, BLOCK_N);
  });
}

/// What a copy of token rows into sorted order starts with, for program_id(0)'s BLOCK_R sorted rows: the rows,
/// which lie below the padded total (live), their pair ids (the invalid id past it), which are real, and the
/// pointers to the start of each row's token in `a`.
struct MoeSortedRows {
  Tensor rows, live, real, source;
};
inline MoeSortedRows moeSortedRows(const Tensor &a, const Ptr<i32> &sortedPairIds, const Ptr<i32> &totalPadded,
                                   const Int &topk, const Int &numPairs, const Int &strideAM, int blockR) {
  Tensor rows = program_id(0) * blockR + arange(0, blockR);
  Tensor live = rows < load(totalPadded);
  Tensor pairs = load(sortedPairIds + rows, live, numPairs);
  return {rows, live, pairs < numPairs, a + (pairs / topk).column().to<i64>() * strideAM};
}

/// The token rows of the sorted pairs, in sorted order: aSorted[r] = a[sortedPairIds[r] / topk] for r below the
/// padded total (zeros for the padding ids), aSorted rows of H elements. Launch cdiv(rows, BLOCK_R) programs for
/// the rows the GEMMs may read (maxBlocks * BLOCK_M).
template <ElementTag T = bf16> auto moeGatherRows() {
  return kernel("moe_gather_rows", [](Ptr<T> a, Ptr<T> aSorted, Ptr<i32> sortedPairIds, Ptr<i32> totalPadded, Int H,
                                      Int topk, Int numPairs, Int strideAM, Const<int> BLOCK_R, Const<int> BLOCK_H) {
    auto [rows, live, real, source] = moeSortedRows(a, sortedPairIds, totalPadded, topk, numPairs, strideAM, BLOCK_R);
    Tensor target = aSorted + rows.column().template to<i64>() * H;
    for_range(0, cdiv(H, BLOCK_H), 1, [&](Int chunk) {
      Tensor cols = chunk * BLOCK_H + arange(0, BLOCK_H);
      Tensor inside = cols.row() < H;
      store(target + cols.row(), load(source + cols.row(), real.column() & inside, 0.0), live.column() & inside);
    });
  });
}

/// One tile of moe_gate_up_sorted: the block's K loop over descriptor blocks, then silu(gate) * up stored by
/// descriptor into hSorted, the activations in sorted order (a row per sorted pair, padding rows included): one
/// TMA store on sm_90a that needs no pair ids and overlaps what follows (a persistent kernel's next tile), where
/// rows scattered to their pairs wait for the ids' load and are stored by every thread.
template <ElementTag T>
void moeGateUpSortedTile(const MoeBlock &block, const TensorDescriptor<T, 2> &aSorted,
                         const TensorDescriptor<T, 2> &w13, const TensorDescriptor<T, 2> &hSorted, const Int &I,
                         int blockM, int blockN, int blockK, bool mayBeDead) {
  Int row = block.tileM * blockM;
  auto [gateRow, upRow] = moeWeightRows(block.expert, block.tileN, I, blockN);
  Tensor gate = zeros<f32>({blockM, blockN}), up = zeros<f32>({blockM, blockN});
  for_range(0, block.kTiles, 1, carry(gate, up), [&](Int k) {
    Tensor aBlock = aSorted.load({row, k * blockK});
    gate = dot(aBlock, w13.load({gateRow, k * blockK}).trans(), gate);
    up = dot(aBlock, w13.load({upRow, k * blockK}).trans(), up);
  });
  auto store = [&] { hSorted.store({row, block.tileN * blockN}, moeActivation(gate, up)); };
  if (mayBeDead) // a block past the padded total stores nothing
    if_(block.live, store);
  else
    store();
}

/// moe_gate_up with both operands through tensor descriptors: the token rows already in sorted order (aSorted,
/// [maxBlocks * BLOCK_M, H], from moe_gather_rows) and w13 as in moeGateUpDescriptors. Every block of the K loop
/// comes by TMA on sm_90a, so the loop can also be warp-specialized. The activations go to hSorted
/// ([maxBlocks * BLOCK_M, I] in BLOCK_M x BLOCK_N blocks) in sorted order, as moe_down reads them with
/// hSortedRows = 1. Launch as moe_gate_up.
template <ElementTag T = bf16> auto moeGateUpSorted() {
  return kernel("moe_gate_up_sorted", [](TensorDescriptor<T, 2> aSorted, TensorDescriptor<T, 2> w13,
                                         TensorDescriptor<T, 2> hSorted, Ptr<i32> blockExpert, Ptr<i32> blockRuns,
                                         Ptr<i32> totalPadded, Int I, Int K, Const<int> BLOCK_M, Const<int> BLOCK_N,
                                         Const<int> BLOCK_K, Const<int> GROUP_M) {
    MoeBlock block =
        moeBlockOf(program_id(0), blockExpert, blockRuns, totalPadded, I, K, BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M);
    moeGateUpSortedTile(block, aSorted, w13, hSorted, I, BLOCK_M, BLOCK_N, BLOCK_K, /*mayBeDead=*/true);
  });
}

/// moe_gate_up_sorted as a persistent kernel: launch one wave (Grid::persistent over the tiles); program p takes
/// tiles p, p + num_programs, ... of the live blocks' (in moe_gate_up's order). Warp-specialized on sm_90a, the
/// producer warps fill the next tile's slots while the consumers store this one, and the store overlaps the next
/// tile.
template <ElementTag T = bf16> auto moeGateUpPersistent() {
  return kernel("moe_gate_up_persistent", [](TensorDescriptor<T, 2> aSorted, TensorDescriptor<T, 2> w13,
                                             TensorDescriptor<T, 2> hSorted, Ptr<i32> blockExpert, Ptr<i32> blockRuns,
                                             Ptr<i32> totalPadded, Int I, Int K, Const<int> BLOCK_M,
                                             Const<int> BLOCK_N, Const<int> BLOCK_K, Const<int> GROUP_M) {
    Int tiles = load(totalPadded) / BLOCK_M * cdiv(I, BLOCK_N);
    for_range(program_id(0), tiles, num_programs(0), [&](Int tile) {
      // Every tile is live: the same K steps for all, which lets the compiler store a tile during the next one's.
      MoeBlock block = moeBlockOf(tile, blockExpert, blockRuns, totalPadded, I, K, BLOCK_M, BLOCK_N, BLOCK_K,
                                  GROUP_M, /*allLive=*/true);
      moeGateUpSortedTile(block, aSorted, w13, hSorted, I, BLOCK_M, BLOCK_N, BLOCK_K, /*mayBeDead=*/false);
    });
  });
}

/// Grouped GEMM 2: y[pair, n] = weight[pair] * (h[pair] . w2[e, n]) for n < N (the hidden size); w2 is
/// [E, N, K]. h has a row per pair (hSortedRows = 0) or per sorted row (1: moe_gate_up_sorted's order).
/// Launch maxBlocks * cdiv(N, BLOCK_N) programs.
template <ElementTag T = bf16> auto moeDown() {
  return kernel("moe_down", [](Ptr<T> h, Ptr<T> w2, Ptr<T> y, Ptr<f32> topkWeights, Ptr<i32> sortedPairIds,
                               Ptr<i32> blockExpert, Ptr<i32> blockRuns, Ptr<i32> totalPadded, Int N, Int K, Int numPairs,
                               Int strideHM, Int strideHK, Int strideWE, Int strideWN, Int strideWK, Int strideYM,
                               Int strideYN, Int hSortedRows, Const<int> BLOCK_M, Const<int> BLOCK_N,
                               Const<int> BLOCK_K, Const<int> GROUP_M) {
    [[maybe_unused]] auto [tileM, tileN, pairs, realPair, expert, kTiles, live] =
        moeBlock(sortedPairIds, blockExpert, blockRuns, totalPadded, N, K, numPairs, BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M);
    Tensor cols = (tileN * BLOCK_N + arange(0, BLOCK_N)) % N;
    Tensor ks = arange(0, BLOCK_K);
    Tensor hRows = where(hSortedRows != 0, tileM * BLOCK_M + arange(0, BLOCK_M), pairs);
    Tensor hTile = h + hRows.column().to<i64>() * strideHM + ks.row() * strideHK;
    Tensor wTile = w2 + expert * strideWE + cols.row() * strideWN + ks.column() * strideWK;
    Tensor acc = zeros<f32>({BLOCK_M, BLOCK_N});
    for_range(0, kTiles, 1, carry(acc, hTile, wTile), [&](Int k) {
      Tensor kLeft = K - k * BLOCK_K;
      acc = dot(load(hTile, realPair.column() & (ks.row() < kLeft), 0.0), load(wTile, ks.column() < kLeft, 0.0), acc);
      hTile = hTile + BLOCK_K * strideHK;
      wTile = wTile + BLOCK_K * strideWK;
    });
    Tensor weight = load(topkWeights + pairs, realPair, 0.0);
    Tensor colsY = tileN * BLOCK_N + arange(0, BLOCK_N);
    store(y + pairs.column() * strideYM + colsY.row() * strideYN, acc * weight.column(),
          realPair.column() & (colsY.row() < N));
  });
}

/// out[t, n] = sum over j < TOPK of y[t * TOPK + j, n], in f32 and in j order (the same result on every run).
/// Launch cdiv(T, BLOCK_T) * cdiv(N, BLOCK_N) programs; y and out are contiguous rows of N.
template <ElementTag T = bf16> auto moeSum() {
  return kernel("moe_sum", [](Ptr<T> y, Ptr<T> out, Int tokens, Int N, Const<int> TOPK, Const<int> BLOCK_T,
                              Const<int> BLOCK_N) {
    Int program = program_id(0);
    Int tilesN = cdiv(N, BLOCK_N);
    Tensor rows = (program / tilesN) * BLOCK_T + arange(0, BLOCK_T);
    Tensor cols = (program % tilesN) * BLOCK_N + arange(0, BLOCK_N);
    Tensor mask = (rows < tokens).column() & (cols < N).row();
    Tensor total = zeros<f32>({BLOCK_T, BLOCK_N});
    for (int j = 0; j < TOPK.value(); ++j)
      total = total + load(y + (rows * TOPK + j).column().to<i64>() * N + cols.row(), mask, 0.0).template to<f32>();
    store(out + rows.column().to<i64>() * N + cols.row(), total, mask);
  });
}

/// dst[i] = scale * (2 * rand(seed, i) - 1) for i < n: inputs made where they are used (a model's expert
/// weights are gigabytes the host need not make). Launch cdiv(n, BLOCK) programs.
template <ElementTag T = bf16> auto randomFill() {
  return kernel("random_fill", [](Ptr<T> dst, Long n, Long seed, Float scale, Const<int> BLOCK) {
    Tensor i = program_id(0).to<i64>() * BLOCK + arange(0, BLOCK);
    store(dst + i, (rand(seed, i) * 2.0f - 1.0f) * scale, i < n);
  });
}

} // namespace examples

#endif // BRICK_EXAMPLES_MOE_H
