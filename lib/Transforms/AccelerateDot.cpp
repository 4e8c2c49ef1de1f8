//===- AccelerateDot.cpp - brickgpu-accelerate-dot: dots on tensor cores (mma.sync, wgmma) --===//
//
// A dot the tensor cores take gets the #mma accumulator layout and #dot_op operands:
//
//   %a' = local_load (local_alloc %a : #shared) : #dot_op<{opIdx = 0, parent = #mma, kWidth}>
//   %b' = ... opIdx = 1 ...
//   %d  = brick.dot %a', %b', (convert_layout %c : #mma) : #mma
//   ... convert_layout %d back to the layout its users had
//
// On sm_90a a dot that fits wgmma reads both operands from shared memory instead:
//
//   %d  = brickgpu.warpgroup_dot (local_alloc %a : #nvmma_shared), (local_alloc %b : #nvmma_shared), %c' : #mma v3
//
// remove-layout-conversions then carries the accumulator through loops in #mma, the pipeline pass turns the
// loads feeding the local_allocs into cp.async copies, and the lowering reads the operands with ldmatrix.
//
//===----------------------------------------------------------------------===//

#include "brick/Analysis/SharedMemory.h"
#include "brick/Dialect/BrickGPU/BrickGPUDialect.h"
#include "brick/Transforms/Passes.h"
#include "brick/Dialect/Brick/Float8.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::brick {
#define GEN_PASS_DEF_BRICKGPUACCELERATEDOT
#include "brick/Transforms/Passes.h.inc"

namespace {
using brickgpu::ConvertLayoutOp;
using brickgpu::DotOperandEncodingAttr;
using brickgpu::MmaEncodingAttr;
using brickgpu::SharedEncodingAttr;

/// kWidth (elements along K per 32-bit register) of the mma.sync that takes this dot, or nothing.
std::optional<unsigned> mmaKWidth(DotOp dot) {
  Type a = getElementTypeOrSelf(dot.getA().getType()), b = getElementTypeOrSelf(dot.getB().getType());
  Type acc = getElementTypeOrSelf(dot.getType());
  if (isFloat8(a) && isFloat8(b) && acc.isF32()) // m16n8k32 (sm_89+), e4m3 and e5m2 in any pairing
    return 4;
  if (a != b)
    return std::nullopt;
  if ((a.isF16() && (acc.isF32() || acc.isF16())) || (a.isBF16() && acc.isF32()))
    return 2;
  if (a.isF32() && acc.isF32() && dot.getInputPrecision() != InputPrecision::ieee)
    return 1;
  if (a.isInteger(8) && acc.isInteger(32))
    return 4;
  return std::nullopt;
}

/// Warps over [M, N], as Triton's warpsPerTileV2: split the dimension with more 16x8 tiles per warp, M on ties.
SmallVector<unsigned> warpsPerTile(int64_t m, int64_t n, unsigned numWarps) {
  SmallVector<unsigned> warps{1, 1};
  while (warps[0] * warps[1] < numWarps) {
    if (m / 16 / warps[0] >= n / 16 / warps[1] && warps[0] < m / 16)
      warps[0] *= 2;
    else if (warps[1] < n / 8)
      warps[1] *= 2;
    else
      warps[0] *= 2; // more warps than tiles: the extra ones hold copies
  }
  return warps;
}

/// A swizzled shared layout for a block stored with dimension `order[0]` fastest: 16-byte groups, XOR-swizzled
/// so that 8 consecutive rows (what one ldmatrix matrix reads) start in 8 different 16-byte bank groups.
SharedEncodingAttr swizzledLayout(MLIRContext *context, RankedTensorType type, ArrayRef<unsigned> order) {
  int64_t bytes = getSharedElementBytes(type.getElementType());
  int64_t rowBytes = type.getDimSize(order[0]) * bytes;
  unsigned vec = std::max<int64_t>(1, std::min<int64_t>(16 / bytes, type.getDimSize(order[0])));
  unsigned perPhase = std::max<int64_t>(1, 128 / rowBytes);
  unsigned maxPhase = std::max<int64_t>(1, std::min<int64_t>(8 / perPhase, rowBytes / 16));
  return SharedEncodingAttr::get(context, vec, perPhase, maxPhase, order);
}

/// The order (fastest dimension first) a value's registers run along, looking through layout conversions: the
/// contiguous dimension of the load that produced it, so that it can be copied into shared memory in vectors.
std::pair<Value, SmallVector<unsigned>> storageSource(Value value) {
  while (auto convert = value.getDefiningOp<ConvertLayoutOp>())
    value = convert.getSrc();
  unsigned rank = cast<RankedTensorType>(value.getType()).getRank();
  SmallVector<unsigned> order;
  for (unsigned d = rank; d-- > 0;)
    order.push_back(d);
  if (auto blocked = dyn_cast_if_present<brickgpu::BlockedEncodingAttr>(cast<RankedTensorType>(value.getType()).getEncoding()))
    order.assign(blocked.getOrder().begin(), blocked.getOrder().end());
  return {value, order};
}

RankedTensorType withEncoding(Type type, Attribute encoding) {
  auto tensor = cast<RankedTensorType>(type);
  return RankedTensorType::get(tensor.getShape(), tensor.getElementType(), encoding);
}

/// `operand` in a shared buffer of layout `encoding`, written from the registers of the load it came from. Dots
/// that share an operand (an MoE's gate and up projections of one block of tokens) share its buffer: one copy to
/// shared memory, and one load for the pipeline to prefetch (it takes loads whose only use is one buffer). A
/// block made outside the dot's loop (attention's queries) is stored once, where it is made.
Value toSharedBuffer(OpBuilder &builder, Location loc, Value operand, Attribute encoding) {
  Value source = storageSource(operand).first;
  auto type = cast<RankedTensorType>(source.getType());
  auto memory = brickgpu::MemDescType::get(builder.getContext(), type.getShape(), type.getElementType(), encoding);
  OpBuilder::InsertionGuard guard(builder);
  Operation *definition = source.getDefiningOp();
  bool hoisted = definition && definition->getBlock() != builder.getInsertionBlock();
  if (hoisted)
    builder.setInsertionPointAfter(definition);
  Block *block = builder.getInsertionBlock();
  for (Operation *user : source.getUsers())
    if (auto earlier = dyn_cast<brickgpu::LocalAllocOp>(user))
      if (earlier.getType() == memory && earlier->getBlock() == block &&
          (hoisted || builder.getInsertionPoint() == block->end() ||
           earlier->isBeforeInBlock(&*builder.getInsertionPoint())))
        return earlier;
  return brickgpu::LocalAllocOp::create(builder, loc, memory, source);
}

/// The widest swizzle (128, 64 or 32 bytes) that divides both byte counts; 0 when none does.
unsigned widestSwizzle(int64_t rowBytes, int64_t tileBytes) {
  for (unsigned swizzle : {128u, 64u, 32u})
    if (rowBytes % swizzle == 0 && tileBytes % swizzle == 0)
      return swizzle;
  return 0;
}

/// The block a dot operand transposes (`brick.trans` of a 2-D block, through layout conversions), or null.
/// The dot then reads that block's buffer through a transposed view (brickgpu.memdesc_trans): a [N, K] weight's
/// block, contiguous along K, is the K x N operand of x * W^T with no copy in registers, its load stays one the
/// pipeline prefetches, and a descriptor's block keeps TMA.
Value transposedBlock(Value operand) {
  while (auto convert = operand.getDefiningOp<ConvertLayoutOp>())
    operand = convert.getSrc();
  auto trans = operand.getDefiningOp<TransOp>();
  if (!trans || trans.getOrder() != ArrayRef<int32_t>{1, 0})
    return {};
  return trans.getSrc();
}

/// The #nvmma_shared layout a transposed block (see transposedBlock) is stored in for mma.sync: as it was loaded
/// (the layout TMA writes, for a descriptor's block), whole swizzle rows, whole groups of 8 rows; or null.
brickgpu::NVMMASharedEncodingAttr transposedBlockLayout(MLIRContext *context, Value block) {
  auto [source, order] = storageSource(block);
  auto type = cast<RankedTensorType>(source.getType());
  if (source.getDefiningOp<DescriptorLoadOp>())
    if (auto tma = brickgpu::getTMALayout(context, type.getShape(), type.getElementType()))
      return tma.getOrder() == ArrayRef<unsigned>(order) ? tma : brickgpu::NVMMASharedEncodingAttr();
  int64_t rowBytes = type.getDimSize(order[0]) * getSharedElementBytes(type.getElementType());
  unsigned swizzle = widestSwizzle(rowBytes, rowBytes); // read along its rows: whole swizzle rows suffice
  if (!swizzle || type.getDimSize(order[1]) % 8 != 0)
    return {};
  return brickgpu::NVMMASharedEncodingAttr::get(context, swizzle, order);
}

/// `operand` in registers as #dot_op, read from a swizzled shared buffer (with ldmatrix where it can).
Value toDotOperand(OpBuilder &builder, Location loc, Value operand, unsigned opIdx, MmaEncodingAttr mma,
                   unsigned kWidth) {
  MLIRContext *context = builder.getContext();
  auto encoding = DotOperandEncodingAttr::get(context, opIdx, mma, kWidth);
  if (Value block = transposedBlock(operand))
    if (brickgpu::NVMMASharedEncodingAttr layout = transposedBlockLayout(context, block)) {
      Value buffer = toSharedBuffer(builder, loc, block, layout);
      auto bufferType = cast<brickgpu::MemDescType>(buffer.getType());
      auto viewType = brickgpu::MemDescTransOp::transposed(bufferType);
      Value view = brickgpu::MemDescTransOp::create(builder, loc, viewType, buffer);
      return brickgpu::LocalLoadOp::create(builder, loc, withEncoding(operand.getType(), encoding), view);
    }
  auto [source, order] = storageSource(operand);
  auto type = cast<RankedTensorType>(source.getType());
  // A descriptor block kept for TMA (sm_90a) is staged in the layout TMA writes, which ldmatrix reads as well.
  Attribute layout = swizzledLayout(context, type, order);
  if (source.getDefiningOp<DescriptorLoadOp>())
    if (auto tma = brickgpu::getTMALayout(context, type.getShape(), type.getElementType()))
      layout = tma;
  Value buffer = toSharedBuffer(builder, loc, operand, layout);
  return brickgpu::LocalLoadOp::create(builder, loc, withEncoding(type, encoding), buffer);
}

/// `operand` as a wgmma reads it: a buffer of layout `layout` (in the operand's dimensions), or a transposed view
/// of the transposed block's buffer.
Value toWgmmaOperand(OpBuilder &builder, Location loc, Value operand, brickgpu::NVMMASharedEncodingAttr layout) {
  Value block = transposedBlock(operand);
  if (!block)
    return toSharedBuffer(builder, loc, operand, layout);
  auto viewType = brickgpu::MemDescType::get(builder.getContext(), cast<RankedTensorType>(operand.getType()).getShape(),
                                             getElementTypeOrSelf(operand.getType()), layout);
  // The block's buffer is the view transposed back.
  Value buffer = toSharedBuffer(builder, loc, block, brickgpu::MemDescTransOp::transposed(viewType).getEncoding());
  return brickgpu::MemDescTransOp::create(builder, loc, viewType, buffer);
}

/// Erases the layout conversions and transposes that computed `values` (a replaced dot's operands) once nothing
/// uses them. The operands may share them (dot(x, x)): each is erased once, users before what they read.
void eraseUnused(ArrayRef<Value> values) {
  llvm::SetVector<Operation *> chain;
  for (Value value : values)
    for (Operation *op = value.getDefiningOp(); op && isa<ConvertLayoutOp, TransOp>(op);
         op = op->getOperand(0).getDefiningOp())
      chain.insert(op);
  llvm::DenseSet<Operation *> erased;
  for (bool progress = true; progress;) {
    progress = false;
    for (Operation *op : chain)
      if (!erased.contains(op) && op->use_empty()) {
        op->erase();
        erased.insert(op);
        progress = true;
      }
  }
}

/// Whether wgmma should read `a` from registers: a block computed there (attention's P, a converted or scaled
/// operand), which the threads would otherwise write to shared memory only to have it read back. A loaded block
/// stays in shared memory, where the pipeline copies it asynchronously.
bool computedInRegisters(Value a) {
  if (transposedBlock(a))
    return false;
  Operation *definition = storageSource(a).first.getDefiningOp();
  return definition && !isa<LoadOp, DescriptorLoadOp>(definition);
}

/// How a dot goes on wgmma: the accumulator's layout and each operand's buffer layout (none for an A in
/// registers).
struct WgmmaPlan {
  MmaEncodingAttr mma;
  brickgpu::NVMMASharedEncodingAttr aShared, bShared;
  bool aInRegisters = false;
};

/// A wgmma plan for `dot` (sm_90a), or nothing when the dot does not fit one; it then stays on mma.sync. A
/// computed in registers stays there when it takes at most `aRegisterRoom` registers per thread.
std::optional<WgmmaPlan> planWgmma(DotOp dot, unsigned numWarps, int64_t aRegisterRoom) {
  MLIRContext *context = dot.getContext();
  Type a = getElementTypeOrSelf(dot.getA().getType()), b = getElementTypeOrSelf(dot.getB().getType());
  Type acc = getElementTypeOrSelf(dot.getType());
  // tf32 reads f32 operands from shared memory as they are: wgmma drops their low 13 mantissa bits (truncates,
  // as Triton's Hopper code does), where mma.sync takes them rounded to nearest (cvt.rna). tf32x3
  // splits each operand in registers, so it stays on mma.sync.
  bool sixteenBit = (a.isF16() || a.isBF16()) && acc.isF32();
  bool int8 = a.isInteger(8) && acc.isInteger(32);
  bool float8 = isFloat8(a) && isFloat8(b) && acc.isF32(); // e4m3 and e5m2 in any pairing
  bool tf32 = a.isF32() && acc.isF32() && dot.getInputPrecision() == InputPrecision::tf32;
  if ((a != b && !float8) || !(sixteenBit || int8 || float8 || tf32) || numWarps % 4 != 0)
    return std::nullopt;
  auto c = cast<RankedTensorType>(dot.getType());
  int64_t m = c.getDimSize(0), n = c.getDimSize(1), k = cast<RankedTensorType>(dot.getA().getType()).getDimSize(1);
  int64_t bytes = getSharedElementBytes(a), instrK = 32 / bytes;
  if (m % 64 != 0 || k % instrK != 0)
    return std::nullopt;
  // Warpgroups along M while M has rows for them, then along N (as Triton's warpsPerTileV3).
  SmallVector<unsigned> warps{4, 1};
  while (warps[0] * warps[1] < numWarps) {
    if (m > 16 * int64_t(warps[0]))
      warps[0] *= 2;
    else
      warps[1] *= 2;
  }
  int64_t instrN = std::min<int64_t>(256, n / warps[1]);
  if (instrN < 8 || m % (16 * int64_t(warps[0])) != 0)
    return std::nullopt;

  // Each operand is stored along the dimension its loads are contiguous in. One contiguous along K needs only
  // whole swizzle rows; one contiguous along M or N (16-bit only: wgmma transposes those) also needs each
  // instruction tile (64 rows of a, instrN columns of b) to be whole swizzle columns.
  auto shared = [&](Value operand, unsigned kDim, int64_t tileAlongOther) -> brickgpu::NVMMASharedEncodingAttr {
    // A transposed block is stored as it was loaded; its order, in the operand's dimensions, is swapped.
    Value block = transposedBlock(operand);
    auto [source, storedOrder] = storageSource(block ? block : operand);
    SmallVector<unsigned> order = block ? SmallVector<unsigned>{1 - storedOrder[0], 1 - storedOrder[1]} : storedOrder;
    auto type = cast<RankedTensorType>(operand.getType());
    bool kMajor = order[0] == kDim;
    // wgmma reads 8- and 32-bit operands only along K: one stored along M or N gets a buffer along K, written
    // from registers (brickgpu-pipeline stages its load in a buffer of its own and prefetches that).
    bool restaged = !kMajor && !sixteenBit;
    if (restaged) {
      order = {kDim, 1 - kDim};
      kMajor = true;
    }
    int64_t rowBytes = type.getDimSize(order[0]) * bytes;
    unsigned swizzle = widestSwizzle(rowBytes, kMajor ? rowBytes : tileAlongOther * bytes);
    if (!swizzle || type.getDimSize(order[1]) % 8 != 0)
      return {};
    // A descriptor block kept for TMA lands in the layout its tensor map gives; wgmma reads it there when that
    // swizzle also divides each instruction tile (the pipeline then copies straight into the operand's ring).
    if (source.getDefiningOp<DescriptorLoadOp>() && !restaged) {
      auto sourceType = cast<RankedTensorType>(source.getType());
      if (auto tma = brickgpu::getTMALayout(context, sourceType.getShape(), sourceType.getElementType());
          tma && tma.getOrder() == ArrayRef<unsigned>(storedOrder) &&
          (kMajor || (tileAlongOther * bytes) % tma.getSwizzle() == 0))
        return brickgpu::NVMMASharedEncodingAttr::get(context, tma.getSwizzle(), order);
    }
    return brickgpu::NVMMASharedEncodingAttr::get(context, swizzle, order);
  };
  WgmmaPlan plan;
  // A's fragments: 4 registers per 16 rows of a warp and K step.
  plan.aInRegisters = !float8 && !tf32 && computedInRegisters(dot.getA()) &&
                      m / (16 * int64_t(warps[0])) * (k / instrK) * 4 <= aRegisterRoom;
  if (!plan.aInRegisters)
    plan.aShared = shared(dot.getA(), 1, 64);
  plan.bShared = shared(dot.getB(), 0, instrN);
  if ((!plan.aShared && !plan.aInRegisters) || !plan.bShared)
    return std::nullopt;
  plan.mma = MmaEncodingAttr::get(context, 3, warps, {64, unsigned(instrN)});
  return plan;
}

struct AccelerateDotPass : impl::BrickGPUAccelerateDotBase<AccelerateDotPass> {
  using Base::Base;

  /// The registers a thread may have, and the dot's accumulator's share of them.
  static std::pair<int64_t, int64_t> registerBudget(DotOp dot, unsigned numWarps) {
    auto c = cast<RankedTensorType>(dot.getType());
    int64_t threads = 32 * int64_t(numWarps);
    return {std::min<int64_t>(255, 65536 / threads),
            c.getNumElements() * std::max(32u, c.getElementTypeBitWidth()) / 32 / threads};
  }

  /// An error when the dot's accumulator and one K step of its operands need more registers than a thread has.
  LogicalResult checkRegisters(DotOp dot, unsigned numWarps, std::optional<SmallVector<unsigned>> mmaWarps) {
    auto c = cast<RankedTensorType>(dot.getType());
    int64_t threads = 32 * int64_t(numWarps);
    auto [limit, accumulator] = registerBudget(dot, numWarps);
    int64_t operands = 0;
    if (mmaWarps) { // one K step: a's fragment (4 registers) per 16 rows of a warp, b's (2) per 8 columns
      unsigned rank = c.getRank(), mDim = rank - 2, nDim = rank - 1;
      int64_t batches = rank == 3 ? std::max<int64_t>(1, c.getDimSize(0) / (*mmaWarps)[0]) : 1;
      operands = batches * (4 * std::max<int64_t>(1, c.getDimSize(mDim) / 16 / (*mmaWarps)[mDim]) +
                            2 * std::max<int64_t>(1, c.getDimSize(nDim) / 8 / (*mmaWarps)[nDim]));
    }
    if (accumulator + operands <= limit)
      return success();
    auto kernel = dot->getParentOfType<func::FuncOp>();
    std::string shape;
    for (int64_t d : c.getShape())
      shape += (shape.empty() ? "" : "x") + std::to_string(d);
    return mlir::emitError(dot.getLoc()) << "kernel '" << (kernel ? kernel.getSymName() : StringRef("?")) << "': this dot's "
                           << shape << " " << c.getElementType()
                           << " accumulator over " << numWarps << " warps needs at least " << accumulator + operands
                           << " registers per thread (" << accumulator << " for the accumulator), more than the "
                           << limit << " a thread may have with " << threads
                           << " threads; use more warps or smaller blocks";
  }

  void runOnOperation() override {
    if (failed(brickgpu::verifyEveryBlockHasALayout(getOperation(), "brickgpu-accelerate-dot")))
      return signalPassFailure();
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    unsigned numWarps = brickgpu::BrickGPUDialect::getNumWarps(module);
    SmallVector<DotOp> dots;
    module.walk([&](DotOp dot) { dots.push_back(dot); });
    bool failed = false;
    for (DotOp dot : dots) {
      // A batched dot (a leading batch dimension) goes on mma.sync, each batch as a dot of its own.
      bool batched = cast<RankedTensorType>(dot.getType()).getRank() == 3;
      // A computed in registers stays there while it and the accumulator take at most half of a thread's
      // registers (the rest is for the kernel around the dot); else it goes through shared memory as well.
      auto [registerLimit, accumulatorRegisters] = registerBudget(dot, numWarps);
      std::optional<WgmmaPlan> wgmmaPlan =
          wgmma && !batched ? planWgmma(dot, numWarps, registerLimit / 2 - accumulatorRegisters) : std::nullopt;
      if (wgmmaPlan) {
        if (::mlir::failed(checkRegisters(dot, numWarps, std::nullopt))) { // operands stay in shared memory
          failed = true;
          continue;
        }
        OpBuilder builder(dot);
        Location loc = dot.getLoc();
        auto c = cast<RankedTensorType>(dot.getType());
        Value a;
        if (wgmmaPlan->aInRegisters) {
          auto operand = DotOperandEncodingAttr::get(context, 0, wgmmaPlan->mma, *mmaKWidth(dot));
          a = ConvertLayoutOp::create(builder, loc, withEncoding(dot.getA().getType(), operand), dot.getA());
        } else {
          a = toWgmmaOperand(builder, loc, dot.getA(), wgmmaPlan->aShared);
        }
        Value b = toWgmmaOperand(builder, loc, dot.getB(), wgmmaPlan->bShared);
        Value accumulator = ConvertLayoutOp::create(builder, loc, withEncoding(c, wgmmaPlan->mma), dot.getC());
        auto accelerated = brickgpu::WarpGroupDotOp::create(builder, loc, withEncoding(c, wgmmaPlan->mma), a, b,
                                                            accumulator, dot.getZeroRowsFrom(), dot.getInputPrecision(),
                                                            /*isAsync=*/false);
        dot.replaceAllUsesWith(ConvertLayoutOp::create(builder, loc, c, accelerated.getResult()).getResult());
        Value operands[] = {dot.getA(), dot.getB()};
        dot.erase();
        eraseUnused(operands);
        continue;
      }
      // An 8-bit float dot wgmma does not take goes on mma.sync m16n8k32 from sm_89; before that it multiplies
      // f16 copies of its operands: f16 holds every e4m3fn and e5m2 value, so the products are the same.
      if (isFloat8(getElementTypeOrSelf(dot.getA().getType())) && computeCapability < 89) {
        OpBuilder builder(dot);
        auto widen = [&](Value operand) -> Value {
          auto type = cast<RankedTensorType>(operand.getType());
          return arith::ExtFOp::create(builder, dot.getLoc(), type.clone(builder.getF16Type()), operand);
        };
        auto wide = DotOp::create(builder, dot.getLoc(), dot.getType(), widen(dot.getA()), widen(dot.getB()),
                                  dot.getC(), dot.getZeroRowsFrom(), dot.getInputPrecision(),
                                  dot.getMaxNumImpreciseAcc());
        dot.replaceAllUsesWith(wide.getResult());
        dot.erase();
        dot = wide;
      }
      std::optional<unsigned> kWidth = computeCapability >= 80 ? mmaKWidth(dot) : std::nullopt;
      auto a = cast<RankedTensorType>(dot.getA().getType());
      auto c = cast<RankedTensorType>(dot.getType());
      unsigned rank = c.getRank();
      int64_t m = c.getDimSize(rank - 2), n = c.getDimSize(rank - 1), k = a.getDimSize(rank - 1);
      if (kWidth && !brickgpu::fitsMmaSync(m, n, k, 32 / *kWidth))
        kWidth.reset(); // smaller than one instruction: FMAs
      std::optional<SmallVector<unsigned>> warps;
      if (kWidth && !batched) {
        warps = warpsPerTile(m, n, numWarps);
      } else if (kWidth) {
        // Warps over the batches first (each batch is a dot of its own: no data shared between them), the rest
        // over M and N.
        unsigned batchWarps = llvm::bit_floor(uint64_t(std::min<int64_t>(numWarps, c.getDimSize(0))));
        warps = SmallVector<unsigned>{batchWarps};
        warps->append(warpsPerTile(m, n, numWarps / batchWarps));
      }
      if (::mlir::failed(checkRegisters(dot, numWarps, warps))) {
        failed = true;
        continue;
      }
      if (!kWidth)
        continue;
      OpBuilder builder(dot);
      Location loc = dot.getLoc();
      auto mma = MmaEncodingAttr::get(context, 2, *warps, {16, 8});
      Value aOperand = toDotOperand(builder, loc, dot.getA(), 0, mma, *kWidth);
      Value bOperand = toDotOperand(builder, loc, dot.getB(), 1, mma, *kWidth);
      Value accumulator = ConvertLayoutOp::create(builder, loc, withEncoding(c, mma), dot.getC());
      auto accelerated = DotOp::create(builder, loc, withEncoding(c, mma), aOperand, bOperand, accumulator,
                                       dot.getZeroRowsFrom(), dot.getInputPrecision(), dot.getMaxNumImpreciseAcc());
      dot.replaceAllUsesWith(ConvertLayoutOp::create(builder, loc, c, accelerated.getResult()).getResult());
      Value operands[] = {dot.getA(), dot.getB()};
      dot.erase();
      eraseUnused(operands);
    }
    if (failed)
      signalPassFailure();
  }
};
} // namespace
} // namespace mlir::brick
