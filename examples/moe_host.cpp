//===- moe_host.cpp - The MoE layer's host side: inputs, launches, float64 reference ---===//

#include "host.h"
#include "moe_fp8.h"
#include "moe_layer.h"
#include "brick/Support/Float8.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <set>
#include <tuple>

namespace examples {

using brick::runtime::DeviceBuffer;
using brick::runtime::Error;
using brick::runtime::Expected;

MoeConfig moeConfig(const MoeShape &shape) {
  // From bench/run --moe sweeps on an H100 (Mixtral and DeepSeek-V3 shapes). A block should hold an expert's
  // rows, or its weights stream once per block: 16 rows while experts get a few tokens (decode), then 64, then 128.
  MoeConfig config;
  double rowsPerExpert = double(shape.pairs()) / shape.experts;
  if (rowsPerExpert <= 8) {
    config.blockM = 16;
    config.gateUpN = 64, config.gateUpK = 256;
    config.downN = 64, config.downK = 256;
    config.stages = 3;
  } else if (rowsPerExpert <= 64) {
    config.blockM = 64;
    config.gateUpN = 128, config.gateUpK = 64, config.gateUpWarps = 8;
    config.downN = 128, config.downK = 64, config.downWarps = 8;
    config.stages = 4;
  } else {
    config.blockM = 128;
    config.gateUpN = 128, config.gateUpK = 64, config.gateUpWarps = 8;
    config.downN = 256, config.downK = 64, config.downWarps = 8;
    config.groupM = 16;
    config.stages = 4;
    // Compute-bound blocks: GEMM 1's weights by TMA, one instruction a block (Mixtral at 4096 tokens: 3.49 -> 3.14
    // ms on an H100). With fewer rows a block the weights stream as fast through pointers.
    config.weightDescriptors = true;
    // Copying the token rows into sorted order first (then every block by TMA) costs reading and writing them
    // once, about 240 / I of GEMM 1's time at 600 TFLOP/s and 2.5 TB/s: Mixtral's I = 14336 gains (3.12 -> 2.93
    // ms with the copy), DeepSeek-V3's 2048 loses (5.78 -> 6.24).
    config.gatherRows = shape.intermediate >= 4096;
    // DeepSeek-V3 at 4096 tokens (128 +- 11 rows an expert) loses 7% to its experts' tail blocks: routing every
    // expert exactly 128 rows took GEMM 1 5.27 ms against 5.65-5.73 (H100, one call), with a third fewer programs
    // and L2 reads. A tail block reads its expert's weight tiles again, from L2 only because it runs in
    // step with the expert's first block. Cheaper tails lose that: a 64-row K loop for blocks of at most 64 real
    // rows, or wgmma warpgroups skipping padding rows, took 6.4-6.6 ms; with the 64-row loop ncu counted 19.73 GB
    // read from DRAM against 15.99 (the tail runs ahead, the weight tiles leave L2 before the other block reads
    // them). Launching the pair as one 2-CTA cluster (one GPC, one L2 partition) changed nothing.
    // What bounds it is L2 (ncu, K steps of 128 over 2 stages: L2 throughput 95.9% of peak, DRAM 85%, 16.0 GB
    // read from DRAM, 29.8 GB from L2 into the SMs, a third of it the tails' weights and the rows each tile of N
    // reads again). Keeping the pair in step did not pay: a cluster barrier every 4 K steps read 15.5 GB from
    // DRAM but took 5.72-5.76 ms against 5.61-5.69; the pair sharing each weight block by TMA multicast (a release
    // ring across the cluster in brickgpu-pipeline; branch moe-multicast-pairs) took L2 to 85-87% and GEMM 1 to
    // 6.00 ms (K steps of 128, 2 stages) and 6.19-6.24 (64, 4 stages, 64-row boxes) against 5.63-5.74 alone:
    // each pair waits every step for its slower program (H100, session 26). On an H200 the busiest L2 unit is
    // the crossing between the L2's two halves, as in pure streaming (MoeConfig::clusterSize says more).

    // Then persistent where an expert's weights serve several blocks (compute-bound tiles), so that a tile's store
    // overlaps the next tile's loads. Medians on an H100, one tile a program -> persistent: Mixtral at 4096 tokens
    // (1024 rows an expert) 3.12 -> 2.85 ms; where tiles stream weights it loses or ties: Mixtral at 512 tokens
    // (128 rows an expert) 0.754 -> 0.769 ms, DeepSeek-V3 at 4096 (128 rows an expert; its default keeps pointer
    // rows) 5.77 -> 6.34. The ring lives through the epilogue beside the activations' 16 KB TMA box: 4 stages
    // (213 KB). GEMM 1's cycles in ncu at Mixtral's 4096 tokens, two rounds: 4.19-4.26 M at 3 stages, 4.03-4.18 M
    // at 4 (and 4.23-4.31 M at 3 when the activations went to their pairs' rows by pointers).
    // At 4096 tokens the bench's GEMM 1 runs at the 700 W power cap (H200, nvidia-smi: SW power cap, SM clock
    // 1.3-1.6 GHz of 1.98), where time follows energy more than cycles: making the silu epilogue 10 instructions
    // an element cheaper (ex2/rcp .ftz, session 33) took Mixtral's persistent GEMM 1 from 90.1% to 93.1% tensor
    // pipe and 4% fewer cycles a K step in one launch under ncu, and left its bench time unchanged.
    config.persistent = config.gatherRows && rowsPerExpert >= 512;
  }
  config.tuned = true;
  return config;
}

std::vector<brick::TuningConfig> moeCandidates(int blockM, bool gateUp) {
  using C = brick::TuningConfig;
  if (blockM == 16) // decode: stream the weights; narrower N tiles make more programs
    return {C{{64, 256, 8}, 4, 3}, C{{64, 128, 8}, 4, 4}, C{{32, 256, 8}, 4, 3}, C{{32, 128, 8}, 4, 4}};
  if (blockM == 64)
    return {C{{128, 64, 8}, 8, 4}, C{{128, 64, 8}, 4, 4}, C{{64, 128, 8}, 4, 4}, C{{64, 64, 8}, 4, 4}};
  // GROUP_M caps the groups an expert's run of blocks is cut into: 16 keeps a Mixtral expert's ~9 blocks of 128
  // rows (4096 tokens) in one group, where 8 reads its weights twice. Where no expert has more blocks than GROUP_M
  // (DeepSeek-V3 at 4096 tokens: 1-2 blocks an expert) every GROUP_M launches the same tiles in the same order, and
  // the tuner's pick among them is noise: on an H200, GROUP_M 2, 4 and 8 in turns took 4.64-5.07 ms, each
  // spreading as far as the three differed (brick-bench --moe, three rounds, session 28).
  // GEMM 1's K steps of 128 over 2 stages (the same 192 KB ring as 64 over 4, half the iterations): DeepSeek-V3
  // at 4096 tokens (weights streamed from DRAM) 5.62-5.76 ms against 5.77-5.82 on an H100, in four calls.
  if (gateUp) // two accumulators: 128 columns each is a 128 x 256 tile
    return {C{{128, 64, 16}, 8, 4}, C{{128, 64, 16}, 8, 3}, C{{64, 64, 16}, 8, 4}, C{{128, 64, 8}, 8, 4},
            C{{128, 128, 8}, 8, 2}};
  return {C{{256, 64, 16}, 8, 4}, C{{128, 64, 16}, 8, 4}, C{{256, 64, 16}, 8, 3}, C{{256, 64, 8}, 8, 4}};
}

namespace {
template <brick::ElementTag T> struct Kernels {
  decltype(moeRoute<T>()) route = moeRoute<T>();
  decltype(moeAlign()) align = moeAlign();
  decltype(moeGateUp<T>()) gateUp = moeGateUp<T>();
  decltype(moeGateUpDescriptors<T>()) gateUpDescriptors = moeGateUpDescriptors<T>();
  decltype(moeGatherRows<T>()) gatherRows = moeGatherRows<T>();
  decltype(moeGateUpSorted<T>()) gateUpSorted = moeGateUpSorted<T>();
  decltype(moeGateUpPersistent<T>()) gateUpPersistent = moeGateUpPersistent<T>();
  decltype(moeDown<T>()) down = moeDown<T>();
  decltype(moeSum<T>()) reduce = moeSum<T>();
  decltype(randomFill<T>()) fill = randomFill<T>();
  decltype(randomFill<f8e4m3>()) fillCodes = randomFill<f8e4m3>();
  decltype(moeGatherQuantize()) gatherQuantize = moeGatherQuantize();
  decltype(moeGateUpFp8()) gateUpFp8 = moeGateUpFp8();
  decltype(moeDownFp8()) downFp8 = moeDownFp8();
};
template <brick::ElementTag T> const Kernels<T> &kernels() {
  static const Kernels<T> instance;
  return instance;
}

/// GEMM 1 or 2 launched through the autotuner over moeCandidates: one tuner per kernel, BLOCK_M and device kind,
/// keyed by N, K and the pairs rounded up to a power of two (the blocks the routing fills follow the pairs).
template <class K> auto &moeTuner(const K &kernel, int blockM, bool gateUp, const brick::runtime::Device &device) {
  using Tuned = decltype(brick::autotune(kernel, {}, {}));
  static std::map<std::tuple<int, bool>, std::unique_ptr<Tuned>> tuners;
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<Tuned> &tuned = tuners[{blockM, device.isInterpreter()}];
  if (!tuned) {
    // GEMM 1's N is I (parameter 7), K is H (8), pairs 10; GEMM 2's N is H (8), K is I (9), pairs 10.
    brick::TuningKey key{gateUp ? std::vector<size_t>{7, 8, 10} : std::vector<size_t>{8, 9, 10},
                         [](std::vector<int64_t> values) {
                           values[2] = moeBlockSize(int(values[2]));
                           return values;
                         }};
    brick::AutotuneOptions options =
        exampleTuning(device.isInterpreter(), [](const brick::TuningConfig &, const std::vector<int64_t> &) { return true; });
    tuned = std::make_unique<Tuned>(brick::autotune(kernel, moeCandidates(blockM, gateUp), key, options));
  }
  return *tuned;
}

int cdiv(int64_t a, int64_t b) { return int((a + b - 1) / b); }
double silu(double x) { return x / (1 + std::exp(-x)); }

/// What the device's quantizeFp8Groups makes of x's groups of 128, decoded: x rounded to e4m3 codes times each
/// group's scale (largest magnitude, at least 1e-4, over 448), computed in f32 as the device does.
void quantizeGroups(float *x, size_t n) {
  for (size_t group = 0; group < n; group += 128) {
    float amax = 1e-4f;
    for (size_t i = group; i < group + 128; ++i)
      amax = std::max(amax, std::abs(x[i]));
    float factor = 448.0f / amax, scale = amax / 448.0f;
    for (size_t i = group; i < group + 128; ++i)
      x[i] = brick::e4m3ToFloat(brick::floatToE4M3(x[i] * factor)) * scale;
  }
}

/// One f32 scale per 128 x 128 block of `matrices` rows x columns matrices, about `scale` (0.5 to 1.5 times it,
/// so that a kernel reading another block's scale is caught), [matrices * rows / 128, columns / 128].
std::vector<float> blockScales(size_t matrices, size_t rows, size_t columns, float scale) {
  std::vector<float> scales(matrices * rows / 128 * (columns / 128));
  std::uniform_real_distribution<float> spread(0.5f, 1.5f);
  for (float &value : scales)
    value = scale * spread(host::rng());
  return scales;
}
} // namespace

template <brick::ElementTag T> int64_t MoeLayer<T>::maxBlocks() const {
  return moeMaxBlocks(shape_.pairs(), shape_.experts, config_.blockM);
}

template <brick::ElementTag T> int MoeLayer<T>::routeTokens() const {
  return std::clamp(2048 / moeBlockSize(shape_.experts), 1, 64); // a power of two (a block dimension)
}

template <brick::ElementTag T>
Expected<MoeLayer<T>> MoeLayer<T>::create(const brick::runtime::Device &device, const MoeShape &shape,
                                          const MoeConfig &config, MoeWeights weights) {
  using namespace host;
  if (shape.topk < 1 || shape.topk > shape.experts - shape.silentExperts)
    return Error("MoE layer: topk must be from 1 to the experts a token can pick (" +
                 std::to_string(shape.experts - shape.silentExperts) + "), got " + std::to_string(shape.topk));
  if (config.fp8 && (!std::is_same_v<T, brick::bf16> || shape.hidden % 128 || shape.intermediate % 128 ||
                     128 % config.downN || config.blockM < 16 || config.blockM > 128 ||
                     (config.blockM & (config.blockM - 1))))
    return Error("MoE layer in FP8: bf16 tokens, H and I multiples of 128, BLOCK_M 16, 32, 64 or 128 and downN "
                 "dividing 128, got H " + std::to_string(shape.hidden) + ", I " + std::to_string(shape.intermediate) + ", BLOCK_M " +
                 std::to_string(config.blockM) + ", downN " + std::to_string(config.downN));
  MoeLayer layer;
  layer.device_ = &device;
  layer.shape_ = shape;
  layer.config_ = config;
  layer.weights_ = weights;
  const size_t T_ = shape.tokens, E = shape.experts, H = shape.hidden, I = shape.intermediate;
  layer.logits_ = randomFloats(T_ * E, 2.0f);
  for (size_t t = 0; t < T_; ++t)
    for (size_t e = E - shape.silentExperts; e < E; ++e)
      layer.logits_[t * E + e] = -30.0f;
  layer.bias_ = randomFloats(E, shape.bias ? shape.biasSpread : 0.0f);
  layer.a_ = randomFloats(T_ * H);
  const float w13Scale = float(2.0 / std::sqrt(double(H))), w2Scale = float(2.0 / std::sqrt(double(I)));
  // FP8: codes uniform in [-1, 1] (rounded to e4m3) times a scale per 128 x 128 block; w13_ and w2_ hold their
  // products, the values the layer multiplies by.
  std::vector<uint8_t> w13Codes, w2Codes;
  if (config.fp8) {
    layer.w13Scales_ = blockScales(E, 2 * I, H, w13Scale);
    layer.w2Scales_ = blockScales(E, H, I, w2Scale);
  }
  auto fp8Weights = [&](size_t rows, size_t columns, const std::vector<float> &scales, std::vector<uint8_t> &codes,
                        std::vector<float> &values) {
    values = randomFloats(rows * columns);
    codes.resize(values.size());
    for (size_t r = 0; r < rows; ++r)
      for (size_t c = 0; c < columns; ++c) {
        size_t i = r * columns + c;
        codes[i] = brick::floatToE4M3(values[i]);
        values[i] = brick::e4m3ToFloat(codes[i]) * scales[r / 128 * (columns / 128) + c / 128];
      }
  };
  if (weights == MoeWeights::Host && config.fp8) {
    fp8Weights(E * 2 * I, H, layer.w13Scales_, w13Codes, layer.w13_);
    fp8Weights(E * H, I, layer.w2Scales_, w2Codes, layer.w2_);
  } else if (weights == MoeWeights::Host) {
    layer.w13_ = randomFloats(E * 2 * I * H, w13Scale);
    layer.w2_ = randomFloats(E * H * I, w2Scale);
  }

  auto put = [&](std::optional<DeviceBuffer> &slot, Expected<DeviceBuffer> buffer) -> Error {
    if (!buffer)
      return buffer.error();
    slot.emplace(std::move(*buffer));
    return Error();
  };
  const size_t pairs = shape.pairs(), routeBlocks = size_t(cdiv(shape.tokens, layer.routeTokens()));
  const size_t blocks = size_t(layer.maxBlocks()), elementBytes = sizeof(typename Memory<T>::Stored);
  const size_t weightBytes = config.fp8 ? 1 : elementBytes, hBytes = config.fp8 ? 1 : elementBytes;
  auto uploadWeights = [&](std::vector<float> &values, const std::vector<uint8_t> &codes, size_t count) {
    if (weights == MoeWeights::Device)
      return DeviceBuffer::allocate(device, count * weightBytes);
    return config.fp8 ? upload(device, codes.data(), codes.size()) : upload(device, toMemory<T>(values));
  };
  for (Error e : {put(layer.logitsBuffer_, upload(device, toMemory<T>(layer.logits_))),
                  put(layer.biasBuffer_, upload(device, layer.bias_)),
                  put(layer.aBuffer_, upload(device, toMemory<T>(layer.a_))),
                  put(layer.w13Buffer_, uploadWeights(layer.w13_, w13Codes, E * 2 * I * H)),
                  put(layer.w2Buffer_, uploadWeights(layer.w2_, w2Codes, E * H * I)),
                  put(layer.topkIds_, poisoned(device, pairs * 4)), put(layer.topkWeights_, poisoned(device, pairs * 4)),
                  put(layer.blockCounts_, poisoned(device, routeBlocks * E * 4)),
                  put(layer.pairRanks_, poisoned(device, pairs * 4)),
                  put(layer.sorted_, poisoned(device, blocks * config.blockM * 4)),
                  put(layer.blockExpert_, poisoned(device, blocks * 4)),
                  put(layer.blockRuns_, poisoned(device, blocks * 2 * 4)),
                  put(layer.blockRows_, poisoned(device, blocks * 4)), put(layer.total_, poisoned(device, 4)),
                  // A row per pair, or per sorted row where GEMM 1 stores them in sorted order (gatherRows).
                  put(layer.h_, poisoned(device, std::max(pairs, layer.gatherRows() ? blocks * config.blockM : 0) * I *
                                                     hBytes)),
                  put(layer.y_, poisoned(device, pairs * H * elementBytes)),
                  put(layer.out_, poisoned(device, T_ * H * elementBytes))})
    if (e)
      return e;
  if (layer.gatherRows())
    if (Error e = put(layer.aSorted_, poisoned(device, blocks * config.blockM * H * hBytes)))
      return e;
  if (config.fp8) {
    const size_t rows = blocks * config.blockM;
    for (Error e : {put(layer.w13ScalesBuffer_, upload(device, layer.w13Scales_)),
                    put(layer.w2ScalesBuffer_, upload(device, layer.w2Scales_)),
                    put(layer.aScales_, poisoned(device, H / 128 * rows * 4)),
                    put(layer.hScales_, poisoned(device, I / 128 * rows * 4))})
      if (e)
        return e;
  }
  if (weights == MoeWeights::Device && config.fp8) {
    const int block = 1024;
    auto fill = [&](const DeviceBuffer &buffer, int64_t n) {
      return kernels<T>().fillCodes.launch(brick::Grid{unsigned((n + block - 1) / block)},
                                           brick::LaunchOptions{.device = &device}, buffer, n, int64_t(rng()()), 1.0f,
                                           block);
    };
    if (Error e = fill(*layer.w13Buffer_, int64_t(E * 2 * I * H)))
      return e;
    if (Error e = fill(*layer.w2Buffer_, int64_t(E * H * I)))
      return e;
  } else if (weights == MoeWeights::Device) {
    const int block = 1024;
    auto fill = [&](const DeviceBuffer &buffer, int64_t n, int64_t seed, float scale) {
      return kernels<T>().fill.launch(brick::Grid{unsigned((n + block - 1) / block)},
                                      brick::LaunchOptions{.device = &device}, buffer, n, seed, scale, block);
    };
    if (Error e = fill(*layer.w13Buffer_, int64_t(E * 2 * I * H), int64_t(rng()()), w13Scale))
      return e;
    if (Error e = fill(*layer.w2Buffer_, int64_t(E * H * I), int64_t(rng()()), w2Scale))
      return e;
  }
  return layer;
}

template <brick::ElementTag T> Error MoeLayer<T>::run(const brick::runtime::Stream *stream) const {
  if (Error e = runRouting(stream))
    return e;
  if (Error e = runGateUp(stream))
    return e;
  if (Error e = runDown(stream))
    return e;
  return runSum(stream);
}

template <brick::ElementTag T> Error MoeLayer<T>::runRouting(const brick::runtime::Stream *stream) const {
  const Kernels<T> &k = kernels<T>();
  const MoeShape &s = shape_;
  const int E = s.experts, routeTokens = this->routeTokens(), routeBlocks = cdiv(s.tokens, routeTokens);
  // Rows of block counts (and blocks) the alignment reads at a time: about 4096 numbers.
  const int chunk = std::clamp(4096 / moeBlockSize(E), 16, 256);
  brick::LaunchOptions options{.numWarps = 4, .numStages = 1, .stream = stream, .device = device_};
  if (Error e = k.route.launch(brick::Grid{unsigned(routeBlocks)}, options, *logitsBuffer_, *biasBuffer_, *topkIds_,
                               *topkWeights_, *blockCounts_, *pairRanks_, s.tokens, E, E, s.topk, routeTokens,
                               int(s.sigmoid), int(s.bias), int(s.renormalize)))
    return e;
  return k.align.launch(brick::Grid{unsigned(routeBlocks)}, options, *topkIds_, *blockCounts_, *pairRanks_, *sorted_,
                        *blockExpert_, *blockRuns_, *blockRows_, *total_, s.tokens, routeBlocks, int(maxBlocks()), E,
                        s.topk, routeTokens, config_.blockM, chunk);
}

template <brick::ElementTag T> Error MoeLayer<T>::runDown(const brick::runtime::Stream *stream) const {
  if (config_.fp8)
    return runDownFp8(stream);
  const Kernels<T> &k = kernels<T>();
  const MoeShape &s = shape_;
  const int H = s.hidden, I = s.intermediate, pairs = int(s.pairs());
  brick::LaunchOptions down{.numWarps = config_.downWarps, .numStages = config_.stages, .stream = stream,
                            .device = device_};
  const unsigned blocks = unsigned(maxBlocks());
  // Through the tuner (tiles from its choice) or with config_'s tiles.
  auto launchDown = [&](const auto &launcher, const auto &grid, auto blockN, auto blockK, auto groupM) {
    return launcher.launch(grid, down, *h_, *w2Buffer_, *y_, *topkWeights_, *sorted_, *blockExpert_, *blockRuns_,
                           *total_, H, I, pairs, I, 1, H * I, I, 1, H, 1, int(gatherRows()), config_.blockM, blockN,
                           blockK, groupM);
  };
  using brick::fromConfig;
  return config_.tuned ? launchDown(moeTuner(k.down, config_.blockM, false, *device_),
                                    [&](const brick::TuningConfig &c) {
                                      return brick::Grid{blocks * unsigned(cdiv(H, c.get(0)))};
                                    },
                                    fromConfig, fromConfig, fromConfig)
                       : launchDown(k.down, brick::Grid{blocks * unsigned(cdiv(H, config_.downN))}, config_.downN,
                                    config_.downK, config_.groupM);
}

template <brick::ElementTag T> Error MoeLayer<T>::runSum(const brick::runtime::Stream *stream) const {
  const MoeShape &s = shape_;
  brick::LaunchOptions options{.numWarps = 4, .numStages = 1, .stream = stream, .device = device_};
  const int sumRows = 16, sumColumns = 256;
  unsigned sumPrograms = unsigned(cdiv(s.tokens, sumRows)) * unsigned(cdiv(s.hidden, sumColumns));
  return kernels<T>().reduce.launch(brick::Grid{sumPrograms}, options, *y_, *out_, s.tokens, s.hidden, s.topk, sumRows,
                                    sumColumns);
}

template <brick::ElementTag T> Error MoeLayer<T>::runGateUpFp8(const brick::runtime::Stream *stream) const {
  using brick::TensorDescriptorArg;
  const MoeShape &s = shape_;
  const int64_t H = s.hidden, I = s.intermediate, E = s.experts;
  const unsigned blocks = unsigned(maxBlocks());
  const int64_t rows = int64_t(blocks) * config_.blockM;
  const int rowsPerProgram = 16;
  brick::LaunchOptions copy{.numWarps = 4, .numStages = 1, .stream = stream, .device = device_};
  if (Error e = kernels<T>().gatherQuantize.launch(brick::Grid{unsigned(cdiv(rows, rowsPerProgram))}, copy, *aBuffer_,
                                                   *aSorted_, *aScales_, *sorted_, *total_, int(rows), int(H), s.topk,
                                                   int(s.pairs()), int(H), rowsPerProgram))
    return e;
  brick::LaunchOptions options{.numWarps = config_.gateUpWarps, .numStages = config_.stages,
                               .warpSpecialize = true, .stream = stream, .device = device_};
  return kernels<T>().gateUpFp8.launch(
      brick::Grid{blocks * unsigned(I / 128)}, options,
      TensorDescriptorArg::of(*aSorted_, {rows, H}, {H, 1}, {config_.blockM, 128}), *aScales_,
      TensorDescriptorArg::of(*w13Buffer_, {E * 2 * I, H}, {H, 1}, {128, 128}), *w13ScalesBuffer_,
      TensorDescriptorArg::of(*h_, {rows, I}, {I, 1}, {config_.blockM, 128}), *hScales_, *blockExpert_, *blockRuns_,
      *total_, int(rows), int(I), int(H), config_.blockM, config_.groupM);
}

template <brick::ElementTag T> Error MoeLayer<T>::runDownFp8(const brick::runtime::Stream *stream) const {
  using brick::TensorDescriptorArg;
  const MoeShape &s = shape_;
  const int64_t H = s.hidden, I = s.intermediate, E = s.experts;
  const unsigned blocks = unsigned(maxBlocks());
  const int64_t rows = int64_t(blocks) * config_.blockM;
  brick::LaunchOptions options{.numWarps = config_.downWarps, .numStages = config_.stages, .warpSpecialize = true,
                               .stream = stream, .device = device_};
  return kernels<T>().downFp8.launch(
      brick::Grid{blocks * unsigned(cdiv(H, config_.downN))}, options,
      TensorDescriptorArg::of(*h_, {rows, I}, {I, 1}, {config_.blockM, 128}), *hScales_,
      TensorDescriptorArg::of(*w2Buffer_, {E * H, I}, {I, 1}, {config_.downN, 128}), *w2ScalesBuffer_, *y_,
      *topkWeights_, *sorted_, *blockExpert_, *blockRuns_, *total_, int(rows), int(H), int(I), int(s.pairs()),
      config_.blockM, config_.downN, config_.groupM);
}

template <brick::ElementTag T> Error MoeLayer<T>::runGateUp(const brick::runtime::Stream *stream) const {
  if (config_.fp8)
    return runGateUpFp8(stream);
  const MoeShape &s = shape_;
  const int H = s.hidden, I = s.intermediate;
  brick::LaunchOptions options{.numWarps = config_.gateUpWarps, .numStages = config_.stages, .stream = stream,
                               .device = device_};
  const unsigned blocks = unsigned(maxBlocks());
  using brick::fromConfig;
  auto tunedGrid = [&](const brick::TuningConfig &c) { return brick::Grid{blocks * unsigned(cdiv(I, c.get(0)))}; };
  const brick::Grid grid{blocks * unsigned(cdiv(I, config_.gateUpN))};
  if (gatherRows()) {
    using brick::TensorDescriptorArg;
    const int rowsPerProgram = 16, columns = 512;
    const int64_t rows = int64_t(blocks) * config_.blockM;
    brick::LaunchOptions copy{.numWarps = 4, .numStages = 1, .stream = stream, .device = device_};
    if (Error e = kernels<T>().gatherRows.launch(brick::Grid{unsigned(cdiv(rows, rowsPerProgram))}, copy, *aBuffer_,
                                                 *aSorted_, *sorted_, *total_, H, s.topk, int(s.pairs()), H,
                                                 rowsPerProgram, columns))
      return e;
    brick::LaunchOptions specialized = options;
    specialized.warpSpecialize = true;
    auto launchSorted = [&](const auto &kernel, brick::Grid sortedGrid) {
      return kernel.launch(
          sortedGrid, specialized,
          TensorDescriptorArg::of(*aSorted_, {rows, H}, {H, 1}, {config_.blockM, config_.gateUpK}),
          TensorDescriptorArg::of(*w13Buffer_, {int64_t(s.experts) * 2 * I, H}, {H, 1},
                                  {config_.gateUpN, config_.gateUpK}),
          TensorDescriptorArg::of(*h_, {rows, I}, {I, 1}, {config_.blockM, config_.gateUpN}), *blockExpert_,
          *blockRuns_, *total_, I, H, config_.blockM, config_.gateUpN, config_.gateUpK, config_.groupM);
    };
    if (config_.persistent) {
      // One wave over the tiles (grid.x, every block's); or the programs a test asks for, no more than the tiles.
      if (!config_.persistentPrograms)
        return launchSorted(kernels<T>().gateUpPersistent, brick::Grid::persistent(grid.x));
      return launchSorted(kernels<T>().gateUpPersistent,
                          brick::Grid{std::max(1u, std::min(config_.persistentPrograms, grid.x))});
    }
    return launchSorted(kernels<T>().gateUpSorted, grid);
  }
  if (weightDescriptors()) {
    // w13 as an [E * 2I, H] matrix in BLOCK_N x BLOCK_K blocks (the tuner's first two values when it chooses).
    using brick::TensorDescriptorArg;
    const int64_t rows = int64_t(s.experts) * 2 * I;
    auto launchGateUp = [&](const auto &launcher, const auto &grid, TensorDescriptorArg w13, auto blockN, auto blockK,
                            auto groupM) {
      return launcher.launch(grid, options, *aBuffer_, w13, *h_, *sorted_, *blockExpert_, *blockRuns_, *total_, I, H,
                             s.topk, int(s.pairs()), H, 1, I, 1, config_.blockM, blockN, blockK, groupM);
    };
    const auto &kernel = kernels<T>().gateUpDescriptors;
    if (config_.tuned)
      return launchGateUp(moeTuner(kernel, config_.blockM, true, *device_), tunedGrid,
                          TensorDescriptorArg::of(*w13Buffer_, {rows, H}, {H, 1}, {}).blocksFromConfig({0, 1}),
                          fromConfig, fromConfig, fromConfig);
    return launchGateUp(kernel, grid,
                        TensorDescriptorArg::of(*w13Buffer_, {rows, H}, {H, 1}, {config_.gateUpN, config_.gateUpK}),
                        config_.gateUpN, config_.gateUpK, config_.groupM);
  }
  // Through the tuner (tiles from its choice) or with config_'s tiles.
  auto launchGateUp = [&](const auto &launcher, const auto &grid, auto blockN, auto blockK, auto groupM) {
    return launcher.launch(grid, options, *aBuffer_, *w13Buffer_, *h_, *sorted_, *blockExpert_, *blockRuns_, *total_,
                           I, H, s.topk, int(s.pairs()), H, 1, 2 * I * H, H, 1, I, 1, config_.blockM, blockN, blockK,
                           groupM);
  };
  const auto &kernel = kernels<T>().gateUp;
  if (config_.tuned)
    return launchGateUp(moeTuner(kernel, config_.blockM, true, *device_), tunedGrid, fromConfig, fromConfig,
                        fromConfig);
  return launchGateUp(kernel, grid, config_.gateUpN, config_.gateUpK, config_.groupM);
}

template <brick::ElementTag T> bool MoeLayer<T>::gatherRows() const {
  if (config_.fp8)
    return true; // the token rows are quantized as they are gathered
  // GEMM 1 then stores the activations by descriptor too: rows of I elements, whole 16-byte units.
  const int64_t hRowBytes = int64_t(shape_.intermediate) * int64_t(sizeof(typename host::Memory<T>::Stored));
  return weightDescriptors() && config_.gatherRows && hRowBytes % 16 == 0;
}

template <brick::ElementTag T> bool MoeLayer<T>::weightDescriptors() const {
  const int64_t rowBytes = int64_t(shape_.hidden) * int64_t(sizeof(typename host::Memory<T>::Stored));
  return config_.weightDescriptors && rowBytes % 16 == 0 && int64_t(shape_.experts) * 2 * shape_.intermediate < (int64_t(1) << 31);
}

template <brick::ElementTag T> std::string MoeLayer<T>::tunedChoice() const {
  if (!config_.tuned)
    return "";
  const int64_t pairs = moeBlockSize(int(shape_.pairs()));
  auto chosen = [&](const auto &tuned, std::vector<int64_t> key) -> std::string {
    for (const brick::Tuning &tuning : tuned.tunings())
      if (tuning.key == key)
        return tuned.configs()[tuning.chosen].str() + " (" + tuning.how + ")";
    return "not tuned yet";
  };
  const Kernels<T> &k = kernels<T>();
  const std::vector<int64_t> gateUpKey = {shape_.intermediate, shape_.hidden, pairs};
  if (gatherRows())
    return std::string("gate_up (rows gathered, all by descriptor") + (config_.persistent ? ", persistent" : "") +
           ") [" + std::to_string(config_.gateUpN) + ", " + std::to_string(config_.gateUpK) + ", " +
           std::to_string(config_.groupM) + "] warps=" +
           std::to_string(config_.gateUpWarps) + " stages=" + std::to_string(config_.stages) +
           ", down " + chosen(moeTuner(k.down, config_.blockM, false, *device_), {shape_.hidden, shape_.intermediate, pairs});
  return (weightDescriptors()
              ? "gate_up (weights by descriptor) " +
                    chosen(moeTuner(k.gateUpDescriptors, config_.blockM, true, *device_), gateUpKey)
              : "gate_up " + chosen(moeTuner(k.gateUp, config_.blockM, true, *device_), gateUpKey)) +
         ", down " + chosen(moeTuner(k.down, config_.blockM, false, *device_), {shape_.hidden, shape_.intermediate, pairs});
}

template <brick::ElementTag T> int MoeLayer<T>::distinctExperts(std::string &failure) const {
  std::vector<int32_t> ids = host::download<int32_t>(*topkIds_, size_t(shape_.pairs()), failure);
  return int(std::set<int32_t>(ids.begin(), ids.end()).size());
}

template <brick::ElementTag T> int64_t MoeLayer<T>::paddedRows(std::string &failure) const {
  return host::download<int32_t>(*total_, 1, failure)[0];
}

template <brick::ElementTag T> double MoeLayer<T>::check(std::string &failure) const {
  using host::Memory;
  const MoeShape &s = shape_;
  const size_t T_ = s.tokens, E = s.experts, H = s.hidden, I = s.intermediate, K = s.topk, pairs = s.pairs();
  std::vector<int32_t> ids = host::download<int32_t>(*topkIds_, pairs, failure);
  std::vector<float> weights = host::download<float>(*topkWeights_, pairs, failure);
  const int64_t total = paddedRows(failure);
  const size_t blocks = size_t(maxBlocks()), blockM = size_t(config_.blockM);
  std::vector<int32_t> sorted = host::download<int32_t>(*sorted_, blocks * blockM, failure);
  std::vector<int32_t> blockExpert = host::download<int32_t>(*blockExpert_, blocks, failure);
  std::vector<int32_t> blockRuns = host::download<int32_t>(*blockRuns_, blocks * 2, failure);
  std::vector<int32_t> blockRows = host::download<int32_t>(*blockRows_, blocks, failure);
  auto outStored = host::download<typename Memory<T>::Stored>(*out_, T_ * H, failure);
  if (!failure.empty())
    return 0;
  auto fail = [&](std::string why) {
    failure = std::move(why);
    return 0.0;
  };

  // Routing: the float64 scores' top k, in order, unless two scores tie within 1e-6.
  for (size_t t = 0; t < T_; ++t) {
    std::vector<double> scores(E), choice(E);
    double top = *std::max_element(logits_.begin() + t * E, logits_.begin() + (t + 1) * E), sum = 0;
    for (size_t e = 0; e < E; ++e) {
      double x = logits_[t * E + e];
      scores[e] = s.sigmoid ? 1 / (1 + std::exp(-x)) : std::exp(x - top);
      sum += scores[e];
    }
    for (size_t e = 0; e < E; ++e) {
      if (!s.sigmoid)
        scores[e] /= sum;
      choice[e] = scores[e] + bias_[e];
    }
    std::vector<size_t> order(E);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return choice[x] > choice[y]; });
    double chosen = 0;
    for (size_t j = 0; j < K; ++j)
      chosen += scores[order[j]];
    for (size_t j = 0; j < K; ++j) {
      int32_t got = ids[t * K + j];
      if (got < 0 || size_t(got) >= E)
        return fail("token " + std::to_string(t) + " routed to expert " + std::to_string(got));
      if (size_t(got) != order[j] && std::abs(choice[size_t(got)] - choice[order[j]]) > 1e-6)
        return fail("token " + std::to_string(t) + ": choice " + std::to_string(j) + " is expert " +
                    std::to_string(got) + ", float64 says " + std::to_string(order[j]));
      double want = scores[size_t(got)] / (s.renormalize ? chosen : 1.0);
      if (std::abs(weights[t * K + j] - want) > 1e-4 * std::max(1.0, std::abs(want)))
        return fail("token " + std::to_string(t) + ": weight " + std::to_string(j) + " is " +
                    std::to_string(weights[t * K + j]) + ", float64 says " + std::to_string(want));
    }
  }

  // Alignment: each expert's pairs in pair order, padded with the invalid id to a multiple of BLOCK_M.
  // Each block's run: its expert's blocks [first, end); a block past the total is a run of its own. Each
  // block's rows before the padding: 0 past the total.
  std::vector<int32_t> wantSorted, wantExpert, wantRuns, wantRows(blocks, 0);
  for (size_t e = 0; e < E; ++e) {
    size_t start = wantSorted.size();
    for (size_t p = 0; p < pairs; ++p)
      if (size_t(ids[p]) == e)
        wantSorted.push_back(int32_t(p));
    const size_t realEnd = wantSorted.size();
    while ((wantSorted.size() - start) % blockM)
      wantSorted.push_back(int32_t(pairs));
    for (size_t b = start; b < wantSorted.size(); b += blockM) {
      if (b / blockM < blocks)
        wantRows[b / blockM] = int32_t(std::min(blockM, realEnd - b));
      wantExpert.push_back(int32_t(e));
      wantRuns.insert(wantRuns.end(), {int32_t(start / blockM), int32_t(wantSorted.size() / blockM)});
    }
  }
  for (size_t b = wantExpert.size(); b < blocks; ++b)
    wantRuns.insert(wantRuns.end(), {int32_t(b), int32_t(b + 1)});
  if (size_t(total) != wantSorted.size())
    return fail("padded total " + std::to_string(total) + ", expected " + std::to_string(wantSorted.size()));
  if (wantExpert.size() > blocks)
    return fail("more blocks than moeMaxBlocks allows");
  for (size_t i = 0; i < wantSorted.size(); ++i)
    if (sorted[i] != wantSorted[i])
      return fail("sorted pair " + std::to_string(i) + " is " + std::to_string(sorted[i]) + ", expected " +
                  std::to_string(wantSorted[i]));
  for (size_t b = 0; b < wantExpert.size(); ++b)
    if (blockExpert[b] != wantExpert[b])
      return fail("block " + std::to_string(b) + " has expert " + std::to_string(blockExpert[b]) + ", expected " +
                  std::to_string(wantExpert[b]));
  for (size_t b = 0; b < blocks; ++b)
    if (blockRuns[2 * b] != wantRuns[2 * b] || blockRuns[2 * b + 1] != wantRuns[2 * b + 1])
      return fail("block " + std::to_string(b) + " is in the run [" + std::to_string(blockRuns[2 * b]) + ", " +
                  std::to_string(blockRuns[2 * b + 1]) + "), expected [" + std::to_string(wantRuns[2 * b]) + ", " +
                  std::to_string(wantRuns[2 * b + 1]) + ")");
  for (size_t b = 0; b < blocks; ++b)
    if (blockRows[b] != wantRows[b])
      return fail("block " + std::to_string(b) + " has " + std::to_string(blockRows[b]) + " real rows, expected " +
                  std::to_string(wantRows[b]));

  // The layer over that routing, in float64 (h rounded to T as the device stores it), for every token or, with
  // device weights, 4 spread over the batch, one expert at a time (a model's expert is hundreds of MB).
  std::vector<size_t> tokens;
  if (weights_ == MoeWeights::Host || T_ <= 4)
    for (size_t t = 0; t < T_; ++t)
      tokens.push_back(t);
  else
    for (size_t i = 0; i < 4; ++i)
      tokens.push_back(i * (T_ - 1) / 3);
  std::map<size_t, std::vector<size_t>> pairsOf; // expert -> the sampled tokens' pairs routed to it
  std::map<size_t, std::vector<double>> out;     // token -> its output row
  for (size_t t : tokens) {
    out[t].assign(H, 0.0);
    for (size_t j = 0; j < K; ++j)
      pairsOf[size_t(ids[t * K + j])].push_back(t * K + j);
  }
  std::vector<float> w13Read, w2Read;
  // Expert e's count weights (a columns-wide matrix; FP8: codes times w13Scales_ or w2Scales_).
  auto readBack = [&](const DeviceBuffer &buffer, size_t e, size_t count, size_t columns, const std::vector<float> &scales,
                      std::vector<float> &into) {
    into.resize(count);
    if (config_.fp8) {
      std::vector<uint8_t> codes(count);
      if (Error error = buffer.copyToHost(codes.data(), count, e * count))
        failure = error.message();
      const size_t rows = count / columns;
      for (size_t i = 0; i < count; ++i)
        into[i] = brick::e4m3ToFloat(codes[i]) * scales[(e * rows + i / columns) / 128 * (columns / 128) + i % columns / 128];
      return;
    }
    std::vector<typename Memory<T>::Stored> stored(count);
    if (Error error = buffer.copyToHost(stored.data(), count * sizeof(stored[0]), e * count * sizeof(stored[0])))
      failure = error.message();
    for (size_t i = 0; i < count; ++i)
      into[i] = Memory<T>::to(stored[i]);
  };
  std::vector<double> h(I);
  for (const auto &[e, expertPairs] : pairsOf) {
    const float *w13 = nullptr, *w2 = nullptr;
    if (weights_ == MoeWeights::Host) {
      w13 = &w13_[e * 2 * I * H], w2 = &w2_[e * H * I];
    } else {
      readBack(*w13Buffer_, e, 2 * I * H, H, w13Scales_, w13Read);
      readBack(*w2Buffer_, e, H * I, I, w2Scales_, w2Read);
      if (!failure.empty())
        return 0;
      w13 = w13Read.data(), w2 = w2Read.data();
    }
    for (size_t p : expertPairs) {
      // FP8: the token row and h quantized per 1 x 128 group, as the device does; else h rounded to T.
      std::vector<float> a(a_.begin() + (p / K) * H, a_.begin() + (p / K + 1) * H), hRow(I);
      if (config_.fp8)
        quantizeGroups(a.data(), H);
      for (size_t n = 0; n < I; ++n) {
        const float *gate = &w13[n * H], *up = &w13[(I + n) * H];
        double g = 0, u = 0;
        for (size_t q = 0; q < H; ++q)
          g += double(a[q]) * gate[q], u += double(a[q]) * up[q];
        hRow[n] = config_.fp8 ? float(silu(g) * u) : Memory<T>::to(Memory<T>::from(float(silu(g) * u)));
      }
      if (config_.fp8)
        quantizeGroups(hRow.data(), I);
      std::copy(hRow.begin(), hRow.end(), h.begin());
      std::vector<double> &row = out[p / K];
      for (size_t n = 0; n < H; ++n) {
        const float *w = &w2[n * I];
        double sum = 0;
        for (size_t q = 0; q < I; ++q)
          sum += h[q] * w[q];
        row[n] += double(weights[p]) * sum;
      }
    }
  }
  std::vector<double> got, ref;
  for (const auto &[t, row] : out)
    for (size_t n = 0; n < H; ++n) {
      ref.push_back(row[n]);
      got.push_back(Memory<T>::to(outStored[t * H + n]));
    }
  return host::relativeError(got, ref);
}

template class MoeLayer<brick::bf16>;
template class MoeLayer<brick::f16>;

template <brick::ElementTag T>
Check runMoe(const brick::runtime::Device &device, const MoeShape &shape, MoeWeights weights,
             std::optional<MoeConfig> chosen) {
  const MoeConfig config = chosen ? *chosen : moeConfig(shape);
  std::string what = std::string(std::is_same_v<T, brick::bf16> ? "bf16" : "f16") + " moe T=" +
                     std::to_string(shape.tokens) + " E=" + std::to_string(shape.experts) + " top-" +
                     std::to_string(shape.topk) + " H=" + std::to_string(shape.hidden) +
                     " I=" + std::to_string(shape.intermediate) + (shape.sigmoid ? " sigmoid" : " softmax") +
                     (shape.bias ? "+bias" : "") + (shape.silentExperts ? " (" + std::to_string(shape.silentExperts) +
                                                                              " experts unused)"
                                                                        : "") +
                     (weights == MoeWeights::Device ? ", weights made on the device, 4 tokens checked" : "") +
                     (config.fp8 ? ", FP8 weights and activations" : "");
  // FP8: the reference quantizes h from exact sums, the GPU from wgmma's (FP8 products are accumulated with about
  // 14 bits before each promotion): a few of h's codes land one step apart, which moves the output by about 1%
  // (0.012-0.014 at H 2048-7168 on an H200, 0.0023 on the interpreter, whose sums are exact); a wrong scale block
  // moves it by 15-50%. The interpreter keeps bf16's bound.
  const double bound = config.fp8 && !device.isInterpreter() ? 3e-2 : std::is_same_v<T, brick::bf16> ? 1e-2 : 2e-3;
  Check check{what, 0, bound, {}, 0};
  auto layer = MoeLayer<T>::create(device, shape, config, weights);
  if (!layer)
    return check.failure = layer.error().message(), check;
  if (Error error = host::timed(check, [&] { return layer->run(); }))
    return check.failure = error.message(), check;
  check.error = layer->check(check.failure);
  return check;
}

template Check runMoe<brick::bf16>(const brick::runtime::Device &, const MoeShape &, MoeWeights,
                                   std::optional<MoeConfig>);
template Check runMoe<brick::f16>(const brick::runtime::Device &, const MoeShape &, MoeWeights, std::optional<MoeConfig>);

} // namespace examples
