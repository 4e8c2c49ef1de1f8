//===- WarpSpecialize.cpp - brickgpu-warp-specialize: a TMA producer, wgmma consumers --------===//
//
// A K loop that multiplies descriptor blocks on wgmma splits into two loops over the same iterations, run by
// different warps. One producer warpgroup (4 extra warps) keeps a ring of num-stages slots filled: it waits until
// the consumers have released a slot (its "empty" mbarrier), expects the blocks' bytes on the slot's "full"
// mbarrier and issues the TMA copies. The consumer warpgroups (the kernel's own warps) wait on "full", start the
// slot's first wgmma, wait for the previous iteration's, release the previous slot, then start the slot's other
// wgmmas (an MoE tile's up after its gate). No barrier over all threads is left in
// the loop, the copies run as far ahead as the ring allows, and registers move from the producers (which only
// issue copies) to the consumers (which hold the accumulators) with setmaxnreg.
//
// The K loop may sit in a persistent tile loop (an scf.for at the kernel's top level, over the tiles a program
// takes). The producer then runs that loop too, computing each tile's coordinates, and the ring's slot and
// phase carry on from tile to tile: the producer fills the next tile's slots while the consumers store this one.
// Where the tile ends with a descriptor store, the consumers store its block during the next tile's K loop, a TMA
// box per K step beside the wgmmas, rather than between two K loops, where the tensor cores wait for it.
//
//===----------------------------------------------------------------------===//

#include "brick/Analysis/SharedMemory.h"
#include "brick/Runtime/TensorMap.h"
#include "brick/Dialect/BrickGPU/BrickGPUDialect.h"
#include "brick/Transforms/Passes.h"

#include "PipelineUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/STLExtras.h"

namespace mlir::brick {
#define GEN_PASS_DEF_BRICKGPUWARPSPECIALIZE
#include "brick/Transforms/Passes.h.inc"

namespace {
using brickgpu::LocalAllocOp;
using brickgpu::MemDescType;

constexpr unsigned kProducerWarps = 4, kProducerRegisters = 40;
constexpr unsigned kRegistersPerSM = 65536, kMaxThreads = 1024;

/// What the consumers raise their registers to once the producers drop theirs to kProducerRegisters, or none.
/// A program starts with ptxas's count for its size (.maxntid): the SM's registers over its threads, in steps of
/// 8; setmaxnreg moves registers within the program, so the producers' release pays for the consumers' raise (8
/// consumer warps: 168 each at the start, 40 and 232 after). With 256 threads or fewer every thread may have 255
/// from the start: ptxas has no count to start from and ignores setmaxnreg (C7508), so there is none to ask for.
/// A raise past what the program has would wait forever.
std::optional<unsigned> consumerRegisters(unsigned consumerWarps) {
  unsigned threads = 32 * (consumerWarps + kProducerWarps);
  if (threads * 256 <= kRegistersPerSM)
    return std::nullopt;
  unsigned start = kRegistersPerSM / threads / 8 * 8;
  unsigned raised = (start * threads - 32 * kProducerWarps * kProducerRegisters) / (32 * consumerWarps) / 8 * 8;
  if (raised <= start)
    return std::nullopt;
  return std::min(raised, 256u); // setmaxnreg's most
}

/// A loop the pass takes: its TMA blocks (and the buffers they fill), its dots, and what computes the blocks'
/// coordinates.
struct LoopPlan {
  scf::ForOp loop;
  SmallVector<std::pair<DescriptorLoadOp, LocalAllocOp>> loads;
  SmallVector<brickgpu::WarpGroupDotOp> dots;
  Slice slice;
  /// The dots read ring slots only and only accumulate across iterations (a K loop): they stay in flight, and
  /// an iteration releases the slot before its own. Otherwise (attention's Q K^T and P V, whose results the
  /// iteration's softmax reads) each dot completes where it is, and an iteration releases its slot after its
  /// last dot.
  bool inFlight = false;
};

/// What the pass splits: a K loop (in a tile loop, or alone), or a sequence of loops at the kernel's top level
/// that fill the same rings (attention's masked and unmasked key blocks), the producer running them in turn.
struct Plan {
  SmallVector<LoopPlan, 1> loops;
  scf::ForOp outer;
  Slice outerSlice; // what computes the K loop's bounds and the coordinates' tile parts
  /// Ops before the split that the producer does not need and that touch memory (attention's load of Q): they
  /// move after it, so that only the consumers run them.
  SmallVector<Operation *> consumersOnly;
};

/// A load of one scalar: every thread reads the same address, whichever warp it is in (an MoE block's expert).
bool scalarLoad(Operation *op) {
  auto load = dyn_cast<LoadOp>(op);
  return load && !load.getIsVolatile() && !isa<RankedTensorType>(load.getType());
}

/// A scalar load that gives the same value wherever in the kernel it runs (readsWhatTheKernelNeverWrites): the
/// producer warps may run it ahead of the consumers, in a later tile than the consumers' stores.
bool invariantScalarLoad(Operation *op) { return scalarLoad(op) && readsWhatTheKernelNeverWrites(cast<LoadOp>(op)); }

/// Whether `op` and the ops it holds leave memory alone (but for scalar loads where `scalars`) and synchronize
/// nothing (no scratch buffer): the producer warps may run it, or it may sit in a loop that the split keeps.
bool quietOp(Operation *op, bool scalars) {
  return !op->walk([&](Operation *inner) {
              return (isMemoryEffectFree(inner) || (scalars && scalarLoad(inner))) && getScratchBytes(inner) == 0
                         ? WalkResult::advance()
                         : WalkResult::interrupt();
            }).wasInterrupted();
}

/// Whether every op of `range` is quiet, scalar loads allowed.
bool quiet(llvm::iterator_range<Block::iterator> range) {
  return llvm::all_of(range, [](Operation &op) { return quietOp(&op, /*scalars=*/true); });
}

/// A plain load (a block's scales, read a step ahead): the consumers run it in their loop as before the split;
/// the producer never does (sliceOf keeps loads out of what computes its coordinates).
bool readOnlyLoad(Operation *op) {
  auto load = dyn_cast<LoadOp>(op);
  return load && !load.getIsVolatile();
}

/// `loop`'s plan, where its body copies descriptor blocks into their TMA buffers, multiplies them on wgmma and
/// otherwise computes in registers, or, where `plainLoads`, reads memory with plain loads (a loop of the
/// sequence form: a K loop in a tile loop may have the previous tile's store moved into it, after such loads).
std::optional<LoopPlan> planLoop(scf::ForOp loop, bool plainLoads) {
  if (loop.getUnsignedCmp())
    return std::nullopt;
  LoopPlan plan;
  plan.loop = loop;
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (auto load = dyn_cast<DescriptorLoadOp>(op)) {
      LocalAllocOp alloc = tmaTarget(load);
      if (!alloc)
        return std::nullopt;
      plan.loads.push_back({load, alloc});
    } else if (auto alloc = dyn_cast<LocalAllocOp>(op)) {
      if (!alloc.getSrc() || !alloc.getSrc().getDefiningOp<DescriptorLoadOp>())
        return std::nullopt;
    } else if (auto dot = dyn_cast<brickgpu::WarpGroupDotOp>(op)) {
      plan.dots.push_back(dot);
    } else if (!quietOp(&op, /*scalars=*/false) && !(plainLoads && readOnlyLoad(&op))) {
      return std::nullopt;
    }
  }
  if (plan.loads.empty() || plan.dots.empty())
    return std::nullopt;
  auto inRing = [&](Value operand) {
    return llvm::any_of(plan.loads,
                        [&](auto &entry) { return entry.second.getResult() == brickgpu::underlyingBuffer(operand); });
  };
  // In flight: each dot reads ring slots only (no A in registers) and only accumulates across iterations.
  plan.inFlight = llvm::all_of(plan.dots, [&](brickgpu::WarpGroupDotOp dot) {
    auto carried = dyn_cast<BlockArgument>(dot.getC());
    return !isa<RankedTensorType>(dot.getA().getType()) && inRing(dot.getA()) && inRing(dot.getB()) && carried &&
           carried.getOwner() == loop.getBody() && carried != loop.getInductionVar() && carried.hasOneUse() &&
           dot->hasOneUse() && isa<scf::YieldOp>(*dot->getUsers().begin()) &&
           loop.getYieldedValues()[carried.getArgNumber() - 1] == dot.getResult();
  });
  // Otherwise a buffer a dot reads is a ring slot or made before the loop (attention's Q).
  for (brickgpu::WarpGroupDotOp dot : plan.dots)
    for (Value operand : {Value(dot.getA()), Value(dot.getB())})
      if (isa<MemDescType>(operand.getType()) && !inRing(operand) &&
          !loop.isDefinedOutsideOfLoop(brickgpu::underlyingBuffer(operand)))
        return std::nullopt;
  SmallVector<Value> roots;
  for (auto &[load, alloc] : plan.loads) {
    llvm::append_range(roots, load.getIndices());
    if (Value shared = load.getSharedByCluster())
      roots.push_back(shared);
  }
  std::optional<Slice> slice = sliceOf(loop, roots);
  if (!slice)
    return std::nullopt;
  plan.slice = std::move(*slice);
  return plan;
}

/// What the producer reads of the kernel outside `loop`: its bounds, the starts of the values its copies'
/// coordinates carry, the coordinates' other parts and the descriptors.
SmallVector<Value> producerInputs(LoopPlan &plan) {
  scf::ForOp loop = plan.loop;
  SmallVector<Value> inputs{loop.getLowerBound(), loop.getUpperBound(), loop.getStep()};
  for (unsigned index : plan.slice.carried)
    inputs.push_back(loop.getInitArgs()[index]);
  for (Operation *op : plan.slice.ops)
    for (Value operand : op->getOperands())
      if (loop.isDefinedOutsideOfLoop(operand))
        inputs.push_back(operand);
  for (auto &[load, alloc] : plan.loads) {
    for (Value index : load.getIndices())
      if (loop.isDefinedOutsideOfLoop(index))
        inputs.push_back(index);
    if (Value shared = load.getSharedByCluster(); shared && loop.isDefinedOutsideOfLoop(shared))
      inputs.push_back(shared);
    inputs.push_back(load.getDesc());
  }
  return inputs;
}

/// A K loop that keeps its dots in flight, at the kernel's top level or in a tile loop there.
std::optional<Plan> planFor(func::FuncOp kernel, scf::ForOp loop) {
  Block *entry = &kernel.getBody().front();
  auto outer = dyn_cast<scf::ForOp>(loop->getParentOp());
  if (!(loop->getBlock() == entry || (outer && outer->getBlock() == entry)))
    return std::nullopt;
  if (outer && outer.getUnsignedCmp())
    return std::nullopt;
  std::optional<LoopPlan> loopPlan = planLoop(loop, /*plainLoads=*/false);
  if (!loopPlan || !loopPlan->inFlight)
    return std::nullopt;
  Plan plan;
  plan.loops.push_back(std::move(*loopPlan));
  plan.outer = outer;
  // The producer warps run everything before the (outermost) loop too: nothing there may touch memory or
  // synchronize.
  Operation *top = outer ? outer.getOperation() : loop.getOperation();
  if (!quiet(llvm::make_range(entry->begin(), Block::iterator(top))))
    return std::nullopt;
  if (outer) {
    // In the tile loop, the producer recomputes what the K loop's bounds, its carried values' starts and the
    // coordinates take from the tile loop's body: side-effect free but for scalar loads of what the kernel does
    // not write (an MoE tile's expert), and not carried from tile to tile.
    SmallVector<Value> roots;
    for (Value input : producerInputs(plan.loops.front()))
      if (input.getParentBlock() == outer.getBody())
        roots.push_back(input);
    std::optional<Slice> tile = sliceOf(outer, roots, invariantScalarLoad);
    if (!tile || !tile->carried.empty())
      return std::nullopt;
    plan.outerSlice = std::move(*tile);
  }
  return plan;
}

/// The loops at the kernel's top level, in order, when each takes the split (in flight or not) and all fill
/// rings of the same buffers: the producer runs them in turn, carrying the ring's slot and phase from one to the
/// next. What the producer reads must be made before the first loop, by ops that leave memory alone but for
/// scalar loads; the other ops before it that read memory, and what uses their results, move after the split.
std::optional<Plan> planSequence(func::FuncOp kernel) {
  Block *entry = &kernel.getBody().front();
  Plan plan;
  for (auto loop : entry->getOps<scf::ForOp>()) {
    std::optional<LoopPlan> loopPlan = planLoop(loop, /*plainLoads=*/true);
    if (!loopPlan)
      return std::nullopt;
    plan.loops.push_back(std::move(*loopPlan));
  }
  if (plan.loops.empty())
    return std::nullopt;
  auto buffers = [](LoopPlan &loop) {
    return llvm::map_to_vector(loop.loads, [](auto &entry) { return entry.second.getType(); });
  };
  for (LoopPlan &loop : plan.loops) {
    if (buffers(loop) != buffers(plan.loops.front()))
      return std::nullopt;
    for (auto &[load, alloc] : loop.loads)
      if (load.getSharedByCluster())
        return std::nullopt; // multicast takes a K loop alone
  }
  // The ops before the first loop that the producer's inputs come from.
  Operation *first = plan.loops.front().loop;
  llvm::SmallPtrSet<Operation *, 32> needed;
  SmallVector<Value> worklist;
  for (LoopPlan &loop : plan.loops)
    llvm::append_range(worklist, producerInputs(loop));
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    if (auto argument = dyn_cast<BlockArgument>(value)) {
      if (argument.getOwner() != entry)
        return std::nullopt;
      continue;
    }
    Operation *op = value.getDefiningOp();
    if (op->getBlock() != entry || !op->isBeforeInBlock(first))
      return std::nullopt; // made between the loops, or by one of them
    if (needed.insert(op).second)
      llvm::append_range(worklist, op->getOperands());
  }
  // What moves: the ops that touch memory and what reads their results (in order, so users follow). They may
  // read memory, not write it: the producer, running ahead, would copy blocks before such a write.
  llvm::SmallPtrSet<Operation *, 8> moved;
  auto readsMoved = [&](Operation *op) {
    return op->walk([&](Operation *inner) {
                for (Value operand : inner->getOperands())
                  if (Operation *def = operand.getDefiningOp(); def && moved.contains(def))
                    return WalkResult::interrupt();
                return WalkResult::advance();
              }).wasInterrupted();
  };
  auto writes = [](Operation *op) {
    return op->walk([](Operation *inner) {
                auto effects = dyn_cast<MemoryEffectOpInterface>(inner);
                return (effects ? effects.hasEffect<MemoryEffects::Write>()
                                : !inner->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
                           ? WalkResult::interrupt()
                           : WalkResult::advance();
              }).wasInterrupted();
  };
  for (Operation &op : llvm::make_range(entry->begin(), Block::iterator(first))) {
    if (!needed.contains(&op)) {
      if (!quietOp(&op, /*scalars=*/false) || readsMoved(&op)) {
        if (writes(&op))
          return std::nullopt;
        moved.insert(&op);
        plan.consumersOnly.push_back(&op);
      }
    } else if (!quietOp(&op, /*scalars=*/false) && !invariantScalarLoad(&op)) {
      return std::nullopt; // the producer runs it ahead of, or beside, whatever the consumers write
    }
  }
  // Nor may anything between the loops write memory.
  Operation *last = plan.loops.back().loop;
  if (last != first)
    for (Operation &op : llvm::make_range(std::next(Block::iterator(first)), Block::iterator(last)))
      if (!isa<scf::ForOp>(op) && writes(&op))
        return std::nullopt;
  return plan;
}

/// Whether the cluster's programs can share `load`'s block into `alloc`, a program copying every clusterSize-th
/// TMA box of it (a block of fewer boxes is copied whole by each).
bool multicastable(DescriptorLoadOp load, LocalAllocOp alloc, unsigned clusterSize) {
  if (clusterSize < 2 || !load.getSharedByCluster())
    return false;
  MemDescType type = alloc.getType();
  unsigned bytes = std::max(1u, type.getElementType().getIntOrFloatBitWidth() / 8);
  int64_t boxes = ::brick::runtime::tmaBoxCount(type.getShape()[0], type.getShape()[1], bytes);
  return boxes > 0 && boxes % clusterSize == 0;
}

/// `loop` rebuilt with more loop values (starting at `values`), its body moved over; `loop` is erased and its
/// results replaced. The new body's terminator still yields the old values.
scf::ForOp withLoopValues(OpBuilder &b, scf::ForOp &loop, ValueRange values) {
  SmallVector<Value> inits(loop.getInitArgs());
  llvm::append_range(inits, values);
  auto rebuilt = scf::ForOp::create(b, loop.getLoc(), loop.getLowerBound(), loop.getUpperBound(), loop.getStep(), inits);
  Block *body = rebuilt.getBody();
  if (!body->empty())
    body->getTerminator()->erase();
  body->getOperations().splice(body->end(), loop.getBody()->getOperations());
  loop.getInductionVar().replaceAllUsesWith(rebuilt.getInductionVar());
  for (unsigned i = 0; i < loop.getNumRegionIterArgs(); ++i)
    loop.getRegionIterArg(i).replaceAllUsesWith(rebuilt.getRegionIterArg(i));
  loop.replaceAllUsesWith(rebuilt.getResults().take_front(loop.getNumResults()));
  loop.erase();
  loop = rebuilt;
  return rebuilt;
}

/// The store that ends each tile of the consumers' tile loop, where it may wait for the next tile: the loop's
/// only store, right before its yield, of a 2-D block through a descriptor made outside the loop; the tile's other
/// ops, but for its K loop and the waits and releases this pass put after it, write nothing and read only scalars
/// nothing in the kernel writes.
DescriptorStoreOp storeEndingEachTile(scf::ForOp tiles, scf::ForOp kLoop) {
  Block *body = tiles.getBody();
  auto store = dyn_cast_or_null<DescriptorStoreOp>(body->getTerminator()->getPrevNode());
  if (!store || store.getIndices().size() != 2 ||
      !store.getDesc().getParentRegion()->isProperAncestor(&tiles.getRegion()))
    return {};
  for (Operation &op : body->without_terminator()) {
    if (&op == store.getOperation() || &op == kLoop.getOperation())
      continue;
    bool writesOrReads = op.walk([](Operation *inner) {
                             return isMemoryEffectFree(inner) || invariantScalarLoad(inner) ||
                                            isa<brickgpu::WarpGroupDotWaitOp, brickgpu::BarrierArriveOp>(inner)
                                        ? WalkResult::advance()
                                        : WalkResult::interrupt();
                           }).wasInterrupted();
    if (writesOrReads)
      return {};
  }
  return store;
}

/// Moves what computes `values` inside `loop` (speculatable, side-effect free ops of its body that read neither
/// its induction variable nor what it carries) before the loop. Whether every value is then defined outside it.
bool hoistDefinitions(scf::ForOp loop, ValueRange values) {
  std::optional<Slice> slice = sliceOf(loop, llvm::to_vector(values));
  if (!slice || !slice->carried.empty() || llvm::any_of(slice->ops, [&](Operation *op) {
        return !isPure(op) || llvm::is_contained(op->getOperands(), loop.getInductionVar());
      }))
    return false;
  for (Operation *op : slice->ops) // in body order
    op->moveBefore(loop);
  return llvm::all_of(values, [&](Value value) { return loop.isDefinedOutsideOfLoop(value); });
}

/// The K step each of `windows` store windows goes in, lower bound + min(c, steps - 1) * step, and whether the K
/// loop has no steps; built before the tile loop (`b`), `step` being the K loop's constant step.
std::pair<SmallVector<Value>, Value> windowSteps(OpBuilder &b, scf::ForOp kLoop, int64_t step, int64_t windows) {
  Location loc = kLoop.getLoc();
  Type indexType = kLoop.getInductionVar().getType();
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(indexType, value));
  };
  Value lower = kLoop.getLowerBound();
  Value span = arith::SubIOp::create(b, loc, kLoop.getUpperBound(), lower);
  Value steps = arith::DivSIOp::create(b, loc, arith::AddIOp::create(b, loc, span, constant(step - 1)), constant(step));
  Value lastStep = arith::SubIOp::create(b, loc, steps, constant(1));
  SmallVector<Value> stepOfWindow;
  for (int64_t c = 0; c < windows; ++c) {
    Value index = arith::MinSIOp::create(b, loc, constant(c), lastStep);
    stepOfWindow.push_back(arith::AddIOp::create(b, loc, lower, arith::MulIOp::create(b, loc, index, constant(step))));
  }
  return {stepOfWindow, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, steps, constant(0))};
}

/// The consumers store each tile's block while the next tile's K loop runs, a TMA store window (a swizzle span of
/// columns, brickgpu-lower-descriptor-stores) per K step, right `after` the step's wgmmas are issued: the block's
/// registers go to shared memory and TMA while the tensor cores work, not in a gap between two tiles' K loops. The
/// tile loop carries the block, its coordinates and whether it waits to be stored; window c goes in K step
/// min(c, last). The last tile stores its block at its end, and so does every tile when the K loop has no steps:
/// the K loop's bounds must be the same for every tile (and its step a constant), or a tile without steps would
/// have to store the block before it too, a second store site that ptxas takes 50 ms more over. Registers: the
/// block (a 16-bit 128x256 tile is 64 a thread over two warpgroups) lives through the K loop beside the accumulator.
void storeDuringNextTile(scf::ForOp &tiles, scf::ForOp kLoop, Operation *after) {
  DescriptorStoreOp store = storeEndingEachTile(tiles, kLoop);
  if (!store)
    return;
  Value block = store.getValue();
  auto convert = block.getDefiningOp<brickgpu::ConvertLayoutOp>();
  if (convert) // the store writes the block from the registers it was computed in: carry those
    block = convert.getSrc();
  auto type = cast<RankedTensorType>(block.getType());
  int64_t window = tmaStoreWindowColumns(type);
  std::optional<int64_t> step = getConstantIntValue(kLoop.getStep());
  if (window == 0 || type.getDimSize(1) % window != 0 || !step || *step < 1 ||
      !hoistDefinitions(tiles, {kLoop.getLowerBound(), kLoop.getUpperBound()}))
    return;
  Location loc = store.getLoc();
  auto storeBlock = [&](OpBuilder &b, Value condition, Value value, ValueRange at, std::optional<int64_t> only) {
    auto branch = scf::IfOp::create(b, loc, condition, /*withElseRegion=*/false);
    OpBuilder then = OpBuilder::atBlockBegin(branch.thenBlock());
    auto write = DescriptorStoreOp::create(then, loc, store.getDesc(), at, value);
    if (only)
      write->setAttr(kStoreWindowAttrName, then.getI64IntegerAttr(*only));
  };

  OpBuilder b(tiles);
  auto [stepOfWindow, noSteps] = windowSteps(b, kLoop, *step, type.getDimSize(1) / window);
  // The tile loop's new values: the block, its row and column, and whether it waits to be stored.
  SmallVector<Value> starts{arith::ConstantOp::create(b, loc, type, cast<TypedAttr>(b.getZeroAttr(type)))};
  for (Value index : store.getIndices())
    starts.push_back(arith::ConstantOp::create(b, loc, b.getIntegerAttr(index.getType(), 0)));
  starts.push_back(arith::ConstantOp::create(b, loc, b.getBoolAttr(false)));
  unsigned first = tiles.getNumRegionIterArgs();
  withLoopValues(b, tiles, starts);
  Value pending = tiles.getRegionIterArg(first);
  SmallVector<Value> pendingAt{tiles.getRegionIterArg(first + 1), tiles.getRegionIterArg(first + 2)};
  Value waiting = tiles.getRegionIterArg(first + 3);

  OpBuilder in(after->getBlock(), std::next(Block::iterator(after)));
  for (auto [c, at] : llvm::enumerate(stepOfWindow)) {
    Value now = arith::CmpIOp::create(in, loc, arith::CmpIPredicate::eq, kLoop.getInductionVar(), at);
    storeBlock(in, arith::AndIOp::create(in, loc, waiting, now), pending, pendingAt, c);
  }

  // This tile's block waits for the next tile's K steps, if there are any and a next tile.
  Operation *yield = tiles.getBody()->getTerminator();
  OpBuilder atEnd(yield);
  Value left = arith::SubIOp::create(atEnd, loc, tiles.getUpperBound(), tiles.getInductionVar());
  Value lastTile = arith::CmpIOp::create(atEnd, loc, arith::CmpIPredicate::sle, left, tiles.getStep());
  Value storeNow = arith::OrIOp::create(atEnd, loc, lastTile, noSteps);
  storeBlock(atEnd, storeNow, block, store.getIndices(), std::nullopt);
  SmallVector<Value> yielded(yield->getOperands());
  yielded.push_back(block);
  llvm::append_range(yielded, store.getIndices());
  yielded.push_back(arith::XOrIOp::create(atEnd, loc, storeNow,
                                          arith::ConstantOp::create(atEnd, loc, atEnd.getBoolAttr(true))));
  scf::YieldOp::create(atEnd, loc, yielded);
  yield->erase();
  store.erase();
  if (convert && convert->use_empty())
    convert.erase();
}

struct WarpSpecializePass : impl::BrickGPUWarpSpecializeBase<WarpSpecializePass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(brickgpu::verifyEveryBlockHasALayout(module, "brickgpu-warp-specialize")))
      return signalPassFailure();
    // Where the kernel stays whole, the module says why (brickgpu.warp_specialize_refused): the compiler tells a
    // user who asked for the split.
    auto refuse = [&](const Twine &why) {
      module->setAttr("brickgpu.warp_specialize_refused", StringAttr::get(&getContext(), why));
    };
    unsigned numWarps = brickgpu::BrickGPUDialect::getNumWarps(module);
    if (numStages < 2)
      return refuse("it needs num_stages >= 2 (a ring of slots), not " + Twine(numStages));
    if (numWarps % 4 != 0 || 32 * (numWarps + kProducerWarps) > kMaxThreads)
      return refuse("it needs whole consumer warpgroups and at most " + Twine(kMaxThreads) + " threads with the " +
                    Twine(kProducerWarps) + " producer warps, not " + Twine(numWarps) + " warps");
    std::optional<Plan> chosen;
    module.walk([&](func::FuncOp kernel) {
      if (chosen || !kernel->hasAttr(BrickDialect::getKernelAttrName()) || kernel.getBody().empty())
        return;
      // A K loop at the top, or in a tile loop at the top; else the top level's loops in turn.
      for (auto loop : kernel.getBody().front().getOps<scf::ForOp>()) {
        if ((chosen = planFor(kernel, loop)))
          return;
        for (auto inner : loop.getBody()->getOps<scf::ForOp>())
          if ((chosen = planFor(kernel, inner)))
            return;
      }
      chosen = planSequence(kernel);
    });
    if (!chosen)
      return refuse("no loop qualifies (a K loop at the top level, or in a tile loop at the top level, that only "
                    "copies descriptor blocks and accumulates wgmma dots; or loops at the top level that copy "
                    "descriptor blocks into rings alike, multiply on wgmma and compute in registers)");
    specialize(*chosen, numWarps);
    module->setAttr("brickgpu.producer_warps", IntegerAttr::get(IntegerType::get(&getContext(), 32), kProducerWarps));
  }

  void specialize(Plan &plan, unsigned numWarps) {
    LoopPlan &front = plan.loops.front();
    Location loc = front.loop.getLoc();
    MLIRContext *context = front.loop.getContext();
    int64_t stages = numStages;
    // Everything before the split goes before the outermost loop.
    Operation *top = plan.outer ? plan.outer.getOperation() : front.loop.getOperation();
    OpBuilder b(top);
    auto i32 = [&](OpBuilder &builder, int64_t value) -> Value {
      return arith::ConstantOp::create(builder, loc, builder.getI32IntegerAttr(value));
    };
    auto producerOnly = [](Operation *op) { op->setAttr("brickgpu.producer", UnitAttr::get(op->getContext())); };

    // Rings of the blocks' buffers and the full and empty barriers of their slots (every loop's loads fill the
    // same rings).
    SmallVector<Value> rings;
    int64_t bytes = 0;
    for (auto &[load, alloc] : front.loads) {
      MemDescType slot = alloc.getType();
      SmallVector<int64_t> shape{stages};
      llvm::append_range(shape, slot.getShape());
      rings.push_back(LocalAllocOp::create(b, alloc.getLoc(),
                                           MemDescType::get(context, shape, slot.getElementType(), slot.getEncoding()),
                                           Value()));
      bytes += slot.getNumElements() * getSharedElementBytes(slot.getElementType());
    }
    auto encoding = brickgpu::SharedEncodingAttr::get(context, 1, 1, 1, {0});
    auto barrierType = MemDescType::get(context, {1}, b.getI64Type(), encoding);
    auto barrierRing = MemDescType::get(context, {stages, 1}, b.getI64Type(), encoding);
    Value full = LocalAllocOp::create(b, loc, barrierRing, Value());
    Value empty = LocalAllocOp::create(b, loc, barrierRing, Value());
    auto slotOf = [&](OpBuilder &builder, Value ring, Value slot) -> Value {
      return brickgpu::MemDescIndexOp::create(builder, loc, barrierType, ring, slot);
    };
    // Blocks the cluster shares fill every program's slot with the boxes of all of them: a slot is free once the
    // consumers of every program in the cluster released it, and no copy may reach a program before its barriers
    // are initialized.
    unsigned clusterSize = brickgpu::BrickGPUDialect::getClusterSize(front.loop);
    SmallVector<bool> shared = llvm::map_to_vector(
        front.loads, [&](auto &entry) { return multicastable(entry.first, entry.second, clusterSize); });
    bool multicast = llvm::is_contained(shared, true);
    brickgpu::BarrierOp::create(b, loc, /*allWarps=*/true);
    for (int64_t s = 0; s < stages; ++s) {
      brickgpu::InitBarrierOp::create(b, loc, slotOf(b, full, i32(b, s)), 1);
      brickgpu::InitBarrierOp::create(b, loc, slotOf(b, empty, i32(b, s)),
                                      numWarps / 4 * (multicast ? clusterSize : 1));
    }
    if (multicast)
      brickgpu::ClusterBarrierOp::create(b, loc);
    else
      brickgpu::BarrierOp::create(b, loc, /*allWarps=*/true);

    // (slot, phase) of the next iteration: slot + 1 mod S, the phase flipped when the slot wraps.
    auto advance = [&](OpBuilder &builder, Value slot, Value phase) -> std::pair<Value, Value> {
      Value last = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq, slot, i32(builder, stages - 1));
      Value next = arith::SelectOp::create(builder, loc, last, i32(builder, 0),
                                           arith::AddIOp::create(builder, loc, slot, i32(builder, 1)));
      Value flipped = arith::XOrIOp::create(builder, loc, phase, i32(builder, 1));
      return {next, arith::SelectOp::create(builder, loc, last, flipped, phase)};
    };

    // The slot before `slot` in the ring.
    auto previousSlot = [&](OpBuilder &builder, Value slot) -> Value {
      Value first = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq, slot, i32(builder, 0));
      return arith::SelectOp::create(builder, loc, first, i32(builder, stages - 1),
                                     arith::SubIOp::create(builder, loc, slot, i32(builder, 1)));
    };

    // The producer warpgroup.
    auto specialized = brickgpu::WarpSpecializeOp::create(b, loc);
    Block *producerBlock = b.createBlock(&specialized.getProducer());
    OpBuilder p = OpBuilder::atBlockBegin(producerBlock);
    std::optional<unsigned> raised = consumerRegisters(numWarps);
    if (raised)
      brickgpu::SetMaxRegistersOp::create(p, loc, kProducerRegisters, /*increase=*/false);
    // In a tile loop, the producer runs it too (slot and phase carried), recomputing each tile's values.
    IRMapping tileMap;
    scf::ForOp producerTiles;
    Value slotNow = i32(p, 0), phaseNow = i32(p, 0);
    if (plan.outer) {
      scf::ForOp outer = plan.outer;
      producerTiles = scf::ForOp::create(p, loc, outer.getLowerBound(), outer.getUpperBound(), outer.getStep(),
                                         ValueRange{slotNow, phaseNow});
      Block *tileBody = producerTiles.getBody();
      if (!tileBody->empty())
        tileBody->getTerminator()->erase();
      p.setInsertionPointToEnd(tileBody);
      tileMap.map(outer.getInductionVar(), producerTiles.getInductionVar());
      for (Operation *op : plan.outerSlice.ops)
        p.clone(*op, tileMap);
      slotNow = producerTiles.getRegionIterArg(0);
      phaseNow = producerTiles.getRegionIterArg(1);
    }
    // Each loop's copies in turn, the ring's slot and phase carried from one loop to the next.
    for (LoopPlan &loopPlan : plan.loops) {
      scf::ForOp loop = loopPlan.loop;
      SmallVector<Value> inits;
      for (unsigned index : loopPlan.slice.carried)
        inits.push_back(tileMap.lookupOrDefault(loop.getInitArgs()[index]));
      inits.push_back(slotNow);
      inits.push_back(phaseNow);
      auto producer = scf::ForOp::create(p, loc, tileMap.lookupOrDefault(loop.getLowerBound()),
                                         tileMap.lookupOrDefault(loop.getUpperBound()),
                                         tileMap.lookupOrDefault(loop.getStep()), inits);
      Block *body = producer.getBody();
      if (!body->empty())
        body->getTerminator()->erase();
      OpBuilder in = OpBuilder::atBlockEnd(body);
      IRMapping map = tileMap;
      map.map(loop.getInductionVar(), producer.getInductionVar());
      for (auto [i, index] : llvm::enumerate(loopPlan.slice.carried))
        map.map(loop.getRegionIterArg(index), producer.getRegionIterArg(i));
      for (Operation *op : loopPlan.slice.ops)
        in.clone(*op, map);
      unsigned carried = loopPlan.slice.carried.size();
      Value slot = producer.getRegionIterArg(carried), phase = producer.getRegionIterArg(carried + 1);
      // A slot is free once the consumers released its previous use; on the first pass over the ring the
      // barrier is fresh, and waiting for the parity before its first phase returns at once.
      Value emptied = slotOf(in, empty, slot);
      producerOnly(brickgpu::WaitBarrierOp::create(in, loc, emptied, arith::XOrIOp::create(in, loc, phase, i32(in, 1)),
                                                   ValueRange{}));
      Value filled = slotOf(in, full, slot);
      Value yes = arith::ConstantOp::create(in, loc, in.getBoolAttr(true));
      producerOnly(brickgpu::BarrierExpectOp::create(in, loc, filled, bytes, yes));
      for (auto [entry, ring, isShared] : llvm::zip(loopPlan.loads, rings, shared)) {
        auto [load, alloc] = entry;
        Value buffer = brickgpu::MemDescIndexOp::create(in, loc, alloc.getType(), ring, slot);
        SmallVector<Value> indices =
            llvm::map_to_vector(load.getIndices(), [&](Value index) { return map.lookupOrDefault(index); });
        auto desc = load.getDesc().getDefiningOp<MakeTensorDescriptorOp>();
        Value share = isShared ? map.lookupOrDefault(load.getSharedByCluster()) : Value();
        producerOnly(
            brickgpu::AsyncTMACopyGlobalToLocalOp::create(in, loc, desc.getMap(), indices, buffer, filled, yes, share));
      }
      SmallVector<Value> yielded;
      for (unsigned index : loopPlan.slice.carried)
        yielded.push_back(map.lookupOrDefault(loop.getYieldedValues()[index]));
      auto [nextSlot, nextPhase] = advance(in, slot, phase);
      yielded.push_back(nextSlot);
      yielded.push_back(nextPhase);
      scf::YieldOp::create(in, loc, yielded);
      p.setInsertionPointAfter(producer);
      slotNow = producer.getResult(carried);
      phaseNow = producer.getResult(carried + 1);
    }
    if (producerTiles) {
      scf::YieldOp::create(p, loc, ValueRange{slotNow, phaseNow});
      p.setInsertionPointAfter(producerTiles);
    }
    brickgpu::WarpReturnOp::create(p, loc);

    // The consumers: the loops themselves, carrying the slot and phase (through the tile loop too). What only
    // they need of the code before the split (a block loaded before the loops) moves after it.
    b.setInsertionPoint(top);
    if (raised)
      brickgpu::SetMaxRegistersOp::create(b, loc, *raised, /*increase=*/true);
    for (Operation *op : plan.consumersOnly)
      op->moveBefore(top);
    Value tileSlot = i32(b, 0), tilePhase = i32(b, 0);
    scf::ForOp consumerTiles;
    if (plan.outer) {
      unsigned tileValues = plan.outer.getNumRegionIterArgs();
      consumerTiles = withLoopValues(b, plan.outer, {tileSlot, tilePhase});
      tileSlot = consumerTiles.getRegionIterArg(tileValues);
      tilePhase = consumerTiles.getRegionIterArg(tileValues + 1);
    }
    Value endSlot = tileSlot, endPhase = tilePhase;
    Operation *released = nullptr;
    SmallVector<std::pair<Value, Value>> finished; // an in-flight dot's loop result, and its value once done
    scf::ForOp consumer;
    OpBuilder after(context); // after the last loop and what follows it here
    for (auto [index, loopPlan] : llvm::enumerate(plan.loops)) {
      consumer = loopPlan.loop;
      b.setInsertionPoint(consumer);
      unsigned original = consumer.getNumRegionIterArgs();
      withLoopValues(b, consumer, {endSlot, endPhase});
      loopPlan.loop = consumer;
      Block *body = consumer.getBody();
      Value slot = consumer.getRegionIterArg(original), phase = consumer.getRegionIterArg(original + 1);

      OpBuilder atTop = OpBuilder::atBlockBegin(body);
      brickgpu::WaitBarrierOp::create(atTop, loc, slotOf(atTop, full, slot), phase, ValueRange{});
      for (auto [entry, ring] : llvm::zip(loopPlan.loads, rings)) {
        auto [load, alloc] = entry;
        OpBuilder at(alloc);
        alloc.replaceAllUsesWith(brickgpu::MemDescIndexOp::create(at, loc, alloc.getType(), ring, slot).getResult());
        alloc.erase();
        load.erase();
      }
      Operation *yield = body->getTerminator();
      if (loopPlan.inFlight) {
        for (brickgpu::WarpGroupDotOp dot : loopPlan.dots) {
          dot.setIsAsync(true);
          OpBuilder next(dot->getBlock(), std::next(Block::iterator(dot)));
          auto wait =
              brickgpu::WarpGroupDotWaitOp::create(next, loc, dot.getResult().getType(), ValueRange{dot.getResult()}, 1);
          dot.getResult().replaceAllUsesExcept(wait.getResult(0), wait);
        }
        // Once the first of this iteration's dots is waited for with one group pending, every group issued
        // before it is done: the previous iteration's dots, all that read the previous slot. Each warpgroup
        // releases that slot there (none before the first iteration), not after this iteration's last dot: with
        // gate and up as two dots (the MoE's GEMM 1) that held each slot until half of the next iteration's work
        // was done, which cost a 3-stage ring 7% (H100, 4096^3 as two n128 dots sharing A: 668-679 TFLOP/s,
        // 720-738 released here).
        Operation *firstWait = loopPlan.dots.front()->getNextNode(); // the dots are in the body's order
        OpBuilder release(firstWait->getBlock(), std::next(Block::iterator(firstWait)));
        Value previous = previousSlot(release, slot);
        Value notFirst = arith::CmpIOp::create(release, loc, arith::CmpIPredicate::ne, consumer.getInductionVar(),
                                               consumer.getLowerBound());
        released = brickgpu::BarrierArriveOp::create(release, loc, slotOf(release, empty, previous), notFirst, multicast);
      } else {
        // The dots complete where they are: the slot is free after the iteration's last one.
        OpBuilder release(loopPlan.dots.back()->getBlock(), std::next(Block::iterator(loopPlan.dots.back())));
        Value yes = arith::ConstantOp::create(release, loc, release.getBoolAttr(true));
        brickgpu::BarrierArriveOp::create(release, loc, slotOf(release, empty, slot), yes, multicast);
      }
      OpBuilder atEnd(yield);
      SmallVector<Value> yielded(yield->getOperands());
      auto [nextSlot, nextPhase] = advance(atEnd, slot, phase);
      yielded.push_back(nextSlot);
      yielded.push_back(nextPhase);
      scf::YieldOp::create(atEnd, loc, yielded);
      yield->erase();

      // After an in-flight loop: its last dots; release its last slot where the producer may wait for it (a
      // next tile's or a next loop's copies; or another program's, under multicast) and carry slot and phase on.
      after.setInsertionPointAfter(consumer);
      endSlot = consumer.getResult(original);
      endPhase = consumer.getResult(original + 1);
      if (!loopPlan.inFlight)
        continue;
      for (brickgpu::WarpGroupDotOp dot : loopPlan.dots) {
        unsigned result = cast<BlockArgument>(dot.getC()).getArgNumber() - 1;
        auto last = brickgpu::WarpGroupDotWaitOp::create(after, loc, dot.getResult().getType(),
                                                         ValueRange{consumer.getResult(result)}, 0);
        finished.emplace_back(consumer.getResult(result), last.getResult(0));
      }
      if (consumerTiles || multicast || index + 1 < plan.loops.size()) {
        Value lastSlot = previousSlot(after, endSlot);
        Value ran = arith::CmpIOp::create(after, loc, arith::CmpIPredicate::slt, consumer.getLowerBound(),
                                          consumer.getUpperBound());
        brickgpu::BarrierArriveOp::create(after, loc, slotOf(after, empty, lastSlot), ran, multicast);
      }
    }
    if (consumerTiles) {
      Operation *tileYield = consumerTiles.getBody()->getTerminator();
      SmallVector<Value> carriedOn(tileYield->getOperands());
      carriedOn.push_back(endSlot);
      carriedOn.push_back(endPhase);
      OpBuilder atTileEnd(tileYield);
      scf::YieldOp::create(atTileEnd, loc, carriedOn);
      tileYield->erase();
      after.setInsertionPointAfter(consumerTiles);
      unsigned tileValues = consumerTiles.getNumResults() - 2;
      endSlot = consumerTiles.getResult(tileValues);
      endPhase = consumerTiles.getResult(tileValues + 1);
    }
    if (multicast) {
      // The other programs' consumers still arrive on this program's empty barriers: before the barriers go (and
      // the program with them), wait until every slot's last use was released everywhere, as the producer would
      // before filling each slot once more.
      Value slotNow = endSlot, phaseNow = endPhase;
      for (int64_t s = 0; s < stages; ++s) {
        brickgpu::WaitBarrierOp::create(after, loc, slotOf(after, empty, slotNow),
                                        arith::XOrIOp::create(after, loc, phaseNow, i32(after, 1)), ValueRange{});
        std::tie(slotNow, phaseNow) = advance(after, slotNow, phaseNow);
      }
    }
    brickgpu::BarrierOp::create(after, loc, /*allWarps=*/false);
    for (int64_t s = 0; s < stages; ++s) {
      brickgpu::InvalidateBarrierOp::create(after, loc, slotOf(after, full, i32(after, s)));
      brickgpu::InvalidateBarrierOp::create(after, loc, slotOf(after, empty, i32(after, s)));
    }
    for (auto [result, value] : finished)
      result.replaceAllUsesExcept(value, value.getDefiningOp());
    if (consumerTiles) {
      // The stores go after the slot's release and after the last dot is issued (an MoE tile's up after its gate),
      // so that they hold up neither.
      Operation *lastWait = plan.loops.front().dots.back()->getNextNode();
      storeDuringNextTile(consumerTiles, consumer, released->isBeforeInBlock(lastWait) ? lastWait : released);
    }
  }
};
} // namespace
} // namespace mlir::brick
