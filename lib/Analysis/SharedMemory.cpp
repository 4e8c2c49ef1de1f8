//===- SharedMemory.cpp - Scratch shared memory of layout conversions and reductions ---===//

#include "brick/Analysis/SharedMemory.h"

#include "brick/Dialect/BrickGPU/BrickGPUDialect.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::brick;

int64_t mlir::brick::getSharedElementBytes(Type elementType) {
  if (isa<PointerType>(elementType))
    return 8;
  return std::max<int64_t>(1, elementType.getIntOrFloatBitWidth() / 8);
}

int64_t mlir::brick::getConversionRowPadding(RankedTensorType type) {
  int64_t bytes = getSharedElementBytes(type.getElementType());
  if (type.getRank() < 2 || type.getShape().back() * bytes < 128)
    return 0;
  return 16 / bytes;
}

bool mlir::brick::isNoOpConversion(RankedTensorType from, RankedTensorType to) {
  if (from == to)
    return true;
  if (!brickgpu::getLayout(from) || !brickgpu::getLayout(to))
    return false;
  return brickgpu::getLinearLayout(from) == brickgpu::getLinearLayout(to);
}

unsigned mlir::brick::getWarpsAlongAxis(RankedTensorType type, unsigned axis) {
  unsigned warps = 1;
  brickgpu::LinearLayout layout = brickgpu::getLinearLayout(type);
  for (const auto &basis : layout.getWarpBases())
    if (basis[axis] != 0)
      warps *= 2;
  return warps;
}

int64_t mlir::brick::getScanRunsAcrossWarps(RankedTensorType type, unsigned axis) {
  brickgpu::LinearLayout layout = brickgpu::getLinearLayout(type);
  int64_t lowestWarpStep = 0;
  for (const auto &basis : layout.getWarpBases())
    if (basis[axis] > 0 && (lowestWarpStep == 0 || basis[axis] < lowestWarpStep))
      lowestWarpStep = basis[axis];
  return lowestWarpStep == 0 ? 1 : std::max<int64_t>(1, type.getDimSize(axis) / lowestWarpStep);
}

namespace {
int64_t blockBytes(Type type) {
  auto tensor = cast<RankedTensorType>(type);
  return tensor.getNumElements() * getSharedElementBytes(tensor.getElementType());
}
} // namespace

int64_t mlir::brick::getScratchBytes(Operation *op) {
  return llvm::TypeSwitch<Operation *, int64_t>(op)
      .Case([](brickgpu::ConvertLayoutOp convert) -> int64_t {
        auto from = cast<RankedTensorType>(convert.getSrc().getType());
        if (isNoOpConversion(from, convert.getType()))
          return 0;
        int64_t rowLength = from.getShape().back();
        int64_t rows = from.getNumElements() / rowLength;
        return rows * (rowLength + getConversionRowPadding(from)) * getSharedElementBytes(from.getElementType());
      })
      .Case([](ReduceOp reduce) -> int64_t {
        auto src = cast<RankedTensorType>(reduce.getSrcs().front().getType());
        if (!brickgpu::getLayout(src))
          return 0;
        unsigned warps = getWarpsAlongAxis(src, reduce.getAxis());
        if (warps == 1)
          return 0;
        // One partial result per warp along the axis, per output element, per reduced operand.
        int64_t outputs = src.getNumElements() / src.getDimSize(reduce.getAxis());
        int64_t bytes = 0;
        for (Value operand : reduce.getSrcs())
          bytes += llvm::alignTo(warps * outputs * getSharedElementBytes(getElementTypeOrSelf(operand.getType())), 16);
        return bytes;
      })
      .Case([](ScanOp scan) -> int64_t {
        auto src = cast<RankedTensorType>(scan.getSrcs().front().getType());
        if (!brickgpu::getLayout(src))
          return 0;
        int64_t runs = getScanRunsAcrossWarps(src, scan.getAxis());
        if (runs == 1)
          return 0;
        // Each run's total, per scanned line (the coordinates but the axis), per operand, and one slot the
        // threads that hold no total write to.
        int64_t lines = src.getNumElements() / src.getDimSize(scan.getAxis());
        int64_t bytes = 0;
        for (Value operand : scan.getSrcs())
          bytes += llvm::alignTo((runs * lines + 1) * getSharedElementBytes(getElementTypeOrSelf(operand.getType())), 16);
        return bytes;
      })
      .Case([](DotOp dot) -> int64_t {
        // The FMA fallback stages both operands in shared memory; mma.sync reads them from registers.
        if (!brickgpu::getLayout(dot.getA().getType()) ||
            isa<brickgpu::MmaEncodingAttr>(cast<RankedTensorType>(dot.getType()).getEncoding()))
          return 0;
        return llvm::alignTo(blockBytes(dot.getA().getType()), 16) + blockBytes(dot.getB().getType());
      })
      .Case<ReshapeOp, TransOp, GatherOp>([](Operation *shapeOp) -> int64_t {
        auto from = cast<RankedTensorType>(shapeOp->getOperand(0).getType());
        return brickgpu::getLayout(from) ? blockBytes(from) : 0;
      })
      .Default([](Operation *) -> int64_t { return 0; });
}
