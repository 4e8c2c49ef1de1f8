//===- Float8ToLLVM.cpp - Conversions to and from e4m3fn and e5m2, and their constants ----------===//
//
// LLVM has no 8-bit float types: e4m3fn and e5m2 values live in i8 registers, and the scalar arith.extf and
// arith.truncf that involve them become PTX's conversions. Every conversion goes through f32 (exact from f16 and
// bf16; the DSL never converts f64 at once):
//
//   to 8 bits     sm_89+: cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32 (nearest, ties to even; past the largest finite
//                 value, infinity included, the largest finite value); elsewhere the same in integer
//                 arithmetic on the f32's bits: round the mantissa to 3 (2) bits, rebias the exponent; below the
//                 smallest normal, round |x| / 2^-9 (2^-16) to an even integer
//   from 8 bits   e5m2 is binary16's upper byte (a shift); e4m3fn: sm_89+ cvt.rn.f16x2.e4m3x2, elsewhere the
//                 seven magnitude bits read as a binary16 (exponent bias 15, not 7) times 2^8
//
// include/brick/Support/Float8.h is the same arithmetic on the host (the interpreter's).
//
//===----------------------------------------------------------------------===//

#include "Utility.h"
#include "brick/Dialect/Brick/Float8.h"

namespace mlir::brick::lowering {
namespace {

/// An f32 from `value` (f16, bf16, f32 or f64).
Value toF32(OpBuilder &b, Location loc, Value value) {
  Type type = value.getType();
  if (type.isF32())
    return value;
  if (type.isF64())
    return LLVM::FPTruncOp::create(b, loc, b.getF32Type(), value);
  return LLVM::FPExtOp::create(b, loc, b.getF32Type(), value);
}

Value i32Value(OpBuilder &b, Location loc, int64_t value) { return i32Constant(b, loc, int32_t(value)); }

/// f32 -> the 8-bit code (i8), nearest and saturating, without PTX's 8-bit conversions.
Value encodeInIntegers(OpBuilder &b, Location loc, Value x, bool e4m3) {
  const int mantissa = e4m3 ? 3 : 2, bias = e4m3 ? 7 : 15;
  const int largestCode = e4m3 ? 0x7e : 0x7b;
  const float largest = e4m3 ? 448.0f : 57344.0f;
  Type i32 = b.getI32Type(), f32 = b.getF32Type();
  Value bits = LLVM::BitcastOp::create(b, loc, i32, x);
  Value sign = LLVM::AndOp::create(b, loc, LLVM::LShrOp::create(b, loc, bits, i32Value(b, loc, 24)), i32Value(b, loc, 0x80));
  Value magnitudeBits = LLVM::AndOp::create(b, loc, bits, i32Value(b, loc, 0x7fffffff));
  Value magnitude = LLVM::BitcastOp::create(b, loc, f32, magnitudeBits);
  Value isNaN = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ugt, magnitudeBits, i32Value(b, loc, 0x7f800000));
  Value saturates = LLVM::FCmpOp::create(b, loc, LLVM::FCmpPredicate::oge, magnitude,
                                         LLVM::ConstantOp::create(b, loc, f32, b.getF32FloatAttr(largest)));
  // Normal: drop 23 - m mantissa bits, ties to even (a carry into the exponent is the right rounding), rebias.
  const int dropped = 23 - mantissa;
  Value keptLowBit = LLVM::AndOp::create(b, loc, LLVM::LShrOp::create(b, loc, magnitudeBits, i32Value(b, loc, dropped)),
                                         i32Value(b, loc, 1));
  Value rounded = LLVM::AddOp::create(
      b, loc, magnitudeBits, LLVM::AddOp::create(b, loc, keptLowBit, i32Value(b, loc, (1 << (dropped - 1)) - 1)));
  Value normal = LLVM::SubOp::create(b, loc, LLVM::LShrOp::create(b, loc, rounded, i32Value(b, loc, dropped)),
                                     i32Value(b, loc, (127 - bias) << mantissa));
  // Below the smallest normal 2^(1 - bias): steps of 2^(1 - bias - m), rounded to even (the count reaching 2^m
  // is the smallest normal's code).
  Value isSubnormal = LLVM::FCmpOp::create(b, loc, LLVM::FCmpPredicate::olt, magnitude,
                                           LLVM::ConstantOp::create(b, loc, f32, b.getF32FloatAttr(std::ldexp(1.0f, 1 - bias))));
  Value steps = LLVM::FMulOp::create(b, loc, magnitude,
                                     LLVM::ConstantOp::create(b, loc, f32, b.getF32FloatAttr(std::ldexp(1.0f, bias - 1 + mantissa))));
  steps = LLVM::RoundEvenOp::create(b, loc, steps);
  Value subnormal = LLVM::FPToUIOp::create(b, loc, i32, steps);
  Value code = LLVM::SelectOp::create(b, loc, isSubnormal, subnormal, normal);
  code = LLVM::SelectOp::create(b, loc, saturates, i32Value(b, loc, largestCode), code);
  code = LLVM::OrOp::create(b, loc, code, sign);
  code = LLVM::SelectOp::create(b, loc, isNaN, i32Value(b, loc, 0x7f), code);
  return LLVM::TruncOp::create(b, loc, b.getI8Type(), code);
}

/// f32 -> the 8-bit code (i8) with cvt.rn.satfinite (sm_89+): the pair's lower byte is the second operand's.
Value encodeWithCvt(OpBuilder &b, Location loc, Value x, bool e4m3) {
  std::string text = std::string("cvt.rn.satfinite.") + (e4m3 ? "e4m3x2" : "e5m2x2") + ".f32 $0, $1, $1;";
  Value pair = inlineAsm(b, loc, b.getI16Type(), x, text, "=h,f", /*sideEffects=*/false);
  return LLVM::TruncOp::create(b, loc, b.getI8Type(), pair);
}

/// The 8-bit code (i8) -> f16.
Value decodeToHalf(OpBuilder &b, Location loc, Value code, bool e4m3, unsigned computeCapability) {
  Type i16 = b.getI16Type(), f16 = b.getF16Type();
  Value wide = LLVM::ZExtOp::create(b, loc, i16, code);
  auto i16Value = [&](int value) { return LLVM::ConstantOp::create(b, loc, i16, b.getI16IntegerAttr(int16_t(value))); };
  if (!e4m3) // binary16's upper byte
    return LLVM::BitcastOp::create(b, loc, f16, LLVM::ShlOp::create(b, loc, wide, i16Value(8)));
  if (computeCapability >= 89) {
    Value pair = inlineAsm(b, loc, b.getI32Type(), wide, "cvt.rn.f16x2.e4m3x2 $0, $1;", "=r,h", /*sideEffects=*/false);
    return LLVM::BitcastOp::create(b, loc, f16, LLVM::TruncOp::create(b, loc, i16, pair));
  }
  // The magnitude bits as a binary16 (bias 15 where e4m3fn's is 7, subnormals lining up too) times 2^8; S.1111.111
  // is NaN.
  Value magnitude = LLVM::AndOp::create(b, loc, wide, i16Value(0x7f));
  Value asHalf = LLVM::BitcastOp::create(b, loc, f16, LLVM::ShlOp::create(b, loc, magnitude, i16Value(7)));
  Value value = LLVM::FMulOp::create(b, loc, asHalf, LLVM::ConstantOp::create(b, loc, f16, b.getF16FloatAttr(256.0f)));
  Value isNaN = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, magnitude, i16Value(0x7f));
  value = LLVM::SelectOp::create(b, loc, isNaN, LLVM::ConstantOp::create(b, loc, f16, b.getF16FloatAttr(NAN)), value);
  Value sign = LLVM::ShlOp::create(b, loc, LLVM::AndOp::create(b, loc, wide, i16Value(0x80)), i16Value(8));
  Value signed_ = LLVM::OrOp::create(b, loc, LLVM::BitcastOp::create(b, loc, i16, value), sign);
  return LLVM::BitcastOp::create(b, loc, f16, signed_);
}

/// arith.truncf / arith.extf of one scalar when either side is an 8-bit float.
struct Float8Conversion : ConversionPattern {
  Float8Conversion(LLVMTypeConverter &converter, MLIRContext *context, unsigned computeCapability)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/5, context),
        computeCapability(computeCapability) {}
  LogicalResult matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                                ConversionPatternRewriter &b) const override {
    if (!isa<arith::TruncFOp, arith::ExtFOp>(op) || isa<RankedTensorType>(op->getResult(0).getType()))
      return failure();
    Type from = op->getOperand(0).getType(), to = op->getResult(0).getType();
    if (!isFloat8(from) && !isFloat8(to))
      return failure();
    b.replaceOp(op, convertFloat8(b, op->getLoc(), operands[0], from, to, computeCapability));
    return success();
  }
  unsigned computeCapability;
};

/// A scalar constant of an 8-bit float: its code.
struct Float8Constant : ConvertOpToLLVMPattern<arith::ConstantOp> {
  Float8Constant(LLVMTypeConverter &converter) : ConvertOpToLLVMPattern(converter, /*benefit=*/5) {}
  LogicalResult matchAndRewrite(arith::ConstantOp op, OpAdaptor adaptor, ConversionPatternRewriter &b) const override {
    auto value = dyn_cast<FloatAttr>(op.getValue());
    if (!value || !isFloat8(value.getType()))
      return failure();
    uint64_t code = value.getValue().bitcastToAPInt().getZExtValue();
    b.replaceOpWithNewOp<LLVM::ConstantOp>(op, b.getI8Type(), b.getI8IntegerAttr(int8_t(code)));
    return success();
  }
};

} // namespace

Value convertFloat8(OpBuilder &b, Location loc, Value value, Type from, Type to, unsigned computeCapability) {
  if (isFloat8(to)) {
    bool e4m3 = isa<Float8E4M3FNType>(to);
    Value x = toF32(b, loc, value);
    return computeCapability >= 89 ? encodeWithCvt(b, loc, x, e4m3) : encodeInIntegers(b, loc, x, e4m3);
  }
  Value half = decodeToHalf(b, loc, value, isa<Float8E4M3FNType>(from), computeCapability);
  if (to.isF16())
    return half;
  Value single = LLVM::FPExtOp::create(b, loc, b.getF32Type(), half);
  if (to.isF32())
    return single;
  if (to.isF64())
    return LLVM::FPExtOp::create(b, loc, to, single);
  return LLVM::FPTruncOp::create(b, loc, to, single); // bf16 holds every e4m3fn and e5m2 value
}

void populateFloat8Patterns(LLVMTypeConverter &converter, RewritePatternSet &patterns, const LoweringContext &context) {
  patterns.add<Float8Conversion>(converter, patterns.getContext(), context.computeCapability);
  patterns.add<Float8Constant>(converter);
}

} // namespace mlir::brick::lowering
