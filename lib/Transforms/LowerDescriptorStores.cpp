//===- LowerDescriptorStores.cpp - brickgpu-lower-descriptor-stores: TMA stores -----------===//
//
// A descriptor block kept for TMA is written into a shared buffer laid out as its tensor map reads it, fenced
// for the async proxy, and stored by one thread with TMA, which clips what lies outside the tensor. The block
// passes through shared memory once: a layout conversion feeding the store (to the coalesced layout a masked
// store would want) is skipped, and the registers it converted are written as they are. Where the layout allows,
// a block of several TMA boxes goes through a buffer of one box, a box at a time. A store's read of the buffer
// is waited for just before the buffer is written again, so that it overlaps the code after the store. A store
// brickgpu-warp-specialize marked with a window writes that box only (the others go in other K steps).
//
//===----------------------------------------------------------------------===//

#include "brick/Dialect/BrickGPU/BrickGPUDialect.h"
#include "brick/Transforms/Passes.h"

#include "PipelineUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::brick {
#define GEN_PASS_DEF_BRICKGPULOWERDESCRIPTORSTORES
#include "brick/Transforms/Passes.h.inc"

namespace {
struct LowerDescriptorStoresPass : impl::BrickGPULowerDescriptorStoresBase<LowerDescriptorStoresPass> {
  void runOnOperation() override {
    loopBuffers.clear();
    waitedAfter.clear();
    SmallVector<DescriptorStoreOp> stores;
    getOperation().walk([&](DescriptorStoreOp store) { stores.push_back(store); });
    bool failed = false;
    for (DescriptorStoreOp store : stores)
      failed |= ::mlir::failed(lower(store));
    if (failed)
      return signalPassFailure();
    getOperation().walk([](MakeTensorDescriptorOp desc) {
      if (desc->use_empty())
        desc.erase();
    });
  }

  // The stores of one loop nest share a buffer per buffer type (a wait covers every store thread 0 has issued,
  // so a second buffer would overlap nothing more) and one final wait after the nest.
  llvm::DenseMap<std::pair<Operation *, Type>, Value> loopBuffers;
  llvm::DenseSet<Operation *> waitedAfter;

  LogicalResult lower(DescriptorStoreOp store) {
    MLIRContext *context = store.getContext();
    Location loc = store.getLoc();
    Value value = store.getValue();
    auto convert = value.getDefiningOp<brickgpu::ConvertLayoutOp>();
    if (convert)
      value = convert.getSrc();
    auto type = cast<RankedTensorType>(value.getType());
    auto desc = store.getDesc().getDefiningOp<MakeTensorDescriptorOp>();
    brickgpu::NVMMASharedEncodingAttr layout = brickgpu::getTMALayout(context, type.getShape(), type.getElementType());
    if (!desc || !layout)
      return store.emitError() << "this descriptor block cannot be stored by TMA (internal: brick-lower-tensor-descriptors "
                                  "should have lowered it to stores)";
    OpBuilder b(store);
    // A block of several TMA boxes (rows wider than the swizzle span) goes through a buffer of one box, a box
    // at a time, where each thread's registers of a box are the same for every thread (wgmma's accumulator):
    // a persistent kernel's ring of operand buffers stays alive through its epilogue, and the full block's
    // buffer would cost it a pipeline stage.
    ArrayRef<int64_t> shape = type.getShape();
    int64_t window = tmaStoreWindowColumns(type);
    bool byBox = window < shape[1];
    SmallVector<int64_t> bufferShape{shape[0], window};
    // brickgpu-warp-specialize may ask for one window only (the others go in other K steps).
    int64_t firstColumn = 0, endColumn = shape[1];
    if (auto only = store->getAttrOfType<IntegerAttr>(kStoreWindowAttrName)) {
      firstColumn = only.getInt() * window;
      endColumn = firstColumn + window;
      if (firstColumn < 0 || endColumn > shape[1])
        return store.emitError() << "internal: window " << only.getInt() << " of a " << type << " stored by TMA "
                                 << "in windows of " << window << " columns";
    }
    auto bufferType = brickgpu::MemDescType::get(context, bufferShape, type.getElementType(), layout);
    // A TMA store's read of the buffer is waited for only before the buffer is written again (the next box, or
    // the block of the loop's next iteration), so that it overlaps what follows: a persistent kernel's next
    // tile. The buffer is made outside the loops around the store, which keeps its bytes to it through them,
    // and the last wait follows the outermost loop (and goes before the program may end).
    Operation *outermost = store;
    for (Operation *parent = store->getParentOp(); parent && !isa<FunctionOpInterface>(parent);
         parent = parent->getParentOp())
      if (isa<LoopLikeOpInterface>(parent))
        outermost = parent;
    bool inLoop = outermost != store.getOperation();
    Value buffer = inLoop ? loopBuffers.lookup({outermost, bufferType}) : Value();
    if (!buffer) {
      b.setInsertionPoint(outermost);
      buffer = brickgpu::LocalAllocOp::create(b, loc, bufferType, Value());
      if (inLoop)
        loopBuffers[{outermost, bufferType}] = buffer;
    }
    b.setInsertionPoint(store);
    for (int64_t column = firstColumn; column < endColumn; column += window) {
      // The local_store's lowering puts a barrier before its writes (after this wait, thread 0's, that the
      // buffer was read) and a fence for the async proxy and a barrier after them (before thread 0 stores).
      brickgpu::AsyncTMAStoreWaitOp::create(b, loc);
      auto write = brickgpu::LocalStoreOp::create(b, loc, value, buffer);
      SmallVector<Value> indices(store.getIndices());
      if (byBox)
        write.setColumnOffset(column);
      if (column)
        indices[1] = arith::AddIOp::create(b, loc, indices[1],
                                           arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(int32_t(column))));
      brickgpu::AsyncTMACopyLocalToGlobalOp::create(b, loc, desc.getMap(), indices, buffer);
    }
    if (!inLoop || waitedAfter.insert(outermost).second) {
      b.setInsertionPointAfter(outermost);
      brickgpu::AsyncTMAStoreWaitOp::create(b, loc);
      brickgpu::BarrierOp::create(b, loc); // the buffer's bytes may go to other buffers
    }
    store.erase();
    if (convert && convert->use_empty())
      convert.erase();
    return success();
  }
};
} // namespace
} // namespace mlir::brick
