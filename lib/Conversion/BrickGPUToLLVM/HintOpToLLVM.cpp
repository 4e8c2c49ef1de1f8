//===- HintOpToLLVM.cpp - What the programmer tells the compiler: brick.hint (facts for the axis analysis, nothing
//                        at run time), brick.assume (llvm.assume), brick.inline_asm_elementwise (their PTX) ---===//

#include "Utility.h"

namespace mlir::brick::lowering {
namespace {

/// The analysis has read the hint; the value is the operand's.
struct HintLowering : ConvertOpToLLVMPattern<HintOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(HintOp op, OpAdaptor adaptor, ConversionPatternRewriter &b) const override {
    b.replaceOp(op, adaptor.getSrc());
    return success();
  }
};

/// llvm.assume of every element a thread holds: LLVM may use them (value ranges, known bits).
struct AssumeLowering : ConvertOpToLLVMPattern<AssumeOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(AssumeOp op, OpAdaptor adaptor, ConversionPatternRewriter &b) const override {
    for (Value element : elementsOf(b, op.getLoc(), adaptor.getCondition()))
      LLVM::AssumeOp::create(b, op.getLoc(), element);
    b.eraseOp(op);
    return success();
  }
};

/// The programmer's PTX once per element a thread holds: the i-th elements of every operand in, the i-th elements
/// of every result out (several results come back as an LLVM struct).
struct InlineAsmElementwiseLowering : ConvertOpToLLVMPattern<InlineAsmElementwiseOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(InlineAsmElementwiseOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    SmallVector<SmallVector<Value>> operands;
    for (Value arg : adaptor.getArgs())
      operands.push_back(elementsOf(b, loc, arg));
    SmallVector<Type> elementTypes, resultTypes;
    for (Type type : op.getResultTypes()) {
      Type converted = getTypeConverter()->convertType(type);
      if (!converted)
        return b.notifyMatchFailure(op, "a result type has no LLVM type");
      resultTypes.push_back(converted);
      elementTypes.push_back(getTypeConverter()->convertType(getElementTypeOrSelf(type)));
    }
    size_t count = 1;
    if (auto structType = dyn_cast<LLVM::LLVMStructType>(resultTypes.front()))
      count = structType.getBody().size();
    for (const SmallVector<Value> &elements : operands)
      if (elements.size() != count)
        return b.notifyMatchFailure(op, "operands and results hold different numbers of elements per thread");
    SmallVector<SmallVector<Value>> results(elementTypes.size());
    for (size_t i = 0; i < count; ++i) {
      SmallVector<Value> in;
      for (const SmallVector<Value> &elements : operands)
        in.push_back(elements[i]);
      Value out = inlineAsm(b, loc, elementTypes, in, op.getAsmString(), op.getConstraints(), !op.getPure());
      for (size_t r = 0; r < elementTypes.size(); ++r)
        results[r].push_back(elementTypes.size() == 1 ? out : LLVM::ExtractValueOp::create(b, loc, out, r).getResult());
    }
    SmallVector<Value> replacements;
    for (auto [type, values] : llvm::zip(resultTypes, results))
      replacements.push_back(isa<LLVM::LLVMStructType>(type) ? pack(b, loc, type, values) : values.front());
    b.replaceOp(op, replacements);
    return success();
  }
};

} // namespace

void populateHintPatterns(LLVMTypeConverter &converter, RewritePatternSet &patterns, const LoweringContext &) {
  patterns.add<HintLowering, AssumeLowering, InlineAsmElementwiseLowering>(converter);
}

} // namespace mlir::brick::lowering
