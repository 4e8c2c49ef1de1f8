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

Type storedType(OpBuilder &b, Type element) { return element.isInteger(1) ? b.getI8Type() : element; }

/// Writes the block `values` of `tensorType` into `memory` at `base`; with `columnOffset`, only its columns
/// [columnOffset, columnOffset + memory's width), into a buffer that narrow (local_store's column window).
/// Registers that run along the buffer's fastest dimension and stay together under its swizzle go as one store of
/// up to 16 bytes (wgmma's accumulator pairs: half the stores of an epilogue).
void storeBlock(ConversionPatternRewriter &b, Location loc, Value base, RankedTensorType tensorType, Value values,
                MemDescType memory, const LLVMTypeConverter &converter, const LoweringContext &context,
                std::optional<int64_t> columnOffset = {}) {
  Type element = converter.convertType(tensorType.getElementType());
  Type stored = storedType(b, element);
  auto sharedPointer = LLVM::LLVMPointerType::get(b.getContext(), 3);
  brickgpu::LinearLayout layout = brickgpu::getLinearLayout(tensorType);
  unsigned bytes = getSharedElementBytes(tensorType.getElementType());
  // Elements narrower than a byte (i1 is stored as i8) go one at a time.
  unsigned bits = tensorType.getElementType().getIntOrFloatBitWidth();
  unsigned width = element.isInteger(1) || bits % 8
                       ? 1
                       : std::max(1u, rowVectorWidth(layout, std::min(16 / bytes, sharedRowRunElements(memory)),
                                                     sharedFastestDim(memory)));
  SmallVector<Value> registers = unpack(b, loc, values);
  auto coordinates = emitCoordinates(b, loc, layout, getThreadId(b, loc));
  emitBarrier(b, loc); // readers of the old contents are done
  for (unsigned first = 0; first < registers.size(); first += width) {
    SmallVector<Value> coordinate = coordinates[first];
    if (columnOffset) {
      // The verifier checked that the window's registers are the same for every thread; a vector (at most 16
      // bytes, aligned) never straddles two windows.
      int64_t column = layout.registerCoordinate(first)[1];
      int64_t windowWidth = memory.getShape()[1];
      if (column / windowWidth * windowWidth != *columnOffset)
        continue;
      if (*columnOffset)
        coordinate[1] = LLVM::SubOp::create(b, loc, coordinate[1], i32Constant(b, loc, *columnOffset));
    }
    Value address = LLVM::GEPOp::create(b, loc, sharedPointer, stored, base,
                                        ValueRange{emitSharedOffset(b, loc, coordinate, memory)});
    if (width == 1) {
      Value v = element.isInteger(1) ? Value(LLVM::ZExtOp::create(b, loc, stored, registers[first])) : registers[first];
      LLVM::StoreOp::create(b, loc, v, address);
      continue;
    }
    Value vector = LLVM::UndefOp::create(b, loc, VectorType::get({width}, stored));
    for (unsigned i = 0; i < width; ++i)
      vector = LLVM::InsertElementOp::create(b, loc, vector, registers[first + i], i32Constant(b, loc, i));
    LLVM::StoreOp::create(b, loc, vector, address, width * bytes);
  }
  // ... and to the async proxy (wgmma, TMA stores) where it reads an #nvmma_shared buffer: brickgpu-lower-
  // descriptor-stores relies on this barrier, fence, barrier around a TMA store's writes.
  if (context.asyncProxyReads && isa<brickgpu::NVMMASharedEncodingAttr>(memory.getEncoding()))
    emitAsyncProxyFence(b, loc);
  emitBarrier(b, loc); // the new contents are visible to every thread
}

struct LocalAllocLowering : ConvertOpToLLVMPattern<brickgpu::LocalAllocOp> {
  LocalAllocLowering(LLVMTypeConverter &converter, const LoweringContext &context)
      : ConvertOpToLLVMPattern(converter), context(context) {}
  LoweringContext context;
  LogicalResult matchAndRewrite(brickgpu::LocalAllocOp op, OpAdaptor adaptor, ConversionPatternRewriter &b) const override {
    Value base = getSharedMemoryBase(b, op.getLoc(), op);
    if (op.getSrc())
      storeBlock(b, op.getLoc(), base, cast<RankedTensorType>(op.getSrc().getType()), adaptor.getSrc(), op.getType(),
                 *getTypeConverter(), context);
    b.replaceOp(op, base);
    return success();
  }
};

struct LocalStoreLowering : ConvertOpToLLVMPattern<brickgpu::LocalStoreOp> {
  LocalStoreLowering(LLVMTypeConverter &converter, const LoweringContext &context)
      : ConvertOpToLLVMPattern(converter), context(context) {}
  LoweringContext context;
  LogicalResult matchAndRewrite(brickgpu::LocalStoreOp op, OpAdaptor adaptor, ConversionPatternRewriter &b) const override {
    storeBlock(b, op.getLoc(), adaptor.getDst(), cast<RankedTensorType>(op.getSrc().getType()), adaptor.getSrc(),
               op.getDst().getType(), *getTypeConverter(), context, op.getColumnOffset());
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
    brickgpu::LinearLayout layout = brickgpu::getLinearLayout(tensorType);
    // Registers that run along a row and stay together under the buffer's swizzle come as one load of up to 16
    // bytes, as storeBlock writes them (a block staged in shared memory and read back whole).
    unsigned bytes = getSharedElementBytes(tensorType.getElementType());
    unsigned bits = tensorType.getElementType().getIntOrFloatBitWidth();
    unsigned width = element.isInteger(1) || bits % 8
                         ? 1
                         : std::max(1u, rowVectorWidth(layout, std::min(16 / bytes, sharedRowRunElements(op.getSrc().getType())),
                                                       sharedFastestDim(op.getSrc().getType())));
    auto coordinates = emitCoordinates(b, loc, layout, getThreadId(b, loc));
    SmallVector<Value> values;
    for (unsigned first = 0; first < coordinates.size(); first += width) {
      Value address = LLVM::GEPOp::create(b, loc, sharedPointer, stored, adaptor.getSrc(),
                                          ValueRange{emitSharedOffset(b, loc, coordinates[first], op.getSrc().getType())});
      if (width == 1) {
        Value v = LLVM::LoadOp::create(b, loc, stored, address);
        values.push_back(element.isInteger(1) ? Value(LLVM::TruncOp::create(b, loc, element, v)) : v);
        continue;
      }
      Value vector = LLVM::LoadOp::create(b, loc, VectorType::get({width}, stored), address, width * bytes);
      for (unsigned i = 0; i < width; ++i)
        values.push_back(LLVM::ExtractElementOp::create(b, loc, vector, i32Constant(b, loc, i)));
    }
    b.replaceOp(op, pack(b, loc, getTypeConverter()->convertType(tensorType), values));
    return success();
  }
};

/// A slot of a ring: the ring's address plus `index` slots of bytes.
struct MemDescIndexLowering : ConvertOpToLLVMPattern<brickgpu::MemDescIndexOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(brickgpu::MemDescIndexOp op, OpAdaptor adaptor, ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    MemDescType slot = op.getType();
    int64_t slotBytes = slot.getNumElements() * getSharedElementBytes(slot.getElementType());
    Value offset = LLVM::MulOp::create(b, loc, adaptor.getIndex(), i32Constant(b, loc, slotBytes));
    b.replaceOp(op, LLVM::GEPOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext(), 3), b.getI8Type(),
                                        adaptor.getSrc(), ValueRange{offset}));
    return success();
  }
};

/// A transposed view is the same address: the layouts in the types say how to read it.
struct MemDescTransLowering : ConvertOpToLLVMPattern<brickgpu::MemDescTransOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(brickgpu::MemDescTransOp op, OpAdaptor adaptor, ConversionPatternRewriter &b) const override {
    b.replaceOp(op, adaptor.getSrc());
    return success();
  }
};

struct BarrierLowering : ConvertOpToLLVMPattern<brickgpu::BarrierOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(brickgpu::BarrierOp op, OpAdaptor, ConversionPatternRewriter &b) const override {
    emitBarrier(b, op.getLoc(), op.getAllWarps());
    b.eraseOp(op);
    return success();
  }
};
} // namespace

void populateSharedMemoryPatterns(LLVMTypeConverter &converter, RewritePatternSet &patterns,
                                  const LoweringContext &context) {
  converter.addConversion([](brickgpu::MemDescType type) -> Type {
    return LLVM::LLVMPointerType::get(type.getContext(), 3);
  });
  patterns.add<LocalAllocLowering, LocalStoreLowering>(converter, context);
  patterns.add<LocalLoadLowering, MemDescIndexLowering, MemDescTransLowering, BarrierLowering>(converter);
}

} // namespace mlir::brick::lowering
