//===- ScanOpToLLVM.cpp - brick.scan: registers, then warp shuffles, then shared memory ---------===//
//
// A linear layout gives each bit of an element's position along the axis to a register, a lane or a warp (a
// blocked layout: the low bits to registers, then lanes, then warps, and the highest to registers again where
// the block repeats over the program). An inclusive scan grows, bit by bit from the lowest, the runs already
// scanned: once bit k is done, every element holds the combination of its aligned run of 2^(k+1) elements up to
// itself, because the elements whose bit k is set combined the total of the lower half (its last element) with
// their own. So:
//   1. the lowest bits, where registers carry them: a running combination over each thread's registers;
//   2. the following bits, up to the lowest one a warp carries: the lower half's total comes from this thread
//      (a register bit with no lane bit below it) or from the lane holding it (shfl.sync.idx);
//   3. the bits from there on: the total of each run scanned so far goes to shared memory, and every element
//      combines, in order, the totals of the runs before its own, then its own value.
// `reverse` scans from the end: every "set" above reads "clear". The combiner keeps its operand order (the
// earlier elements first), so it need not be commutative; it must be associative.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include "brick/Analysis/SharedMemory.h"

#include <map>

namespace mlir::brick::lowering {
namespace {
using brickgpu::LinearLayout;

/// Where one bit of the position along the axis lives: in a register, lane or warp index, as its basis `index`.
struct AxisBit {
  enum Kind { Register, Lane, Warp } kind;
  unsigned index;
};

/// The axis bits of `layout`, lowest first; empty when a basis moves along the axis and another dimension at
/// once or by more than one bit (no layout Brick assigns does).
SmallVector<AxisBit> axisBitsOf(const LinearLayout &layout, unsigned axis, unsigned count) {
  SmallVector<std::optional<AxisBit>> bits(count);
  auto record = [&](ArrayRef<LinearLayout::Coordinate> bases, AxisBit::Kind kind) {
    for (auto [i, basis] : llvm::enumerate(bases)) {
      if (basis[axis] == 0)
        continue;
      for (unsigned d = 0; d < basis.size(); ++d)
        if (d != axis && basis[d] != 0)
          return false;
      if (!llvm::isPowerOf2_64(basis[axis]) || llvm::Log2_64(basis[axis]) >= count || bits[llvm::Log2_64(basis[axis])])
        return false;
      bits[llvm::Log2_64(basis[axis])] = AxisBit{kind, unsigned(i)};
    }
    return true;
  };
  if (!record(layout.getRegisterBases(), AxisBit::Register) || !record(layout.getLaneBases(), AxisBit::Lane) ||
      !record(layout.getWarpBases(), AxisBit::Warp))
    return {};
  SmallVector<AxisBit> result;
  for (auto &bit : bits) {
    if (!bit)
      return {};
    result.push_back(*bit);
  }
  return result;
}

struct ScanLowering : ConvertOpToLLVMPattern<ScanOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult matchAndRewrite(ScanOp op, OpAdaptor adaptor, ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    unsigned axis = op.getAxis();
    bool reverse = op.getReverse();
    auto srcType = cast<RankedTensorType>(op.getSrcs().front().getType());
    LinearLayout layout = brickgpu::getLinearLayout(srcType);
    int64_t length = srcType.getDimSize(axis);
    if (!llvm::isPowerOf2_64(length))
      return b.notifyMatchFailure(op, "an axis whose length is not a power of two");
    unsigned axisBitCount = llvm::Log2_64(length);
    SmallVector<AxisBit> bits = axisBitsOf(layout, axis, axisBitCount);
    if (bits.size() != axisBitCount)
      return b.notifyMatchFailure(op, "a layout whose bases do not each carry one bit of the axis alone");

    unsigned n = op.getSrcs().size();
    unsigned registerCount = layout.getNumRegisters();
    SmallVector<SmallVector<Value>> values(registerCount); // [register][operand]
    for (Value src : adaptor.getSrcs())
      for (auto [reg, value] : llvm::enumerate(unpack(b, loc, src)))
        values[reg].push_back(value);
    // Registers that hold the same element (a layout that repeats an element in registers) follow the first.
    std::map<LinearLayout::Coordinate, unsigned> registerAt;
    for (unsigned reg = registerCount; reg-- > 0;)
      registerAt[layout.registerCoordinate(reg)] = reg;
    SmallVector<unsigned> canonical;
    for (unsigned reg = 0; reg < registerCount; ++reg)
      if (registerAt.at(layout.registerCoordinate(reg)) == reg)
        canonical.push_back(reg);
    auto position = [&](unsigned reg) { return layout.registerCoordinate(reg)[axis]; };
    auto registerWith = [&](unsigned reg, int64_t axisPosition) {
      LinearLayout::Coordinate coordinate = layout.registerCoordinate(reg);
      coordinate[axis] = axisPosition;
      return registerAt.at(coordinate);
    };
    // Bits in scan order: "set" means in the later half.
    auto isSet = [&](int64_t p, unsigned bit) { return bool((p >> bit) & 1) != reverse; };
    auto withBit = [&](int64_t p, unsigned bit, bool set) {
      return set != reverse ? p | (int64_t(1) << bit) : p & ~(int64_t(1) << bit);
    };
    auto combine = [&](ArrayRef<Value> accumulated, ArrayRef<Value> next) {
      return inlineCombiner(b, op.getCombiner(), accumulated, next);
    };

    // 1. The lowest bits, in registers: a running combination along each thread's run of registers.
    unsigned k = 0;
    while (k < axisBitCount && bits[k].kind == AxisBit::Register)
      ++k;
    int64_t lowRun = (int64_t(1) << k) - 1;
    for (unsigned reg : canonical) {
      int64_t p = position(reg);
      if ((reverse ? ~p & lowRun : p & lowRun) != 0)
        continue; // not the first of its run
      unsigned previous = reg;
      for (int64_t v = 1; v <= lowRun; ++v) {
        unsigned next = registerWith(reg, (p & ~lowRun) | (reverse ? lowRun - v : v));
        values[next] = combine(values[previous], values[next]);
        previous = next;
      }
    }

    // 2. The bits up to the first a warp carries: the lower half's total from this thread or another lane.
    ThreadId thread = getThreadId(b, loc);
    int64_t lanesBelow = 0; // the lane-index bits that carry axis bits below k
    for (; k < axisBitCount && bits[k].kind != AxisBit::Warp; ++k) {
      AxisBit bit = bits[k];
      int64_t laneBit = bit.kind == AxisBit::Lane ? int64_t(1) << bit.index : 0;
      // The lane holding the lower half's last element: lane bits below k set, bit k clear (in scan order).
      Value sourceLane;
      if (lanesBelow | laneBit) {
        int64_t set = reverse ? laneBit : lanesBelow;
        sourceLane = LLVM::OrOp::create(
            b, loc, LLVM::AndOp::create(b, loc, thread.lane, i32Constant(b, loc, ~(lanesBelow | laneBit))),
            i32Constant(b, loc, set));
      }
      Value upperHalf; // for a lane bit: whether this lane's elements are in the later half
      if (laneBit) {
        Value masked = LLVM::AndOp::create(b, loc, thread.lane, i32Constant(b, loc, laneBit));
        upperHalf = LLVM::ICmpOp::create(b, loc, reverse ? LLVM::ICmpPredicate::eq : LLVM::ICmpPredicate::ne, masked,
                                         i32Constant(b, loc, 0));
      }
      SmallVector<SmallVector<Value>> updated = values;
      std::map<unsigned, SmallVector<Value>> fetched; // shuffled values, by source register
      for (unsigned reg : canonical) {
        int64_t p = position(reg);
        if (bit.kind == AxisBit::Register && !isSet(p, k))
          continue;
        int64_t q = p; // the lower half's last element, as far as registers carry it
        for (unsigned j = 0; j < k; ++j)
          if (bits[j].kind == AxisBit::Register)
            q = withBit(q, j, true);
        if (bit.kind == AxisBit::Register)
          q = withBit(q, k, false);
        unsigned source = registerWith(reg, q);
        SmallVector<Value> total = values[source];
        if (sourceLane) {
          auto [it, inserted] = fetched.try_emplace(source);
          if (inserted)
            for (Value v : values[source])
              it->second.push_back(shuffle(b, loc, v, sourceLane, NVVM::ShflKind::idx));
          total = it->second;
        }
        SmallVector<Value> combined = combine(total, values[reg]);
        if (upperHalf)
          for (unsigned i = 0; i < n; ++i)
            combined[i] = LLVM::SelectOp::create(b, loc, upperHalf, combined[i], values[reg][i]);
        updated[reg] = combined;
      }
      values = std::move(updated);
      lanesBelow |= laneBit;
    }

    // 3. From the lowest warp bit on: the runs of 2^k scanned so far combine through shared memory.
    if (k < axisBitCount) {
      unsigned runBits = k;
      int64_t runs = length >> runBits, runMask = (int64_t(1) << runBits) - 1;
      int64_t lines = srcType.getNumElements() / length;
      auto coordinates = emitCoordinates(b, loc, layout, thread);
      // Each register's run (in scan order) and line (its coordinates but the axis, row-major).
      auto runOf = [&](unsigned reg) -> Value {
        Value run = LLVM::LShrOp::create(b, loc, coordinates[reg][axis], i32Constant(b, loc, runBits));
        return reverse ? Value(LLVM::SubOp::create(b, loc, i32Constant(b, loc, runs - 1), run)) : run;
      };
      auto lineOf = [&](unsigned reg) {
        Value line = i32Constant(b, loc, 0);
        for (unsigned d = 0; d < layout.getRank(); ++d) {
          if (d == axis)
            continue;
          line = LLVM::MulOp::create(b, loc, line, i32Constant(b, loc, layout.getShape()[d]));
          line = LLVM::AddOp::create(b, loc, line, coordinates[reg][d]);
        }
        return line;
      };
      Value base = getSharedMemoryBase(b, loc, op);
      auto sharedPointer = LLVM::LLVMPointerType::get(b.getContext(), 3);
      SmallVector<int64_t> operandOffset;
      int64_t offset = 0;
      for (Value src : op.getSrcs()) {
        operandOffset.push_back(offset);
        offset += llvm::alignTo((runs * lines + 1) * getSharedElementBytes(getElementTypeOrSelf(src.getType())), 16);
      }
      auto slot = [&](unsigned operand, Value index) {
        Value operandBase = LLVM::GEPOp::create(b, loc, sharedPointer, b.getI8Type(), base,
                                                ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(operandOffset[operand])});
        return LLVM::GEPOp::create(b, loc, sharedPointer, values.front()[operand].getType(), operandBase, ValueRange{index})
            .getResult();
      };
      emitBarrier(b, loc); // earlier readers of this scratch are done
      // The last element of each run writes its total; the others write to the one spare slot.
      for (unsigned reg : canonical) {
        bool lastInRegisters = true;
        for (unsigned j = 0; j < runBits; ++j)
          if (bits[j].kind == AxisBit::Register && !isSet(position(reg), j))
            lastInRegisters = false;
        if (!lastInRegisters)
          continue;
        Value inRun = LLVM::AndOp::create(b, loc, coordinates[reg][axis], i32Constant(b, loc, runMask));
        Value last = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, inRun, i32Constant(b, loc, reverse ? 0 : runMask));
        Value index = LLVM::AddOp::create(b, loc, LLVM::MulOp::create(b, loc, runOf(reg), i32Constant(b, loc, lines)),
                                          lineOf(reg));
        index = LLVM::SelectOp::create(b, loc, last, index, i32Constant(b, loc, runs * lines));
        for (unsigned i = 0; i < n; ++i)
          LLVM::StoreOp::create(b, loc, values[reg][i], slot(i, index));
      }
      emitBarrier(b, loc);
      // Every element: the totals of the runs before its own, in order, then its own value. Registers that
      // differ only in the bits below runBits share their run and line, so they share that prefix.
      std::map<LinearLayout::Coordinate, std::pair<Value, SmallVector<Value>>> prefixes; // (any run before?, prefix)
      for (unsigned reg : canonical) {
        LinearLayout::Coordinate key = layout.registerCoordinate(reg);
        key[axis] &= ~runMask;
        auto [it, inserted] = prefixes.try_emplace(key);
        if (inserted) {
          Value run = runOf(reg), line = lineOf(reg);
          SmallVector<Value> running, prefix;
          for (int64_t r = 0; r + 1 < runs; ++r) {
            Value index = LLVM::AddOp::create(b, loc, i32Constant(b, loc, r * lines), line);
            SmallVector<Value> total;
            for (unsigned i = 0; i < n; ++i)
              total.push_back(LLVM::LoadOp::create(b, loc, values[reg][i].getType(), slot(i, index)));
            running = r == 0 ? total : combine(running, total);
            if (r == 0) {
              prefix = running;
              continue;
            }
            Value here = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, run, i32Constant(b, loc, r + 1));
            for (unsigned i = 0; i < n; ++i)
              prefix[i] = LLVM::SelectOp::create(b, loc, here, running[i], prefix[i]);
          }
          Value any = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, run, i32Constant(b, loc, 0));
          it->second = {any, prefix};
        }
        auto &[any, prefix] = it->second;
        SmallVector<Value> combined = combine(prefix, values[reg]);
        for (unsigned i = 0; i < n; ++i)
          values[reg][i] = LLVM::SelectOp::create(b, loc, any, combined[i], values[reg][i]);
      }
    }

    SmallVector<Value> results;
    for (unsigned i = 0; i < n; ++i) {
      SmallVector<Value> registers;
      for (unsigned reg = 0; reg < registerCount; ++reg)
        registers.push_back(values[registerAt.at(layout.registerCoordinate(reg))][i]);
      results.push_back(pack(b, loc, getTypeConverter()->convertType(op.getResult(i).getType()), registers));
    }
    b.replaceOp(op, results);
    return success();
  }
};
} // namespace

void populateScanPatterns(LLVMTypeConverter &converter, RewritePatternSet &patterns, const LoweringContext &) {
  patterns.add<ScanLowering>(converter);
}

} // namespace mlir::brick::lowering
