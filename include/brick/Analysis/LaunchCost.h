//===- LaunchCost.h - The bytes and FLOPs one launch of a brick kernel asks for -------===//
//
// Counted from the kernel's brick IR (as the DSL built it, before any lowering) by running its scalar control
// flow for every program of the grid: the integers that decide loop trip counts, branches and tensor-descriptor
// coordinates are evaluated from the launch's arguments, while blocks are only counted by their shapes. So a
// loop `for k in range(0, K, BLOCK_K)` is counted ceil(K / BLOCK_K) times and a descriptor block that reaches
// past the tensor's edge counts only the elements inside (what TMA moves). What cannot be known without the
// GPU's memory (a trip count read from a buffer, say) makes the count inexact, and `inexact` says where.
//
// Counts are of what the programs request: a masked load counts every lane of its block, and a tile several
// programs read counts once for each. `dramBytes` bounds the traffic to device memory by counting each argument's
// buffer at most once.
//
// Installed with brick/JIT/Profile.h, which names its DotKind: it includes no MLIR or LLVM header.
//
//===----------------------------------------------------------------------===//
#ifndef BRICK_ANALYSIS_LAUNCHCOST_H
#define BRICK_ANALYSIS_LAUNCHCOST_H

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir::func {
class FuncOp;
} // namespace mlir::func

namespace mlir::brick {

/// The element types a dot multiplies, as the tensor cores' rates differ for each.
enum class DotKind { F16, F8, TF32, F32, I8 };
inline constexpr int kDotKinds = 5;
/// "f16/bf16", "fp8", "tf32", "f32", "i8".
const char *dotKindName(DotKind kind);

struct LaunchInputs {
  std::array<unsigned, 3> grid = {1, 1, 1};
  unsigned clusterSize = 1;
  /// One entry per argument of the kernel function: its value if it is an integer (i1 to i64), else nothing.
  std::vector<std::optional<int64_t>> integers;
  /// Stop counting (and call the result inexact) after this many ops evaluated in all.
  uint64_t opBudget = 200'000'000;
};

struct LaunchCost {
  /// Bytes requested through each argument of the kernel function (pointers and descriptor bases), and those
  /// that could not be traced to one, last.
  std::vector<double> readBytes, writtenBytes;
  /// 2 * M * N * K of every dot, by the kind of its inputs.
  std::array<double, kDotKinds> dotFlops{};
  /// One per element of every other floating-point operation (an fma counts two).
  double otherFlops = 0;
  bool exact = true;
  /// Why the count is not exact, with the op's location (the first reason met).
  std::string inexact;

  double totalRead() const;
  double totalWritten() const;
  double totalDotFlops() const;
  /// At most each argument's buffer once: min(requested, extent) summed over the arguments, given each one's
  /// extent in bytes (0: unknown, then all that was requested counts).
  double dramBytes(const std::vector<uint64_t> &extentBytes) const;
};

/// Counts one launch of `kernel` (a function marked brick.kernel). Never fails: what it cannot evaluate it
/// counts as best it can and says so in `inexact`.
LaunchCost countLaunchCost(func::FuncOp kernel, const LaunchInputs &inputs);

} // namespace mlir::brick

#endif // BRICK_ANALYSIS_LAUNCHCOST_H
