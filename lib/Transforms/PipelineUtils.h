//===- PipelineUtils.h - What brickgpu-pipeline and brickgpu-warp-specialize share (private) ---===//
#ifndef BRICK_LIB_TRANSFORMS_PIPELINEUTILS_H
#define BRICK_LIB_TRANSFORMS_PIPELINEUTILS_H

#include "brick/Dialect/Brick/BrickDialect.h"
#include "brick/Dialect/BrickGPU/BrickGPUDialect.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::brick {

/// Whether the only users of `alloc` (next to `load` in its block) are what reads a dot operand.
bool readOnlyByDots(Operation *load, brickgpu::LocalAllocOp alloc);

/// The buffer `load` (a descriptor block kept for TMA) can be copied into by TMA: its only user, laid out as the
/// tensor map writes it; null otherwise.
brickgpu::LocalAllocOp tmaTarget(DescriptorLoadOp load);

/// The ops of a loop body that compute `roots` (in body order), and which loop-carried values they read: what a
/// copy for another iteration recomputes.
struct Slice {
  SmallVector<Operation *> ops;
  SmallVector<unsigned> carried; // iter_arg indices, ascending
};
/// Empty when one of those ops has side effects (but for reads `mayRepeat` admits: running them again gives the
/// same values) or regions.
std::optional<Slice> sliceOf(scf::ForOp loop, ArrayRef<Value> roots,
                             llvm::function_ref<bool(Operation *)> mayRepeat = nullptr);

/// The columns of `block` one TMA store writes from one shared buffer (brickgpu-lower-descriptor-stores): a
/// swizzle span where the block is wider and each thread's registers of a span are the same for every span
/// (wgmma's accumulator), else the whole block; 0 when no TMA layout holds the block.
int64_t tmaStoreWindowColumns(RankedTensorType block);

/// On a brick.descriptor_store: store only its `value`-th window of tmaStoreWindowColumns columns (a block whose
/// windows brickgpu-warp-specialize spreads over the next tile's K steps).
constexpr llvm::StringLiteral kStoreWindowAttrName = "brickgpu.store_window";

/// Whether `load` (not volatile) reads what no op of its kernel writes: nothing writes through a pointer made from
/// the argument it reads through, nor through a descriptor whose base is made from it, nor through what cannot be
/// traced (arguments that are different pointers are taken to point to different buffers). Such a load gives the
/// same value wherever in the kernel, and in whichever thread, it runs.
bool readsWhatTheKernelNeverWrites(LoadOp load);

} // namespace mlir::brick

#endif // BRICK_LIB_TRANSFORMS_PIPELINEUTILS_H
