//===- WarpGroupDotGroups.cpp - Which warpgroup_dots share a wgmma commit group -------------===//

#include "brick/Analysis/WarpGroupDotGroups.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::brick {

bool joinsNextDotGroup(brickgpu::WarpGroupDotOp dot) {
  if (dot.getIsAsync() || dot.getZeroRowsFrom() || !dot.getResult().hasOneUse())
    return false;
  OpOperand &use = *dot.getResult().getUses().begin();
  auto next = dyn_cast<brickgpu::WarpGroupDotOp>(use.getOwner());
  if (!next || use.get() != next.getC() || next.getA() == dot.getResult() || next.getZeroRowsFrom() ||
      next->getBlock() != dot->getBlock())
    return false;
  for (Operation *between = dot->getNextNode(); between != next.getOperation(); between = between->getNextNode()) {
    if (between->getNumRegions() != 0)
      return false;
    if (!isMemoryEffectFree(between) &&
        (!isa<MemoryEffectOpInterface>(between) || hasEffect<MemoryEffects::Write>(between)))
      return false;
  }
  return true;
}

} // namespace mlir::brick
