//===- Interpreter.h - Running brick IR on the CPU with the GPU's semantics -----------===//
//
//   auto module = parseSourceString<ModuleOp>(ir, &context);
//   std::vector<interpreter::Argument> args = {interpreter::Argument::pointer(out), ..., interpreter::Argument::integer(n)};
//   if (llvm::Error e = interpreter::run(kernelOf(*module), {programs, 1, 1}, args)) ...
//
// Every program of the grid runs in turn, each on whole blocks as the IR describes them: a load reads only where
// its mask is true and gives `other` elsewhere, reductions combine along an axis with the op's own combiner, dot
// multiplies exactly and rounds once to the accumulator's type, integers wrap at their width, floats round to
// their type after every operation (f16 and bf16 through f32, as the GPU computes them). Atomics are atomic
// because programs run one at a time. Kernels usually run through Kernel::launch on Device::interpreter() (or
// with BRICK_INTERPRET=1); this is the engine underneath.
//
// Debugging: every unmasked access is checked against the interpreter's buffers (runtime/HostMemory.h), and a
// bad one is an error at the kernel's source line naming the program, the element and the nearest buffer;
// brick.assert failures are errors; brick.print prints as the GPU does.
//
//===----------------------------------------------------------------------===//
#ifndef BRICK_INTERPRETER_INTERPRETER_H
#define BRICK_INTERPRETER_INTERPRETER_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <vector>
#include <array>
#include <cstdint>

namespace mlir {
class ModuleOp;
namespace func {
class FuncOp;
} // namespace func
} // namespace mlir

namespace brick::interpreter {

/// The value of one of the kernel function's parameters (Const parameters are already folded into the IR).
struct Argument {
  enum class Kind { Pointer, Integer, Float } kind = Kind::Integer;
  uint64_t pointer = 0;
  int64_t integer = 0;
  double real = 0;

  static Argument address(uint64_t value) { return {Kind::Pointer, value, 0, 0}; }
  static Argument address(const void *value) { return address(reinterpret_cast<uintptr_t>(value)); }
  static Argument integral(int64_t value) { return {Kind::Integer, 0, value, 0}; }
  static Argument floating(double value) { return {Kind::Float, 0, 0, value}; }
};

struct Options {
  /// Check every unmasked access against the interpreter's registered buffers. Turn off to run kernels on
  /// memory the interpreter did not allocate (a std::vector's data, say).
  bool checkMemory = true;
  /// Host pointers among the arguments (memory the interpreter did not allocate, whose extent it cannot know).
  /// With checkMemory, an access outside the interpreter's buffers is taken as one through the nearest of these
  /// at or below it, unless one of its buffers lies between them (then it ran past that buffer and is an error);
  /// an access in the first 4 KB of the address space is always one through a null pointer, an error.
  std::vector<uintptr_t> hostPointers;
  /// Programs per cluster (LaunchOptions::clusterSize): what cluster_size() gives; cluster_rank() is
  /// program_id(0) mod it.
  unsigned clusterSize = 1;
  /// Where brick.print writes.
  llvm::raw_ostream *printStream = &llvm::outs();
};

/// Runs the brick kernel `kernel` over `grid` (x, y, z programs). Errors name the op's source location, the
/// program and, for memory and assertions, the element.
llvm::Error run(mlir::func::FuncOp kernel, std::array<unsigned, 3> grid, llvm::ArrayRef<Argument> args,
                const Options &options = {});

/// The function marked `brick.kernel` in `module` (the only one a DSL build makes), or null.
mlir::func::FuncOp findKernel(mlir::ModuleOp module);

} // namespace brick::interpreter

#endif // BRICK_INTERPRETER_INTERPRETER_H
