//===- LayoutOpToLLVM.cpp - convert_layout, broadcast, expand_dims, reshape, trans --------===//
//
// broadcast and expand_dims move no data: each register of the result is a register of the source, in the
// same thread, which the two linear layouts identify. A convert_layout between layouts that agree is free;
// otherwise, like reshape and trans, it goes through shared memory: every thread writes its registers at
// their elements' row-major positions, and after a barrier reads the positions its new registers hold.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include "brick/Analysis/SharedMemory.h"

namespace mlir::brick::lowering {
namespace {
using brickgpu::LinearLayout;

Value rowMajorIndex(OpBuilder &b, Location loc, ArrayRef<Value> coordinate, ArrayRef<int64_t> shape) {
  Value index = i32Constant(b, loc, 0);
  for (auto [c, extent] : llvm::zip(coordinate, shape)) {
    index = LLVM::MulOp::create(b, loc, index, i32Constant(b, loc, extent));
    index = LLVM::AddOp::create(b, loc, index, c);
  }
  return index;
}

/// Moves a block between layouts through the scratch shared memory of `op`. `sourceIndex` maps a
/// destination coordinate to the row-major index of the source element it receives.
Value throughSharedMemory(ConversionPatternRewriter &b, Operation *op, RankedTensorType srcType, Value src,
                          RankedTensorType dstType, const LLVMTypeConverter &converter,
                          llvm::function_ref<Value(ArrayRef<Value>)> sourceIndex) {
  Location loc = op->getLoc();
  Type element = converter.convertType(srcType.getElementType());
  // i1 travels as a byte, pointers as i64, like in global memory.
  Type stored = element.isInteger(1) ? b.getI8Type() : isa<LLVM::LLVMPointerType>(element) ? b.getI64Type() : element;
  auto toStored = [&](Value v) -> Value {
    if (element.isInteger(1))
      return LLVM::ZExtOp::create(b, loc, stored, v);
    return isa<LLVM::LLVMPointerType>(element) ? bitcastToInt(b, loc, v) : v;
  };
  auto fromStored = [&](Value v) -> Value {
    if (element.isInteger(1))
      return LLVM::TruncOp::create(b, loc, element, v);
    return isa<LLVM::LLVMPointerType>(element) ? bitcastFromInt(b, loc, v, element) : v;
  };
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
    LLVM::StoreOp::create(b, loc, toStored(value), address);
  }
  emitBarrier(b, loc);
  SmallVector<Value> results;
  for (auto &coordinate : emitCoordinates(b, loc, to, thread)) {
    Value address = LLVM::GEPOp::create(b, loc, sharedPointer, stored, base, ValueRange{sourceIndex(coordinate)});
    results.push_back(fromStored(LLVM::LoadOp::create(b, loc, stored, address)));
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
    Location loc = op.getLoc();
    b.replaceOp(op, throughSharedMemory(b, op, srcType, adaptor.getSrc(), op.getType(), *getTypeConverter(),
                                        [&](ArrayRef<Value> c) { return rowMajorIndex(b, loc, c, srcType.getShape()); }));
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
                                        *getTypeConverter(), [&](ArrayRef<Value> c) {
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
                                        [&](ArrayRef<Value> c) { return rowMajorIndex(b, loc, c, dstType.getShape()); }));
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
  patterns.add<ConvertLayoutLowering, TransLowering, ReshapeLowering, RegisterRemapLowering<BroadcastOp>,
               RegisterRemapLowering<ExpandDimsOp>>(converter);
}

} // namespace mlir::brick::lowering
