//===- PipelineUtils.cpp - What brickgpu-pipeline and brickgpu-warp-specialize share -------===//

#include "PipelineUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
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

/// The kernel arguments `pointer` (a pointer or a block of them) derives from, through the ops that made it;
/// nothing when it derives from anything else (a value read from memory, an integer).
static std::optional<llvm::SmallPtrSet<Value, 2>> pointerSources(Value pointer) {
  llvm::SmallPtrSet<Value, 2> sources;
  llvm::SmallPtrSet<Value, 8> seen;
  SmallVector<Value> worklist{pointer};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    if (!seen.insert(value).second)
      continue;
    if (auto argument = dyn_cast<BlockArgument>(value)) {
      if (!isa<func::FuncOp>(argument.getOwner()->getParentOp()))
        return std::nullopt; // a loop-carried pointer: its sources are whatever the loop yields
      sources.insert(argument);
      continue;
    }
    Operation *op = value.getDefiningOp();
    if (!isMemoryEffectFree(op)) // a pointer read from memory, or made by an op with effects
      return std::nullopt;
    bool any = false;
    for (Value operand : op->getOperands())
      if (isa<PointerType>(getElementTypeOrSelf(operand.getType())))
        worklist.push_back(operand), any = true;
    if (!any)
      return std::nullopt;
  }
  return sources;
}

bool readsWhatTheKernelNeverWrites(LoadOp load) {
  if (load.getIsVolatile())
    return false;
  Operation *op = load;
  std::optional<llvm::SmallPtrSet<Value, 2>> read = pointerSources(load.getPtr());
  if (!read)
    return false;
  // Whether a write through `pointer` (null: one that cannot be traced) may reach what the load reads.
  auto mayWriteRead = [&](Value pointer) {
    std::optional<llvm::SmallPtrSet<Value, 2>> written =
        pointer ? pointerSources(pointer) : std::optional<llvm::SmallPtrSet<Value, 2>>();
    return !written || llvm::any_of(*written, [&](Value source) { return read->contains(source); });
  };
  auto kernel = op->getParentOfType<func::FuncOp>();
  if (!kernel)
    return false;
  return !kernel
              .walk([&](Operation *inner) {
                if (isMemoryEffectFree(inner) || isa<LoadOp>(inner))
                  return WalkResult::advance();
                if (auto store = dyn_cast<DescriptorStoreOp>(inner)) {
                  // It writes its tensor, which starts at the descriptor's base pointer.
                  auto made = store.getDesc().getDefiningOp<MakeTensorDescriptorOp>();
                  return mayWriteRead(made ? made.getBase() : Value()) ? WalkResult::interrupt()
                                                                       : WalkResult::advance();
                }
                for (Value operand : inner->getOperands())
                  if (isa<PointerType>(getElementTypeOrSelf(operand.getType())) && mayWriteRead(operand))
                    return WalkResult::interrupt();
                return WalkResult::advance();
              })
              .wasInterrupted();
}

} // namespace mlir::brick
