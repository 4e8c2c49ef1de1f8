//===- Autotune.h - The fastest config per key: chosen once, remembered on disk -------===//
//
//   auto matmul = brick::autotune(examples::matmul<f16>(),
//                                 {{{128, 128, 32, 8}, 4, 4},   // the Const values the launch leaves to the
//                                  {{256, 128, 64, 8}, 8, 4}},  // config, then warps and stages
//                                 brick::TuningKey{{3, 4, 5}}); // parameters 3, 4, 5 (M, N, K) select a tuning
//   auto grid = [&](const TuningConfig &c) { return Grid{unsigned(cdiv(M, c.get(0)) * cdiv(N, c.get(1)))}; };
//   matmul.launch(grid, {}, a, b, c, M, N, K, K, 1, N, 1, N, 1, fromConfig, fromConfig, fromConfig, fromConfig);
//
// The first launch with a new key (the values of the key's parameters, bucketed by TuningKey::bucket when given)
// compiles every config on a thread pool, drops those the device cannot run (too many threads, more shared
// memory or registers than a block may have, a compile error) with the reason, times the rest with device events
// (warm-up, then the median of repeated launches, L2 flushed before each), and launches the fastest. The choice
// is kept in memory and under $BRICK_CACHE_DIR/autotune/ (keyed by the kernel's IR, the key, the device and the
// compiler), so a later process launches it without timing anything; a damaged entry is tuned again.
//
// On the CPU interpreter the same code runs: configs are compiled as far as shared-memory allocation for
// AutotuneOptions::interpreterTarget (so a config too big for that GPU is skipped the same way) and timed with
// host time. `tuningReport()` lists every tuning; BRICK_AUTOTUNE_VERBOSE=1 prints each as it happens.
//
// Configs are compiled on several threads: the kernel's C++ body must not write shared state while it builds.
//
//===----------------------------------------------------------------------===//
#ifndef BRICK_JIT_AUTOTUNE_H
#define BRICK_JIT_AUTOTUNE_H

#include "brick/JIT/JIT.h"

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

namespace brick {

/// A value for one Const parameter.
struct ConstValue {
  template <class T> requires std::is_arithmetic_v<T>
  ConstValue(T value)
      : isFloat(std::is_floating_point_v<T>), integer(std::is_floating_point_v<T> ? 0 : int64_t(value)),
        real(double(value)) {}
  bool isFloat;
  int64_t integer;
  double real;
  bool operator==(const ConstValue &) const = default;
};

/// One point of the search: the values of the Const parameters a launch passes as `fromConfig` (in order), and
/// the launch options it sets.
struct TuningConfig {
  std::vector<ConstValue> constants;
  unsigned numWarps = 4;
  unsigned numStages = 3;
  bool warpSpecialize = false;
  /// LaunchOptions::clusterSize: programs per thread block cluster (1, 2, 4 or 8); the grid a launch computes
  /// for this config must come in whole clusters.
  unsigned clusterSize = 1;

  /// constants[i] as an integer (grids are computed from tile sizes).
  int64_t get(size_t i) const { return constants.at(i).isFloat ? int64_t(constants[i].real) : constants[i].integer; }
  /// "[128, 128, 32, 8] warps=4 stages=4" (" warp-specialized", " cluster=2" when set): also how the disk entry
  /// names it.
  std::string str() const;
  bool operator==(const TuningConfig &) const = default;
};

/// Which launch arguments select a tuning: parameter indices (Scalar or Const parameters: their value; a
/// TensorDescriptor: its shape). `bucket`, when set, maps those values to the key actually used (e.g. rounding
/// a token count up to a power of two) so that nearby shapes share one tuning.
struct TuningKey {
  std::vector<size_t> params;
  std::function<std::vector<int64_t>(std::vector<int64_t>)> bucket;
};

struct AutotuneOptions {
  /// Narrows the configs for a key before anything is compiled (as Triton's prune_configs_by): returns the
  /// configs worth trying; those it drops are reported as pruned.
  std::function<std::vector<TuningConfig>(const std::vector<TuningConfig> &, const std::vector<int64_t> &key)> prune;
  /// Pointer parameters (given DeviceBuffers) zeroed before every timed launch, for kernels that accumulate
  /// into their outputs.
  std::vector<size_t> resetToZero;
  /// Pointer parameters (given DeviceBuffers) whose contents are saved before tuning and put back after every
  /// timed launch, for kernels that update their inputs in place.
  std::vector<size_t> restoreValue;
  /// Threads that compile configs: 0 for one per hardware thread (at most one per config), 1 for serial.
  unsigned compileThreads = 0;
  /// Per config, as Triton's do_bench: launches for about warmupMs, then about measureMs of timed launches
  /// (at least minRepetitions), the median reported.
  double warmupMs = 25, measureMs = 100;
  unsigned minRepetitions = 5;
  /// Near-ties are settled away from the power cap. Back-to-back tensor-core launches hold an H100 at its power
  /// limit, where configs far apart in short bursts time alike (docs/performance.md, "The autotuner"); so the
  /// leading configs (at most `finalists`, each within finalMargin of the best median) are timed again, in short
  /// bursts that each follow coolDownMs of idle GPU, and the median of their burst times decides. 0 or 1
  /// finalists: the medians decide.
  /// (The interpreter times the bursts without idling: the host has no power cap to recover from.)
  unsigned finalists = 4;
  double finalMargin = 0.05;
  double coolDownMs = 20;
  /// On the interpreter: the GPU whose shared-memory limit configs are checked against ("" for none).
  std::string interpreterTarget = "sm_90a";
  /// Keep choices under $BRICK_CACHE_DIR/autotune/ and reuse them across processes.
  bool persist = true;
};

/// One config's fate in one tuning.
struct TuningTrial {
  TuningConfig config;
  double milliseconds = -1;      // the median time of the timed rounds; -1 when it was not timed
  double finalMilliseconds = -1; // a finalist's median burst time after cool-downs; -1 for the others
  std::string skipped;      // why it was not timed (empty when it was)
};

/// One tuning (or reuse of a stored one) for one key.
struct Tuning {
  std::vector<int64_t> key;
  /// "tuned", or "reused" (the disk entry's choice, nothing timed).
  std::string how;
  size_t chosen = 0;               // index into the configs
  std::vector<TuningTrial> trials; // every config, in order (empty when reused)
  double compileMs = 0, timingMs = 0, totalMs = 0;
  unsigned compileThreads = 0;
  std::string note; // where the choice was stored or read, and any damage found there
  std::string str() const;
};

namespace detail {
/// What an autotuned kernel keeps (shared by copies of it).
struct TunerState {
  std::mutex mutex;
  std::vector<TuningConfig> configs;
  TuningKey key;
  AutotuneOptions options;
  std::vector<std::pair<std::vector<int64_t>, size_t>> chosen; // full key (with the device) -> config index
  std::vector<Tuning> tunings;
};

runtime::Error autotunedLaunch(TunerState &tuner, const std::string &name, const std::vector<ParamInfo> &params,
                               JitState &state, const std::function<JitKernel()> &describe,
                               const std::function<Grid(const TuningConfig &)> &grid, const LaunchOptions &options,
                               const LaunchArg *args, size_t count);
std::string tuningReport(const std::string &name, TunerState &tuner);
} // namespace detail

/// A kernel launched through the autotuner. Cheap to copy; copies share their choices.
template <class F> class Autotuned {
public:
  Autotuned(Kernel<F> kernel, std::vector<TuningConfig> configs, TuningKey key, AutotuneOptions options = {})
      : kernel_(std::move(kernel)), tuner_(std::make_shared<detail::TunerState>()) {
    tuner_->configs = std::move(configs);
    tuner_->key = std::move(key);
    tuner_->options = std::move(options);
  }

  /// Launches with the config chosen for this launch's key (tuning first when there is none): `args` are the
  /// kernel's, with `fromConfig` for each Const parameter the configs give; `grid` is computed per config.
  template <class... A>
  runtime::Error launch(const std::function<Grid(const TuningConfig &)> &grid, LaunchOptions options,
                        A &&...args) const {
    static_assert(sizeof...(A) == Kernel<F>::arity,
                  "the launch passes a different number of arguments than the kernel has parameters");
    using Params = typename Kernel<F>::Params;
    std::array<detail::LaunchArg, Kernel<F>::arity> converted = [&]<size_t... I>(std::index_sequence<I...>) {
      return std::array<detail::LaunchArg, Kernel<F>::arity>{
          detail::toLaunchArg<std::tuple_element_t<I, Params>>(std::forward<A>(args))...};
    }(std::make_index_sequence<Kernel<F>::arity>{});
    static const std::vector<detail::ParamInfo> parameters = Kernel<F>::params();
    const Kernel<F> &kernel = kernel_;
    auto describe = [&kernel] {
      return detail::JitKernel{kernel.name(), Kernel<F>::params(),
                               [&kernel](mlir::MLIRContext *context, const Specialization &spec,
                                         const std::function<void(mlir::Operation *)> &run) {
                                 return kernel.build(context, spec, run);
                               },
                               &kernel.jitState()};
    };
    return detail::autotunedLaunch(*tuner_, kernel_.name(), parameters, kernel_.jitState(), describe, grid, options,
                                   converted.data(), converted.size());
  }
  template <class... A> runtime::Error launch(Grid grid, LaunchOptions options, A &&...args) const {
    return launch([grid](const TuningConfig &) { return grid; }, options, std::forward<A>(args)...);
  }

  /// Every tuning so far: each config with its time or why it was skipped, and the choice.
  std::string tuningReport() const { return detail::tuningReport(kernel_.name(), *tuner_); }
  std::vector<Tuning> tunings() const {
    std::lock_guard<std::mutex> lock(tuner_->mutex);
    return tuner_->tunings;
  }
  const std::vector<TuningConfig> &configs() const { return tuner_->configs; }
  const Kernel<F> &kernel() const { return kernel_; }

private:
  Kernel<F> kernel_;
  std::shared_ptr<detail::TunerState> tuner_;
};

template <class F>
Autotuned<F> autotune(Kernel<F> kernel, std::vector<TuningConfig> configs, TuningKey key, AutotuneOptions options = {}) {
  return Autotuned<F>(std::move(kernel), std::move(configs), std::move(key), std::move(options));
}

} // namespace brick

#endif // BRICK_JIT_AUTOTUNE_H
