//===- Pipeline.cpp - brickgpu-pipeline: loads feeding dots become cp.async into a ring ----===//
//
// For S = num-stages, a loop
//
//   scf.for %i iter_args(%p = %p0, ...) {
//     %x = brick.load %p, %mask, %zero           // only use: the local_alloc
//     %s = brickgpu.local_alloc %x               // read by local_loads (dot operands)
//     ... uses of %s ...
//     scf.yield ..., %p_next
//   }
//
// becomes
//
//   %ring = local_alloc : memdesc<S x ...>
//   copies of iterations 0 .. S-2 into slots 0 .. S-2, each a commit group (addresses recomputed per iteration)
//   scf.for %i iter_args(..., %p_ahead = (%p of iteration S-1), %slot = 0) {
//     async_wait S-2; barrier                    // iteration i's copies have landed, slot i-1 is read
//     copies of iteration i + S-1 (from %p_ahead) into slot (%slot + S-1) % S; commit
//     ... uses of memdesc_index %ring[%slot] ...
//     scf.yield ..., (%p_ahead advanced one iteration), (%slot + 1) % S
//   }
//   async_wait 0 (%ring); barrier
//
// A wgmma dot that only accumulates across iterations (S >= 3) stays in flight while the next iteration starts:
// it becomes asynchronous, followed by a warpgroup_dot_wait {pendings = n} for the loop's n such dots (so this
// dot's previous iteration is done), with a wait {pendings = 0} after the loop; the copies then run S-2
// iterations ahead, so that no copy writes a slot a wgmma may still read.
//
// Iterations past the loop's end copy nothing (their copies are masked off), so the prologue and the last
// iterations need no special cases.
//
// A brick.descriptor_load kept for TMA (sm_90a) whose only use is a local_alloc laid out as its tensor map
// writes (#nvmma_shared with tmaBlockLayout's swizzle) is copied the same way, but by TMA: a ring of S mbarriers
// (initialized before the loop, invalidated after it) goes with the rings of buffers; thread 0 arrives on slot
// s's barrier expecting every TMA load's bytes and issues the copies into slot s; each iteration waits on its
// slot's barrier with the parity of its pass over the ring (a loop value that flips when the slot wraps).
//
//===----------------------------------------------------------------------===//

#include "brick/Analysis/AxisInfo.h"
#include "brick/Analysis/SharedMemory.h"
#include "brick/Dialect/BrickGPU/BrickGPUDialect.h"
#include "brick/Transforms/Passes.h"

#include "PipelineUtils.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::brick {
#define GEN_PASS_DEF_BRICKGPUPIPELINE
#include "brick/Transforms/Passes.h.inc"

namespace {
using brickgpu::LocalAllocOp;
using brickgpu::MemDescType;

/// A load the pipeline turns into copies (a brick.load by cp.async, a brick.descriptor_load by TMA), the
/// local_alloc it fills, and the ring that replaces it.
struct Prefetched {
  Operation *load;
  LocalAllocOp alloc;
  Value ring;
  bool byTMA() const { return isa<DescriptorLoadOp>(load); }
};

/// Whether `load` (directly in `loop`'s body) can become cp.async copies into the buffer of its only user.
LocalAllocOp copyTarget(LoadOp load, const ModuleAxisInfo &axisInfo) {
  if (!load->hasOneUse() || load.getIsVolatile() || (load.getOther() && !isZeroConstant(load.getOther())))
    return {};
  auto alloc = dyn_cast<LocalAllocOp>(*load->getUsers().begin());
  if (!readOnlyByDots(load, alloc))
    return {};
  auto pointers = dyn_cast<RankedTensorType>(load.getPtr().getType());
  if (!pointers || !brickgpu::getLayout(pointers))
    return {};
  // cp.async moves 4, 8 or 16 bytes, contiguous in the buffer: along its fastest dimension, within one swizzle
  // group.
  Type element = alloc.getType().getElementType();
  unsigned bits = std::max(8u, element.getIntOrFloatBitWidth());
  unsigned width = getMemoryAccessWidth(axisInfo, load.getPtr(), load.getMask(), bits);
  if (width * bits < 32)
    return {};
  brickgpu::LinearLayout layout = brickgpu::getLinearLayout(pointers);
  ArrayRef<brickgpu::LinearLayout::Coordinate> registers = layout.getRegisterBases();
  Attribute encoding = alloc.getType().getEncoding();
  if (auto nvmma = dyn_cast<brickgpu::NVMMASharedEncodingAttr>(encoding)) // swizzled in 16-byte groups
    return registers.empty() || registers.front()[nvmma.getOrder()[0]] != 1 ? LocalAllocOp() : alloc;
  auto shared = cast<brickgpu::SharedEncodingAttr>(encoding);
  unsigned fastest = shared.getOrder()[0];
  if (registers.empty() || registers.front()[fastest] != 1 || (shared.getMaxPhase() > 1 && shared.getVec() < width))
    return {};
  return alloc;
}

/// Whether `value` is a constant +0 (a float's sign bit clear) or integer 0.
bool isPositiveZeroConstant(Value value) {
  return matchPattern(value, m_Zero()) || matchPattern(value, m_PosZeroFloat());
}

/// Whether every use of `value` leads, through elementwise ops and layout conversions in `body`, only to
/// buffers that dots read (local_allocs next to them): work between a load and the dot it feeds.
/// `checked` holds the ops already found to lead only to such buffers, so that work which splits and joins
/// again is walked once.
bool feedsOnlyDots(Value value, Operation *load, Block *body, llvm::SmallPtrSetImpl<Operation *> &checked) {
  return !value.use_empty() && llvm::all_of(value.getUsers(), [&](Operation *user) {
    if (user->getBlock() != body)
      return false;
    if (checked.contains(user))
      return true;
    if (auto alloc = dyn_cast<LocalAllocOp>(user))
      return readOnlyByDots(load, alloc);
    bool elementwise = user->getNumRegions() == 0 && user->getNumResults() == 1 && isMemoryEffectFree(user) &&
                       (user->hasTrait<OpTrait::Elementwise>() || isa<brickgpu::ConvertLayoutOp>(user));
    if (!elementwise || !feedsOnlyDots(user->getResult(0), load, body, checked))
      return false;
    checked.insert(user);
    return true;
  });
}
bool feedsOnlyDots(Value value, Operation *load, Block *body) {
  llvm::SmallPtrSet<Operation *, 16> checked;
  return feedsOnlyDots(value, load, body, checked);
}

/// The dimension a shared buffer's elements run along first.
unsigned sharedFastest(brickgpu::MemDescType type) {
  if (auto nvmma = dyn_cast<brickgpu::NVMMASharedEncodingAttr>(type.getEncoding()))
    return nvmma.getOrder()[0];
  return cast<brickgpu::SharedEncodingAttr>(type.getEncoding()).getOrder()[0];
}

/// The layout to read a staged 2-D block back in when it only goes on into `target`, a buffer running along the
/// other dimension (an operand wgmma reads along K): each thread holds 16 bytes along the target's fastest
/// dimension and lanes run along the other, so that the target is written in whole 16-byte vectors, a warp's
/// spread over as many rows (their swizzle phases differ), and read from the staged rows element by element
/// across the lanes (consecutive addresses).
Attribute transposingLayout(brickgpu::MemDescType target, unsigned numWarps) {
  ArrayRef<int64_t> shape = target.getShape();
  unsigned fast = sharedFastest(target);
  unsigned other = 1 - fast;
  SmallVector<unsigned> sizePerThread(2, 1), threadsPerWarp(2, 1), warpsPerCTA(2, 1);
  sizePerThread[fast] = unsigned(std::min<int64_t>(16 / getSharedElementBytes(target.getElementType()), shape[fast]));
  threadsPerWarp[other] = unsigned(std::min<int64_t>(32, shape[other]));
  threadsPerWarp[fast] = 32 / threadsPerWarp[other];
  warpsPerCTA[other] = unsigned(std::min<int64_t>(numWarps, std::max<int64_t>(1, shape[other] / threadsPerWarp[other])));
  warpsPerCTA[fast] = numWarps / warpsPerCTA[other];
  return brickgpu::BlockedEncodingAttr::get(target.getContext(), sizePerThread, threadsPerWarp, warpsPerCTA,
                                            {fast, other});
}

/// Stages each load of `loop` that feeds dots but cannot be copied into their buffers as it is (it is converted,
/// scaled or unpacked on the way, or the dot's buffer runs along another dimension: an 8- or 32-bit operand that
/// wgmma reads only along K): the load fills a buffer of its own, in the order it reads memory (a descriptor
/// block: in its TMA layout), and a local_load gives the block back where the load's value was used. That buffer
/// is then prefetched like any other, and the work after it runs on a block already in shared memory.
void stageLoadsForDots(scf::ForOp loop, const ModuleAxisInfo &axisInfo) {
  Block *body = loop.getBody();
  MLIRContext *context = loop.getContext();
  SmallVector<Operation *> loads; // staging erases transposes after them: the loads are taken first
  for (Operation &op : body->getOperations())
    if (isa<LoadOp, DescriptorLoadOp>(op))
      loads.push_back(&op);
  for (Operation *loadOp : loads) {
    Operation &op = *loadOp;
    MemDescType stagedType;
    SmallVector<Value> addresses; // what a copy for a later iteration recomputes
    if (auto load = dyn_cast<LoadOp>(op)) {
      // cp.async fills masked-off elements with +0, which the work after the load may tell from -0.
      if (copyTarget(load, axisInfo) || load.getIsVolatile() ||
          (load.getOther() && !isPositiveZeroConstant(load.getOther())))
        continue;
      addresses.push_back(load.getPtr());
      if (load.getMask())
        addresses.push_back(load.getMask());
      auto pointers = dyn_cast<RankedTensorType>(load.getPtr().getType());
      if (!pointers || pointers.getRank() != 2 || !brickgpu::getLayout(pointers))
        continue;
      // cp.async of at least 4 bytes, contiguous along the dimension the layout's registers run first.
      auto type = cast<RankedTensorType>(load.getType());
      unsigned bits = std::max(8u, type.getElementType().getIntOrFloatBitWidth());
      unsigned width = getMemoryAccessWidth(axisInfo, load.getPtr(), load.getMask(), bits);
      brickgpu::LinearLayout layout = brickgpu::getLinearLayout(pointers);
      ArrayRef<brickgpu::LinearLayout::Coordinate> registers = layout.getRegisterBases();
      if (width * bits < 32 || registers.empty())
        continue;
      unsigned fastest = registers.front()[0] == 1 ? 0 : 1;
      if (registers.front()[fastest] != 1)
        continue;
      auto encoding = brickgpu::SharedEncodingAttr::get(context, width, 1, 1, {fastest, 1 - fastest});
      stagedType = MemDescType::get(context, type.getShape(), type.getElementType(), encoding);
    } else if (auto load = dyn_cast<DescriptorLoadOp>(op)) {
      auto type = cast<RankedTensorType>(load.getType());
      if (tmaTarget(load) || !load.getDesc().getDefiningOp<MakeTensorDescriptorOp>() || type.getRank() != 2)
        continue;
      auto tma = brickgpu::getTMALayout(context, type.getShape(), type.getElementType());
      if (!tma)
        continue;
      llvm::append_range(addresses, load.getIndices());
      stagedType = MemDescType::get(context, type.getShape(), type.getElementType(), tma);
    } else {
      continue;
    }
    // Staged only where the pipeline can then run the copies ahead (a staged load it cannot would cost a buffer
    // and keep the loop's other loads from being prefetched).
    if (!sliceOf(loop, addresses))
      continue;
    Value loaded = op.getResult(0);
    // A block transposed on its way (a weight's N x K block read as K x N) is read back through a transposed
    // view of the staged buffer, with no second trip through shared memory.
    auto trans = loaded.hasOneUse() ? dyn_cast<TransOp>(*loaded.getUsers().begin()) : TransOp();
    if (trans && (trans.getOrder() != ArrayRef<int32_t>{1, 0} || trans->getBlock() != body))
      trans = {};
    if (trans ? !feedsOnlyDots(trans.getResult(), &op, body) : !feedsOnlyDots(loaded, &op, body))
      continue;
    if (trans) {
      OpBuilder b(trans);
      auto staged = LocalAllocOp::create(b, op.getLoc(), stagedType, loaded);
      auto view = brickgpu::MemDescTransOp::create(b, op.getLoc(), brickgpu::MemDescTransOp::transposed(stagedType), staged);
      auto back = brickgpu::LocalLoadOp::create(b, op.getLoc(), trans.getType(), view);
      trans.getResult().replaceAllUsesWith(back);
      trans.erase();
      continue;
    }
    // A block that only goes on into a buffer along its other dimension is read back in the layout that writes
    // that buffer best.
    auto type = cast<RankedTensorType>(loaded.getType());
    auto target = loaded.hasOneUse() ? dyn_cast<LocalAllocOp>(*loaded.getUsers().begin()) : LocalAllocOp();
    OpBuilder b(op.getContext());
    b.setInsertionPointAfter(&op);
    auto staged = LocalAllocOp::create(b, op.getLoc(), stagedType, loaded);
    if (target && sharedFastest(target.getType()) != sharedFastest(stagedType)) {
      unsigned numWarps = brickgpu::BrickGPUDialect::getNumWarps(loop->getParentOfType<ModuleOp>());
      type = RankedTensorType::get(type.getShape(), type.getElementType(), transposingLayout(target.getType(), numWarps));
    }
    auto back = brickgpu::LocalLoadOp::create(b, op.getLoc(), type, staged);
    loaded.replaceAllUsesExcept(back, staged);
  }
}

/// The buffers of `loop`'s body written from registers every iteration and read only by wgmma dots (an operand
/// computed from a staged block): with two of them, taken in turn, such a dot can stay in flight.
SmallVector<LocalAllocOp> rewrittenBuffers(scf::ForOp loop, ArrayRef<Prefetched> loads) {
  SmallVector<LocalAllocOp> buffers;
  for (auto alloc : loop.getBody()->getOps<LocalAllocOp>()) {
    if (!alloc.getSrc() || llvm::any_of(loads, [&](const Prefetched &p) { return p.alloc == alloc; }))
      continue;
    SmallVector<Operation *> users(alloc->getUsers());
    for (size_t i = 0; i < users.size(); ++i)
      if (isa<brickgpu::MemDescTransOp>(users[i]))
        llvm::append_range(users, users[i]->getUsers());
    if (llvm::all_of(users, [](Operation *user) { return isa<brickgpu::WarpGroupDotOp, brickgpu::MemDescTransOp>(user); }))
      buffers.push_back(alloc);
  }
  return buffers;
}

/// The wgmma dots of `loop` that read prefetched buffers and only accumulate across iterations (their accumulator
/// is a loop value they alone update): these can stay in flight into the next iteration. Empty when some
/// dot reading a prefetched buffer cannot (then every dot stays synchronous).
SmallVector<brickgpu::WarpGroupDotOp> asyncDots(scf::ForOp loop, ArrayRef<Prefetched> loads,
                                                ArrayRef<LocalAllocOp> rewritten) {
  SmallVector<brickgpu::WarpGroupDotOp> dots;
  for (const Prefetched &p : loads) {
    SmallVector<Operation *> users(p.alloc->getUsers());
    for (size_t i = 0; i < users.size(); ++i) // through transposed views
      if (isa<brickgpu::MemDescTransOp>(users[i]))
        llvm::append_range(users, users[i]->getUsers());
    for (Operation *user : users) {
      auto dot = dyn_cast<brickgpu::WarpGroupDotOp>(user);
      if (!dot || llvm::is_contained(dots, dot))
        continue;
      // Every operand buffer must be prefetched (a ring slot, written iterations ahead) or made before the loop:
      // a buffer written in the loop body (a descriptor block left for brickgpu-lower-descriptor-loads) would be
      // overwritten while the dot in flight still reads it. An A in registers keeps the dot synchronous: the
      // next iteration's A would be computed while the tensor cores still read this one's registers.
      if (isa<RankedTensorType>(dot.getA().getType()))
        return {};
      for (Value operand : {Value(dot.getA()), Value(dot.getB())}) {
        Value buffer = brickgpu::underlyingBuffer(operand);
        bool prefetched = llvm::any_of(loads, [&](Prefetched q) { return q.alloc.getResult() == buffer; }) ||
                          llvm::any_of(rewritten, [&](LocalAllocOp alloc) { return alloc.getResult() == buffer; });
        if (!prefetched && loop->isAncestor(operand.getParentRegion()->getParentOp()))
          return {};
      }
      auto carried = dyn_cast<BlockArgument>(dot.getC());
      if (!carried || carried.getOwner() != loop.getBody() || carried == loop.getInductionVar() ||
          !carried.hasOneUse() || !dot->hasOneUse() || !isa<scf::YieldOp>(*dot->getUsers().begin()) ||
          loop.getYieldedValues()[carried.getArgNumber() - 1] != dot.getResult())
        return {};
      dots.push_back(dot);
    }
  }
  return dots;
}

struct PipelinePass : impl::BrickGPUPipelineBase<PipelinePass> {
  using Base::Base;

  void runOnOperation() override {
    if (failed(brickgpu::verifyEveryBlockHasALayout(getOperation(), "brickgpu-pipeline")))
      return signalPassFailure();
    if (numStages < 2)
      return;
    ModuleAxisInfo axisInfo(getOperation());
    // Decide first: rewriting changes the values the analysis answered about.
    SmallVector<std::pair<scf::ForOp, SmallVector<Prefetched>>> plans;
    getOperation().walk([&](scf::ForOp loop) {
      // Loads moved iterations ahead would pass the loop's own stores and atomics; unsigned bounds would need
      // unsigned range checks for the copies past the end.
      bool writes = loop.getBody()
                        ->walk([](Operation *op) {
                          bool impureAsm = isa<InlineAsmElementwiseOp>(op) && !cast<InlineAsmElementwiseOp>(op).getPure();
                          return isa<StoreOp, DescriptorStoreOp, AtomicRMWOp, AtomicCASOp>(op) || impureAsm
                                     ? WalkResult::interrupt()
                                     : WalkResult::advance();
                        })
                        .wasInterrupted();
      if (writes || loop.getUnsignedCmp())
        return;
      stageLoadsForDots(loop, axisInfo);
      SmallVector<Prefetched> loads;
      for (Operation &op : loop.getBody()->getOperations()) {
        LocalAllocOp alloc;
        if (auto load = dyn_cast<LoadOp>(op))
          alloc = copyTarget(load, axisInfo);
        else if (auto load = dyn_cast<DescriptorLoadOp>(op))
          alloc = tmaTarget(load);
        if (alloc)
          loads.push_back({&op, alloc, Value()});
      }
      if (!loads.empty())
        plans.emplace_back(loop, std::move(loads));
    });
    for (auto &[loop, loads] : plans)
      pipeline(loop, loads);
  }

  void pipeline(scf::ForOp loop, SmallVector<Prefetched> &loads) {
    SmallVector<Value> roots;
    for (Prefetched &p : loads) {
      if (auto load = dyn_cast<LoadOp>(p.load)) {
        roots.push_back(load.getPtr());
        if (load.getMask())
          roots.push_back(load.getMask());
      } else {
        llvm::append_range(roots, cast<DescriptorLoadOp>(p.load).getIndices());
      }
    }
    bool anyCopies = llvm::any_of(loads, [](Prefetched &p) { return !p.byTMA(); });
    bool anyTMA = llvm::any_of(loads, [](Prefetched &p) { return p.byTMA(); });
    std::optional<Slice> slice = sliceOf(loop, roots);
    if (!slice)
      return;
    unsigned stages = numStages;
    // How many iterations ahead the copies run. A wgmma left in flight at the end of an iteration still reads
    // its slot while the next iteration's copies are issued, so with asynchronous dots the copies go one
    // iteration less far ahead (into the slot of the iteration before last, which every warpgroup has waited
    // for before the barrier at the top of the loop).
    SmallVector<LocalAllocOp> rewritten = rewrittenBuffers(loop, loads);
    SmallVector<brickgpu::WarpGroupDotOp> inFlight =
        stages >= 3 ? asyncDots(loop, loads, rewritten) : SmallVector<brickgpu::WarpGroupDotOp>();
    unsigned ahead = inFlight.empty() ? stages - 1 : stages - 2;
    Location loc = loop.getLoc();
    MLIRContext *context = loop.getContext();
    Type ivType = loop.getInductionVar().getType();
    OpBuilder b(loop);
    auto constant = [&](OpBuilder &builder, Type type, int64_t value) -> Value {
      return arith::ConstantOp::create(builder, loc, type, builder.getIntegerAttr(type, value));
    };
    // The iteration `ahead` iterations after `iv`.
    auto iterationAhead = [&](OpBuilder &builder, Value iv, int64_t ahead) -> Value {
      if (ahead == 0)
        return iv;
      Value distance = arith::MulIOp::create(builder, loc, loop.getStep(), constant(builder, ivType, ahead));
      return arith::AddIOp::create(builder, loc, iv, distance);
    };

    for (Prefetched &p : loads) {
      MemDescType slot = p.alloc.getType();
      SmallVector<int64_t> shape{int64_t(stages)};
      llvm::append_range(shape, slot.getShape());
      auto ringType = MemDescType::get(context, shape, slot.getElementType(), slot.getEncoding());
      p.ring = LocalAllocOp::create(b, p.alloc.getLoc(), ringType, Value()); // the dot's line, for errors
    }
    // One mbarrier per slot for the TMA copies, and the bytes they bring each iteration.
    Value barriers;
    brickgpu::MemDescType barrierType;
    int64_t tmaBytes = 0;
    if (anyTMA) {
      auto encoding = brickgpu::SharedEncodingAttr::get(context, 1, 1, 1, {0});
      barrierType = MemDescType::get(context, {1}, b.getI64Type(), encoding);
      barriers = LocalAllocOp::create(b, loc, MemDescType::get(context, {int64_t(stages), 1}, b.getI64Type(), encoding),
                                      Value());
      for (Prefetched &p : loads)
        if (p.byTMA())
          tmaBytes += p.alloc.getType().getNumElements() * getSharedElementBytes(p.alloc.getType().getElementType());
    }

    // Copies of iteration `iv` (the slice evaluated under `map`) into slot `slot` of each ring, one group.
    auto issue = [&](OpBuilder &builder, IRMapping &map, Value inductionVar, Value iv, Value slot) {
      map.map(inductionVar, iv);
      for (Operation *op : slice->ops)
        builder.clone(*op, map);
      Value inRange = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::slt, iv, loop.getUpperBound());
      Value barrier;
      if (anyTMA) {
        barrier = brickgpu::MemDescIndexOp::create(builder, loc, barrierType, barriers, slot);
        brickgpu::BarrierExpectOp::create(builder, loc, barrier, tmaBytes, inRange);
      }
      for (Prefetched &p : loads) {
        if (auto load = dyn_cast<DescriptorLoadOp>(p.load)) {
          Value buffer = brickgpu::MemDescIndexOp::create(builder, loc, p.alloc.getType(), p.ring, slot);
          auto desc = load.getDesc().getDefiningOp<MakeTensorDescriptorOp>();
          SmallVector<Value> indices =
              llvm::map_to_vector(load.getIndices(), [&](Value index) { return map.lookupOrDefault(index); });
          brickgpu::AsyncTMACopyGlobalToLocalOp::create(builder, loc, desc.getMap(), indices, buffer, barrier, inRange,
                                                        /*multicast=*/Value());
          continue;
        }
        auto load = cast<LoadOp>(p.load);
        Value pointers = map.lookupOrDefault(load.getPtr());
        auto maskType = RankedTensorType::get(cast<RankedTensorType>(pointers.getType()).getShape(),
                                              builder.getI1Type(), cast<RankedTensorType>(pointers.getType()).getEncoding());
        Value mask = SplatOp::create(builder, loc, maskType, inRange);
        if (load.getMask())
          mask = arith::AndIOp::create(builder, loc, map.lookupOrDefault(load.getMask()), mask);
        Value buffer = brickgpu::MemDescIndexOp::create(builder, loc, p.alloc.getType(), p.ring, slot);
        brickgpu::AsyncCopyGlobalToLocalOp::create(builder, loc, pointers, buffer, mask);
      }
      if (anyCopies)
        brickgpu::AsyncCommitGroupOp::create(builder, loc);
    };
    // The loop-carried values of the iteration after the one `map` evaluates (`carried(i)` is the block
    // argument of loop value i).
    SmallVector<Value> yieldedValues(loop.getYieldedValues());
    auto advance = [&](IRMapping &map, function_ref<Value(unsigned)> carried) {
      SmallVector<Value> next;
      for (unsigned index : slice->carried)
        next.push_back(map.lookupOrDefault(yieldedValues[index]));
      for (auto [index, value] : llvm::zip(slice->carried, next))
        map.map(carried(index), value);
      return next;
    };

    // Prologue: iterations 0 .. S-2. The ring may reuse bytes that something before the loop still reads: every
    // thread is done with those before any copy lands.
    brickgpu::BarrierOp::create(b, loc);
    if (anyTMA) {
      for (unsigned stage = 0; stage < stages; ++stage)
        brickgpu::InitBarrierOp::create(
            b, loc, brickgpu::MemDescIndexOp::create(b, loc, barrierType, barriers, constant(b, b.getI32Type(), stage)),
            1);
      brickgpu::BarrierOp::create(b, loc); // every thread sees them initialized
    }
    IRMapping prologue;
    for (unsigned index : slice->carried)
      prologue.map(loop.getRegionIterArg(index), loop.getInitArgs()[index]);
    SmallVector<Value> aheadValues;
    for (unsigned stage = 0; stage < ahead; ++stage) {
      issue(b, prologue, loop.getInductionVar(), iterationAhead(b, loop.getLowerBound(), stage),
            constant(b, b.getI32Type(), stage));
      aheadValues = advance(prologue, [&](unsigned i) { return loop.getRegionIterArg(i); });
    }

    // The loop, carrying the values of iteration i + ahead and the slot iteration i reads.
    SmallVector<Value> inits(loop.getInitArgs());
    llvm::append_range(inits, aheadValues);
    inits.push_back(constant(b, b.getI32Type(), 0));
    if (anyTMA)
      inits.push_back(constant(b, b.getI32Type(), 0)); // the parity of slot 0's first phase
    auto pipelined = scf::ForOp::create(b, loc, loop.getLowerBound(), loop.getUpperBound(), loop.getStep(), inits);
    Block *body = pipelined.getBody();
    if (!body->empty())
      body->getTerminator()->erase();
    body->getOperations().splice(body->end(), loop.getBody()->getOperations());
    unsigned original = loop.getNumRegionIterArgs();
    loop.getInductionVar().replaceAllUsesWith(pipelined.getInductionVar());
    for (unsigned i = 0; i < original; ++i)
      loop.getRegionIterArg(i).replaceAllUsesWith(pipelined.getRegionIterArg(i));
    // A loop value may yield another one (or the induction variable) as it is: the new loop's now.
    for (Value &value : yieldedValues)
      if (auto argument = dyn_cast<BlockArgument>(value); argument && argument.getOwner() == loop.getBody())
        value = pipelined.getBody()->getArgument(argument.getArgNumber());
    Value readSlot = body->getArgument(pipelined.getNumInductionVars() + original + aheadValues.size());
    Value phase = anyTMA ? body->getArguments().back() : Value();

    OpBuilder inside = OpBuilder::atBlockBegin(body);
    if (anyCopies)
      brickgpu::AsyncWaitOp::create(inside, loc, ValueRange{}, ahead - 1);
    brickgpu::BarrierOp::create(inside, loc);
    Value last = constant(inside, inside.getI32Type(), stages - 1);
    Value zero = constant(inside, inside.getI32Type(), 0);
    Value one = constant(inside, inside.getI32Type(), 1);
    // (slot + ahead) % S, without a remainder.
    Value sum = arith::AddIOp::create(inside, loc, readSlot, constant(inside, inside.getI32Type(), ahead));
    Value wraps = arith::CmpIOp::create(inside, loc, arith::CmpIPredicate::sge, sum,
                                        constant(inside, inside.getI32Type(), stages));
    Value writeSlot = arith::SelectOp::create(inside, loc, wraps,
                                              arith::SubIOp::create(inside, loc, sum, constant(inside, inside.getI32Type(), stages)),
                                              sum);
    IRMapping steady;
    for (auto [i, index] : llvm::enumerate(slice->carried))
      steady.map(pipelined.getRegionIterArg(index), pipelined.getRegionIterArg(original + i));
    issue(inside, steady, pipelined.getInductionVar(), iterationAhead(inside, pipelined.getInductionVar(), ahead),
          writeSlot);
    SmallVector<Value> aheadNext = advance(steady, [&](unsigned i) { return pipelined.getRegionIterArg(i); });
    if (anyTMA) {
      // This iteration's copies (issued `ahead` iterations ago) have landed once its slot's phase completes.
      Value barrier = brickgpu::MemDescIndexOp::create(inside, loc, barrierType, barriers, readSlot);
      brickgpu::WaitBarrierOp::create(inside, loc, barrier, phase, ValueRange{});
    }

    // With dots in flight, a buffer written from registers every iteration becomes two, taken in turn: this
    // iteration writes the one the dot of two iterations ago read, which the wait after the last dot finished.
    SmallVector<Value> doubled;
    if (!inFlight.empty()) {
      OpBuilder before(pipelined);
      for (LocalAllocOp alloc : rewritten) {
        MemDescType slotType = alloc.getType();
        SmallVector<int64_t> shape{2};
        llvm::append_range(shape, slotType.getShape());
        Value pair = LocalAllocOp::create(
            before, alloc.getLoc(), MemDescType::get(context, shape, slotType.getElementType(), slotType.getEncoding()),
            Value());
        doubled.push_back(pair);
        OpBuilder at(alloc);
        Value iv = pipelined.getInductionVar();
        Value count = arith::DivSIOp::create(at, loc, arith::SubIOp::create(at, loc, iv, pipelined.getLowerBound()),
                                             pipelined.getStep());
        Value parity = arith::AndIOp::create(at, loc, count, constant(at, ivType, 1));
        if (ivType.isIndex())
          parity = arith::IndexCastOp::create(at, loc, at.getI32Type(), parity);
        else if (ivType.getIntOrFloatBitWidth() > 32)
          parity = arith::TruncIOp::create(at, loc, at.getI32Type(), parity);
        else if (ivType.getIntOrFloatBitWidth() < 32)
          parity = arith::ExtUIOp::create(at, loc, at.getI32Type(), parity);
        Value slot = brickgpu::MemDescIndexOp::create(at, loc, slotType, pair, parity);
        brickgpu::LocalStoreOp::create(at, loc, alloc.getSrc(), slot);
        alloc.replaceAllUsesWith(slot);
        alloc.erase();
      }
    }

    for (Prefetched &p : loads) {
      OpBuilder at(p.alloc);
      Value slot = brickgpu::MemDescIndexOp::create(at, loc, p.alloc.getType(), p.ring, readSlot);
      p.alloc.replaceAllUsesWith(slot);
      p.alloc.erase();
      p.load->erase();
    }
    Operation *yield = body->getTerminator();
    OpBuilder atEnd(yield);
    SmallVector<Value> yielded(yield->getOperands());
    llvm::append_range(yielded, aheadNext);
    Value readsLast = arith::CmpIOp::create(atEnd, loc, arith::CmpIPredicate::eq, readSlot, last);
    yielded.push_back(arith::SelectOp::create(atEnd, loc, readsLast, zero, arith::AddIOp::create(atEnd, loc, readSlot, one)));
    if (anyTMA) // the next pass over the ring waits for the other parity
      yielded.push_back(arith::SelectOp::create(atEnd, loc, readsLast, arith::XOrIOp::create(atEnd, loc, phase, one), phase));
    scf::YieldOp::create(atEnd, loc, yielded);
    yield->erase();

    // Asynchronous dots: each iteration waits for all but its own dot, passing the accumulator through the wait;
    // after the loop, for the last one.
    OpBuilder after(loop->getBlock(), std::next(Block::iterator(loop)));
    SmallVector<std::pair<unsigned, Value>> finished; // loop result index, its value after the wait
    for (brickgpu::WarpGroupDotOp dot : inFlight) {
      dot.setIsAsync(true);
      OpBuilder next(dot->getBlock(), std::next(Block::iterator(dot)));
      // All but the loop's dots issued since this one's previous iteration may stay pending: that one is done
      // before the next copy overwrites the slots it read.
      auto wait = brickgpu::WarpGroupDotWaitOp::create(next, loc, dot.getResult().getType(), ValueRange{dot.getResult()},
                                                       inFlight.size());
      dot.getResult().replaceAllUsesExcept(wait.getResult(0), wait);
      unsigned index = cast<BlockArgument>(dot.getC()).getArgNumber() - 1;
      auto last = brickgpu::WarpGroupDotWaitOp::create(after, loc, dot.getResult().getType(),
                                                       ValueRange{pipelined.getResult(index)}, 0);
      finished.emplace_back(index, last.getResult(0));
    }

    // Drain: no copy may land after the ring's bytes are given to something else.
    SmallVector<Value> rings = llvm::map_to_vector(loads, [](Prefetched &p) { return p.ring; });
    llvm::append_range(rings, doubled); // read by the last dot, which the wait before this finished
    if (anyCopies)
      brickgpu::AsyncWaitOp::create(after, loc, rings, 0);
    brickgpu::BarrierOp::create(after, loc);
    // Every TMA copy issued was waited for in its iteration (those past the end were never issued).
    if (anyTMA)
      for (unsigned stage = 0; stage < stages; ++stage)
        brickgpu::InvalidateBarrierOp::create(
            after, loc, brickgpu::MemDescIndexOp::create(after, loc, barrierType, barriers, constant(after, after.getI32Type(), stage)));
    loop.replaceAllUsesWith(pipelined.getResults().take_front(original));
    for (auto [index, value] : finished)
      pipelined.getResult(index).replaceAllUsesExcept(value, value.getDefiningOp());
    loop.erase();
  }
};
} // namespace
} // namespace mlir::brick
