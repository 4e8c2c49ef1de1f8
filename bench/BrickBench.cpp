//===- BrickBench.cpp - Brick's side of the benchmarks: bandwidth, cold compile, launch cost ---===//
//
// Prints one JSON object; bench/run.py runs this, measures torch and Triton in the same run on the same GPU,
// and prints the ratios. GPU times: CUDA events around each launch, the L2 flushed (a 256 MB memset) before
// each, median of 50. Results are checked before they are timed.
//
//===----------------------------------------------------------------------===//

#include "brick/JIT/JIT.h"
#include "brick/Support/Float8.h"
#include "brick/Support/HalfFloat.h"
#include "attention.h"
#include "matmul.h"
#include "matmul_fp8.h"
#include "matmul_split_k.h"
#include "host.h"
#include "moe_layer.h"
#include "softmax.h"
#include "brick/JIT/Autotune.h"
#include "brick/Runtime/Graph.h"
#include "vector_add.h"

#include <algorithm>
#include <fstream>
#include <cstring>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

using namespace brick;
using runtime::DeviceBuffer;

namespace {
const runtime::Device *device;
DeviceBuffer *flushBuffer;
/// How the L2 is flushed before each timed launch: by a memset of flushBuffer (as triton.testing.do_bench's
/// zero_(), the default), or by reading it. The memset leaves L2 full of dirty lines, which the timed kernel then
/// writes back as it evicts them: a large charge for a kernel that only reads (docs/performance.md, "The L2 flush
/// by memset"). Reading leaves clean lines, and the kernel pays for its own traffic only.
enum class Flush { Memset, Read };

void fail(const std::string &what) {
  std::fprintf(stderr, "brick-bench: %s\n", what.c_str());
  std::exit(1);
}
void check(const runtime::Error &error) {
  if (error)
    fail(error.message());
}

/// `text` as a JSON string's contents.
std::string jsonEscaped(const std::string &text) {
  std::string escaped;
  for (char c : text) {
    if (c == '"' || c == '\\')
      escaped += std::string("\\") + c;
    else if (c == '\n')
      escaped += "\\n";
    else if (static_cast<unsigned char>(c) >= 0x20)
      escaped += c;
  }
  return escaped;
}

DeviceBuffer allocate(size_t bytes) {
  auto buffer = DeviceBuffer::allocate(*device, bytes);
  if (!buffer)
    fail(buffer.error().message());
  return std::move(*buffer);
}

void flushL2(Flush flush, int rep) {
  if (flush == Flush::Memset) {
    check(flushBuffer->fill(static_cast<unsigned char>(rep)));
    return;
  }
  // 4096 i32 a program, one sum each (so that the loads stay).
  static auto readAll = kernel("flush_read", [](Ptr<i32> x, Ptr<i32> sums, Const<int> BLOCK) {
    Int program = program_id(0);
    store(sums + program, sum(load(x + program.to<i64>() * BLOCK + arange(0, BLOCK)), 0));
  });
  const unsigned programs = unsigned(flushBuffer->size() / (4096 * 4));
  static DeviceBuffer sums = allocate(programs * 4);
  check(readAll.launch(Grid{programs}, LaunchOptions{.numWarps = 8}, *flushBuffer, sums, 4096));
}

/// Waits for everything launched on the GPU.
void synchronize() { check(device->driver().check(device->driver().cuCtxSynchronize(), "synchronizing")); }

/// `measure()` once the GPU has had nothing to do for a second (its power limit's state reset).
template <class Measure> double afterIdle(Measure measure) {
  synchronize();
  std::this_thread::sleep_for(std::chrono::seconds(1));
  return measure();
}

template <class Launch> double medianMilliseconds(Launch launch, int reps = 50, Flush flush = Flush::Memset) {
  launch(); // warm
  auto start = runtime::Event::create(*device), end = runtime::Event::create(*device);
  std::vector<double> times;
  for (int i = 0; i < reps; ++i) {
    flushL2(flush, i);
    check(start->record());
    launch();
    check(end->record());
    auto ms = end->millisecondsSince(*start);
    if (!ms)
      fail(ms.error().message());
    times.push_back(*ms);
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

std::vector<float> randomFloats(size_t n) {
  std::mt19937 rng(1234);
  std::normal_distribution<float> normal;
  std::vector<float> v(n);
  for (float &x : v)
    x = normal(rng);
  return v;
}

} // namespace

/// One softmax problem (8192 rows of `cols`), its buffers, and how fast a launch configuration runs it.
struct SoftmaxShape {
  bool bf16;
  int cols;
  static constexpr int rows = 8192;
  size_t bytes;
  std::vector<float> host;
  DeviceBuffer in, out;
  examples::SoftmaxConfig config{};

  SoftmaxShape(bool bf16, int cols)
      : bf16(bf16), cols(cols), bytes(size_t(rows) * cols * (bf16 ? 2 : 4)), host(randomFloats(size_t(rows) * cols)),
        in(allocate(bytes)), out(allocate(bytes)) {
    if (bf16) {
      std::vector<uint16_t> h(host.size());
      for (size_t i = 0; i < h.size(); ++i)
        h[i] = brick::floatToBf16(host[i]), host[i] = brick::bf16ToFloat(h[i]);
      check(in.copyFromHost(h.data(), bytes));
    } else {
      check(in.copyFromHost(host.data(), bytes));
    }
  }

  unsigned maxPrograms = 0; // 0: one program per tile

  void launch() {
    Grid grid{config.programs(rows, maxPrograms)};
    LaunchOptions options{.numWarps = config.warps};
    if (bf16)
      check(bf16Kernel.launch(grid, options, out, in, cols, cols, rows, cols, config.block, config.rows));
    else
      check(f32Kernel.launch(grid, options, out, in, cols, cols, rows, cols, config.block, config.rows));
  }

  /// Checks the result (each row of the first program sums to 1), then times it.
  double gbps(examples::SoftmaxConfig launchConfig, unsigned programLimit = 0) {
    config = launchConfig;
    maxPrograms = programLimit;
    check(out.fill(0xFF));
    launch();
    size_t count = size_t(config.rows) * cols;
    std::vector<uint16_t> halves(count);
    std::vector<float> singles(count);
    check(bf16 ? out.copyToHost(halves.data(), count * 2) : out.copyToHost(singles.data(), count * 4));
    for (int row = 0; row < config.rows; ++row) {
      double sum = 0;
      for (int c = 0; c < cols; ++c)
        sum += bf16 ? brick::bf16ToFloat(halves[size_t(row) * cols + c]) : singles[size_t(row) * cols + c];
      if (!(std::fabs(sum - 1.0) < (bf16 ? 2e-2 : 1e-4)))
        fail("softmax rows do not sum to 1 (" + std::to_string(sum) + ")");
    }
    double ms = medianMilliseconds([&] { launch(); });
    return 2.0 * bytes / ms / 1e6;
  }

  inline static auto f32Kernel = examples::softmax<brick::f32>();
  inline static auto bf16Kernel = examples::softmax<brick::bf16>();
};

/// One matmul problem on the GPU: inputs of T (normal random), C of T, timed per launch configuration.
template <ElementTag T> struct MatmulShape {
  int m, n, k;
  Precision precision;
  unsigned targetCapability;
  bool descriptors = false; // examples::matmulDescriptors instead of the pointer kernel
  bool persistent = false;  // examples::matmulPersistent (descriptors), one wave (Grid::persistent)
  bool transposedB = false; // with descriptors: b holds B^T (N x K), examples::matmulDescriptorsTransposedB
  bool splitN = false;      // with transposedB: splitNKernel (two dots of BLOCK_N / 2 a tile)
  std::vector<float> a, b;
  DeviceBuffer da, db, dc;

  MatmulShape(int m, int n, int k, Precision precision, unsigned targetCapability)
      : m(m), n(n), k(k), precision(precision), targetCapability(targetCapability), a(randomFloats(size_t(m) * k)),
        b(randomFloats(size_t(k) * n)), da(allocate(a.size() * sizeof(Stored))), db(allocate(b.size() * sizeof(Stored))),
        dc(allocate(size_t(m) * n * sizeof(Stored))) {
    upload(a, da);
    upload(b, db);
  }

  using Stored = std::conditional_t<std::is_same_v<T, f32>, float, uint16_t>;
  static Stored toStored(float v) {
    if constexpr (std::is_same_v<T, f32>)
      return v;
    else if constexpr (std::is_same_v<T, f16>)
      return brick::floatToHalf(v);
    else
      return brick::floatToBf16(v);
  }
  static float fromStored(Stored v) {
    if constexpr (std::is_same_v<T, f32>)
      return v;
    else if constexpr (std::is_same_v<T, f16>)
      return brick::halfToFloat(v);
    else
      return brick::bf16ToFloat(v);
  }
  void upload(std::vector<float> &values, DeviceBuffer &buffer) {
    std::vector<Stored> stored(values.size());
    for (size_t i = 0; i < values.size(); ++i)
      stored[i] = toStored(values[i]), values[i] = fromStored(stored[i]);
    check(buffer.copyFromHost(stored.data(), stored.size() * sizeof(Stored)));
  }

  static auto &kernel(Precision precision) {
    static auto ieee = examples::matmul<T>(Precision::IEEE), tf32 = examples::matmul<T>(Precision::TF32),
                tf32x3 = examples::matmul<T>(Precision::TF32x3);
    return precision == Precision::IEEE ? ieee : precision == Precision::TF32 ? tf32 : tf32x3;
  }

  static auto &descriptorKernel() {
    static auto kernel = examples::matmulDescriptors<T>();
    return kernel;
  }
  static auto &transposedBKernel() {
    static auto kernel = examples::matmulDescriptorsTransposedB<T>();
    return kernel;
  }
  /// B^T through descriptors, each tile's BLOCK_N columns as two dots of BLOCK_N / 2 sharing the A block (how the
  /// MoE's GEMM 1 computes gate and up): what two sibling wgmmas cost against one of twice the width.
  static auto &splitNKernel() {
    static auto kernel = brick::kernel("matmul_split_n", [](TensorDescriptor<T, 2> a, TensorDescriptor<T, 2> b,
                                                             TensorDescriptor<T, 2> c, Int M, Int N, Int K,
                                                             Const<int> BLOCK_M, Const<int> BLOCK_N, Const<int> BLOCK_K,
                                                             Const<int> GROUP_M) {
      auto [tileM, tileN] = grouped_tile(program_id(0), cdiv(M, BLOCK_M), cdiv(N, BLOCK_N), GROUP_M);
      Int row = tileM * BLOCK_M, column = tileN * BLOCK_N;
      int half = BLOCK_N.value() / 2;
      Tensor left = zeros<f32>({BLOCK_M.value(), half}), right = zeros<f32>({BLOCK_M.value(), half});
      for_range(0, cdiv(K, BLOCK_K), 1, carry(left, right), [&](Int k) {
        Tensor aBlock = a.load({row, k * BLOCK_K});
        left = dot(aBlock, b.load({column, k * BLOCK_K}).trans(), left);
        right = dot(aBlock, b.load({column + half, k * BLOCK_K}).trans(), right);
      });
      c.store({row, column}, left);
      c.store({row, column + half}, right);
    });
    return kernel;
  }
  static auto &persistentKernel() {
    static auto kernel = examples::matmulPersistent<T>();
    return kernel;
  }
  /// persistentKernel through the autotuner over examples::matmulPersistentCandidates for sm_90a (without the
  /// decode tiles): warp-specialized or not, in clusters of 2 or not.
  static auto &persistentTuner() {
    static auto tuner = [] {
      std::vector<TuningConfig> configs;
      for (const examples::MatmulConfig &config : examples::matmulPersistentCandidates(2, 90))
        if (config.blockM != 16)
          configs.push_back(examples::tuningConfig(config));
      return brick::autotune(persistentKernel(), configs, TuningKey{{3, 4, 5}});
    }();
    return tuner;
  }
  /// Launches persistentTuner (tuning at the first launch for this shape); the chosen config's description.
  runtime::Error launchTuned(std::string *chosen = nullptr) {
    auto programs = [&](const TuningConfig &c) { return examples::persistentGrid(c, m, n); };
    runtime::Error error = persistentTuner().launch(
        programs, LaunchOptions{}, TensorDescriptorArg::of(da, {m, k}, {k, 1}, {}).blocksFromConfig({0, 2}),
        TensorDescriptorArg::of(db, {k, n}, {n, 1}, {}).blocksFromConfig({2, 1}),
        TensorDescriptorArg::of(dc, {m, n}, {n, 1}, {}).blocksFromConfig({0, 1}), m, n, k, fromConfig, fromConfig,
        fromConfig, fromConfig);
    if (chosen)
      for (const Tuning &tuning : persistentTuner().tunings())
        if (tuning.key == std::vector<int64_t>{m, n, k})
          *chosen = persistentTuner().configs()[tuning.chosen].str();
    return error;
  }
  /// TFLOP/s and relative error of the autotuned persistent kernel, and the config it chose.
  std::pair<double, double> measureTuned(std::string &chosen) {
    check(dc.fill(0xFF));
    check(launchTuned(&chosen));
    double error = relativeError();
    double ms = medianMilliseconds([&] { check(launchTuned()); }, 20, Flush::Memset);
    return {2.0 * m * n * k / ms / 1e9, error};
  }

  runtime::Error launch(const examples::MatmulConfig &config) {
    LaunchOptions options{.numWarps = config.warps, .numStages = config.stages};
    options.targetCapability = targetCapability;
    options.warpSpecialize = config.warpSpecialize;
    if (persistent) {
      options.clusterSize = config.clusterSize;
      return persistentKernel().launch(Grid::persistent(config.programs(m, n)), options,
                                       TensorDescriptorArg::of(da, {m, k}, {k, 1}, {config.blockM, config.blockK}),
                                       TensorDescriptorArg::of(db, {k, n}, {n, 1}, {config.blockK, config.blockN}),
                                       TensorDescriptorArg::of(dc, {m, n}, {n, 1}, {config.blockM, config.blockN}), m, n,
                                       k, config.blockM, config.blockN, config.blockK, config.groupM);
    }
    if (descriptors && splitN)
      return splitNKernel().launch(Grid{config.programs(m, n)}, options,
                                   TensorDescriptorArg::of(da, {m, k}, {k, 1}, {config.blockM, config.blockK}),
                                   TensorDescriptorArg::of(db, {n, k}, {k, 1}, {config.blockN / 2, config.blockK}),
                                   TensorDescriptorArg::of(dc, {m, n}, {n, 1}, {config.blockM, config.blockN / 2}), m,
                                   n, k, config.blockM, config.blockN, config.blockK, config.groupM);
    if (descriptors && transposedB)
      return transposedBKernel().launch(Grid{config.programs(m, n)}, options,
                                        TensorDescriptorArg::of(da, {m, k}, {k, 1}, {config.blockM, config.blockK}),
                                        TensorDescriptorArg::of(db, {n, k}, {k, 1}, {config.blockN, config.blockK}),
                                        TensorDescriptorArg::of(dc, {m, n}, {n, 1}, {config.blockM, config.blockN}), m,
                                        n, k, config.blockM, config.blockN, config.blockK, config.groupM);
    if (descriptors)
      return descriptorKernel().launch(Grid{config.programs(m, n)}, options,
                                       TensorDescriptorArg::of(da, {m, k}, {k, 1}, {config.blockM, config.blockK}),
                                       TensorDescriptorArg::of(db, {k, n}, {n, 1}, {config.blockK, config.blockN}),
                                       TensorDescriptorArg::of(dc, {m, n}, {n, 1}, {config.blockM, config.blockN}), m, n,
                                       k, config.blockM, config.blockN, config.blockK, config.groupM);
    return kernel(precision).launch(Grid{config.programs(m, n)}, options, da, db, dc, m, n, k, k, 1, n, 1, n, 1,
                                    config.blockM, config.blockN, config.blockK, config.groupM);
  }

  /// Relative error (L2) of 512 random elements of C against float64.
  double relativeError() {
    std::vector<Stored> c(size_t(m) * n);
    check(dc.copyToHost(c.data(), c.size() * sizeof(Stored)));
    std::mt19937 rng(7);
    double diff = 0, norm = 0;
    for (int s = 0; s < 512; ++s) {
      int i = int(rng() % unsigned(m)), j = int(rng() % unsigned(n));
      double ref = 0;
      for (int p = 0; p < k; ++p)
        ref += double(a[size_t(i) * k + p]) * (transposedB ? b[size_t(j) * k + p] : b[size_t(p) * n + j]);
      double got = fromStored(c[size_t(i) * n + j]);
      diff += (got - ref) * (got - ref);
      norm += ref * ref;
    }
    return std::sqrt(diff / norm);
  }

  /// Why `config` cannot run (its first launch's error: a compile-time refusal, say, of more shared memory than the
  /// GPU has), or nothing when it ran.
  std::optional<std::string> refusal(const examples::MatmulConfig &config) {
    if (runtime::Error error = launch(config))
      return error.message();
    return std::nullopt;
  }

  /// TFLOP/s of `config` (after checking its result), and its relative error.
  std::pair<double, double> measure(const examples::MatmulConfig &config, Flush flush = Flush::Memset) {
    check(dc.fill(0xFF));
    check(launch(config));
    double error = relativeError();
    double ms = medianMilliseconds([&] { check(launch(config)); }, 20, flush);
    return {2.0 * m * n * k / ms / 1e9, error};
  }
};

/// "128,128,64,8,8,3" (BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M, warps, stages), ",ws" for a warp-specialized launch,
/// then ",c2" (or c4, c8) for clusters of that many programs (the persistent kernel's).
examples::MatmulConfig parseMatmulConfig(const char *text) {
  examples::MatmulConfig config;
  int consumed = 0;
  bool parsed = std::sscanf(text, "%d,%d,%d,%d,%u,%u%n", &config.blockM, &config.blockN, &config.blockK,
                            &config.groupM, &config.warps, &config.stages, &consumed) == 6;
  std::string tail = parsed ? text + consumed : "";
  if (tail.rfind(",ws", 0) == 0)
    config.warpSpecialize = true, tail = tail.substr(3);
  if (tail == ",c2" || tail == ",c4" || tail == ",c8")
    config.clusterSize = unsigned(tail[2] - '0'), tail.clear();
  if (!parsed || !tail.empty())
    fail(std::string("a matmul config is BLOCK_M,BLOCK_N,BLOCK_K,GROUP_M,warps,stages[,ws][,c2|c4|c8], got '") + text +
         "'");
  return config;
}

/// The code matmul is compiled for: BRICK_BENCH_MATMUL_SM=80 (mma.sync, cp.async), or the GPU's own (0, the
/// default: sm_90a on an H100, wgmma).
unsigned matmulTarget() {
  const char *sm = std::getenv("BRICK_BENCH_MATMUL_SM");
  return sm && *sm ? unsigned(std::atoi(sm)) : 0;
}

/// Five cold first launches of a kernel nothing has compiled (`launchFresh` makes a fresh kernel object and
/// launches it, returning its last specialization's log), each with an empty disk cache: the median, the range and
/// each trial, under `key`.
template <typename LaunchFresh> void reportColdLaunches(const std::string &key, LaunchFresh launchFresh) {
  std::string cache = std::getenv("BRICK_CACHE_DIR"); // main() sets it
  std::vector<std::pair<double, std::string>> colds;
  for (int trial = 0; trial < 5; ++trial) {
    std::filesystem::remove_all(cache);
    auto start = std::chrono::steady_clock::now();
    std::string log = launchFresh();
    synchronize();
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    colds.emplace_back(ms, log);
  }
  std::sort(colds.begin(), colds.end());
  const char *k = key.c_str();
  std::printf(",\n  \"%s_cold_first_launch_ms\": %.1f,\n  \"%s_cold_first_launch_min_ms\": %.1f,\n"
              "  \"%s_cold_first_launch_max_ms\": %.1f",
              k, colds[2].first, k, colds.front().first, k, colds.back().first);
  std::printf(",\n  \"%s_cold_first_launch_log\": \"%s\"", k, jsonEscaped(colds[2].second).c_str());
  for (size_t trial = 0; trial < colds.size(); ++trial) // fastest first: where the spread comes from
    std::printf(",\n  \"%s_cold_launch_%zu\": \"%.1f ms: %s\"", k, trial, colds[trial].first,
                jsonEscaped(colds[trial].second).c_str());
}

/// The cold first launch of matmul for `target` (0: the GPU's own code); on an H100 (sm_90a) also those of
/// matmulDescriptors, the kernel examples/matmul runs there, and of the persistent warp-specialized kernel the
/// table's persistent_ws rows run.
void benchColdLaunch(unsigned target) {
  // Cold first launch: compile (MLIR, LLVM, ptxas) and load a matmul specialization nothing has compiled: five
  // times (a fresh kernel and an empty disk cache each), the median reported with the JIT's log of that one (its
  // steps' times), since the host's speed varies from run to run.
  MatmulShape<brick::f16> problem(512, 512, 512, Precision::TF32, target);
  const char *forced = std::getenv("BRICK_BENCH_MATMUL_CONFIG");
  unsigned capability = target ? target : unsigned(device->computeCapability());
  examples::MatmulConfig config =
      forced && *forced ? parseMatmulConfig(forced) : examples::matmulConfig(512, 512, 512, 2, capability);
  LaunchOptions options{.numWarps = config.warps, .numStages = config.stages};
  options.targetCapability = target;
  reportColdLaunches("matmul", [&] {
    auto kernel = examples::matmul<brick::f16>();
    check(kernel.launch(Grid{config.programs(512, 512)}, options, problem.da, problem.db, problem.dc, 512, 512, 512,
                        512, 1, 512, 1, 512, 1, config.blockM, config.blockN, config.blockK, config.groupM));
    return kernel.specializations().back();
  });
  if (target != 0 || device->computeCapability() != 90)
    return;
  // A fresh descriptor kernel (A, B and C through tensor descriptors in `tiles`' blocks) launched cold.
  auto launchThroughDescriptors = [&](auto kernel, Grid grid, const LaunchOptions &launch,
                                      const examples::MatmulConfig &tiles) {
    auto block = [](int rows, int columns) { return std::vector<int64_t>{rows, columns}; };
    check(kernel.launch(grid, launch,
                        TensorDescriptorArg::of(problem.da, {512, 512}, {512, 1}, block(tiles.blockM, tiles.blockK)),
                        TensorDescriptorArg::of(problem.db, {512, 512}, {512, 1}, block(tiles.blockK, tiles.blockN)),
                        TensorDescriptorArg::of(problem.dc, {512, 512}, {512, 1}, block(tiles.blockM, tiles.blockN)),
                        512, 512, 512, tiles.blockM, tiles.blockN, tiles.blockK, tiles.groupM));
    return kernel.specializations().back();
  };
  // The kernel examples/matmul runs on sm_90a (16-bit operands through tensor descriptors: TMA), in the tiles above.
  reportColdLaunches("matmul_descriptors", [&] {
    return launchThroughDescriptors(examples::matmulDescriptors<brick::f16>(), Grid{config.programs(512, 512)},
                                    options, config);
  });
  examples::MatmulConfig persistent = examples::matmulConfig(4096, 4096, 4096, 2, 90);
  LaunchOptions persistentOptions{.numWarps = persistent.warps, .numStages = persistent.stages};
  persistentOptions.warpSpecialize = true;
  reportColdLaunches("matmul_persistent_ws", [&] {
    return launchThroughDescriptors(examples::matmulPersistent<brick::f16>(),
                                    Grid::persistent(persistent.programs(512, 512)), persistentOptions, persistent);
  });
}

/// Matmul at the issues' shapes, or every config of `sweep` at 4096^3 and 16x8192x8192, f16 and bf16.
void benchMatmul(const std::vector<examples::MatmulConfig> &sweep) {
  const char *forced = std::getenv("BRICK_BENCH_MATMUL_CONFIG");
  const unsigned target = matmulTarget();
  auto configFor = [&](int m, int n, int k, int bytes) {
    return forced && *forced ? parseMatmulConfig(forced) : examples::matmulConfig(m, n, k, bytes, target ? target : unsigned(device->computeCapability()));
  };
  auto report = [](const std::string &key, std::pair<double, double> result) {
    std::printf(",\n  \"%s_TFLOPs\": %.3f,\n  \"%s_relerr\": %.2e", key.c_str(), result.first, key.c_str(),
                result.second);
  };
  // A sweep goes on past a config the compiler refuses, reporting why.
  auto reportOrRefusal = [&](const std::string &key, auto &problem, const examples::MatmulConfig &config) {
    if (std::optional<std::string> why = problem.refusal(config)) {
      std::printf(",\n  \"%s_refused\": \"%s\"", key.c_str(), jsonEscaped(*why).c_str());
      return;
    }
    report(key, problem.measure(config));
    if (problem.m <= 16)
      report(key + "_read_flush", problem.measure(config, Flush::Read));
  };
  if (!sweep.empty()) {
    // BRICK_BENCH_MATMUL_DESCRIPTORS=1: sweep examples::matmulDescriptors (TMA on sm_90a) instead; =transposed_b:
    // examples::matmulDescriptorsTransposedB (B stored N x K; keys say "_bT"); =split_n: splitNKernel ("_split").
    const char *descriptorsEnv = std::getenv("BRICK_BENCH_MATMUL_DESCRIPTORS");
    bool splitN = descriptorsEnv && std::string(descriptorsEnv) == "split_n";
    bool persistent = descriptorsEnv && std::string(descriptorsEnv) == "persistent";
    bool transposedB = splitN || (descriptorsEnv && std::string(descriptorsEnv) == "transposed_b");
    bool descriptors = transposedB || persistent || (descriptorsEnv && std::string(descriptorsEnv) == "1");
    // BRICK_BENCH_SWEEP_SHAPES="1x8192x8192,..." replaces the two shapes; a shape of at most 16 rows (decode) is
    // measured after a read flush as well ("_read_flush": no dirty lines for its weight stream to write back).
    std::vector<std::tuple<int, int, int>> shapes = {{4096, 4096, 4096}, {16, 8192, 8192}};
    if (const char *list = std::getenv("BRICK_BENCH_SWEEP_SHAPES"); list && *list) {
      shapes.clear();
      std::stringstream stream(list);
      for (std::string item; std::getline(stream, item, ',');) {
        int m = 0, n = 0, k = 0;
        if (std::sscanf(item.c_str(), "%dx%dx%d", &m, &n, &k) != 3 || m <= 0 || n <= 0 || k <= 0)
          fail("BRICK_BENCH_SWEEP_SHAPES takes MxNxK,MxNxK,..., got '" + item + "'");
        shapes.emplace_back(m, n, k);
      }
    }
    // One problem (its operands made and uploaded once) for all the configs.
    auto sweepShape = [&](auto &problem, const std::string &type, const std::string &shape) {
      problem.descriptors = descriptors;
      problem.transposedB = transposedB;
      problem.splitN = splitN;
      problem.persistent = persistent;
      for (const examples::MatmulConfig &config : sweep) {
        char key[160];
        std::snprintf(key, sizeof(key), "matmul_%s_%s_cfg%d,%d,%d,%d,%u,%u%s%s", type.c_str(), shape.c_str(),
                      config.blockM, config.blockN, config.blockK, config.groupM, config.warps, config.stages,
                      config.warpSpecialize ? ",ws" : "",
                      config.clusterSize > 1 ? (",c" + std::to_string(config.clusterSize)).c_str() : "");
        reportOrRefusal(key, problem, config);
        std::fflush(stdout); // a sweep cut short keeps what it measured
      }
    };
    for (bool bf16 : {false, true})
      for (auto [m, n, k] : shapes) {
        std::string shape = std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) +
                            (splitN ? "_split" : transposedB ? "_bT" : persistent ? "_persistent" : "");
        if (bf16) {
          MatmulShape<brick::bf16> problem(m, n, k, Precision::TF32, target);
          sweepShape(problem, "bf16", shape);
        } else {
          MatmulShape<brick::f16> problem(m, n, k, Precision::TF32, target);
          sweepShape(problem, "fp16", shape);
        }
      }
    return;
  }
  for (auto [m, n, k] : {std::tuple{4096, 4096, 4096}, {8192, 8192, 8192}, {4000, 4000, 4000}, {16, 8192, 8192},
                        {1, 8192, 8192}}) {
    std::string shape = std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
    {
      MatmulShape<brick::f16> problem(m, n, k, Precision::TF32, target);
      report("matmul_fp16_" + shape, problem.measure(configFor(m, n, k, 2)));
    }
    {
      MatmulShape<brick::bf16> problem(m, n, k, Precision::TF32, target);
      report("matmul_bf16_" + shape, problem.measure(configFor(m, n, k, 2)));
    }
    if (m <= 16) { // the weight stream again, after an L2 flush that leaves no dirty lines
      MatmulShape<brick::f16> fp16(m, n, k, Precision::TF32, target);
      report("matmul_fp16_" + shape + "_read_flush", fp16.measure(configFor(m, n, k, 2), Flush::Read));
      MatmulShape<brick::bf16> bf16(m, n, k, Precision::TF32, target);
      report("matmul_bf16_" + shape + "_read_flush", bf16.measure(configFor(m, n, k, 2), Flush::Read));
    }
  }
  // The same products through tensor descriptors (examples::matmulDescriptors: TMA on sm_90a).
  for (auto [m, n, k] : {std::tuple{4096, 4096, 4096}, {8192, 8192, 8192}, {4000, 4000, 4000}, {16, 8192, 8192},
                        {1, 8192, 8192}}) {
    std::string shape = std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
    {
      MatmulShape<brick::f16> problem(m, n, k, Precision::TF32, target);
      problem.descriptors = true;
      report("matmul_descriptors_fp16_" + shape, problem.measure(configFor(m, n, k, 2)));
    }
    {
      MatmulShape<brick::bf16> problem(m, n, k, Precision::TF32, target);
      problem.descriptors = true;
      report("matmul_descriptors_bf16_" + shape, problem.measure(configFor(m, n, k, 2)));
    }
  }
  // Warp-specialized (a producer warpgroup issues the TMA copies; sm_90a only), tile by tile and persistent.
  if (target == 0 && device->computeCapability() == 90)
    for (auto [m, n, k] : {std::tuple{4096, 4096, 4096}, {8192, 8192, 8192}, {4000, 4000, 4000}}) {
      std::string shape = std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
      examples::MatmulConfig config = configFor(m, n, k, 2);
      config.warpSpecialize = true;
      for (bool bf16 : {false, true}) {
        std::string type = bf16 ? "bf16_" : "fp16_";
        auto run = [&](auto tag) {
          using T = decltype(tag);
          MatmulShape<T> problem(m, n, k, Precision::TF32, target);
          problem.descriptors = true;
          report("matmul_ws_" + type + shape, problem.measure(config));
          problem.persistent = true;
          report("matmul_persistent_ws_" + type + shape, problem.measure(config));
          // In clusters of 2 that load each B block once (TMA multicast).
          examples::MatmulConfig clustered = config;
          clustered.clusterSize = 2;
          report("matmul_persistent_ws_c2_" + type + shape, problem.measure(clustered));
          // Through the autotuner, which chooses among these and the other candidates (warp specialization and
          // clusters included).
          std::string chosen;
          report("matmul_persistent_tuned_" + type + shape, problem.measureTuned(chosen));
          std::printf(",\n  \"matmul_persistent_tuned_%s%s_chosen\": \"%s\"", type.c_str(), shape.c_str(),
                      chosen.c_str());
        };
        if (bf16)
          run(brick::bf16{});
        else
          run(brick::f16{});
      }
    }
  MatmulShape<brick::f32> tf32(4096, 4096, 4096, Precision::TF32, target);
  report("matmul_tf32_4096x4096x4096", tf32.measure(configFor(4096, 4096, 4096, 4)));

  benchColdLaunch(target);
}

/// "64,64,64,128,64,8,4,4,3": BLOCK_M, then GEMM 1's BLOCK_N and BLOCK_K, GEMM 2's, GROUP_M, GEMM 1's and GEMM 2's
/// warps, stages; ",tma" after them: GEMM 1's weights through a tensor descriptor, ",tma,gather" its token rows too
/// (",tma,gather,persistent": as a persistent kernel);
/// ",fp8" alone after the numbers: the layer in FP8 (MoeConfig::fp8; GEMM 1's BLOCK_N and both BLOCK_K are 128
/// there, whatever the numbers say) (BRICK_BENCH_MOE_CONFIG, or --moe's arguments).
examples::MoeConfig parseMoeConfig(const char *text) {
  examples::MoeConfig c;
  int length = 0;
  bool read = std::sscanf(text, "%d,%d,%d,%d,%d,%d,%u,%u,%u%n", &c.blockM, &c.gateUpN, &c.gateUpK, &c.downN,
                          &c.downK, &c.groupM, &c.gateUpWarps, &c.downWarps, &c.stages, &length) == 9;
  std::string tail = read ? text + length : "";
  if (tail == ",fp8") {
    c.fp8 = true;
    c.gateUpN = c.gateUpK = c.downK = 128;
    return c;
  }
  const std::string persistent = ",tma,gather,persistent";
  if (!read || !(tail.empty() || tail == ",tma" || tail == ",tma,gather" || tail == persistent))
    fail(std::string("cannot read the MoE config '") + text +
         "': expected BM,N1,K1,N2,K2,GROUP_M,warps1,warps2,stages[,tma[,gather[,persistent]]] or "
         "BM,N1,K1,N2,K2,GROUP_M,warps1,warps2,stages,fp8");
  c.weightDescriptors = !tail.empty();
  c.gatherRows = tail.starts_with(",tma,gather");
  c.persistent = tail == ",tma,gather,persistent";
  return c;
}
std::string moeConfigText(const examples::MoeConfig &c) {
  return std::to_string(c.blockM) + "," + std::to_string(c.gateUpN) + "," + std::to_string(c.gateUpK) + "," +
         std::to_string(c.downN) + "," + std::to_string(c.downK) + "," + std::to_string(c.groupM) + "," +
         std::to_string(c.gateUpWarps) + "," + std::to_string(c.downWarps) + "," + std::to_string(c.stages) +
         (c.weightDescriptors ? ",tma" : "") + (c.gatherRows ? ",gather" : "") + (c.persistent ? ",persistent" : "") +
         (c.fp8 ? ",fp8" : "");
}

/// --moe: the whole MoE layer (examples/moe.h: routing, alignment, GEMM 1 with silu * up, GEMM 2 with the routing
/// weights, the top-k sum) and GEMM 1 alone, bf16, at Mixtral's and DeepSeek-V3's shapes for T tokens, with the
/// weights made on the GPU; each checked (routing and sorted rows exactly, 4 tokens' outputs against float64)
/// before it is timed. `sweep` (configs): each instead of moeConfig's choice. BRICK_BENCH_MOE_MODELS and
/// BRICK_BENCH_MOE_TOKENS (comma lists) narrow the shapes.
void benchMoe(const std::vector<examples::MoeConfig> &sweep) {
  struct Model {
    const char *name;
    int experts, topk, hidden, intermediate;
    bool deepseek;
  };
  const Model models[] = {{"mixtral", 8, 2, 4096, 14336, false}, {"deepseekv3", 256, 8, 7168, 2048, true}};
  auto listed = [](const char *variable, const std::string &item) {
    const char *list = std::getenv(variable);
    return !list || !*list || ("," + std::string(list) + ",").find("," + item + ",") != std::string::npos;
  };
  for (const Model &model : models) {
    if (!listed("BRICK_BENCH_MOE_MODELS", model.name))
      continue;
    for (int tokens : {1, 16, 128, 512, 4096}) {
      if (!listed("BRICK_BENCH_MOE_TOKENS", std::to_string(tokens)))
        continue;
      // DeepSeek-V3 routes by sigmoid scores with a load-balancing bias (its grouped top-k aside), here small
      // enough to leave the load balanced, as a trained one does (bench/moe.py draws the same).
      examples::MoeShape shape{tokens, model.experts, model.topk, model.hidden, model.intermediate, model.deepseek,
                               model.deepseek, true, 0, 0.001f};
      std::vector<examples::MoeConfig> configs = sweep;
      if (configs.empty()) {
        const char *forced = std::getenv("BRICK_BENCH_MOE_CONFIG");
        configs.push_back(forced && *forced ? parseMoeConfig(forced) : examples::moeConfig(shape));
      }
      std::string key = std::string("moe_") + model.name + "_T" + std::to_string(tokens);
      // A config given again is timed again, under "<key>_<config>_run<n>": sweeps that alternate configs (A B A B)
      // see how far one config's times spread beside the differences between configs.
      std::map<std::string, int> runs;
      for (const examples::MoeConfig &config : configs) {
        std::string name = sweep.empty() ? key : key + "_" + moeConfigText(config);
        if (int run = ++runs[name]; run > 1)
          name += "_run" + std::to_string(run);
        auto layer = examples::MoeLayer<brick::bf16>::create(*device, shape, config, examples::MoeWeights::Device);
        if (!layer)
          fail(name + ": " + layer.error().message());
        if (runtime::Error error = layer->run()) {
          std::printf(",\n  \"%s_refused\": \"%s\"", name.c_str(), jsonEscaped(error.message()).c_str());
          continue;
        }
        std::string failure;
        double error = layer->check(failure);
        if (!failure.empty() || !(error <= (config.fp8 ? 3e-2 : 1e-2))) // FP8: runMoe says why
          fail(name + ": wrong result: " + (failure.empty() ? "relative error " + std::to_string(error) : failure));
        int distinct = layer->distinctExperts(failure);
        int64_t padded = layer->paddedRows(failure);
        if (!failure.empty())
          fail(name + ": " + failure);
        // The routing inputs, for bench/moe.py to route Triton's side by the same logits (and so stream the same
        // experts' weights): <dir>/<key>.logits and .bias, float32.
        if (const char *inputs = std::getenv("BRICK_BENCH_MOE_INPUTS_DIR"); inputs && *inputs && sweep.empty()) {
          auto write = [&](const std::string &suffix, const std::vector<float> &values) {
            std::ofstream file(std::string(inputs) + "/" + key + suffix, std::ios::binary);
            file.write(reinterpret_cast<const char *>(values.data()), std::streamsize(values.size() * sizeof(float)));
            if (!file)
              fail("cannot write " + std::string(inputs) + "/" + key + suffix);
          };
          write(".logits", layer->logits());
          write(".bias", layer->bias());
        }
        // The layer and GEMM 1 (and the graph below) each after the GPU idled a second, as bench/moe.py times
        // Triton's layer and GEMM 1: at 4096 tokens an H100 reaches its 700 W limit within a few hundred ms and
        // its clocks fall, so whichever side ran right after other work measured slower (docs/performance.md, "The
        // bench idles the GPU before each side").
        double layerMs = afterIdle([&] { return medianMilliseconds([&] { check(layer->run()); }, 20); });
        double gateUpMs = afterIdle([&] { return medianMilliseconds([&] { check(layer->runGateUp()); }, 20); });
        // The other steps alone too (each from what the last run left), so that the layer's time splits by step.
        double routingMs = medianMilliseconds([&] { check(layer->runRouting()); }, 20);
        double downMs = medianMilliseconds([&] { check(layer->runDown()); }, 20);
        double sumMs = medianMilliseconds([&] { check(layer->runSum()); }, 20);
        double weightBytes = double(distinct) * 2.0 * model.intermediate * model.hidden * (config.fp8 ? 1 : 2);
        // The layer as one CUDA graph on a stream of its own; and 100 layers back to back (no flush between:
        // what a decode loop sees, launch costs included), launched one by one and as graph replays.
        auto stream = runtime::Stream::create(*device);
        if (!stream)
          fail(stream.error().message());
        auto graph = runtime::Graph::capture(*stream, [&] { return layer->run(&*stream); });
        if (!graph)
          fail(name + ": " + graph.error().message());
        double graphMs = afterIdle([&] { return medianMilliseconds([&] { check(graph->replay(*stream)); }, 20); });
        // Plain launches on the graph's stream, to compare with its replays like for like.
        double streamMs = afterIdle([&] { return medianMilliseconds([&] { check(layer->run(&*stream)); }, 20); });
        auto backToBack = [&](auto launch) {
          check(stream->synchronize());
          auto start = std::chrono::steady_clock::now();
          for (int i = 0; i < 100; ++i)
            launch();
          check(stream->synchronize());
          return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() / 100;
        };
        // In turns, plain-graph-graph-plain, each the mean of its two: at 4096 tokens the GPU reaches its power
        // limit within the first 100 layers and its clocks fall, so whichever ran second looked slower (same
        // section of docs/performance.md).
        auto plain = [&] { check(layer->run(&*stream)); };
        auto replay = [&] { check(graph->replay(*stream)); };
        double plainUs = backToBack(plain), graphUs = backToBack(replay);
        graphUs = (graphUs + backToBack(replay)) / 2;
        plainUs = (plainUs + backToBack(plain)) / 2;
        std::printf(",\n  \"%s_layer_ms\": %.4f,\n  \"%s_gate_up_ms\": %.4f,\n  \"%s_gate_up_TFLOPs\": %.2f,"
                    "\n  \"%s_layer_TFLOPs\": %.2f,\n  \"%s_gate_up_weights_GBps\": %.0f,\n  \"%s_relerr\": %.2e,"
                    "\n  \"%s_config\": \"%s\"",
                    name.c_str(), layerMs, name.c_str(), gateUpMs, name.c_str(), shape.gateUpFlops() / gateUpMs / 1e9,
                    name.c_str(), (shape.gateUpFlops() + shape.downFlops()) / layerMs / 1e9, name.c_str(),
                    weightBytes / gateUpMs / 1e6, name.c_str(), error, name.c_str(),
                    (config.tuned ? "BLOCK_M " + std::to_string(config.blockM) + ", " + layer->tunedChoice()
                                  : moeConfigText(config)).c_str());
        std::printf(",\n  \"%s_distinct_experts\": %d", name.c_str(), distinct);
        // The rows GEMM 1 computed, each expert's padded to BLOCK_M, and its TFLOP/s over them: how near the
        // tensor cores ran to a dense matmul's rate, and what the tail blocks' padding cost.
        std::printf(",\n  \"%s_padded_rows\": %lld,\n  \"%s_gate_up_issued_TFLOPs\": %.2f", name.c_str(),
                    (long long)padded, name.c_str(),
                    shape.gateUpFlops() * double(padded) / double(shape.pairs()) / gateUpMs / 1e9);
        std::printf(",\n  \"%s_routing_ms\": %.4f,\n  \"%s_down_ms\": %.4f,\n  \"%s_sum_ms\": %.4f", name.c_str(),
                    routingMs, name.c_str(), downMs, name.c_str(), sumMs);
        std::printf(",\n  \"%s_layer_graph_ms\": %.4f,\n  \"%s_layer_stream_ms\": %.4f,"
                    "\n  \"%s_back_to_back_us\": %.1f,\n  \"%s_back_to_back_graph_us\": %.1f",
                    name.c_str(), graphMs, name.c_str(), streamMs, name.c_str(), plainUs, name.c_str(), graphUs);
        std::fflush(stdout);
      }
    }
  }
}

/// The 8 matmul configs --autotune tunes over (Triton's side in bench/run.py tunes the same 8).
std::vector<examples::MatmulConfig> autotuneMatmulConfigs() {
  std::vector<examples::MatmulConfig> configs;
  for (const char *text : {"256,128,64,8,8,4", "128,256,64,8,8,4", "128,128,64,8,8,4", "256,128,64,8,8,3",
                           "128,256,64,8,8,3", "128,128,64,8,4,4", "128,128,64,8,4,3", "64,128,64,8,4,4"})
    configs.push_back(parseMatmulConfig(text));
  return configs;
}

/// --autotune: the autotuner's choice against an exhaustive sweep of the same configs timed by this harness
/// (softmax over examples::softmaxCandidates, matmul 4096^3 through tensor descriptors over 8 configs), and the
/// wall time of a first launch that tunes the 8 matmul configs, compiled on a thread pool and serially.
void benchAutotune() {
  std::string cache = std::getenv("BRICK_CACHE_DIR");
  std::printf(",\n  \"host_threads\": %u", std::thread::hardware_concurrency());
  for (bool bf16 : {false, true})
    for (int cols : {1024, 3000, 16384}) {
      SoftmaxShape shape(bf16, cols);
      std::string key = std::string("autotune_softmax_") + (bf16 ? "bf16" : "fp32") + "_8192x" + std::to_string(cols);
      std::vector<examples::SoftmaxConfig> candidates = examples::softmaxCandidates();
      std::vector<TuningConfig> configs;
      int block = 1;
      while (block < cols)
        block *= 2;
      for (examples::SoftmaxConfig &config : candidates) {
        config.block = block;
        configs.push_back({{config.rows}, config.warps, 1});
      }
      std::filesystem::remove_all(cache);
      auto programs = [&](const TuningConfig &c) {
        return Grid{unsigned((SoftmaxShape::rows + c.get(0) - 1) / c.get(0))};
      };
      auto tuneWith = [&](auto &kernel) {
        auto tuned = autotune(kernel, configs, TuningKey{{5}});
        check(tuned.launch(programs, LaunchOptions{}, shape.out, shape.in, cols, cols, SoftmaxShape::rows, cols, block,
                           fromConfig));
        return tuned.tunings().at(0);
      };
      Tuning tuning = bf16 ? tuneWith(SoftmaxShape::bf16Kernel) : tuneWith(SoftmaxShape::f32Kernel);
      // The exhaustive sweep: three passes over the list, each config's median (passes, not one run per config,
      // so that the GPU's drift over the sweep weighs on every config alike).
      std::vector<std::vector<double>> passes(candidates.size());
      for (int pass = 0; pass < 3; ++pass)
        for (size_t i = 0; i < candidates.size(); ++i)
          passes[i].push_back(shape.gbps(candidates[i]));
      double best = 0, chosen = 0;
      size_t bestIndex = 0;
      for (size_t i = 0; i < candidates.size(); ++i) {
        std::sort(passes[i].begin(), passes[i].end());
        double gbps = passes[i][1];
        if (gbps > best)
          best = gbps, bestIndex = i;
        if (i == tuning.chosen)
          chosen = gbps;
      }
      std::printf(",\n  \"%s_chosen\": \"%s\",\n  \"%s_best\": \"%s\",\n  \"%s_chosen_GBps\": %.0f,\n"
                  "  \"%s_best_GBps\": %.0f,\n  \"%s_tuning_ms\": %.0f",
                  key.c_str(), configs[tuning.chosen].str().c_str(), key.c_str(), configs[bestIndex].str().c_str(),
                  key.c_str(), chosen, key.c_str(), best, key.c_str(), tuning.totalMs);
    }

  std::vector<examples::MatmulConfig> matmulConfigs = autotuneMatmulConfigs();
  std::vector<TuningConfig> configs;
  for (const examples::MatmulConfig &c : matmulConfigs)
    configs.push_back({{c.blockM, c.blockN, c.blockK, c.groupM}, c.warps, c.stages, c.warpSpecialize});
  auto run = [&]<ElementTag T>(T, const char *type) {
    const int m = 4096, n = 4096, k = 4096;
    MatmulShape<T> problem(m, n, k, Precision::TF32, 0);
    problem.descriptors = true;
    std::string key = std::string("autotune_matmul_") + type + "_4096x4096x4096";
    size_t chosenIndex[2] = {0, 0}; // parallel, serial: two tunings of the same configs
    for (unsigned threads : {0u, 1u}) {
      std::filesystem::remove_all(cache);
      auto kernel = examples::matmulDescriptors<T>(); // a fresh kernel: nothing compiled in memory or on disk
      AutotuneOptions options;
      options.compileThreads = threads;
      // BRICK_BENCH_AUTOTUNE_MS=<warm-up>,<measure>: the trial lengths (default: AutotuneOptions', as Triton's).
      if (const char *ms = std::getenv("BRICK_BENCH_AUTOTUNE_MS"); ms && *ms)
        std::sscanf(ms, "%lf,%lf", &options.warmupMs, &options.measureMs);
      // BRICK_BENCH_AUTOTUNE_FINAL=<finalists>,<margin>,<cool-down ms> (default: AutotuneOptions').
      if (const char *final = std::getenv("BRICK_BENCH_AUTOTUNE_FINAL"); final && *final)
        std::sscanf(final, "%u,%lf,%lf", &options.finalists, &options.finalMargin, &options.coolDownMs);
      auto tuned = autotune(kernel, configs, TuningKey{{3, 4, 5}}, options);
      auto grid = [&](const TuningConfig &c) {
        return Grid{unsigned(((m + c.get(0) - 1) / c.get(0)) * ((n + c.get(1) - 1) / c.get(1)))};
      };
      auto start = std::chrono::steady_clock::now();
      check(tuned.launch(grid, LaunchOptions{},
                         TensorDescriptorArg::of(problem.da, {m, k}, {k, 1}, {}).blocksFromConfig({0, 2}),
                         TensorDescriptorArg::of(problem.db, {k, n}, {n, 1}, {}).blocksFromConfig({2, 1}),
                         TensorDescriptorArg::of(problem.dc, {m, n}, {n, 1}, {}).blocksFromConfig({0, 1}), m, n, k,
                         fromConfig, fromConfig, fromConfig, fromConfig));
      synchronize();
      double wall = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
      Tuning tuning = tuned.tunings().at(0);
      const char *how = threads == 1 ? "serial" : "parallel";
      std::printf(",\n  \"%s_%s_wall_ms\": %.0f,\n  \"%s_%s_compile_ms\": %.0f,\n  \"%s_%s_timing_ms\": %.0f,\n"
                  "  \"%s_%s_threads\": %u",
                  key.c_str(), how, wall, key.c_str(), how, tuning.compileMs, key.c_str(), how, tuning.timingMs,
                  key.c_str(), how, tuning.compileThreads);
      chosenIndex[threads] = tuning.chosen;
      {
        std::string report;
        for (char c : tuned.tuningReport())
          report += c == '"' || c == '\\' ? std::string("\\") + c : c == '\n' ? std::string("\\n") : std::string(1, c);
        std::printf(",\n  \"%s_%s_report\": \"%s\"", key.c_str(), how, report.c_str());
      }
    }
    std::vector<std::vector<double>> passes(matmulConfigs.size()); // three passes, as for softmax
    for (int pass = 0; pass < 3; ++pass)
      for (size_t i = 0; i < matmulConfigs.size(); ++i)
        passes[i].push_back(problem.measure(matmulConfigs[i]).first);
    double best = 0;
    std::vector<double> tflops(matmulConfigs.size());
    size_t bestIndex = 0;
    for (size_t i = 0; i < matmulConfigs.size(); ++i) {
      std::sort(passes[i].begin(), passes[i].end());
      tflops[i] = passes[i][1];
      std::printf(",\n  \"%s_cfg%zu_TFLOPs\": %.1f", key.c_str(), i, tflops[i]);
      if (tflops[i] > best)
        best = tflops[i], bestIndex = i;
    }
    std::printf(",\n  \"%s_best\": \"%s\",\n  \"%s_best_TFLOPs\": %.1f", key.c_str(),
                configs[bestIndex].str().c_str(), key.c_str(), best);
    for (const char *how : {"parallel", "serial"}) {
      size_t chosen = chosenIndex[std::string(how) == "serial"];
      std::printf(",\n  \"%s_%s_chosen\": \"%s\",\n  \"%s_%s_chosen_TFLOPs\": %.1f", key.c_str(), how,
                  configs[chosen].str().c_str(), key.c_str(), how, tflops[chosen]);
    }
  };
  run(brick::f16{}, "fp16");
  run(brick::bf16{}, "bf16");
}

//===----------------------------------------------------------------------===//
// Fused attention forward (examples/attention.h): useful FLOPs only (2 x (headDim + vDim) x the (query, key)
// pairs seen).
//===----------------------------------------------------------------------===//

/// "BLOCK_M,BLOCK_N,warps,stages", then ",ws" for a warp-specialized launch.
examples::AttentionConfig parseAttentionConfig(const char *text) {
  examples::AttentionConfig c;
  int consumed = 0;
  if (std::sscanf(text, "%d,%d,%u,%u%n", &c.blockM, &c.blockN, &c.warps, &c.stages, &consumed) != 4 ||
      (text[consumed] && std::string(text + consumed) != ",ws"))
    fail(std::string("an attention config is BLOCK_M,BLOCK_N,warps,stages[,ws]; got '") + text + "'");
  c.warpSpecialize = text[consumed] != 0;
  return c;
}

/// One case of BRICK_BENCH_ATTENTION_CASES: "dtype,lengths,qHeads,kvHeads,headDim,causal", lengths either
/// "BxS" (B sequences of S) or "L1:L2:..." (variable lengths, packed), headDim "D" or "D/DV" (V's differs);
/// bench/attention.py writes the list.
struct AttentionCase {
  std::string text;
  bool bf16 = false;
  examples::AttentionShape shape;
};

AttentionCase parseAttentionCase(const std::string &text) {
  AttentionCase c{text};
  std::vector<std::string> fields;
  std::stringstream stream(text);
  for (std::string field; std::getline(stream, field, ',');)
    fields.push_back(field);
  auto bad = [&] {
    fail("an attention case is dtype,BxS or L1:L2:...,qHeads,kvHeads,headDim[/vDim],causal; got '" + text + "'");
  };
  if (fields.size() != 6 || (fields[0] != "f16" && fields[0] != "bf16"))
    bad();
  c.bf16 = fields[0] == "bf16";
  examples::AttentionShape &shape = c.shape;
  if (size_t x = fields[1].find('x'); x != std::string::npos) {
    shape.batch = std::atoi(fields[1].c_str());
    shape.seqLenQ = shape.seqLenK = std::atoi(fields[1].c_str() + x + 1);
  } else {
    shape.cuSeqlensQ = {0};
    std::stringstream lengths(fields[1]);
    for (std::string length; std::getline(lengths, length, ':');)
      shape.cuSeqlensQ.push_back(shape.cuSeqlensQ.back() + std::atoi(length.c_str()));
    shape.cuSeqlensK = shape.cuSeqlensQ;
  }
  shape.qHeads = std::atoi(fields[2].c_str());
  shape.kvHeads = std::atoi(fields[3].c_str());
  shape.headDim = std::atoi(fields[4].c_str());
  if (size_t slash = fields[4].find('/'); slash != std::string::npos)
    shape.valueDim = std::atoi(fields[4].c_str() + slash + 1);
  shape.causal = fields[5] == "1";
  if (std::string why = shape.check(); !why.empty())
    fail(text + ": " + why);
  return c;
}

/// Each case of BRICK_BENCH_ATTENTION_CASES at each config (the autotuner's choice unless listed): checked on
/// a sample of rows (each head's first and last, a few between) against float64 first, then timed.
void benchAttention(const std::vector<examples::AttentionConfig> &sweep) {
  std::vector<AttentionCase> cases;
  const char *list = std::getenv("BRICK_BENCH_ATTENTION_CASES");
  if (!list || !*list)
    fail("--attention: BRICK_BENCH_ATTENTION_CASES lists the cases (bench/attention.py sets it)");
  std::stringstream stream(list);
  for (std::string item; std::getline(stream, item, ';');)
    cases.push_back(parseAttentionCase(item));
  for (const AttentionCase &c : cases) {
    const examples::AttentionShape &shape = c.shape;
    const int64_t d = shape.headDim, vDim = shape.vDim(), qElements = shape.totalQ() * shape.qHeads * d,
                  kElements = shape.totalK() * shape.kvHeads * d, vElements = shape.totalK() * shape.kvHeads * vDim,
                  outElements = shape.totalQ() * shape.qHeads * vDim;
    std::vector<float> q = randomFloats(size_t(qElements)), k = randomFloats(size_t(kElements) + 7),
                       v = randomFloats(size_t(vElements) + 13);
    k.resize(size_t(kElements)), v.resize(size_t(vElements));
    auto upload = [&](std::vector<float> &values) {
      std::vector<uint16_t> stored(values.size());
      for (size_t i = 0; i < values.size(); ++i) {
        stored[i] = c.bf16 ? floatToBf16(values[i]) : floatToHalf(values[i]);
        values[i] = c.bf16 ? bf16ToFloat(stored[i]) : halfToFloat(stored[i]);
      }
      DeviceBuffer buffer = allocate(std::max<size_t>(2, stored.size() * 2));
      check(buffer.copyFromHost(stored.data(), stored.size() * 2));
      return buffer;
    };
    DeviceBuffer dq = upload(q), dk = upload(k), dv = upload(v), dout = allocate(size_t(outElements) * 2);
    DeviceBuffer dcuQ = allocate(4 * (shape.sequences() + 1)), dcuK = allocate(4 * (shape.sequences() + 1));
    if (shape.varlen()) {
      check(dcuQ.copyFromHost(shape.cuSeqlensQ.data(), 4 * shape.cuSeqlensQ.size()));
      check(dcuK.copyFromHost(shape.cuSeqlensK.data(), 4 * shape.cuSeqlensK.size()));
    }
    examples::AttentionBuffers buffers{&dq, &dk, &dv, &dout, nullptr, &dcuQ, &dcuK};
    // Each swept config, or the autotuner's choice (launchAttentionTuned: it tunes at the first launch).
    std::vector<std::optional<examples::AttentionConfig>> configs(sweep.begin(), sweep.end());
    if (configs.empty())
      configs.push_back(std::nullopt);
    for (size_t index = 0; index < configs.size(); ++index) {
      const std::optional<examples::AttentionConfig> &config = configs[index];
      LaunchOptions options{.device = device};
      std::string chosen;
      auto launch = [&] {
        if (!config)
          return c.bf16 ? examples::launchAttentionTuned<bf16>(shape, buffers, options, &chosen)
                        : examples::launchAttentionTuned<f16>(shape, buffers, options, &chosen);
        return c.bf16 ? examples::launchAttention<bf16>(shape, buffers, *config, options)
                      : examples::launchAttention<f16>(shape, buffers, *config, options);
      };
      auto run = [&] { check(launch()); };
      std::string suffix = sweep.empty() ? "" : "_cfg" + std::to_string(index);
      if (runtime::Error error = launch()) {
        if (sweep.empty())
          fail(error.message());
        // A swept config that does not fit (shared memory, registers) is reported, not timed.
        std::printf(",\n  \"%s%s_skipped\": \"%s\"", c.text.c_str(), suffix.c_str(), jsonEscaped(error.message()).c_str());
        continue;
      }
      std::vector<uint16_t> out(static_cast<size_t>(outElements));
      check(dout.copyToHost(out.data(), out.size() * 2));
      double errorSquared = 0, normSquared = 0;
      std::vector<double> expected(static_cast<size_t>(vDim));
      std::mt19937 rng(7);
      std::vector<std::pair<int64_t, int>> rows;
      for (int h : {0, shape.qHeads - 1})
        rows.push_back({0, h}), rows.push_back({shape.totalQ() - 1, h});
      for (int i = 0; i < 4; ++i)
        rows.push_back({int64_t(rng() % shape.totalQ()), int(rng() % shape.qHeads)});
      for (auto [token, head] : rows) {
        examples::attentionReferenceRow(shape, q.data(), k.data(), v.data(), token, head, expected.data());
        for (int64_t col = 0; col < vDim; ++col) {
          uint16_t stored = out[size_t((token * shape.qHeads + head) * vDim + col)];
          double got = c.bf16 ? bf16ToFloat(stored) : halfToFloat(stored);
          errorSquared += (got - expected[col]) * (got - expected[col]), normSquared += expected[col] * expected[col];
        }
      }
      double error = std::sqrt(errorSquared / normSquared);
      if (!(error <= (c.bf16 ? 1e-2 : 2e-3)))
        fail(c.text + ": attention computed a wrong result (relative error " + std::to_string(error) + ")");
      double ms = medianMilliseconds(run, 20);
      std::printf(",\n  \"%s%s_TFLOPs\": %.1f,\n  \"%s%s_error\": %.2e", c.text.c_str(), suffix.c_str(),
                  shape.flops() / ms / 1e9, c.text.c_str(), suffix.c_str(), error);
      if (config)
        std::printf(",\n  \"%s%s\": \"%d,%d,%u,%u%s\"", c.text.c_str(), suffix.c_str(), config->blockM,
                    config->blockN, config->warps, config->stages, config->warpSpecialize ? ",ws" : "");
      else
        std::printf(",\n  \"%s_config\": \"%s\"", c.text.c_str(), jsonEscaped(chosen).c_str());
    }
  }
}

/// Cached launch: host time of one launch call, median of 10,000 (synchronizing every 256 so the queue never
/// fills), for a small vector_add; and the floors under it (`--launch` prints these alone).
void benchLaunchCost() {
  // Median host time of 10,000 calls of `launch`, synchronizing every 256.
  auto medianOf = [&](auto launch) {
    std::vector<double> t;
    for (int i = 0; i < 10000; ++i) {
      auto start = std::chrono::steady_clock::now();
      launch();
      t.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
      if (i % 256 == 255)
        synchronize();
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  };
  auto kernel = examples::vectorAdd();
  DeviceBuffer x = allocate(4096), y = allocate(4096), out = allocate(4096);
  auto cached = [&] { check(kernel.launch(Grid{1}, LaunchOptions{}, x, y, out, 1024, 1024)); };
  cached();
  std::printf(",\n  \"cached_launch_us\": %.2f", medianOf(cached));

  // The floors under it: the runtime's launch of the same loaded kernel (limit checks included), and the bare
  // driver call.
  std::string why;
  auto bundle = detail::compileSpecialization(
      detail::JitKernel{kernel.name(), kernel.params(),
                        [&](mlir::MLIRContext *c, const Specialization &s, const std::function<void(mlir::Operation *)> &r) {
                          return kernel.build(c, s, r);
                        },
                        &kernel.jitState()},
      detail::specializationFor(kernel.params(), {{detail::LaunchArg::Kind::Pointer, x.address()},
                                                  {detail::LaunchArg::Kind::Pointer, y.address()},
                                                  {detail::LaunchArg::Kind::Pointer, out.address()},
                                                  {detail::LaunchArg::Kind::Integer, 0, 1024},
                                                  {detail::LaunchArg::Kind::Integer, 0, 1024}}),
      LaunchOptions{}, "sm_" + std::to_string(device->computeCapability()) + "a", &why);
  if (!bundle)
    fail(bundle.error().message());
  auto loaded = runtime::LoadedKernel::load(*device, *bundle);
  if (!loaded)
    fail(loaded.error().message());
  runtime::CUdeviceptr px = x.address(), py = y.address(), pout = out.address();
  int32_t n = 1024;
  void *args[] = {&px, &py, &pout, &n};
  double runtimeLaunch = medianOf([&] { check(loaded->launch({1, 1, 1}, nullptr, args)); });
  double driverLaunch = medianOf([&] {
    check(device->driver().check(device->driver().cuLaunchKernel(
                                     loaded->function().handle(), 1, 1, 1, 128, 1,
                                     1, 0, nullptr, args, nullptr),
                                 "launching"));
  });
  std::printf(",\n  \"runtime_launch_us\": %.2f,\n  \"driver_launch_us\": %.2f", runtimeLaunch, driverLaunch);
}

//===----------------------------------------------------------------------===//
// FP8 GEMM (examples::matmulDescriptorsTransposedB<f8e4m3, bf16>): A M x K and B N x K in e4m3, C in bf16, no
// scales yet; TFLOP/s and the relative error against float64 of the codes (bench/fp8.py puts cuBLAS beside it).
//===----------------------------------------------------------------------===//

/// BRICK_BENCH_FP8_SHAPES="M,N,K;..." at each swept config (BLOCK_M,BLOCK_N,BLOCK_K,GROUP_M,warps,stages[,ws]).
void benchFp8(const std::vector<examples::MatmulConfig> &sweep) {
  const char *list = std::getenv("BRICK_BENCH_FP8_SHAPES");
  if (!list || !*list || sweep.empty())
    fail("--fp8 CFG...: BRICK_BENCH_FP8_SHAPES lists M,N,K;... (bench/fp8.py sets it)");
  static auto kernel = examples::matmulDescriptorsTransposedB<f8e4m3, bf16>();
  std::stringstream stream(list);
  for (std::string item; std::getline(stream, item, ';');) {
    int m = 0, n = 0, k = 0;
    if (std::sscanf(item.c_str(), "%d,%d,%d", &m, &n, &k) != 3)
      fail("an FP8 shape is M,N,K, got '" + item + "'");
    std::mt19937 rng(8);
    auto codes = [&](size_t count) {
      std::vector<uint8_t> out(count);
      for (uint8_t &code : out) // values of magnitude 2^-3 to 2^1 of either sign: no NaN, no saturation
        code = floatToE4M3(std::ldexp(1.0f + float(rng() % 8) / 8, int(rng() % 5) - 3) * (rng() & 1 ? -1 : 1));
      return out;
    };
    std::vector<uint8_t> a = codes(size_t(m) * k), b = codes(size_t(n) * k);
    DeviceBuffer da = allocate(a.size()), db = allocate(b.size()), dc = allocate(size_t(m) * n * 2);
    check(da.copyFromHost(a.data(), a.size()));
    check(db.copyFromHost(b.data(), b.size()));
    // One config of one kernel: launched once (a config that does not fit is reported, not timed), 256 sampled
    // elements of C checked against float64 (each product times scale(i, j, p)), then timed.
    auto measure = [&](const std::string &key, auto launch, auto scale) {
      if (runtime::Error error = launch()) {
        std::printf(",\n  \"%s_skipped\": \"%s\"", key.c_str(), jsonEscaped(error.message()).c_str());
        return;
      }
      std::vector<uint16_t> out(size_t(m) * n);
      check(dc.copyToHost(out.data(), out.size() * 2));
      double errorSquared = 0, normSquared = 0;
      for (int sample = 0; sample < 256; ++sample) {
        int i = int(rng() % m), j = int(rng() % n);
        double ref = 0;
        for (int p = 0; p < k; ++p)
          ref += double(e4m3ToFloat(a[size_t(i) * k + p])) * e4m3ToFloat(b[size_t(j) * k + p]) * scale(i, j, p);
        double got = bf16ToFloat(out[size_t(i) * n + j]);
        errorSquared += (got - ref) * (got - ref), normSquared += ref * ref;
      }
      double ms = medianMilliseconds([&] { check(launch()); }, 30);
      std::printf(",\n  \"%s_TFLOPs\": %.1f,\n  \"%s_error\": %.2e", key.c_str(), 2.0 * m * n * k / ms / 1e9,
                  key.c_str(), std::sqrt(errorSquared / normSquared));
    };
    auto optionsOf = [](const examples::MatmulConfig &config) {
      return LaunchOptions{.numWarps = config.warps, .numStages = config.stages,
                           .warpSpecialize = config.warpSpecialize, .device = device};
    };
    for (size_t index = 0; index < sweep.size(); ++index) {
      const examples::MatmulConfig &config = sweep[index];
      auto launch = [&] {
        return kernel.launch(
            Grid{config.programs(m, n)}, optionsOf(config), TensorDescriptorArg::of(da, {m, k}, {k, 1}, {config.blockM, config.blockK}),
            TensorDescriptorArg::of(db, {n, k}, {k, 1}, {config.blockN, config.blockK}),
            TensorDescriptorArg::of(dc, {m, n}, {n, 1}, {config.blockM, config.blockN}), m, n, k, config.blockM,
            config.blockN, config.blockK, config.groupM);
      };
      measure(item + "_cfg" + std::to_string(index), launch, [](int, int, int) { return 1.0; });
    }
    // Decode shapes split along K (examples::matmulSplitK, then matmulSplitKReduce into bf16), both launches timed
    // together: BRICK_BENCH_FP8_SPLITS="2,4" (keys ..._split<S>_cfg<i>).
    if (const char *splits = std::getenv("BRICK_BENCH_FP8_SPLITS")) {
      static auto splitK = examples::matmulSplitK<f8e4m3>();
      static auto reduce = examples::matmulSplitKReduce<bf16>();
      std::stringstream splitList(splits);
      for (std::string piece; std::getline(splitList, piece, ',');) {
        int count = std::atoi(piece.c_str());
        if (count < 1)
          fail("BRICK_BENCH_FP8_SPLITS lists positive counts, got '" + piece + "'");
        DeviceBuffer partial = allocate(size_t(count) * m * n * 4);
        for (size_t index = 0; index < sweep.size(); ++index) {
          const examples::MatmulConfig &config = sweep[index];
          auto launch = [&]() -> runtime::Error {
            if (runtime::Error error = splitK.launch(
                    Grid{config.programs(m, n), unsigned(count)}, optionsOf(config),
                    TensorDescriptorArg::of(da, {m, k}, {k, 1}, {config.blockM, config.blockK}),
                    TensorDescriptorArg::of(db, {n, k}, {k, 1}, {config.blockN, config.blockK}), partial, m, n, k,
                    config.blockM, config.blockN, config.blockK, count))
              return error;
            return reduce.launch(Grid{unsigned((size_t(m) * n + 1023) / 1024)}, LaunchOptions{.device = device},
                                 partial, dc, m * n, count, 1024);
          };
          measure(item + "_split" + std::to_string(count) + "_cfg" + std::to_string(index), launch,
                  [](int, int, int) { return 1.0; });
        }
      }
    }
    // One scale per row of A and per row of B (examples::matmulFp8RowwiseScaled), applied after the K loop.
    static auto rowwise = examples::matmulFp8RowwiseScaled();
    std::vector<float> rowScaleA(m), rowScaleB(n);
    for (float &scale : rowScaleA)
      scale = std::ldexp(1.0f + float(rng() % 16) / 16, int(rng() % 5) - 2);
    for (float &scale : rowScaleB)
      scale = std::ldexp(1.0f + float(rng() % 16) / 16, int(rng() % 5) - 2);
    DeviceBuffer dRowScaleA = allocate(size_t(m) * 4), dRowScaleB = allocate(size_t(n) * 4);
    check(dRowScaleA.copyFromHost(rowScaleA.data(), size_t(m) * 4));
    check(dRowScaleB.copyFromHost(rowScaleB.data(), size_t(n) * 4));
    for (size_t index = 0; index < sweep.size(); ++index) {
      const examples::MatmulConfig &config = sweep[index];
      auto launch = [&] {
        return rowwise.launch(
            Grid{config.programs(m, n)}, optionsOf(config), TensorDescriptorArg::of(da, {m, k}, {k, 1}, {config.blockM, config.blockK}),
            TensorDescriptorArg::of(db, {n, k}, {k, 1}, {config.blockN, config.blockK}),
            TensorDescriptorArg::of(dc, {m, n}, {n, 1}, {config.blockM, config.blockN}), dRowScaleA, dRowScaleB, m, n,
            k, config.blockM, config.blockN, config.blockK, config.groupM);
      };
      measure(item + "_rowwise_cfg" + std::to_string(index), launch,
              [&](int i, int j, int) { return double(rowScaleA[i]) * rowScaleB[j]; });
    }
    // DeepSeek-V3's block scales (examples::matmulFp8BlockScaled): BLOCK_K is 128 there, the configs' BLOCK_K is
    // not used; K must be a multiple of 128.
    if (k % 128 != 0)
      continue;
    // This GEMM's activations quantized per 1 x 128 group (examples::quantizeFp8, bf16 in): GB/s read and written,
    // at each block shape.
    static auto quantize = examples::quantizeFp8();
    DeviceBuffer dX = allocate(size_t(m) * k * 2), dCodes = allocate(size_t(m) * k),
                 dGroupScales = allocate(size_t(m) * (k / 128) * 4);
    check(dX.fill(0x3f));
    for (auto [blockM, blockK] : {std::pair{64, 128}, {32, 256}, {16, 512}, {128, 128}, {32, 128}}) {
      auto launch = [&] {
        return quantize.launch(Grid{unsigned((m + blockM - 1) / blockM), unsigned((k + blockK - 1) / blockK)},
                               LaunchOptions{.device = device}, dX, dCodes, dGroupScales, m, k, blockM, blockK);
      };
      check(launch());
      double ms = medianMilliseconds([&] { check(launch()); }, 30);
      std::printf(",\n  \"%s_quantize_%dx%d_GBps\": %.1f", item.c_str(), blockM, blockK,
                  (double(m) * k * 3 + double(m) * (k / 128) * 4) / ms / 1e6);
    }
    static auto blockScaled = examples::matmulFp8BlockScaled();
    std::vector<float> scaleA(size_t(k / 128) * m), scaleB(size_t((n + 127) / 128) * (k / 128));
    for (float &scale : scaleA)
      scale = std::ldexp(1.0f + float(rng() % 16) / 16, int(rng() % 5) - 2);
    for (float &scale : scaleB)
      scale = std::ldexp(1.0f + float(rng() % 16) / 16, int(rng() % 5) - 2);
    DeviceBuffer dScaleA = allocate(scaleA.size() * 4), dScaleB = allocate(scaleB.size() * 4);
    check(dScaleA.copyFromHost(scaleA.data(), scaleA.size() * 4));
    check(dScaleB.copyFromHost(scaleB.data(), scaleB.size() * 4));
    auto scales = [&](int i, int j, int p) {
      return double(scaleA[size_t(p / 128) * m + i]) * scaleB[size_t(j / 128) * (k / 128) + p / 128];
    };
    for (size_t index = 0; index < sweep.size(); ++index) {
      const examples::MatmulConfig &config = sweep[index];
      auto launch = [&] {
        return blockScaled.launch(
            Grid{config.programs(m, n)}, optionsOf(config), TensorDescriptorArg::of(da, {m, k}, {k, 1}, {config.blockM, 128}),
            TensorDescriptorArg::of(db, {n, k}, {k, 1}, {config.blockN, 128}),
            TensorDescriptorArg::of(dc, {m, n}, {n, 1}, {config.blockM, config.blockN}), dScaleA, dScaleB, m, n, k,
            config.blockM, config.blockN, config.groupM);
      };
      measure(item + "_block_cfg" + std::to_string(index), launch, scales);
    }
  }
}

//===----------------------------------------------------------------------===//
// tf32, s8 and e4m3 GEMMs (bench/dot_types.py puts cuBLAS beside them): A M x K; B N x K (along K: the only layout wgmma
// reads 32- and 8-bit operands in) through examples::matmulDescriptorsTransposedB, and B K x N through
// examples::matmul (pointers; on sm_90a staged in shared memory and rewritten along K), each at every swept config.
//===----------------------------------------------------------------------===//

template <ElementTag T, ElementTag Out>
void benchDotType(const std::string &name, const std::vector<examples::MatmulConfig> &sweep, int m, int n, int k) {
  constexpr bool integer = std::is_same_v<T, i8>, float8 = std::is_same_v<T, f8e4m3>;
  using In = std::conditional_t<integer, int8_t, std::conditional_t<float8, uint8_t, float>>;
  using Result = std::conditional_t<integer, int32_t, std::conditional_t<float8, uint16_t, float>>; // e4m3: bf16 out
  auto value = [](In v) { return float8 ? double(e4m3ToFloat(uint8_t(v))) : double(v); };
  auto result = [](Result v) { return float8 ? double(bf16ToFloat(uint16_t(v))) : double(v); };
  std::mt19937 rng(9);
  std::normal_distribution<float> normal;
  auto values = [&](size_t count) {
    std::vector<In> out(count);
    for (In &v : out)
      v = integer ? In(int(rng() % 255) - 127) : float8 ? In(floatToE4M3(normal(rng))) : In(normal(rng));
    return out;
  };
  std::vector<In> a = values(size_t(m) * k), b = values(size_t(n) * k), bKN(size_t(k) * n);
  for (int j = 0; j < n; ++j)
    for (int p = 0; p < k; ++p)
      bKN[size_t(p) * n + j] = b[size_t(j) * k + p];
  DeviceBuffer da = allocate(a.size() * sizeof(In)), db = allocate(b.size() * sizeof(In)),
               dbKN = allocate(b.size() * sizeof(In)), dc = allocate(size_t(m) * n * sizeof(Result));
  check(da.copyFromHost(a.data(), a.size() * sizeof(In)));
  check(db.copyFromHost(b.data(), b.size() * sizeof(In)));
  check(dbKN.copyFromHost(bKN.data(), bKN.size() * sizeof(In)));
  // Launched once (a config that does not fit is reported, not timed), 256 sampled elements of C checked against
  // float64 (relative L2 error; s8 sums exactly), then timed.
  auto measure = [&](const std::string &key, auto launch) {
    check(dc.fill(0xFF));
    if (runtime::Error error = launch()) {
      std::printf(",\n  \"%s_skipped\": \"%s\"", key.c_str(), jsonEscaped(error.message()).c_str());
      return;
    }
    std::vector<Result> out(size_t(m) * n);
    check(dc.copyToHost(out.data(), out.size() * sizeof(Result)));
    double errorSquared = 0, normSquared = 0;
    for (int sample = 0; sample < 256; ++sample) {
      int i = int(rng() % m), j = int(rng() % n);
      double ref = 0;
      for (int p = 0; p < k; ++p)
        ref += value(a[size_t(i) * k + p]) * value(b[size_t(j) * k + p]);
      double got = result(out[size_t(i) * n + j]);
      errorSquared += (got - ref) * (got - ref), normSquared += ref * ref;
    }
    double ms = medianMilliseconds([&] { check(launch()); }, 30);
    std::printf(",\n  \"%s_TFLOPs\": %.1f,\n  \"%s_error\": %.2e", key.c_str(), 2.0 * m * n * k / ms / 1e9,
                key.c_str(), std::sqrt(errorSquared / normSquared));
  };
  auto optionsOf = [](const examples::MatmulConfig &config) {
    return LaunchOptions{.numWarps = config.warps, .numStages = config.stages,
                         .warpSpecialize = config.warpSpecialize, .device = device};
  };
  std::string shape = name + "_" + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
  static auto alongK = examples::matmulDescriptorsTransposedB<T, Out>(Precision::TF32);
  for (size_t index = 0; index < sweep.size(); ++index) {
    examples::MatmulConfig config = sweep[index];
    config.blockK = config.blockK * 4 / int(sizeof(In)); // a config's BLOCK_K is tf32's: 8-bit rows of the same bytes
    measure(shape + "_bT_cfg" + std::to_string(index), [&] {
      return alongK.launch(Grid{config.programs(m, n)}, optionsOf(config),
                           TensorDescriptorArg::of(da, {m, k}, {k, 1}, {config.blockM, config.blockK}),
                           TensorDescriptorArg::of(db, {n, k}, {k, 1}, {config.blockN, config.blockK}),
                           TensorDescriptorArg::of(dc, {m, n}, {n, 1}, {config.blockM, config.blockN}), m, n, k,
                           config.blockM, config.blockN, config.blockK, config.groupM);
    });
  }
  static auto alongN = examples::matmul<T, Out>(Precision::TF32);
  for (size_t index = 0; index < sweep.size(); ++index) {
    examples::MatmulConfig config = sweep[index];
    config.blockK = config.blockK * 4 / int(sizeof(In));
    config.warpSpecialize = false; // pointers: no TMA copies for a producer to issue
    measure(shape + "_b_cfg" + std::to_string(index), [&] {
      return alongN.launch(Grid{config.programs(m, n)}, optionsOf(config), da, dbKN, dc, m, n, k, k, 1, n, 1, n, 1,
                           config.blockM, config.blockN, config.blockK, config.groupM);
    });
  }
}

/// BRICK_BENCH_DOT_SHAPES="M,N,K;..." (default 4096^3), tf32, s8 and e4m3 (no scales, bf16 out), at each swept
/// config.
void benchDotTypes(const std::vector<examples::MatmulConfig> &sweep) {
  std::string list = std::getenv("BRICK_BENCH_DOT_SHAPES") ? std::getenv("BRICK_BENCH_DOT_SHAPES") : "";
  std::stringstream stream(list.empty() ? "4096,4096,4096" : list);
  for (std::string item; std::getline(stream, item, ';');) {
    int m = 0, n = 0, k = 0;
    if (std::sscanf(item.c_str(), "%d,%d,%d", &m, &n, &k) != 3)
      fail("a shape is M,N,K, got '" + item + "'");
    benchDotType<f32, f32>("tf32", sweep, m, n, k);
    benchDotType<i8, i32>("s8", sweep, m, n, k);
    benchDotType<f8e4m3, bf16>("e4m3", sweep, m, n, k);
  }
}

int main(int argc, char **argv) {
  bool sweep = argc > 1 && std::string(argv[1]) == "--softmax-sweep";
  bool matmulOnly = argc > 1 && std::string(argv[1]) == "--matmul";
  bool softmaxOnly = argc > 1 && std::string(argv[1]) == "--softmax";
  std::vector<examples::MatmulConfig> matmulSweep;
  if (argc > 2 && std::string(argv[1]) == "--matmul-sweep")
    for (int i = 2; i < argc; ++i)
      matmulSweep.push_back(parseMatmulConfig(argv[i]));
  auto dev = runtime::Device::get(0);
  if (!dev)
    fail(dev.error().message());
  device = &*dev;
  std::string cache = std::filesystem::temp_directory_path().string() + "/brick-bench-cache";
  std::filesystem::remove_all(cache);
  setenv("BRICK_CACHE_DIR", cache.c_str(), 1);
  DeviceBuffer flush = allocate(256 << 20);
  flushBuffer = &flush;
  std::printf("{\n  \"device\": \"%s\"", device->name().c_str());
  // The examples' host-side random numbers (the MoE's inputs, weights and routing): BRICK_SEED=<seed> repeats them.
  std::printf(",\n  \"seed\": %llu", static_cast<unsigned long long>(examples::host::rngSeed()));
  if (argc > 1 && std::string(argv[1]) == "--autotune") {
    benchAutotune();
    std::printf("\n}\n");
    return 0;
  }
  // A mode that takes configurations from the rest of the command line.
  auto withConfigs = [&](auto parse, auto bench) {
    std::vector<decltype(parse(""))> sweep;
    for (int i = 2; i < argc; ++i)
      sweep.push_back(parse(argv[i]));
    bench(sweep);
    std::printf("\n}\n");
    return 0;
  };
  if (argc > 1 && std::string(argv[1]) == "--moe")
    return withConfigs(parseMoeConfig, benchMoe);
  if (argc > 1 && std::string(argv[1]) == "--attention")
    return withConfigs(parseAttentionConfig, benchAttention);
  if (argc > 1 && std::string(argv[1]) == "--fp8")
    return withConfigs(parseMatmulConfig, benchFp8);
  if (argc > 1 && std::string(argv[1]) == "--dot-types")
    return withConfigs(parseMatmulConfig, benchDotTypes);
  if (argc > 1 && std::string(argv[1]) == "--launch") { // the cached launch's host cost alone
    benchLaunchCost();
    std::printf("\n}\n");
    return 0;
  }
  if (argc > 1 && std::string(argv[1]) == "--cold") { // the cold first launch alone (BRICK_BENCH_MATMUL_SM too)
    benchColdLaunch(matmulTarget());
    std::printf("\n}\n");
    return 0;
  }
  if (matmulOnly || !matmulSweep.empty()) {
    benchMatmul(matmulSweep);
    std::printf("\n}\n");
    return 0;
  }

  // vector_add, 2^26 f32: 3 x 4 bytes per element move.
  if (!softmaxOnly) {
    auto kernel = examples::vectorAdd();
    const int n = 1 << 26;
    std::vector<float> hx = randomFloats(n);
    DeviceBuffer x = allocate(n * 4ull), y = allocate(n * 4ull), out = allocate(n * 4ull);
    check(x.copyFromHost(hx.data(), n * 4ull));
    check(y.copyFromHost(hx.data(), n * 4ull));
    auto run = [&] { check(kernel.launch(Grid{unsigned(n / 1024)}, LaunchOptions{}, x, y, out, n, 1024)); };
    run();
    std::vector<float> back(1024);
    check(out.copyToHost(back.data(), 4096));
    for (int i = 0; i < 1024; ++i)
      if (back[i] != 2 * hx[i])
        fail("vector_add computed a wrong result");
    double ms = medianMilliseconds(run);
    std::printf(",\n  \"vector_add_GBps\": %.0f", 12.0 * n / ms / 1e6);
  }

  // Softmax 8192 x N, f32 and bf16, launched as examples::softmaxConfig says (or as the environment forces:
  // BRICK_BENCH_SOFTMAX_WARPS, BRICK_BENCH_SOFTMAX_ROWS). With --softmax-sweep, every rows x warps setting.
  for (bool bf16 : {false, true}) {
    for (int cols : {256, 1024, 3000, 4096, 16384}) {
      SoftmaxShape shape(bf16, cols);
      examples::SoftmaxConfig config = examples::softmaxConfig(cols, bf16 ? 2 : 4);
      if (!sweep) {
        if (const char *forced = std::getenv("BRICK_BENCH_SOFTMAX_WARPS"); forced && *forced)
          config.warps = static_cast<unsigned>(std::atoi(forced));
        if (const char *forced = std::getenv("BRICK_BENCH_SOFTMAX_ROWS"); forced && *forced)
          config.rows = std::atoi(forced);
        unsigned limit = 0;
        if (const char *forced = std::getenv("BRICK_BENCH_SOFTMAX_PROGRAMS_PER_SM"); forced && *forced)
          limit = unsigned(std::atoi(forced)) * unsigned(device->multiprocessors());
        std::printf(",\n  \"softmax_%s_8192x%d_GBps\": %.0f", bf16 ? "bf16" : "fp32", cols, shape.gbps(config, limit));
        continue;
      }
      for (int rows : {1, 2, 4})
        for (unsigned warps : {1u, 2u, 4u, 8u, 16u})
          for (unsigned perSM : {0u, 4u, 8u, 16u}) {
            if (rows * config.block / (32 * int(warps)) < 1 ||
                rows * config.block * (bf16 ? 2 : 4) / (32 * int(warps)) > 512)
              continue; // fewer elements than threads, or more than 512 bytes of row per thread: registers spill
            config.rows = rows, config.warps = warps;
            unsigned limit = perSM * unsigned(device->multiprocessors());
            std::printf(",\n  \"softmax_%s_8192x%d_rows%d_warps%u_grid%u_GBps\": %.0f", bf16 ? "bf16" : "fp32", cols,
                        rows, warps, config.programs(SoftmaxShape::rows, limit), shape.gbps(config, limit));
          }
    }
  }
  if (sweep || softmaxOnly) {
    std::printf("\n}\n");
    return 0;
  }

  // Cold compile: the first launch of a softmax specialization nothing has compiled (empty disk cache).
  {
    std::filesystem::remove_all(cache);
    auto kernel = examples::softmax<brick::f32>();
    DeviceBuffer in = allocate(1024 * 4 * 64), out = allocate(1024 * 4 * 64);
    auto start = std::chrono::steady_clock::now();
    check(kernel.launch(Grid{64}, LaunchOptions{}, out, in, 1024, 1024, 64, 1024, 1024, 1));
    double cold = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    auto warmKernel = examples::softmax<brick::f32>(); // a fresh kernel object: empty memory cache, warm disk cache
    start = std::chrono::steady_clock::now();
    check(warmKernel.launch(Grid{64}, LaunchOptions{}, out, in, 1024, 1024, 64, 1024, 1024, 1));
    double warm = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::printf(",\n  \"softmax_cold_first_launch_ms\": %.1f,\n  \"softmax_disk_cached_first_launch_ms\": %.1f", cold, warm);
  }

  benchLaunchCost();
  benchMatmul({});
  std::printf("\n}\n");
  std::filesystem::remove_all(cache);
  return 0;
}
