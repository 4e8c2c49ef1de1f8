//===- Autotune.cpp - Compile every config in parallel, time the ones that fit, keep the fastest ---===//

#include "brick/JIT/Autotune.h"

#include "Internal.h"

#include "brick/JIT/Profile.h"
#include "brick/Compiler/Pipeline.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <thread>

namespace brick {

std::string TuningConfig::str() const {
  std::string text = "[";
  for (size_t i = 0; i < constants.size(); ++i) {
    text += i ? ", " : "";
    if (constants[i].isFloat) {
      char number[32];
      std::snprintf(number, sizeof(number), "%g", constants[i].real);
      text += number;
    } else {
      text += std::to_string(constants[i].integer);
    }
  }
  text += "] warps=" + std::to_string(numWarps) + " stages=" + std::to_string(numStages);
  if (warpSpecialize)
    text += " warp-specialized";
  if (clusterSize != 1)
    text += " cluster=" + std::to_string(clusterSize);
  return text;
}

namespace {
std::string keyText(const std::vector<int64_t> &key) {
  std::string text = "[";
  for (size_t i = 0; i < key.size(); ++i)
    text += (i ? ", " : "") + std::to_string(key[i]);
  return text + "]";
}

std::string milliseconds(double ms) {
  char text[32];
  std::snprintf(text, sizeof(text), ms < 1 ? "%.4f ms" : ms < 100 ? "%.3f ms" : "%.1f ms", ms);
  return text;
}
} // namespace

std::string Tuning::str() const {
  std::string text = "key " + keyText(key) + ": ";
  if (how == "reused") {
    text += "reused #" + std::to_string(chosen) + " (nothing timed)";
  } else {
    size_t timed = 0;
    for (const TuningTrial &trial : trials)
      timed += trial.milliseconds >= 0;
    text += "tuned " + std::to_string(trials.size()) + " configs (" + std::to_string(timed) + " timed) in " +
            milliseconds(totalMs) + ": compiling " + milliseconds(compileMs) + " on " +
            std::to_string(compileThreads) + " thread" + (compileThreads == 1 ? "" : "s") + ", timing " +
            milliseconds(timingMs);
  }
  text += "\n";
  for (size_t i = 0; i < trials.size(); ++i) {
    const TuningTrial &trial = trials[i];
    char line[256];
    std::snprintf(line, sizeof(line), "  #%-3zu %-44s ", i, trial.config.str().c_str());
    text += line;
    text += trial.milliseconds >= 0 ? milliseconds(trial.milliseconds) : "skipped: " + trial.skipped;
    if (trial.finalMilliseconds >= 0)
      text += ", finalist: " + milliseconds(trial.finalMilliseconds) + " after cool-downs";
    text += i == chosen ? "  <- chosen\n" : "\n";
  }
  if (!note.empty())
    text += "  " + note + "\n";
  return text;
}

namespace detail {
namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

/// The launch arguments with `config`'s constants in the places the launch marked fromConfig, and descriptors
/// whose blocks the config sizes (kept in `descriptors`, which must outlive the arguments).
struct ConfiguredArgs {
  std::vector<LaunchArg> args;
  std::vector<std::unique_ptr<TensorDescriptorArg>> descriptors;
  LaunchArg *data() { return args.data(); }
  const LaunchArg *data() const { return args.data(); }
};
runtime::Expected<ConfiguredArgs> withConfig(const std::string &name, const LaunchArg *args, size_t count,
                                             const TuningConfig &config, size_t index) {
  ConfiguredArgs configured{std::vector<LaunchArg>(args, args + count), {}};
  std::vector<LaunchArg> &filled = configured.args;
  for (size_t i = 0; i < count; ++i) {
    if (filled[i].kind != LaunchArg::Kind::Descriptor || filled[i].descriptor->blockFromConfig.empty())
      continue;
    auto sized = std::make_unique<TensorDescriptorArg>(*filled[i].descriptor);
    sized->blockShape.clear();
    for (size_t constant : sized->blockFromConfig) {
      if (constant >= config.constants.size() || config.constants[constant].isFloat)
        return runtime::Error("kernel '" + name + "': parameter " + std::to_string(i) +
                              "'s descriptor takes a block dimension from constant " + std::to_string(constant) +
                              " of config #" + std::to_string(index) + " " + config.str() + ", which has no such integer");
      sized->blockShape.push_back(config.constants[constant].integer);
    }
    filled[i].descriptor = sized.get();
    configured.descriptors.push_back(std::move(sized));
  }
  size_t next = 0, wanted = 0;
  for (const LaunchArg &arg : filled)
    wanted += arg.kind == LaunchArg::Kind::FromConfig;
  if (wanted != config.constants.size())
    return runtime::Error("kernel '" + name + "': config #" + std::to_string(index) + " " + config.str() + " gives " +
                          std::to_string(config.constants.size()) + " constants, but the launch leaves " +
                          std::to_string(wanted) + " Const parameters to the config (brick::fromConfig)");
  for (LaunchArg &arg : filled) {
    if (arg.kind != LaunchArg::Kind::FromConfig)
      continue;
    const ConstValue &value = config.constants[next++];
    arg = value.isFloat ? LaunchArg{LaunchArg::Kind::Float, 0, 0, value.real}
                        : LaunchArg{LaunchArg::Kind::Integer, 0, value.integer};
  }
  return configured;
}

LaunchOptions optionsFor(LaunchOptions options, const TuningConfig &config) {
  options.numWarps = config.numWarps;
  options.numStages = config.numStages;
  options.warpSpecialize = config.warpSpecialize;
  options.clusterSize = config.clusterSize;
  return options;
}

/// The values of the key's parameters, bucketed.
runtime::Expected<std::vector<int64_t>> keyValues(const std::string &name, const std::vector<ParamInfo> &params,
                                                  const TuningKey &key, const LaunchArg *args, size_t count) {
  std::vector<int64_t> values;
  for (size_t index : key.params) {
    std::string what = "kernel '" + name + "': the tuning key's parameter " + std::to_string(index);
    if (index >= count)
      return runtime::Error(what + " is not one of the kernel's " + std::to_string(count) + " parameters");
    const LaunchArg &arg = args[index];
    switch (params[index].kind) {
    case ParamKind::Pointer:
      return runtime::Error(what + " is a pointer; a key takes Scalar, Const and TensorDescriptor parameters");
    case ParamKind::TensorDescriptor:
      values.insert(values.end(), arg.descriptor->shape.begin(), arg.descriptor->shape.end());
      break;
    case ParamKind::Scalar:
    case ParamKind::Constant:
      if (arg.kind == LaunchArg::Kind::FromConfig)
        return runtime::Error(what + " is given brick::fromConfig: a value the config chooses cannot also choose the "
                                     "config");
      if (arg.kind == LaunchArg::Kind::Float) {
        int64_t bits;
        std::memcpy(&bits, &arg.real, sizeof(bits));
        values.push_back(bits);
      } else {
        values.push_back(arg.integer);
      }
      break;
    }
  }
  return key.bucket ? key.bucket(std::move(values)) : values;
}

//===--- Memory the trials touch ---------------------------------------------------===//

runtime::Error copyOut(const runtime::Device &device, uint64_t address, void *host, size_t bytes) {
  if (device.isInterpreter()) {
    std::memcpy(host, reinterpret_cast<const void *>(address), bytes);
    return runtime::Error();
  }
  const runtime::Driver &d = device.driver();
  return d.check(d.cuMemcpyDtoH(host, address, bytes), "saving a buffer before tuning");
}
runtime::Error copyIn(const runtime::Device &device, uint64_t address, const void *host, size_t bytes) {
  if (device.isInterpreter()) {
    std::memcpy(reinterpret_cast<void *>(address), host, bytes);
    return runtime::Error();
  }
  const runtime::Driver &d = device.driver();
  return d.check(d.cuMemcpyHtoD(address, host, bytes), "restoring a buffer between trials");
}
runtime::Error zero(const runtime::Device &device, uint64_t address, size_t bytes) {
  if (device.isInterpreter()) {
    std::memset(reinterpret_cast<void *>(address), 0, bytes);
    return runtime::Error();
  }
  const runtime::Driver &d = device.driver();
  return d.check(d.cuMemsetD8(address, 0, bytes), "zeroing a buffer between trials");
}

/// Puts the buffers a trial may change back as the user gave them: resetToZero ones zeroed, restoreValue ones
/// restored from the copies taken before tuning.
struct TrialMemory {
  const runtime::Device &device;
  std::vector<std::pair<uint64_t, size_t>> zeroed;
  std::vector<std::pair<uint64_t, std::vector<char>>> saved;

  static runtime::Expected<TrialMemory> prepare(const runtime::Device &device, const std::string &name,
                                                const std::vector<ParamInfo> &params, const AutotuneOptions &options,
                                                const LaunchArg *args, size_t count) {
    TrialMemory memory{device, {}, {}};
    auto buffer = [&](size_t index, const char *list) -> runtime::Expected<std::pair<uint64_t, size_t>> {
      std::string what = "kernel '" + name + "': AutotuneOptions::" + list + " names parameter " + std::to_string(index);
      if (index >= count || params[index].kind != ParamKind::Pointer)
        return runtime::Error(what + ", which is not a pointer parameter");
      if (args[index].bytes == 0)
        return runtime::Error(what + ", whose size the launch does not know: pass it a runtime::DeviceBuffer");
      return std::make_pair(args[index].pointer, args[index].bytes);
    };
    for (size_t index : options.resetToZero) {
      auto found = buffer(index, "resetToZero");
      if (!found)
        return found.error();
      memory.zeroed.push_back(*found);
    }
    for (size_t index : options.restoreValue) {
      auto found = buffer(index, "restoreValue");
      if (!found)
        return found.error();
      std::vector<char> copy(found->second);
      if (runtime::Error e = copyOut(device, found->first, copy.data(), copy.size()))
        return e;
      memory.saved.emplace_back(found->first, std::move(copy));
    }
    return memory;
  }

  runtime::Error reset() const {
    for (auto [address, bytes] : zeroed)
      if (runtime::Error e = zero(device, address, bytes))
        return e;
    for (const auto &[address, copy] : saved)
      if (runtime::Error e = copyIn(device, address, copy.data(), copy.size()))
        return e;
    return runtime::Error();
  }
};

//===--- The disk entry -------------------------------------------------------------===//

constexpr const char *kEntryHeader = "brick-autotune 1\n";

/// The entry's checksum line closes it: "checksum <fnv1a of everything before>".
std::string withChecksum(const std::string &body) { return body + "checksum " + hex(runtime::fnv1a(body)) + "\n"; }

/// The index an entry chose, or why the entry cannot be used.
runtime::Expected<size_t> readEntry(const std::string &path, const std::vector<TuningConfig> &configs) {
  // An entry is a few lines; a FIFO, a device or a huge file there is an error, not a hang.
  auto file = runtime::readRegularFile(path, size_t(1) << 20);
  if (!file)
    return runtime::Error(file.error().message());
  std::string text = std::move(*file);
  size_t checksumAt = text.rfind("checksum ");
  if (text.rfind(kEntryHeader, 0) != 0 || checksumAt == std::string::npos)
    return runtime::Error("it is not an autotuning entry, or is cut short");
  if (withChecksum(text.substr(0, checksumAt)) != text)
    return runtime::Error("its checksum does not match its contents");
  std::istringstream lines(text.substr(0, checksumAt));
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("chosen ", 0) != 0)
      continue;
    size_t index = 0;
    int consumed = 0;
    if (std::sscanf(line.c_str(), "chosen #%zu %n", &index, &consumed) != 1 || index >= configs.size())
      return runtime::Error("its choice '" + line + "' is not one of the configs");
    if (line.substr(size_t(consumed)) != configs[index].str())
      return runtime::Error("its choice '" + line + "' is not config #" + std::to_string(index) + " " +
                            configs[index].str());
    return index;
  }
  return runtime::Error("it names no choice");
}

/// Writes the entry through a temporary file and a rename: readers see the old entry or the new, whole.
void writeEntry(const std::string &path, const std::string &body) {
  llvm::sys::fs::create_directories(llvm::sys::path::parent_path(path));
  llvm::SmallString<256> temporary;
  int fd = -1;
  if (llvm::sys::fs::createUniqueFile(path + ".tmp-%%%%%%%%", fd, temporary))
    return; // an entry that cannot be written costs a tuning next time, nothing more
  {
    llvm::raw_fd_ostream out(fd, /*shouldClose=*/true);
    out << withChecksum(body);
  }
  if (llvm::sys::fs::rename(temporary, path))
    llvm::sys::fs::remove(temporary);
}

//===--- Compiling configs -----------------------------------------------------------===//

/// One config, compiled for the GPU (a bundle to load) or, on the interpreter, as far as shared-memory
/// allocation for the interpreter's stand-in target (to know whether that GPU could run it).
struct CompiledConfig {
  std::optional<runtime::KernelBundle> bundle;
  unsigned warps = 0, sharedMemory = 0; // what the code needs (warps with any producer warpgroup)
  std::string why, error;
  double ms = 0;
};

CompiledConfig compileForInterpreter(const JitKernel &kernel, const Specialization &spec, const LaunchOptions &options,
                                     const std::string &targetName) {
  CompiledConfig result;
  auto target = GpuTarget::parse(targetName);
  if (!target) {
    result.error = "AutotuneOptions::interpreterTarget: " + llvm::toString(target.takeError());
    return result;
  }
  mlir::DialectRegistry registry;
  registerPipelineDialects(registry);
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  auto module = buildModule(kernel, spec, context);
  if (!module) {
    result.error = module.error().message();
    return result;
  }
  std::string diagnostics;
  mlir::ScopedDiagnosticHandler errors(&context, [&](mlir::Diagnostic &diagnostic) {
    if (diagnostic.getSeverity() == mlir::DiagnosticSeverity::Error)
      diagnostics += (diagnostics.empty() ? "" : "; ") + diagnostic.str();
    return mlir::success();
  });
  CompileOptions compileOptions;
  compileOptions.target = *target;
  compileOptions.numWarps = options.numWarps;
  compileOptions.numStages = options.numStages;
  compileOptions.warpSpecialize = options.warpSpecialize;
  compileOptions.clusterSize = options.clusterSize;
  compileOptions.verifyEachPass = verifyEachPass();
  auto artifacts = compile(**module, compileOptions, Stage::LLVMDialect);
  if (!artifacts) {
    llvm::consumeError(artifacts.takeError());
    result.error = "does not compile for " + targetName + ": " + diagnostics;
    return result;
  }
  result.warps = artifacts->numWarps;
  result.sharedMemory = artifacts->sharedMemory;
  return result;
}

/// Runs `work(i)` for i in [0, count) on `threads` threads (this one among them).
void parallelFor(size_t count, unsigned threads, const std::function<void(size_t)> &work) {
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i; (i = next.fetch_add(1)) < count;)
      work(i);
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t)
    pool.emplace_back(worker);
  worker();
  for (std::thread &thread : pool)
    thread.join();
}

//===--- Timing ------------------------------------------------------------------------===//

/// One timed launch: the trial's buffers put back, the L2 cache flushed, then events around the launch.
runtime::Expected<double> timeOnce(const runtime::Device &device, const TrialMemory &memory,
                                   runtime::DeviceBuffer *flush, const std::function<runtime::Error()> &launch,
                                   const runtime::Stream *stream) {
  if (runtime::Error e = memory.reset())
    return e;
  if (flush)
    if (runtime::Error e = flush->fill(0))
      return e;
  auto start = runtime::Event::create(device), end = runtime::Event::create(device);
  if (!start)
    return start.error();
  if (!end)
    return end.error();
  if (runtime::Error e = start->record(stream))
    return e;
  if (runtime::Error e = launch())
    return e;
  if (runtime::Error e = end->record(stream))
    return e;
  auto ms = end->millisecondsSince(*start);
  if (!ms)
    return ms.error();
  return double(*ms);
}

/// The middle sample (the upper one of an even count), as the reported time of a config.
double median(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

/// One config under timing: how to launch it, and its samples.
struct Contender {
  size_t index;
  std::function<runtime::Error()> launch;
  std::vector<double> samples;
  std::vector<double> finalSamples; // burst medians, for a finalist
  bool failed = false;
};

/// Times the contenders in rounds, one launch of each per round, so that the GPU's clocks and temperature, which
/// drift over a tuning (a hot GPU runs a long matmul several percent slower than a cool one), weigh on every
/// config alike rather than favouring the first: a first launch each (an error drops the config, with the
/// reason in `failures`), warm-up rounds for about warmupMs per config, then timed rounds for about measureMs
/// per config (at least minRepetitions). Each contender's median is its time.
void timeInRounds(const runtime::Device &device, const TrialMemory &memory, runtime::DeviceBuffer *flush,
                  const AutotuneOptions &tuning, const runtime::Stream *stream, std::vector<Contender> &contenders,
                  std::vector<std::pair<size_t, std::string>> &failures) {
  double total = 0;
  std::vector<Contender> running;
  for (Contender &contender : contenders) {
    auto first = timeOnce(device, memory, flush, contender.launch, stream);
    if (!first) {
      failures.emplace_back(contender.index, first.error().message());
      continue;
    }
    total += *first;
    running.push_back(std::move(contender));
  }
  contenders = std::move(running);
  if (contenders.empty())
    return;
  double estimate = std::max(total / double(contenders.size()), 1e-3);
  unsigned warmups = unsigned(std::clamp(tuning.warmupMs / estimate, 0.0, 1000.0));
  unsigned rounds = unsigned(std::clamp(tuning.measureMs / estimate, double(std::max(1u, tuning.minRepetitions)),
                                        std::max(1000.0, double(tuning.minRepetitions))));
  auto fail = [&](Contender &contender, const std::string &message) {
    contender.failed = true;
    failures.emplace_back(contender.index, message);
  };
  for (unsigned round = 0; round < warmups; ++round)
    for (Contender &contender : contenders)
      if (!contender.failed)
        if (runtime::Error e = contender.launch())
          fail(contender, e.message());
  for (unsigned round = 0; round < rounds; ++round)
    for (Contender &contender : contenders) {
      if (contender.failed)
        continue;
      auto ms = timeOnce(device, memory, flush, contender.launch, stream);
      if (ms)
        contender.samples.push_back(*ms);
      else
        fail(contender, ms.error().message());
    }
}

/// Times the leading contenders again away from the power cap (see AutotuneOptions::finalists): in rounds, each
/// finalist gets an idle GPU for coolDownMs, one untimed launch, then a burst of about a millisecond of timed
/// launches whose median is one sample; the median of its samples is its final time. Returns the finalists.
std::vector<Contender *> settleFinalists(const runtime::Device &device, const TrialMemory &memory,
                                         runtime::DeviceBuffer *flush, const AutotuneOptions &tuning,
                                         const runtime::Stream *stream, std::vector<Contender> &contenders,
                                         std::vector<std::pair<size_t, std::string>> &failures) {
  std::vector<Contender *> finalists;
  for (Contender &contender : contenders)
    if (!contender.failed && !contender.samples.empty())
      finalists.push_back(&contender);
  std::stable_sort(finalists.begin(), finalists.end(),
                   [&](Contender *a, Contender *b) { return median(a->samples) < median(b->samples); });
  if (finalists.empty())
    return {};
  double best = median(finalists.front()->samples);
  std::erase_if(finalists, [&](Contender *c) { return median(c->samples) > best * (1 + tuning.finalMargin); });
  if (finalists.size() > tuning.finalists)
    finalists.resize(tuning.finalists);
  if (finalists.size() < 2)
    return {};
  const unsigned rounds = 5;
  unsigned burst = unsigned(std::clamp(1.0 / std::max(best, 1e-3), 3.0, 20.0));
  for (unsigned round = 0; round < rounds; ++round)
    for (size_t f = 0; f < finalists.size(); ++f) {
      Contender &contender = *finalists[(f + round) % finalists.size()];
      if (contender.failed)
        continue;
      if (!device.isInterpreter() && tuning.coolDownMs > 0)
        std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(tuning.coolDownMs));
      std::vector<double> times;
      for (unsigned i = 0; i <= burst && !contender.failed; ++i) {
        auto ms = timeOnce(device, memory, flush, contender.launch, stream);
        if (!ms) {
          contender.failed = true;
          failures.emplace_back(contender.index, ms.error().message());
        } else if (i > 0) { // the first launch after idling wakes the clocks up; it is not timed
          times.push_back(*ms);
        }
      }
      if (!contender.failed)
        contender.finalSamples.push_back(median(times));
    }
  std::erase_if(finalists, [](Contender *c) { return c->failed; });
  return finalists;
}

/// Erases from the memory cache the entries tuning added, but `keep`.
void forgetTrials(JitState &state, const std::vector<std::vector<int64_t>> &added, const std::vector<int64_t> &keep) {
  std::lock_guard<std::mutex> lock(state.mutex);
  std::erase_if(state.compiled, [&](const auto &entry) {
    return entry.first != keep && std::find(added.begin(), added.end(), entry.first) != added.end();
  });
}

} // namespace

runtime::Error autotunedLaunch(TunerState &tuner, const std::string &name, const std::vector<ParamInfo> &params,
                               JitState &state, const std::function<JitKernel()> &describe,
                               const std::function<Grid(const TuningConfig &)> &grid, const LaunchOptions &options,
                               const LaunchArg *args, size_t count) {
  if (count != params.size())
    return runtime::Error("kernel '" + name + "' takes " + std::to_string(params.size()) +
                          " arguments, the launch passes " + std::to_string(count));
  if (tuner.configs.empty())
    return runtime::Error("kernel '" + name + "': the autotuner was given no configs");
  runtime::Expected<const runtime::Device *> opened = launchDevice(options);
  if (!opened)
    return runtime::Error("kernel '" + name + "': " + opened.error().message());
  const runtime::Device &device = **opened;
  auto values = keyValues(name, params, tuner.key, args, count);
  if (!values)
    return values.error();
  std::vector<int64_t> fullKey = *values;
  fullKey.push_back(device.isInterpreter() ? 0 : device.computeCapability());
  fullKey.push_back(options.targetCapability);

  auto launchWith = [&](size_t index) -> runtime::Error {
    const TuningConfig &config = tuner.configs[index];
    auto filled = withConfig(name, args, count, config, index);
    if (!filled)
      return filled.error();
    return launch(name, params, state, describe, grid(config), optionsFor(options, config), filled->data(), count);
  };

  std::lock_guard<std::mutex> lock(tuner.mutex);
  for (const auto &[key, index] : tuner.chosen)
    if (key == fullKey)
      return launchWith(index);

  // A first launch with this key. Every config must fill the launch's fromConfig places.
  auto start = Clock::now();
  const std::vector<TuningConfig> &configs = tuner.configs;
  const AutotuneOptions &tuning = tuner.options;
  size_t n = configs.size();
  std::vector<ConfiguredArgs> filled;
  for (size_t i = 0; i < n; ++i) {
    auto withConstants = withConfig(name, args, count, configs[i], i);
    if (!withConstants)
      return withConstants.error();
    filled.push_back(std::move(*withConstants));
  }
  JitKernel kernel = describe();
  bool interpreter = device.isInterpreter();
  int capability = interpreter ? 0 : device.computeCapability();
  std::string deviceTarget = "sm_" + std::to_string(capability) + (capability >= 90 ? "a" : "");
  std::string deviceName = interpreter ? "the CPU interpreter" : device.name() + " (" + deviceTarget + ")";

  Tuning record;
  record.key = *values;
  auto finish = [&](Tuning &done) {
    done.totalMs = since(start);
    tuner.chosen.emplace_back(fullKey, done.chosen);
    std::string line = name + " autotune key " + keyText(done.key) + ": ";
    if (done.how == "reused")
      line += "reused the stored choice #" + std::to_string(done.chosen) + " " + configs[done.chosen].str();
    else
      line += "tuned " + std::to_string(n) + " configs in " + milliseconds(done.totalMs) + ", chose #" +
              std::to_string(done.chosen) + " " + configs[done.chosen].str();
    {
      std::lock_guard<std::mutex> logLock(state.mutex);
      state.log.push_back(line);
    }
    if (const char *verbose = std::getenv("BRICK_AUTOTUNE_VERBOSE"); verbose && std::string(verbose) == "1")
      std::fprintf(stderr, "autotune %s %s", name.c_str(), done.str().c_str());
    tuner.tunings.push_back(done);
  };

  // The disk entry, named by what the choice depends on: the kernel's IR (config #0 with this launch's
  // specialization), the configs, the key, the device and the compiler.
  std::string entryPath;
  if (tuning.persist) {
    mlir::DialectRegistry registry;
    registerPipelineDialects(registry);
    mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
    std::string ir;
    auto module = buildModule(kernel, specializationFor(kernel.params, filled[0].args), context, &ir);
    if (!module)
      return module.error();
    std::string identity = ir + "\n";
    for (const TuningConfig &config : configs)
      identity += config.str() + "\n";
    identity += keyText(*values) + "\n" + deviceName + "\ntarget " + std::to_string(options.targetCapability) +
                "\n" + compilerId();
    entryPath = cacheDirectory() + "/autotune/" + name + "-" + hex(runtime::fnv1a(identity)) + ".tune";
    if (llvm::sys::fs::exists(entryPath)) {
      auto stored = readEntry(entryPath, configs);
      if (stored) {
        record.how = "reused";
        record.chosen = *stored;
        record.note = "read from " + entryPath;
        finish(record);
        return launchWith(*stored);
      }
      record.note = "the entry at " + entryPath + " was unusable (" + stored.error().message() + ") and is tuned again; ";
    }
  }
  record.how = "tuned";
  for (const TuningConfig &config : configs)
    record.trials.push_back(TuningTrial{config});
  auto skip = [&](size_t i, std::string why) {
    std::replace(why.begin(), why.end(), '\n', ' ');
    record.trials[i].skipped = why;
  };
  auto active = [&](size_t i) { return record.trials[i].skipped.empty(); };

  // What can be ruled out before compiling: configs the prune function drops, impossible launches.
  if (tuning.prune) {
    std::vector<TuningConfig> kept = tuning.prune(configs, *values);
    for (size_t i = 0; i < n; ++i)
      if (std::find(kept.begin(), kept.end(), configs[i]) == kept.end())
        skip(i, "pruned by AutotuneOptions::prune");
  }
  for (size_t i = 0; i < n; ++i) {
    const TuningConfig &config = configs[i];
    if (!active(i))
      continue;
    if (config.numWarps < 1 || config.numWarps > 32 || (config.numWarps & (config.numWarps - 1)))
      skip(i, "numWarps must be a power of two from 1 to 32 (a block has at most 1024 threads)");
    else if (config.numStages < 1 || config.numStages > 8)
      skip(i, "numStages must be from 1 to 8");
    else if (!runtime::Function::isClusterSize(config.clusterSize))
      skip(i, "clusterSize must be 1, 2, 4 or 8");
    else if (Grid g = grid(config); !g.oneWave && g.x % config.clusterSize)
      skip(i, "the grid's x (" + std::to_string(g.x) + ") is not a whole number of clusters of " +
                  std::to_string(config.clusterSize));
    else if (runtime::Error invalid = validateArguments(name, params, filled[i].data(), count))
      skip(i, invalid.message());
  }

  // Compile the rest, in parallel.
  auto compileStart = Clock::now();
  std::vector<size_t> toCompile;
  for (size_t i = 0; i < n; ++i)
    if (active(i))
      toCompile.push_back(i);
  unsigned threads = tuning.compileThreads ? tuning.compileThreads : std::max(1u, std::thread::hardware_concurrency());
  threads = unsigned(std::max<size_t>(1, std::min<size_t>(threads, toCompile.size())));
  std::vector<CompiledConfig> compiled(n);
  parallelFor(toCompile.size(), threads, [&](size_t j) {
    size_t i = toCompile[j];
    auto compileOne = Clock::now();
    Specialization spec = specializationFor(kernel.params, filled[i].args);
    LaunchOptions configOptions = optionsFor(options, configs[i]);
    if (interpreter) {
      if (!tuning.interpreterTarget.empty())
        compiled[i] = compileForInterpreter(kernel, spec, configOptions, tuning.interpreterTarget);
    } else {
      std::string why;
      auto bundle = compileSpecialization(kernel, spec, configOptions, deviceTarget, &why);
      if (bundle)
        compiled[i].bundle = std::move(*bundle);
      else
        compiled[i].error = bundle.error().message();
      compiled[i].why = why;
    }
    compiled[i].ms = since(compileOne);
  });
  record.compileMs = since(compileStart);
  record.compileThreads = threads;

  // Drop what the device cannot run; load the rest into the memory cache, where the timed launches find them.
  std::vector<std::vector<int64_t>> added;
  auto keyOf = [&](size_t i) {
    llvm::SmallVector<int64_t, 24> key;
    compactKey(params, filled[i].data(), optionsFor(options, configs[i]), interpreter ? nullptr : &device, key);
    return std::vector<int64_t>(key.begin(), key.end());
  };
  for (size_t i : toCompile) {
    const CompiledConfig &result = compiled[i];
    if (!result.error.empty()) {
      skip(i, result.error);
      continue;
    }
    if (interpreter) {
      if (tuning.interpreterTarget.empty())
        continue;
      unsigned limit = GpuTarget::parse(tuning.interpreterTarget)->maxSharedMemory();
      if (result.sharedMemory > limit)
        skip(i, "needs " + std::to_string(result.sharedMemory) + " bytes of shared memory, more than the " +
                    std::to_string(limit) + " a block can have on " + tuning.interpreterTarget);
      else if (result.warps * 32 > 1024)
        skip(i, "needs " + std::to_string(result.warps * 32) + " threads; a block has at most 1024");
      continue;
    }
    auto loaded = runtime::LoadedKernel::load(device, *result.bundle);
    if (!loaded) {
      skip(i, "does not load: " + loaded.error().message());
      continue;
    }
    const runtime::FunctionAttributes &attributes = loaded->function().attributes();
    unsigned threadsPerBlock = result.bundle->numWarps * 32;
    int shared = attributes.staticSharedMemory + int(result.bundle->sharedMemory);
    if (shared > device.maxSharedMemoryPerBlock()) {
      skip(i, "needs " + std::to_string(shared) + " bytes of shared memory, more than the " +
                  std::to_string(device.maxSharedMemoryPerBlock()) + " a block can have on " + device.name());
      continue;
    }
    if (int(threadsPerBlock) > attributes.maxThreadsPerBlock) {
      skip(i, "needs " + std::to_string(threadsPerBlock) + " threads, but with " + std::to_string(attributes.registers) +
                  " registers per thread a block can have at most " + std::to_string(attributes.maxThreadsPerBlock));
      continue;
    }
    std::vector<int64_t> key = keyOf(i);
    std::lock_guard<std::mutex> cacheLock(state.mutex);
    if (findCompiled(state, key))
      continue;
    added.push_back(key);
    remember(state, key, std::make_shared<runtime::LoadedKernel>(std::move(*loaded)), kernel,
             specializationFor(kernel.params, filled[i].args), optionsFor(options, configs[i]), deviceTarget,
             result.why + " (for autotuning)",
             Clock::now() - std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double, std::milli>(result.ms)));
  }

  // Time what is left.
  auto timingStart = Clock::now();
  std::optional<runtime::DeviceBuffer> flush;
  if (!interpreter && device.l2CacheBytes() > 0) {
    auto buffer = runtime::DeviceBuffer::allocate(device, size_t(device.l2CacheBytes()) * 2);
    if (!buffer)
      return runtime::Error("kernel '" + name + "': allocating the buffer that flushes L2 between trials: " +
                            buffer.error().message());
    flush = std::move(*buffer);
  }
  auto memory = TrialMemory::prepare(device, name, params, tuning, args, count);
  if (!memory)
    return memory.error();
  std::vector<Contender> contenders;
  for (size_t i = 0; i < n; ++i) {
    if (!active(i))
      continue;
    LaunchOptions configOptions = optionsFor(options, configs[i]);
    if (interpreter) {
      std::vector<int64_t> key = keyOf(i);
      std::lock_guard<std::mutex> cacheLock(state.mutex);
      if (!findCompiled(state, key))
        added.push_back(key);
    }
    contenders.push_back({i, [&, i, configOptions] {
                            return launch(name, params, state, describe, grid(configs[i]), configOptions,
                                          filled[i].data(), count);
                          }, {}});
  }
  std::vector<std::pair<size_t, std::string>> failures;
  std::vector<Contender *> finalists;
  {
    profile::Pause trials; // a profile shows the launches the program makes, not the tuner's trials
    timeInRounds(device, *memory, flush ? &*flush : nullptr, tuning, options.stream, contenders, failures);
    finalists = settleFinalists(device, *memory, flush ? &*flush : nullptr, tuning, options.stream, contenders, failures);
  }
  for (const auto &[index, message] : failures)
    skip(index, "failed at launch: " + message);
  for (Contender &contender : contenders) {
    if (contender.failed || contender.samples.empty())
      continue;
    record.trials[contender.index].milliseconds = median(contender.samples);
    if (!contender.finalSamples.empty())
      record.trials[contender.index].finalMilliseconds = median(contender.finalSamples);
  }
  record.timingMs = since(timingStart);
  if (runtime::Error e = memory->reset()) // the launch itself sees the buffers as they were given
    return e;

  // The fastest finalist after cool-downs; without finalists, the fastest median.
  std::optional<size_t> best;
  for (Contender *finalist : finalists) {
    const TuningTrial &trial = record.trials[finalist->index];
    if (!best || trial.finalMilliseconds < record.trials[*best].finalMilliseconds)
      best = finalist->index;
  }
  if (!best)
    for (size_t i = 0; i < n; ++i)
      if (record.trials[i].milliseconds >= 0 &&
          (!best || record.trials[i].milliseconds < record.trials[*best].milliseconds))
        best = i;
  if (!best) {
    forgetTrials(state, added, {});
    std::string reasons;
    for (size_t i = 0; i < n; ++i)
      reasons += "\n  #" + std::to_string(i) + " " + configs[i].str() + ": " + record.trials[i].skipped;
    return runtime::Error("kernel '" + name + "': no config could run for key " + keyText(*values) + ":" + reasons);
  }
  record.chosen = *best;
  forgetTrials(state, added, keyOf(*best));

  if (tuning.persist) {
    std::string body = std::string(kEntryHeader) + "kernel " + name + "\nkey " + keyText(*values) + "\ndevice " +
                       deviceName + "\nchosen #" + std::to_string(*best) + " " + configs[*best].str() + "\n";
    for (size_t i = 0; i < n; ++i)
      body += "trial #" + std::to_string(i) + " " + configs[i].str() + ": " +
              (record.trials[i].milliseconds >= 0 ? milliseconds(record.trials[i].milliseconds)
                                                  : "skipped: " + record.trials[i].skipped) +
              (record.trials[i].finalMilliseconds >= 0
                   ? ", finalist: " + milliseconds(record.trials[i].finalMilliseconds) + " after cool-downs"
                   : "") +
              "\n";
    writeEntry(entryPath, body);
    record.note += "stored at " + entryPath;
  }
  finish(record);
  return launchWith(*best);
}

std::string tuningReport(const std::string &name, TunerState &tuner) {
  std::lock_guard<std::mutex> lock(tuner.mutex);
  std::string text = "autotune " + name + ": " + std::to_string(tuner.configs.size()) + " configs, " +
                     std::to_string(tuner.tunings.size()) + " tuning" + (tuner.tunings.size() == 1 ? "" : "s") + "\n";
  for (const Tuning &tuning : tuner.tunings)
    text += tuning.str();
  return text;
}

} // namespace detail
} // namespace brick
