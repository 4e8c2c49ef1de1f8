//===- BrickFolds.cpp - Folds and canonicalization patterns of brick ops ---===//
//
// The rewrites here are the obvious ones: constants through shape ops, no-op shape ops, chains of shape ops
// collapsed, pointer arithmetic by zero, and memory ops under constant masks. They keep the IR that the DSL
// builds small before the GPU passes look at it.
//
//===----------------------------------------------------------------------===//

#include "brick/Dialect/Brick/BrickDialect.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::brick;

namespace {
/// A splat constant of the given shaped type, or null when `value` is not a splat constant.
Attribute reshapeSplatConstant(Attribute value, Type resultType) {
  auto splat = dyn_cast_if_present<SplatElementsAttr>(value);
  if (!splat)
    return {};
  return DenseElementsAttr::get(cast<ShapedType>(resultType), splat.getSplatValue<Attribute>());
}

/// Rewrites `shape_op(splat(x))` into `splat(x)` of the shape op's result type: shape ops move no data
/// when every element is equal.
template <typename ShapeOp>
struct FoldShapeOpOfSplat : OpRewritePattern<ShapeOp> {
  using OpRewritePattern<ShapeOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(ShapeOp op, PatternRewriter &rewriter) const override {
    auto splat = op.getSrc().template getDefiningOp<SplatOp>();
    if (!splat)
      return failure();
    rewriter.replaceOpWithNewOp<SplatOp>(op, op.getType(), splat.getSrc());
    return success();
  }
};

/// Whether `value` is a constant whose elements are all equal to `expected` (an i1 or integer constant).
bool isConstantInt(Value value, int64_t expected) {
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant)))
    return constant.getBitWidth() == 1 ? constant.getBoolValue() == (expected != 0)
                                       : constant.getSExtValue() == expected;
  return false;
}
} // namespace

//===----------------------------------------------------------------------===//
// Folds
//===----------------------------------------------------------------------===//

OpFoldResult SplatOp::fold(FoldAdaptor adaptor) {
  auto value = dyn_cast_if_present<TypedAttr>(adaptor.getSrc());
  if (!value || !isa<IntegerAttr, FloatAttr>(value))
    return {};
  return DenseElementsAttr::get(cast<ShapedType>(getType()), value);
}

OpFoldResult BroadcastOp::fold(FoldAdaptor adaptor) {
  if (getSrc().getType() == getType())
    return getSrc();
  return reshapeSplatConstant(adaptor.getSrc(), getType());
}

OpFoldResult ExpandDimsOp::fold(FoldAdaptor adaptor) { return reshapeSplatConstant(adaptor.getSrc(), getType()); }

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getSrc().getType() == getType())
    return getSrc();
  return reshapeSplatConstant(adaptor.getSrc(), getType());
}

OpFoldResult TransOp::fold(FoldAdaptor adaptor) {
  ArrayRef<int32_t> order = getOrder();
  bool identity = llvm::all_of(llvm::enumerate(order), [](auto pair) {
    return static_cast<int64_t>(pair.index()) == pair.value();
  });
  if (identity && getSrc().getType() == getType())
    return getSrc();
  return reshapeSplatConstant(adaptor.getSrc(), getType());
}

OpFoldResult AddPtrOp::fold(FoldAdaptor) {
  if (isConstantInt(getOffset(), 0))
    return getPtr();
  return {};
}

//===----------------------------------------------------------------------===//
// Canonicalization patterns
//===----------------------------------------------------------------------===//

namespace {
/// broadcast(broadcast(x)) -> broadcast(x).
struct CollapseBroadcasts : OpRewritePattern<BroadcastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BroadcastOp op, PatternRewriter &rewriter) const override {
    auto inner = op.getSrc().getDefiningOp<BroadcastOp>();
    if (!inner)
      return failure();
    rewriter.replaceOpWithNewOp<BroadcastOp>(op, op.getType(), inner.getSrc());
    return success();
  }
};

/// reshape(reshape(x)) -> reshape(x).
struct CollapseReshapes : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op, PatternRewriter &rewriter) const override {
    auto inner = op.getSrc().getDefiningOp<ReshapeOp>();
    if (!inner)
      return failure();
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), inner.getSrc());
    return success();
  }
};

/// trans(trans(x, inner), outer) -> trans(x, inner o outer).
struct ComposeTransposes : OpRewritePattern<TransOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransOp op, PatternRewriter &rewriter) const override {
    auto inner = op.getSrc().getDefiningOp<TransOp>();
    if (!inner)
      return failure();
    SmallVector<int32_t> order;
    for (int32_t dim : op.getOrder())
      order.push_back(inner.getOrder()[dim]);
    rewriter.replaceOpWithNewOp<TransOp>(op, op.getType(), inner.getSrc(), order);
    return success();
  }
};

/// addptr(splat(p), splat(o)) -> splat(addptr(p, o)): pointer arithmetic on one scalar, not on every element.
struct AddPtrOfSplats : OpRewritePattern<AddPtrOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AddPtrOp op, PatternRewriter &rewriter) const override {
    auto ptr = op.getPtr().getDefiningOp<SplatOp>();
    auto offset = op.getOffset().getDefiningOp<SplatOp>();
    if (!ptr || !offset)
      return failure();
    Value scalar = AddPtrOp::create(rewriter, op.getLoc(), ptr.getSrc().getType(), ptr.getSrc(), offset.getSrc());
    rewriter.replaceOpWithNewOp<SplatOp>(op, op.getType(), scalar);
    return success();
  }
};

/// addptr(addptr(p, a), b) -> addptr(p, a + b): one address computation where the DSL wrote two. Each addptr
/// sign-extends its offset, so the sum is taken in i64: in a narrower type it would wrap where the two steps do
/// not (two i8 steps of 100 are 200 elements, not -56; two i1 steps of -1 are -2, not 0).
struct CombineAddPtrs : OpRewritePattern<AddPtrOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AddPtrOp op, PatternRewriter &rewriter) const override {
    auto inner = op.getPtr().getDefiningOp<AddPtrOp>();
    if (!inner)
      return failure();
    auto wide = [&](Value offset) -> Value {
      Type i64 = getTypeLike(offset.getType(), rewriter.getI64Type());
      return offset.getType() == i64 ? offset : arith::ExtSIOp::create(rewriter, op.getLoc(), i64, offset).getResult();
    };
    Value sum = arith::AddIOp::create(rewriter, op.getLoc(), wide(inner.getOffset()), wide(op.getOffset()));
    rewriter.replaceOpWithNewOp<AddPtrOp>(op, op.getType(), inner.getPtr(), sum);
    return success();
  }
};

/// A load under a constant mask: all true needs no mask, all false reads nothing and yields `other`.
struct LoadUnderConstantMask : OpRewritePattern<LoadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LoadOp op, PatternRewriter &rewriter) const override {
    Value mask = op.getMask();
    if (!mask || op.getIsVolatile())
      return failure();
    if (isConstantInt(mask, 1)) {
      rewriter.modifyOpInPlace(op, [&] {
        op.getMaskMutable().clear();
        op.getOtherMutable().clear();
      });
      return success();
    }
    if (isConstantInt(mask, 0) && op.getOther()) {
      rewriter.replaceOp(op, op.getOther());
      return success();
    }
    return failure();
  }
};

/// A store under a constant mask: all true needs no mask, all false stores nothing.
struct StoreUnderConstantMask : OpRewritePattern<StoreOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(StoreOp op, PatternRewriter &rewriter) const override {
    Value mask = op.getMask();
    if (!mask)
      return failure();
    if (isConstantInt(mask, 1)) {
      rewriter.modifyOpInPlace(op, [&] { op.getMaskMutable().clear(); });
      return success();
    }
    if (isConstantInt(mask, 0)) {
      rewriter.eraseOp(op);
      return success();
    }
    return failure();
  }
};

/// arith.cmpf with the predicate `false` or `true` is that constant. Decided here, before arith's own patterns (a
/// higher benefit): MLIR 22's CmpFIntToFPConst, given such a comparison of a sitofp/uitofp with a float constant,
/// reaches llvm_unreachable, which crashes a release build (found by brick-fuzz-interpreter).
struct ConstantFloatComparison : OpRewritePattern<arith::CmpFOp> {
  explicit ConstantFloatComparison(MLIRContext *context) : OpRewritePattern(context, /*benefit=*/2) {}
  LogicalResult matchAndRewrite(arith::CmpFOp op, PatternRewriter &rewriter) const override {
    arith::CmpFPredicate predicate = op.getPredicate();
    if (predicate != arith::CmpFPredicate::AlwaysFalse && predicate != arith::CmpFPredicate::AlwaysTrue)
      return failure();
    bool value = predicate == arith::CmpFPredicate::AlwaysTrue;
    TypedAttr constant = rewriter.getBoolAttr(value);
    if (auto shaped = dyn_cast<ShapedType>(op.getType()))
      constant = DenseElementsAttr::get(shaped, llvm::ArrayRef<bool>(value));
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, op.getType(), constant);
    return success();
  }
};
} // namespace

void BrickDialect::getCanonicalizationPatterns(RewritePatternSet &results) const {
  results.add<ConstantFloatComparison>(getContext());
}
void BroadcastOp::getCanonicalizationPatterns(RewritePatternSet &results, MLIRContext *context) {
  results.add<FoldShapeOpOfSplat<BroadcastOp>, CollapseBroadcasts>(context);
}
void ExpandDimsOp::getCanonicalizationPatterns(RewritePatternSet &results, MLIRContext *context) {
  results.add<FoldShapeOpOfSplat<ExpandDimsOp>>(context);
}
void ReshapeOp::getCanonicalizationPatterns(RewritePatternSet &results, MLIRContext *context) {
  results.add<FoldShapeOpOfSplat<ReshapeOp>, CollapseReshapes>(context);
}
void TransOp::getCanonicalizationPatterns(RewritePatternSet &results, MLIRContext *context) {
  results.add<FoldShapeOpOfSplat<TransOp>, ComposeTransposes>(context);
}
void AddPtrOp::getCanonicalizationPatterns(RewritePatternSet &results, MLIRContext *context) {
  results.add<AddPtrOfSplats, CombineAddPtrs>(context);
}
void LoadOp::getCanonicalizationPatterns(RewritePatternSet &results, MLIRContext *context) {
  results.add<LoadUnderConstantMask>(context);
}
void StoreOp::getCanonicalizationPatterns(RewritePatternSet &results, MLIRContext *context) {
  results.add<StoreUnderConstantMask>(context);
}
