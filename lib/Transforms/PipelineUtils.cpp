//===- PipelineUtils.cpp - What brickgpu-pipeline and brickgpu-warp-specialize share -------===//

#include "PipelineUtils.h"

#include "llvm/ADT/SetVector.h"

#include <functional>

namespace mlir::brick {

int64_t tmaStoreWindowColumns(RankedTensorType block) {
  brickgpu::NVMMASharedEncodingAttr layout =
      brickgpu::getTMALayout(block.getContext(), block.getShape(), block.getElementType());
  if (!layout)
    return 0;
  int64_t span = layout.getSwizzle() * 8 / block.getElementType().getIntOrFloatBitWidth();
  return span < block.getDimSize(1) && brickgpu::isThreadIndependentColumnWindow(block, span) ? span
                                                                                                 : block.getDimSize(1);
}

/// Whether the only users of `alloc` (next to `load` in its block) are what reads a dot operand.
bool readOnlyByDots(Operation *load, brickgpu::LocalAllocOp alloc) {
  std::function<bool(Operation *)> read = [&](Operation *user) {
    if (isa<brickgpu::MemDescTransOp>(user)) // a transposed view: its readers read the buffer
      return llvm::all_of(user->getUsers(), read);
    return isa<brickgpu::LocalLoadOp, brickgpu::WarpGroupDotOp>(user);
  };
  return alloc && alloc->getBlock() == load->getBlock() && llvm::all_of(alloc->getUsers(), read);
}

/// The buffer `load` (a descriptor block kept for TMA) can be copied into by TMA: its only user, laid out as the
/// tensor map writes it.
brickgpu::LocalAllocOp tmaTarget(DescriptorLoadOp load) {
  if (!load->hasOneUse() || !load.getDesc().getDefiningOp<MakeTensorDescriptorOp>())
    return {};
  auto alloc = dyn_cast<brickgpu::LocalAllocOp>(*load->getUsers().begin());
  if (!readOnlyByDots(load, alloc))
    return {};
  return brickgpu::isTMALayout(alloc.getType()) ? alloc : brickgpu::LocalAllocOp();
}

/// The ops of the loop body that compute `roots` (in body order), and which loop-carried values they read:
/// what a copy for a later iteration recomputes. Empty when one of them has side effects (but for the reads
/// `mayRepeat` admits) or regions.
std::optional<Slice> sliceOf(scf::ForOp loop, ArrayRef<Value> roots, llvm::function_ref<bool(Operation *)> mayRepeat) {
  Block *body = loop.getBody();
  llvm::SetVector<Operation *> ops;
  llvm::SetVector<unsigned> carried;
  SmallVector<Value> worklist(roots);
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    if (auto argument = dyn_cast<BlockArgument>(value)) {
      if (argument.getOwner() != body || argument == loop.getInductionVar())
        continue;
      unsigned index = argument.getArgNumber() - loop.getNumInductionVars();
      if (carried.insert(index))
        worklist.push_back(loop.getYieldedValues()[index]);
      continue;
    }
    Operation *op = value.getDefiningOp();
    if (op->getBlock() != body || !ops.insert(op))
      continue; // defined outside the loop: the same for every iteration
    if (op->getNumRegions() != 0 || !(isMemoryEffectFree(op) || (mayRepeat && mayRepeat(op))))
      return std::nullopt;
    llvm::append_range(worklist, op->getOperands());
  }
  Slice slice;
  slice.ops = ops.takeVector();
  llvm::sort(slice.ops, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  slice.carried = carried.takeVector();
  llvm::sort(slice.carried);
  return slice;
}

} // namespace mlir::brick
