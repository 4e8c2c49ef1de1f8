//===- LayoutOpToLLVM.cpp - convert_layout, broadcast, expand_dims, reshape, trans --------===//
//
// broadcast and expand_dims move no data: each register of the result is a register of the source, in the
// same thread, which the two linear layouts identify. A convert_layout between layouts that agree is free;
// otherwise, like reshape and trans, it goes through shared memory: every thread writes its registers at
// their elements' row-major positions, and after a barrier reads the positions its new registers hold (a
// conversion pads the rows and moves vectors where the registers run along them).
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include "brick/Analysis/SharedMemory.h"

namespace mlir::brick::lowering {
namespace {
using brickgpu::LinearLayout;

/// How an element of a block sits in scratch shared memory: i1 as a byte, pointers as i64, like in global memory.
struct StoredElement {
  StoredElement(OpBuilder &b, Location loc, Type element)
      : b(b), loc(loc), element(element),
        type(element.isInteger(1) ? b.getI8Type() : isa<LLVM::LLVMPointerType>(element) ? b.getI64Type() : element) {}
  Value to(Value v) const {
    if (element.isInteger(1))
      return LLVM::ZExtOp::create(b, loc, type, v);
    return isa<LLVM::LLVMPointerType>(element) ? bitcastToInt(b, loc, v) : v;
  }
  Value from(Value v) const {
    if (element.isInteger(1))
      return LLVM::TruncOp::create(b, loc, element, v);
    return isa<LLVM::LLVMPointerType>(element) ? bitcastFromInt(b, loc, v, element) : v;
  }
  OpBuilder &b;
  Location loc;
  Type element, type;
};

/// Moves a block between layouts through the scratch shared memory of `op`. `sourceIndex` maps a destination
/// register and its coordinate to the row-major index of the source element it receives.
Value throughSharedMemory(ConversionPatternRewriter &b, Operation *op, RankedTensorType srcType, Value src,
                          RankedTensorType dstType, const LLVMTypeConverter &converter,
                          llvm::function_ref<Value(unsigned, ArrayRef<Value>)> sourceIndex) {
  Location loc = op->getLoc();
  Type element = converter.convertType(srcType.getElementType());
  StoredElement storage{b, loc, element};
  Type stored = storage.type;
  ThreadId thread = getThreadId(b, loc);
  Value base = getSharedMemoryBase(b, loc, op);
  auto sharedPointer = LLVM::LLVMPointerType::get(b.getContext(), 3);
  LinearLayout from = brickgpu::getLinearLayout(srcType), to = brickgpu::getLinearLayout(dstType);
  SmallVector<Value> values = unpack(b, loc, src);
  auto fromCoordinates = emitCoordinates(b, loc, from, thread);
  emitBarrier(b, loc); // earlier readers of this scratch are done
  for (auto [value, coordinate] : llvm::zip(values, fromCoordinates)) {
    Value address = LLVM::GEPOp::create(b, loc, sharedPointer, stored, base,
                                        ValueRange{rowMajorIndex(b, loc, coordinate, srcType.getShape())});
    LLVM::StoreOp::create(b, loc, storage.to(value), address);
  }
  emitBarrier(b, loc);
  SmallVector<Value> results;
  for (auto [reg, coordinate] : llvm::enumerate(emitCoordinates(b, loc, to, thread))) {
    Value address = LLVM::GEPOp::create(b, loc, sharedPointer, stored, base, ValueRange{sourceIndex(reg, coordinate)});
    results.push_back(storage.from(LLVM::LoadOp::create(b, loc, stored, address)));
  }
  return pack(b, loc, converter.convertType(dstType), results);
}

/// A layout conversion through scratch shared memory laid out row by row, each row padded (so that the rows a
/// warp writes start in different banks): each thread stores its registers and, after a barrier, loads the new
/// ones, both as vectors of up to 16 bytes where its registers run along a row (the accumulator's pairs in, the
/// coalesced layout's 16-byte groups out).
Value convertThroughSharedMemory(ConversionPatternRewriter &b, brickgpu::ConvertLayoutOp op, Value src,
                                 const LLVMTypeConverter &converter) {
  Location loc = op.getLoc();
  auto srcType = cast<RankedTensorType>(op.getSrc().getType());
  RankedTensorType dstType = op.getType();
  Type element = converter.convertType(srcType.getElementType());
  StoredElement storage{b, loc, element};
  Type stored = storage.type;
  ArrayRef<int64_t> shape = srcType.getShape();
  unsigned bytes = getSharedElementBytes(srcType.getElementType());
  int64_t rowStride = shape.back() + getConversionRowPadding(srcType);
  auto offsetOf = [&](ArrayRef<Value> coordinate) {
    Value row = rowMajorIndex(b, loc, coordinate.drop_back(), shape.drop_back());
    return LLVM::AddOp::create(b, loc, LLVM::MulOp::create(b, loc, row, i32Constant(b, loc, rowStride)), coordinate.back());
  };
  ThreadId thread = getThreadId(b, loc);
  Value base = getSharedMemoryBase(b, loc, op);
  auto sharedPointer = LLVM::LLVMPointerType::get(b.getContext(), 3);
  LinearLayout from = brickgpu::getLinearLayout(srcType), to = brickgpu::getLinearLayout(dstType);

  emitBarrier(b, loc); // earlier readers of this scratch are done
  SmallVector<Value> values = unpack(b, loc, src);
  auto fromCoordinates = emitCoordinates(b, loc, from, thread);
  unsigned storeWidth = rowVectorWidth(from, 16 / bytes);
  auto vectorOf = [&](unsigned width) { return VectorType::get({width}, stored); };
  for (unsigned first = 0; first < values.size(); first += storeWidth) {
    Value address = LLVM::GEPOp::create(b, loc, sharedPointer, stored, base, ValueRange{offsetOf(fromCoordinates[first])});
    Value vector = storage.to(values[first]);
    if (storeWidth > 1) {
      vector = LLVM::UndefOp::create(b, loc, vectorOf(storeWidth));
      for (unsigned i = 0; i < storeWidth; ++i)
        vector = LLVM::InsertElementOp::create(b, loc, vector, storage.to(values[first + i]), i32Constant(b, loc, i));
    }
    LLVM::StoreOp::create(b, loc, vector, address, storeWidth * bytes);
  }
  emitBarrier(b, loc);
  auto toCoordinates = emitCoordinates(b, loc, to, thread);
  unsigned loadWidth = rowVectorWidth(to, 16 / bytes);
  SmallVector<Value> results;
  for (unsigned first = 0; first < toCoordinates.size(); first += loadWidth) {
    Value address = LLVM::GEPOp::create(b, loc, sharedPointer, stored, base, ValueRange{offsetOf(toCoordinates[first])});
    if (loadWidth == 1) {
      results.push_back(storage.from(LLVM::LoadOp::create(b, loc, stored, address, bytes)));
      continue;
    }
    Value vector = LLVM::LoadOp::create(b, loc, vectorOf(loadWidth), address, loadWidth * bytes);
    for (unsigned i = 0; i < loadWidth; ++i)
      results.push_back(storage.from(LLVM::ExtractElementOp::create(b, loc, vector, i32Constant(b, loc, i))));
  }
  return pack(b, loc, converter.convertType(dstType), results);
}

struct ConvertLayoutLowering : ConvertOpToLLVMPattern<brickgpu::ConvertLayoutOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(brickgpu::ConvertLayoutOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    auto srcType = cast<RankedTensorType>(op.getSrc().getType());
    if (isNoOpConversion(srcType, op.getType())) {
      b.replaceOp(op, adaptor.getSrc());
      return success();
    }
    b.replaceOp(op, convertThroughSharedMemory(b, op, adaptor.getSrc(), *getTypeConverter()));
    return success();
  }
};

struct TransLowering : ConvertOpToLLVMPattern<TransOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(TransOp op, OpAdaptor adaptor, ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    auto srcType = cast<RankedTensorType>(op.getSrc().getType());
    ArrayRef<int32_t> order = op.getOrder();
    b.replaceOp(op, throughSharedMemory(b, op, srcType, adaptor.getSrc(), cast<RankedTensorType>(op.getType()),
                                        *getTypeConverter(), [&](unsigned, ArrayRef<Value> c) {
                                          // Result dimension i is source dimension order[i].
                                          SmallVector<Value> source(c.size());
                                          for (auto [i, d] : llvm::enumerate(order))
                                            source[d] = c[i];
                                          return rowMajorIndex(b, loc, source, srcType.getShape());
                                        }));
    return success();
  }
};

struct ReshapeLowering : ConvertOpToLLVMPattern<ReshapeOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(ReshapeOp op, OpAdaptor adaptor, ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    auto srcType = cast<RankedTensorType>(op.getSrc().getType());
    auto dstType = cast<RankedTensorType>(op.getType());
    // Row-major order is what a reshape keeps: the destination's row-major index is the source's.
    b.replaceOp(op, throughSharedMemory(b, op, srcType, adaptor.getSrc(), dstType, *getTypeConverter(),
                                        [&](unsigned, ArrayRef<Value> c) { return rowMajorIndex(b, loc, c, dstType.getShape()); }));
    return success();
  }
};

/// gather: the source through shared memory, each result element read at its own coordinate with the axis's
/// replaced by its index (an index out of range reads another element of the block, or scratch: undefined, as
/// in Triton; the interpreter reports it).
struct GatherLowering : ConvertOpToLLVMPattern<GatherOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(GatherOp op, OpAdaptor adaptor, ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    auto srcType = cast<RankedTensorType>(op.getSrc().getType());
    auto dstType = cast<RankedTensorType>(op.getType());
    if (cast<RankedTensorType>(op.getIndices().getType()).getEncoding() != dstType.getEncoding())
      return b.notifyMatchFailure(op, "indices and result in different layouts");
    SmallVector<Value> indices = unpack(b, loc, adaptor.getIndices());
    unsigned axis = op.getAxis();
    b.replaceOp(op, throughSharedMemory(b, op, srcType, adaptor.getSrc(), dstType, *getTypeConverter(),
                                        [&](unsigned reg, ArrayRef<Value> c) {
                                          SmallVector<Value> source(c);
                                          Value index = indices[reg];
                                          unsigned bits = index.getType().getIntOrFloatBitWidth();
                                          if (bits > 32)
                                            index = LLVM::TruncOp::create(b, loc, b.getI32Type(), index);
                                          else if (bits < 32)
                                            index = LLVM::SExtOp::create(b, loc, b.getI32Type(), index);
                                          source[axis] = index;
                                          return rowMajorIndex(b, loc, source, srcType.getShape());
                                        }));
    return success();
  }
};

/// broadcast and expand_dims: registers of the source, picked by coordinates.
template <class Op> struct RegisterRemapLowering : ConvertOpToLLVMPattern<Op> {
  using ConvertOpToLLVMPattern<Op>::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(Op op, typename Op::Adaptor adaptor, ConversionPatternRewriter &b) const override {
    auto srcType = cast<RankedTensorType>(op.getSrc().getType());
    auto dstType = cast<RankedTensorType>(op.getType());
    LinearLayout from = brickgpu::getLinearLayout(srcType), to = brickgpu::getLinearLayout(dstType);
    auto transform = [&](const LinearLayout::Coordinate &c) {
      LinearLayout::Coordinate result(c);
      if constexpr (std::is_same_v<Op, ExpandDimsOp>) {
        result.erase(result.begin() + op.getAxis());
      } else {
        for (unsigned d = 0; d < result.size(); ++d)
          if (srcType.getDimSize(d) == 1)
            result[d] = 0;
      }
      return result;
    };
    std::optional<SmallVector<unsigned>> mapping = mapRegisters(from, to, transform);
    if (!mapping)
      return b.notifyMatchFailure(op, "the source and result layouts do not put elements in the same threads");
    SmallVector<Value> values = unpack(b, op.getLoc(), adaptor.getSrc());
    SmallVector<Value> results = llvm::map_to_vector(*mapping, [&](unsigned reg) { return values[reg]; });
    b.replaceOp(op, pack(b, op.getLoc(), this->getTypeConverter()->convertType(dstType), results));
    return success();
  }
};

} // namespace

void populateLayoutPatterns(LLVMTypeConverter &converter, RewritePatternSet &patterns, const LoweringContext &) {
  patterns.add<ConvertLayoutLowering, TransLowering, ReshapeLowering, GatherLowering, RegisterRemapLowering<BroadcastOp>,
               RegisterRemapLowering<ExpandDimsOp>>(converter);
}

} // namespace mlir::brick::lowering
