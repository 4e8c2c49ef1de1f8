// Descriptor blocks kept for TMA that the pipeline left: one TMA copy each behind a fresh mbarrier, awaited.
// RUN: brick-opt %s -split-input-file -brickgpu-lower-descriptor-loads | FileCheck %s

#rows = #brickgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#a = #brickgpu.nvmma_shared<{swizzle = 64, order = [1, 0]}>
#s = #brickgpu.shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]}>
module attributes {brickgpu.num_warps = 4 : i32} {
  // Into the dot operand's own buffer when it has the tensor map's layout (rows of 64 bytes: 64-byte swizzle).
  // CHECK-LABEL: func.func @operand
  // CHECK: %[[BUF:.*]] = brickgpu.local_alloc : () -> !brickgpu.memdesc<128x32xf16, #nvmma_shared>
  // CHECK-NEXT: %[[BAR:.*]] = brickgpu.local_alloc : () -> !brickgpu.memdesc<1xi64, #{{.*}}>
  // CHECK: brickgpu.barrier
  // CHECK-NEXT: brickgpu.init_barrier %[[BAR]], 1
  // CHECK-NEXT: brickgpu.barrier
  // CHECK-NEXT: brickgpu.barrier_expect %[[BAR]], 8192, %true
  // CHECK-NEXT: brickgpu.async_tma_copy_global_to_local %arg1[%arg3, %arg4] %[[BUF]], %[[BAR]], %true
  // CHECK-NEXT: brickgpu.wait_barrier %[[BAR]], %c0_i32 buffers %[[BUF]]
  // CHECK-NEXT: brickgpu.barrier
  // CHECK-NEXT: brickgpu.inval_barrier %[[BAR]]
  // CHECK-NEXT: return %[[BUF]]
  // CHECK-NOT: brick.make_tensor_descriptor
  func.func @operand(%p: !brick.ptr<f16>, %map: !brick.tensormap, %m: i32, %i: i32, %j: i32, %s: i64)
      -> !brickgpu.memdesc<128x32xf16, #a> {
    %c1_i64 = arith.constant 1 : i64
    %d = brick.make_tensor_descriptor %p, [%m, %m], [%s, %c1_i64], %map : !brick.ptr<f16> -> !brick.tensordesc<128x32xf16>
    %x = brick.descriptor_load %d[%i, %j] : !brick.tensordesc<128x32xf16> -> tensor<128x32xf16, #rows>
    %buffer = brickgpu.local_alloc %x : (tensor<128x32xf16, #rows>) -> !brickgpu.memdesc<128x32xf16, #a>
    return %buffer : !brickgpu.memdesc<128x32xf16, #a>
  }

  // Otherwise into a buffer of the tensor map's layout, read back into the load's registers.
  // CHECK-LABEL: func.func @registers
  // CHECK: %[[BUF:.*]] = brickgpu.local_alloc : () -> !brickgpu.memdesc<128x32xf16, #nvmma_shared>
  // CHECK: brickgpu.async_tma_copy_global_to_local %arg1[%arg3, %arg4] %[[BUF]]
  // CHECK: brickgpu.inval_barrier
  // CHECK-NEXT: %[[X:.*]] = brickgpu.local_load %[[BUF]] : {{.*}} -> tensor<128x32xf16, #blocked>
  // CHECK-NEXT: brickgpu.local_alloc %[[X]] : (tensor<128x32xf16, #blocked>) -> !brickgpu.memdesc<128x32xf16, #{{.*}}>
  func.func @registers(%p: !brick.ptr<f16>, %map: !brick.tensormap, %m: i32, %i: i32, %j: i32, %s: i64)
      -> !brickgpu.memdesc<128x32xf16, #s> {
    %c1_i64 = arith.constant 1 : i64
    %d = brick.make_tensor_descriptor %p, [%m, %m], [%s, %c1_i64], %map : !brick.ptr<f16> -> !brick.tensordesc<128x32xf16>
    %x = brick.descriptor_load %d[%i, %j] : !brick.tensordesc<128x32xf16> -> tensor<128x32xf16, #rows>
    %buffer = brickgpu.local_alloc %x : (tensor<128x32xf16, #rows>) -> !brickgpu.memdesc<128x32xf16, #s>
    return %buffer : !brickgpu.memdesc<128x32xf16, #s>
  }
}
