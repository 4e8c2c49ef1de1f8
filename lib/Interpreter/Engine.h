//===- Engine.h - The interpreter's values and the program being run (private) ---------===//
#ifndef BRICK_LIB_INTERPRETER_ENGINE_H
#define BRICK_LIB_INTERPRETER_ENGINE_H

#include "brick/Interpreter/Interpreter.h"

#include "brick/Dialect/Brick/BrickDialect.h"

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>
#include <vector>

namespace brick::interpreter::detail {

/// A scalar (empty shape) or a block, row-major. Integers (i1 as 0/1, wider ones sign-extended from their width)
/// and pointers (addresses) live in `ints`; floats, already rounded to their type, in `reals`.
struct Block {
  llvm::SmallVector<int64_t, 2> shape;
  std::vector<int64_t> ints;
  std::vector<double> reals;

  size_t size() const { return ints.size() + reals.size(); }
  bool isReal() const { return !reals.empty(); }
  static Block ofInts(llvm::ArrayRef<int64_t> shape, std::vector<int64_t> values) {
    return Block{llvm::SmallVector<int64_t, 2>(shape), std::move(values), {}};
  }
  static Block ofReals(llvm::ArrayRef<int64_t> shape, std::vector<double> values) {
    return Block{llvm::SmallVector<int64_t, 2>(shape), {}, std::move(values)};
  }
  /// `count` zeros of a float (`real`) or integer type.
  static Block zeros(llvm::ArrayRef<int64_t> shape, size_t count, bool real) {
    return real ? ofReals(shape, std::vector<double>(count)) : ofInts(shape, std::vector<int64_t>(count));
  }
};

/// The shape of a value of type `type` (empty for scalars).
llvm::SmallVector<int64_t, 2> shapeOf(mlir::Type type);
/// Elements of a block of `shape`.
int64_t elementCount(llvm::ArrayRef<int64_t> shape);

/// `value` wrapped to a `bits`-wide integer in the Block encoding.
inline int64_t wrapInteger(int64_t value, unsigned bits) {
  if (bits >= 64)
    return value;
  if (bits == 1)
    return value & 1;
  unsigned shift = 64 - bits;
  return static_cast<int64_t>(static_cast<uint64_t>(value) << shift) >> shift;
}
inline int64_t asSigned(int64_t value, unsigned bits) { return bits == 1 ? -(value & 1) : value; }
inline uint64_t asUnsigned(int64_t value, unsigned bits) {
  return bits >= 64 ? static_cast<uint64_t>(value) : static_cast<uint64_t>(value) & ((uint64_t(1) << bits) - 1);
}
/// `value` rounded once to the float type `type` (f16 and bf16 through a float rounded to odd, which a second
/// rounding cannot spoil: a float rounded to nearest could land on a tie of the narrower type).
double roundToFloat(double value, mlir::Type type);
/// `value`, the nearest double to an exact result that lies in `direction` from it (0: it is exact), rounded to
/// odd instead: unchanged when exact or odd, else its neighbour toward the exact result. roundToFloat of it then
/// rounds the exact result once (a double rounded to nearest could land on a tie of the narrower type).
double towardOdd(double value, int direction);
/// The width of an integer element type; 64 for pointers.
unsigned integerBits(mlir::Type elementType);
/// The bytes an element of `elementType` takes in memory (i1 takes a byte, as on the GPU; pointers 8).
unsigned memoryBytes(mlir::Type elementType);
/// Element `i` of an operand; a one-element operand broadcasts (a scalar meeting a block in a reduce combiner).
template <class T> T at(const std::vector<T> &values, size_t i) { return values.size() == 1 ? values[0] : values[i]; }

/// What the programs of one cluster (consecutive along axis 0) promised at each brick.cluster_shared: the
/// cluster's first program records its visits, each other program must match them one for one.
struct ClusterPromises {
  struct Visit {
    bool when;
    llvm::SmallVector<int64_t, 2> indices;
  };
  /// In the order the first program first reached each op, so that errors do not depend on where ops lie.
  llvm::MapVector<mlir::Operation *, std::vector<Visit>> first;
  /// The visits of the program now running, per op.
  llvm::DenseMap<mlir::Operation *, size_t> seen;
};

/// One program of the grid, running: the values it has computed so far.
class Program {
public:
  Program(std::array<unsigned, 3> id, std::array<unsigned, 3> grid, const Options &options,
          ClusterPromises *cluster = nullptr)
      : id(id), grid(grid), options(options), cluster(cluster) {}

  /// Runs the ops of `block` up to its terminator, which it returns (null when the block has none).
  llvm::Expected<mlir::Operation *> runBlock(mlir::Block &block);
  const Block &get(mlir::Value value) const;
  void set(mlir::Value value, Block block) { values_[value] = std::move(block); }
  /// Copies of the values of `values` (what a region yields, before its arguments are rebound).
  std::vector<Block> getAll(mlir::ValueRange values) const;
  /// Binds `targets[i]` to `blocks[i]`.
  void setAll(mlir::ValueRange targets, std::vector<Block> blocks);

  /// An error at `op`'s source location in this program ("file:line:col: error: ... [program (x, y, z)]").
  llvm::Error error(mlir::Operation *op, const llvm::Twine &message) const;
  /// "(i, j)": the coordinates of element `index` of a block of `shape`.
  static std::string coordinates(llvm::ArrayRef<int64_t> shape, int64_t index);
  std::optional<std::string> falseHint(mlir::brick::HintOp hint, const Block &x) const;

  const std::array<unsigned, 3> id, grid;
  const Options &options;
  /// Its cluster's promises (null without clusters).
  ClusterPromises *const cluster;
  /// An error where this program (not the cluster's first) reached a brick.cluster_shared fewer times than the
  /// first; run after the program ends.
  llvm::Error checkClusterVisits() const;
  /// "(x, y, z)" of the first program of this program's cluster.
  std::string firstOfCluster() const;
  /// The error where this program `verb` ("reads": so far, "read": in all) a shared block at `op` `times` times
  /// and the cluster's first program `firstTimes`.
  llvm::Error visitCountError(mlir::Operation *op, llvm::StringRef verb, size_t times, size_t firstTimes) const;

private:
  llvm::Error runOp(mlir::Operation *op);
  llvm::Error runDot(mlir::brick::DotOp dot);
  llvm::Error runReduce(mlir::brick::ReduceOp reduce);
  llvm::Error runScan(mlir::brick::ScanOp scan);
  llvm::Error runFor(mlir::scf::ForOp loop);
  llvm::Error runIf(mlir::scf::IfOp branch);
  llvm::Error runWhile(mlir::scf::WhileOp loop);
  llvm::Error runPrint(mlir::brick::PrintOp print);
  llvm::Error runClusterShared(mlir::brick::ClusterSharedOp shared);
  llvm::DenseMap<mlir::Value, Block> values_;
};

/// arith and math ops; std::nullopt when `op` is neither.
std::optional<llvm::Error> runArithmetic(Program &program, mlir::Operation *op);
/// brick.load, brick.store, brick.atomic_rmw, brick.atomic_cas; std::nullopt for other ops.
std::optional<llvm::Error> runMemory(Program &program, mlir::Operation *op);

} // namespace brick::interpreter::detail

#endif // BRICK_LIB_INTERPRETER_ENGINE_H
