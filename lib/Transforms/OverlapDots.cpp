//===- OverlapDots.cpp - brickgpu-overlap-dots: wgmma groups left in flight until their results are read ---===//
//
// A synchronous warpgroup_dot waits for its wgmmas at once. When another dot is issued before the first one's
// result is read (a rotated attention loop: the next block's scores, then this block's P V, then the softmax of
// the scores), both can run together and the work after them can overlap them:
//
//   %s = warpgroup_dot %q, %k, %zero {isAsync}
//   %o = warpgroup_dot %p, %v, %acc {isAsync}
//   %s2 = warpgroup_dot_wait %s {pendings = 1}    // before the softmax reads the scores; P V may still run
//   ... softmax of %s2 ...
//   %o2 = warpgroup_dot_wait %o {pendings = 0}    // before the yield
//
// Groups complete in the order they were committed, so a dot's wait leaves pending the groups committed after it.
// A wait goes before the first op that reads the dot's result or may write memory (a buffer the dot still reads).
//
//===----------------------------------------------------------------------===//

#include "brick/Analysis/WarpGroupDotGroups.h"
#include "brick/Dialect/BrickGPU/BrickGPUDialect.h"
#include "brick/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::brick {
#define GEN_PASS_DEF_BRICKGPUOVERLAPDOTS
#include "brick/Transforms/Passes.h.inc"

namespace {
using brickgpu::WarpGroupDotOp;

/// Whether `op` may write memory (a dot's operand buffer) or wait for every group itself.
bool mayWrite(Operation *op) {
  if (isa<WarpGroupDotOp, brickgpu::WarpGroupDotWaitOp>(op) || isMemoryEffectFree(op))
    return false;
  return op->getNumRegions() != 0 || !isa<MemoryEffectOpInterface>(op) || hasEffect<MemoryEffects::Write>(op);
}

/// The op before which `dot`'s result must be complete: the first that reads it (itself or in its regions), may
/// write memory, or ends the block.
Operation *waitPoint(WarpGroupDotOp dot) {
  Block *block = dot->getBlock();
  for (Operation *op = dot->getNextNode(); op; op = op->getNextNode()) {
    if (op == block->getTerminator() || mayWrite(op))
      return op;
    bool reads = llvm::any_of(dot->getUsers(), [&](Operation *user) { return op->isAncestor(user); });
    if (reads)
      return op;
  }
  return block->getTerminator();
}

/// The wgmma groups committed from after `from` to before `to` (a dot that joins the next one's group commits
/// none of its own).
unsigned groupsBetween(Operation *from, Operation *to) {
  unsigned groups = 0;
  for (Operation *op = from->getNextNode(); op != to; op = op->getNextNode())
    if (auto dot = dyn_cast<WarpGroupDotOp>(op); dot && !joinsNextDotGroup(dot))
      ++groups;
  return groups;
}

struct OverlapDotsPass : impl::BrickGPUOverlapDotsBase<OverlapDotsPass> {
  void runOnOperation() override {
    // Decide on the unchanged IR: a dot whose range (issue to wait point) holds another dot, and the dots in
    // such a range, go asynchronous.
    llvm::SetVector<Operation *> overlapped;
    getOperation().walk([&](WarpGroupDotOp dot) {
      if (dot.getIsAsync() || joinsNextDotGroup(dot))
        return;
      Operation *until = waitPoint(dot);
      SmallVector<Operation *> inside;
      for (Operation *op = dot->getNextNode(); op != until; op = op->getNextNode())
        if (auto other = dyn_cast<WarpGroupDotOp>(op); other && !other.getIsAsync() && !joinsNextDotGroup(other))
          inside.push_back(op);
      if (inside.empty())
        return;
      overlapped.insert(dot);
      overlapped.insert(inside.begin(), inside.end());
    });
    for (Operation *op : overlapped) {
      auto dot = cast<WarpGroupDotOp>(op);
      Operation *until = waitPoint(dot);
      unsigned pendings = groupsBetween(dot, until);
      dot.setIsAsync(true);
      OpBuilder b(until);
      auto wait = brickgpu::WarpGroupDotWaitOp::create(b, dot.getLoc(), dot.getResult().getType(),
                                                       ValueRange{dot.getResult()}, pendings);
      dot.getResult().replaceAllUsesExcept(wait.getResult(0), wait);
    }
  }
};

} // namespace
} // namespace mlir::brick
