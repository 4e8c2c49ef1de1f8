//===- Combine.cpp - brick-combine: fuse op sequences (patterns in Combine.td) --===//

#include "brick/Transforms/Passes.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::brick {
#define GEN_PASS_DEF_BRICKCOMBINE
#include "brick/Transforms/Passes.h.inc"

bool isZeroConstant(Value value) {
  return matchPattern(value, m_Zero()) || matchPattern(value, m_AnyZeroFloat());
}

/// The dot that produced `dot` with `accumulator` for its c, built where the rewriter is.
Value accumulateInto(OpBuilder &builder, Value dot, Value accumulator) {
  auto combined = cast<DotOp>(builder.clone(*dot.getDefiningOp()));
  combined.getCMutable().assign(accumulator);
  return combined.getResult();
}

namespace {
#include "brick/Transforms/Combine.inc"

struct BrickCombinePass : impl::BrickCombineBase<BrickCombinePass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    populateWithGenerated(patterns);
    for (RegisteredOperationName op : context->getRegisteredOperations())
      if (op.getDialectNamespace() == BrickDialect::getDialectNamespace())
        op.getCanonicalizationPatterns(patterns, context);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
} // namespace mlir::brick
