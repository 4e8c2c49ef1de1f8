//===- Scan.cpp - associative_scan, cumsum, cumprod: inclusive scans along an axis -------------------------===//
//
// brick.scan with the user's combiner traced once, on scalars, as its region. The GPU lowering scans in
// registers, across lanes and across warps (ScanOpToLLVM.cpp); the interpreter in log2(n) whole-block steps.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

#include "brick/DSL/Ops.h"

using namespace mlir;

namespace brick {

namespace {
using Tensors = std::vector<Tensor>;
using detail::Access;
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
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis >= rank)
    return failAll("axis " + std::to_string(axis) + " is not a dimension of " + detail::describe(type), type);
  SmallVector<Value> srcs;
  SmallVector<Type> elementTypes;
  for (const Tensor &x : xs) {
    srcs.push_back(detail::Access::value(x));
    elementTypes.push_back(getElementTypeOrSelf(srcs.back().getType()));
  }
  OpBuilder &builder = kb->builder();
  Location l = kb->location(loc);
  auto scan = bir::ScanOp::create(builder, l, ValueRange(srcs).getTypes(), srcs, axis, reverse);
  {
    OpBuilder::InsertionGuard guard(builder);
    SmallVector<Type> argumentTypes(elementTypes);
    argumentTypes.append(elementTypes.begin(), elementTypes.end());
    mlir::Block *body =
        builder.createBlock(&scan.getCombiner(), {}, argumentTypes, SmallVector<Location>(argumentTypes.size(), l));
    Tensors accumulated, next;
    for (size_t i = 0; i < xs.size(); ++i) {
      accumulated.push_back(Access::wrap(body->getArgument(i)));
      next.push_back(Access::wrap(body->getArgument(xs.size() + i)));
    }
    Tensors combined = combine(accumulated, next);
    SmallVector<Value> yielded;
    bool fits = combined.size() == xs.size();
    for (size_t i = 0; fits && i < xs.size(); ++i) {
      Value v = combined[i].isSet() ? kb->use(combined[i], "associative_scan combiner", loc) : Value();
      if (!v || kb->isPoison(v)) {
        fits = false; // the combiner's own error was reported
        break;
      }
      if (v.getType() != elementTypes[i]) {
        kb->error(loc, "associative_scan: the combiner must return scalars of its operands' types: value " +
                           std::to_string(i) + " is " + detail::describe(v.getType()) + ", expected " +
                           detail::describe(elementTypes[i]));
        fits = false;
        break;
      }
      yielded.push_back(v);
    }
    if (!fits && combined.size() != xs.size())
      kb->error(loc, "associative_scan: the combiner returns " + std::to_string(combined.size()) + " values for " +
                         std::to_string(xs.size()) + " operands");
    if (!fits) {
      yielded.clear();
      for (Type t : elementTypes)
        yielded.push_back(kb->constant(t, 0, loc));
    }
    bir::ScanReturnOp::create(builder, l, yielded);
  }
  Tensors ys;
  for (Value result : scan.getResults())
    ys.push_back(Access::wrap(result));
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
