//===- SharedMemoryOpToLLVM.cpp - local_alloc, local_load, local_store, barrier -----===//
//
// A shared-memory buffer is a pointer into the kernel's dynamic shared memory, at its allocation offset.
// Element (r, c) of a 2-D buffer (r the slower dimension of `order`) sits at r * rowLength + c', where c'
// XOR-swizzles groups of `vec` elements by (r / perPhase) % maxPhase. Writes are fenced by barriers on both
// sides, so a load after a store (or an alloc with a value) always sees it.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include "brick/Analysis/SharedMemory.h"

namespace mlir::brick::lowering {
namespace {
using brickgpu::MemDescType;
using brickgpu::SharedEncodingAttr;

/// The element offset of `coordinate` in a buffer of `type`.
Value sharedOffset(OpBuilder &b, Location loc, ArrayRef<Value> coordinate, MemDescType type) {
  auto encoding = cast<SharedEncodingAttr>(type.getEncoding());
  ArrayRef<unsigned> order = encoding.getOrder();
  ArrayRef<int64_t> shape = type.getShape();
  Value column = coordinate[order[0]];
  int64_t rowLength = shape[order[0]];
  // Every dimension but the fastest makes up the row index.
  Value row = i32Constant(b, loc, 0);
  for (unsigned i = order.size(); i-- > 1;) {
    row = LLVM::MulOp::create(b, loc, row, i32Constant(b, loc, shape[order[i]]));
    row = LLVM::AddOp::create(b, loc, row, coordinate[order[i]]);
  }
  if (encoding.getMaxPhase() > 1) {
    Value phase = LLVM::URemOp::create(b, loc, LLVM::UDivOp::create(b, loc, row, i32Constant(b, loc, encoding.getPerPhase())),
                                       i32Constant(b, loc, encoding.getMaxPhase()));
    Value vec = i32Constant(b, loc, encoding.getVec());
    Value group = LLVM::XOrOp::create(b, loc, LLVM::UDivOp::create(b, loc, column, vec), phase);
    column = LLVM::AddOp::create(b, loc, LLVM::MulOp::create(b, loc, group, vec), LLVM::URemOp::create(b, loc, column, vec));
  }
  return LLVM::AddOp::create(b, loc, LLVM::MulOp::create(b, loc, row, i32Constant(b, loc, rowLength)), column);
}

Type storedType(OpBuilder &b, Type element) { return element.isInteger(1) ? b.getI8Type() : element; }

void storeBlock(ConversionPatternRewriter &b, Location loc, Value base, RankedTensorType tensorType, Value values,
                MemDescType memory, const LLVMTypeConverter &converter) {
  Type element = converter.convertType(tensorType.getElementType());
  Type stored = storedType(b, element);
  auto sharedPointer = LLVM::LLVMPointerType::get(b.getContext(), 3);
  auto coordinates = emitCoordinates(b, loc, brickgpu::getLinearLayout(tensorType), getThreadId(b, loc));
  emitBarrier(b, loc); // readers of the old contents are done
  for (auto [value, coordinate] : llvm::zip(unpack(b, loc, values), coordinates)) {
    Value v = element.isInteger(1) ? Value(LLVM::ZExtOp::create(b, loc, stored, value)) : value;
    LLVM::StoreOp::create(b, loc, v, LLVM::GEPOp::create(b, loc, sharedPointer, stored, base,
                                                         ValueRange{sharedOffset(b, loc, coordinate, memory)}));
  }
  emitBarrier(b, loc); // the new contents are visible to every thread
}

struct LocalAllocLowering : ConvertOpToLLVMPattern<brickgpu::LocalAllocOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(brickgpu::LocalAllocOp op, OpAdaptor adaptor, ConversionPatternRewriter &b) const override {
    Value base = getSharedMemoryBase(b, op.getLoc(), op);
    if (op.getSrc())
      storeBlock(b, op.getLoc(), base, cast<RankedTensorType>(op.getSrc().getType()), adaptor.getSrc(), op.getType(),
                 *getTypeConverter());
    b.replaceOp(op, base);
    return success();
  }
};

struct LocalStoreLowering : ConvertOpToLLVMPattern<brickgpu::LocalStoreOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(brickgpu::LocalStoreOp op, OpAdaptor adaptor, ConversionPatternRewriter &b) const override {
    storeBlock(b, op.getLoc(), adaptor.getDst(), cast<RankedTensorType>(op.getSrc().getType()), adaptor.getSrc(),
               op.getDst().getType(), *getTypeConverter());
    b.eraseOp(op);
    return success();
  }
};

struct LocalLoadLowering : ConvertOpToLLVMPattern<brickgpu::LocalLoadOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(brickgpu::LocalLoadOp op, OpAdaptor adaptor, ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    auto tensorType = cast<RankedTensorType>(op.getType());
    Type element = getTypeConverter()->convertType(tensorType.getElementType());
    Type stored = storedType(b, element);
    auto sharedPointer = LLVM::LLVMPointerType::get(b.getContext(), 3);
    SmallVector<Value> values;
    for (auto &coordinate : emitCoordinates(b, loc, brickgpu::getLinearLayout(tensorType), getThreadId(b, loc))) {
      Value address = LLVM::GEPOp::create(b, loc, sharedPointer, stored, adaptor.getSrc(),
                                          ValueRange{sharedOffset(b, loc, coordinate, op.getSrc().getType())});
      Value v = LLVM::LoadOp::create(b, loc, stored, address);
      values.push_back(element.isInteger(1) ? Value(LLVM::TruncOp::create(b, loc, element, v)) : v);
    }
    b.replaceOp(op, pack(b, loc, getTypeConverter()->convertType(tensorType), values));
    return success();
  }
};

struct BarrierLowering : ConvertOpToLLVMPattern<brickgpu::BarrierOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(brickgpu::BarrierOp op, OpAdaptor, ConversionPatternRewriter &b) const override {
    emitBarrier(b, op.getLoc());
    b.eraseOp(op);
    return success();
  }
};
} // namespace

void populateSharedMemoryPatterns(LLVMTypeConverter &converter, RewritePatternSet &patterns, const LoweringContext &) {
  converter.addConversion([](brickgpu::MemDescType type) -> Type {
    return LLVM::LLVMPointerType::get(type.getContext(), 3);
  });
  patterns.add<LocalAllocLowering, LocalStoreLowering, LocalLoadLowering, BarrierLowering>(converter);
}

} // namespace mlir::brick::lowering
