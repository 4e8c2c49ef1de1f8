//===- ProgramOpToLLVM.cpp - program_id and num_programs -------------------------===//

#include "Utility.h"

namespace mlir::brick::lowering {
namespace {

/// A grid query along axis 0, 1 or 2: the PTX special register of that axis.
template <class Op, class X, class Y, class Z> struct GridQueryLowering : ConvertOpToLLVMPattern<Op> {
  using ConvertOpToLLVMPattern<Op>::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(Op op, typename Op::Adaptor, ConversionPatternRewriter &b) const override {
    Type i32 = b.getI32Type();
    Location loc = op.getLoc();
    Value value = op.getAxis() == 0   ? Value(X::create(b, loc, i32))
                  : op.getAxis() == 1 ? Value(Y::create(b, loc, i32))
                                      : Value(Z::create(b, loc, i32));
    b.replaceOp(op, value);
    return success();
  }
};

/// cluster_rank (clusterRank) and cluster_size: the module's.
struct ClusterRankLowering : ConvertOpToLLVMPattern<ClusterRankOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(ClusterRankOp op, OpAdaptor, ConversionPatternRewriter &b) const override {
    b.replaceOp(op, clusterRank(b, op.getLoc(), op));
    return success();
  }
};
struct ClusterSizeLowering : ConvertOpToLLVMPattern<ClusterSizeOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(ClusterSizeOp op, OpAdaptor, ConversionPatternRewriter &b) const override {
    b.replaceOp(op, i32Constant(b, op.getLoc(), brickgpu::BrickGPUDialect::getClusterSize(op)));
    return success();
  }
};

} // namespace

void populateProgramPatterns(LLVMTypeConverter &converter, RewritePatternSet &patterns, const LoweringContext &) {
  patterns.add<GridQueryLowering<ProgramIdOp, NVVM::BlockIdXOp, NVVM::BlockIdYOp, NVVM::BlockIdZOp>,
               GridQueryLowering<NumProgramsOp, NVVM::GridDimXOp, NVVM::GridDimYOp, NVVM::GridDimZOp>,
               ClusterRankLowering, ClusterSizeLowering>(converter);
}

} // namespace mlir::brick::lowering
