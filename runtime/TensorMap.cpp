//===- TensorMap.cpp - Encoding the tensor maps of TensorDescriptor arguments ----------===//

#include "brick/Runtime/TensorMap.h"

#include "brick/Runtime/Driver.h"

namespace brick::runtime {

Expected<TensorMap> encodeTensorMap(uint64_t address, unsigned elementBytes, const std::vector<int64_t> &shape,
                                    const std::vector<int64_t> &strides, const std::vector<int64_t> &blockShape) {
  size_t rank = shape.size();
  if (rank < 1 || rank > 5 || strides.size() != rank || blockShape.size() != rank)
    return Error("a tensor map has 1 to 5 dimensions, each with an extent, a stride and a block dimension");
  Expected<const Driver *> driver = Driver::get();
  if (!driver)
    return driver.error();
  if (!(*driver)->cuTensorMapEncodeTiled)
    return Error("the CUDA driver lacks cuTensorMapEncodeTiled, which TMA needs (a driver for CUDA 12 or newer has it)");
  // The driver counts dimensions innermost first, strides in bytes and without the innermost one.
  uint64_t globalDim[5], globalStrides[5];
  unsigned boxDim[5], elementStrides[5];
  TmaBlockLayout layout = tmaBlockLayout(blockShape.back(), elementBytes);
  for (size_t d = 0; d < rank; ++d) {
    size_t from = rank - 1 - d;
    globalDim[d] = static_cast<uint64_t>(shape[from]);
    int64_t box = d == 0 ? layout.boxInner : d == 1 ? tmaBoxRows(blockShape[from]) : blockShape[from];
    boxDim[d] = static_cast<unsigned>(box);
    elementStrides[d] = 1;
    if (d > 0)
      globalStrides[d - 1] = static_cast<uint64_t>(strides[from]) * elementBytes;
  }
  // The bits move as they are (zeros outside the tensor), so an unsigned type of the element's width serves
  // every element type: CU_TENSOR_MAP_DATA_TYPE_UINT8, UINT16, UINT32, UINT64.
  int dataType = elementBytes == 1 ? 0 : elementBytes == 2 ? 1 : elementBytes == 4 ? 2 : 4;
  if (elementBytes != 1 && elementBytes != 2 && elementBytes != 4 && elementBytes != 8)
    return Error("a tensor map holds elements of 1, 2, 4 or 8 bytes, not " + std::to_string(elementBytes));
  // CU_TENSOR_MAP_SWIZZLE_NONE, _32B, _64B, _128B are 0..3.
  int swizzle = layout.swizzleBytes == 128 ? 3 : layout.swizzleBytes == 64 ? 2 : layout.swizzleBytes == 32 ? 1 : 0;
  TensorMap map;
  // CU_TENSOR_MAP_L2_PROMOTION_L2_256B: a box's rows come into L2 in 256-byte pieces. Against 128-byte promotion
  // it made the MoE GEMM 1 faster where TMA reads the token rows, and left the other TMA kernels about the same
  // (docs/performance.md#the-moe-layer-in-bf16-what-its-defaults-rest-on).
  const int interleaveNone = 0, l2Promotion256 = 3, oobFillZeros = 0;
  CUresult result = (*driver)->cuTensorMapEncodeTiled(map.bytes, dataType, static_cast<unsigned>(rank),
                                                      reinterpret_cast<void *>(address), globalDim, globalStrides,
                                                      boxDim, elementStrides, interleaveNone, swizzle, l2Promotion256,
                                                      oobFillZeros);
  if (Error error = (*driver)->check(result, "encoding a tensor map (cuTensorMapEncodeTiled)"))
    return error;
  return map;
}

} // namespace brick::runtime
