//===- LinearLayout.h - Which element each register of each thread holds ------===//
//
// Block shapes are powers of two, so a layout of a block over a program's threads is a linear map over
// GF(2): from the bits of (register, lane, warp) to the bits of the element's coordinates. Bit i of the
// register index contributes `registerBases[i]` (a coordinate), and so on; contributions combine by XOR.
// A zero basis means replication: two registers, lanes or warps that differ in that bit hold one element.
//
// Every brickgpu layout converts to this form, and the lowering to LLVM works from it alone: indices,
// reductions and layout conversions need no per-layout code.
//
//===----------------------------------------------------------------------===//
#ifndef BRICK_DIALECT_BRICKGPU_LINEARLAYOUT_H
#define BRICK_DIALECT_BRICKGPU_LINEARLAYOUT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <string>

namespace mlir::brickgpu {

class LinearLayout {
public:
  /// A coordinate: one entry per dimension of the block.
  using Coordinate = llvm::SmallVector<int64_t, 4>;

  LinearLayout() = default;
  LinearLayout(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<Coordinate> registerBases,
               llvm::ArrayRef<Coordinate> laneBases, llvm::ArrayRef<Coordinate> warpBases);

  llvm::ArrayRef<int64_t> getShape() const { return shape_; }
  unsigned getRank() const { return shape_.size(); }
  llvm::ArrayRef<Coordinate> getRegisterBases() const { return registerBases_; }
  llvm::ArrayRef<Coordinate> getLaneBases() const { return laneBases_; }
  llvm::ArrayRef<Coordinate> getWarpBases() const { return warpBases_; }
  unsigned getNumRegisters() const { return 1u << registerBases_.size(); }
  unsigned getNumLanes() const { return 1u << laneBases_.size(); }
  unsigned getNumWarps() const { return 1u << warpBases_.size(); }

  /// The element held by register `reg` of lane `lane` of warp `warp`.
  Coordinate apply(unsigned reg, unsigned lane, unsigned warp) const;
  /// The element held by register `reg` of lane 0 of warp 0; other threads XOR their lane/warp part in.
  Coordinate registerCoordinate(unsigned reg) const { return apply(reg, 0, 0); }

  /// The layout of the block with dimension `dim` removed (what reducing along it leaves): coordinates lose
  /// that entry, and registers that would then repeat another register's element are dropped.
  LinearLayout removeDimension(unsigned dim) const;
  /// The layout with a dimension of size 1 inserted at `dim` (expand_dims).
  LinearLayout insertDimension(unsigned dim) const;

  /// Whether some two registers, lanes or warps of the layout hold the same element.
  bool isInjective() const;
  /// How many consecutive registers (from register 0, in steps of one element along `dim`) hold
  /// consecutive elements: the widest vector a memory access along `dim` can use.
  unsigned getContiguousRegisters(unsigned dim) const;

  bool operator==(const LinearLayout &other) const = default;
  /// "regs=[[1], [2]] lanes=[[4], ...] warps=[...] shape=[128]".
  std::string str() const;

private:
  llvm::SmallVector<int64_t, 4> shape_;
  llvm::SmallVector<Coordinate> registerBases_, laneBases_, warpBases_;
};

} // namespace mlir::brickgpu

#endif // BRICK_DIALECT_BRICKGPU_LINEARLAYOUT_H
