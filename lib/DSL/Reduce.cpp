//===- Reduce.cpp - Reductions along an axis, and dot ------------------------===//

#include "KernelBuilder.h"
#include "brick/Dialect/Brick/Float8.h"

using namespace mlir;

namespace brick {

namespace {
using Combiner = std::function<SmallVector<Value>(KernelBuilder &, ArrayRef<Value> accumulated, ArrayRef<Value> next)>;

/// Checks `x` for a reduction along `axis` (negative counts from the end); the normalized axis, or -1.
int checkReduction(KernelBuilder &kb, Value x, int axis, const char *what, Loc loc) {
  auto type = dyn_cast<RankedTensorType>(x.getType());
  if (!type) {
    kb.error(loc, std::string(what) + ": cannot reduce a scalar (" + detail::describe(x.getType()) + ")");
    return -1;
  }
  int rank = static_cast<int>(type.getRank());
  int normalized = axis < 0 ? axis + rank : axis;
  if (normalized < 0 || normalized >= rank) {
    kb.error(loc, std::string(what) + ": axis " + std::to_string(axis) + " is out of range for " +
                      detail::describe(type) + " (rank " + std::to_string(rank) + ")");
    return -1;
  }
  if (isa<bir::PointerType>(type.getElementType())) {
    kb.error(loc, std::string(what) + ": cannot reduce pointers (" + detail::describe(type) + ")");
    return -1;
  }
  return normalized;
}

Type reducedType(Value x, int axis) {
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape.erase(shape.begin() + axis);
  return shape.empty() ? type.getElementType() : Type(RankedTensorType::get(shape, type.getElementType()));
}

/// Builds brick.reduce over `srcs` (one shape) along `axis` with `combine` as its region.
SmallVector<Value> buildReduce(KernelBuilder &kb, ArrayRef<Value> srcs, int axis, const Combiner &combine, Loc loc) {
  OpBuilder &builder = kb.builder();
  Location l = kb.location(loc);
  SmallVector<Type> resultTypes, elementTypes;
  for (Value src : srcs) {
    resultTypes.push_back(reducedType(src, axis));
    elementTypes.push_back(getElementTypeOrSelf(src.getType()));
  }
  auto reduce = bir::ReduceOp::create(builder, l, resultTypes, srcs, axis);
  OpBuilder::InsertionGuard guard(builder);
  SmallVector<Type> argumentTypes(elementTypes);
  argumentTypes.append(elementTypes.begin(), elementTypes.end());
  Block *body = builder.createBlock(&reduce.getCombiner(), {}, argumentTypes,
                                    SmallVector<Location>(argumentTypes.size(), l));
  size_t n = srcs.size();
  SmallVector<Value> args(body->getArguments().begin(), body->getArguments().end());
  SmallVector<Value> combined = combine(kb, ArrayRef<Value>(args).take_front(n), ArrayRef<Value>(args).drop_front(n));
  bir::ReduceReturnOp::create(builder, l, combined);
  return SmallVector<Value>(reduce.getResults().begin(), reduce.getResults().end());
}

/// sum / max / min: one block, a combiner per element kind.
Tensor simpleReduce(const char *what, const Tensor &x, int axis, Loc loc,
                    Value (*combineFloat)(OpBuilder &, Location, Value, Value),
                    Value (*combineInt)(OpBuilder &, Location, Value, Value), bool widenForSum) {
  KernelBuilder *current = KernelBuilder::current(what, loc);
  if (!current)
    return {};
  KernelBuilder &kb = *current;
  Value value = kb.use(x, what, loc);
  if (!value)
    return kb.poison();
  if (kb.isPoison(value))
    return kb.poison(getElementTypeOrSelf(value.getType()));
  int normalized = checkReduction(kb, value, axis, what, loc);
  if (normalized < 0)
    return kb.poison(getElementTypeOrSelf(value.getType()));
  Type element = getElementTypeOrSelf(value.getType());
  if (bir::isFloat8(element))
    return kb.fail(loc, std::string(what) + ": 8-bit floats are not computed with; convert with .to<f32>() first",
                   kb.builder().getF32Type());
  if (widenForSum) {
    // Sums of narrow types would overflow or lose precision: add in i32 / f32, as Triton does.
    if (element.isInteger() && element.getIntOrFloatBitWidth() < 32)
      value = kb.convert(value, kb.builder().getI32Type(), loc);
    else if (element.isF16() || element.isBF16())
      value = kb.convert(value, kb.builder().getF32Type(), loc);
  }
  bool isFloatElement = isa<FloatType>(getElementTypeOrSelf(value.getType()));
  auto combine = [&](KernelBuilder &k, ArrayRef<Value> acc, ArrayRef<Value> next) -> SmallVector<Value> {
    Location l = k.location(loc);
    return {isFloatElement ? combineFloat(k.builder(), l, acc[0], next[0]) : combineInt(k.builder(), l, acc[0], next[0])};
  };
  return Access::wrap(buildReduce(kb, {value}, normalized, combine, loc)[0]);
}

/// argmax / argmin: reduces (value, index) pairs, keeping the first index on ties.
Tensor argReduce(const char *what, const Tensor &x, int axis, bool isMax, Loc loc) {
  KernelBuilder *current = KernelBuilder::current(what, loc);
  if (!current)
    return {};
  KernelBuilder &kb = *current;
  Value value = kb.use(x, what, loc);
  Type i32 = kb.builder().getI32Type();
  if (!value)
    return kb.poison(i32);
  if (kb.isPoison(value))
    return kb.poison(i32);
  int normalized = checkReduction(kb, value, axis, what, loc);
  if (normalized < 0)
    return kb.poison(i32);
  if (bir::isFloat8(getElementTypeOrSelf(value.getType())))
    return kb.fail(loc, std::string(what) + ": 8-bit floats are not compared; convert with .to<f32>() first", i32);
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getElementType().isInteger(1))
    value = kb.convert(value, i32, loc), type = cast<RankedTensorType>(value.getType());
  Location l = kb.location(loc);
  OpBuilder &builder = kb.builder();
  // The index of every element along `axis`: a range shaped [1, .., D, .., 1], broadcast to x's shape.
  int64_t length = type.getDimSize(normalized);
  Value index = bir::MakeRangeOp::create(builder, l, RankedTensorType::get({length}, i32), 0, static_cast<int32_t>(length));
  SmallVector<int64_t> unitShape(type.getRank(), 1);
  unitShape[normalized] = length;
  if (type.getRank() > 1)
    index = bir::ReshapeOp::create(builder, l, RankedTensorType::get(unitShape, i32), index);
  index = kb.broadcastTo(index, type.getShape(), what, loc);
  bool isFloatElement = isa<FloatType>(type.getElementType());
  auto combine = [&](KernelBuilder &k, ArrayRef<Value> acc, ArrayRef<Value> next) -> SmallVector<Value> {
    OpBuilder &b = k.builder();
    Value better = isFloatElement
                       ? Value(arith::CmpFOp::create(b, l, isMax ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT,
                                                     next[0], acc[0]))
                       : Value(arith::CmpIOp::create(b, l, isMax ? arith::CmpIPredicate::sgt : arith::CmpIPredicate::slt,
                                                     next[0], acc[0]));
    Value equal = isFloatElement ? Value(arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, next[0], acc[0]))
                                 : Value(arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, next[0], acc[0]));
    Value earlier = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, next[1], acc[1]);
    Value take = arith::OrIOp::create(b, l, better, arith::AndIOp::create(b, l, equal, earlier));
    return {arith::SelectOp::create(b, l, take, next[0], acc[0]), arith::SelectOp::create(b, l, take, next[1], acc[1])};
  };
  return Access::wrap(buildReduce(kb, {value, index}, normalized, combine, loc)[1]);
}
} // namespace

Tensor sum(const Tensor &x, int axis, Loc loc) {
  return simpleReduce(
      "sum", x, axis, loc,
      [](OpBuilder &b, Location l, Value p, Value q) -> Value { return arith::AddFOp::create(b, l, p, q); },
      [](OpBuilder &b, Location l, Value p, Value q) -> Value { return arith::AddIOp::create(b, l, p, q); }, true);
}
Tensor max(const Tensor &x, int axis, Loc loc) {
  return simpleReduce(
      "max", x, axis, loc,
      [](OpBuilder &b, Location l, Value p, Value q) -> Value { return arith::MaxNumFOp::create(b, l, p, q); },
      [](OpBuilder &b, Location l, Value p, Value q) -> Value { return arith::MaxSIOp::create(b, l, p, q); }, false);
}
Tensor min(const Tensor &x, int axis, Loc loc) {
  return simpleReduce(
      "min", x, axis, loc,
      [](OpBuilder &b, Location l, Value p, Value q) -> Value { return arith::MinNumFOp::create(b, l, p, q); },
      [](OpBuilder &b, Location l, Value p, Value q) -> Value { return arith::MinSIOp::create(b, l, p, q); }, false);
}
Tensor argmax(const Tensor &x, int axis, Loc loc) { return argReduce("argmax", x, axis, true, loc); }
Tensor argmin(const Tensor &x, int axis, Loc loc) { return argReduce("argmin", x, axis, false, loc); }

Tensor reduce(const Tensor &x, int axis, const std::function<Tensor(Tensor, Tensor)> &combine, Loc loc) {
  KernelBuilder *current = KernelBuilder::current("reduce", loc);
  if (!current)
    return {};
  KernelBuilder &kb = *current;
  Value value = kb.use(x, "reduce", loc);
  if (!value)
    return kb.poison();
  if (kb.isPoison(value))
    return kb.poison(getElementTypeOrSelf(value.getType()));
  int normalized = checkReduction(kb, value, axis, "reduce", loc);
  if (normalized < 0)
    return kb.poison(getElementTypeOrSelf(value.getType()));
  Type element = getElementTypeOrSelf(value.getType());
  auto userCombine = [&](KernelBuilder &k, ArrayRef<Value> acc, ArrayRef<Value> next) -> SmallVector<Value> {
    Value result = k.use(combine(Access::wrap(acc[0]), Access::wrap(next[0])), "reduce combiner", loc);
    if (!result || k.isPoison(result))
      return {k.constant(element, 0, loc)};
    if (result.getType() != element) {
      k.error(loc, "reduce: the combiner must return a scalar " + detail::describe(element) + ", got " +
                       detail::describe(result.getType()));
      return {k.constant(element, 0, loc)};
    }
    return {result};
  };
  return Access::wrap(buildReduce(kb, {value}, normalized, userCombine, loc)[0]);
}

namespace {
Tensor dotImpl(const Tensor &a, const Tensor &b, const Tensor *acc, std::optional<Precision> precision,
               const Operand *zeroRowsFrom, Loc loc) {
  KernelBuilder *current = KernelBuilder::current("dot", loc);
  if (!current)
    return {};
  KernelBuilder &kb = *current;
  Value x = kb.use(a, "dot", loc), y = x ? kb.use(b, "dot", loc) : Value();
  Value c = (y && acc) ? kb.use(*acc, "dot", loc) : Value();
  if (!x || !y || (acc && !c))
    return kb.poison();
  Type f32 = kb.builder().getF32Type();
  for (Value v : {x, y, c})
    if (v && kb.isPoison(v))
      return kb.poison(c ? c.getType() : Type(f32));
  auto aType = dyn_cast<RankedTensorType>(x.getType()), bType = dyn_cast<RankedTensorType>(y.getType());
  // [M, K] x [K, N], or batched: [B, M, K] x [B, K, N].
  if (!aType || (aType.getRank() != 2 && aType.getRank() != 3))
    return kb.fail(loc, "dot: a must be a 2-D block (or 3-D: batch, rows, K), got " + detail::describe(x.getType()));
  bool batched = aType.getRank() == 3;
  if (!bType || bType.getRank() != aType.getRank())
    return kb.fail(loc, std::string("dot: b must be a ") + (batched ? "3-D block like a" : "2-D block") + ", got " +
                            detail::describe(y.getType()));
  if (batched && bType.getDimSize(0) != aType.getDimSize(0))
    return kb.fail(loc, "dot: a and b have different batch sizes: " + detail::describe(aType) + " and " +
                            detail::describe(bType));
  int64_t batch = batched ? aType.getDimSize(0) : 1;
  int64_t m = aType.getDimSize(batched), k = aType.getDimSize(batched + 1), n = bType.getDimSize(batched + 1);
  int64_t bK = bType.getDimSize(batched);
  Type element = aType.getElementType();
  bool isInt8 = element.isInteger(8);
  SmallVector<int64_t> resultShape{m, n};
  if (batched)
    resultShape.insert(resultShape.begin(), batch);
  auto resultType = RankedTensorType::get(resultShape, isInt8 ? kb.builder().getI32Type() : f32);
  if (k != bK)
    return kb.fail(loc, "dot: inner dimensions differ: a is " + detail::describeShape(aType.getShape()) + " and b is " +
                            detail::describeShape(bType.getShape()) + " (K = " + std::to_string(k) + " vs " +
                            std::to_string(bK) + ")", resultType);
  // 8-bit floats pair with each other in any combination (e4m3 x e5m2), as the tensor cores take them.
  using bir::isFloat8;
  bool float8 = isFloat8(element) && isFloat8(bType.getElementType());
  if (element != bType.getElementType() && !float8)
    return kb.fail(loc, "dot: a and b must have one element type, got " + detail::describe(element) + " and " +
                            detail::describe(bType.getElementType()) + "; convert one with .to<T>()", resultType);
  if (!(element.isF16() || element.isBF16() || element.isF32() || isInt8 || float8))
    return kb.fail(loc, "dot: inputs must be f16, bf16, f32, i8, f8e4m3 or f8e5m2, got " + detail::describe(element),
                   resultType);
  Location l = kb.location(loc);
  if (c) {
    auto cType = dyn_cast<RankedTensorType>(c.getType());
    if (!cType || cType.getShape() != resultType.getShape())
      return kb.fail(loc, "dot: the accumulator must have shape " + detail::describeShape(resultType.getShape()) +
                              ", got " + detail::describe(c.getType()), resultType);
    Type cElement = cType.getElementType();
    bool accepted = isInt8 ? cElement.isInteger(32) : (cElement.isF32() || (element.isF16() && cElement.isF16()));
    if (!accepted)
      return kb.fail(loc, "dot: a " + detail::describe(element) + " dot accumulates in " +
                              (isInt8 ? "i32" : element.isF16() ? "f32 or f16" : "f32") + ", got " +
                              detail::describe(cElement), resultType);
  } else {
    TypedAttr zero = isInt8 ? TypedAttr(kb.builder().getI32IntegerAttr(0)) : TypedAttr(kb.builder().getF32FloatAttr(0));
    c = arith::ConstantOp::create(kb.builder(), l, resultType, DenseElementsAttr::get(resultType, zero));
  }
  // Precision only means something for f32 inputs; like Triton, they default to tf32 tensor cores.
  bir::InputPrecision inputPrecision = bir::InputPrecision::ieee;
  if (element.isF32())
    inputPrecision = static_cast<bir::InputPrecision>(static_cast<int>(precision.value_or(Precision::TF32)));
  Value rows;
  if (zeroRowsFrom) {
    if (batched)
      return kb.fail(loc, "dot: ZeroRowsFrom applies to 2-D dots, got a: " + detail::describe(aType), resultType);
    rows = kb.use(*zeroRowsFrom, kb.builder().getI32Type(), "dot", loc);
    if (!rows || kb.isPoison(rows))
      return kb.poison(resultType);
    if (isa<ShapedType>(rows.getType()) || !rows.getType().isInteger(32))
      return kb.fail(loc, "dot: ZeroRowsFrom takes a scalar i32 (a row count), got " + detail::describe(rows.getType()),
                     resultType);
  }
  return Access::wrap(bir::DotOp::create(kb.builder(), l, c.getType(), x, y, c, rows, inputPrecision, 0));
}
} // namespace

Tensor dot(const Tensor &a, const Tensor &b, Loc loc) { return dotImpl(a, b, nullptr, std::nullopt, nullptr, loc); }
Tensor dot(const Tensor &a, const Tensor &b, const Tensor &acc, Loc loc) {
  return dotImpl(a, b, &acc, std::nullopt, nullptr, loc);
}
Tensor dot(const Tensor &a, const Tensor &b, const Tensor &acc, Precision precision, Loc loc) {
  return dotImpl(a, b, &acc, precision, nullptr, loc);
}
Tensor dot(const Tensor &a, const Tensor &b, const Tensor &acc, ZeroRowsFrom zeroRows, Loc loc) {
  return dotImpl(a, b, &acc, std::nullopt, &zeroRows.rows, loc);
}

} // namespace brick
