//===- Launcher.cpp - Specialization matching and lazy loading for generated AOT launchers -------===//

#include "brick/Runtime/Launcher.h"

#include "brick/Runtime/Trace.h"

#include <atomic>
#include <cmath>
#include <cstring>

namespace brick::runtime {

namespace {
std::atomic<BundleInterpreter> bundleInterpreter{nullptr};
} // namespace

void setBundleInterpreter(BundleInterpreter interpreter) { bundleInterpreter = interpreter; }

bool Requirement::holds(const LauncherArg &arg) const {
  switch (kind) {
  case Kind::Any: return true;
  case Kind::EqualInteger: return arg.kind == LauncherArg::Kind::Integer && arg.integer == integer;
  case Kind::EqualReal:
    return arg.kind == LauncherArg::Kind::Float ? arg.real == real
                                                : arg.kind == LauncherArg::Kind::Integer && double(arg.integer) == real;
  case Kind::DivisibleBy:
    if (arg.kind == LauncherArg::Kind::Pointer)
      return arg.pointer % uint64_t(integer) == 0;
    return arg.kind == LauncherArg::Kind::Integer && arg.integer % integer == 0;
  }
  return false;
}

struct Launcher::Loaded {
  size_t variant;
  int device; // ordinal; -1: the interpreter
  KernelBundle bundle;
  std::shared_ptr<LoadedKernel> kernel; // null on the interpreter
};

Launcher::Launcher(std::string kernel, std::string signature, std::vector<LauncherVariant> variants)
    : kernel_(std::move(kernel)), signature_(std::move(signature)), variants_(std::move(variants)) {}

namespace {
std::string describe(const LauncherArg &arg) {
  switch (arg.kind) {
  case LauncherArg::Kind::Pointer: {
    unsigned alignment = 1;
    while (alignment < 16 && arg.pointer % (alignment * 2) == 0)
      alignment *= 2;
    return "pointer aligned to " + std::to_string(alignment);
  }
  case LauncherArg::Kind::Integer: return std::to_string(arg.integer);
  case LauncherArg::Kind::Float: {
    char text[32];
    std::snprintf(text, sizeof(text), "%g", arg.real);
    return text;
  }
  }
  return "?";
}

const Device *defaultDevice(Error &error) {
  static Expected<Device> device = Device::get(0);
  if (!device) {
    error = device.error();
    return nullptr;
  }
  return &*device;
}
} // namespace

Error Launcher::launch(const Device *device, const Stream *stream, LaunchGrid grid, const LauncherArg *args,
                       size_t count) {
  if (!device) {
    Error error;
    device = defaultDevice(error);
    if (!device)
      return Error("kernel '" + kernel_ + "': no device to launch on: " + error.message());
  }
  if (grid.x < 1 || grid.x > 0x7fffffffu || grid.y < 1 || grid.y > 65535 || grid.z < 1 || grid.z > 65535)
    return Error("kernel '" + kernel_ + "': grid (" + std::to_string(grid.x) + ", " + std::to_string(grid.y) + ", " +
                 std::to_string(grid.z) + ") is not launchable: 1 to 2147483647 programs along x, 1 to 65535 along y and z");
  int ordinal = device->isInterpreter() ? -1 : device->ordinal();
  std::string architecture = "sm_" + std::to_string(device->computeCapability());
  // The first variant (the generator orders them most specialized first) that the arguments and device allow.
  size_t chosen = variants_.size();
  for (size_t v = 0; v < variants_.size() && chosen == variants_.size(); ++v) {
    const LauncherVariant &variant = variants_[v];
    if (variant.requirements.size() != count)
      return Error("kernel '" + kernel_ + "': the launcher passes " + std::to_string(count) + " arguments, variant " +
                   std::to_string(v) + " expects " + std::to_string(variant.requirements.size()));
    bool fits = true;
    for (size_t i = 0; i < count && fits; ++i)
      fits = variant.requirements[i].holds(args[i]);
    // " sm_90a" ends the description: the target it was compiled for.
    if (fits && ordinal >= 0) {
      size_t at = variant.description.rfind(' ');
      std::string target = at == std::string::npos ? "" : variant.description.substr(at + 1);
      fits = target.rfind(architecture, 0) == 0 &&
             (target.size() == architecture.size() || target.size() == architecture.size() + 1);
    }
    if (fits)
      chosen = v;
  }
  if (chosen == variants_.size()) {
    std::string given;
    for (size_t i = 0; i < count; ++i)
      given += (i ? ", " : "") + describe(args[i]);
    std::string compiled;
    for (const LauncherVariant &variant : variants_)
      compiled += "\n  " + variant.description;
    return Error("kernel '" + kernel_ + signature_ + "': no compiled specialization fits the arguments (" + given +
                 ") on " + (ordinal >= 0 ? device->name() + " (" + architecture + ")" : "the interpreter") +
                 "; compiled:" + compiled);
  }

  std::shared_ptr<Loaded> loaded;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto &candidate : loaded_)
      if (candidate->variant == chosen && candidate->device == ordinal)
        loaded = candidate;
    if (!loaded) {
      trace::Range range([&] { return "brick load " + kernel_ + " " + variants_[chosen].description; });
      const LauncherVariant &variant = variants_[chosen];
      auto bundle = KernelBundle::deserialize(
          std::string_view(reinterpret_cast<const char *>(variant.bundle), variant.bytes));
      if (!bundle)
        return Error("kernel '" + kernel_ + "' " + variant.description + ": " + bundle.error().message());
      auto entry = std::make_shared<Loaded>(Loaded{chosen, ordinal, std::move(*bundle), nullptr});
      if (ordinal >= 0) {
        auto kernel = LoadedKernel::load(*device, entry->bundle); // it keeps its own copy of the Device
        if (!kernel)
          return kernel.error();
        entry->kernel = std::make_shared<LoadedKernel>(std::move(*kernel));
      }
      loaded_.push_back(entry);
      loaded = entry;
    }
  }

  std::vector<void *> values;
  for (size_t i = 0; i < count; ++i)
    if (args[i].value)
      values.push_back(args[i].value);
  if (values.size() != loaded->bundle.params.size())
    return Error("kernel '" + kernel_ + "': the launcher passes " + std::to_string(values.size()) +
                 " runtime arguments, the bundle takes " + std::to_string(loaded->bundle.params.size()));
  trace::Range range([&] { return "brick launch " + kernel_; });
  if (ordinal < 0) {
    BundleInterpreter interpret = bundleInterpreter.load();
    if (!interpret)
      return Error("kernel '" + kernel_ +
                   "': running AOT kernels on the CPU interpreter needs Brick::brick and a call to "
                   "brick::enableBundleInterpreter() (this program has the runtime alone)");
    return interpret(loaded->bundle, {grid.x, grid.y, grid.z}, values.data());
  }
  return loaded->kernel->launch({grid.x, grid.y, grid.z}, stream, values.data());
}

} // namespace brick::runtime
