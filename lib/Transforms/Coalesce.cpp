//===- Coalesce.cpp - brickgpu-coalesce: vectorized, coalesced global accesses ---===//

#include "brick/Analysis/AxisInfo.h"
#include "brick/Dialect/BrickGPU/BrickGPUDialect.h"
#include "brick/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::brick {
#define GEN_PASS_DEF_BRICKGPUCOALESCE
#include "brick/Transforms/Passes.h.inc"

namespace {
using brickgpu::BlockedEncodingAttr;
using brickgpu::ConvertLayoutOp;

/// The layout a memory op through `pointers` should use.
BlockedEncodingAttr chooseLayout(const ModuleAxisInfo &axisInfo, Value pointers, Value mask, bool isAtomic,
                                 unsigned numWarps) {
  auto type = cast<RankedTensorType>(pointers.getType());
  unsigned rank = type.getRank();
  AxisInfo info = axisInfo.get(pointers);
  // Most contiguous dimension first; ties keep row-major order (the last dimension fastest).
  SmallVector<unsigned> order;
  for (int d = rank - 1; d >= 0; --d)
    order.push_back(d);
  std::stable_sort(order.begin(), order.end(),
                   [&](unsigned a, unsigned b) { return info.getContiguity(a) > info.getContiguity(b); });
  unsigned fastest = order[0];
  Type pointee = cast<PointerType>(type.getElementType()).getPointeeType();
  int64_t elementBits = pointee.isIntOrFloat() ? std::max(8u, pointee.getIntOrFloatBitWidth()) : 64;
  int64_t perThread = axisInfo.getVectorizableElements(pointers, fastest);
  perThread = std::min<int64_t>(perThread, 128 / elementBits);
  perThread = std::min<int64_t>(perThread, axisInfo.getMaskConstancy(mask, fastest));
  // Spread the block over every thread before giving one thread more.
  perThread = std::min<int64_t>(perThread, std::max<int64_t>(1, type.getNumElements() / (32 * numWarps)));
  if (isAtomic)
    perThread = 1;
  return BlockedEncodingAttr::getDefault(type.getContext(), type.getShape(), numWarps, perThread, order);
}

RankedTensorType withLayout(Type type, Attribute layout) {
  auto tensor = cast<RankedTensorType>(type);
  return RankedTensorType::get(tensor.getShape(), tensor.getElementType(), layout);
}

struct CoalescePass : impl::BrickGPUCoalesceBase<CoalescePass> {
  void runOnOperation() override {
    if (failed(brickgpu::verifyEveryBlockHasALayout(getOperation(), "brickgpu-coalesce")))
      return signalPassFailure();
    ModuleOp module = getOperation();
    unsigned numWarps = brickgpu::BrickGPUDialect::getNumWarps(module);
    ModuleAxisInfo axisInfo(module);

    // Decide every layout first: rewriting changes the values the analysis answered about.
    SmallVector<std::pair<Operation *, BlockedEncodingAttr>> decisions;
    module.walk([&](Operation *op) {
      Value pointers, mask;
      bool isAtomic = false;
      if (auto load = dyn_cast<LoadOp>(op))
        pointers = load.getPtr(), mask = load.getMask();
      else if (auto store = dyn_cast<StoreOp>(op))
        pointers = store.getPtr(), mask = store.getMask();
      else if (auto rmw = dyn_cast<AtomicRMWOp>(op))
        pointers = rmw.getPtr(), mask = rmw.getMask(), isAtomic = true;
      else if (auto cas = dyn_cast<AtomicCASOp>(op))
        pointers = cas.getPtr(), isAtomic = true;
      if (!pointers || !isa<RankedTensorType>(pointers.getType()))
        return;
      BlockedEncodingAttr layout = chooseLayout(axisInfo, pointers, mask, isAtomic, numWarps);
      if (layout != cast<RankedTensorType>(pointers.getType()).getEncoding())
        decisions.emplace_back(op, layout);
    });

    OpBuilder builder(&getContext());
    for (auto [op, layout] : decisions) {
      builder.setInsertionPoint(op);
      for (OpOperand &operand : op->getOpOperands())
        if (isa<RankedTensorType>(operand.get().getType()))
          operand.set(ConvertLayoutOp::create(builder, op->getLoc(), withLayout(operand.get().getType(), layout),
                                              operand.get()));
      builder.setInsertionPointAfter(op);
      for (OpResult result : op->getResults()) {
        if (!isa<RankedTensorType>(result.getType()))
          continue;
        Type original = result.getType();
        result.setType(withLayout(original, layout));
        auto back = ConvertLayoutOp::create(builder, op->getLoc(), original, result);
        result.replaceAllUsesExcept(back, back);
      }
    }
  }
};
} // namespace
} // namespace mlir::brick
