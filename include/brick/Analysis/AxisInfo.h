//===- AxisInfo.h - Contiguity, divisibility and constancy of integer blocks ---===//
//
// For every integer or pointer value, per dimension (scalars count as one dimension of size 1):
//   contiguity[d]   the value runs in steps of +1 along d in runs this long (pointers: +1 element);
//   divisibility[d] the first element of each such run (or every element) is a multiple of this
//                   (pointers: in bytes);
//   constancy[d]    the value repeats along d in runs this long.
// All are powers of two. The coalescing pass and the lowering of loads and stores read them to pick
// 16-byte vector accesses; kernel arguments contribute `brick.divisibility`.
//
//===----------------------------------------------------------------------===//
#ifndef BRICK_ANALYSIS_AXISINFO_H
#define BRICK_ANALYSIS_AXISINFO_H

#include "mlir/Analysis/DataFlow/SparseAnalysis.h"
#include "mlir/Analysis/DataFlowFramework.h"
#include "mlir/IR/Operation.h"

#include <optional>

namespace mlir::brick {

class AxisInfo {
public:
  using Vector = SmallVector<int64_t, 4>;

  /// The uninitialized state (nothing known yet: the dataflow lattice's bottom).
  AxisInfo() = default;
  AxisInfo(Vector contiguity, Vector divisibility, Vector constancy, std::optional<int64_t> constant = {})
      : contiguity_(std::move(contiguity)), divisibility_(std::move(divisibility)),
        constancy_(std::move(constancy)), constant_(constant) {}

  /// What is known of a value nothing is known about (divisibility from `brick.divisibility` for arguments).
  static AxisInfo getPessimisticValueState(Value value);
  /// What holds of both.
  static AxisInfo join(const AxisInfo &lhs, const AxisInfo &rhs);

  bool isInitialized() const { return !contiguity_.empty(); }
  unsigned getRank() const { return contiguity_.size(); }
  int64_t getContiguity(unsigned d) const { return contiguity_[d]; }
  int64_t getDivisibility(unsigned d) const { return divisibility_[d]; }
  int64_t getConstancy(unsigned d) const { return constancy_[d]; }
  const Vector &getContiguity() const { return contiguity_; }
  const Vector &getDivisibility() const { return divisibility_; }
  const Vector &getConstancy() const { return constancy_; }
  std::optional<int64_t> getConstantValue() const { return constant_; }

  bool operator==(const AxisInfo &other) const = default;
  void print(raw_ostream &os) const;

private:
  Vector contiguity_, divisibility_, constancy_;
  std::optional<int64_t> constant_;
};

/// The dataflow analysis that computes AxisInfo; load it into a DataFlowSolver with DeadCodeAnalysis and
/// SparseConstantPropagation (which it needs to know what code runs).
class AxisInfoAnalysis : public dataflow::SparseForwardDataFlowAnalysis<dataflow::Lattice<AxisInfo>> {
public:
  using SparseForwardDataFlowAnalysis::SparseForwardDataFlowAnalysis;
  LogicalResult visitOperation(Operation *op, ArrayRef<const dataflow::Lattice<AxisInfo> *> operands,
                               ArrayRef<dataflow::Lattice<AxisInfo> *> results) override;
  void setToEntryState(dataflow::Lattice<AxisInfo> *lattice) override;
};

/// Runs the analysis over `root` and answers queries about the values under it.
class ModuleAxisInfo {
public:
  explicit ModuleAxisInfo(Operation *root);
  /// The info of `value`; pessimistic when the analysis knows nothing.
  AxisInfo get(Value value) const;
  /// How many consecutive elements along `dim`, starting at each thread's first, are contiguous and aligned
  /// together: the widest vector (in elements) an access through `pointers` may use along `dim`.
  int64_t getVectorizableElements(Value pointers, unsigned dim) const;
  /// How many consecutive elements along `dim` a mask keeps constant (1 when there is no mask).
  int64_t getMaskConstancy(Value mask, unsigned dim) const;

private:
  DataFlowSolver solver_;
};

/// How many consecutive registers one memory instruction through `pointers` (a block with a distributed layout)
/// may cover: as many as the layout keeps contiguous, the axis info proves aligned and contiguous, the mask
/// keeps constant, and 16 bytes hold (`elementBits` each). 1 for a scalar.
unsigned getMemoryAccessWidth(const ModuleAxisInfo &axisInfo, Value pointers, Value mask, unsigned elementBits);

} // namespace mlir::brick

#endif // BRICK_ANALYSIS_AXISINFO_H
