//===- moe_layer.h - The MoE layer's buffers and launches, for the example, the tests and the bench ---===//
#ifndef BRICK_EXAMPLES_MOE_LAYER_H
#define BRICK_EXAMPLES_MOE_LAYER_H

#include "brick/JIT/Autotune.h"
#include "brick/JIT/JIT.h"
#include "moe.h"

#include <optional>
#include <string>

namespace examples {

/// A layer's shape: T tokens of `hidden` features, `experts` experts of `intermediate` features, `topk` each.
struct MoeShape {
  int tokens, experts, topk, hidden, intermediate;
  bool sigmoid = false;     // DeepSeek-V3's sigmoid scores (else softmax)
  bool bias = false;        // an expert bias that chooses but does not weigh (needs sigmoid in practice)
  bool renormalize = true;  // the top-k weights divided by their sum
  int silentExperts = 0;    // the last this-many experts get logits no token picks (experts with no rows)
  // The bias's spread (normal, like the logits' 2): large next to the gaps between scores it decides the choice
  // and piles tokens on a few experts; a trained bias balances them, as a small one leaves them.
  float biasSpread = 0.1f;
  long long pairs() const { return (long long)tokens * topk; }
  /// 2 * flops of GEMM 1 (both projections) and GEMM 2.
  double gateUpFlops() const { return 2.0 * pairs() * 2.0 * intermediate * hidden; }
  double downFlops() const { return 2.0 * pairs() * double(hidden) * intermediate; }
};

/// Tiles of the two grouped GEMMs (one BLOCK_M: both read the same sorted rows).
struct MoeConfig {
  int blockM = 64;
  int gateUpN = 64, gateUpK = 64, downN = 128, downK = 64, groupM = 8;
  unsigned gateUpWarps = 4, downWarps = 4, stages = 3;
  /// GEMM 1 reads the weights through a tensor descriptor (moeGateUpDescriptors: TMA on sm_90a) where their rows
  /// are whole 16-byte units and E * 2I < 2^31; through pointers (moeGateUp) otherwise.
  bool weightDescriptors = false;
  /// With weightDescriptors: GEMM 1 first copies the token rows into sorted order (moeGatherRows) and reads them
  /// through a descriptor too (moeGateUpSorted: every block by TMA, warp-specialized on sm_90a), with this
  /// config's tiles (not tuned), and stores the activations in that order by descriptor (a TMA store), as GEMM 2
  /// then reads them. Where I's rows are whole 16-byte units; otherwise as without.
  bool gatherRows = false;
  /// With gatherRows: GEMM 1 as a persistent kernel (moeGateUpPersistent: one wave of programs, warp-specialized on
  /// sm_90a, so that a tile's store overlaps the next tile's loads).
  bool persistent = false;
  /// Its programs (at most its tiles): 0 for one wave, as many as fit the GPU at once (Grid::persistent).
  unsigned persistentPrograms = 0;
  /// FP8 (the bf16 layer only; moe_fp8.h): the expert weights in e4m3 with one f32 scale per 128 x 128 block and
  /// the activations quantized to e4m3 per 1 x 128 group where they are made (the token rows as they are gathered
  /// into sorted order, silu(gate) * up in GEMM 1's epilogue), both GEMMs on FP8 tensor cores with each 128 of K
  /// promoted to f32 (DeepSeek-V3's serving). H and I multiples of 128; GEMM 1's tiles are BLOCK_M x 128 (gate and
  /// up), GEMM 2's BLOCK_M x downN (downN dividing 128), K steps of 128, warp-specialized on sm_90a; not tuned.
  bool fp8 = false;
  /// The GEMMs launch through the autotuner (brick/JIT/Autotune.h): for this BLOCK_M, the tiles, warps and stages
  /// of each are tuned per (N, K, pairs rounded up to a power of two), moeCandidates' first being these.
  bool tuned = false;
};
/// The BLOCK_M the bench's sweeps on an H100 chose for `shape` (rows per expert decide) and tiles to go with it;
/// autotuned.
MoeConfig moeConfig(const MoeShape &shape);
/// What the autotuner tries for GEMM 1 (`gateUp`) or GEMM 2 with blocks of `blockM` rows: {BLOCK_N, BLOCK_K,
/// GROUP_M}, warps, stages; moeConfig's choice first.
std::vector<brick::TuningConfig> moeCandidates(int blockM, bool gateUp);

/// Where a layer's random expert weights are made: on the host, kept for a reference over every token, or on
/// the device (randomFill; a model's experts take gigabytes), read back for the reference's few sampled tokens.
enum class MoeWeights { Host, Device };

/// The layer's inputs (bf16 or f16 as T says), workspace and output on one device, and its five launches.
template <brick::ElementTag T> class MoeLayer {
public:
  /// Allocates everything, fills the inputs with random numbers (weights scaled so that activations stay near 1),
  /// keeping the rounded values for the reference.
  static brick::runtime::Expected<MoeLayer> create(const brick::runtime::Device &device, const MoeShape &shape,
                                                   const MoeConfig &config, MoeWeights weights = MoeWeights::Host);
  /// The whole layer on `stream` (null: the default stream): runRouting, runGateUp, runDown and runSum in turn;
  /// nothing waits for the GPU.
  brick::runtime::Error run(const brick::runtime::Stream *stream = nullptr) const;
  /// The layer's steps, each reading what the ones before it left (alone, the last run()'s): routing and alignment
  /// (top-k ids and weights, sorted rows, each block's expert); GEMM 1 (the token rows copied into sorted order
  /// first where gatherRows()) with silu(gate) * up; GEMM 2 times the routing weights; each token's top-k rows
  /// summed into the output.
  brick::runtime::Error runRouting(const brick::runtime::Stream *stream = nullptr) const;
  brick::runtime::Error runGateUp(const brick::runtime::Stream *stream = nullptr) const;
  brick::runtime::Error runDown(const brick::runtime::Stream *stream = nullptr) const;
  brick::runtime::Error runSum(const brick::runtime::Stream *stream = nullptr) const;
  /// Checks the last run(): routing against float64 scores (ties within 1e-6 may go either way), the sorted
  /// rows exactly against the routing's own choice, and the output against a float64 layer over that choice
  /// (every token with host weights, 4 spread over the batch with device weights). Returns the output's
  /// relative error, or sets `failure`.
  double check(std::string &failure) const;

  const MoeShape &shape() const { return shape_; }
  /// The router logits [tokens, experts] and the bias [experts] the layer routes by, as the device holds them.
  const std::vector<float> &logits() const { return logits_; }
  const std::vector<float> &bias() const { return bias_; }
  const MoeConfig &config() const { return config_; }
  int64_t maxBlocks() const;
  /// Tokens per routing program: a [tokens, experts] block of about 2048 scores (a power of two).
  int routeTokens() const;
  /// With a tuned config: what the autotuner chose for each GEMM ("gate_up [64, 256, 8] warps=4 stages=3 (tuned),
  /// down ..."); empty otherwise or before the first run().
  std::string tunedChoice() const;
  /// Distinct experts the last run() routed to (their weights are what a decode step must stream).
  int distinctExperts(std::string &failure) const;
  /// The rows the GEMMs computed in the last run(): each expert's rows padded to BLOCK_M, summed (the padded
  /// total). Over shape().pairs(), the share of GEMM 1's tensor-core work its tail blocks' padding takes.
  int64_t paddedRows(std::string &failure) const;
  /// Whether GEMM 1 reads the weights through a tensor descriptor (MoeConfig::weightDescriptors, where it can).
  bool weightDescriptors() const;
  /// Whether GEMM 1 reads token rows gathered into sorted order through a descriptor (MoeConfig::gatherRows).
  bool gatherRows() const;

private:
  MoeLayer() = default;
  const brick::runtime::Device *device_ = nullptr;
  MoeShape shape_{};
  MoeConfig config_;
  MoeWeights weights_ = MoeWeights::Host;
  std::vector<float> logits_, bias_, a_, w13_, w2_; // rounded to T (FP8: codes times scales), as the device holds them
  std::vector<float> w13Scales_, w2Scales_;          // FP8: one per 128 x 128 block
  std::optional<brick::runtime::DeviceBuffer> logitsBuffer_, biasBuffer_, aBuffer_, w13Buffer_, w2Buffer_;
  std::optional<brick::runtime::DeviceBuffer> topkIds_, topkWeights_, blockCounts_, pairRanks_, sorted_, blockExpert_,
      blockRuns_, blockRows_, total_, h_, y_, out_, aSorted_;
  // FP8: the weights' block scales, and the activations' scales (h_ and aSorted_ hold their codes).
  std::optional<brick::runtime::DeviceBuffer> w13ScalesBuffer_, w2ScalesBuffer_, aScales_, hScales_;
  brick::runtime::Error runGateUpFp8(const brick::runtime::Stream *stream) const;
  brick::runtime::Error runDownFp8(const brick::runtime::Stream *stream) const;
};

} // namespace examples

#endif // BRICK_EXAMPLES_MOE_LAYER_H
