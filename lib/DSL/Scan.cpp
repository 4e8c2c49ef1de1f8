//===- Scan.cpp - associative_scan, cumsum, cumprod: inclusive scans along an axis -------------------------===//
//
// Composed from split/join (so every device scans alike): the pairs (x[2j], x[2j+1]) combine into a scan of half
// the length, whose values are the odd results; each even result combines the odd result before it with its own
// element. "The odd result before it" shifts a block by one along the axis, itself a halving recursion. For n
// elements: log2(n) levels, each with a shift of log2 depth: O(log^2 n) block ops. A first version: the dedicated
// lowering (in-thread, shfl.sync.up, then across warps through shared memory) is still to come.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

#include "brick/DSL/Ops.h"

using namespace mlir;

namespace brick {

namespace {

std::vector<int64_t> pairsOf(std::vector<int64_t> leading, int64_t n) {
  leading.insert(leading.end(), {n / 2, 2});
  return leading;
}

std::vector<int64_t> lastIs(std::vector<int64_t> leading, int64_t n) {
  leading.push_back(n);
  return leading;
}

using Tensors = std::vector<Tensor>;
using Combine = std::function<Tensors(Tensors, Tensors)>;

/// Each operand's even and odd elements along the last dimension.
std::pair<Tensors, Tensors> halves(const Tensors &xs, const std::vector<int64_t> &leading, int64_t n, Loc loc) {
  Tensors even, odd;
  for (const Tensor &x : xs) {
    auto [e, o] = split(x.reshape(pairsOf(leading, n), loc), loc);
    even.push_back(e), odd.push_back(o);
  }
  return {even, odd};
}

Tensors interleaved(const Tensors &even, const Tensors &odd, const std::vector<int64_t> &leading, int64_t n, Loc loc) {
  Tensors out;
  for (size_t i = 0; i < even.size(); ++i)
    out.push_back(join(even[i], odd[i], loc).reshape(lastIs(leading, n), loc));
  return out;
}

/// result[j] = t[j - 1] along the last dimension (result[0] is one of t's values: callers mask it).
Tensors shiftedByOne(const Tensors &t, const std::vector<int64_t> &leading, int64_t n, Loc loc) {
  if (n == 1)
    return t;
  auto [even, odd] = halves(t, leading, n, loc); // t[2k], t[2k + 1]
  // result[2k + 1] = t[2k]; result[2k] = t[2k - 1] = odd[k - 1].
  return interleaved(shiftedByOne(odd, leading, n / 2, loc), even, leading, n, loc);
}

Tensors scanLast(const Tensors &xs, const std::vector<int64_t> &leading, int64_t n, const Combine &combine, Loc loc) {
  if (n == 1)
    return xs;
  auto [even, odd] = halves(xs, leading, n, loc);
  Tensors odds = scanLast(combine(even, odd), leading, n / 2, combine, loc); // x[0] .. x[2j + 1]
  Tensors before = shiftedByOne(odds, leading, n / 2, loc);                  // x[0] .. x[2j - 1]
  Tensor first = Operand(arange(0, n / 2, loc), loc) == Operand(0, loc);
  Tensors combined = combine(before, even), evens;
  for (size_t i = 0; i < xs.size(); ++i)
    evens.push_back(where(first, even[i], combined[i], loc));
  return interleaved(evens, odds, leading, n, loc);
}

} // namespace

std::vector<Tensor> associative_scan(const std::vector<Tensor> &xs, int axis,
                                     const std::function<std::vector<Tensor>(std::vector<Tensor>, std::vector<Tensor>)> &combine,
                                     bool reverse, Loc loc) {
  KernelBuilder *kb = KernelBuilder::current("associative_scan", loc);
  if (!kb)
    return xs;
  if (xs.empty()) {
    kb->error(loc, "associative_scan: give at least one block");
    return xs;
  }
  auto failAll = [&](const std::string &message, Type type) {
    kb->error(loc, "associative_scan: " + message);
    return Tensors(xs.size(), kb->poison(type));
  };
  RankedTensorType type;
  for (const Tensor &x : xs) {
    if (!x.isSet())
      return failAll("an unset handle", {});
    Value value = detail::Access::value(x);
    if (kb->isPoison(value))
      return xs;
    auto block = dyn_cast<RankedTensorType>(value.getType());
    if (!block)
      return failAll("needs blocks, got the scalar " + detail::describe(value.getType()), value.getType());
    if (x.isPointer())
      return failAll("scans numbers, not " + detail::describe(block), block);
    if (type && block.getShape() != type.getShape())
      return failAll("its blocks have different shapes: " + detail::describe(type) + " and " + detail::describe(block),
                     block);
    type = block;
  }
  int rank = int(type.getRank());
  if (axis < 0 || axis >= rank)
    return failAll("axis " + std::to_string(axis) + " is not a dimension of " + detail::describe(type), type);
  // The axis last, scanned, put back (reversed: flipped before and after).
  auto [toLast, back] = detail::axisLastOrders(rank, axis);
  Tensors ys;
  for (const Tensor &x : xs) {
    Tensor y = axis == rank - 1 ? x : x.trans(toLast, loc);
    ys.push_back(reverse ? flip(y, rank - 1, loc) : y);
  }
  std::vector<int64_t> shape = ys.front().shape(loc);
  std::vector<int64_t> leading(shape.begin(), shape.end() - 1);
  // The combiner must keep the blocks' shapes and types.
  Tensors probe = combine(ys, ys);
  if (probe.size() != ys.size())
    return failAll("the combiner returns " + std::to_string(probe.size()) + " blocks for " +
                   std::to_string(ys.size()), type);
  for (size_t i = 0; i < ys.size(); ++i)
    if (!probe[i].isSet() || probe[i].shape(loc) != shape || probe[i].dtype() != ys[i].dtype())
      return failAll("the combiner must return blocks of its operands' shapes and types, elementwise", type);
  ys = scanLast(ys, leading, shape.back(), combine, loc);
  for (Tensor &y : ys) {
    if (reverse)
      y = flip(y, rank - 1, loc);
    if (axis != rank - 1)
      y = y.trans(back, loc);
  }
  return ys;
}

Tensor associative_scan(const Tensor &x, int axis, const std::function<Tensor(Tensor, Tensor)> &combine, bool reverse,
                        Loc loc) {
  Tensors out = associative_scan(
      Tensors{x}, axis, [&](Tensors a, Tensors b) { return Tensors{combine(a[0], b[0])}; }, reverse, loc);
  return out.empty() ? Tensor() : out.front();
}

namespace {
/// Sums and products of narrow types accumulate in i32 / f32, as sum does.
Tensor widened(const Tensor &x, Loc loc) {
  if (!x.isSet() || x.isPointer())
    return x;
  switch (x.dtype()) {
  case DType::I1:
  case DType::I8:
  case DType::I16: return x.to(DType::I32, loc);
  case DType::F16:
  case DType::BF16: return x.to(DType::F32, loc);
  default: return x;
  }
}
} // namespace

Tensor cumsum(const Tensor &x, int axis, bool reverse, Loc loc) {
  return associative_scan(widened(x, loc), axis, [loc](Tensor a, Tensor b) { return Operand(a, loc) + Operand(b, loc); },
                          reverse, loc);
}

Tensor cumprod(const Tensor &x, int axis, bool reverse, Loc loc) {
  return associative_scan(widened(x, loc), axis, [loc](Tensor a, Tensor b) { return Operand(a, loc) * Operand(b, loc); },
                          reverse, loc);
}

} // namespace brick
