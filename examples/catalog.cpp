//===- catalog.cpp - The example kernels with a typical specialization each ----===//

#include "catalog.h"

#include "attention.h"
#include "matmul.h"
#include "matmul_fp8.h"
#include "moe_fp8.h"
#include "moe.h"
#include "softmax.h"
#include "vector_add.h"


namespace examples {

namespace {
template <class K>
Example make(std::string name, std::string summary, K kernel, brick::Specialization spec, unsigned numWarps = 4,
             unsigned numStages = 3) {
  return Example{std::move(name), std::move(summary),
                 [kernel](mlir::MLIRContext *context, const brick::Specialization &spec,
                          const std::function<void(mlir::Operation *)> &run) { return kernel.build(context, spec, run); },
                 std::move(spec), numWarps, numStages};
}
} // namespace

const std::vector<Example> &catalog() {
  using brick::Arg;
  using brick::dyn;
  // What the runtime knows at a typical launch: cudaMalloc'ed buffers are 16-byte aligned, sizes and
  // strides are multiples of 16, unit strides are 1.
  static const Arg aligned = Arg::divisibleBy(16), one = Arg::equalToOne();
  // matmul_descriptors' blocks are its tiles: A BLOCK_M x BLOCK_K, B BLOCK_K x BLOCK_N, C BLOCK_M x BLOCK_N.
  auto descriptorMatmul = [](int64_t m, int64_t n, int64_t k, int64_t group) -> brick::Specialization {
    return {Arg::descriptor({m, k}, {16, 16}), Arg::descriptor({k, n}, {16, 16}), Arg::descriptor({m, n}, {16, 16}),
            aligned, aligned, aligned, m, n, k, group};
  };
  // matmul_descriptors_transposed_b's B blocks are BLOCK_N x BLOCK_K.
  auto descriptorMatmulTransposedB = [](int64_t m, int64_t n, int64_t k, int64_t group) -> brick::Specialization {
    return {Arg::descriptor({m, k}, {16, 16}), Arg::descriptor({n, k}, {16, 16}), Arg::descriptor({m, n}, {16, 16}),
            aligned, aligned, aligned, m, n, k, group};
  };
  // moe_tma's weight blocks are BLOCK_N x BLOCK_K.
  auto tmaMoe = [](int64_t m, int64_t n, int64_t k, int64_t group) -> brick::Specialization {
    return {aligned, Arg::descriptor({n, k}, {16, 16}), aligned, aligned, aligned, aligned, aligned, aligned, aligned,
            dyn, dyn, aligned, one, aligned, one, m, n, k, group};
  };
  // moe_sorted's and moe_persistent's: token rows BLOCK_M x BLOCK_K blocks, weights BLOCK_N x BLOCK_K, the
  // activations BLOCK_M x BLOCK_N.
  auto sortedMoe = [](int64_t m, int64_t n, int64_t k, int64_t group) -> brick::Specialization {
    return {Arg::descriptor({m, k}, {16, 16}), Arg::descriptor({n, k}, {16, 16}), Arg::descriptor({m, n}, {16, 16}),
            aligned, aligned, aligned, aligned, aligned, m, n, k, group};
  };
  // attention's specialization from {BLOCK_M, BLOCK_N, HEAD_DIM, V_DIM, GROUP, VARLEN, CAUSAL, WINDOW, SOFTCAP,
  // LSE}: queries in BLOCK_M x BLOCK_D blocks, keys BLOCK_N x BLOCK_D, values BLOCK_N x BLOCK_DV (each head
  // dimension's largest power-of-two divisor).
  auto attentionSpecialization = [](const std::vector<int64_t> &c) -> brick::Specialization {
    if (c.size() != 10)
      return {};
    const int64_t piece = c[2] & -c[2], valuePiece = c[3] & -c[3];
    brick::Specialization spec = {Arg::descriptor({c[0], piece}, {16, 16}), Arg::descriptor({c[1], piece}, {16, 16}),
                                  Arg::descriptor({c[1], valuePiece}, {16, 16}), aligned, aligned, aligned, aligned,
                                  dyn, dyn, dyn, dyn, dyn, dyn, dyn, dyn, dyn, c[0], c[1], piece, valuePiece};
    for (size_t i = 2; i < c.size(); ++i)
      spec.push_back(c[i]);
    return spec;
  };
  static const std::vector<Example> examples = [&] {
    std::vector<Example> list = {
      make("vector_add", "out = x + y (f32, BLOCK = 1024)", vectorAdd(), {aligned, aligned, aligned, aligned, 1024}),
      make("softmax", "fused row softmax (f32, 1024 columns, one row per program)", softmax<brick::f32>(),
           {aligned, aligned, aligned, aligned, aligned, aligned, 1024, 1}),
      make("matmul", "C = A * B (f16, 128x128x32 tiles, GROUP_M = 8, 4 warps, 4 stages)", matmul<brick::f16>(),
           {aligned, aligned, aligned, aligned, aligned, aligned, aligned, one, aligned, one, aligned, one, 128, 128, 32, 8},
           MatmulConfig{}.warps, MatmulConfig{}.stages),
      make("matmul_tf32",
           "C = A * B of f32 on tf32 tensor cores (128x256x32 tiles, GROUP_M = 8, 8 warps, 3 stages; on sm_90a B, "
           "stored K x N, is staged in shared memory and rewritten along K for wgmma)",
           matmul<brick::f32>(Precision::TF32),
           {aligned, aligned, aligned, aligned, aligned, aligned, aligned, one, aligned, one, aligned, one, 128, 256, 32, 8},
           8, 3),
      make("matmul_descriptors", "C = A * B through tensor descriptors (f16, 128x128x32 blocks, 4 warps, 4 stages)",
           matmulDescriptors<brick::f16>(), descriptorMatmul(128, 128, 32, 8), MatmulConfig{}.warps,
           MatmulConfig{}.stages),
      make("matmul_descriptors_transposed_b",
           "C = A * B^T through tensor descriptors, B stored N x K as a weight (f16, 128x128x32 blocks, 4 warps, 4 "
           "stages)",
           matmulDescriptorsTransposedB<brick::f16>(), descriptorMatmulTransposedB(128, 128, 32, 8),
           MatmulConfig{}.warps, MatmulConfig{}.stages),
      make("matmul_persistent",
           "C = A * B, persistent (one wave of programs takes tiles in turn), through tensor descriptors (f16, "
           "128x128x32 blocks, 4 warps, 4 stages)",
           matmulPersistent<brick::f16>(), descriptorMatmul(128, 128, 32, 8), MatmulConfig{}.warps, MatmulConfig{}.stages),
      make("matmul_fp8",
           "C = A * B^T in e4m3 (B stored N x K as a weight), no scales, bf16 out (128x256x128 blocks, 8 warps, 3 "
           "stages)",
           matmulDescriptorsTransposedB<brick::f8e4m3, brick::bf16>(), descriptorMatmulTransposedB(128, 256, 128, 8),
           8, 3),
      make("matmul_fp8_block_scaled",
           "C = (A x scales) (B x scales)^T in e4m3 with DeepSeek-V3's 1x128 and 128x128 block scales, promoted to f32 "
           "every 128 of K (bf16 out, 128x128 tiles, 8 warps, 4 stages)",
           matmulFp8BlockScaled(),
           {Arg::descriptor({128, 128}, {16, 16}), Arg::descriptor({128, 128}, {16, 16}),
            Arg::descriptor({128, 128}, {16, 16}), aligned, aligned, aligned, aligned, aligned, 128, 128, 8},
           8, 4),
      make("quantize_fp8",
           "activations to e4m3 with one f32 scale per 1x128 group, as DeepSeek-V3's FP8 GEMMs take them (bf16 in, "
           "64 rows x 128 columns a program)",
           quantizeFp8(), {aligned, aligned, aligned, dyn, aligned, 64, 128}),
      make("attention",
           "fused attention forward, softmax(Q K^T * scale) V (f16, batches of equal lengths, 128 query rows x 128 "
           "keys a step, head dim 64, 8 warps, 2 stages)",
           attention<brick::f16>(), attentionSpecialization({128, 128, 64, 64, 1, 0, 0, 0, 0, 0}),
           attentionConfig(64).warps, attentionConfig(64).stages),
      make("attention_causal_varlen",
           "fused attention forward, causal, grouped-query (4 query heads a K/V head), variable lengths, with the "
           "log-sum-exp (bf16, 128 query rows x 64 keys a step, head dim 128, 8 warps, 2 stages)",
           attention<brick::bf16>(), attentionSpecialization({128, 64, 128, 128, 4, 1, 1, 0, 0, 1}),
           attentionConfig(128).warps, attentionConfig(128).stages),
      make("attention_192_128",
           "fused attention forward, causal, head dims 192 for Q.K (three 64-column pieces) and 128 for V, as "
           "DeepSeek-V3's prefill (bf16, 128 query rows x 64 keys a step, 8 warps, 2 stages)",
           attention<brick::bf16>(), attentionSpecialization({128, 64, 192, 128, 1, 0, 1, 0, 0, 0}),
           attentionConfig(192).warps, attentionConfig(192).stages),
      make("moe", "MoE grouped GEMM 1 with silu(gate) * up (bf16, 64x64x64 tiles, GROUP_M = 8)", moeGateUp<brick::bf16>(),
           {aligned, aligned, aligned, aligned, aligned, aligned, aligned, aligned, aligned, dyn, dyn, aligned, one,
            aligned, aligned, one, aligned, one, 64, 64, 64, 8}),
      make("moe_tma",
           "MoE grouped GEMM 1 with the weights through a tensor descriptor (bf16, 128x128x64 tiles, GROUP_M = 16, 8 "
           "warps, 4 stages)",
           moeGateUpDescriptors<brick::bf16>(), tmaMoe(128, 128, 64, 16), 8, 4),
      make("moe_sorted",
           "MoE grouped GEMM 1 over token rows gathered in sorted order, both operands through tensor descriptors "
           "(bf16, 128x128x64 tiles, GROUP_M = 16, 8 warps, 4 stages)",
           moeGateUpSorted<brick::bf16>(), sortedMoe(128, 128, 64, 16), 8, 4),
      make("moe_persistent",
           "moe_sorted as a persistent kernel: one wave of programs takes tiles in turn (bf16, 128x128x64 tiles, GROUP_M "
           "= 16, 8 warps, 4 stages)",
           moeGateUpPersistent<brick::bf16>(), sortedMoe(128, 128, 64, 16), 8, 4),
      make("moe_gather_rows", "MoE: token rows copied into sorted order (bf16, 16 rows x 512 columns a program)",
           moeGatherRows<brick::bf16>(), {aligned, aligned, aligned, aligned, aligned, dyn, dyn, aligned, 16, 512}),
      make("moe_route", "MoE routing: softmax, top-2 of 8 experts, renormalized (bf16 logits, 16 tokens a program)",
           moeRoute<brick::bf16>(), {aligned, aligned, aligned, aligned, aligned, aligned, dyn, dyn, 8, 2, 16, 0, 0, 1}),
      make("moe_align", "MoE alignment: rows sorted by expert, padded to 64 (8 experts, top-2)", moeAlign(),
           {aligned, aligned, aligned, aligned, aligned, aligned, aligned, aligned, dyn, dyn, dyn, 8, 2, 16, 64, 32}),
      make("moe_down", "MoE grouped GEMM 2 times the routing weights (bf16, 64x128x64 tiles, GROUP_M = 8)",
           moeDown<brick::bf16>(),
           {aligned, aligned, aligned, aligned, aligned, aligned, aligned, aligned, aligned, aligned, dyn, aligned, one,
            aligned, aligned, one, aligned, one, dyn, 64, 128, 64, 8}),
      make("moe_gather_quantize",
           "MoE in FP8: token rows copied into sorted order and quantized to e4m3 per 1x128 group (16 rows a program)",
           moeGatherQuantize(), {aligned, aligned, aligned, aligned, aligned, aligned, aligned, dyn, dyn, aligned, 16}),
      make("moe_gate_up_fp8",
           "MoE grouped GEMM 1 in e4m3 with DeepSeek-V3's block scales, silu(gate) * up quantized per 1x128 group "
           "(128x128x128 tiles, GROUP_M = 8, 8 warps, 3 stages)",
           moeGateUpFp8(),
           {Arg::descriptor({128, 128}, {16, 16}), aligned, Arg::descriptor({128, 128}, {16, 16}), aligned,
            Arg::descriptor({128, 128}, {16, 16}), aligned, aligned, aligned, aligned, aligned, aligned, aligned, 128, 8},
           8, 3),
      make("moe_down_fp8",
           "MoE grouped GEMM 2 in e4m3 with DeepSeek-V3's block scales, times the routing weights (128x128x128 tiles, "
           "GROUP_M = 8, 8 warps, 3 stages)",
           moeDownFp8(),
           {Arg::descriptor({128, 128}, {16, 16}), aligned, Arg::descriptor({128, 128}, {16, 16}), aligned, aligned,
            aligned, aligned, aligned, aligned, aligned, aligned, aligned, aligned, dyn, 128, 128, 8},
           8, 3),
      make("moe_sum", "MoE: each token's top-2 rows summed (bf16, 16x256 a program)", moeSum<brick::bf16>(),
           {aligned, aligned, dyn, aligned, 2, 16, 256}),
    };
    // Where descriptors' blocks follow the tiles, --constants makes them anew.
    auto fromTiles = [](auto specialization) {
      return [specialization](const std::vector<int64_t> &c) {
        return c.size() == 4 ? specialization(c[0], c[1], c[2], c[3]) : brick::Specialization();
      };
    };
    for (Example &example : list)
      if (example.name == "matmul_descriptors" || example.name == "matmul_persistent")
        example.withConstants = fromTiles(descriptorMatmul);
      else if (example.name == "matmul_descriptors_transposed_b" || example.name == "matmul_fp8")
        example.withConstants = fromTiles(descriptorMatmulTransposedB);
      else if (example.name == "attention" || example.name == "attention_causal_varlen")
        example.withConstants = attentionSpecialization;
      else if (example.name == "moe_tma")
        example.withConstants = fromTiles(tmaMoe);
      else if (example.name == "moe_sorted" || example.name == "moe_persistent")
        example.withConstants = fromTiles(sortedMoe);
    return list;
  }();
  return examples;
}

const Example *findExample(const std::string &name) {
  for (const Example &example : catalog())
    if (example.name == name)
      return &example;
  return nullptr;
}

} // namespace examples
