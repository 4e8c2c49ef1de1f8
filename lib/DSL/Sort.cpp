//===- Sort.cpp - sort and topk along a block's last dimension: a bitonic network of compare-exchanges ------===//
//
// Each stage compares elements i and i ^ stride: the block is reshaped so that the bit `stride` is a dimension of
// 2, which split separates; minimum/maximum order each pair in the direction its bitonic sequence needs; join
// and reshape put them back. log2(n) (log2(n) + 1) / 2 stages, from the DSL's own ops, so every device sorts
// alike. NaNs compare false and land where the network leaves them.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

#include "brick/DSL/Ops.h"

using namespace mlir;

namespace brick {

Tensor sort(const Tensor &x, bool descending, Loc loc) {
  RankedTensorType type = detail::blockType("sort", x, loc);
  if (!type)
    return x;
  KernelBuilder *kb = KernelBuilder::current("sort", loc);
  if (x.isPointer() || x.dtype() == DType::I1)
    return kb->fail(loc, "sort: sorts numbers, not " + detail::describe(type), type);
  if (x.dtype() == DType::F8E4M3 || x.dtype() == DType::F8E5M2)
    return kb->fail(loc, "sort: 8-bit floats are not compared; convert with .to<f32>() first", type);
  std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end()), leading(shape.begin(), shape.end() - 1);
  int64_t n = shape.back();
  Tensor y = x;
  for (int64_t size = 2; size <= n; size *= 2) {
    for (int64_t stride = size / 2; stride >= 1; stride /= 2) {
      int64_t groups = n / (2 * stride);
      // [..., groups, 2, stride] -> [..., groups, stride, 2]: the pair (i, i ^ stride) along the last dimension.
      std::vector<int64_t> pairsShape = leading;
      pairsShape.insert(pairsShape.end(), {groups, 2, stride});
      // Swapping the last two dimensions is its own inverse.
      std::vector<int32_t> pairLast = detail::axisLastOrders(int(pairsShape.size()), int(pairsShape.size()) - 2).first;
      auto [a, b] = split(y.reshape(pairsShape, loc).trans(pairLast, loc), loc); // [..., groups, stride] each
      // Pairs in group g ascend where bit `size` of their index is clear (the final stage: everywhere).
      Tensor group = arange(0, groups, loc) * (2 * stride);
      Tensor ascending = ((Operand(group, loc) & Operand(size, loc)) == Operand(0, loc)).column(loc);
      if (descending)
        ascending = !Operand(ascending, loc);
      Tensor low = minimum(a, b, loc), high = maximum(a, b, loc);
      Tensor first = where(ascending, low, high, loc), second = where(ascending, high, low, loc);
      y = join(first, second, loc).trans(pairLast, loc).reshape(shape, loc);
    }
  }
  return y;
}

Tensor topk(const Tensor &x, int64_t k, Loc loc) {
  KernelBuilder *kb = KernelBuilder::current("topk", loc);
  if (!kb)
    return {};
  if (!x.isSet())
    return kb->fail(loc, "topk: an unset handle");
  std::vector<int64_t> shape = x.shape(loc);
  if (shape.empty())
    return kb->fail(loc, "topk: needs a block, got a scalar");
  if (x.dtype() == DType::F8E4M3 || x.dtype() == DType::F8E5M2)
    return kb->fail(loc, "topk: 8-bit floats are not compared; convert with .to<f32>() first");
  int64_t n = shape.back();
  if (k < 1 || k > n || (k & (k - 1)))
    return kb->fail(loc, "topk: k must be a power of two from 1 to the last dimension (" + std::to_string(n) +
                             "), got " + std::to_string(k),
                    detail::Access::value(x).getType());
  Tensor y = sort(x, /*descending=*/true, loc);
  // Keep the first half of the last dimension until k remain.
  for (int64_t size = n; size > k; size /= 2) {
    std::vector<int64_t> halves(shape.begin(), shape.end() - 1);
    halves.insert(halves.end(), {2, size / 2});
    y = split(y.reshape(halves, loc).trans(detail::axisLastOrders(int(halves.size()), int(halves.size()) - 2).first, loc),
              loc).first;
  }
  return y;
}

} // namespace brick
