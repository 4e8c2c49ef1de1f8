//===- Tool.h - brickc's command line for the kernels of a user's own program ---------------===//
//
// brickc compiles .mlir files and Brick's examples; a program's own kernels live in its C++ code. Handing them
// to brick::tool::main gives the program brickc's options for them, with no GPU needed:
//
//   int main(int argc, char **argv) {
//     auto saxpy = brick::kernel("saxpy", [](Ptr<f32> y, Ptr<f32> x, Float a, Int n, Const<int> BLOCK) { ... });
//     if (argc > 1 && std::string_view(argv[1]).starts_with("--"))
//       return brick::tool::main(argc, argv, {brick::tool::entry(saxpy, {"y", "x", "a", "n", "BLOCK"},
//           {{{brick::Arg::divisibleBy(16), brick::Arg::divisibleBy(16), brick::dyn, brick::Arg::divisibleBy(16), 1024}}})});
//     ...
//   }
//
//   ./app --list                                     the kernels, their parameters and compiled specializations
//   ./app --kernel=saxpy --emit=ptx --arch=sm_90a    any stage: brick, brickgpu, llvm-dialect, llvm-ir, ptx, cubin, bundle
//   ./app --spec='(%16, %16, _, _, 256)' --emit=brickgpu --num-warps=8 --dump-dir=stages --resource-usage
//   ./app --aot=gen --namespace=mykernels --arch=sm_80,sm_90a
//         writes gen/mykernels.h and gen/mykernels.cpp: a typed launcher per kernel over the embedded bundles,
//         for a program that links Brick::runtime alone (brick/Runtime/Launcher.h), and gen/<kernel>.<n>.brick
//
//===----------------------------------------------------------------------===//
#ifndef BRICK_TOOL_TOOL_H
#define BRICK_TOOL_TOOL_H

#include "brick/JIT/Compile.h"

#include <string>
#include <vector>

namespace brick::tool {

/// One specialization to compile ahead of time, with its launch options.
struct Variant {
  Specialization spec;
  unsigned numWarps = 4;
  unsigned numStages = 3;
  bool warpSpecialize = false;
  unsigned clusterSize = 1; // LaunchOptions::clusterSize
};

/// A kernel offered on the command line: what it is, its parameters' names (for the generated launcher; empty:
/// arg0, arg1, ...) and the specializations --aot compiles (the first is what --emit shows by default).
struct Entry {
  detail::JitKernel kernel;
  std::vector<std::string> parameterNames;
  std::vector<Variant> variants;
};

template <class F>
Entry entry(const Kernel<F> &kernel, std::vector<std::string> parameterNames, std::vector<Variant> variants) {
  return Entry{detail::jitKernel(kernel), std::move(parameterNames), std::move(variants)};
}

/// brickc's options over `kernels` (--help lists them). Returns the exit status: 0, or 1 with the error on stderr.
int main(int argc, char **argv, const std::vector<Entry> &kernels);

/// The launcher sources --aot writes: a header and a source file for namespace `ns`, over `kernels` compiled for
/// each of `targets`. The header is included as "<ns>.h" (with :: turned into _).
struct GeneratedLaunchers {
  std::string header, source;
  /// Each bundle: "<kernel>.<n>.brick" and its bytes.
  std::vector<std::pair<std::string, std::string>> bundles;
};
runtime::Expected<GeneratedLaunchers> generateLaunchers(const std::vector<Entry> &kernels, const std::string &ns,
                                                        const std::vector<std::string> &targets);

} // namespace brick::tool

#endif // BRICK_TOOL_TOOL_H
