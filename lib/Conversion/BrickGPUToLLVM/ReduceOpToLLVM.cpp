//===- ReduceOpToLLVM.cpp - brick.reduce: registers, then warp shuffles, then shared memory ---===//
//
// A reduction along `axis` combines, in order:
//   1. the registers of a thread that hold elements of one output element (same coordinates but `axis`);
//   2. the lanes of a warp that do: a butterfly of shfl.sync.bfly, one step per lane bit along `axis`,
//      after which every such lane holds the warp's result;
//   3. the warps that do: each writes its partial result to shared memory, then every thread combines
//      the partials of the output elements it holds.
// The combiner region is inlined at each step; its scalar arith ops are lowered by the arith patterns.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include "brick/Analysis/SharedMemory.h"


namespace mlir::brick::lowering {
namespace {
using brickgpu::LinearLayout;

struct ReduceLowering : ConvertOpToLLVMPattern<ReduceOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult matchAndRewrite(ReduceOp op, OpAdaptor adaptor, ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    unsigned axis = op.getAxis();
    auto srcType = cast<RankedTensorType>(op.getSrcs().front().getType());
    LinearLayout layout = brickgpu::getLinearLayout(srcType);
    for (ArrayRef<LinearLayout::Coordinate> bases : {layout.getLaneBases(), layout.getWarpBases()})
      for (const auto &basis : bases)
        for (unsigned d = 0; d < basis.size(); ++d)
          if (basis[axis] != 0 && d != axis && basis[d] != 0)
            return b.notifyMatchFailure(op, "a lane or warp that moves along the axis and another dimension");
    unsigned n = op.getSrcs().size();
    SmallVector<SmallVector<Value>> registers; // [operand][register]
    for (Value src : adaptor.getSrcs())
      registers.push_back(unpack(b, loc, src));

    // 1. Within the thread: the registers of each output coordinate (in order of first appearance) combine as a
    //    balanced tree, so a thread's 16 registers take 4 dependent steps, not 15.
    SmallVector<LinearLayout::Coordinate> outputs;
    SmallVector<SmallVector<SmallVector<Value>>> pending; // [output][register][operand]
    for (unsigned reg = 0; reg < layout.getNumRegisters(); ++reg) {
      LinearLayout::Coordinate coordinate = layout.registerCoordinate(reg);
      coordinate.erase(coordinate.begin() + axis);
      SmallVector<Value> values;
      for (unsigned i = 0; i < n; ++i)
        values.push_back(registers[i][reg]);
      auto it = llvm::find(outputs, coordinate);
      if (it == outputs.end()) {
        outputs.push_back(coordinate);
        pending.push_back({values});
      } else {
        pending[it - outputs.begin()].push_back(values);
      }
    }
    SmallVector<SmallVector<Value>> accumulators; // [output][operand]
    for (auto &values : pending) {
      while (values.size() > 1) {
        SmallVector<SmallVector<Value>> next;
        for (size_t i = 0; i + 1 < values.size(); i += 2)
          next.push_back(inlineCombiner(b, op.getCombiner(), values[i], values[i + 1]));
        if (values.size() % 2)
          next.push_back(values.back());
        values = std::move(next);
      }
      accumulators.push_back(values.front());
    }

    // 2. Within the warp: butterfly over the lane bits along the axis.
    for (auto [bit, basis] : llvm::enumerate(layout.getLaneBases())) {
      if (basis[axis] == 0)
        continue;
      for (auto &acc : accumulators) {
        SmallVector<Value> other = llvm::map_to_vector(acc, [&](Value v) { return shuffle(b, loc, v, i32Constant(b, loc, 1u << bit), NVVM::ShflKind::bfly); });
        acc = inlineCombiner(b, op.getCombiner(), acc, other);
      }
    }

    // 3. Across warps: partial results through shared memory.
    SmallVector<unsigned> warpBits;
    for (auto [bit, basis] : llvm::enumerate(layout.getWarpBases()))
      if (basis[axis] != 0)
        warpBits.push_back(bit);
    LinearLayout outputLayout = layout.removeDimension(axis);
    if (!warpBits.empty()) {
      ThreadId thread = getThreadId(b, loc);
      // Which partial this warp holds: its bits along the axis, compressed.
      Value warpIndex = i32Constant(b, loc, 0);
      for (auto [k, bit] : llvm::enumerate(warpBits)) {
        Value set = LLVM::AndOp::create(b, loc, LLVM::LShrOp::create(b, loc, thread.warp, i32Constant(b, loc, bit)),
                                        i32Constant(b, loc, 1));
        warpIndex = LLVM::OrOp::create(b, loc, warpIndex, LLVM::ShlOp::create(b, loc, set, i32Constant(b, loc, k)));
      }
      // Where each output element goes: its row-major index among the outputs.
      SmallVector<Value> outputIndex;
      int64_t outputCount = 1;
      for (int64_t d : outputLayout.getShape())
        outputCount *= d;
      auto outputCoordinates = emitCoordinates(b, loc, outputLayout, thread);
      for (unsigned o = 0; o < outputs.size(); ++o) {
        // The register of the output layout holding output o.
        unsigned reg = 0;
        while (reg < outputLayout.getNumRegisters() && outputLayout.registerCoordinate(reg) != outputs[o])
          ++reg;
        Value index = i32Constant(b, loc, 0);
        for (unsigned d = 0; d < outputLayout.getRank(); ++d) {
          index = LLVM::MulOp::create(b, loc, index, i32Constant(b, loc, outputLayout.getShape()[d]));
          index = LLVM::AddOp::create(b, loc, index, outputCoordinates[reg][d]);
        }
        outputIndex.push_back(index);
      }
      Value base = getSharedMemoryBase(b, loc, op);
      auto sharedPointer = LLVM::LLVMPointerType::get(b.getContext(), 3);
      SmallVector<int64_t> operandOffset;
      int64_t offset = 0;
      unsigned warps = 1u << warpBits.size();
      for (Value src : op.getSrcs()) {
        operandOffset.push_back(offset);
        offset += llvm::alignTo(warps * outputCount * getSharedElementBytes(getElementTypeOrSelf(src.getType())), 16);
      }
      auto slot = [&](unsigned operand, Value warp, Value index) {
        Type element = registers[operand][0].getType();
        Value byteBase = LLVM::GEPOp::create(b, loc, sharedPointer, b.getI8Type(), base,
                                             ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(operandOffset[operand])});
        Value linear = LLVM::AddOp::create(b, loc, LLVM::MulOp::create(b, loc, warp, i32Constant(b, loc, outputCount)), index);
        return LLVM::GEPOp::create(b, loc, sharedPointer, element, byteBase, ValueRange{linear}).getResult();
      };
      emitBarrier(b, loc); // earlier readers of this scratch are done
      for (auto [o, acc] : llvm::enumerate(accumulators))
        for (unsigned i = 0; i < n; ++i)
          LLVM::StoreOp::create(b, loc, acc[i], slot(i, warpIndex, outputIndex[o]));
      emitBarrier(b, loc);
      for (auto [o, acc] : llvm::enumerate(accumulators)) {
        SmallVector<Value> total;
        for (unsigned w = 0; w < warps; ++w) {
          SmallVector<Value> partial;
          for (unsigned i = 0; i < n; ++i)
            partial.push_back(LLVM::LoadOp::create(b, loc, acc[i].getType(), slot(i, i32Constant(b, loc, w), outputIndex[o])));
          total = w == 0 ? partial : inlineCombiner(b, op.getCombiner(), total, partial);
        }
        acc = total;
      }
    }

    // The results, in the registers of the output layout.
    SmallVector<Value> results;
    for (unsigned i = 0; i < n; ++i) {
      auto resultType = dyn_cast<RankedTensorType>(op.getResult(i).getType());
      if (!resultType) {
        results.push_back(accumulators.front()[i]);
        continue;
      }
      SmallVector<Value> values;
      for (unsigned reg = 0; reg < outputLayout.getNumRegisters(); ++reg) {
        auto it = llvm::find(outputs, outputLayout.registerCoordinate(reg));
        values.push_back(accumulators[it - outputs.begin()][i]);
      }
      results.push_back(pack(b, loc, getTypeConverter()->convertType(resultType), values));
    }
    b.replaceOp(op, results);
    return success();
  }
};
} // namespace

void populateReducePatterns(LLVMTypeConverter &converter, RewritePatternSet &patterns, const LoweringContext &) {
  patterns.add<ReduceLowering>(converter);
}

} // namespace mlir::brick::lowering
