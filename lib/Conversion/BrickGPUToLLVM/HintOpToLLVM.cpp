//===- HintOpToLLVM.cpp - brick.hint (facts for the axis analysis: nothing at run time), brick.assume ---===//

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

} // namespace

void populateHintPatterns(LLVMTypeConverter &converter, RewritePatternSet &patterns, const LoweringContext &) {
  patterns.add<HintLowering, AssumeLowering>(converter);
}

} // namespace mlir::brick::lowering
