//===- Tensor.cpp - Handles: introspection, reshaping, casts and operators ---===//

#include "KernelBuilder.h"
#include "brick/Dialect/Brick/Float8.h"

using namespace mlir;

namespace brick {

namespace {

/// The current builder and the value behind `self`; null builder when outside a kernel or unset.
struct Self {
  KernelBuilder *kb = nullptr;
  Value value;
  Self(const Tensor &self, const char *what, Loc loc) : kb(KernelBuilder::current(what, loc)) {
    if (kb)
      value = kb->use(self, what, loc);
  }
  explicit operator bool() const { return kb && value; }
};
} // namespace

std::vector<int64_t> Tensor::shape(Loc loc) const {
  Value value = Access::value(*this);
  if (!value || !KernelBuilder::active())
    return {};
  ArrayRef<int64_t> shape = bir::getShapeOrEmpty(value.getType());
  return std::vector<int64_t>(shape.begin(), shape.end());
}

bool Tensor::isPointer() const {
  Value value = Access::value(*this);
  return value && KernelBuilder::active() && isa<bir::PointerType>(getElementTypeOrSelf(value.getType()));
}

DType Tensor::dtype() const {
  Value value = Access::value(*this);
  if (!value || !KernelBuilder::active())
    return DType::I32;
  return detail::dtypeOf(getElementTypeOrSelf(value.getType())).value_or(DType::I32);
}

Tensor Tensor::to(DType type, Loc loc) const {
  Self self(*this, "to", loc);
  if (!self)
    return self.kb ? self.kb->poison() : Tensor();
  KernelBuilder &kb = *self.kb;
  Type target = kb.type(type);
  if (kb.isPoison(self.value))
    return kb.poison(bir::getTypeLike(self.value.getType(), target));
  if (isPointer())
    return kb.fail(loc, "to<" + std::string(name(type)) + ">: cannot convert pointers (" +
                            detail::describe(self.value.getType()) + ") to numbers",
                   bir::getTypeLike(self.value.getType(), target));
  return Access::wrap(kb.convert(self.value, target, loc));
}

Tensor Tensor::expand_dims(int axis, Loc loc) const {
  Self self(*this, "expand_dims", loc);
  if (!self)
    return self.kb ? self.kb->poison() : Tensor();
  KernelBuilder &kb = *self.kb;
  auto type = dyn_cast<RankedTensorType>(self.value.getType());
  SmallVector<int64_t> shape(bir::getShapeOrEmpty(self.value.getType()));
  if (kb.isPoison(self.value))
    return Access::wrap(self.value);
  if (axis < 0)
    axis += static_cast<int>(shape.size()) + 1;
  if (axis < 0 || axis > static_cast<int>(shape.size()))
    return kb.fail(loc, "expand_dims: axis " + std::to_string(axis) + " is out of range for shape " +
                            detail::describeShape(shape));
  shape.insert(shape.begin() + axis, 1);
  Type element = getElementTypeOrSelf(self.value.getType());
  auto result = RankedTensorType::get(shape, element);
  Location l = kb.location(loc);
  if (!type) // a scalar becomes a block of one element
    return Access::wrap(bir::SplatOp::create(kb.builder(), l, result, self.value));
  return Access::wrap(bir::ExpandDimsOp::create(kb.builder(), l, result, self.value, axis));
}

Tensor Tensor::broadcast_to(std::vector<int64_t> shape, Loc loc) const {
  Self self(*this, "broadcast_to", loc);
  if (!self)
    return self.kb ? self.kb->poison() : Tensor();
  KernelBuilder &kb = *self.kb;
  Type element = getElementTypeOrSelf(self.value.getType());
  if (kb.isPoison(self.value))
    return kb.poison(RankedTensorType::get(shape, element));
  if (!bir::isBlockShape(shape))
    return kb.fail(loc, "broadcast_to: shape " + detail::describeShape(shape) +
                            " is not a block shape (one or more dimensions, each a power of two)");
  Value result = kb.broadcastTo(self.value, shape, "broadcast_to", loc);
  return result ? Access::wrap(result) : kb.poison(RankedTensorType::get(shape, element));
}

Tensor Tensor::reshape(std::vector<int64_t> shape, Loc loc) const {
  Self self(*this, "reshape", loc);
  if (!self)
    return self.kb ? self.kb->poison() : Tensor();
  KernelBuilder &kb = *self.kb;
  Type element = getElementTypeOrSelf(self.value.getType());
  auto result = RankedTensorType::get(shape, element);
  if (kb.isPoison(self.value))
    return kb.poison(result);
  if (!bir::isBlockShape(shape))
    return kb.fail(loc, "reshape: shape " + detail::describeShape(shape) +
                            " is not a block shape (one or more dimensions, each a power of two)", result);
  auto type = dyn_cast<RankedTensorType>(self.value.getType());
  if (!type)
    return kb.fail(loc, "reshape: a scalar has no shape to change; use broadcast_to", result);
  if (type.getNumElements() != result.getNumElements())
    return kb.fail(loc, "reshape: cannot reshape " + detail::describe(type) + " (" +
                            std::to_string(type.getNumElements()) + " elements) to " + detail::describeShape(shape) +
                            " (" + std::to_string(result.getNumElements()) + " elements)", result);
  return Access::wrap(bir::ReshapeOp::create(kb.builder(), kb.location(loc), result, self.value));
}

Tensor Tensor::trans(std::vector<int32_t> order, Loc loc) const {
  Self self(*this, "trans", loc);
  if (!self)
    return self.kb ? self.kb->poison() : Tensor();
  KernelBuilder &kb = *self.kb;
  if (kb.isPoison(self.value))
    return Access::wrap(self.value);
  auto type = dyn_cast<RankedTensorType>(self.value.getType());
  if (!type)
    return kb.fail(loc, "trans: a scalar has no dimensions to permute");
  int rank = static_cast<int>(type.getRank());
  if (order.empty())
    for (int i = rank - 1; i >= 0; --i)
      order.push_back(i);
  std::vector<bool> seen(rank, false);
  SmallVector<int64_t> shape;
  for (int32_t dim : order) {
    if (static_cast<int>(order.size()) != rank || dim < 0 || dim >= rank || seen[dim])
      return kb.fail(loc, "trans: order " + detail::describeShape(SmallVector<int64_t>(order.begin(), order.end())) +
                              " is not a permutation of the " + std::to_string(rank) + " dimensions of " +
                              detail::describe(type));
    seen[dim] = true;
    shape.push_back(type.getDimSize(dim));
  }
  auto result = RankedTensorType::get(shape, type.getElementType());
  return Access::wrap(bir::TransOp::create(kb.builder(), kb.location(loc), result, self.value, order));
}

namespace detail {

Tensor checkScalar(const Tensor &handle, DType dtype, Loc loc) {
  Self self(handle, "Scalar", loc);
  if (!self)
    return handle;
  KernelBuilder &kb = *self.kb;
  Type want = kb.type(dtype);
  Type have = self.value.getType();
  if (have == want || kb.isPoison(self.value))
    return handle;
  if (isa<RankedTensorType>(have) || isa<bir::PointerType>(have))
    return kb.fail(loc, "expected a scalar " + std::string(name(dtype)) + ", got " + describe(have), want);
  // Widening that loses nothing is implicit; narrowing or int <-> float needs .to<T>().
  bool widens = (have.isInteger() && want.isInteger() && !want.isInteger(1) &&
                 have.getIntOrFloatBitWidth() < want.getIntOrFloatBitWidth()) ||
                (isa<FloatType>(have) && isa<FloatType>(want) &&
                 have.getIntOrFloatBitWidth() < want.getIntOrFloatBitWidth());
  if (!widens)
    return kb.fail(loc, "expected a scalar " + std::string(name(dtype)) + ", got " + describe(have) +
                            " (convert explicitly with .to<" + std::string(name(dtype)) + ">())", want);
  return Access::wrap(kb.convert(self.value, want, loc));
}

Tensor checkPointer(const Tensor &handle, DType pointee, Loc loc) {
  Self self(handle, "Ptr", loc);
  if (!self)
    return handle;
  KernelBuilder &kb = *self.kb;
  Type want = bir::PointerType::get(kb.type(pointee));
  if (self.value.getType() == want || kb.isPoison(self.value))
    return handle;
  return kb.fail(loc, "expected a scalar pointer " + describe(want) + ", got " + describe(self.value.getType()), want);
}

} // namespace detail

//===----------------------------------------------------------------------===//
// Operators
//===----------------------------------------------------------------------===//

namespace {
enum class BinaryOp { Add, Sub, Mul, Div, Rem, Lt, Le, Gt, Ge, Eq, Ne, And, Or, Xor, Shl, Shr, Max, Min };

const char *spelling(BinaryOp op) {
  static const char *names[] = {"+", "-", "*", "/", "%", "<", "<=", ">", ">=", "==", "!=", "&", "|", "^", "<<", ">>",
                                "maximum", "minimum"};
  return names[static_cast<int>(op)];
}

bool isComparison(BinaryOp op) { return op >= BinaryOp::Lt && op <= BinaryOp::Ne; }

/// Builds `a op b` on two values of one numeric type and shape.
Value buildNumeric(KernelBuilder &kb, BinaryOp op, Value a, Value b, Location l) {
  OpBuilder &builder = kb.builder();
  bool isFloatType = isa<FloatType>(getElementTypeOrSelf(a.getType()));
  if (isFloatType) {
    switch (op) {
    case BinaryOp::Add: return arith::AddFOp::create(builder, l, a, b);
    case BinaryOp::Sub: return arith::SubFOp::create(builder, l, a, b);
    case BinaryOp::Mul: return arith::MulFOp::create(builder, l, a, b);
    case BinaryOp::Div: return arith::DivFOp::create(builder, l, a, b);
    case BinaryOp::Rem: return arith::RemFOp::create(builder, l, a, b);
    case BinaryOp::Lt: return arith::CmpFOp::create(builder, l, arith::CmpFPredicate::OLT, a, b);
    case BinaryOp::Le: return arith::CmpFOp::create(builder, l, arith::CmpFPredicate::OLE, a, b);
    case BinaryOp::Gt: return arith::CmpFOp::create(builder, l, arith::CmpFPredicate::OGT, a, b);
    case BinaryOp::Ge: return arith::CmpFOp::create(builder, l, arith::CmpFPredicate::OGE, a, b);
    case BinaryOp::Eq: return arith::CmpFOp::create(builder, l, arith::CmpFPredicate::OEQ, a, b);
    case BinaryOp::Ne: return arith::CmpFOp::create(builder, l, arith::CmpFPredicate::UNE, a, b);
    case BinaryOp::Max: return arith::MaxNumFOp::create(builder, l, a, b);
    case BinaryOp::Min: return arith::MinNumFOp::create(builder, l, a, b);
    default: return {};
    }
  }
  switch (op) {
  case BinaryOp::Add: return arith::AddIOp::create(builder, l, a, b);
  case BinaryOp::Sub: return arith::SubIOp::create(builder, l, a, b);
  case BinaryOp::Mul: return arith::MulIOp::create(builder, l, a, b);
  case BinaryOp::Div: return arith::DivSIOp::create(builder, l, a, b);
  case BinaryOp::Rem: return arith::RemSIOp::create(builder, l, a, b);
  case BinaryOp::Lt: return arith::CmpIOp::create(builder, l, arith::CmpIPredicate::slt, a, b);
  case BinaryOp::Le: return arith::CmpIOp::create(builder, l, arith::CmpIPredicate::sle, a, b);
  case BinaryOp::Gt: return arith::CmpIOp::create(builder, l, arith::CmpIPredicate::sgt, a, b);
  case BinaryOp::Ge: return arith::CmpIOp::create(builder, l, arith::CmpIPredicate::sge, a, b);
  case BinaryOp::Eq: return arith::CmpIOp::create(builder, l, arith::CmpIPredicate::eq, a, b);
  case BinaryOp::Ne: return arith::CmpIOp::create(builder, l, arith::CmpIPredicate::ne, a, b);
  case BinaryOp::And: return arith::AndIOp::create(builder, l, a, b);
  case BinaryOp::Or: return arith::OrIOp::create(builder, l, a, b);
  case BinaryOp::Xor: return arith::XOrIOp::create(builder, l, a, b);
  case BinaryOp::Shl: return arith::ShLIOp::create(builder, l, a, b);
  case BinaryOp::Shr: return arith::ShRSIOp::create(builder, l, a, b);
  case BinaryOp::Max: return arith::MaxSIOp::create(builder, l, a, b);
  case BinaryOp::Min: return arith::MinSIOp::create(builder, l, a, b);
  }
  return {};
}

/// The result type of `a op b` when it fails: keeps later checks quiet and plausible.
Type failedResultType(KernelBuilder &kb, BinaryOp op, Value a) {
  Type type = a ? a.getType() : kb.builder().getI32Type();
  return isComparison(op) ? bir::getI1TypeLike(type) : type;
}

Tensor binary(BinaryOp op, const Operand &lhs, const Operand &rhs, Loc loc) {
  KernelBuilder *current = KernelBuilder::current(spelling(op), loc);
  if (!current)
    return {};
  KernelBuilder &kb = *current;
  const char *what = spelling(op);
  // A literal takes its type from the other side, so materialize handles first.
  Value a = Access::isLiteral(lhs) ? Value() : kb.use(lhs, {}, what, loc);
  Value b = Access::isLiteral(rhs) ? Value() : kb.use(rhs, {}, what, loc);
  if (!a && !Access::isLiteral(lhs))
    return kb.poison();
  if (!b && !Access::isLiteral(rhs))
    return kb.poison();
  if (!a)
    a = kb.use(lhs, b.getType(), what, loc);
  if (!b)
    b = kb.use(rhs, a.getType(), what, loc);
  if (kb.isPoison(a) || kb.isPoison(b))
    return kb.poison(failedResultType(kb, op, kb.isPoison(a) ? a : b));

  Location l = kb.location(loc);
  Type aElement = getElementTypeOrSelf(a.getType()), bElement = getElementTypeOrSelf(b.getType());
  bool aPointer = isa<bir::PointerType>(aElement), bPointer = isa<bir::PointerType>(bElement);
  auto typeError = [&](const std::string &why) {
    return kb.fail(loc, std::string("operator") + (op >= BinaryOp::Max ? " " : "") + what + ": " + why + " (" +
                            detail::describe(a.getType()) + " " + what + " " + detail::describe(b.getType()) + ")",
                   failedResultType(kb, op, a));
  };

  if (aPointer || bPointer) {
    // Pointer arithmetic: pointer + integer, integer + pointer, pointer - integer.
    if (aPointer && bPointer)
      return typeError("cannot combine two pointers");
    if (op != BinaryOp::Add && !(op == BinaryOp::Sub && aPointer))
      return typeError("pointers only support + and - with an integer offset");
    Value pointer = aPointer ? a : b, offset = aPointer ? b : a;
    if (!getElementTypeOrSelf(offset.getType()).isInteger() || getElementTypeOrSelf(offset.getType()).isInteger(1))
      return typeError("a pointer offset must be an integer");
    auto [p, o] = kb.broadcastPair(pointer, offset, what, loc);
    if (!p)
      return kb.poison(pointer.getType());
    if (op == BinaryOp::Sub)
      o = arith::SubIOp::create(kb.builder(), l, kb.broadcastTo(kb.constantInt(getElementTypeOrSelf(o.getType()), 0, loc),
                                                                bir::getShapeOrEmpty(o.getType()), what, loc), o);
    return Access::wrap(bir::AddPtrOp::create(kb.builder(), l, p.getType(), p, o));
  }

  bool bitwise = op == BinaryOp::And || op == BinaryOp::Or || op == BinaryOp::Xor || op == BinaryOp::Shl ||
                 op == BinaryOp::Shr;
  Type common = kb.promote(aElement, bElement);
  if (bitwise && isa<FloatType>(common))
    return typeError("bitwise operators need integers");
  if (bir::isFloat8(common))
    return typeError("8-bit floats are stored, converted and multiplied by dot, not computed with: convert with "
                     ".to<f32>() (or f16, bf16) first");
  // Arithmetic on booleans is arithmetic on i32, as in C.
  if (common.isInteger(1) && !bitwise && !isComparison(op) && op != BinaryOp::Max && op != BinaryOp::Min)
    common = kb.builder().getI32Type();
  auto [x, y] = kb.broadcastPair(a, b, what, loc);
  if (!x)
    return kb.poison(failedResultType(kb, op, a));
  x = kb.convert(x, common, loc);
  y = kb.convert(y, common, loc);
  return Access::wrap(buildNumeric(kb, op, x, y, l));
}
} // namespace

Tensor operator+(const Operand &a, const Operand &b) { return binary(BinaryOp::Add, a, b, a.loc()); }
Tensor operator-(const Operand &a, const Operand &b) { return binary(BinaryOp::Sub, a, b, a.loc()); }
Tensor operator*(const Operand &a, const Operand &b) { return binary(BinaryOp::Mul, a, b, a.loc()); }
Tensor operator/(const Operand &a, const Operand &b) { return binary(BinaryOp::Div, a, b, a.loc()); }
Tensor operator%(const Operand &a, const Operand &b) { return binary(BinaryOp::Rem, a, b, a.loc()); }
Tensor operator<(const Operand &a, const Operand &b) { return binary(BinaryOp::Lt, a, b, a.loc()); }
Tensor operator<=(const Operand &a, const Operand &b) { return binary(BinaryOp::Le, a, b, a.loc()); }
Tensor operator>(const Operand &a, const Operand &b) { return binary(BinaryOp::Gt, a, b, a.loc()); }
Tensor operator>=(const Operand &a, const Operand &b) { return binary(BinaryOp::Ge, a, b, a.loc()); }
Tensor operator==(const Operand &a, const Operand &b) { return binary(BinaryOp::Eq, a, b, a.loc()); }
Tensor operator!=(const Operand &a, const Operand &b) { return binary(BinaryOp::Ne, a, b, a.loc()); }
Tensor operator&(const Operand &a, const Operand &b) { return binary(BinaryOp::And, a, b, a.loc()); }
Tensor operator|(const Operand &a, const Operand &b) { return binary(BinaryOp::Or, a, b, a.loc()); }
Tensor operator^(const Operand &a, const Operand &b) { return binary(BinaryOp::Xor, a, b, a.loc()); }
Tensor operator<<(const Operand &a, const Operand &b) { return binary(BinaryOp::Shl, a, b, a.loc()); }
Tensor operator>>(const Operand &a, const Operand &b) { return binary(BinaryOp::Shr, a, b, a.loc()); }
Tensor maximum(const Operand &a, const Operand &b, Loc loc) { return binary(BinaryOp::Max, a, b, loc); }
Tensor minimum(const Operand &a, const Operand &b, Loc loc) { return binary(BinaryOp::Min, a, b, loc); }

Tensor operator-(const Operand &a) {
  KernelBuilder *kb = KernelBuilder::current("unary -", a.loc());
  if (!kb)
    return {};
  Value value = kb->use(a, {}, "unary -", a.loc());
  if (!value || kb->isPoison(value) || !isa<FloatType>(getElementTypeOrSelf(value.getType())))
    return binary(BinaryOp::Sub, Operand(0, a.loc()), a, a.loc());
  // negf, not 0 - x: -(+0.0) is -0.0.
  return Access::wrap(arith::NegFOp::create(kb->builder(), kb->location(a.loc()), value));
}
Tensor operator~(const Operand &a) {
  KernelBuilder *kb = KernelBuilder::current("~", a.loc());
  if (!kb)
    return {};
  Value value = kb->use(a, {}, "~", a.loc());
  bool isBool = value && getElementTypeOrSelf(value.getType()).isInteger(1);
  return binary(BinaryOp::Xor, a, isBool ? Operand(true, a.loc()) : Operand(-1, a.loc()), a.loc());
}
Tensor operator!(const Operand &a) {
  KernelBuilder *kb = KernelBuilder::current("!", a.loc());
  if (!kb)
    return {};
  Value value = kb->use(a, {}, "!", a.loc());
  if (!value)
    return kb->poison();
  if (kb->isPoison(value))
    return kb->poison(bir::getI1TypeLike(value.getType()));
  // Logical not: "equal to zero", for any number.
  Value asBool = kb->convert(value, kb->builder().getI1Type(), a.loc());
  return binary(BinaryOp::Xor, Access::wrap(asBool), Operand(true, a.loc()), a.loc());
}

} // namespace brick
