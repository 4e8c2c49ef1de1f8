//===- RemoveLayoutConversions.cpp - brickgpu-remove-layout-conversions ---------===//
//
// Conversions between layouts cost a round trip through shared memory. Two rewrites remove them:
//   * recompute: convert_layout(v, L) where v is cheap to recompute from scalars (constants, splats, ranges,
//     and elementwise/pointer arithmetic, expand_dims and broadcast over them, small 1-D loads) becomes v
//     recomputed in L;
//   * sink: an elementwise op, reduction or scan whose operands come converted from one layout L (at least one
//     of them from a value that is not cheap to recompute) runs in L instead, and its result is converted.
// Sinking moves conversions towards users, where they meet the conversions coalescing put in front of
// stores and cancel. Recomputing never undoes a sink: it needs every operand to be cheap to recompute.
//
//===----------------------------------------------------------------------===//

#include "brick/Dialect/BrickGPU/BrickGPUDialect.h"
#include "brick/Transforms/Passes.h"

#include "PipelineUtils.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::brick {
#define GEN_PASS_DEF_BRICKGPUREMOVELAYOUTCONVERSIONS
#include "brick/Transforms/Passes.h.inc"

namespace {
using brickgpu::ConvertLayoutOp;
using brickgpu::DistributedLayoutAttr;
using brickgpu::SliceEncodingAttr;

constexpr int kMaxDepth = 32;

RankedTensorType withLayout(Type type, Attribute layout) {
  auto tensor = cast<RankedTensorType>(type);
  return RankedTensorType::get(tensor.getShape(), tensor.getElementType(), layout);
}

Attribute layoutOf(Value value) { return cast<RankedTensorType>(value.getType()).getEncoding(); }

/// Elementwise, side-effect-free ops over blocks of one shape: arith, math and brick.addptr.
bool isElementwise(Operation *op) {
  if (op->getNumRegions() != 0 || op->getNumResults() != 1 || !isa<RankedTensorType>(op->getResult(0).getType()))
    return false;
  if (!isa<AddPtrOp>(op) && !op->hasTrait<OpTrait::Elementwise>())
    return false;
  return isMemoryEffectFree(op);
}

/// A load of a 1-D block of at most one element a thread (a row's scale, a column's bias): loaded again in
/// another layout it costs a few cached reads, where a conversion costs a trip through shared memory and a
/// barrier over all warps (Triton's rematerialization takes such loads too). Only of what the kernel never
/// writes: in the new layout a thread reads elements other warps loaded, and nothing orders its read against
/// their stores to them.
bool smallLoad(Operation *op) {
  auto load = dyn_cast<LoadOp>(op);
  auto type = load ? dyn_cast<RankedTensorType>(load.getType()) : RankedTensorType();
  auto module = op->getParentOfType<ModuleOp>();
  // The walk over the kernel last: the patterns ask this often.
  return type && module && type.getRank() == 1 &&
         type.getNumElements() <= 32 * brickgpu::BrickGPUDialect::getNumWarps(module) &&
         readsWhatTheKernelNeverWrites(load);
}

/// Whether `value` can be recomputed in `layout` from scalars and constants alone (and `available`, a value
/// about to be given that layout).
bool canRecompute(Value value, Attribute layout, Value available = {}, int depth = kMaxDepth) {
  if (!isa<RankedTensorType>(value.getType()))
    return true;
  if (layoutOf(value) == layout || value == available)
    return true;
  Operation *op = value.getDefiningOp();
  if (!op || depth == 0)
    return false;
  if (auto constant = dyn_cast<arith::ConstantOp>(op))
    return isa<SplatElementsAttr>(constant.getValue());
  if (isa<MakeRangeOp, SplatOp, ConvertLayoutOp>(op))
    return true;
  if (auto expand = dyn_cast<ExpandDimsOp>(op)) {
    auto distributed = dyn_cast<DistributedLayoutAttr>(layout);
    return distributed &&
           canRecompute(expand.getSrc(), SliceEncodingAttr::get(op->getContext(), expand.getAxis(), distributed),
                        available, depth - 1);
  }
  if (auto broadcast = dyn_cast<BroadcastOp>(op))
    return canRecompute(broadcast.getSrc(), layout, available, depth - 1);
  if (isElementwise(op) || smallLoad(op))
    return llvm::all_of(op->getOperands(),
                        [&](Value operand) { return canRecompute(operand, layout, available, depth - 1); });
  return false;
}

/// Recomputes `value` in `layout` (canRecompute must hold), right after `value` is defined so that loops
/// do not recompute what is invariant.
Value recompute(PatternRewriter &rewriter, Value value, Attribute layout,
                llvm::DenseMap<std::pair<Value, Attribute>, Value> &done) {
  if (!isa<RankedTensorType>(value.getType()) || layoutOf(value) == layout)
    return value;
  if (Value known = done.lookup({value, layout}))
    return known;
  Operation *op = value.getDefiningOp();
  Type type = withLayout(value.getType(), layout);
  OpBuilder::InsertionGuard guard(rewriter);
  Value result;
  if (auto convert = dyn_cast<ConvertLayoutOp>(op)) {
    rewriter.setInsertionPointAfter(op);
    result = layoutOf(convert.getSrc()) == layout
                 ? convert.getSrc()
                 : Value(ConvertLayoutOp::create(rewriter, op->getLoc(), type, convert.getSrc()));
  } else if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
    rewriter.setInsertionPointAfter(op);
    auto dense = cast<DenseElementsAttr>(constant.getValue()).reshape(cast<ShapedType>(type));
    result = arith::ConstantOp::create(rewriter, op->getLoc(), cast<TypedAttr>(dense));
  } else {
    // Operands first (each right after its own definition), then this op after all of them.
    SmallVector<Value> operands;
    for (Value operand : op->getOperands()) {
      Attribute operandLayout = layout;
      if (auto expand = dyn_cast<ExpandDimsOp>(op))
        operandLayout = SliceEncodingAttr::get(op->getContext(), expand.getAxis(), cast<DistributedLayoutAttr>(layout));
      operands.push_back(recompute(rewriter, operand, operandLayout, done));
    }
    rewriter.setInsertionPointAfter(op);
    for (Value operand : operands)
      if (Operation *definition = operand.getDefiningOp())
        if (definition->getBlock() == op->getBlock() && op->isBeforeInBlock(definition))
          rewriter.setInsertionPointAfter(definition);
    OperationState state(op->getLoc(), op->getName(), operands, TypeRange{type}, op->getAttrs());
    result = rewriter.create(state)->getResult(0);
  }
  done[{value, layout}] = result;
  return result;
}

struct RecomputeInTargetLayout : OpRewritePattern<ConvertLayoutOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvertLayoutOp op, PatternRewriter &rewriter) const override {
    Attribute target = op.getType().getEncoding();
    Value src = op.getSrc();
    if (isa_and_present<ConvertLayoutOp>(src.getDefiningOp()) || !canRecompute(src, target))
      return failure();
    llvm::DenseMap<std::pair<Value, Attribute>, Value> done;
    rewriter.replaceOp(op, recompute(rewriter, src, target, done));
    return success();
  }
};

/// The layout `op`'s operands are converted from, when they all are (or are cheap to recompute) and at
/// least one of them is not cheap to recompute where it is now.
std::optional<Attribute> commonSourceLayout(Operation *op, ValueRange operands) {
  std::optional<Attribute> common;
  bool anchored = false;
  for (Value operand : operands) {
    if (!isa<RankedTensorType>(operand.getType()))
      continue;
    auto convert = operand.getDefiningOp<ConvertLayoutOp>();
    if (!convert)
      continue;
    Attribute source = layoutOf(convert.getSrc());
    if (common && *common != source)
      return std::nullopt;
    common = source;
    anchored |= !canRecompute(convert.getSrc(), layoutOf(operand));
  }
  if (!common || !anchored || *common == layoutOf(operands.front()))
    return std::nullopt;
  for (Value operand : operands)
    if (isa<RankedTensorType>(operand.getType()) && !operand.getDefiningOp<ConvertLayoutOp>() &&
        !canRecompute(operand, *common))
      return std::nullopt;
  return common;
}

struct SinkConversionThroughElementwise : RewritePattern {
  SinkConversionThroughElementwise(MLIRContext *context) : RewritePattern(MatchAnyOpTypeTag(), 1, context) {}
  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override {
    if (!isElementwise(op))
      return failure();
    std::optional<Attribute> layout = commonSourceLayout(op, op->getOperands());
    if (!layout)
      return failure();
    llvm::DenseMap<std::pair<Value, Attribute>, Value> done;
    SmallVector<Value> operands;
    for (Value operand : op->getOperands()) {
      if (auto convert = operand.getDefiningOp<ConvertLayoutOp>(); convert && layoutOf(convert.getSrc()) == *layout)
        operands.push_back(convert.getSrc());
      else
        operands.push_back(recompute(rewriter, operand, *layout, done));
    }
    Type original = op->getResult(0).getType();
    OperationState state(op->getLoc(), op->getName(), operands, TypeRange{withLayout(original, *layout)},
                         op->getAttrs());
    Operation *moved = rewriter.create(state);
    rewriter.replaceOpWithNewOp<ConvertLayoutOp>(op, original, moved->getResult(0));
    return success();
  }
};

/// A reduction or scan whose operands all come converted from one layout runs in that layout (a scan keeps it;
/// a reduction gives its slice), and its results are converted.
template <typename AxisOp> struct SinkConversionThroughAxisOp : OpRewritePattern<AxisOp> {
  using OpRewritePattern<AxisOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(AxisOp op, PatternRewriter &rewriter) const override {
    std::optional<Attribute> layout = commonSourceLayout(op, op.getSrcs());
    if (!layout || !llvm::all_of(op.getSrcs(), [](Value v) { return v.getDefiningOp<ConvertLayoutOp>(); }))
      return failure();
    auto distributed = dyn_cast<DistributedLayoutAttr>(*layout);
    if (!distributed)
      return failure();
    Attribute resultLayout = distributed;
    if constexpr (std::is_same_v<AxisOp, ReduceOp>)
      resultLayout = SliceEncodingAttr::get(op->getContext(), op.getAxis(), distributed);
    rewriter.setInsertionPointAfter(op);
    rewriter.modifyOpInPlace(op, [&] {
      for (OpOperand &operand : op->getOpOperands())
        operand.set(operand.get().getDefiningOp<ConvertLayoutOp>().getSrc());
    });
    for (OpResult result : op->getResults()) {
      if (!isa<RankedTensorType>(result.getType()))
        continue;
      Type original = result.getType();
      rewriter.modifyOpInPlace(op, [&] { result.setType(withLayout(original, resultLayout)); });
      auto back = ConvertLayoutOp::create(rewriter, op.getLoc(), original, result);
      rewriter.replaceAllUsesExcept(result, back, back);
    }
    return success();
  }
};

/// A dot accumulator's layout (#mma) or a slice of one (its row or column reductions).
bool isAccumulatorLayout(Attribute layout) {
  if (auto slice = dyn_cast<SliceEncodingAttr>(layout))
    return isa<brickgpu::MmaEncodingAttr>(slice.getParent());
  return isa<brickgpu::MmaEncodingAttr>(layout);
}

/// The layout `user` wants loop value `argument` in, if any: a conversion's result layout. An elementwise user
/// wants a dot accumulator's layout (or a slice of it) that it would then run in: the one another operand of it
/// is converted from (a value not cheap to recompute: the op then sinks there), or the one the only user of its
/// result converts it to when its other operands can be recomputed there (online softmax's `acc * correction`
/// before a dot: the conversion then moves onto `argument`). Only accumulator layouts: converting a whole
/// accumulator every iteration is what this saves; for small blocks the conversions it moves elsewhere (after
/// the loop, into a later loop) can cost more than they save.
std::optional<Attribute> layoutWanted(Operation *user, Value argument) {
  if (auto convert = dyn_cast<ConvertLayoutOp>(user))
    return layoutOf(convert.getResult());
  if (!isElementwise(user))
    return std::nullopt;
  for (Value operand : user->getOperands())
    if (auto convert = operand.getDefiningOp<ConvertLayoutOp>();
        convert && operand != argument && isAccumulatorLayout(layoutOf(convert.getSrc())) &&
        !canRecompute(convert.getSrc(), layoutOf(operand)))
      return layoutOf(convert.getSrc());
  Value result = user->getResult(0);
  if (!result.hasOneUse())
    return std::nullopt;
  auto convert = dyn_cast<ConvertLayoutOp>(*result.getUsers().begin());
  if (!convert || !isAccumulatorLayout(layoutOf(convert.getResult())))
    return std::nullopt;
  Attribute target = layoutOf(convert.getResult());
  for (Value operand : user->getOperands())
    if (operand != argument && !canRecompute(operand, target))
      return std::nullopt;
  return target;
}

/// Carries loop value `index` of `loop` in the layout its users in the loop want it in (layoutWanted), when they
/// all agree and the value the loop yields comes from that layout or can be recomputed in it: the conversion
/// then happens once, before the loop, instead of in every iteration. Leaves conversions to the old layout at
/// the edges (the patterns above remove those that are not needed).
bool carryInUsersLayout(scf::ForOp loop, unsigned index, bool accumulatorsOnly) {
  BlockArgument argument = loop.getRegionIterArg(index);
  auto type = dyn_cast<RankedTensorType>(argument.getType());
  if (!type || !type.getEncoding())
    return false;
  Attribute target;
  for (Operation *user : argument.getUsers()) {
    std::optional<Attribute> wanted = layoutWanted(user, argument);
    if (!wanted)
      continue;
    if (target && target != *wanted)
      return false;
    target = *wanted;
  }
  if (!target || target == type.getEncoding() || (accumulatorsOnly && !isAccumulatorLayout(target)))
    return false;
  Value yielded = loop.getYieldedValues()[index];
  auto convert = yielded.getDefiningOp<ConvertLayoutOp>();
  if (!(convert && layoutOf(convert.getSrc()) == target) && !canRecompute(yielded, target, argument))
    return false;

  Location loc = loop.getLoc();
  RankedTensorType carried = withLayout(type, target);
  OpBuilder builder(loop);
  loop.getInitArgsMutable()[index].set(ConvertLayoutOp::create(builder, loc, carried, loop.getInitArgs()[index]));
  argument.setType(carried);
  builder.setInsertionPointToStart(loop.getBody());
  auto asBefore = ConvertLayoutOp::create(builder, loc, type, argument);
  argument.replaceAllUsesExcept(asBefore, asBefore);
  Operation *yield = loop.getBody()->getTerminator();
  builder.setInsertionPoint(yield);
  yield->setOperand(index, ConvertLayoutOp::create(builder, loc, carried, yield->getOperand(index)));
  OpResult result = loop->getResult(index);
  result.setType(carried);
  builder.setInsertionPointAfter(loop);
  auto after = ConvertLayoutOp::create(builder, loc, type, result);
  result.replaceAllUsesExcept(after, after);
  return true;
}

struct RemoveLayoutConversionsPass : impl::BrickGPURemoveLayoutConversionsBase<RemoveLayoutConversionsPass> {
  void runOnOperation() override {
    if (failed(brickgpu::verifyEveryBlockHasALayout(getOperation(), "brickgpu-remove-layout-conversions")))
      return signalPassFailure();
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    patterns.add<RecomputeInTargetLayout, SinkConversionThroughElementwise,
                 SinkConversionThroughAxisOp<ReduceOp>, SinkConversionThroughAxisOp<ScanOp>>(context);
    ConvertLayoutOp::getCanonicalizationPatterns(patterns, context);
    FrozenRewritePatternSet frozen(std::move(patterns));
    // Rounds of cleanup and loop re-layout; a loop value changes layout at most once, so this ends. Values
    // wanted in an accumulator's layout go first: once an accumulator is carried in it, the ops that read it
    // sink there, and what else they read (a row's scales) is then wanted in a slice of it, not in the layout
    // the op had before.
    llvm::DenseSet<std::pair<Operation *, unsigned>> relaidOut;
    while (true) {
      if (failed(applyPatternsGreedily(getOperation(), frozen)))
        return signalPassFailure();
      bool changed = false;
      for (bool accumulatorsOnly : {true, false}) {
        getOperation().walk([&](scf::ForOp loop) {
          for (unsigned i = 0; i < loop.getNumRegionIterArgs(); ++i)
            if (!relaidOut.contains({loop, i}) && carryInUsersLayout(loop, i, accumulatorsOnly)) {
              relaidOut.insert({loop, i});
              changed = true;
            }
        });
        if (changed)
          break;
      }
      if (!changed)
        break;
    }
  }
};
} // namespace
} // namespace mlir::brick
