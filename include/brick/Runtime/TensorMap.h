//===- TensorMap.h - How a descriptor's block lands in shared memory through TMA ------------===//
//
// The compiler and the runtime must agree on the tensor map of a TensorDescriptor parameter without telling
// each other: the runtime encodes it at launch (cuTensorMapEncodeTiled), the compiler lays out the shared
// buffer TMA writes. Both follow tmaBlockLayout: the widest swizzle (128, 64 or 32 bytes) that a row of the
// block fills, and boxes one swizzle span wide, side by side. A block whose rows are wider than 128 bytes
// takes several copies, each landing as a whole column of swizzle-wide rows: the #brickgpu.nvmma_shared layout.
// A column of more than 128 rows is copied in boxes of tmaBoxRows rows, one below the other, so that the
// programs of a cluster can share a tall block (each copying some of its boxes to all of them).
//
//===----------------------------------------------------------------------===//
#ifndef BRICK_RUNTIME_TENSORMAP_H
#define BRICK_RUNTIME_TENSORMAP_H

#include "brick/Runtime/Expected.h"

#include <cstdint>
#include <vector>

namespace brick::runtime {

struct TmaBlockLayout {
  /// 128, 64 or 32; 0: no swizzle (rows of 16 bytes), which the compiler does not copy with TMA.
  unsigned swizzleBytes = 0;
  /// Elements of one box along the innermost dimension; the block takes innerBlock / boxInner copies.
  int64_t boxInner = 0;
};

/// The layout TMA gives a block whose innermost dimension has `innerBlock` elements of `elementBytes` bytes
/// (a power of two, at least 16 bytes in all: what launches check).
inline TmaBlockLayout tmaBlockLayout(int64_t innerBlock, unsigned elementBytes) {
  int64_t rowBytes = innerBlock * elementBytes;
  TmaBlockLayout layout;
  for (unsigned swizzle : {128u, 64u, 32u})
    if (rowBytes % swizzle == 0) {
      layout.swizzleBytes = swizzle;
      break;
    }
  layout.boxInner = layout.swizzleBytes ? layout.swizzleBytes / elementBytes : innerBlock;
  return layout;
}

/// The rows of one box of a block of `rows` rows (a multiple of 8): all of them up to 128, else the largest
/// power of two up to 128 that divides them. Boxes of whole groups of 8 rows start where the swizzle pattern does.
inline int64_t tmaBoxRows(int64_t rows) {
  if (rows <= 128)
    return rows;
  int64_t box = 128;
  while (rows % box)
    box /= 2;
  return box;
}

/// The TMA boxes a rows x innerBlock block is copied in: tmaBlockLayout's boxes along a row, each tmaBoxRows tall.
inline int64_t tmaBoxCount(int64_t rows, int64_t innerBlock, unsigned elementBytes) {
  int64_t inner = tmaBlockLayout(innerBlock, elementBytes).boxInner;
  return inner > 0 ? (innerBlock + inner - 1) / inner * (rows / tmaBoxRows(rows)) : 0;
}

/// A CUtensorMap: 128 opaque bytes, 64-byte aligned.
struct alignas(64) TensorMap {
  unsigned char bytes[128] = {};
};

/// Encodes the tensor map of a row-major tensor (shape and strides in elements, outermost first; the innermost
/// stride is 1) read in blocks of `blockShape`, laid out as tmaBlockLayout says. Zeros fill what lies outside
/// the tensor. The error says which requirement of the driver failed.
Expected<TensorMap> encodeTensorMap(uint64_t address, unsigned elementBytes, const std::vector<int64_t> &shape,
                                    const std::vector<int64_t> &strides, const std::vector<int64_t> &blockShape);

} // namespace brick::runtime

#endif // BRICK_RUNTIME_TENSORMAP_H
