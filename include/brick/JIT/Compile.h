//===- Compile.h - A user's kernel, specialized and compiled for any target, to any stage -------===//
//
// What a launch does at its first call, done by hand and without a GPU: for inspecting a kernel stage by stage,
// reading its resource usage, or compiling it ahead of time for a GPU this machine does not have.
//
//   auto saxpy = brick::kernel("saxpy", [](Ptr<f32> y, Ptr<f32> x, Float a, Int n, Const<int> BLOCK) { ... });
//   // The specialization a launch with these arguments would compile (16-byte aligned pointers, n % 16 == 0):
//   Specialization spec = brick::specializationOf(saxpy, y, x, 2.0f, 4096, 1024);   // "(%16, %16, _, %16, 1024)"
//   auto ptx = brick::compileKernel(saxpy, spec, {.target = "sm_90a", .stage = "ptx"});
//   if (ptx) std::cout << ptx->text; else std::cerr << ptx.error().message();
//
// brick/Tool/Tool.h puts the same on a program's command line (brickc's options, for the program's kernels).
//
//===----------------------------------------------------------------------===//
#ifndef BRICK_JIT_COMPILE_H
#define BRICK_JIT_COMPILE_H

#include "brick/JIT/JIT.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace brick {

/// What to compile for and how far.
struct CompileRequest {
  /// sm_80, sm_86, sm_87, sm_89, sm_90 or sm_90a.
  std::string target = "sm_90a";
  /// brick, brickgpu, llvm-dialect, llvm-ir, ptx, cubin (needs ptxas) or bundle (what the runtime loads).
  std::string stage = "ptx";
  unsigned numWarps = 4;
  unsigned numStages = 3;
  bool warpSpecialize = false;
  /// Programs per cluster (cluster_rank(), cluster_size(); multicast of shared blocks on sm_90a).
  unsigned clusterSize = 1;
  bool fastMath = true;
  /// When set, the IR after every pass, the LLVM IR and the PTX go to files in this folder, numbered in order.
  std::string dumpDirectory;
  /// Also assemble with ptxas (whatever the stage) and report registers, spills and shared memory.
  bool resourceUsage = false;
};

/// What ptxas reports for a kernel, plus the dynamic shared memory a launch provides.
struct ResourceReport {
  unsigned registers = 0, spillStoreBytes = 0, spillLoadBytes = 0, stackBytes = 0;
  unsigned staticSharedBytes = 0, dynamicSharedBytes = 0;
  /// "40 registers, 0 bytes spill stores, 0 bytes spill loads, 0 bytes stack, 0 bytes static + 0 bytes dynamic
  /// shared memory".
  std::string str() const;
};

struct CompiledKernel {
  std::string name;
  std::string stage;
  /// "(%16, %16, _, %16, 1024)": what the compiler knew of each argument (describeSpecialization).
  std::string specialization;
  /// The stage's text: the IR (brick, brickgpu, llvm-dialect), the LLVM IR or the PTX; empty for cubin and bundle.
  std::string text;
  /// The cubin (stage cubin) or the bundle file's bytes (stage bundle).
  std::vector<char> binary;
  /// What the runtime loads (stages ptx, cubin and bundle): launch facts, signature, code and the brick IR.
  runtime::KernelBundle bundle;
  std::optional<ResourceReport> resources;
  /// "MLIR 52 ms, LLVM IR 110 ms, PTX 85 ms, ptxas 80 ms" (the steps that ran).
  std::string timings;
};

namespace detail {
runtime::Expected<CompiledKernel> compileKernel(const JitKernel &kernel, const Specialization &spec,
                                                const CompileRequest &request);
/// A kernel as the non-template compiler sees it (the copy shares the kernel's JIT state).
template <class F> JitKernel jitKernel(const Kernel<F> &kernel) {
  return JitKernel{kernel.name(), kernel.params(),
                   [kernel](mlir::MLIRContext *context, const Specialization &spec,
                            const std::function<void(mlir::Operation *)> &run) { return kernel.build(context, spec, run); },
                   &kernel.jitState()};
}
} // namespace detail

/// Compiles one specialization of `kernel` (one Arg per parameter, as Kernel::build takes) as `request` says.
/// Errors are what a launch would report: diagnostics at the user's source lines, or the compiler's.
template <class F>
runtime::Expected<CompiledKernel> compileKernel(const Kernel<F> &kernel, const Specialization &spec,
                                                const CompileRequest &request = {}) {
  return detail::compileKernel(detail::jitKernel(kernel), spec, request);
}

/// The specialization Kernel::launch would compile for these arguments (the same argument types: DeviceBuffers,
/// DevicePointers or host pointers, numbers, TensorDescriptorArgs).
template <class F, class... A> Specialization specializationOf(const Kernel<F> &kernel, A &&...args) {
  static_assert(sizeof...(A) == Kernel<F>::arity, "give one argument per kernel parameter");
  using Params = typename Kernel<F>::Params;
  std::vector<detail::LaunchArg> converted = [&]<size_t... I>(std::index_sequence<I...>) {
    return std::vector<detail::LaunchArg>{detail::toLaunchArg<std::tuple_element_t<I, Params>>(std::forward<A>(args))...};
  }(std::make_index_sequence<Kernel<F>::arity>{});
  return detail::specializationFor(kernel.params(), converted);
}

/// "(%16, %16, _, =1, 1024, [128x64]%16_)": per argument a Const value, `_` (nothing known), `%N` (a multiple of
/// N; pointers: N-byte aligned), `=1` (an integer equal to 1) or a descriptor's block shape and extents.
std::string describeSpecialization(const Specialization &spec);
/// Reads describeSpecialization's form back for a kernel with `params` (the parentheses are optional); an error
/// names the argument that does not fit its parameter.
runtime::Expected<Specialization> parseSpecialization(std::string_view text,
                                                      const std::vector<detail::ParamInfo> &params);
/// The parameter list as a signature: "(*f32, *f32, f32, i32, Const<i32>)".
std::string describeParameters(const std::vector<detail::ParamInfo> &params);

} // namespace brick

#endif // BRICK_JIT_COMPILE_H
