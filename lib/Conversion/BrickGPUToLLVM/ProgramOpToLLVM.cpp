//===- ProgramOpToLLVM.cpp - program_id and num_programs ------------------------===//

#include "Utility.h"

namespace mlir::brick::lowering {
namespace {

struct ProgramIdLowering : ConvertOpToLLVMPattern<ProgramIdOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(ProgramIdOp op, OpAdaptor, ConversionPatternRewriter &b) const override {
    Type i32 = b.getI32Type();
    Location loc = op.getLoc();
    Value id = op.getAxis() == 0   ? Value(NVVM::BlockIdXOp::create(b, loc, i32))
               : op.getAxis() == 1 ? Value(NVVM::BlockIdYOp::create(b, loc, i32))
                                   : Value(NVVM::BlockIdZOp::create(b, loc, i32));
    b.replaceOp(op, id);
    return success();
  }
};

struct NumProgramsLowering : ConvertOpToLLVMPattern<NumProgramsOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(NumProgramsOp op, OpAdaptor, ConversionPatternRewriter &b) const override {
    Type i32 = b.getI32Type();
    Location loc = op.getLoc();
    Value count = op.getAxis() == 0   ? Value(NVVM::GridDimXOp::create(b, loc, i32))
                  : op.getAxis() == 1 ? Value(NVVM::GridDimYOp::create(b, loc, i32))
                                      : Value(NVVM::GridDimZOp::create(b, loc, i32));
    b.replaceOp(op, count);
    return success();
  }
};

} // namespace

void populateProgramPatterns(LLVMTypeConverter &converter, RewritePatternSet &patterns, const LoweringContext &) {
  patterns.add<ProgramIdLowering, NumProgramsLowering>(converter);
}

} // namespace mlir::brick::lowering
