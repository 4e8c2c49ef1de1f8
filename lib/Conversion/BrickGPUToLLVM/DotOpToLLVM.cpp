//===- DotOpToLLVM.cpp - brick.dot without tensor cores: FMAs over shared memory ---===//
//
// The portable fallback: a and b go to shared memory (row-major), then each thread runs a loop over K that
// multiplies the rows of a and columns of b its accumulator registers need and adds them in. A batched dot
// (a leading batch dimension on a, b and c) does the same per batch index: a "row" is then a (batch, row) pair. Inputs are
// widened (f16/bf16 to f32, i8 to i32) so that accumulation is exact to the accumulator's type. Tensor cores
// (mma.sync, wgmma) replace this on the paths that need speed.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include "brick/Analysis/SharedMemory.h"

namespace mlir::brick::lowering {
namespace {
using brickgpu::LinearLayout;

struct DotLowering : ConvertOpToLLVMPattern<DotOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult matchAndRewrite(DotOp op, OpAdaptor adaptor, ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    auto aType = cast<RankedTensorType>(op.getA().getType());
    auto bType = cast<RankedTensorType>(op.getB().getType());
    auto cType = cast<RankedTensorType>(op.getC().getType());
    if (isa_and_present<brickgpu::MmaEncodingAttr>(cType.getEncoding()))
      return failure(); // tensor cores: DotOpToMMAv2.cpp
    bool batched = cType.getRank() == 3;
    int64_t M = aType.getDimSize(batched), K = aType.getDimSize(batched + 1), N = bType.getDimSize(batched + 1);
    Type aElement = getTypeConverter()->convertType(aType.getElementType());
    Type bElement = getTypeConverter()->convertType(bType.getElementType());
    Type accElement = getTypeConverter()->convertType(cType.getElementType());
    bool integer = accElement.isInteger();
    auto sharedPointer = LLVM::LLVMPointerType::get(b.getContext(), 3);
    ThreadId thread = getThreadId(b, loc);

    // Stage a and b in shared memory, row-major.
    Value base = getSharedMemoryBase(b, loc, op);
    Value aBase = base;
    Value bBase = LLVM::GEPOp::create(
        b, loc, sharedPointer, b.getI8Type(), base,
        ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(llvm::alignTo(aType.getNumElements() * getSharedElementBytes(aType.getElementType()), 16))});
    auto stage = [&](Value values, RankedTensorType type, Type element, Value at) {
      auto coordinates = emitCoordinates(b, loc, brickgpu::getLinearLayout(type), thread);
      for (auto [value, coordinate] : llvm::zip(unpack(b, loc, values), coordinates)) {
        Value index = rowMajorIndex(b, loc, coordinate, type.getShape());
        LLVM::StoreOp::create(b, loc, value, LLVM::GEPOp::create(b, loc, sharedPointer, element, at, ValueRange{index}));
      }
    };
    emitBarrier(b, loc);
    stage(adaptor.getA(), aType, aElement, aBase);
    stage(adaptor.getB(), bType, bElement, bBase);
    emitBarrier(b, loc);

    // The rows and columns this thread's accumulators need (distinct ones only).
    LinearLayout cLayout = brickgpu::getLinearLayout(cType);
    auto cCoordinates = emitCoordinates(b, loc, cLayout, thread);
    SmallVector<int64_t> rowKey, columnKey;
    SmallVector<unsigned> rowOf, columnOf;
    SmallVector<Value> rows, columns;
    for (unsigned reg = 0; reg < cLayout.getNumRegisters(); ++reg) {
      LinearLayout::Coordinate c = cLayout.registerCoordinate(reg);
      auto slot = [&](SmallVector<int64_t> &keys, SmallVector<Value> &values, int64_t key, Value v) {
        auto it = llvm::find(keys, key);
        if (it != keys.end())
          return static_cast<unsigned>(it - keys.begin());
        keys.push_back(key);
        values.push_back(v);
        return static_cast<unsigned>(keys.size() - 1);
      };
      // Rows of a by (batch, row): their first element's index into a's staging, (batch * M + row) * K.
      // Columns of b by (batch, column): batch * K * N + column.
      auto &cc = cCoordinates[reg];
      Value row = batched ? LLVM::AddOp::create(b, loc, LLVM::MulOp::create(b, loc, cc[0], i32Constant(b, loc, M)), cc[1])
                          : cc[0];
      Value column = batched ? LLVM::AddOp::create(b, loc, LLVM::MulOp::create(b, loc, cc[0], i32Constant(b, loc, K * N)),
                                                   cc[2])
                             : cc[1];
      rowOf.push_back(slot(rowKey, rows, batched ? c[0] * M + c[1] : c[0], row));
      columnOf.push_back(slot(columnKey, columns, batched ? c[0] * N + c[2] : c[1], column));
    }

    // for (k = 0; k < K; ++k) acc[r] += a[row(r), k] * b[k, column(r)]
    SmallVector<Value> initial = unpack(b, loc, adaptor.getC());
    Block *before = b.getInsertionBlock();
    Block *after = b.splitBlock(before, b.getInsertionPoint());
    SmallVector<Type> carried(1 + initial.size(), accElement);
    carried[0] = b.getI32Type();
    SmallVector<Location> locations(carried.size(), loc);
    Block *header = b.createBlock(after, carried, locations);
    Block *body = b.createBlock(after);
    Block *exit = b.createBlock(after, SmallVector<Type>(initial.size(), accElement),
                                SmallVector<Location>(initial.size(), loc));

    b.setInsertionPointToEnd(before);
    SmallVector<Value> start{i32Constant(b, loc, 0)};
    start.append(initial.begin(), initial.end());
    LLVM::BrOp::create(b, loc, start, header);

    b.setInsertionPointToEnd(header);
    Value k = header->getArgument(0);
    Value more = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::slt, k, i32Constant(b, loc, K));
    SmallVector<Value> accumulators(header->getArguments().drop_front());
    LLVM::CondBrOp::create(b, loc, more, body, ValueRange{}, exit, accumulators);

    b.setInsertionPointToEnd(body);
    auto widen = [&](Value v) -> Value {
      if (v.getType() == accElement)
        return v;
      return integer ? Value(LLVM::SExtOp::create(b, loc, accElement, v)) : Value(LLVM::FPExtOp::create(b, loc, accElement, v));
    };
    SmallVector<Value> aValues, bValues;
    for (Value row : rows) {
      Value index = LLVM::AddOp::create(b, loc, LLVM::MulOp::create(b, loc, row, i32Constant(b, loc, K)), k);
      aValues.push_back(widen(LLVM::LoadOp::create(b, loc, aElement, LLVM::GEPOp::create(b, loc, sharedPointer, aElement, aBase, ValueRange{index}))));
    }
    for (Value column : columns) {
      Value index = LLVM::AddOp::create(b, loc, LLVM::MulOp::create(b, loc, k, i32Constant(b, loc, N)), column);
      bValues.push_back(widen(LLVM::LoadOp::create(b, loc, bElement, LLVM::GEPOp::create(b, loc, sharedPointer, bElement, bBase, ValueRange{index}))));
    }
    SmallVector<Value> next{LLVM::AddOp::create(b, loc, k, i32Constant(b, loc, 1))};
    for (auto [reg, acc] : llvm::enumerate(accumulators)) {
      Value x = aValues[rowOf[reg]], y = bValues[columnOf[reg]];
      next.push_back(integer ? Value(LLVM::AddOp::create(b, loc, acc, LLVM::MulOp::create(b, loc, x, y)))
                             : Value(LLVM::FMAOp::create(b, loc, x, y, acc)));
    }
    LLVM::BrOp::create(b, loc, next, header);

    b.setInsertionPointToEnd(exit);
    Value result = pack(b, loc, getTypeConverter()->convertType(cType), SmallVector<Value>(exit->getArguments()));
    LLVM::BrOp::create(b, loc, ValueRange{}, after);
    b.replaceOp(op, result);
    return success();
  }
};
} // namespace

void populateDotPatterns(LLVMTypeConverter &converter, RewritePatternSet &patterns, const LoweringContext &) {
  patterns.add<DotLowering>(converter);
}

} // namespace mlir::brick::lowering
