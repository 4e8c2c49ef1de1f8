//===- RotateDotLoops.cpp - brickgpu-rotate-dot-loops: the next block's first dot beside this one's second ---===//
//
// In attention's loop
//
//   s = dot(q, k_j^T); p, c = softmax(s, running max and sum); acc = dot(p, v_j, acc * c)
//
// the second dot needs the softmax of the first, so the tensor cores idle while the exponentials run. The body
// splits into S2 (the second dot, and what only it needs: v_j's load, the rescaled accumulator, shape ops) and
// S1 (the rest: the first dot, the softmax, the running max and sum), and S1 runs one iteration ahead:
//
//   if (lo < hi) {
//     p, c = S1(lo)
//     for j in [lo, last) step s:  S1(j + s) up to its last dot; acc = S2(j, p, c, acc); the rest of S1(j + s)
//     acc = S2(last, p, c, acc)                      (last: the original loop's last iteration)
//   }
//
// What S2 reads of S1 (P and the correction) is carried from one iteration to the next, in the registers and
// layouts the dots gave them (hence a BrickGPU pass, after the layouts). Each iteration then issues the next
// block's scores and this block's P V together, and brickgpu-overlap-dots leaves both in flight over the
// exponentials (FlashAttention-3's intra-warpgroup overlap).
//
//===----------------------------------------------------------------------===//

#include "brick/Dialect/Brick/BrickDialect.h"
#include "brick/Dialect/BrickGPU/BrickGPUDialect.h"
#include "brick/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::brick {
#define GEN_PASS_DEF_BRICKGPUROTATEDOTLOOPS
#include "brick/Transforms/Passes.h.inc"

namespace {
using brickgpu::WarpGroupDotOp;

/// How a loop splits (see the file comment).
struct Rotation {
  unsigned accumulator;                 // the iter_arg (and result) the second dot updates
  llvm::SetVector<Operation *> second;  // S2's ops, in body order (some also in S1: index math read by both)
  llvm::SetVector<Operation *> first;   // S1's ops, in body order
  llvm::SetVector<Value> carried;       // S1's values S2 reads
  Operation *lastFirstDot = nullptr;    // S1's last dot: S2 is issued right after it
};

/// The op of `body` that defines `value` or holds its definition; null for block arguments and values from outside.
Operation *definedIn(Block *body, Value value) {
  Operation *def = value.getDefiningOp();
  return def ? body->findAncestorOpInBlock(*def) : nullptr;
}

/// Every value `op` reads, its nested regions' reads of values from outside them included.
SmallVector<Value> readValues(Operation *op) {
  SmallVector<Value> values(op->getOperands());
  op->walk([&](Operation *nested) {
    if (nested == op)
      return;
    for (Value operand : nested->getOperands())
      if (!op->isAncestor(operand.getParentRegion()->getParentOp()))
        values.push_back(operand);
  });
  return values;
}

std::optional<Rotation> planRotation(scf::ForOp loop) {
  Block *body = loop.getBody();
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  // Moving S2 behind S1 reorders memory accesses: only reads (and the fresh buffers dots read blocks from) may
  // be in the body.
  for (Operation &op : body->without_terminator()) {
    bool reads = isa<MemoryEffectOpInterface>(op) && op.getNumRegions() == 0 && !hasEffect<MemoryEffects::Write>(&op);
    if (!isMemoryEffectFree(&op) && !reads && !isa<brickgpu::LocalAllocOp>(op))
      return std::nullopt;
  }

  // Which ops follow from a dot, and which from each iter_arg.
  llvm::DenseSet<Operation *> afterDot;
  llvm::DenseMap<Operation *, llvm::SmallBitVector> readsCarried;
  const unsigned n = loop.getNumRegionIterArgs();
  for (Operation &op : body->without_terminator()) {
    llvm::SmallBitVector reads(n);
    bool follows = false;
    for (Value value : readValues(&op)) {
      if (auto argument = dyn_cast<BlockArgument>(value); argument && argument.getOwner() == body) {
        if (argument != loop.getInductionVar())
          reads.set(argument.getArgNumber() - 1);
      } else if (Operation *def = definedIn(body, value)) {
        follows |= isa<WarpGroupDotOp>(def) || afterDot.contains(def);
        reads |= readsCarried[def];
      }
    }
    if (follows)
      afterDot.insert(&op);
    readsCarried[&op] = reads;
  }

  // The second dot: its result is yielded as an iter_arg that only it (through its accumulator) reads, and what
  // it multiplies follows from another dot.
  for (Operation &op : body->without_terminator()) {
    auto dot = dyn_cast<WarpGroupDotOp>(op);
    if (!dot || !dot->hasOneUse() || *dot->getUsers().begin() != yield || !afterDot.contains(dot))
      continue;
    unsigned accumulator = dot->getUses().begin()->getOperandNumber();
    Operation *accDef = definedIn(body, dot.getC());
    bool readsOwn = (accDef && readsCarried[accDef].test(accumulator)) ||
                    dot.getC() == loop.getRegionIterArg(accumulator);
    if (!readsOwn)
      continue;

    Rotation r;
    r.accumulator = accumulator;
    // S2: the dot, then what it reads that either reads the accumulator, does not follow from a dot (index math
    // and v's load: recomputed for S2's iteration), or only reshapes (broadcasts of the correction); anything
    // else that follows from a dot is S1's, carried.
    SmallVector<Operation *> worklist{dot};
    llvm::DenseSet<Operation *> inSecond{dot};
    bool refused = false;
    while (!worklist.empty() && !refused) {
      Operation *current = worklist.pop_back_val();
      for (Value value : readValues(current)) {
        if (auto argument = dyn_cast<BlockArgument>(value); argument && argument.getOwner() == body) {
          // S2 may read the induction variable and its own accumulator, not S1's running values (they are one
          // iteration ahead there).
          if (argument != loop.getInductionVar() && argument.getArgNumber() - 1 != accumulator)
            refused = true;
          continue;
        }
        Operation *def = definedIn(body, value);
        if (!def || inSecond.contains(def))
          continue;
        bool readsAccumulator = readsCarried[def].test(accumulator);
        if (readsAccumulator || !afterDot.contains(def) || isa<SplatOp, BroadcastOp, ExpandDimsOp, ReshapeOp, brickgpu::ConvertLayoutOp>(def)) {
          inSecond.insert(def);
          worklist.push_back(def);
        } else {
          r.carried.insert(value);
        }
      }
    }
    if (refused || r.carried.empty())
      continue;
    // S1: every op S2 does not own alone. It must not read the accumulator, nor may a yield other than the
    // accumulator's come from S2 alone.
    for (Operation &op : body->without_terminator()) {
      bool ownedBySecond = inSecond.contains(&op) && llvm::all_of(op.getUsers(), [&](Operation *user) {
        Operation *ancestor = body->findAncestorOpInBlock(*user);
        return ancestor && (inSecond.contains(ancestor) || (ancestor == yield && &op == dot.getOperation()));
      });
      if (inSecond.contains(&op))
        r.second.insert(&op);
      if (ownedBySecond)
        continue;
      if (readsCarried[&op].test(accumulator))
        refused = true;
      r.first.insert(&op);
      if (isa<WarpGroupDotOp>(op))
        r.lastFirstDot = &op;
    }
    for (auto [k, value] : llvm::enumerate(yield.getOperands())) {
      if (k == accumulator)
        continue;
      if (Operation *def = definedIn(body, value); def && !r.first.contains(def))
        refused = true;
      if (value == loop.getRegionIterArg(accumulator))
        refused = true;
    }
    if (refused || !r.lastFirstDot)
      continue;
    return r;
  }
  return std::nullopt;
}

void rotate(scf::ForOp loop, const Rotation &r) {
  Location loc = loop.getLoc();
  Block *body = loop.getBody();
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  Value iv = loop.getInductionVar(), lo = loop.getLowerBound(), hi = loop.getUpperBound(), step = loop.getStep();
  const unsigned n = loop.getNumRegionIterArgs();
  OpBuilder b(loop);
  auto guard = scf::IfOp::create(b, loc, loop.getResultTypes(), arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, lo, hi),
                                 /*withElseRegion=*/true);
  b.setInsertionPointToStart(&guard.getElseRegion().front());
  scf::YieldOp::create(b, loc, loop.getInitArgs());

  // S1 of the first iteration.
  b.setInsertionPointToStart(&guard.getThenRegion().front());
  IRMapping prologue;
  prologue.map(iv, lo);
  for (unsigned k = 0; k < n; ++k)
    prologue.map(loop.getRegionIterArg(k), loop.getInitArgs()[k]);
  for (Operation *op : r.first)
    b.clone(*op, prologue);
  // The original loop's last iteration: lo + (hi - lo - 1) / step * step.
  Value one = arith::ConstantOp::create(b, loc, b.getIntegerAttr(iv.getType(), 1));
  Value span = arith::SubIOp::create(b, loc, arith::SubIOp::create(b, loc, hi, lo), one);
  Value last = arith::AddIOp::create(
      b, loc, lo, arith::MulIOp::create(b, loc, arith::DivSIOp::create(b, loc, span, step), step));

  SmallVector<Value> inits;
  for (unsigned k = 0; k < n; ++k)
    inits.push_back(k == r.accumulator ? loop.getInitArgs()[k] : prologue.lookupOrDefault(yield.getOperand(k)));
  for (Value value : r.carried)
    inits.push_back(prologue.lookup(value));
  auto rotated = scf::ForOp::create(b, loc, lo, last, step, inits);
  {
    OpBuilder inside = OpBuilder::atBlockBegin(rotated.getBody());
    Value j = rotated.getInductionVar();
    IRMapping ahead, behind; // S1 of iteration j + step, S2 of iteration j
    ahead.map(iv, arith::AddIOp::create(inside, loc, j, step));
    behind.map(iv, j);
    for (unsigned k = 0; k < n; ++k)
      (k == r.accumulator ? behind : ahead).map(loop.getRegionIterArg(k), rotated.getRegionIterArg(k));
    for (auto [k, value] : llvm::enumerate(r.carried))
      behind.map(value, rotated.getRegionIterArg(n + k));
    for (Operation &op : body->without_terminator()) {
      if (r.first.contains(&op))
        inside.clone(op, ahead);
      if (&op == r.lastFirstDot)
        for (Operation *second : r.second)
          inside.clone(*second, behind);
    }
    SmallVector<Value> yielded;
    for (unsigned k = 0; k < n; ++k)
      yielded.push_back(k == r.accumulator ? behind.lookup(yield.getOperand(k)) : ahead.lookupOrDefault(yield.getOperand(k)));
    for (Value value : r.carried)
      yielded.push_back(ahead.lookup(value));
    scf::YieldOp::create(inside, loc, yielded);
  }

  // S2 of the last iteration.
  IRMapping epilogue;
  epilogue.map(iv, last);
  epilogue.map(loop.getRegionIterArg(r.accumulator), rotated.getResult(r.accumulator));
  for (auto [k, value] : llvm::enumerate(r.carried))
    epilogue.map(value, rotated.getResult(n + k));
  for (Operation *second : r.second)
    b.clone(*second, epilogue);
  SmallVector<Value> results;
  for (unsigned k = 0; k < n; ++k)
    results.push_back(k == r.accumulator ? epilogue.lookup(yield.getOperand(k)) : rotated.getResult(k));
  scf::YieldOp::create(b, loc, results);

  loop->replaceAllUsesWith(guard.getResults());
  loop->erase();
}

struct RotateDotLoopsPass : impl::BrickGPURotateDotLoopsBase<RotateDotLoopsPass> {
  void runOnOperation() override {
    SmallVector<std::pair<scf::ForOp, Rotation>> plans;
    getOperation().walk([&](scf::ForOp loop) {
      if (loop.getUnsignedCmp() || !loop.getInductionVar().getType().isSignlessInteger())
        return;
      if (std::optional<Rotation> r = planRotation(loop))
        plans.emplace_back(loop, std::move(*r));
    });
    for (auto &[loop, r] : plans)
      rotate(loop, r);
  }
};

} // namespace
} // namespace mlir::brick
