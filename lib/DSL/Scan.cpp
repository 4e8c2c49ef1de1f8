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

/// result[j] = t[j - 1] along the last dimension (result[0] is one of t's values: callers mask it).
Tensor shiftedByOne(const Tensor &t, const std::vector<int64_t> &leading, int64_t n, Loc loc) {
  if (n == 1)
    return t;
  auto [even, odd] = split(t.reshape(pairsOf(leading, n), loc), loc); // t[2k], t[2k + 1]
  // result[2k + 1] = t[2k]; result[2k] = t[2k - 1] = odd[k - 1].
  return join(shiftedByOne(odd, leading, n / 2, loc), even, loc).reshape(lastIs(leading, n), loc);
}

Tensor scanLast(const Tensor &x, const std::vector<int64_t> &leading, int64_t n,
                const std::function<Tensor(Tensor, Tensor)> &combine, Loc loc) {
  if (n == 1)
    return x;
  auto [even, odd] = split(x.reshape(pairsOf(leading, n), loc), loc);
  Tensor odds = scanLast(combine(even, odd), leading, n / 2, combine, loc); // x[0] .. x[2j + 1]
  Tensor before = shiftedByOne(odds, leading, n / 2, loc);                  // x[0] .. x[2j - 1]
  Tensor first = Operand(arange(0, n / 2, loc), loc) == Operand(0, loc);
  Tensor evens = where(first, even, combine(before, even), loc);
  return join(evens, odds, loc).reshape(lastIs(leading, n), loc);
}

} // namespace

Tensor associative_scan(const Tensor &x, int axis, const std::function<Tensor(Tensor, Tensor)> &combine,
                        bool reverse, Loc loc) {
  KernelBuilder *kb = KernelBuilder::current("associative_scan", loc);
  if (!kb)
    return {};
  if (!x.isSet())
    return kb->fail(loc, "associative_scan: an unset handle");
  Value value = detail::Access::value(x);
  if (kb->isPoison(value))
    return x;
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type)
    return kb->fail(loc, "associative_scan: needs a block, got the scalar " + detail::describe(value.getType()),
                    value.getType());
  if (x.isPointer())
    return kb->fail(loc, "associative_scan: scans numbers, not " + detail::describe(type), type);
  int rank = int(type.getRank());
  if (axis < 0 || axis >= rank)
    return kb->fail(loc, "associative_scan: axis " + std::to_string(axis) + " is not a dimension of " +
                             detail::describe(type), type);
  // The axis last, scanned, put back (reversed: flipped before and after).
  std::vector<int32_t> toLast, back(rank);
  for (int d = 0; d < rank; ++d)
    if (d != axis)
      toLast.push_back(d);
  toLast.push_back(axis);
  for (int d = 0; d < rank; ++d)
    back[toLast[d]] = d;
  Tensor y = axis == rank - 1 ? x : x.trans(toLast, loc);
  std::vector<int64_t> shape = y.shape(loc);
  std::vector<int64_t> leading(shape.begin(), shape.end() - 1);
  if (reverse)
    y = flip(y, rank - 1, loc);
  Tensor probe = combine(y, y); // the combiner must keep the block's shape and type
  if (!probe.isSet() || probe.shape(loc) != shape || probe.dtype() != y.dtype())
    return kb->fail(loc, "associative_scan: the combiner must return a block of its operands' shape and type, "
                         "elementwise", type);
  y = scanLast(y, leading, shape.back(), combine, loc);
  if (reverse)
    y = flip(y, rank - 1, loc);
  return axis == rank - 1 ? y : y.trans(back, loc);
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
