//===- matmul_host.cpp - The host program of matmul --------------------------------------===//

#include "host.h"
#include "matmul.h"

#include <array>
#include <map>

namespace examples {

namespace {
using brick::Precision;

template <brick::ElementTag T> struct MatmulTraits;
template <> struct MatmulTraits<brick::f16> {
  using Out = brick::f16;
  static constexpr const char *name = "f16";
};
template <> struct MatmulTraits<brick::bf16> {
  using Out = brick::bf16;
  static constexpr const char *name = "bf16";
};
template <> struct MatmulTraits<brick::f32> {
  using Out = brick::f32;
  static constexpr const char *name = "f32";
};
template <> struct MatmulTraits<brick::i8> {
  using Out = brick::i32;
  static constexpr const char *name = "i8";
};

/// The kernel `make(precision)` builds, one per precision (it is part of the kernel's IR), made once.
template <class Make> auto &perPrecision(Make make, Precision precision) {
  static std::array<decltype(make(Precision::IEEE)), 3> kernels = {make(Precision::IEEE), make(Precision::TF32),
                                                                   make(Precision::TF32x3)};
  return kernels[static_cast<int>(precision)];
}

template <brick::ElementTag T> auto &matmulKernel(Precision precision) {
  return perPrecision([](Precision p) { return matmul<T, typename MatmulTraits<T>::Out>(p); }, precision);
}
template <brick::ElementTag T> auto &matmulPersistentKernel(Precision precision) {
  return perPrecision([](Precision p) { return matmulPersistent<T, typename MatmulTraits<T>::Out>(p); }, precision);
}
template <brick::ElementTag T> auto &matmulDescriptorsTransposedBKernel(Precision precision) {
  return perPrecision([](Precision p) { return matmulDescriptorsTransposedB<T, typename MatmulTraits<T>::Out>(p); },
                      precision);
}
template <brick::ElementTag T> auto &matmulDescriptorsKernel(Precision precision) {
  return perPrecision([](Precision p) { return matmulDescriptors<T, typename MatmulTraits<T>::Out>(p); }, precision);
}

/// `kernel` launched through the autotuner over matmulCandidates (matmulPersistentCandidates when `persistent`;
/// those that suit the shape), keyed by M, N and K: one tuner per kernel, device kind and target.
template <class K>
auto &autotunedMatmul(const K &kernel, const brick::runtime::Device &device, int elementBytes, unsigned capability,
                      bool persistent = false) {
  using Tuned = decltype(brick::autotune(kernel, {}, {}));
  static std::map<std::tuple<const void *, bool, unsigned>, std::unique_ptr<Tuned>> tuners;
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<Tuned> &tuned = tuners[{&kernel, device.isInterpreter(), capability}];
  if (!tuned) {
    std::vector<brick::TuningConfig> configs;
    for (const MatmulConfig &config : persistent ? matmulPersistentCandidates(elementBytes, capability)
                                                 : matmulCandidates(elementBytes, capability))
      configs.push_back(tuningConfig(config));
    brick::AutotuneOptions options =
        exampleTuning(device.isInterpreter(), [](const brick::TuningConfig &config, const std::vector<int64_t> &key) {
          return matmulCandidateFits(MatmulConfig{int(config.get(0))}, int(key[0]));
        });
    tuned = std::make_unique<Tuned>(brick::autotune(kernel, configs, brick::TuningKey{{3, 4, 5}}, options));
  }
  return *tuned;
}

/// ", autotuned: <the config chosen for key>".
template <class T> std::string chosenFor(const T &tuned, std::vector<int64_t> key) {
  for (const brick::Tuning &tuning : tuned.tunings())
    if (tuning.key == key)
      return ", autotuned (" + tuning.how + "): " + tuned.configs()[tuning.chosen].str();
  return "";
}

const char *precisionName(Precision precision) {
  return precision == Precision::IEEE ? "ieee" : precision == Precision::TF32 ? "tf32" : "tf32x3";
}

/// The most relative error a result may have: the output's rounding (f16, bf16) or the inputs' (tf32).
template <brick::ElementTag T> double tolerance(Precision precision) {
  if constexpr (std::is_same_v<T, brick::f16>)
    return 2e-3;
  else if constexpr (std::is_same_v<T, brick::bf16>)
    return 1e-2;
  else if constexpr (std::is_same_v<T, brick::i8>)
    return 0; // i8 products sum exactly in i32
  else
    return precision == Precision::TF32 ? 3e-4 : 1e-5;
}
} // namespace

template <brick::ElementTag T> Check runMatmul(const brick::runtime::Device &device, const MatmulProblem &problem) {
  using namespace host;
  using Out = typename MatmulTraits<T>::Out;
  const int m = problem.m, n = problem.n, k = problem.k;
  std::string what = std::string("matmul ") + MatmulTraits<T>::name;
  if constexpr (std::is_same_v<T, brick::f32>)
    what += std::string(" (") + precisionName(problem.precision) + ")";
  what += " " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
  if (problem.transposeA || problem.transposeB)
    what += std::string(" with ") + (problem.transposeA ? "A" : "") + (problem.transposeB ? "B" : "") + " transposed";
  if (problem.padding)
    what += ", rows padded by " + std::to_string(problem.padding);
  Check check{what, 0, tolerance<T>(problem.precision), {}, 0};

  // A is stored M x K row-major (or K x M when transposed), B K x N (or N x K); each stored row has `padding`
  // unused elements at its end, so strides are not the logical extents.
  const int pad = problem.padding;
  const int aRows = problem.transposeA ? k : m, aCols = problem.transposeA ? m : k;
  const int bRows = problem.transposeB ? n : k, bCols = problem.transposeB ? k : n;
  const int64_t aStride = aCols + pad, bStride = bCols + pad, cStride = n + pad;
  std::vector<float> a = randomFloats(size_t(aRows) * aStride), b = randomFloats(size_t(bRows) * bStride);
  // Rounding zero-mean inputs to tf32 alone costs about 2.9e-4 of relative error (10 mantissa bits; the rounding
  // errors of a and b add), at the 3e-4 bound itself; inputs in [0, 1) (as torch.rand) keep the sums from
  // cancelling, so a correct tf32 dot is well inside it while a biased one (truncating instead of rounding)
  // is not.
  if (std::is_same_v<T, brick::f32> && problem.precision == Precision::TF32)
    for (std::vector<float> *values : {&a, &b})
      for (float &v : *values)
        v = std::fabs(v) - std::floor(std::fabs(v));
  if constexpr (std::is_same_v<T, brick::i8>)
    for (std::vector<float> *values : {&a, &b})
      for (float &v : *values)
        v = std::nearbyint(std::clamp(v * 40.0f, -127.0f, 127.0f));
  auto da = upload(device, toMemory<T>(a)), db = upload(device, toMemory<T>(b));
  size_t outBytes = sizeof(typename Memory<Out>::Stored);
  auto dc = poisoned(device, size_t(m) * cStride * outBytes);
  for (auto *buffer : {&da, &db, &dc})
    if (!*buffer)
      return check.failure = buffer->error().message(), check;
  auto elementA = [&](int i, int p) { return double(problem.transposeA ? a[size_t(p) * aStride + i] : a[size_t(i) * aStride + p]); };
  auto elementB = [&](int p, int j) { return double(problem.transposeB ? b[size_t(j) * bStride + p] : b[size_t(p) * bStride + j]); };

  unsigned capability = problem.targetCapability ? problem.targetCapability : unsigned(device.computeCapability());
  // wgmma (sm_90a) reads tf32 inputs truncated (as Triton's Hopper code does), where mma.sync and the
  // interpreter round them to nearest: on inputs in [0, 1) each product shrinks by about 6.8e-4 on average (two
  // 10-bit mantissas cut), so sm_90a is held to 1e-3 and the rounding targets stay at 3e-4.
  if (std::is_same_v<T, brick::f32> && problem.precision == Precision::TF32 && capability == 90)
    check.tolerance = 1e-3;
  int elementBytes = int(sizeof(typename Memory<T>::Stored));
  MatmulConfig config = problem.config.value_or(matmulConfig(m, n, k, elementBytes, capability));
  brick::LaunchOptions options{.numWarps = config.warps, .numStages = config.stages, .device = &device};
  options.targetCapability = problem.targetCapability;
  options.warpSpecialize = config.warpSpecialize;
  options.clusterSize = config.clusterSize;
  if (config.warpSpecialize)
    check.what += ", warp-specialized";
  if (config.clusterSize > 1)
    check.what += ", in clusters of " + std::to_string(config.clusterSize);
  if (problem.descriptors || problem.persistent)
    check.what += problem.persistent ? ", persistent, through tensor descriptors" : ", through tensor descriptors";
  // Through descriptors B may be stored N x K (matmulDescriptorsTransposedB); A is M x K.
  if ((problem.descriptors || problem.persistent) && (problem.transposeA || (problem.persistent && problem.transposeB)))
    return check.failure = "matmulDescriptors takes A untransposed (and matmulPersistent B too)", check;
  // Without a config of its own, the problem launches through the autotuner.
  auto autotuned = [&]() -> brick::runtime::Error {
    using brick::fromConfig;
    using brick::TensorDescriptorArg;
    brick::LaunchOptions tunedOptions{.device = &device};
    tunedOptions.targetCapability = problem.targetCapability;
    auto tiles = [&](const brick::TuningConfig &c) {
      return brick::Grid{unsigned(((m + c.get(0) - 1) / c.get(0)) * ((n + c.get(1) - 1) / c.get(1)))};
    };
    auto a = TensorDescriptorArg::of(*da, {m, k}, {aStride, 1}, {}).blocksFromConfig({0, 2});
    auto b = problem.transposeB ? TensorDescriptorArg::of(*db, {n, k}, {bStride, 1}, {}).blocksFromConfig({1, 2})
                                : TensorDescriptorArg::of(*db, {k, n}, {bStride, 1}, {}).blocksFromConfig({2, 1});
    auto c = TensorDescriptorArg::of(*dc, {m, n}, {cStride, 1}, {}).blocksFromConfig({0, 1});
    std::vector<int64_t> key = {m, n, k};
    if (problem.persistent) {
      auto &tuned =
          autotunedMatmul(matmulPersistentKernel<T>(problem.precision), device, elementBytes, capability, true);
      auto programs = [&](const brick::TuningConfig &config) { return persistentGrid(config, m, n); };
      brick::runtime::Error e = tuned.launch(programs, tunedOptions, a, b, c, m, n, k, fromConfig, fromConfig,
                                             fromConfig, fromConfig);
      check.what += chosenFor(tuned, key);
      return e;
    }
    if (problem.descriptors && problem.transposeB) {
      auto &tuned =
          autotunedMatmul(matmulDescriptorsTransposedBKernel<T>(problem.precision), device, elementBytes, capability);
      brick::runtime::Error e = tuned.launch(tiles, tunedOptions, a, b, c, m, n, k, fromConfig, fromConfig,
                                             fromConfig, fromConfig);
      check.what += chosenFor(tuned, key);
      return e;
    }
    if (problem.descriptors) {
      auto &tuned = autotunedMatmul(matmulDescriptorsKernel<T>(problem.precision), device, elementBytes, capability);
      brick::runtime::Error e = tuned.launch(tiles, tunedOptions, a, b, c, m, n, k, fromConfig, fromConfig,
                                             fromConfig, fromConfig);
      check.what += chosenFor(tuned, key);
      return e;
    }
    auto &tuned = autotunedMatmul(matmulKernel<T>(problem.precision), device, elementBytes, capability);
    brick::runtime::Error e =
        tuned.launch(tiles, tunedOptions, *da, *db, *dc, m, n, k, problem.transposeA ? 1 : aStride,
                     problem.transposeA ? aStride : 1, problem.transposeB ? 1 : bStride,
                     problem.transposeB ? bStride : 1, cStride, 1, fromConfig, fromConfig, fromConfig, fromConfig);
    check.what += chosenFor(tuned, key);
    return e;
  };
  brick::runtime::Error error = timed(check, [&] {
    if (!problem.config)
      return autotuned();
    if (problem.persistent) {
      using brick::TensorDescriptorArg;
      return matmulPersistentKernel<T>(problem.precision)
          .launch(brick::Grid::persistent(config.programs(m, n)), options,
                  TensorDescriptorArg::of(*da, {m, k}, {aStride, 1}, {config.blockM, config.blockK}),
                  TensorDescriptorArg::of(*db, {k, n}, {bStride, 1}, {config.blockK, config.blockN}),
                  TensorDescriptorArg::of(*dc, {m, n}, {cStride, 1}, {config.blockM, config.blockN}), m, n, k,
                  config.blockM, config.blockN, config.blockK, config.groupM);
    }
    if (problem.descriptors) {
      using brick::TensorDescriptorArg;
      // B stored K x N in BLOCK_K x BLOCK_N blocks, or N x K (transposeB) in BLOCK_N x BLOCK_K blocks.
      TensorDescriptorArg b = problem.transposeB
                                  ? TensorDescriptorArg::of(*db, {n, k}, {bStride, 1}, {config.blockN, config.blockK})
                                  : TensorDescriptorArg::of(*db, {k, n}, {bStride, 1}, {config.blockK, config.blockN});
      auto launch = [&](const auto &kernel) {
        return kernel.launch(brick::Grid{config.programs(m, n)}, options,
                             TensorDescriptorArg::of(*da, {m, k}, {aStride, 1}, {config.blockM, config.blockK}), b,
                             TensorDescriptorArg::of(*dc, {m, n}, {cStride, 1}, {config.blockM, config.blockN}), m, n,
                             k, config.blockM, config.blockN, config.blockK, config.groupM);
      };
      return problem.transposeB ? launch(matmulDescriptorsTransposedBKernel<T>(problem.precision))
                                : launch(matmulDescriptorsKernel<T>(problem.precision));
    }
    return matmulKernel<T>(problem.precision)
        .launch(brick::Grid{config.programs(m, n)}, options, *da, *db, *dc, m, n, k,
                problem.transposeA ? 1 : aStride, problem.transposeA ? aStride : 1,
                problem.transposeB ? 1 : bStride, problem.transposeB ? bStride : 1, cStride, 1, config.blockM,
                config.blockN, config.blockK, config.groupM);
  });
  if (error)
    return check.failure = error.message(), check;
  std::vector<typename Memory<Out>::Stored> c = download<typename Memory<Out>::Stored>(*dc, size_t(m) * cStride, check.failure);

  // Every element against float64, or (for large problems) 4096 random ones and the last row and column.
  std::vector<std::pair<int, int>> elements;
  if (double(m) * n * k <= double(1 << 27)) {
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j)
        elements.emplace_back(i, j);
  } else {
    std::uniform_int_distribution<int> row(0, m - 1), column(0, n - 1);
    for (int s = 0; s < 4096; ++s)
      elements.emplace_back(row(rng()), column(rng()));
    for (int j = 0; j < n; j += std::max(1, n / 256))
      elements.emplace_back(m - 1, j);
    for (int i = 0; i < m; i += std::max(1, m / 256))
      elements.emplace_back(i, n - 1);
  }
  std::vector<double> got, ref;
  for (auto [i, j] : elements) {
    double sum = 0;
    for (int p = 0; p < k; ++p)
      sum += elementA(i, p) * elementB(p, j);
    ref.push_back(sum);
    got.push_back(double(Memory<Out>::to(c[size_t(i) * cStride + j])));
  }
  // Nothing outside C may be written: the padding of each row is still poison (every byte 0xFF; compared as
  // bytes, since as a float the pattern is a NaN and Stored(~0) would be -1.0).
  auto isPoison = [](const auto &value) {
    const unsigned char *bytes = reinterpret_cast<const unsigned char *>(&value);
    return std::all_of(bytes, bytes + sizeof(value), [](unsigned char b) { return b == 0xFF; });
  };
  for (int i = 0; i < m && pad; ++i)
    for (int j = n; j < n + pad; ++j)
      if (!isPoison(c[size_t(i) * cStride + j]))
        check.failure = "the kernel wrote outside C, at row " + std::to_string(i) + " column " + std::to_string(j);
  check.error = relativeError(got, ref);
  return check;
}

template Check runMatmul<brick::f16>(const brick::runtime::Device &, const MatmulProblem &);
template Check runMatmul<brick::bf16>(const brick::runtime::Device &, const MatmulProblem &);
template Check runMatmul<brick::f32>(const brick::runtime::Device &, const MatmulProblem &);
template Check runMatmul<brick::i8>(const brick::runtime::Device &, const MatmulProblem &);

} // namespace examples
