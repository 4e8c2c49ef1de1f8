//===- AsyncCopyOpToLLVM.cpp - cp.async copies into shared memory, their groups and waits ----===//
//
// Each thread copies the vectors of contiguous elements its layout gives it (as wide as the axis info proves,
// 4, 8 or 16 bytes) to their swizzled places in the buffer with `cp.async`; a masked-off vector reads nothing and
// writes zeros (the source size operand is 0). Threads that hold the same elements copy the same bytes.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

namespace mlir::brick::lowering {
namespace {

struct AsyncCopyLowering : ConvertOpToLLVMPattern<brickgpu::AsyncCopyGlobalToLocalOp> {
  AsyncCopyLowering(LLVMTypeConverter &converter, const LoweringContext &context)
      : ConvertOpToLLVMPattern(converter), context(context) {}

  LogicalResult matchAndRewrite(brickgpu::AsyncCopyGlobalToLocalOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    auto pointerType = cast<RankedTensorType>(op.getPtr().getType());
    brickgpu::MemDescType memory = op.getDst().getType();
    Type element = getTypeConverter()->convertType(memory.getElementType());
    unsigned bits = std::max(8u, memory.getElementType().getIntOrFloatBitWidth());
    unsigned width = getMemoryAccessWidth(*context.axisInfo, op.getPtr(), op.getMask(), bits);
    unsigned bytes = width * bits / 8;
    if (bytes < 4)
      return op.emitError() << "cp.async copies 4, 8 or 16 bytes at a time, but only " << bytes
                            << " contiguous, aligned bytes of this block can be proven to go together";
    SmallVector<Value> pointers = unpack(b, loc, adaptor.getPtr());
    SmallVector<Value> masks = adaptor.getMask() ? unpack(b, loc, adaptor.getMask()) : SmallVector<Value>();
    brickgpu::LinearLayout layout = brickgpu::getLinearLayout(pointerType);
    auto coordinates = emitCoordinates(b, loc, layout, getThreadId(b, loc));
    Ownership owner = getOwnership(b, loc, pointerType);
    auto sharedPointer = LLVM::LLVMPointerType::get(b.getContext(), 3);
    auto cache = bytes == 16 ? NVVM::LoadCacheModifierKind::CG : NVVM::LoadCacheModifierKind::CA;
    for (unsigned first = 0; first < pointers.size(); first += width) {
      if (!owner.registerOwned[first])
        continue; // another register of this thread copies the same elements
      Value destination = LLVM::GEPOp::create(b, loc, sharedPointer, element, adaptor.getDst(),
                                              ValueRange{emitSharedOffset(b, loc, coordinates[first], memory)});
      Value sourceBytes;
      if (!masks.empty())
        sourceBytes = LLVM::SelectOp::create(b, loc, masks[first], i32Constant(b, loc, bytes), i32Constant(b, loc, 0));
      NVVM::CpAsyncOp::create(b, loc, destination, pointers[first], b.getI32IntegerAttr(bytes),
                              NVVM::LoadCacheModifierKindAttr::get(b.getContext(), cache), sourceBytes);
    }
    b.eraseOp(op);
    return success();
  }

  LoweringContext context;
};

struct AsyncCommitGroupLowering : ConvertOpToLLVMPattern<brickgpu::AsyncCommitGroupOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(brickgpu::AsyncCommitGroupOp op, OpAdaptor, ConversionPatternRewriter &b) const override {
    NVVM::CpAsyncCommitGroupOp::create(b, op.getLoc());
    b.eraseOp(op);
    return success();
  }
};

struct AsyncWaitLowering : ConvertOpToLLVMPattern<brickgpu::AsyncWaitOp> {
  AsyncWaitLowering(LLVMTypeConverter &converter, const LoweringContext &context)
      : ConvertOpToLLVMPattern(converter), context(context) {}
  LogicalResult matchAndRewrite(brickgpu::AsyncWaitOp op, OpAdaptor, ConversionPatternRewriter &b) const override {
    NVVM::CpAsyncWaitGroupOp::create(b, op.getLoc(), op.getPending());
    // cp.async writes through the generic proxy; wgmma reads through the async one.
    if (context.asyncProxyReads)
      emitAsyncProxyFence(b, op.getLoc());
    b.eraseOp(op);
    return success();
  }
  LoweringContext context;
};
} // namespace

void populateAsyncCopyPatterns(LLVMTypeConverter &converter, RewritePatternSet &patterns, const LoweringContext &context) {
  patterns.add<AsyncCopyLowering, AsyncWaitLowering>(converter, context);
  patterns.add<AsyncCommitGroupLowering>(converter);
}

} // namespace mlir::brick::lowering
