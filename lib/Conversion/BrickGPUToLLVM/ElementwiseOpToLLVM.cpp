//===- ElementwiseOpToLLVM.cpp - Elementwise ops, constants, ranges, splats ------===//
//
// A block op that works element by element becomes the same op on each register's scalar; those scalar
// arith/math ops are then lowered by MLIR's own arith and math patterns, except the math functions that
// PTX has fast approximate instructions for.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"
#include "brick/Dialect/Brick/Float8.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SmallVectorExtras.h"

namespace mlir::brick::lowering {
namespace {

bool hasLayout(Type type) { return isa<RankedTensorType>(type) && brickgpu::getLayout(type); }

/// Any elementwise arith or math op on blocks with layouts.
struct ElementwiseOpLowering : ConversionPattern {
  ElementwiseOpLowering(LLVMTypeConverter &converter, MLIRContext *context, unsigned computeCapability)
      // Above MLIR's arith/math patterns, which would take a block for one value.
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/10, context),
        computeCapability(computeCapability) {}
  unsigned computeCapability;

  LogicalResult matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                                ConversionPatternRewriter &rewriter) const override {
    if (op->getNumResults() != 1 || !hasLayout(op->getResult(0).getType()) || op->getNumRegions() != 0)
      return failure();
    // inline_asm_elementwise hands its PTX `pack` elements at a time: HintOpToLLVM.cpp lowers it whole.
    if (!op->hasTrait<OpTrait::Elementwise>() || isa<InlineAsmElementwiseOp>(op))
      return failure();
    Location loc = op->getLoc();
    auto tensorType = cast<RankedTensorType>(op->getResult(0).getType());
    Type structType = getTypeConverter()->convertType(tensorType);
    Type elementType = getTypeConverter()->convertType(tensorType.getElementType());
    if (!structType || !elementType)
      return failure();
    SmallVector<SmallVector<Value>> perOperand;
    for (Value operand : operands)
      perOperand.push_back(elementsOf(rewriter, loc, operand));
    unsigned registers = cast<LLVM::LLVMStructType>(structType).getBody().size();
    if (SmallVector<Value> packed = packedTruncation(op, perOperand, registers, rewriter); !packed.empty()) {
      rewriter.replaceOp(op, pack(rewriter, loc, structType, packed));
      return success();
    }
    SmallVector<Value> results;
    // 8-bit floats are i8 codes in registers: their conversions are not arith ops on the scalars.
    if (isa<arith::TruncFOp, arith::ExtFOp>(op)) {
      Type from = getElementTypeOrSelf(op->getOperand(0).getType()), to = tensorType.getElementType();
      if (isFloat8(from) || isFloat8(to)) {
        for (unsigned reg = 0; reg < registers; ++reg)
          results.push_back(convertFloat8(rewriter, loc, perOperand[0][reg], from, to, computeCapability));
        rewriter.replaceOp(op, pack(rewriter, loc, structType, results));
        return success();
      }
    }
    for (unsigned reg = 0; reg < registers; ++reg) {
      SmallVector<Value> scalars;
      for (auto &elements : perOperand)
        scalars.push_back(elements.size() == 1 ? elements[0] : elements[reg]);
      OperationState state(loc, op->getName(), scalars, TypeRange{elementType}, op->getAttrs());
      results.push_back(rewriter.create(state)->getResult(0));
    }
    rewriter.replaceOp(op, pack(rewriter, loc, structType, results));
    return success();
  }

  static SmallVector<Value> packedTruncation(Operation *op, ArrayRef<SmallVector<Value>> perOperand,
                                             unsigned registers, ConversionPatternRewriter &rewriter);
};

/// f32 -> f16/bf16 truncation (round to nearest even) two registers at a time, with the packed conversion
/// (cvt.rn.f16x2.f32 / cvt.rn.bf16x2.f32). LLVM's back end forms it too, but only when both halves meet in one
/// block: after a loop, LLVM moves the truncations of a carried accumulator into the loop's exit blocks, and
/// the epilogue then converted one register at a time.
SmallVector<Value> ElementwiseOpLowering::packedTruncation(Operation *op, ArrayRef<SmallVector<Value>> perOperand,
                                                         unsigned registers, ConversionPatternRewriter &rewriter) {
  auto trunc = dyn_cast<arith::TruncFOp>(op);
  if (!trunc || trunc.getRoundingmodeAttr() || registers % 2 != 0 || perOperand[0].size() != registers)
    return {};
  Type source = cast<RankedTensorType>(trunc.getIn().getType()).getElementType();
  Type result = cast<RankedTensorType>(trunc.getType()).getElementType();
  if (!source.isF32() || !(result.isF16() || result.isBF16()))
    return {};
  Location loc = op->getLoc();
  auto pairType = VectorType::get({2}, result);
  StringAttr intrinsic = rewriter.getStringAttr(result.isF16() ? "llvm.nvvm.ff2f16x2.rn" : "llvm.nvvm.ff2bf16x2.rn");
  SmallVector<Value> halves;
  for (unsigned reg = 0; reg < registers; reg += 2) {
    // The instruction puts its first operand in the upper half: register reg + 1 goes first.
    Value pair = LLVM::CallIntrinsicOp::create(rewriter, loc, pairType, intrinsic,
                                               ValueRange{perOperand[0][reg + 1], perOperand[0][reg]})
                     .getResult(0);
    halves.push_back(LLVM::ExtractElementOp::create(rewriter, loc, pair, i32Constant(rewriter, loc, 0)));
    halves.push_back(LLVM::ExtractElementOp::create(rewriter, loc, pair, i32Constant(rewriter, loc, 1)));
  }
  return halves;
}

/// brick.addptr: a GEP over the pointee type, per register.
struct AddPtrLowering : ConvertOpToLLVMPattern<AddPtrOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(AddPtrOp op, OpAdaptor adaptor, ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto pointerType = cast<PointerType>(getElementTypeOrSelf(op.getType()));
    Type pointee = getTypeConverter()->convertType(pointerType.getPointeeType());
    Type pointer = getTypeConverter()->convertType(pointerType);
    SmallVector<Value> pointers = elementsOf(rewriter, loc, adaptor.getPtr());
    SmallVector<Value> offsets = elementsOf(rewriter, loc, adaptor.getOffset());
    SmallVector<Value> results;
    for (auto [base, offset] : llvm::zip(pointers, offsets))
      results.push_back(LLVM::GEPOp::create(rewriter, loc, pointer, pointee, base, ValueRange{offset}));
    if (!isa<RankedTensorType>(op.getType()))
      rewriter.replaceOp(op, results.front());
    else
      rewriter.replaceOp(op, pack(rewriter, loc, getTypeConverter()->convertType(op.getType()), results));
    return success();
  }
};

struct SplatLowering : ConvertOpToLLVMPattern<SplatOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(SplatOp op, OpAdaptor adaptor, ConversionPatternRewriter &rewriter) const override {
    auto structType = cast<LLVM::LLVMStructType>(getTypeConverter()->convertType(op.getType()));
    SmallVector<Value> copies(structType.getBody().size(), adaptor.getSrc());
    rewriter.replaceOp(op, pack(rewriter, op.getLoc(), structType, copies));
    return success();
  }
};

struct MakeRangeLowering : ConvertOpToLLVMPattern<MakeRangeOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(MakeRangeOp op, OpAdaptor adaptor, ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    auto coordinates = emitCoordinates(rewriter, loc, brickgpu::getLinearLayout(type), getThreadId(rewriter, loc));
    SmallVector<Value> values;
    for (auto &coordinate : coordinates)
      values.push_back(op.getStartValue() == 0 ? coordinate[0]
                                          : Value(LLVM::AddOp::create(rewriter, loc, coordinate[0],
                                                                      i32Constant(rewriter, loc, op.getStartValue()))));
    rewriter.replaceOp(op, pack(rewriter, loc, getTypeConverter()->convertType(type), values));
    return success();
  }
};

/// arith.constant of a block: a splat is the scalar in every register; any other is a table in global
/// memory from which each thread loads the elements it holds.
struct BlockConstantLowering : ConvertOpToLLVMPattern<arith::ConstantOp> {
  // Above MLIR's arith pattern, which does not know blocks.
  BlockConstantLowering(LLVMTypeConverter &converter) : ConvertOpToLLVMPattern(converter, /*benefit=*/10) {}
  LogicalResult matchAndRewrite(arith::ConstantOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (!hasLayout(op.getType()))
      return failure();
    auto splat = dyn_cast<SplatElementsAttr>(op.getValue());
    if (!splat)
      return lowerTable(op, rewriter);
    Location loc = op.getLoc();
    Type elementType = getTypeConverter()->convertType(splat.getElementType());
    TypedAttr element = splat.getSplatValue<TypedAttr>();
    if (isFloat8(splat.getElementType())) // an i8 code
      element = rewriter.getIntegerAttr(elementType, cast<FloatAttr>(element).getValue().bitcastToAPInt().getZExtValue());
    Value scalar = LLVM::ConstantOp::create(rewriter, loc, elementType, element);
    auto structType = cast<LLVM::LLVMStructType>(getTypeConverter()->convertType(op.getType()));
    SmallVector<Value> copies(structType.getBody().size(), scalar);
    rewriter.replaceOp(op, pack(rewriter, loc, structType, copies));
    return success();
  }

  LogicalResult lowerTable(arith::ConstantOp op, ConversionPatternRewriter &rewriter) const {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
    if (!dense || !type.getElementType().isIntOrFloat())
      return rewriter.notifyMatchFailure(op, "only dense integer or float constants lower");
    // i1 tables hold bytes, as booleans do in memory.
    Type element = type.getElementType().isInteger(1) ? rewriter.getI8Type() : type.getElementType();
    auto flat = RankedTensorType::get({type.getNumElements()}, element);
    DenseElementsAttr values = element == type.getElementType()
                                   ? dense.reshape(flat)
                                   : DenseElementsAttr::get(flat, llvm::map_to_vector(dense.getValues<bool>(), [](bool v) {
                                       return APInt(8, v);
                                     }));
    auto module = op->getParentOfType<ModuleOp>();
    unsigned index = 0;
    std::string name;
    do
      name = "brick_table_" + std::to_string(index++);
    while (module.lookupSymbol(name));
    auto arrayType = LLVM::LLVMArrayType::get(element, type.getNumElements());
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(module.getBody());
      LLVM::GlobalOp::create(rewriter, loc, arrayType, /*isConstant=*/true, LLVM::Linkage::Internal, name, values,
                             /*alignment=*/16, /*addrSpace=*/1);
    }
    auto pointerType = LLVM::LLVMPointerType::get(rewriter.getContext(), 1);
    Value base = LLVM::AddressOfOp::create(rewriter, loc, pointerType, name);
    SmallVector<Value> loaded;
    for (auto &coordinate : emitCoordinates(rewriter, loc, brickgpu::getLinearLayout(type), getThreadId(rewriter, loc))) {
      Value linear = i32Constant(rewriter, loc, 0);
      for (auto [c, extent] : llvm::zip(coordinate, type.getShape()))
        linear = LLVM::AddOp::create(rewriter, loc, LLVM::MulOp::create(rewriter, loc, linear, i32Constant(rewriter, loc, extent)), c);
      Value value = LLVM::LoadOp::create(rewriter, loc, element,
                                         LLVM::GEPOp::create(rewriter, loc, pointerType, element, base, ValueRange{linear}));
      if (type.getElementType().isInteger(1))
        value = LLVM::TruncOp::create(rewriter, loc, rewriter.getI1Type(), value);
      loaded.push_back(value);
    }
    rewriter.replaceOp(op, pack(rewriter, loc, getTypeConverter()->convertType(type), loaded));
    return success();
  }
};

/// A math function on f32 through PTX's approximate instruction, as Triton does: `scale` multiplies the
/// input (exp(x) = 2^(x log2 e)) and `postScale` the output (ln x = log2(x) ln 2).
template <class Op>
struct ApproximateMathLowering : ConvertOpToLLVMPattern<Op> {
  ApproximateMathLowering(LLVMTypeConverter &converter, StringRef instruction, double scale, double postScale)
      : ConvertOpToLLVMPattern<Op>(converter, /*benefit=*/2), instruction(instruction), scale(scale),
        postScale(postScale) {}
  LogicalResult matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    if (!op.getType().isF32())
      return failure();
    Location loc = op.getLoc();
    Type f32 = rewriter.getF32Type();
    Value x = adaptor.getOperand();
    if (scale != 1.0)
      x = LLVM::FMulOp::create(rewriter, loc, x, LLVM::ConstantOp::create(rewriter, loc, f32, rewriter.getF32FloatAttr(scale)));
    Value y = inlineAsm(rewriter, loc, f32, x, instruction + " $0, $1;", "=f,f", /*sideEffects=*/false);
    if (postScale != 1.0)
      y = LLVM::FMulOp::create(rewriter, loc, y, LLVM::ConstantOp::create(rewriter, loc, f32, rewriter.getF32FloatAttr(postScale)));
    rewriter.replaceOp(op, y);
    return success();
  }
  std::string instruction;
  double scale, postScale;
};

/// Whether `value` is the constant 1. A splat block's registers reach the per-register op as the constant
/// itself (unpack() reads the members back from pack()'s chain), a scalar's as it is.
bool isOne(Value value) {
  FloatAttr constant;
  return matchPattern(value, m_Constant(&constant)) && constant.getValue().isExactlyValue(1.0);
}

/// f32 division through div.full.f32 (at most 2 ulp), as Triton does: IEEE division (div.rn.f32) is a
/// subroutine of a dozen instructions per element, which softmax's normalization pays for every element.
/// A constant 1 over y (sigmoid's, or any kernel's 1.0 / y) is rcp.approx.ftz.f32 (at most 1 ulp): one
/// instruction where div.full takes four (it scales operands past 2^126). .ftz flushes subnormals, as CUDA's
/// -ftz=true (--use_fast_math) does: 1 / y is 0 for |y| > 2^126 and +-inf for a subnormal y.
struct FastDivisionLowering : ConvertOpToLLVMPattern<arith::DivFOp> {
  FastDivisionLowering(LLVMTypeConverter &converter) : ConvertOpToLLVMPattern(converter, /*benefit=*/2) {}
  LogicalResult matchAndRewrite(arith::DivFOp op, OpAdaptor adaptor, ConversionPatternRewriter &rewriter) const override {
    if (!op.getType().isF32())
      return failure();
    Type f32 = rewriter.getF32Type();
    rewriter.replaceOp(op, isOne(adaptor.getLhs())
                               ? inlineAsm(rewriter, op.getLoc(), f32, adaptor.getRhs(), "rcp.approx.ftz.f32 $0, $1;",
                                           "=f,f", /*sideEffects=*/false)
                               : inlineAsm(rewriter, op.getLoc(), f32, {adaptor.getLhs(), adaptor.getRhs()},
                                           "div.full.f32 $0, $1, $2;", "=f,f,f", /*sideEffects=*/false));
    return success();
  }
};

} // namespace

void populateElementwisePatterns(LLVMTypeConverter &converter, RewritePatternSet &patterns,
                                 const LoweringContext &context) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<ElementwiseOpLowering>(converter, ctx, context.computeCapability);
  patterns.add<AddPtrLowering, SplatLowering, MakeRangeLowering>(converter);
  patterns.add<BlockConstantLowering>(converter);
  if (context.fastMath) {
    constexpr double log2e = 1.4426950408889634, ln2 = 0.6931471805599453;
    // .ftz: results below 2^-126 become 0, as CUDA's fast math (__expf) makes them; without it ptxas wraps
    // each ex2 in a range check and two multiplies (the MoE epilogue's silu spent a third of its
    // instructions there).
    patterns.add<ApproximateMathLowering<math::ExpOp>>(converter, "ex2.approx.ftz.f32", log2e, 1.0);
    patterns.add<ApproximateMathLowering<math::Exp2Op>>(converter, "ex2.approx.ftz.f32", 1.0, 1.0);
    patterns.add<ApproximateMathLowering<math::LogOp>>(converter, "lg2.approx.f32", 1.0, ln2);
    patterns.add<ApproximateMathLowering<math::Log2Op>>(converter, "lg2.approx.f32", 1.0, 1.0);
    patterns.add<ApproximateMathLowering<math::SinOp>>(converter, "sin.approx.f32", 1.0, 1.0);
    patterns.add<ApproximateMathLowering<math::CosOp>>(converter, "cos.approx.f32", 1.0, 1.0);
    patterns.add<ApproximateMathLowering<math::TanhOp>>(converter, "tanh.approx.f32", 1.0, 1.0);
    patterns.add<ApproximateMathLowering<math::RsqrtOp>>(converter, "rsqrt.approx.f32", 1.0, 1.0);
    patterns.add<FastDivisionLowering>(converter);
  }
}

} // namespace mlir::brick::lowering
