// Descriptor stores kept for TMA: the block through a shared buffer in the tensor map's layout, TMA stores.
// RUN: brick-opt %s -brickgpu-lower-descriptor-stores | FileCheck %s

#mma = #brickgpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128]}>
#rows = #brickgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#narrow = #brickgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {brickgpu.num_warps = 4 : i32} {
  // The conversion to the coalesced layout is skipped: the accumulator's registers go to shared memory as they
  // are. Rows of 256 bytes are two 128-byte-swizzled TMA boxes of 64 columns, and every thread holds the same
  // registers of each box (wgmma's accumulator): one box-sized buffer takes the block a box at a time, each
  // written (after the wait that the buffer's last store read it) and stored by TMA at its own column; the
  // local_store's lowering brings the barriers and the fence for the async proxy. The last store's read is
  // waited for after it.
  // CHECK-LABEL: func.func @epilogue
  // CHECK-NOT: convert_layout
  // CHECK-NOT: brick.make_tensor_descriptor
  // CHECK: %[[BUF:.*]] = brickgpu.local_alloc : () -> !brickgpu.memdesc<64x64xf16, #nvmma_shared>
  // CHECK-NEXT: brickgpu.async_tma_store_wait
  // CHECK-NEXT: brickgpu.local_store %arg5, %[[BUF]] {column_offset = 0 : i64} : tensor<64x128xf16, #mma>
  // CHECK-NEXT: brickgpu.async_tma_copy_local_to_global %arg1[%arg3, %arg4] %[[BUF]]
  // CHECK-NEXT: brickgpu.async_tma_store_wait
  // CHECK-NEXT: brickgpu.local_store %arg5, %[[BUF]] {column_offset = 64 : i64} : tensor<64x128xf16, #mma>
  // CHECK-NEXT: %[[C64:.*]] = arith.constant 64 : i32
  // CHECK-NEXT: %[[J64:.*]] = arith.addi %arg4, %[[C64]]
  // CHECK-NEXT: brickgpu.async_tma_copy_local_to_global %arg1[%arg3, %[[J64]]] %[[BUF]]
  // CHECK-NEXT: brickgpu.async_tma_store_wait
  // CHECK-NEXT: brickgpu.barrier
  // CHECK-NOT: async_tma_copy_local_to_global
  // CHECK: return
  func.func @epilogue(%p: !brick.ptr<f16>, %map: !brick.tensormap, %m: i32, %i: i32, %j: i32,
                      %acc: tensor<64x128xf16, #mma>, %s: i64) {
    %c1_i64 = arith.constant 1 : i64
    %d = brick.make_tensor_descriptor %p, [%m, %m], [%s, %c1_i64], %map : !brick.ptr<f16> -> !brick.tensordesc<64x128xf16>
    %x = brickgpu.convert_layout %acc : tensor<64x128xf16, #mma> -> tensor<64x128xf16, #rows>
    brick.descriptor_store %d[%i, %j], %x : !brick.tensordesc<64x128xf16>, tensor<64x128xf16, #rows>
    return
  }

  // In a loop (a persistent kernel's tiles) the buffer is made before the loop and the last wait follows it:
  // each store's read overlaps the rest of its iteration and the next one's until the buffer is written again.
  // CHECK-LABEL: func.func @tiles
  // CHECK: %[[BUF:.*]] = brickgpu.local_alloc : () -> !brickgpu.memdesc<64x64xf16, #nvmma_shared>
  // CHECK-NEXT: scf.for
  // CHECK-NEXT: brickgpu.async_tma_store_wait
  // CHECK-NEXT: brickgpu.local_store %arg5, %[[BUF]] {column_offset = 0 : i64}
  // CHECK: brickgpu.async_tma_copy_local_to_global
  // CHECK: brickgpu.async_tma_store_wait
  // CHECK-NEXT: brickgpu.local_store %arg5, %[[BUF]] {column_offset = 64 : i64}
  // CHECK: brickgpu.async_tma_copy_local_to_global
  // CHECK-NOT: brickgpu.async_tma_store_wait
  // CHECK: }
  // CHECK-NEXT: brickgpu.async_tma_store_wait
  // CHECK-NEXT: brickgpu.barrier
  // CHECK-NEXT: return
  func.func @tiles(%p: !brick.ptr<f16>, %map: !brick.tensormap, %m: i32, %i: i32, %j: i32,
                   %acc: tensor<64x128xf16, #mma>, %s: i64, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c1_i64 = arith.constant 1 : i64
    %d = brick.make_tensor_descriptor %p, [%m, %m], [%s, %c1_i64], %map : !brick.ptr<f16> -> !brick.tensordesc<64x128xf16>
    scf.for %t = %c0 to %n step %c1 : i32 {
      brick.descriptor_store %d[%t, %j], %acc : !brick.tensordesc<64x128xf16>, tensor<64x128xf16, #mma>
    }
    return
  }

  // Two stores under an scf.if in an inner loop: one buffer for the loop nest, made before the outer loop, and one
  // final wait after it.
  // CHECK-LABEL: func.func @nested
  // CHECK: %[[BUF:.*]] = brickgpu.local_alloc : () -> !brickgpu.memdesc<64x64xf16, #nvmma_shared>
  // CHECK-NOT: brickgpu.local_alloc
  // CHECK-NEXT: scf.for
  // CHECK-NEXT: scf.for
  // CHECK-NEXT: scf.if
  // CHECK-COUNT-2: brickgpu.local_store %arg5, %[[BUF]] {column_offset = {{.*}}}
  // CHECK-COUNT-2: brickgpu.local_store %arg6, %[[BUF]] {column_offset = {{.*}}}
  // CHECK-NOT: brickgpu.local_alloc
  // CHECK-NOT: brickgpu.async_tma_store_wait
  // CHECK: } {outer}
  // CHECK-NEXT: brickgpu.async_tma_store_wait
  // CHECK-NEXT: brickgpu.barrier
  // CHECK-NEXT: return
  func.func @nested(%p: !brick.ptr<f16>, %map: !brick.tensormap, %m: i32, %i: i32, %j: i32,
                    %acc: tensor<64x128xf16, #mma>, %acc2: tensor<64x128xf16, #mma>, %s: i64, %n: i32, %c: i1) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c1_i64 = arith.constant 1 : i64
    %d = brick.make_tensor_descriptor %p, [%m, %m], [%s, %c1_i64], %map : !brick.ptr<f16> -> !brick.tensordesc<64x128xf16>
    scf.for %t = %c0 to %n step %c1 : i32 {
      scf.for %u = %c0 to %n step %c1 : i32 {
        scf.if %c {
          brick.descriptor_store %d[%t, %u], %acc : !brick.tensordesc<64x128xf16>, tensor<64x128xf16, #mma>
          brick.descriptor_store %d[%u, %t], %acc2 : !brick.tensordesc<64x128xf16>, tensor<64x128xf16, #mma>
        }
      }
    } {outer}
    return
  }

  // brickgpu-warp-specialize spreads a block's windows over K steps: a store of one window writes that window
  // only, at its column, through the loop nest's buffer.
  // CHECK-LABEL: func.func @one_window
  // CHECK: %[[BUF:.*]] = brickgpu.local_alloc : () -> !brickgpu.memdesc<64x64xf16, #nvmma_shared>
  // CHECK-NEXT: scf.for
  // CHECK-NEXT: brickgpu.async_tma_store_wait
  // CHECK-NEXT: brickgpu.local_store %arg5, %[[BUF]] {column_offset = 64 : i64}
  // CHECK-NEXT: %[[C64:.*]] = arith.constant 64 : i32
  // CHECK-NEXT: %[[J64:.*]] = arith.addi %arg4, %[[C64]]
  // CHECK-NEXT: brickgpu.async_tma_copy_local_to_global %arg1[%{{.*}}, %[[J64]]] %[[BUF]]
  // CHECK-NEXT: }
  // CHECK-NOT: brickgpu.local_store
  // CHECK: return
  func.func @one_window(%p: !brick.ptr<f16>, %map: !brick.tensormap, %m: i32, %i: i32, %j: i32,
                        %acc: tensor<64x128xf16, #mma>, %s: i64, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c1_i64 = arith.constant 1 : i64
    %d = brick.make_tensor_descriptor %p, [%m, %m], [%s, %c1_i64], %map : !brick.ptr<f16> -> !brick.tensordesc<64x128xf16>
    scf.for %t = %c0 to %n step %c1 : i32 {
      brick.descriptor_store %d[%t, %j], %acc {brickgpu.store_window = 1 : i64} : !brick.tensordesc<64x128xf16>, tensor<64x128xf16, #mma>
    }
    return
  }

  // A layout whose lanes spread over both boxes (16 lanes x 8 columns) stores the whole block from one buffer.
  // CHECK-LABEL: func.func @lanes_across_boxes
  // CHECK: %[[BUF:.*]] = brickgpu.local_alloc : () -> !brickgpu.memdesc<64x128xf16, #nvmma_shared>
  // CHECK: brickgpu.local_store %arg5, %[[BUF]] : tensor<64x128xf16, #blocked>
  // CHECK: brickgpu.async_tma_copy_local_to_global %arg1[%arg3, %arg4] %[[BUF]]
  // CHECK-NOT: async_tma_copy_local_to_global
  func.func @lanes_across_boxes(%p: !brick.ptr<f16>, %map: !brick.tensormap, %m: i32, %i: i32, %j: i32,
                                %x: tensor<64x128xf16, #rows>, %s: i64) {
    %c1_i64 = arith.constant 1 : i64
    %d = brick.make_tensor_descriptor %p, [%m, %m], [%s, %c1_i64], %map : !brick.ptr<f16> -> !brick.tensordesc<64x128xf16>
    brick.descriptor_store %d[%i, %j], %x : !brick.tensordesc<64x128xf16>, tensor<64x128xf16, #rows>
    return
  }

  // A block of one box (rows of 128 bytes) needs no window.
  // CHECK-LABEL: func.func @one_box
  // CHECK: %[[BUF:.*]] = brickgpu.local_alloc : () -> !brickgpu.memdesc<64x64xf16, #nvmma_shared>
  // CHECK: brickgpu.local_store %arg5, %[[BUF]] : tensor<64x64xf16, #blocked1>
  // CHECK: brickgpu.async_tma_copy_local_to_global %arg1[%arg3, %arg4] %[[BUF]]
  // CHECK-NOT: async_tma_copy_local_to_global
  func.func @one_box(%p: !brick.ptr<f16>, %map: !brick.tensormap, %m: i32, %i: i32, %j: i32,
                     %x: tensor<64x64xf16, #narrow>, %s: i64) {
    %c1_i64 = arith.constant 1 : i64
    %d = brick.make_tensor_descriptor %p, [%m, %m], [%s, %c1_i64], %map : !brick.ptr<f16> -> !brick.tensordesc<64x64xf16>
    brick.descriptor_store %d[%i, %j], %x : !brick.tensordesc<64x64xf16>, tensor<64x64xf16, #narrow>
    return
  }
}
