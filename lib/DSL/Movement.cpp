//===- Movement.cpp - join, split, cat, permute, flip: moving data inside a block ------------------------===//
//
// Composed from the DSL's own ops (expand_dims, where, sum, trans, reshape), so every device runs them the way
// it runs those, and they are exact: a split sums one element with -0.0 (or 0), which gives it back unchanged,
// signed zeros and NaNs included.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

#include "brick/DSL/Ops.h"

using namespace mlir;

namespace brick {

using detail::blockType;

namespace detail {
RankedTensorType blockType(const char *what, const Tensor &x, Loc loc, bool allowScalar) {
  KernelBuilder *kb = KernelBuilder::current(what, loc);
  if (!kb)
    return {};
  Value value = kb->use(x, what, loc);
  if (!value || kb->isPoison(value))
    return {};
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type && !allowScalar)
    kb->error(loc, std::string(what) + ": needs a block, got the scalar " + describe(value.getType()));
  return type;
}

std::pair<std::vector<int32_t>, std::vector<int32_t>> axisLastOrders(int rank, int axis) {
  std::vector<int32_t> toLast, back(rank);
  for (int d = 0; d < rank; ++d)
    if (d != axis)
      toLast.push_back(d);
  toLast.push_back(axis);
  for (int d = 0; d < rank; ++d)
    back[toLast[d]] = d;
  return {toLast, back};
}
} // namespace detail

Tensor join(const Tensor &a, const Tensor &b, Loc loc) {
  KernelBuilder *kb = KernelBuilder::current("join", loc);
  if (!kb)
    return {};
  if (!a.isSet() || !b.isSet())
    return kb->fail(loc, "join: an operand is an unset handle");
  if (a.shape(loc) != b.shape(loc) || a.dtype() != b.dtype() || a.isPointer() != b.isPointer())
    return kb->fail(loc, "join: operands of different shapes or types: " +
                             detail::describe(detail::Access::value(a).getType()) + " and " +
                             detail::describe(detail::Access::value(b).getType()));
  int64_t rank = a.rank(loc);
  Tensor pick = arange(0, 2, loc);
  Tensor first = rank ? a.expand_dims(int(rank), loc) : a, second = rank ? b.expand_dims(int(rank), loc) : b;
  return where(Operand(pick, loc) == Operand(0, loc), first, second, loc);
}

std::pair<Tensor, Tensor> split(const Tensor &x, Loc loc) {
  RankedTensorType type = blockType("split", x, loc);
  if (!type)
    return {x, x};
  KernelBuilder *kb = KernelBuilder::current("split", loc);
  if (type.getShape().back() != 2) {
    Tensor bad = kb->fail(loc, "split: the last dimension must be 2, got " + detail::describe(type));
    return {bad, bad};
  }
  if (x.isPointer()) {
    Tensor bad = kb->fail(loc, "split: a block of pointers cannot be split; split the offsets before adding them");
    return {bad, bad};
  }
  int axis = int(type.getRank()) - 1;
  Tensor pick = arange(0, 2, loc);
  DType dtype = x.dtype();
  // -0.0 + v is v for every float v (+0.0 and -0.0 included); 0 + v for integers.
  Operand nothing = isFloat(dtype) ? Operand(-0.0, loc) : Operand(0, loc);
  auto half = [&](int index) {
    Tensor only = where(Operand(pick, loc) == Operand(index, loc), x, nothing, loc);
    return sum(only, axis, loc).to(dtype, loc);
  };
  return {half(0), half(1)};
}

Tensor permute(const Tensor &x, std::vector<int32_t> order, Loc loc) { return x.trans(std::move(order), loc); }

Tensor cat(const Tensor &a, const Tensor &b, Loc loc) {
  KernelBuilder *kb = KernelBuilder::current("cat", loc);
  if (!kb)
    return {};
  RankedTensorType type = blockType("cat", a, loc);
  if (!type || !blockType("cat", b, loc))
    return kb->poison();
  Tensor joined = join(a, b, loc); // [n, ..., 2]
  int rank = int(type.getRank());
  std::vector<int32_t> order = detail::axisLastOrders(rank + 1, 0).second; // the last dimension first
  std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end());
  shape[0] *= 2;
  return joined.trans(order, loc).reshape(shape, loc); // [2, n, ...] -> [2n, ...]: a's rows, then b's
}

Tensor flip(const Tensor &x, int axis, Loc loc) {
  RankedTensorType type = blockType("flip", x, loc);
  if (!type)
    return x;
  KernelBuilder *kb = KernelBuilder::current("flip", loc);
  int rank = int(type.getRank());
  if (axis < 0 || axis >= rank)
    return kb->fail(loc, "flip: axis " + std::to_string(axis) + " is not a dimension of " + detail::describe(type),
                    type);
  int64_t length = type.getDimSize(axis);
  if (length == 1)
    return x;
  // Index i along the axis has bits b_k..b_0; reversing the axis complements every bit: swap the halves of each
  // bit's size-2 dimension in turn. The axis becomes k dimensions of 2 (most significant first).
  int bits = 0;
  while ((int64_t(1) << bits) < length)
    ++bits;
  std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end()), expanded;
  for (int d = 0; d < rank; ++d) {
    if (d == axis)
      expanded.insert(expanded.end(), bits, 2);
    else
      expanded.push_back(shape[d]);
  }
  Tensor y = x.reshape(expanded, loc);
  int expandedRank = int(expanded.size());
  for (int bit = 0; bit < bits; ++bit) {
    // Move the bit's dimension last, swap its two halves, move it back.
    auto [toLast, back] = detail::axisLastOrders(expandedRank, axis + bit);
    auto [low, high] = split(y.trans(toLast, loc), loc);
    y = join(high, low, loc).trans(back, loc);
  }
  return y.reshape(shape, loc);
}

Tensor gather(const Tensor &x, const Tensor &indices, int axis, Loc loc) {
  RankedTensorType type = blockType("gather", x, loc);
  RankedTensorType indexType = type ? blockType("gather", indices, loc) : RankedTensorType();
  if (!type || !indexType)
    return x;
  KernelBuilder *kb = KernelBuilder::current("gather", loc);
  int rank = int(type.getRank());
  if (axis < 0)
    axis += rank;
  auto resultType = RankedTensorType::get(indexType.getShape(), type.getElementType());
  if (axis < 0 || axis >= rank)
    return kb->fail(loc, "gather: axis " + std::to_string(axis) + " is not a dimension of " + detail::describe(type),
                    resultType);
  if (!isa<IntegerType>(indexType.getElementType()))
    return kb->fail(loc, "gather: indices must be integers, got " + detail::describe(indexType), resultType);
  bool fits = indexType.getRank() == type.getRank();
  for (int d = 0; fits && d < rank; ++d)
    fits = d == axis || indexType.getDimSize(d) == type.getDimSize(d);
  if (!fits)
    return kb->fail(loc, "gather: indices " + detail::describe(indexType) + " must have the shape of " +
                             detail::describe(type) + " but along axis " + std::to_string(axis),
                    resultType);
  return detail::Access::wrap(bir::GatherOp::create(kb->builder(), kb->location(loc), resultType,
                                                    detail::Access::value(x), detail::Access::value(indices), axis)
                                  .getResult());
}

} // namespace brick
