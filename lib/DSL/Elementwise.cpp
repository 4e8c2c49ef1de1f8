//===- Elementwise.cpp - where and the math functions ------------------------===//

#include "KernelBuilder.h"
#include "brick/Dialect/Brick/Float8.h"

using namespace mlir;

namespace brick {

Tensor where(const Operand &condition, const Operand &a, const Operand &b, Loc loc) {
  KernelBuilder *current = KernelBuilder::current("where", loc);
  if (!current)
    return {};
  KernelBuilder &kb = *current;
  Value c = kb.use(condition, kb.builder().getI1Type(), "where", loc);
  // Literals take the type of the other branch.
  Value x = Access::isLiteral(a) ? Value() : kb.use(a, {}, "where", loc);
  Value y = kb.use(b, x ? x.getType() : Type(), "where", loc);
  if (!x && y)
    x = kb.use(a, y.getType(), "where", loc);
  if (!c || !x || !y)
    return kb.poison();
  if (kb.isPoison(c) || kb.isPoison(x) || kb.isPoison(y))
    return kb.poison(kb.isPoison(x) ? x.getType() : y.getType());
  if (!getElementTypeOrSelf(c.getType()).isInteger(1))
    return kb.fail(loc, "where: the condition must be i1 (a comparison), got " + detail::describe(c.getType()),
                   x.getType());
  Type xElement = getElementTypeOrSelf(x.getType()), yElement = getElementTypeOrSelf(y.getType());
  Type common = xElement;
  if (xElement != yElement) {
    if (isa<bir::PointerType>(xElement) || isa<bir::PointerType>(yElement))
      return kb.fail(loc, "where: branches of different types " + detail::describe(x.getType()) + " and " +
                              detail::describe(y.getType()), x.getType());
    common = kb.promote(xElement, yElement);
  }
  auto [x1, y1] = kb.broadcastPair(x, y, "where", loc);
  if (!x1)
    return kb.poison(x.getType());
  auto [c1, x2] = kb.broadcastPair(c, x1, "where", loc);
  if (!c1)
    return kb.poison(x.getType());
  auto [c2, y2] = kb.broadcastPair(c1, y1, "where", loc);
  if (!c2)
    return kb.poison(x.getType());
  x2 = kb.convert(x2, common, loc);
  y2 = kb.convert(y2, common, loc);
  return Access::wrap(arith::SelectOp::create(kb.builder(), kb.location(loc), c2, x2, y2));
}

namespace {
/// Applies a float-only math op; integers and pointers are an error naming the function.
template <class Op> Tensor floatMath(const char *what, const Tensor &x, Loc loc) {
  KernelBuilder *kb = KernelBuilder::current(what, loc);
  if (!kb)
    return {};
  Value value = kb->use(x, what, loc);
  if (!value)
    return kb->poison();
  if (kb->isPoison(value))
    return Access::wrap(value);
  Type element = getElementTypeOrSelf(value.getType());
  if (!isa<FloatType>(element) || bir::isFloat8(element))
    return kb->fail(loc, std::string(what) + (isa<FloatType>(element) ? ": 8-bit floats are not computed with, got "
                                                                         : " needs floating-point values, got ") +
                             detail::describe(value.getType()) + "; convert with .to<f32>() first",
                    bir::getTypeLike(value.getType(), kb->builder().getF32Type()));
  // The GPU has no f64 transcendentals here (no libdevice): refused on every target, so that a kernel the
  // interpreter runs also compiles.
  constexpr bool transcendental = llvm::is_one_of<Op, math::ExpOp, math::Exp2Op, math::LogOp, math::Log2Op, math::SinOp,
                                                  math::CosOp, math::TanhOp, math::ErfOp>::value;
  if (transcendental && element.isF64())
    return kb->fail(loc, std::string(what) + " of f64 has no GPU implementation here; compute it in f32 (.to<f32>())",
                    value.getType());
  return Access::wrap(Op::create(kb->builder(), kb->location(loc), value));
}
} // namespace

Tensor exp(const Tensor &x, Loc loc) { return floatMath<math::ExpOp>("exp", x, loc); }
Tensor exp2(const Tensor &x, Loc loc) { return floatMath<math::Exp2Op>("exp2", x, loc); }
Tensor log(const Tensor &x, Loc loc) { return floatMath<math::LogOp>("log", x, loc); }
Tensor log2(const Tensor &x, Loc loc) { return floatMath<math::Log2Op>("log2", x, loc); }
Tensor sqrt(const Tensor &x, Loc loc) { return floatMath<math::SqrtOp>("sqrt", x, loc); }
Tensor rsqrt(const Tensor &x, Loc loc) { return floatMath<math::RsqrtOp>("rsqrt", x, loc); }
Tensor sin(const Tensor &x, Loc loc) { return floatMath<math::SinOp>("sin", x, loc); }
Tensor cos(const Tensor &x, Loc loc) { return floatMath<math::CosOp>("cos", x, loc); }
Tensor tanh(const Tensor &x, Loc loc) { return floatMath<math::TanhOp>("tanh", x, loc); }
Tensor erf(const Tensor &x, Loc loc) { return floatMath<math::ErfOp>("erf", x, loc); }
Tensor floor(const Tensor &x, Loc loc) { return floatMath<math::FloorOp>("floor", x, loc); }
Tensor ceil(const Tensor &x, Loc loc) { return floatMath<math::CeilOp>("ceil", x, loc); }

Tensor abs(const Tensor &x, Loc loc) {
  KernelBuilder *kb = KernelBuilder::current("abs", loc);
  if (!kb)
    return {};
  Value value = kb->use(x, "abs", loc);
  if (!value)
    return kb->poison();
  Type element = getElementTypeOrSelf(value.getType());
  if (element.isInteger() && !element.isInteger(1) && !kb->isPoison(value))
    return Access::wrap(math::AbsIOp::create(kb->builder(), kb->location(loc), value));
  return floatMath<math::AbsFOp>("abs", x, loc);
}

Tensor fma(const Operand &a, const Operand &b, const Operand &c, Loc loc) {
  KernelBuilder *current = KernelBuilder::current("fma", loc);
  if (!current)
    return {};
  KernelBuilder &kb = *current;
  // Each operand is used once: blocks and scalars first, then literals take the type of the first of them.
  const Operand *operands[] = {&a, &b, &c};
  Value values[3];
  Type like;
  for (int i = 0; i < 3; ++i)
    if (!Access::isLiteral(*operands[i])) {
      if (!(values[i] = kb.use(*operands[i], {}, "fma", loc)))
        return kb.poison();
      if (!like)
        like = values[i].getType();
    }
  for (int i = 0; i < 3; ++i)
    if (Access::isLiteral(*operands[i]) && !(values[i] = kb.use(*operands[i], like, "fma", loc)))
      return kb.poison();
  for (Value value : values)
    if (kb.isPoison(value))
      return kb.poison(value.getType());
  auto floating = [](Value value) {
    Type element = getElementTypeOrSelf(value.getType());
    return !isa<bir::PointerType>(element) && (element.isIntOrIndex() || (isa<FloatType>(element) && !bir::isFloat8(element)));
  };
  Type common;
  if (llvm::all_of(values, floating))
    common = kb.promote(kb.promote(getElementTypeOrSelf(values[0].getType()), getElementTypeOrSelf(values[1].getType())),
                        getElementTypeOrSelf(values[2].getType()));
  if (!common || !isa<FloatType>(common))
    return kb.fail(loc, "fma needs 16-, 32- or 64-bit floats (integers convert), got " +
                            detail::describe(values[0].getType()) + ", " + detail::describe(values[1].getType()) +
                            " and " + detail::describe(values[2].getType()),
                   values[0].getType());
  auto [x1, y1] = kb.broadcastPair(values[0], values[1], "fma", loc);
  if (!x1)
    return kb.poison(values[0].getType());
  auto [x2, z1] = kb.broadcastPair(x1, values[2], "fma", loc);
  if (!x2)
    return kb.poison(values[0].getType());
  auto [y2, z2] = kb.broadcastPair(y1, z1, "fma", loc);
  if (!y2)
    return kb.poison(values[0].getType());
  return Access::wrap(math::FmaOp::create(kb.builder(), kb.location(loc), kb.convert(x2, common, loc),
                                          kb.convert(y2, common, loc), kb.convert(z2, common, loc)));
}

Tensor sigmoid(const Tensor &x, Loc loc) {
  Tensor e = exp(-Operand(x, loc), loc);
  return Operand(1.0, loc) / (Operand(1.0, loc) + e);
}

} // namespace brick
