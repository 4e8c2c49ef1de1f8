//===- moe_fp8.h - The MoE layer in FP8, as DeepSeek-V3 is served ---------------===//
//
// The layer of moe.h with its expert weights in e4m3 and one f32 scale per 128 x 128 block of each (w13 [E, 2I, H]
// with scales [E, 2I / 128, H / 128], w2 [E, H, I] with [E, H / 128, I / 128]), and the activations quantized to
// e4m3 with one scale per 1 x 128 group of a row, where they are made:
//
//   routing and alignment: moe.h's (moe_route, moe_align);
//   moe_gather_quantize: the token rows copied into sorted order, quantized on the way (codes [rows, H] and
//                        scales [H / 128, rows], the block-scaled GEMM's layout);
//   moe_gate_up_fp8:     grouped GEMM 1, each 128 of K's product promoted to f32 with its scales (as
//                        matmulFp8BlockScaled), silu(gate) * up quantized in the epilogue: h's codes [rows, I] and
//                        scales [I / 128, rows], in sorted order;
//   moe_down_fp8:        grouped GEMM 2 the same way, times the routing weights, y [T * topk, H] in bf16;
//   moe_sum:             moe.h's.
//
// H and I are multiples of 128: a tile's 128 columns are one group of the quantized activations, and a block of
// weights one scale block.
//
//===----------------------------------------------------------------------===//
#ifndef BRICK_EXAMPLES_MOE_FP8_H
#define BRICK_EXAMPLES_MOE_FP8_H

#include "matmul_fp8.h"
#include "moe.h"

namespace examples {
using namespace brick;

/// aCodes[r] and aScales[:, r] = the 1 x 128 groups of a[sortedPairIds[r] / topk] quantized to e4m3 (quantizeFp8Groups)
/// for r below the padded total (zero codes for the padding ids; their scales those of zeros). aCodes rows of H
/// codes, aScales [H / 128, rows]. Launch cdiv(rows, BLOCK_R) programs for the rows the GEMMs may read.
inline auto moeGatherQuantize() {
  return kernel("moe_gather_quantize", [](Ptr<bf16> a, Ptr<f8e4m3> aCodes, Ptr<f32> aScales, Ptr<i32> sortedPairIds,
                                          Ptr<i32> totalPadded, Int rowsTotal, Int H, Int topk, Int numPairs,
                                          Int strideAM, Const<int> BLOCK_R) {
    auto [rows, live, real, source] = moeSortedRows(a, sortedPairIds, totalPadded, topk, numPairs, strideAM, BLOCK_R);
    Tensor target = aCodes + rows.column().to<i64>() * H;
    Tensor columns = arange(0, 128).row();
    for_range(0, H / 128, 1, [&](Int group) {
      Tensor at = group * 128 + columns;
      Fp8Groups quantized = quantizeFp8Groups(load(source + at, real.column(), 0.0f));
      store(target + at, quantized.codes, live.column());
      store(aScales + group * rowsTotal + rows.column(), quantized.scales, live.column());
    });
  });
}

/// Grouped GEMM 1 in FP8 over the sorted rows (moe_gather_quantize's codes and scales, through descriptors of
/// BLOCK_M x 128 and 128 x 128 blocks): gate and up, each 128 of K's product scaled by the rows' scales and the
/// weights' block scale into f32; silu(gate) * up quantized per row (BLOCK_N is 128: one group) and stored as
/// codes (hCodes, [rows, I], a descriptor of BLOCK_M x 128 blocks) and scales (hScales [I / 128, rows]).
/// w13 is seen as an [E * 2I, H] matrix, its scales as [E * 2I / 128, H / 128]. Launch maxBlocks * I / 128
/// programs.
inline auto moeGateUpFp8() {
  return kernel("moe_gate_up_fp8", [](TensorDescriptor<f8e4m3, 2> aCodes, Ptr<f32> aScales,
                                      TensorDescriptor<f8e4m3, 2> w13, Ptr<f32> w13Scales,
                                      TensorDescriptor<f8e4m3, 2> hCodes, Ptr<f32> hScales, Ptr<i32> blockExpert,
                                      Ptr<i32> blockRuns, Ptr<i32> totalPadded, Int rowsTotal, Int I, Int K,
                                      Const<int> BLOCK_M, Const<int> GROUP_M) {
    constexpr int BLOCK_N = 128, BLOCK_K = 128;
    MoeBlock block =
        moeBlockOf(program_id(0), blockExpert, blockRuns, totalPadded, I, K, BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M);
    Int row = block.tileM * BLOCK_M;
    Tensor rows = row + arange(0, BLOCK_M);
    auto [gateRow, upRow] = moeWeightRows(block.expert, block.tileN, I, BLOCK_N);
    Int scaleColumns = K / 128;
    Ptr<f32> gateScales = w13Scales + gateRow / 128 * scaleColumns, upScales = w13Scales + upRow / 128 * scaleColumns;
    // The scales of step k: the rows' times the gate's and the up's weight block's ([BLOCK_M] each).
    auto scalesOf = [&](const Operand &k) {
      Tensor rowScales = load(aScales + k * rowsTotal + rows);
      return std::pair{rowScales * load(gateScales + k), rowScales * load(upScales + k)};
    };
    Tensor gate = zeros<f32>({BLOCK_M, BLOCK_N}), up = zeros<f32>({BLOCK_M, BLOCK_N});
    auto [gateScale, upScale] = scalesOf(0);
    Int steps = block.kTiles;
    for_range(0, steps, 1, carry(gate, up, gateScale, upScale), [&](Int k) {
      auto [nextGate, nextUp] = scalesOf(minimum(k + 1, steps - 1));
      Tensor aBlock = aCodes.load({row, k * BLOCK_K});
      // Each product is scaled in before the next is made: two partial products and two accumulators would
      // not fit a thread's registers.
      gate = fma(dot(aBlock, w13.load({gateRow, k * BLOCK_K}).trans()), gateScale.column(), gate);
      up = fma(dot(aBlock, w13.load({upRow, k * BLOCK_K}).trans()), upScale.column(), up);
      gateScale = nextGate, upScale = nextUp;
    });
    if_(block.live, [&] {
      Fp8Groups h = quantizeFp8Groups(moeActivation(gate, up));
      hCodes.store({row, block.tileN * BLOCK_N}, h.codes);
      store(hScales + block.tileN * rowsTotal + rows.column(), h.scales);
    });
  });
}

/// Grouped GEMM 2 in FP8: y[pair, n] = weight[pair] * (h[row] . w2[e, n]) over the sorted rows' codes and scales
/// (moe_gate_up_fp8's), w2 seen as an [E * H, I] matrix (descriptor of BLOCK_N x 128 blocks), its scales as
/// [E * H / 128, I / 128]; y in bf16, a row per pair. BLOCK_N divides 128. Launch maxBlocks * cdiv(N, BLOCK_N)
/// programs, N = H.
inline auto moeDownFp8() {
  return kernel("moe_down_fp8", [](TensorDescriptor<f8e4m3, 2> hCodes, Ptr<f32> hScales,
                                   TensorDescriptor<f8e4m3, 2> w2, Ptr<f32> w2Scales, Ptr<bf16> y,
                                   Ptr<f32> topkWeights, Ptr<i32> sortedPairIds, Ptr<i32> blockExpert,
                                   Ptr<i32> blockRuns, Ptr<i32> totalPadded, Int rowsTotal, Int N, Int K,
                                   Int numPairs, Const<int> BLOCK_M, Const<int> BLOCK_N, Const<int> GROUP_M) {
    constexpr int BLOCK_K = 128;
    MoeBlock block =
        moeBlockOf(program_id(0), blockExpert, blockRuns, totalPadded, N, K, BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M);
    Int row = block.tileM * BLOCK_M;
    Tensor rows = row + arange(0, BLOCK_M);
    Int weightRow = Int(block.expert.to<i32>()) * N + block.tileN * BLOCK_N;
    Ptr<f32> weightScales = w2Scales + weightRow / 128 * (K / 128);
    auto scalesOf = [&](const Operand &k) { return load(hScales + k * rowsTotal + rows) * load(weightScales + k); };
    Tensor acc = zeros<f32>({BLOCK_M, BLOCK_N});
    Tensor scales = scalesOf(0);
    Int steps = block.kTiles;
    for_range(0, steps, 1, carry(acc, scales), [&](Int k) {
      Tensor next = scalesOf(minimum(k + 1, steps - 1));
      acc = fma(dot(hCodes.load({row, k * BLOCK_K}), w2.load({weightRow, k * BLOCK_K}).trans()), scales.column(), acc);
      scales = next;
    });
    moeBlockRows(block, sortedPairIds, numPairs, BLOCK_M);
    Tensor weight = load(topkWeights + block.pairs, block.realPair, 0.0);
    Tensor columns = block.tileN * BLOCK_N + arange(0, BLOCK_N);
    store(y + block.pairs.column().to<i64>() * N + columns.row(), acc * weight.column(),
          block.realPair.column() & (columns.row() < N));
  });
}

} // namespace examples

#endif // BRICK_EXAMPLES_MOE_FP8_H
