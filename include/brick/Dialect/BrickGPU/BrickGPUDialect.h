//===- BrickGPUDialect.h - Layouts, shared memory and GPU-only ops --------------===//
#ifndef BRICK_DIALECT_BRICKGPU_BRICKGPUDIALECT_H
#define BRICK_DIALECT_BRICKGPU_BRICKGPUDIALECT_H

#include "brick/Dialect/Brick/BrickDialect.h"
#include "brick/Dialect/BrickGPU/LinearLayout.h"

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "BrickGPU/BrickGPUDialect.h.inc"
#include "BrickGPU/BrickGPUAttrInterfaces.h.inc"

#define GET_ATTRDEF_CLASSES
#include "BrickGPU/BrickGPUAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "BrickGPU/BrickGPUTypes.h.inc"

namespace mlir::brickgpu {

/// Shared memory: the resource local_alloc, local_load, local_store and barriers use.
struct SharedMemory : public SideEffects::Resource::Base<SharedMemory> {
  llvm::StringRef getName() final { return "<SharedMemory>"; }
};

/// The distributed layout of a tensor type, or null when it has none.
DistributedLayoutAttr getLayout(Type type);
/// The linear layout of a tensor type with a distributed layout.
LinearLayout getLinearLayout(RankedTensorType type);
/// Whether every thread holds the columns of each `width`-column window of the 2-D `block` in the same
/// registers (its layout's lane and warp bases stay inside a window): what local_store's column_offset needs.
bool isThreadIndependentColumnWindow(RankedTensorType block, int64_t width);
/// Whether a dot of an `m` x `n` result over `k`-long operands of `bits`-bit elements holds at least one mma.sync
/// instruction (16 rows, 8 columns, 32 bytes along K); smaller dots stay FMAs.
bool fitsMmaSync(int64_t m, int64_t n, int64_t k, unsigned bits);

/// What every pass after convert-brick-to-brickgpu needs: each block value in `module` (results and block
/// arguments) has a distributed layout. Otherwise an error at the first value without one, naming `pass`.
LogicalResult verifyEveryBlockHasALayout(Operation *module, llvm::StringRef pass);

/// The layout TMA writes a 2-D block of `shape` in (its tensor map's swizzle, brick::runtime::tmaBlockLayout,
/// rows along the last dimension), or null when it writes rows unswizzled (16 bytes), which no buffer layout
/// here describes.
NVMMASharedEncodingAttr getTMALayout(MLIRContext *context, ArrayRef<int64_t> shape, Type elementType);
/// Whether TMA copies of a descriptor's blocks can land in `type` as they are.
bool isTMALayout(MemDescType type);
/// The buffer a shared-memory view (brickgpu.memdesc_trans) shows; `buffer` itself when it is no view.
Value underlyingBuffer(Value buffer);

} // namespace mlir::brickgpu

#define GET_OP_CLASSES
#include "BrickGPU/BrickGPUOps.h.inc"

#endif // BRICK_DIALECT_BRICKGPU_BRICKGPUDIALECT_H
