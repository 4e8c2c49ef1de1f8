//===- SharedMemory.h - How much shared memory each op needs ---------------------===//
//
// One definition, used by the allocator (to place buffers) and by the lowering (to lay data out in them).
//
//===----------------------------------------------------------------------===//
#ifndef BRICK_ANALYSIS_SHAREDMEMORY_H
#define BRICK_ANALYSIS_SHAREDMEMORY_H

#include "mlir/IR/Operation.h"

namespace mlir::brick {

/// Bytes one element of `elementType` takes in shared memory (i1 takes a byte, pointers 8).
int64_t getSharedElementBytes(Type elementType);

/// Bytes of scratch `op` needs while it runs (0 for most ops): a layout conversion through shared memory,
/// a reduction across warps, a reshape or transpose.
int64_t getScratchBytes(Operation *op);

/// Elements of padding after each row (the last dimension) of a layout conversion's scratch: 16 bytes when
/// rows are at least 128 bytes, so that the rows of a tile start in different banks while 16-byte vectors stay
/// aligned; none otherwise.
int64_t getConversionRowPadding(RankedTensorType type);

/// Whether a layout conversion from `from` to `to` moves no data (both layouts put each element in the
/// same register of the same thread).
bool isNoOpConversion(RankedTensorType from, RankedTensorType to);

/// How many warps hold different parts of `axis` of a block of this type: a reduction along `axis`
/// combines that many partial results through shared memory.
unsigned getWarpsAlongAxis(RankedTensorType type, unsigned axis);

/// A scan along `axis` of a block of this type scans within each warp the aligned runs of 2^k elements below
/// the lowest bit of the axis a warp carries, then combines the runs' totals through shared memory: how many
/// runs there are along the axis (1: the scan needs no shared memory).
int64_t getScanRunsAcrossWarps(RankedTensorType type, unsigned axis);

} // namespace mlir::brick

#endif // BRICK_ANALYSIS_SHAREDMEMORY_H
