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
/// Launch with cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N) programs, in groups of GROUP_M rows of tiles; K a multiple of
/// 128. Where BLOCK_N divides 128, a tile's columns share one weight scale a step and the scaling is one
/// multiply-add an element (otherwise two). With `ws`, two consumer warpgroups (8 warps) take turns on the tensor
/// cores: one scales its product while the other's runs.
inline auto matmulFp8BlockScaled() {
  return kernel("matmul_fp8_block_scaled", [](TensorDescriptor<f8e4m3, 2> a, TensorDescriptor<f8e4m3, 2> b,
                                              TensorDescriptor<bf16, 2> c, Ptr<f32> scaleA, Ptr<f32> scaleB, Int M,
                                              Int N, Int K, Const<int> BLOCK_M, Const<int> BLOCK_N, Const<int> GROUP_M) {
    constexpr int BLOCK_K = 128;
    auto [tileM, tileN] = grouped_tile(program_id(0), cdiv(M, BLOCK_M), cdiv(N, BLOCK_N), GROUP_M);
    Int row = tileM * BLOCK_M, column = tileN * BLOCK_N;
    Tensor rows = row + arange(0, BLOCK_M), columns = column + arange(0, BLOCK_N);
    bool oneWeightBlock = 128 % BLOCK_N.value() == 0;
    // The scales of step k: [BLOCK_M] (a row's times the tile's weight scale) or [BLOCK_M, BLOCK_N].
    auto scalesOf = [&](const Operand &k) {
      Tensor rowScales = load(scaleA + k * M + rows, rows < M, 0.0f);
      if (oneWeightBlock)
        return rowScales * load(scaleB + column / 128 * (K / 128) + k);
      Tensor weightBlocks = minimum(columns, N - 1) / 128 * (K / 128);
      return rowScales.column() * load(scaleB + weightBlocks + k).row();
    };
    Tensor acc = zeros<f32>({BLOCK_M, BLOCK_N});
    // The scales of step k + 1 are read during step k: their latency hides behind the step's product.
    Int steps = K / BLOCK_K;
    Tensor scales = scalesOf(0);
    for_range(0, steps, 1, carry(acc, scales), [&](Int k) {
      Tensor nextScales = scalesOf(minimum(k + 1, steps - 1));
      Tensor partial = dot(a.load({row, k * BLOCK_K}), b.load({column, k * BLOCK_K}).trans());
      acc = fma(partial, oneWeightBlock ? scales.column() : scales, acc);
      scales = nextScales;
    });
    c.store({row, column}, acc);
  });
}

/// C (M x N, bf16) = diag(scaleA) (A B^T) diag(scaleB) for A (M x K) and B (N x K, a weight) in e4m3, with one f32
/// scale per row of A (a token's) and per row of B (an output channel's), as torch._scaled_mm's rowwise scaling; a
/// per-tensor scale is the same with every scale equal. The scales apply once, to the f32 accumulator, after the K
/// loop. Launch with cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N) programs, in groups of GROUP_M rows of tiles.
inline auto matmulFp8RowwiseScaled() {
  return kernel("matmul_fp8_rowwise_scaled", [](TensorDescriptor<f8e4m3, 2> a, TensorDescriptor<f8e4m3, 2> b,
                                                TensorDescriptor<bf16, 2> c, Ptr<f32> scaleA, Ptr<f32> scaleB, Int M,
                                                Int N, Int K, Const<int> BLOCK_M, Const<int> BLOCK_N,
                                                Const<int> BLOCK_K, Const<int> GROUP_M) {
    auto [tileM, tileN] = grouped_tile(program_id(0), cdiv(M, BLOCK_M), cdiv(N, BLOCK_N), GROUP_M);
    Int row = tileM * BLOCK_M, column = tileN * BLOCK_N;
    Tensor acc = zeros<f32>({BLOCK_M, BLOCK_N});
    for_range(0, cdiv(K, BLOCK_K), 1, carry(acc), [&](Int k) {
      acc = dot(a.load({row, k * BLOCK_K}), b.load({column, k * BLOCK_K}).trans(), acc);
    });
    Tensor rows = row + arange(0, BLOCK_M), columns = column + arange(0, BLOCK_N);
    Tensor rowScales = load(scaleA + rows, rows < M, 0.0f), columnScales = load(scaleB + columns, columns < N, 0.0f);
    c.store({row, column}, acc * (rowScales.column() * columnScales.row()));
  });
}

/// DeepSeek-V3's activation quantization of a block: each row's groups of 128 elements (`x` is [rows, 128 x
/// groups], any float type) scaled so that the group's largest magnitude becomes e4m3's largest, 448; x is about
/// codes x scales. A group of zeros takes the scale of a largest magnitude of 1e-4 (DeepGEMM's clamp), so no scale
/// is zero. A DSL function, not a kernel: a kernel that computes activations (a norm, silu(gate) x up) calls it
/// before its store, so the next GEMM's FP8 input costs no pass of its own.
struct Fp8Groups {
  Tensor codes;  // e4m3, x's shape
  Tensor scales; // f32, [rows, groups]
};
inline Fp8Groups quantizeFp8Groups(const Tensor &x, Loc loc = Loc::current()) {
  std::vector<int64_t> shape = x.shape(loc);
  int64_t rows = shape.at(0), groups = shape.at(1) / 128;
  // One group a row is reduced in the block's own layout; several go through a [rows, groups, 128] reshape,
  // which costs a round trip through shared memory.
  Tensor grouped = groups == 1 ? x.to<f32>(loc) : x.to<f32>(loc).reshape({rows, groups, 128}, loc);
  int axis = groups == 1 ? 1 : 2;
  Tensor amax = maximum(max(abs(grouped, loc), axis, loc), 1e-4f, loc); // [rows] or [rows, groups]
  // Multiplied by 448 / amax, as DeepGEMM's reference does (the GPU's division is within 2 ulp of IEEE's).
  Tensor codes = (grouped * (448.0f / amax).expand_dims(axis, loc)).to<f8e4m3>(loc);
  if (groups == 1)
    return {codes, (amax / 448.0f).column(loc)};
  return {codes.reshape(shape, loc), amax / 448.0f};
}

/// Quantizes x (M x K, bf16, rows contiguous; K a multiple of 128) to e4m3 codes (M x K) and one f32 scale per 1 x
/// 128 group, stored [K / 128, M] as matmulFp8BlockScaled reads scaleA. Launch with cdiv(M, BLOCK_M) x
/// cdiv(K, BLOCK_K) programs (Grid{x, y}); BLOCK_K a multiple of 128.
inline auto quantizeFp8() {
  return kernel("quantize_fp8", [](Ptr<bf16> x, Ptr<f8e4m3> codes, Ptr<f32> scales, Int M, Int K,
                                   Const<int> BLOCK_M, Const<int> BLOCK_K) {
    Tensor rows = program_id(0) * BLOCK_M + arange(0, BLOCK_M);
    Tensor columns = program_id(1) * BLOCK_K + arange(0, BLOCK_K);
    Tensor inside = (rows.column() < M) & (columns.row() < K);
    Tensor offsets = rows.column() * K + columns.row();
    Fp8Groups quantized = quantizeFp8Groups(load(x + offsets, inside, 0.0f));
    store(codes + offsets, quantized.codes, inside);
    Tensor groups = program_id(1) * (BLOCK_K / 128) + arange(0, BLOCK_K / 128);
    store(scales + groups.row() * M + rows.column(), quantized.scales, (rows.column() < M) & (groups.row() * 128 < K));
  });
}

} // namespace examples

#endif // BRICK_EXAMPLES_MATMUL_FP8_H
