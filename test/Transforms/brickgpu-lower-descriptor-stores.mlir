// Descriptor stores kept for TMA: the block through a shared buffer in the tensor map's layout, one TMA store.
// RUN: brick-opt %s -brickgpu-lower-descriptor-stores | FileCheck %s

#mma = #brickgpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128]}>
#rows = #brickgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {brickgpu.num_warps = 4 : i32} {
  // The conversion to the coalesced layout is skipped: the accumulator's registers go to shared memory as they
  // are (rows of 256 bytes: 128-byte swizzle), fenced for the async proxy, then thread 0 stores with TMA.
  // CHECK-LABEL: func.func @epilogue
  // CHECK: %[[BUF:.*]] = brickgpu.local_alloc : () -> !brickgpu.memdesc<64x128xf16, #nvmma_shared>
  // CHECK-NEXT: brickgpu.barrier
  // CHECK-NEXT: brickgpu.local_store %arg5, %[[BUF]] : tensor<64x128xf16, #mma>
  // CHECK-NEXT: brickgpu.fence_async_shared
  // CHECK-NEXT: brickgpu.barrier
  // CHECK-NEXT: brickgpu.async_tma_copy_local_to_global %arg1[%arg3, %arg4] %[[BUF]]
  // CHECK-NEXT: brickgpu.barrier
  // CHECK-NOT: convert_layout
  // CHECK-NOT: brick.make_tensor_descriptor
  func.func @epilogue(%p: !brick.ptr<f16>, %map: !brick.tensormap, %m: i32, %i: i32, %j: i32,
                      %acc: tensor<64x128xf16, #mma>, %s: i64) {
    %c1_i64 = arith.constant 1 : i64
    %d = brick.make_tensor_descriptor %p, [%m, %m], [%s, %c1_i64], %map : !brick.ptr<f16> -> !brick.tensordesc<64x128xf16>
    %x = brickgpu.convert_layout %acc : tensor<64x128xf16, #mma> -> tensor<64x128xf16, #rows>
    brick.descriptor_store %d[%i, %j], %x : !brick.tensordesc<64x128xf16>, tensor<64x128xf16, #rows>
    return
  }
}
