//===- JIT.h - Launching DSL kernels: specialize, compile once, cache, launch --------===//
//
//   #include "brick/brick.h"
//   #include "brick/JIT/JIT.h"
//   auto x = runtime::DeviceBuffer::allocate(device, bytes);  ...
//   runtime::Error e = softmax.launch(Grid{rows}, LaunchOptions{.numWarps = 8}, *out, *in, cols, cols, 1024);
//
// A launch derives the specialization from its arguments, as Triton does: Const values, pointers aligned to
// 16 bytes, integers equal to 1 or divisible by 16; plus warps, stages and the GPU's architecture. The first
// launch of a specialization builds its brick IR, looks for it in the disk cache ($BRICK_CACHE_DIR, default
// ~/.cache/brick; keyed by a hash of the IR, the options and the compiler's version), compiles it when absent
// (writing the cache atomically), and keeps the loaded kernel in memory. $BRICK_DUMP_DIR=<dir> writes every
// stage of every compiled kernel to <dir>/<kernel>-<key>/.
//
// On the CPU interpreter (LaunchOptions::device = &Device::interpreter(), or BRICK_INTERPRET=1 for the default
// device) the same launch builds the brick IR and runs it with lib/Interpreter: buffers are host memory, every
// access is checked against them, and a Ptr<T> parameter may also take a plain host pointer (T*).
//
//===----------------------------------------------------------------------===//
#ifndef BRICK_JIT_JIT_H
#define BRICK_JIT_JIT_H

#include "brick/DSL/Kernel.h"
#include "brick/Runtime/Bundle.h"

#include <array>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace brick {

struct Grid {
  unsigned x = 1, y = 1, z = 1;
  /// A persistent kernel's grid (Grid::persistent): x is the most programs it can use (say, its tiles); the
  /// launch runs as many as are resident on the device at once, no more than x rounded up to whole clusters.
  bool oneWave = false;

  /// One wave of programs along x for a kernel that loops over `work` items (tiles) with num_programs(0) as its
  /// stride: `work` rounded up to whole clusters of LaunchOptions::clusterSize, but no more than fit the device at
  /// once (rounded down to whole clusters), so no program waits for another to finish. What fits is the driver's
  /// count for the compiled kernel's threads, registers and shared memory: in hardware clusters (sm_90 code)
  /// cuOccupancyMaxActiveClusters, which knows how clusters fit the GPU's GPCs (on an H200 30 clusters of 4, not
  /// 132 / 4); else blocks per SM times SMs, which is more than one per SM for a small kernel. The interpreter,
  /// which runs programs in turn, counts 4 SMs (at least one cluster).
  static Grid persistent(unsigned work) {
    Grid grid;
    grid.x = work;
    grid.oneWave = true;
    return grid;
  }
};

struct LaunchOptions {
  unsigned numWarps = 4;
  /// Buffers in each ring a loop's dot operands are prefetched into (1: no prefetching).
  unsigned numStages = 3;
  /// On sm_90a, give a K loop of TMA blocks and wgmma dots a producer warpgroup that issues the copies while the
  /// numWarps consumer warps multiply (4 more warps run); loops that cannot be split are pipelined as usual.
  bool warpSpecialize = false;
  /// sm_90 and newer: launch the programs in thread block clusters of this many (2, 4 or 8) consecutive programs
  /// along x, which must divide the grid's x. cluster_rank() and cluster_size() tell a program its place;
  /// descriptor loads marked sharedByCluster are multicast (see TensorDescriptor::load). Elsewhere (older GPUs,
  /// sm_80 code, the interpreter) cluster_size() is still this and cluster_rank() program_id(0) mod it, and
  /// every program loads its own blocks.
  unsigned clusterSize = 1;
  /// Generate code for this compute capability (80: mma.sync and cp.async, no Hopper instructions) and assemble
  /// it for the device; 0: the device's own. Lets an sm_90 GPU run, and measure, the code an A100 would get.
  unsigned targetCapability = 0;
  const runtime::Stream *stream = nullptr; // null: the default stream
  /// Where to run: null for the default device (GPU 0, or the CPU interpreter when BRICK_INTERPRET=1).
  const runtime::Device *device = nullptr;
};

/// A raw device address for a Ptr<T> parameter.
struct DevicePointer {
  runtime::CUdeviceptr address;
};

/// The argument of a TensorDescriptor<T, Rank> parameter: a tensor in device memory (or, on the interpreter,
/// host memory) and the shape of the blocks the kernel moves. Shape and strides are in elements, outermost
/// dimension first. A launch checks what TMA needs, on every device alike: a 16-byte aligned base, an innermost
/// stride of 1 and the others whole multiples of 16 bytes, block dimensions that are powers of two of at most
/// 256 elements with an innermost row of at least 16 bytes.
struct TensorDescriptorArg {
  uint64_t address = 0;
  bool hostPointer = false;
  std::vector<int64_t> shape, strides, blockShape;
  /// Launched through the autotuner (brick/JIT/Autotune.h): block dimension d is the config's constant number
  /// blockFromConfig[d] (e.g. {0, 2} for matmul's BLOCK_M x BLOCK_K), since the config chooses the tile.
  std::vector<size_t> blockFromConfig;

  TensorDescriptorArg &blocksFromConfig(std::vector<size_t> constants) {
    blockFromConfig = std::move(constants);
    return *this;
  }

  static TensorDescriptorArg of(const runtime::DeviceBuffer &buffer, std::vector<int64_t> shape,
                                std::vector<int64_t> strides, std::vector<int64_t> blockShape) {
    return {buffer.address(), false, std::move(shape), std::move(strides), std::move(blockShape)};
  }
  template <class T>
  static TensorDescriptorArg of(T *host, std::vector<int64_t> shape, std::vector<int64_t> strides,
                                std::vector<int64_t> blockShape) {
    return {reinterpret_cast<uintptr_t>(host), true, std::move(shape), std::move(strides), std::move(blockShape)};
  }
};

/// A launch argument for a Const parameter whose value an autotuner's config gives (brick/JIT/Autotune.h); a
/// plain launch rejects it.
struct FromConfig {};
inline constexpr FromConfig fromConfig{};

namespace detail {

/// One launch argument, with what the specialization needs to know of it.
struct LaunchArg {
  enum class Kind { Pointer, Integer, Float, Descriptor, FromConfig } kind;
  uint64_t pointer = 0;
  int64_t integer = 0;
  double real = 0;
  bool hostPointer = false; // a T* (for the interpreter), not a device address
  bool beyondInt64 = false; // an unsigned integer above INT64_MAX (`integer` holds it wrapped)
  const TensorDescriptorArg *descriptor = nullptr; // Kind::Descriptor (lives for the launch call)
  size_t bytes = 0; // a pointer's buffer size when it came from a DeviceBuffer (0: unknown)
};

/// What the non-template JIT needs of a kernel.
struct JitKernel {
  std::string name;
  std::vector<ParamInfo> params;
  std::function<BuildResult(mlir::MLIRContext *, const Specialization &, const std::function<void(mlir::Operation *)> &)>
      build;
  JitState *state;
};

/// The specialization a launch's arguments call for; also what the memory cache is keyed by.
Specialization specializationFor(const std::vector<ParamInfo> &params, const std::vector<LaunchArg> &args);
std::string specializationKey(const JitKernel &kernel, const Specialization &spec, const LaunchOptions &options,
                              const std::string &target);

/// Compiles (or finds in the disk cache) one specialization for `target` ("sm_90a"); `why` receives
/// "compiled; IR 9 ms, MLIR 52 ms, LLVM IR 110 ms, PTX 85 ms, ptxas 80 ms" (what each step took: the DSL traced
/// into IR, then the compiler's) or "disk cache".
runtime::Expected<runtime::KernelBundle> compileSpecialization(const JitKernel &kernel, const Specialization &spec,
                                                               const LaunchOptions &options, const std::string &target,
                                                               std::string *why);

/// `kernel` is only called on on a memory-cache miss (it builds the kernel's description).
runtime::Error launch(const std::string &name, const std::vector<ParamInfo> &params, JitState &state,
                      const std::function<JitKernel()> &kernel, Grid grid, const LaunchOptions &options,
                      const LaunchArg *args, size_t count);

template <class P, class A> LaunchArg toLaunchArg(A &&arg) {
  using Arg = std::decay_t<A>;
  if constexpr (std::is_same_v<Arg, FromConfig>) {
    static_assert(Param<P>::info.kind == ParamKind::Constant, "brick::fromConfig stands only for a Const parameter");
    return LaunchArg{LaunchArg::Kind::FromConfig};
  } else if constexpr (Param<P>::info.kind == ParamKind::TensorDescriptor) {
    static_assert(std::is_same_v<Arg, TensorDescriptorArg>,
                  "a TensorDescriptor<T, Rank> parameter takes a brick::TensorDescriptorArg");
    LaunchArg converted{LaunchArg::Kind::Descriptor, arg.address};
    converted.hostPointer = arg.hostPointer;
    converted.descriptor = &arg;
    return converted;
  } else if constexpr (Param<P>::info.kind == ParamKind::Pointer) {
    static_assert(std::is_same_v<Arg, runtime::DeviceBuffer> || std::is_same_v<Arg, DevicePointer> ||
                      std::is_pointer_v<Arg>,
                  "a Ptr<T> parameter takes a runtime::DeviceBuffer, a brick::DevicePointer or (on the interpreter) "
                  "a host pointer");
    if constexpr (std::is_same_v<Arg, runtime::DeviceBuffer>) {
      LaunchArg converted{LaunchArg::Kind::Pointer, arg.address()};
      converted.bytes = arg.size();
      return converted;
    }
    else if constexpr (std::is_pointer_v<Arg>)
      return LaunchArg{LaunchArg::Kind::Pointer, reinterpret_cast<uintptr_t>(arg), 0, 0, true};
    else
      return LaunchArg{LaunchArg::Kind::Pointer, arg.address};
  } else {
    static_assert(std::is_arithmetic_v<Arg>, "a Scalar<T> or Const<T> parameter takes a number");
    if constexpr (std::is_floating_point_v<Arg>) {
      return LaunchArg{LaunchArg::Kind::Float, 0, 0, static_cast<double>(arg)};
    } else {
      LaunchArg converted{LaunchArg::Kind::Integer, 0, static_cast<int64_t>(arg)};
      if constexpr (std::is_unsigned_v<Arg>)
        converted.beyondInt64 = static_cast<uint64_t>(arg) > static_cast<uint64_t>(INT64_MAX);
      return converted;
    }
  }
}

} // namespace detail

/// Lets launchers generated for AOT bundles (brick/Runtime/Launcher.h) run on the CPU interpreter in this
/// program (they need the compiler's interpreter, which the runtime alone does not have).
void enableBundleInterpreter();

template <class F>
template <class... A>
runtime::Error Kernel<F>::launch(Grid grid, LaunchOptions options, A &&...args) const {
  static_assert(sizeof...(A) == arity, "the launch passes a different number of arguments than the kernel has "
                                       "parameters");
  // The hot path (a cached specialization) allocates nothing: arguments on the stack, parameters built once.
  std::array<detail::LaunchArg, arity> converted = [&]<size_t... I>(std::index_sequence<I...>) {
    return std::array<detail::LaunchArg, arity>{
        detail::toLaunchArg<std::tuple_element_t<I, Params>>(std::forward<A>(args))...};
  }(std::make_index_sequence<arity>{});
  static const std::vector<detail::ParamInfo> parameters = params();
  auto describe = [this] {
    return detail::JitKernel{name_, params(),
                             [this](mlir::MLIRContext *context, const Specialization &spec,
                                    const std::function<void(mlir::Operation *)> &run) { return build(context, spec, run); },
                             jit_.get()};
  };
  return detail::launch(name_, parameters, *jit_, describe, grid, options, converted.data(), arity);
}

} // namespace brick

#endif // BRICK_JIT_JIT_H
