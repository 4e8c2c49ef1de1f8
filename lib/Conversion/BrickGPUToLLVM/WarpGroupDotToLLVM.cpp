//===- WarpGroupDotToLLVM.cpp - warpgroup_dot as wgmma.mma_async, warpgroup_dot_wait ----------===//
//
// Each warpgroup (4 warps) issues one wgmma.mma_async per instruction tile (64 x instrN) it holds and per K step,
// reading both operands from shared memory through 64-bit descriptors:
//
//   bits  0..13  start address >> 4          bits 16..29  leading byte offset >> 4 (between swizzle columns)
//   bits 32..45  stride byte offset >> 4     bits 62..63  swizzle: 1 = 128 B, 2 = 64 B, 3 = 32 B
//                (between groups of 8 rows)
//
// An #nvmma_shared buffer stores columns of `swizzle` bytes one after another, each all its rows; so the element
// (slow, fast) starts at byte ((fast / E) * rows * E + slow * E + fast % E) * bytes, E = swizzle / bytes. An
// instruction's operand tile is named by the address of its first element: the hardware applies the swizzle to
// the addresses it forms, which is why buffers are 1024-byte aligned. An operand is "K-major" when its buffer is
// contiguous along K (no transpose for wgmma); 16-bit operands may also be contiguous along M or N (transposed).
//
// The dot fences the accumulator's registers (wgmma.fence), issues, commits one group and, unless asynchronous,
// waits for it. Waits go through inline assembly that takes the accumulator's registers in and out: every later
// use reads them from the wait, so nothing touches them while the tensor cores write them (ptxas otherwise
// serializes the wgmmas: warning C7514). With zero_rows_from, warpgroups whose rows are all zero branch around
// their wgmmas (see the pattern). A dot whose result only feeds the accumulator of the next dot (a head dimension
// read in pieces: Q K^T as a sum of dots) neither commits nor waits: wgmma orders the instructions on one
// accumulator, so both dots issue as one group and the second's commit and wait cover the first.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include "brick/Analysis/SharedMemory.h"
#include "brick/Analysis/WarpGroupDotGroups.h"

#include "mlir/IR/Matchers.h"

namespace mlir::brick::lowering {
namespace {
using brickgpu::MemDescType;
using brickgpu::MmaEncodingAttr;
using brickgpu::NVMMASharedEncodingAttr;

/// How a wgmma operand's tiles are addressed in its buffer.
struct OperandAddressing {
  MemDescType type;
  unsigned kDim;
  int64_t bytes, perRow; // element bytes; elements per swizzle row (E)

  OperandAddressing(MemDescType type, unsigned kDim) : type(type), kDim(kDim) {
    bytes = getSharedElementBytes(type.getElementType());
    perRow = encoding().getSwizzle() / bytes;
  }
  NVMMASharedEncodingAttr encoding() const { return cast<NVMMASharedEncodingAttr>(type.getEncoding()); }
  bool kMajor() const { return encoding().getOrder()[0] == kDim; }

  /// Byte offset of the element at (k, other) (other: m for a, n for b).
  int64_t byteOffset(int64_t k, int64_t other) const {
    unsigned fast = encoding().getOrder()[0], slow = 1 - fast;
    int64_t coordinate[2];
    coordinate[kDim] = k;
    coordinate[1 - kDim] = other;
    int64_t f = coordinate[fast], s = coordinate[slow];
    return ((f / perRow) * type.getShape()[slow] * perRow + s * perRow + f % perRow) * bytes;
  }

  /// The descriptor bits other than the start address.
  uint64_t fixedBits() const {
    unsigned swizzle = encoding().getSwizzle();
    unsigned slow = 1 - encoding().getOrder()[0];
    uint64_t leading = uint64_t(type.getShape()[slow]) * swizzle; // bytes of one swizzle column
    uint64_t stride = 8 * uint64_t(swizzle);                      // bytes of 8 rows
    uint64_t mode = swizzle == 128 ? 1 : swizzle == 64 ? 2 : 3;
    return ((leading >> 4) << 16) | ((stride >> 4) << 32) | (mode << 62);
  }
};

/// The PTX type of a wgmma input (f32 inputs are read as tf32).
NVVM::WGMMATypes wgmmaType(Type type) {
  if (type.isF16())
    return NVVM::WGMMATypes::f16;
  if (type.isBF16())
    return NVVM::WGMMATypes::bf16;
  if (type.isF32())
    return NVVM::WGMMATypes::tf32;
  if (isa<Float8E4M3FNType>(type))
    return NVVM::WGMMATypes::e4m3;
  if (isa<Float8E5M2Type>(type))
    return NVVM::WGMMATypes::e5m2;
  return NVVM::WGMMATypes::s8;
}

/// `wgmma.wait_group.sync.aligned pending` with `values` passed through it (see the file comment).
SmallVector<Value> emitPinnedWait(OpBuilder &b, Location loc, unsigned pending, ArrayRef<Value> values) {
  if (values.empty()) {
    NVVM::WgmmaWaitGroupSyncOp::create(b, loc, pending);
    return {};
  }
  std::string constraints;
  SmallVector<Type> types;
  for (Value value : values) {
    types.push_back(value.getType());
    constraints += value.getType().isF32() ? "=f," : value.getType().isInteger(32) ? "=r," : "=h,";
  }
  for (size_t i = 0; i < values.size(); ++i)
    constraints += std::to_string(i) + (i + 1 < values.size() ? "," : "");
  auto structType = LLVM::LLVMStructType::getLiteral(b.getContext(), types);
  auto wait = LLVM::InlineAsmOp::create(b, loc, structType, values,
                                        "wgmma.wait_group.sync.aligned " + std::to_string(pending) + ";", constraints,
                                        /*has_side_effects=*/true, /*is_align_stack=*/false,
                                        LLVM::TailCallKind::None, LLVM::AsmDialectAttr(), ArrayAttr());
  return unpack(b, loc, wait.getResult(0));
}

/// One wgmma whose A is in registers (`aWords`: the four 32-bit registers of the warp's 16 rows and one K step):
/// inline PTX, as the NVVM op takes A from shared memory only. scale-d is 1 (accumulate) or 0 (the first K step
/// over a zero accumulator); 16-bit inputs also name A's and B's scales (1) and whether B is transposed.
Value emitRegisterAWgmma(OpBuilder &b, Location loc, LLVM::LLVMStructType tileType, Value tile,
                         ArrayRef<Value> aWords, Value bDescriptor, int64_t instrN, int64_t instrK, StringRef accType,
                         StringRef inputType, bool transposeB, bool accumulate) {
  unsigned results = tileType.getBody().size();
  std::string text = std::string("{\n.reg .pred p;\nsetp.ne.b32 p, ") + (accumulate ? "1" : "0") +
                     ", 0;\nwgmma.mma_async.sync.aligned.m64n" +
                     std::to_string(instrN) + "k" + std::to_string(instrK) + "." + accType.str() + "." +
                     inputType.str() + "." + inputType.str() + " {";
  std::string constraints;
  for (unsigned i = 0; i < results; ++i) {
    text += (i ? ", $" : "$") + std::to_string(i);
    constraints += accType == "f32" ? "=f," : "=r,";
  }
  // Operands are numbered outputs first, then inputs: the accumulator tied to the outputs, A's words, B.
  unsigned aFirst = 2 * results;
  text += "}, {$" + std::to_string(aFirst) + ", $" + std::to_string(aFirst + 1) + ", $" + std::to_string(aFirst + 2) +
          ", $" + std::to_string(aFirst + 3) + "}, $" + std::to_string(aFirst + 4) + ", p";
  if (inputType != "s8")
    text += std::string(", 1, 1, ") + (transposeB ? "1" : "0");
  text += ";\n}";
  SmallVector<Value> operands = unpack(b, loc, tile);
  for (unsigned i = 0; i < results; ++i)
    constraints += std::to_string(i) + ",";
  constraints += "r,r,r,r,l";
  llvm::append_range(operands, aWords);
  operands.push_back(bDescriptor);
  return LLVM::InlineAsmOp::create(b, loc, tileType, operands, text, constraints, /*has_side_effects=*/true,
                                   /*is_align_stack=*/false, LLVM::TailCallKind::None, LLVM::AsmDialectAttr(),
                                   ArrayAttr())
      .getResult(0);
}

struct WarpGroupDotLowering : ConvertOpToLLVMPattern<brickgpu::WarpGroupDotOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult matchAndRewrite(brickgpu::WarpGroupDotOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    MLIRContext *context = b.getContext();
    auto dType = cast<RankedTensorType>(op.getType());
    auto mma = cast<MmaEncodingAttr>(dType.getEncoding());
    // A in shared memory (addressed like B) or in registers (a #dot_op tensor).
    auto aRegisters = dyn_cast<RankedTensorType>(op.getA().getType());
    std::optional<OperandAddressing> a;
    if (!aRegisters)
      a.emplace(cast<MemDescType>(op.getA().getType()), /*kDim=*/1);
    OperandAddressing bOp(op.getB().getType(), /*kDim=*/0);
    Type input = bOp.type.getElementType(), accElement = dType.getElementType();
    unsigned bits = input.getIntOrFloatBitWidth();
    if (((a && !a->kMajor()) || !bOp.kMajor()) && bits != 16)
      return b.notifyMatchFailure(op, "wgmma transposes 16-bit operands only");
    if (!accElement.isF32() && !accElement.isInteger(32))
      return b.notifyMatchFailure(op, "wgmma accumulates in f32 or s32 here");
    int64_t M = dType.getDimSize(0), N = dType.getDimSize(1), K = bOp.type.getShape()[0];
    int64_t instrN = mma.getInstrShape()[1], instrK = 256 / bits;
    ArrayRef<unsigned> warps = mma.getWarpsPerCTA();
    int64_t rowsPerRep = 16 * int64_t(warps[0]), colsPerRep = instrN * int64_t(warps[1]);

    // This warpgroup's first tile: rows 64 * (warp % warps[0]) / 4, columns instrN * (warp / warps[0]). Tiles of
    // one operand differ from another warpgroup's by a whole number of swizzle columns or rows, so the warpgroup's
    // part of the address is a multiple of a constant stride.
    // The warp index read from lane 0, which ptxas then knows to be the same across the warp: the descriptors
    // are computed on the uniform datapath and go to wgmma as they are, not in per-thread registers moved to
    // uniform ones (R2UR) before every instruction.
    Value warp = shuffle(b, loc, getThreadId(b, loc).warp, i32Constant(b, loc, 0), NVVM::ShflKind::idx);
    Value groupM = LLVM::UDivOp::create(b, loc, LLVM::URemOp::create(b, loc, warp, i32Constant(b, loc, warps[0])),
                                        i32Constant(b, loc, 4));
    Value groupN = LLVM::UDivOp::create(b, loc, warp, i32Constant(b, loc, warps[0]));
    Type i64 = b.getI64Type();
    auto descriptorBase = [&](const OperandAddressing &operand, Value buffer, Value group, int64_t groupStride) {
      Value address = LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), buffer);
      address = LLVM::AddOp::create(b, loc, address, LLVM::MulOp::create(b, loc, group, i32Constant(b, loc, groupStride)));
      Value start = LLVM::ZExtOp::create(
          b, loc, i64, LLVM::LShrOp::create(b, loc, LLVM::AndOp::create(b, loc, address, i32Constant(b, loc, 0x3FFFF)),
                                            i32Constant(b, loc, 4)));
      Value fixed = LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(int64_t(operand.fixedBits())));
      return LLVM::OrOp::create(b, loc, fixed, start).getResult();
    };
    Value aBase = a ? descriptorBase(*a, adaptor.getA(), groupM, a->byteOffset(0, 64)) : Value();
    Value bBase = descriptorBase(bOp, adaptor.getB(), groupN, bOp.byteOffset(0, instrN));
    auto descriptor = [&](Value base, int64_t byteOffset) -> Value {
      if (byteOffset == 0)
        return base;
      return LLVM::AddOp::create(b, loc, base, LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(byteOffset >> 4)));
    };

    // A's registers for rows m.. m + 15 of the warp and K step k: the words at (m, k), (m + 8, k), (m, k + 4 w),
    // (m + 8, k + 4 w), each w = kWidth elements along K (consecutive registers of the #dot_op layout).
    SmallVector<Value> aValues;
    std::optional<RegisterIndex> aIndex;
    unsigned kWidth = 0;
    if (aRegisters) {
      aValues = unpack(b, loc, adaptor.getA());
      aIndex.emplace(brickgpu::getLinearLayout(aRegisters));
      kWidth = cast<brickgpu::DotOperandEncodingAttr>(aRegisters.getEncoding()).getKWidth();
    }
    Type llvmInput = getTypeConverter()->convertType(input);
    auto aWords = [&](int64_t m, int64_t k) {
      SmallVector<Value> words;
      for (int64_t r = 0; r < 4; ++r) {
        unsigned first = aIndex->at(m + 8 * (r % 2), k + 4 * kWidth * (r / 2));
        SmallVector<Value> elements(aValues.begin() + first, aValues.begin() + first + kWidth);
        Value vector = buildVector(b, loc, VectorType::get({kWidth}, llvmInput), elements);
        words.push_back(LLVM::BitcastOp::create(b, loc, b.getI32Type(), vector));
      }
      return words;
    };

    RegisterIndex index(brickgpu::getLinearLayout(dType));
    SmallVector<Value> acc = unpack(b, loc, adaptor.getC());
    // A zero accumulator (attention's scores, every iteration) needs no registers of zeros: the first K step's
    // wgmma ignores its input (scale-d 0), and no moves of zeros sit between the fence and the wgmmas. Not with
    // zero_rows_from, whose skipped tiles pass the accumulator through.
    const bool zeroStart = !op.getZeroRowsFrom() &&
                           (matchPattern(op.getC(), m_AnyZeroFloat()) || matchPattern(op.getC(), m_Zero()));
    if (zeroStart)
      for (Value &value : acc)
        value = LLVM::PoisonOp::create(b, loc, value.getType());
    Type llvmAcc = getTypeConverter()->convertType(accElement);
    auto tileType = LLVM::LLVMStructType::getLiteral(context, SmallVector<Type>(instrN / 2, llvmAcc));
    // B's type; A's may differ (an e4m3 x e5m2 dot).
    NVVM::WGMMATypes inputType = wgmmaType(input);
    NVVM::WGMMATypes aInputType = a ? wgmmaType(a->type.getElementType()) : inputType;
    NVVM::WGMMATypes accType = accElement.isF32() ? NVVM::WGMMATypes::f32 : NVVM::WGMMATypes::s32;
    auto layoutA = !a || a->kMajor() ? NVVM::MMALayout::row : NVVM::MMALayout::col;
    auto layoutB = bOp.kMajor() ? NVVM::MMALayout::col : NVVM::MMALayout::row;
    auto one = NVVM::WGMMAScaleInAttr::get(context, NVVM::WGMMAScaleIn::one);

    // Register i of an instruction's result is (8 ((i / 2) % 2), 8 (i / 4) + i % 2) of the warp's 16 rows.
    auto registersOf = [&](int64_t m, int64_t n) {
      SmallVector<unsigned> registers;
      for (int64_t i = 0; i < instrN / 2; ++i)
        registers.push_back(index.at(m + 8 * ((i / 2) % 2), n + 8 * (i / 4) + i % 2));
      return registers;
    };
    // Read from lane 0, as the warp index is: ptxas then knows the branches below to be warp-uniform.
    Value zeroRowsFrom = adaptor.getZeroRowsFrom();
    if (zeroRowsFrom)
      zeroRowsFrom = shuffle(b, loc, zeroRowsFrom, i32Constant(b, loc, 0), NVVM::ShflKind::idx);
    // Rows past zero_rows_from are zero: a warpgroup whose 64 rows of an M tile all lie there branches around
    // that tile's wgmmas (warp-uniform; the result's rows there are unspecified: on an H200 a skipped tile after a
    // live one of the same warpgroup held garbage, not the accumulator it passed through). Where the warpgroup has
    // one M tile the branch holds the fence and the commit too, and the skipping side commits an empty group:
    // every warpgroup commits one group per dot, as the waits count, and ptxas sees each wgmma fenced on its own
    // path (a fence before the branch draws an injected warpgroup.arrive at the first wgmma and at the join).
    const bool oneTile = zeroRowsFrom && M == rowsPerRep;
    if (!oneTile)
      NVVM::WgmmaFenceAlignedOp::create(b, loc);
    for (int64_t m = 0; m < M; m += rowsPerRep) {
      Block *join = nullptr;
      SmallVector<unsigned> repRegisters; // this M tile's accumulator registers, passed to the join
      auto values = [&] { return llvm::map_to_vector(repRegisters, [&](unsigned reg) { return acc[reg]; }); };
      if (zeroRowsFrom) {
        for (int64_t n = 0; n < N; n += colsPerRep)
          llvm::append_range(repRegisters, registersOf(m, n));
        Value offset = LLVM::MulOp::create(b, loc, groupM, i32Constant(b, loc, 64));
        Value firstRow = LLVM::AddOp::create(b, loc, i32Constant(b, loc, m), offset);
        Value live = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::slt, firstRow, zeroRowsFrom);
        Block *current = b.getInsertionBlock();
        join = b.splitBlock(current, b.getInsertionPoint());
        for (unsigned reg : repRegisters)
          join->addArgument(acc[reg].getType(), loc);
        Block *compute = b.createBlock(join);
        Block *skip = join;
        if (oneTile) {
          skip = b.createBlock(join);
          NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
          LLVM::BrOp::create(b, loc, values(), join);
        }
        b.setInsertionPointToEnd(current);
        LLVM::CondBrOp::create(b, loc, live, compute, ValueRange(), skip, oneTile ? ValueRange() : ValueRange(values()));
        b.setInsertionPointToStart(compute);
        if (oneTile)
          NVVM::WgmmaFenceAlignedOp::create(b, loc);
      }
      for (int64_t n = 0; n < N; n += colsPerRep) {
        SmallVector<unsigned> registers = registersOf(m, n);
        Value tile = LLVM::PoisonOp::create(b, loc, tileType);
        for (auto [i, reg] : llvm::enumerate(registers))
          tile = LLVM::InsertValueOp::create(b, loc, tile, acc[reg], i);
        for (int64_t k = 0; k < K; k += instrK) {
          bool accumulate = !(zeroStart && k == 0);
          if (aRegisters) {
            tile = emitRegisterAWgmma(b, loc, tileType, tile, aWords(m, k), descriptor(bBase, bOp.byteOffset(k, n)),
                                      instrN, instrK, stringifyWGMMATypes(accType), stringifyWGMMATypes(inputType),
                                      !bOp.kMajor(), accumulate);
            continue;
          }
          tile = NVVM::WgmmaMmaAsyncOp::create(
              b, loc, tileType, tile, descriptor(aBase, a->byteOffset(k, m)), descriptor(bBase, bOp.byteOffset(k, n)),
              NVVM::MMAShapeAttr::get(context, 64, instrN, instrK), NVVM::WGMMATypesAttr::get(context, aInputType),
              NVVM::WGMMATypesAttr::get(context, inputType), NVVM::WGMMATypesAttr::get(context, accType),
              NVVM::WGMMAScaleOutAttr::get(context, accumulate ? NVVM::WGMMAScaleOut::one : NVVM::WGMMAScaleOut::zero),
              one, one,
              NVVM::MMALayoutAttr::get(context, layoutA), NVVM::MMALayoutAttr::get(context, layoutB),
              NVVM::MMAIntOverflowAttr());
        }
        for (auto [i, reg] : llvm::enumerate(registers))
          acc[reg] = LLVM::ExtractValueOp::create(b, loc, tile, i);
      }
      if (join) {
        if (oneTile)
          NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
        LLVM::BrOp::create(b, loc, values(), join);
        b.setInsertionPointToStart(join);
        for (auto [i, reg] : llvm::enumerate(repRegisters))
          acc[reg] = join->getArgument(i);
      }
    }
    const bool chained = joinsNextDotGroup(op);
    if (!oneTile && !chained)
      NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
    if (!op.getIsAsync() && !chained)
      acc = emitPinnedWait(b, loc, 0, acc);
    b.replaceOp(op, pack(b, loc, getTypeConverter()->convertType(dType), acc));
    return success();
  }
};

struct WarpGroupDotWaitLowering : ConvertOpToLLVMPattern<brickgpu::WarpGroupDotWaitOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult matchAndRewrite(brickgpu::WarpGroupDotWaitOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    SmallVector<Value> all;
    SmallVector<size_t> sizes;
    for (Value input : adaptor.getInputs()) {
      SmallVector<Value> values = unpack(b, loc, input);
      sizes.push_back(values.size());
      llvm::append_range(all, values);
    }
    SmallVector<Value> waited = emitPinnedWait(b, loc, op.getPendings(), all);
    SmallVector<Value> results;
    size_t next = 0;
    for (auto [output, size] : llvm::zip(op.getOutputs(), sizes)) {
      results.push_back(pack(b, loc, getTypeConverter()->convertType(output.getType()),
                             ArrayRef<Value>(waited).slice(next, size)));
      next += size;
    }
    b.replaceOp(op, results);
    return success();
  }
};
} // namespace

void emitAsyncProxyFence(OpBuilder &b, Location loc) {
  NVVM::FenceProxyOp::create(b, loc, NVVM::ProxyKind::async_shared,
                             NVVM::SharedSpaceAttr::get(b.getContext(), NVVM::SharedSpace::shared_cta));
}

void populateWarpGroupDotPatterns(LLVMTypeConverter &converter, RewritePatternSet &patterns, const LoweringContext &) {
  patterns.add<WarpGroupDotLowering, WarpGroupDotWaitLowering>(converter);
}

} // namespace mlir::brick::lowering
