//===- Launcher.h - What generated AOT launchers call: pick a compiled specialization, load it, launch ---===//
//
// A Brick program's tool mode (brick/Tool/Tool.h, `--aot=DIR`) writes <namespace>.h and <namespace>.cpp: one
// typed function per kernel, with the kernel's bundles embedded, e.g.
//
//   brick::runtime::Error mykernels::saxpy(const brick::runtime::Stream *stream, brick::runtime::LaunchGrid grid,
//                                          brick::runtime::KernelPointer y, brick::runtime::KernelPointer x,
//                                          float a, int32_t n, int BLOCK, const brick::runtime::Device *device = nullptr);
//
// Each call matches its arguments against the compiled specializations (Const values equal, pointers aligned,
// integers equal to 1 or divisible as the specialization assumed, the device's architecture) and launches the
// most specialized one that fits, loading it on first use. This needs the runtime alone (Brick::runtime).
//
//===----------------------------------------------------------------------===//
#ifndef BRICK_RUNTIME_LAUNCHER_H
#define BRICK_RUNTIME_LAUNCHER_H

#include "brick/Runtime/Bundle.h"

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace brick::runtime {

/// Programs along x, y and z.
struct LaunchGrid {
  unsigned x = 1, y = 1, z = 1;
};

/// A Ptr<T> argument: a device address, a DeviceBuffer, or (on the interpreter) a host pointer.
struct KernelPointer {
  CUdeviceptr address = 0;
  KernelPointer(CUdeviceptr address) : address(address) {}
  KernelPointer(const DeviceBuffer &buffer) : address(buffer.address()) {}
  template <class T> KernelPointer(T *host) : address(reinterpret_cast<uintptr_t>(host)) {}
};

/// One argument of a launcher call, as specialization matching sees it.
struct LauncherArg {
  enum class Kind : uint8_t { Pointer, Integer, Float } kind = Kind::Integer;
  uint64_t pointer = 0;
  int64_t integer = 0;
  double real = 0;
  /// Where the value the kernel receives is (null for a Const parameter, which is compiled in).
  void *value = nullptr;
};

/// What one compiled specialization assumed of one argument.
struct Requirement {
  enum class Kind : uint8_t { Any, EqualInteger, EqualReal, DivisibleBy } kind = Kind::Any;
  int64_t integer = 0; // EqualInteger's value, DivisibleBy's divisor
  double real = 0;     // EqualReal's value
  bool holds(const LauncherArg &arg) const;
};

/// One compiled specialization: its bundle's bytes and what it assumed of each argument.
struct LauncherVariant {
  const unsigned char *bundle;
  size_t bytes;
  std::vector<Requirement> requirements; // one per kernel parameter
  std::string description;               // "(%16, %16, _, %16, 1024) warps=4 sm_90a"
};

/// Runs a bundle on the CPU interpreter; `args` point at one value per bundle parameter.
using BundleInterpreter = Error (*)(const KernelBundle &bundle, std::array<unsigned, 3> grid, void **args);
/// Brick::brick installs its interpreter here (brick::enableBundleInterpreter()); the runtime alone has none.
void setBundleInterpreter(BundleInterpreter interpreter);

/// The specializations of one kernel and their loaded code; generated launchers keep one per kernel.
class Launcher {
public:
  Launcher(std::string kernel, std::string signature, std::vector<LauncherVariant> variants);
  /// Picks the most specialized variant whose requirements `args` meet and that runs on `device` (null: the
  /// default device, GPU 0 or the interpreter when BRICK_INTERPRET=1), loads it once per device, launches it.
  Error launch(const Device *device, const Stream *stream, LaunchGrid grid, const LauncherArg *args, size_t count);

private:
  std::string kernel_, signature_;
  std::vector<LauncherVariant> variants_;
  std::mutex mutex_;
  struct Loaded;
  std::vector<std::shared_ptr<Loaded>> loaded_; // per (variant, device)
};

} // namespace brick::runtime

#endif // BRICK_RUNTIME_LAUNCHER_H
