//===- LowerDescriptorLoads.cpp - brickgpu-lower-descriptor-loads: lone TMA copies ---------===//
//
// The descriptor loads kept for TMA that the pipeline did not put in a ring (outside loops, or in loops it
// leaves alone) each become one TMA copy that every thread waits for. The buffer is the dot operand's own
// local_alloc when that is laid out as the tensor map writes; otherwise a buffer of that layout, read back
// into the load's registers.
//
//===----------------------------------------------------------------------===//

#include "brick/Analysis/SharedMemory.h"
#include "brick/Dialect/BrickGPU/BrickGPUDialect.h"
#include "brick/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::brick {
#define GEN_PASS_DEF_BRICKGPULOWERDESCRIPTORLOADS
#include "brick/Transforms/Passes.h.inc"

namespace {
using brickgpu::LocalAllocOp;
using brickgpu::MemDescType;

struct LowerDescriptorLoadsPass : impl::BrickGPULowerDescriptorLoadsBase<LowerDescriptorLoadsPass> {
  void runOnOperation() override {
    SmallVector<DescriptorLoadOp> loads;
    getOperation().walk([&](DescriptorLoadOp load) { loads.push_back(load); });
    bool failed = false;
    for (DescriptorLoadOp load : loads)
      failed |= ::mlir::failed(lower(load));
    if (failed)
      return signalPassFailure();
    getOperation().walk([](MakeTensorDescriptorOp desc) {
      if (desc->use_empty())
        desc.erase();
    });
  }

  LogicalResult lower(DescriptorLoadOp load) {
    MLIRContext *context = load.getContext();
    Location loc = load.getLoc();
    auto type = cast<RankedTensorType>(load.getType());
    auto desc = load.getDesc().getDefiningOp<MakeTensorDescriptorOp>();
    brickgpu::NVMMASharedEncodingAttr layout = brickgpu::getTMALayout(context, type.getShape(), type.getElementType());
    if (!desc || !layout)
      return load.emitError() << "this descriptor block cannot be copied by TMA (internal: brick-lower-tensor-descriptors "
                                 "should have lowered it to loads)";
    OpBuilder b(load);
    auto bufferType = MemDescType::get(context, type.getShape(), type.getElementType(), layout);
    // The dot operand's buffer itself, when TMA can fill it as it is.
    LocalAllocOp operand;
    if (load->hasOneUse())
      if (auto alloc = dyn_cast<LocalAllocOp>(*load->getUsers().begin()); alloc && alloc.getType() == bufferType)
        operand = alloc;
    if (operand)
      b.setInsertionPoint(operand);
    Value buffer = LocalAllocOp::create(b, loc, bufferType, Value());
    auto barrierType =
        MemDescType::get(context, {1}, b.getI64Type(), brickgpu::SharedEncodingAttr::get(context, 1, 1, 1, {0}));
    Value barrier = LocalAllocOp::create(b, loc, barrierType, Value());
    Value yes = arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
    Value parity = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0));
    // The buffer's bytes may have held something every thread must be done with; the barrier must be
    // initialized before anyone arrives or waits.
    brickgpu::BarrierOp::create(b, loc);
    brickgpu::InitBarrierOp::create(b, loc, barrier, 1);
    brickgpu::BarrierOp::create(b, loc);
    int64_t bytes = bufferType.getNumElements() * getSharedElementBytes(type.getElementType());
    brickgpu::BarrierExpectOp::create(b, loc, barrier, bytes, yes);
    brickgpu::AsyncTMACopyGlobalToLocalOp::create(b, loc, desc.getMap(), load.getIndices(), buffer, barrier, yes,
                                                  /*multicast=*/Value());
    brickgpu::WaitBarrierOp::create(b, loc, barrier, parity, ValueRange{buffer});
    brickgpu::BarrierOp::create(b, loc); // everyone has waited: the barrier's bytes can go
    brickgpu::InvalidateBarrierOp::create(b, loc, barrier);
    if (operand) {
      operand.replaceAllUsesWith(buffer);
      operand.erase();
    } else {
      load.replaceAllUsesWith(brickgpu::LocalLoadOp::create(b, loc, type, buffer).getResult());
    }
    load.erase();
    return success();
  }
};
} // namespace
} // namespace mlir::brick
