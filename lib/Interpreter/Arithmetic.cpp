//===- Arithmetic.cpp - arith and math ops, elementwise over blocks -------------------===//
//
// Operands of one op have one shape, except inside a reduce combiner, where the interpreter runs the combiner on
// whole halves of the block at once and a scalar constant meets a block: a one-element operand broadcasts.

#include "Engine.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/StringSwitch.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace mlir;

namespace brick::interpreter::detail {

namespace {

/// The shape of the result: its type's; for a scalar op inside a combiner, which runs on whole blocks, the largest
/// operand's. (Not the largest operand's everywhere: `select %scalar, %a, %b` of one-element blocks has three
/// one-element operands, and the scalar condition's empty shape would win.)
llvm::SmallVector<int64_t, 2> resultShape(Program &program, Operation *op) {
  if (auto tensor = dyn_cast<RankedTensorType>(op->getResult(0).getType()))
    return llvm::SmallVector<int64_t, 2>(tensor.getShape());
  const Block *largest = nullptr;
  for (Value operand : op->getOperands()) {
    const Block &block = program.get(operand);
    if (!largest || block.size() > largest->size())
      largest = &block;
  }
  return largest ? largest->shape : llvm::SmallVector<int64_t, 2>{};
}

size_t sizeOf(llvm::ArrayRef<int64_t> shape) { return size_t(elementCount(shape)); }

Type elementOf(Value value) { return getElementTypeOrSelf(value.getType()); }

using RealFn = double (*)(double);
using RealFn2 = double (*)(double, double);

RealFn unaryRealFunction(StringRef name) {
  return llvm::StringSwitch<RealFn>(name)
      .Case("arith.negf", [](double x) { return -x; })
      .Case("math.absf", [](double x) { return std::fabs(x); })
      .Case("math.exp", [](double x) { return std::exp(x); })
      .Case("math.exp2", [](double x) { return std::exp2(x); })
      .Case("math.expm1", [](double x) { return std::expm1(x); })
      .Case("math.log", [](double x) { return std::log(x); })
      .Case("math.log2", [](double x) { return std::log2(x); })
      .Case("math.log10", [](double x) { return std::log10(x); })
      .Case("math.log1p", [](double x) { return std::log1p(x); })
      .Case("math.sqrt", [](double x) { return std::sqrt(x); })
      .Case("math.rsqrt", [](double x) { return 1.0 / std::sqrt(x); })
      .Case("math.cbrt", [](double x) { return std::cbrt(x); })
      .Case("math.sin", [](double x) { return std::sin(x); })
      .Case("math.cos", [](double x) { return std::cos(x); })
      .Case("math.tan", [](double x) { return std::tan(x); })
      .Case("math.tanh", [](double x) { return std::tanh(x); })
      .Case("math.atan", [](double x) { return std::atan(x); })
      .Case("math.erf", [](double x) { return std::erf(x); })
      .Case("math.floor", [](double x) { return std::floor(x); })
      .Case("math.ceil", [](double x) { return std::ceil(x); })
      .Case("math.round", [](double x) { return std::round(x); })
      .Case("math.roundeven", [](double x) { return std::nearbyint(x); })
      .Case("math.trunc", [](double x) { return std::trunc(x); })
      .Default(nullptr);
}

/// The larger and the smaller of two floats, a NaN ignored, -0 below +0: IEEE 754-2019's order, and LLVM's APFloat's,
/// with which MLIR folds constant operands (std::fmax leaves two zeros open; glibc returns the first).
double larger(double a, double b) { return a == b ? (std::signbit(a) ? b : a) : std::fmax(a, b); }
double smaller(double a, double b) { return a == b ? (std::signbit(a) ? a : b) : std::fmin(a, b); }

RealFn2 binaryRealFunction(StringRef name) {
  return llvm::StringSwitch<RealFn2>(name)
      .Case("arith.addf", [](double a, double b) { return a + b; })
      .Case("arith.subf", [](double a, double b) { return a - b; })
      .Case("arith.mulf", [](double a, double b) { return a * b; })
      .Case("arith.divf", [](double a, double b) { return a / b; })
      .Case("arith.remf", [](double a, double b) { return std::fmod(a, b); })
      // maxnumf/minnumf ignore a NaN operand; maximumf/minimumf propagate it.
      .Case("arith.maxnumf", larger)
      .Case("arith.minnumf", smaller)
      .Case("arith.maximumf", [](double a, double b) { return std::isnan(a) || std::isnan(b) ? NAN : larger(a, b); })
      .Case("arith.minimumf", [](double a, double b) { return std::isnan(a) || std::isnan(b) ? NAN : smaller(a, b); })
      .Case("math.powf", [](double a, double b) { return std::pow(a, b); })
      .Case("math.atan2", [](double a, double b) { return std::atan2(a, b); })
      .Case("math.copysign", [](double a, double b) { return std::copysign(a, b); })
      .Default(nullptr);
}

/// Integer ops on values in the Block encoding of `bits`-wide integers; the result is wrapped by the caller.
/// Division by zero gives all ones (what PTX's div gives) rather than stopping: masked-off lanes compute it.
using IntFn2 = int64_t (*)(int64_t, int64_t, unsigned);
IntFn2 binaryIntFunction(StringRef name) {
  return llvm::StringSwitch<IntFn2>(name)
      .Case("arith.addi", [](int64_t a, int64_t b, unsigned) { return int64_t(uint64_t(a) + uint64_t(b)); })
      .Case("arith.subi", [](int64_t a, int64_t b, unsigned) { return int64_t(uint64_t(a) - uint64_t(b)); })
      .Case("arith.muli", [](int64_t a, int64_t b, unsigned) { return int64_t(uint64_t(a) * uint64_t(b)); })
      .Case("arith.andi", [](int64_t a, int64_t b, unsigned) { return a & b; })
      .Case("arith.ori", [](int64_t a, int64_t b, unsigned) { return a | b; })
      .Case("arith.xori", [](int64_t a, int64_t b, unsigned) { return a ^ b; })
      .Case("arith.divsi",
            [](int64_t a, int64_t b, unsigned w) -> int64_t {
              int64_t x = asSigned(a, w), y = asSigned(b, w);
              if (y == 0)
                return -1;
              if (y == -1)
                return int64_t(0 - uint64_t(x));
              return x / y;
            })
      .Case("arith.remsi",
            [](int64_t a, int64_t b, unsigned w) -> int64_t {
              int64_t x = asSigned(a, w), y = asSigned(b, w);
              return y == 0 ? x : y == -1 ? 0 : x % y;
            })
      .Case("arith.divui",
            [](int64_t a, int64_t b, unsigned w) -> int64_t {
              uint64_t y = asUnsigned(b, w);
              return y == 0 ? -1 : int64_t(asUnsigned(a, w) / y);
            })
      .Case("arith.remui",
            [](int64_t a, int64_t b, unsigned w) -> int64_t {
              uint64_t y = asUnsigned(b, w);
              return y == 0 ? a : int64_t(asUnsigned(a, w) % y);
            })
      .Case("arith.ceildivsi",
            [](int64_t a, int64_t b, unsigned w) -> int64_t {
              int64_t x = asSigned(a, w), y = asSigned(b, w);
              if (y == 0)
                return -1;
              if (y == -1) // exact, and INT_MIN / -1 wraps (C++'s division would trap)
                return int64_t(0 - uint64_t(x));
              int64_t q = x / y;
              return (x % y != 0 && ((x < 0) == (y < 0))) ? q + 1 : q;
            })
      .Case("arith.floordivsi",
            [](int64_t a, int64_t b, unsigned w) -> int64_t {
              int64_t x = asSigned(a, w), y = asSigned(b, w);
              if (y == 0)
                return -1;
              if (y == -1) // exact, and INT_MIN / -1 wraps (C++'s division would trap)
                return int64_t(0 - uint64_t(x));
              int64_t q = x / y;
              return (x % y != 0 && ((x < 0) != (y < 0))) ? q - 1 : q;
            })
      .Case("arith.maxsi", [](int64_t a, int64_t b, unsigned w) { return asSigned(a, w) >= asSigned(b, w) ? a : b; })
      .Case("arith.minsi", [](int64_t a, int64_t b, unsigned w) { return asSigned(a, w) <= asSigned(b, w) ? a : b; })
      .Case("arith.maxui", [](int64_t a, int64_t b, unsigned w) { return asUnsigned(a, w) >= asUnsigned(b, w) ? a : b; })
      .Case("arith.minui", [](int64_t a, int64_t b, unsigned w) { return asUnsigned(a, w) <= asUnsigned(b, w) ? a : b; })
      // Shifts by the width or more give 0 (or the sign), as PTX's clamped shifts do.
      .Case("arith.shli",
            [](int64_t a, int64_t b, unsigned w) -> int64_t {
              uint64_t n = asUnsigned(b, w);
              return n >= w ? 0 : int64_t(uint64_t(a) << n);
            })
      .Case("arith.shrui",
            [](int64_t a, int64_t b, unsigned w) -> int64_t {
              uint64_t n = asUnsigned(b, w);
              return n >= w ? 0 : int64_t(asUnsigned(a, w) >> n);
            })
      .Case("arith.shrsi",
            [](int64_t a, int64_t b, unsigned w) -> int64_t {
              uint64_t n = asUnsigned(b, w);
              int64_t x = asSigned(a, w);
              return x >> (n >= w ? w - 1 : n);
            })
      .Default(nullptr);
}

bool compareFloats(arith::CmpFPredicate predicate, double a, double b) {
  bool unordered = std::isnan(a) || std::isnan(b);
  using P = arith::CmpFPredicate;
  switch (predicate) {
  case P::AlwaysFalse: return false;
  case P::AlwaysTrue: return true;
  case P::OEQ: return !unordered && a == b;
  case P::OGT: return !unordered && a > b;
  case P::OGE: return !unordered && a >= b;
  case P::OLT: return !unordered && a < b;
  case P::OLE: return !unordered && a <= b;
  case P::ONE: return !unordered && a != b;
  case P::ORD: return !unordered;
  case P::UEQ: return unordered || a == b;
  case P::UGT: return unordered || a > b;
  case P::UGE: return unordered || a >= b;
  case P::ULT: return unordered || a < b;
  case P::ULE: return unordered || a <= b;
  case P::UNE: return unordered || a != b;
  case P::UNO: return unordered;
  }
  return false;
}

bool compareIntegers(arith::CmpIPredicate predicate, int64_t a, int64_t b, unsigned w) {
  using P = arith::CmpIPredicate;
  int64_t sa = asSigned(a, w), sb = asSigned(b, w);
  uint64_t ua = asUnsigned(a, w), ub = asUnsigned(b, w);
  switch (predicate) {
  case P::eq: return a == b;
  case P::ne: return a != b;
  case P::slt: return sa < sb;
  case P::sle: return sa <= sb;
  case P::sgt: return sa > sb;
  case P::sge: return sa >= sb;
  case P::ult: return ua < ub;
  case P::ule: return ua <= ub;
  case P::ugt: return ua > ub;
  case P::uge: return ua >= ub;
  }
  return false;
}

/// An integer converted to the float type `type` with one rounding: a double holds 53 bits, so past them it is
/// rounded to odd before roundToFloat rounds it to a narrower type.
double integerToFloat(__int128 value, Type type) {
  double nearest = double(value);
  if (type.isF64())
    return nearest;
  __int128 back = static_cast<__int128>(nearest); // |nearest| <= 2^64: exact
  return roundToFloat(towardOdd(nearest, value > back ? 1 : value < back ? -1 : 0), type);
}

/// float -> integer as PTX's cvt.rzi does: toward zero, saturating, NaN to 0.
int64_t floatToInteger(double value, unsigned bits, bool isSigned) {
  if (std::isnan(value))
    return 0;
  value = std::trunc(value);
  if (isSigned) {
    double lo = -std::ldexp(1.0, int(bits) - 1), hi = std::ldexp(1.0, int(bits) - 1) - 1;
    if (bits == 64)
      return value <= lo ? std::numeric_limits<int64_t>::min()
             : value >= 9.2233720368547758e18 ? std::numeric_limits<int64_t>::max() : int64_t(value);
    return wrapInteger(int64_t(std::min(std::max(value, lo), hi)), bits);
  }
  if (value <= 0)
    return 0;
  if (bits == 64)
    return value >= 1.8446744073709552e19 ? -1 : int64_t(uint64_t(value));
  double hi = std::ldexp(1.0, int(bits)) - 1;
  return wrapInteger(int64_t(uint64_t(std::min(value, hi))), bits);
}

Block constant(Program &program, arith::ConstantOp op, llvm::Error &error) {
  auto shape = shapeOf(op.getType());
  Type element = getElementTypeOrSelf(op.getType());
  size_t n = sizeOf(shape);
  Attribute value = op.getValue();
  auto fromInteger = [&](const APInt &v) { return wrapInteger(v.getSExtValue(), integerBits(element)); };
  auto fromFloat = [&](const APFloat &v) { return roundToFloat(v.convertToDouble(), element); };
  if (auto integer = dyn_cast<IntegerAttr>(value))
    return Block::ofInts(shape, std::vector<int64_t>(n, fromInteger(integer.getValue())));
  if (auto real = dyn_cast<FloatAttr>(value))
    return Block::ofReals(shape, std::vector<double>(n, fromFloat(real.getValue())));
  if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    if (isa<FloatType>(element)) {
      std::vector<double> values;
      values.reserve(n);
      for (const APFloat &v : dense.getValues<APFloat>())
        values.push_back(fromFloat(v));
      return Block::ofReals(shape, std::move(values));
    }
    std::vector<int64_t> values;
    values.reserve(n);
    for (const APInt &v : dense.getValues<APInt>())
      values.push_back(fromInteger(v));
    return Block::ofInts(shape, std::move(values));
  }
  error = program.error(op, "the interpreter cannot read this constant");
  return {};
}

} // namespace

std::optional<llvm::Error> runArithmetic(Program &program, Operation *op) {
  StringRef name = op->getName().getStringRef();
  if (!name.starts_with("arith.") && !name.starts_with("math."))
    return std::nullopt;
  if (op->getNumResults() != 1)
    return program.error(op, "the interpreter cannot run '" + name + "'");
  Value result = op->getResult(0);
  Type resultElement = elementOf(result);
  auto shape = resultShape(program, op);
  size_t n = sizeOf(shape);

  if (auto constantOp = dyn_cast<arith::ConstantOp>(op)) {
    llvm::Error error = llvm::Error::success();
    Block block = constant(program, constantOp, error);
    if (error)
      return std::move(error);
    program.set(result, std::move(block));
    return llvm::Error::success();
  }

  if (RealFn fn = unaryRealFunction(name)) {
    const Block &x = program.get(op->getOperand(0));
    std::vector<double> out(n);
    for (size_t i = 0; i < n; ++i)
      out[i] = roundToFloat(fn(at(x.reals, i)), resultElement);
    program.set(result, Block::ofReals(shape, std::move(out)));
    return llvm::Error::success();
  }
  if (RealFn2 fn = binaryRealFunction(name)) {
    const Block &a = program.get(op->getOperand(0)), &b = program.get(op->getOperand(1));
    std::vector<double> out(n);
    for (size_t i = 0; i < n; ++i)
      out[i] = roundToFloat(fn(at(a.reals, i), at(b.reals, i)), resultElement);
    program.set(result, Block::ofReals(shape, std::move(out)));
    return llvm::Error::success();
  }
  if (isa<math::FmaOp>(op)) {
    const Block &a = program.get(op->getOperand(0)), &b = program.get(op->getOperand(1)),
                &c = program.get(op->getOperand(2));
    std::vector<double> out(n);
    for (size_t i = 0; i < n; ++i) {
      // Fused: one rounding. For f32 and narrower the product is exact in double and the sum, where it is not,
      // is rounded to odd (its error from TwoSum), so that roundToFloat rounds the exact result once.
      double x = at(a.reals, i), y = at(b.reals, i), z = at(c.reals, i);
      if (resultElement.isF64()) {
        out[i] = std::fma(x, y, z);
        continue;
      }
      double product = x * y, sum = product + z, back = sum - product;
      double error = (product - (sum - back)) + (z - back);
      out[i] = roundToFloat(towardOdd(sum, error > 0 ? 1 : error < 0 ? -1 : 0), resultElement);
    }
    program.set(result, Block::ofReals(shape, std::move(out)));
    return llvm::Error::success();
  }
  if (IntFn2 fn = binaryIntFunction(name)) {
    const Block &a = program.get(op->getOperand(0)), &b = program.get(op->getOperand(1));
    unsigned bits = integerBits(resultElement);
    std::vector<int64_t> out(n);
    for (size_t i = 0; i < n; ++i)
      out[i] = wrapInteger(fn(at(a.ints, i), at(b.ints, i), bits), bits);
    program.set(result, Block::ofInts(shape, std::move(out)));
    return llvm::Error::success();
  }
  if (isa<math::AbsIOp>(op)) {
    const Block &x = program.get(op->getOperand(0));
    unsigned bits = integerBits(resultElement);
    std::vector<int64_t> out(n);
    for (size_t i = 0; i < n; ++i) {
      int64_t v = asSigned(at(x.ints, i), bits);
      out[i] = wrapInteger(v < 0 ? int64_t(0 - uint64_t(v)) : v, bits);
    }
    program.set(result, Block::ofInts(shape, std::move(out)));
    return llvm::Error::success();
  }
  if (auto cmp = dyn_cast<arith::CmpFOp>(op)) {
    const Block &a = program.get(cmp.getLhs()), &b = program.get(cmp.getRhs());
    std::vector<int64_t> out(n);
    for (size_t i = 0; i < n; ++i)
      out[i] = compareFloats(cmp.getPredicate(), at(a.reals, i), at(b.reals, i));
    program.set(result, Block::ofInts(shape, std::move(out)));
    return llvm::Error::success();
  }
  if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
    const Block &a = program.get(cmp.getLhs()), &b = program.get(cmp.getRhs());
    unsigned bits = integerBits(elementOf(cmp.getLhs()));
    std::vector<int64_t> out(n);
    for (size_t i = 0; i < n; ++i)
      out[i] = compareIntegers(cmp.getPredicate(), at(a.ints, i), at(b.ints, i), bits);
    program.set(result, Block::ofInts(shape, std::move(out)));
    return llvm::Error::success();
  }
  if (auto select = dyn_cast<arith::SelectOp>(op)) {
    const Block &c = program.get(select.getCondition()), &a = program.get(select.getTrueValue()),
                &b = program.get(select.getFalseValue());
    if (isa<FloatType>(resultElement)) {
      std::vector<double> out(n);
      for (size_t i = 0; i < n; ++i)
        out[i] = at(c.ints, i) ? at(a.reals, i) : at(b.reals, i);
      program.set(result, Block::ofReals(shape, std::move(out)));
    } else {
      std::vector<int64_t> out(n);
      for (size_t i = 0; i < n; ++i)
        out[i] = at(c.ints, i) ? at(a.ints, i) : at(b.ints, i);
      program.set(result, Block::ofInts(shape, std::move(out)));
    }
    return llvm::Error::success();
  }

  // Casts.
  if (op->getNumOperands() == 1) {
    Value source = op->getOperand(0);
    Type sourceElement = elementOf(source);
    const Block &x = program.get(source);
    bool toFloat = isa<FloatType>(resultElement), fromFloat = isa<FloatType>(sourceElement);
    unsigned fromBits = fromFloat ? 0 : integerBits(sourceElement);
    unsigned toBits = toFloat ? 0 : integerBits(resultElement);
    std::function<double(size_t)> real;
    std::function<int64_t(size_t)> integer;
    if (isa<arith::ExtFOp, arith::TruncFOp>(op))
      real = [&](size_t i) { return roundToFloat(x.reals[i], resultElement); };
    else if (isa<arith::SIToFPOp>(op))
      real = [&](size_t i) { return integerToFloat(asSigned(x.ints[i], fromBits), resultElement); };
    else if (isa<arith::UIToFPOp>(op))
      real = [&](size_t i) { return integerToFloat(asUnsigned(x.ints[i], fromBits), resultElement); };
    else if (isa<arith::FPToSIOp>(op))
      integer = [&](size_t i) { return floatToInteger(x.reals[i], toBits, true); };
    else if (isa<arith::FPToUIOp>(op))
      integer = [&](size_t i) { return floatToInteger(x.reals[i], toBits, false); };
    else if (isa<arith::ExtSIOp, arith::TruncIOp, arith::IndexCastOp>(op))
      integer = [&](size_t i) { return wrapInteger(asSigned(x.ints[i], fromBits), toBits); };
    else if (isa<arith::ExtUIOp, arith::IndexCastUIOp>(op))
      integer = [&](size_t i) { return wrapInteger(int64_t(asUnsigned(x.ints[i], fromBits)), toBits); };
    else if (isa<arith::BitcastOp>(op) && !fromFloat && toFloat && (fromBits == 32 || fromBits == 64))
      real = [&](size_t i) {
        uint64_t bits = asUnsigned(x.ints[i], fromBits);
        if (fromBits == 64) {
          double d;
          std::memcpy(&d, &bits, 8);
          return d;
        }
        uint32_t b32 = uint32_t(bits);
        float f;
        std::memcpy(&f, &b32, 4);
        return double(f);
      };
    else if (isa<arith::BitcastOp>(op) && fromFloat && !toFloat && (toBits == 32 || toBits == 64))
      integer = [&](size_t i) -> int64_t {
        if (toBits == 64) {
          int64_t bits;
          std::memcpy(&bits, &x.reals[i], 8);
          return bits;
        }
        float f = float(x.reals[i]);
        int32_t bits;
        std::memcpy(&bits, &f, 4);
        return bits;
      };
    if (real) {
      std::vector<double> out(n);
      for (size_t i = 0; i < n; ++i)
        out[i] = real(i);
      program.set(result, Block::ofReals(shape, std::move(out)));
      return llvm::Error::success();
    }
    if (integer) {
      std::vector<int64_t> out(n);
      for (size_t i = 0; i < n; ++i)
        out[i] = integer(i);
      program.set(result, Block::ofInts(shape, std::move(out)));
      return llvm::Error::success();
    }
  }
  return program.error(op, "the interpreter cannot run '" + name + "'");
}

} // namespace brick::interpreter::detail
