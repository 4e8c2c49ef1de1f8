//===- Hints.cpp - multiple_of, max_contiguous, max_constancy (brick.hint), assume (brick.assume) --------===//

#include "KernelBuilder.h"

#include "brick/DSL/Ops.h"

using namespace mlir;
namespace bir = mlir::brick;

namespace brick {

namespace {

/// `x` with one fact per dimension stated; `which` picks the hint's attribute.
Tensor hint(const char *what, const Tensor &x, const std::vector<int64_t> &values, int which, Loc loc) {
  KernelBuilder *kb = KernelBuilder::current(what, loc);
  if (!kb)
    return {};
  Value value = kb->use(x, what, loc);
  if (!value || kb->isPoison(value))
    return detail::Access::wrap(value);
  Type element = getElementTypeOrSelf(value.getType());
  if (!isa<IntegerType>(element) || element.isInteger(1))
    return kb->fail(loc, std::string(what) + ": hints describe integer values (offsets, indices), not " +
                             detail::describe(value.getType()) +
                             "; state them on the offsets before adding them to a pointer",
                    value.getType());
  auto tensor = dyn_cast<RankedTensorType>(value.getType());
  size_t dimensions = tensor ? size_t(tensor.getRank()) : 1;
  std::vector<int64_t> perDimension = values;
  if (perDimension.size() != dimensions)
    return kb->fail(loc, std::string(what) + ": give one value per dimension of " + detail::describe(value.getType()) +
                             " (" + std::to_string(dimensions) + "), got " + std::to_string(values.size()),
                    value.getType());
  for (size_t d = 0; d < dimensions; ++d) {
    int64_t v = perDimension[d];
    if (v < 1 || (v & (v - 1)))
      return kb->fail(loc, std::string(what) + ": " + std::to_string(v) + " (dimension " + std::to_string(d) +
                               ") is not a positive power of two",
                      value.getType());
    if (which != 0 && v > (tensor ? tensor.getDimSize(d) : 1))
      return kb->fail(loc, std::string(what) + ": runs of " + std::to_string(v) + " (dimension " + std::to_string(d) +
                               ") are longer than the dimension",
                      value.getType());
  }
  auto attribute = kb->builder().getDenseI64ArrayAttr(perDimension);
  auto op = bir::HintOp::create(kb->builder(), kb->location(loc), value, which == 0 ? attribute : nullptr,
                                which == 1 ? attribute : nullptr, which == 2 ? attribute : nullptr);
  return detail::Access::wrap(op.getResult());
}

} // namespace

Tensor multiple_of(const Tensor &x, std::vector<int64_t> divisors, Loc loc) {
  return hint("multiple_of", x, divisors, 0, loc);
}
Tensor max_contiguous(const Tensor &x, std::vector<int64_t> runs, Loc loc) {
  return hint("max_contiguous", x, runs, 1, loc);
}
Tensor max_constancy(const Tensor &x, std::vector<int64_t> runs, Loc loc) {
  return hint("max_constancy", x, runs, 2, loc);
}

void assume(const Operand &condition, Loc loc) {
  KernelBuilder *kb = KernelBuilder::current("assume", loc);
  if (!kb)
    return;
  Value cond = kb->use(condition, kb->builder().getI1Type(), "assume", loc);
  if (!cond || kb->isPoison(cond))
    return;
  if (!getElementTypeOrSelf(cond.getType()).isInteger(1)) {
    kb->error(loc, "assume: the condition must be a comparison (i1), got " + detail::describe(cond.getType()));
    return;
  }
  bir::AssumeOp::create(kb->builder(), kb->location(loc), cond);
}

} // namespace brick
