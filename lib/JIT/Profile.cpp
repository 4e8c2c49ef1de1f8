//===- Profile.cpp - Timing and counting launches against the device's peaks ----------===//

#include "brick/JIT/Profile.h"

#include "Internal.h"

#include "brick/Compiler/Pipeline.h"
#include "brick/JIT/Compile.h"
#include "brick/Interpreter/Interpreter.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>

namespace brick::profile {

namespace {

/// The brick IR of one specialization, kept to count its launches with new arguments.
struct CountedKernel {
  std::unique_ptr<detail::InterpretedKernel> ir;
  std::string specialization;
  std::string signature;
};

struct Group {
  Record record;
  std::vector<double> samples;
  std::vector<std::pair<runtime::Event, runtime::Event>> pending;
};

enum class AtExit { Nothing, Table, Json };

struct Profiler {
  std::mutex mutex;
  std::atomic<bool> on{false};
  AtExit atExit = AtExit::Nothing;
  bool atExitRegistered = false;
  std::map<std::string, std::shared_ptr<CountedKernel>> kernels;
  std::map<std::string, size_t> groupIndex;
  std::vector<std::unique_ptr<Group>> groups;
  std::map<const runtime::Device *, Peaks> peaks;
};

/// Never destroyed: the report at exit reads it after other statics may be gone.
Profiler &profiler() {
  static Profiler *instance = [] {
    auto *made = new Profiler;
    if (const char *mode = std::getenv("BRICK_PROFILE"); mode && *mode && std::string(mode) != "0") {
      made->on = true;
      made->atExit = std::string(mode) == "json" ? AtExit::Json : AtExit::Table;
    }
    return made;
  }();
  return *instance;
}

thread_local int paused = 0;

void printAtExit() {
  Profiler &p = profiler();
  std::vector<Record> all = records();
  std::string text = p.atExit == AtExit::Json ? json(all) : table(all);
  std::fputs(text.c_str(), stderr);
}

/// The driver reports clocks and the bus, not what the tensor cores do per clock: these are NVIDIA's dense
/// rates per SM per clock (A100 and H100 whitepapers), for the architectures Brick generates tensor-core code
/// for. Other devices get the memory peak only.
Peaks peaksOf(const runtime::Device &device) {
  Peaks peaks;
  if (device.isInterpreter()) {
    peaks.device = "the CPU interpreter";
    return peaks;
  }
  peaks.device = device.name();
  peaks.dramBytesPerSecond = 2.0 * double(device.memoryClockKHz()) * 1e3 * double(device.memoryBusWidthBits()) / 8;
  double perClock = double(device.multiprocessors()) * double(device.clockKHz()) * 1e3;
  auto set = [&](double f16, double f8, double tf32, double i8, double fma) {
    peaks.dotFlopsPerSecond[int(DotKind::F16)] = f16 * perClock;
    peaks.dotFlopsPerSecond[int(DotKind::F8)] = f8 * perClock;
    peaks.dotFlopsPerSecond[int(DotKind::TF32)] = tf32 * perClock;
    peaks.dotFlopsPerSecond[int(DotKind::I8)] = i8 * perClock;
    peaks.dotFlopsPerSecond[int(DotKind::F32)] = fma * perClock;
    peaks.otherFlopsPerSecond = fma * perClock;
  };
  int capability = device.computeCapability();
  if (capability == 90)
    set(4096, 8192, 2048, 8192, 256);
  else if (capability == 80)
    set(2048, 0, 1024, 4096, 128);
  return peaks;
}

/// Resolves the oldest `count` pending timings of a group (waits for them).
void resolve(Group &group, size_t count) {
  count = std::min(count, group.pending.size());
  for (size_t i = 0; i < count; ++i) {
    auto &[start, stop] = group.pending[i];
    if (auto ms = stop.millisecondsSince(start))
      group.samples.push_back(*ms);
  }
  group.pending.erase(group.pending.begin(), group.pending.begin() + long(count));
}

std::string number(double value, int decimals) {
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format(("%." + std::to_string(decimals) + "f").c_str(), value);
  return text;
}

/// `value` in the largest of the units (1e12 T, 1e9 G, 1e6 M, 1e3 K) it reaches, with three significant digits.
std::string scaled(double value, const char *unit) {
  static const std::pair<double, const char *> prefixes[] = {{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "K"}};
  for (auto [scale, prefix] : prefixes)
    if (value >= scale)
      return number(value / scale, value / scale >= 100 ? 0 : value / scale >= 10 ? 1 : 2) + " " + prefix + unit;
  return number(value, 0) + " " + unit;
}

std::string bytesText(double bytes) { return scaled(bytes, "B"); }

std::string percent(double share) { return number(100 * share, 0) + "%"; }

std::string quoted(const std::string &text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\', out += c;
    else if (static_cast<unsigned char>(c) < 0x20)
      out += "\\u00" + std::string(1, "0123456789abcdef"[c >> 4]) + "0123456789abcdef"[c & 15];
    else
      out += c;
  }
  return out + "\"";
}

std::string jsonNumber(double value) {
  if (!std::isfinite(value))
    return "null";
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%.6g", value);
  return text;
}

} // namespace

void enable(bool on) { profiler().on = on; }
bool enabled() { return profiler().on.load(std::memory_order_relaxed); }

Pause::Pause() { ++paused; }
Pause::~Pause() { --paused; }

double Record::flops() const {
  double total = otherFlops;
  for (double f : dotFlops)
    total += f;
  return total;
}

double Record::achievedBytesPerSecond() const { return medianMs > 0 ? dramBytes / (medianMs * 1e-3) : 0; }
double Record::achievedFlopsPerSecond() const { return medianMs > 0 ? flops() / (medianMs * 1e-3) : 0; }

double Record::memoryShare() const {
  return peaks.dramBytesPerSecond > 0 && medianMs > 0 ? dramBytes / peaks.dramBytesPerSecond / (medianMs * 1e-3) : 0;
}

double Record::computeShare() const {
  if (medianMs <= 0)
    return 0;
  double seconds = 0;
  for (int kind = 0; kind < kDotKinds; ++kind)
    if (dotFlops[kind] > 0) {
      if (peaks.dotFlopsPerSecond[kind] <= 0)
        return 0;
      seconds += dotFlops[kind] / peaks.dotFlopsPerSecond[kind];
    }
  if (otherFlops > 0) {
    if (peaks.otherFlopsPerSecond <= 0)
      return 0;
    seconds += otherFlops / peaks.otherFlopsPerSecond;
  }
  return seconds / (medianMs * 1e-3);
}

std::string Record::bound() const {
  if (peaks.dramBytesPerSecond <= 0)
    return "unknown";
  double memory = memoryShare(), compute = computeShare();
  if (std::max(memory, compute) < 0.2)
    return "latency";
  return memory >= compute ? "memory" : "compute";
}

std::vector<Record> records() {
  Profiler &p = profiler();
  std::lock_guard<std::mutex> lock(p.mutex);
  std::vector<Record> out;
  for (auto &group : p.groups) {
    resolve(*group, group->pending.size());
    Record record = group->record;
    std::vector<double> samples = group->samples;
    record.totalMs = 0;
    for (double ms : samples)
      record.totalMs += ms;
    if (!samples.empty()) {
      std::sort(samples.begin(), samples.end());
      record.medianMs = samples[samples.size() / 2];
    }
    out.push_back(std::move(record));
  }
  return out;
}

void reset() {
  Profiler &p = profiler();
  std::lock_guard<std::mutex> lock(p.mutex);
  p.groups.clear();
  p.groupIndex.clear();
  p.kernels.clear();
}

std::string table(const std::vector<Record> &records) {
  std::string out;
  llvm::raw_string_ostream os(out);
  std::string device;
  for (const Record &r : records) {
    if (r.peaks.device != device) {
      device = r.peaks.device;
      os << "brick profile on " << device;
      if (r.peaks.dramBytesPerSecond > 0) {
        os << " (peaks: " << scaled(r.peaks.dramBytesPerSecond, "B/s");
        for (int kind = 0; kind < kDotKinds; ++kind)
          if (r.peaks.dotFlopsPerSecond[kind] > 0)
            os << ", " << mlir::brick::dotKindName(DotKind(kind)) << " "
               << scaled(r.peaks.dotFlopsPerSecond[kind], "FLOP/s");
        os << ")";
      }
      os << "\n";
    }
    os << "  " << r.kernel << " " << r.specialization << ", grid " << r.grid[0] << "x" << r.grid[1] << "x" << r.grid[2]
       << ": " << r.launches << (r.launches == 1 ? " launch" : " launches") << ", median "
       << number(r.medianMs, 4) << " ms\n";
    os << "    " << (r.exact ? "" : "~") << bytesText(r.readBytes) << " read, " << bytesText(r.writtenBytes)
       << " written, " << bytesText(r.dramBytes) << " of device memory: " << scaled(r.achievedBytesPerSecond(), "B/s");
    if (r.peaks.dramBytesPerSecond > 0)
      os << " (" << percent(r.memoryShare()) << ")";
    os << "; " << scaled(r.flops(), "FLOP") << ": " << scaled(r.achievedFlopsPerSecond(), "FLOP/s");
    if (r.computeShare() > 0)
      os << " (" << percent(r.computeShare()) << ")";
    os << "; " << r.bound() << (r.bound() == "memory" || r.bound() == "compute" ? "-bound" : "") << "\n";
    if (!r.exact)
      os << "    ~ approximate: " << r.inexact << "\n";
  }
  return out;
}

std::string json(const std::vector<Record> &records) {
  std::string out = "{\"records\": [";
  for (size_t i = 0; i < records.size(); ++i) {
    const Record &r = records[i];
    out += i ? ",\n  {" : "\n  {";
    out += "\"kernel\": " + quoted(r.kernel) + ", \"signature\": " + quoted(r.signature) +
           ", \"specialization\": " + quoted(r.specialization);
    out += ", \"grid\": [" + std::to_string(r.grid[0]) + ", " + std::to_string(r.grid[1]) + ", " +
           std::to_string(r.grid[2]) + "]";
    out += ", \"launches\": " + std::to_string(r.launches) + ", \"median_ms\": " + jsonNumber(r.medianMs) +
           ", \"total_ms\": " + jsonNumber(r.totalMs);
    out += ", \"read_bytes\": " + jsonNumber(r.readBytes) + ", \"written_bytes\": " + jsonNumber(r.writtenBytes) +
           ", \"dram_bytes\": " + jsonNumber(r.dramBytes);
    out += ", \"dot_flops\": {";
    for (int kind = 0; kind < kDotKinds; ++kind)
      out += std::string(kind ? ", " : "") + quoted(mlir::brick::dotKindName(DotKind(kind))) + ": " +
             jsonNumber(r.dotFlops[kind]);
    out += "}, \"other_flops\": " + jsonNumber(r.otherFlops);
    out += ", \"bytes_per_second\": " + jsonNumber(r.achievedBytesPerSecond()) +
           ", \"flops_per_second\": " + jsonNumber(r.achievedFlopsPerSecond());
    out += ", \"memory_share\": " + jsonNumber(r.memoryShare()) + ", \"compute_share\": " +
           jsonNumber(r.computeShare()) + ", \"bound\": " + quoted(r.bound());
    out += ", \"exact\": " + std::string(r.exact ? "true" : "false");
    if (!r.exact)
      out += ", \"inexact\": " + quoted(r.inexact);
    out += ", \"device\": " + quoted(r.peaks.device) + ", \"peak_bytes_per_second\": " +
           jsonNumber(r.peaks.dramBytesPerSecond) + "}";
  }
  return out + "\n]}\n";
}

} // namespace brick::profile

namespace brick::detail {

bool profiling() { return profile::enabled() && profile::paused == 0; }

runtime::Error profiledLaunch(const ProfiledLaunch &site, llvm::function_ref<runtime::Error()> run) {
  using namespace profile;
  Profiler &p = profiler();
  const runtime::Device &device = *site.device;

  // What the count depends on besides the specialization: the integers the kernel function receives (Const
  // values are in its IR) and the sizes of the buffers.
  mlir::brick::LaunchInputs inputs;
  inputs.grid = {site.grid.x, site.grid.y, site.grid.z};
  inputs.clusterSize = site.options->clusterSize;
  std::vector<uint64_t> extents;
  for (size_t i = 0; i < site.count; ++i) {
    const LaunchArg &arg = site.args[i];
    const ParamInfo &param = (*site.params)[i];
    switch (param.kind) {
    case ParamKind::Constant: break;
    case ParamKind::Pointer:
      inputs.integers.push_back(std::nullopt);
      extents.push_back(arg.bytes);
      break;
    case ParamKind::Scalar:
      inputs.integers.push_back(arg.kind == LaunchArg::Kind::Integer && !isFloat(param.dtype)
                                    ? std::optional<int64_t>(arg.integer)
                                    : std::nullopt);
      extents.push_back(0);
      break;
    case ParamKind::TensorDescriptor: {
      const TensorDescriptorArg &desc = *arg.descriptor;
      uint64_t elementBytes = std::max(1u, bitWidth(param.dtype) / 8);
      uint64_t bytes = desc.shape.empty() ? 0 : uint64_t(desc.shape[0]) * elementBytes *
                                                    uint64_t(desc.shape.size() > 1 ? desc.strides[0] : 1);
      inputs.integers.push_back(std::nullopt);
      extents.push_back(bytes);
      for (int64_t extent : desc.shape) {
        inputs.integers.push_back(extent);
        extents.push_back(0);
      }
      for (int64_t stride : desc.strides) {
        inputs.integers.push_back(stride);
        extents.push_back(0);
      }
      inputs.integers.push_back(std::nullopt); // the tensor map
      extents.push_back(0);
      break;
    }
    }
  }
  std::string kernelKey = hex(reinterpret_cast<uintptr_t>(site.state));
  for (int64_t value : site.key)
    kernelKey += " " + std::to_string(value);
  std::string groupKey = kernelKey + " |";
  for (unsigned extent : inputs.grid)
    groupKey += " " + std::to_string(extent);
  for (auto [integer, extent] : llvm::zip(inputs.integers, extents))
    groupKey += " " + (integer ? std::to_string(*integer) : "_") + (extent ? ":" + std::to_string(extent) : "");

  Group *group = nullptr;
  {
    std::lock_guard<std::mutex> lock(p.mutex);
    if (p.atExit != AtExit::Nothing && !p.atExitRegistered) {
      // Registered after the launch's device was opened, so that the report runs before the device closes.
      std::atexit(printAtExit);
      p.atExitRegistered = true;
    }
    auto found = p.groupIndex.find(groupKey);
    if (found != p.groupIndex.end()) {
      group = p.groups[found->second].get();
    } else {
      std::shared_ptr<CountedKernel> &counted = p.kernels[kernelKey];
      if (!counted) {
        JitKernel kernel = (*site.describe)();
        Specialization spec = specializationFor(kernel.params, std::vector<LaunchArg>(site.args, site.args + site.count));
        mlir::DialectRegistry registry;
        registerPipelineDialects(registry);
        auto made = std::make_shared<CountedKernel>();
        made->ir = std::make_unique<InterpretedKernel>(registry);
        auto module = buildModule(kernel, spec, made->ir->context);
        if (!module)
          return module.error();
        made->ir->module = std::move(*module);
        made->ir->function = interpreter::findKernel(*made->ir->module);
        made->specialization = specializationKey(kernel, spec, *site.options, site.target);
        made->signature = describeParameters(kernel.params);
        counted = std::move(made);
      }
      auto owned = std::make_unique<Group>();
      Record &record = owned->record;
      record.kernel = *site.name;
      record.specialization = counted->specialization;
      record.signature = counted->signature;
      record.grid = inputs.grid;
      mlir::brick::LaunchCost cost = mlir::brick::countLaunchCost(counted->ir->function, inputs);
      record.readBytes = cost.totalRead();
      record.writtenBytes = cost.totalWritten();
      record.dramBytes = cost.dramBytes(extents);
      record.dotFlops = cost.dotFlops;
      record.otherFlops = cost.otherFlops;
      record.exact = cost.exact;
      record.inexact = cost.inexact;
      auto peaks = p.peaks.find(&device);
      if (peaks == p.peaks.end())
        peaks = p.peaks.emplace(&device, peaksOf(device)).first;
      record.peaks = peaks->second;
      p.groupIndex[groupKey] = p.groups.size();
      group = owned.get();
      p.groups.push_back(std::move(owned));
    }
  }

  auto start = runtime::Event::create(device), stop = runtime::Event::create(device);
  if (!start)
    return start.error();
  if (!stop)
    return stop.error();
  if (runtime::Error e = start->record(site.options->stream))
    return e;
  if (runtime::Error e = run())
    return e;
  if (runtime::Error e = stop->record(site.options->stream))
    return e;
  std::lock_guard<std::mutex> lock(p.mutex);
  ++group->record.launches;
  group->pending.emplace_back(std::move(*start), std::move(*stop));
  if (group->pending.size() >= 256) // bounded: the oldest have long finished
    resolve(*group, 128);
  return runtime::Error();
}

} // namespace brick::detail
