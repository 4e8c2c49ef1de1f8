//===- Ldmatrix.h - Reading #dot_op registers from shared memory with ldmatrix (private) ---===//
#ifndef BRICK_LIB_CONVERSION_BRICKGPUTOLLVM_LDMATRIX_H
#define BRICK_LIB_CONVERSION_BRICKGPUTOLLVM_LDMATRIX_H

#include "Utility.h"

namespace mlir::brick::lowering {

/// Reads the registers of a #dot_op block from a shared-memory buffer with ldmatrix, one x4 (or x2, x1) group
/// of 32-bit words at a time, on demand: a dot reads each K step's fragments right before its mma.sync, so
/// that only those are live.
class LdmatrixReader {
public:
  /// A reader for a `type` (#dot_op) block in the buffer `base` of type `memory`, or nothing when ldmatrix
  /// cannot read it (the buffer is not contiguous along K and the elements are not 16-bit, or its rows are not
  /// 16-byte groups).
  static std::optional<LdmatrixReader> create(OpBuilder &builder, Location loc, RankedTensorType type,
                                              brickgpu::MemDescType memory, Value base,
                                              const LLVMTypeConverter &converter);

  /// Register `reg` of the block (loading its group at the builder's insertion point the first time).
  Value get(unsigned reg);
  /// Every register, in order.
  SmallVector<Value> getAll();

private:
  LdmatrixReader(OpBuilder &builder, Location loc) : builder(&builder), loc(loc) {}
  void loadGroup(unsigned firstWord);

  OpBuilder *builder;
  Location loc;
  brickgpu::LinearLayout layout;
  brickgpu::MemDescType memory;
  Value base;
  Type element;
  unsigned kWidth = 1, wordsPerLoad = 1, rowDim = 0;
  bool transposed = false;
  // This thread's row (lane % 8), matrix bits (lane / 8 % 2, lane / 16) and warp offset, computed once.
  Value row, matrixBit0, matrixBit1;
  SmallVector<Value> warpPart;
  SmallVector<Value> values; // null until loaded
};

/// Whether `op`'s only user is a dot on tensor cores (which then reads the buffer itself, K step by K step).
bool isReadByMmaDot(brickgpu::LocalLoadOp op);

} // namespace mlir::brick::lowering

#endif // BRICK_LIB_CONVERSION_BRICKGPUTOLLVM_LDMATRIX_H
