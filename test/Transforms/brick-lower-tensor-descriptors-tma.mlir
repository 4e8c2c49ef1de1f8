// With keep-for-tma (sm_90a), 2-D blocks of 1- or 2-byte elements whose rows fill a swizzle span (32 bytes or
// more) and which only dots read (directly, or transposed) stay descriptor loads, for TMA; every other block
// becomes a masked load. Stores of such blocks (1-, 2- or 4-byte elements) stay too, for TMA stores.
// RUN: brick-opt %s -split-input-file -brick-lower-tensor-descriptors=keep-for-tma=true | FileCheck %s
// RUN: brick-opt %s -split-input-file -brick-lower-tensor-descriptors | FileCheck %s --check-prefix=OFF

// CHECK-LABEL: func.func @dot_operands
// CHECK: %[[A:.*]] = brick.descriptor_load %{{.*}} -> tensor<64x32xf16>
// CHECK: %[[B:.*]] = brick.descriptor_load %{{.*}} -> tensor<32x64xf16>
// CHECK: brick.dot %[[A]], %[[B]]
// Read for a store: through pointers; the store stays.
// CHECK: %[[E:.*]] = brick.load {{.*}} : tensor<64x32x!brick.ptr<f16>>
// CHECK: brick.descriptor_store %{{.*}}, %[[E]]
// Rows of 16 bytes (no swizzle): through pointers; the other operand, 8 rows of 128 bytes, stays.
// CHECK: brick.load {{.*}} : tensor<64x8x!brick.ptr<f16>>
// CHECK: brick.descriptor_load {{.*}} -> tensor<8x64xf16>
// Blocks of fewer than 8 rows (one swizzle pattern): through pointers, loads and stores.
// CHECK: brick.load {{.*}} : tensor<4x64x!brick.ptr<f16>>
// CHECK: brick.store {{.*}} : tensor<4x64x!brick.ptr<f16>>
// A store into rows not known to end on 16 bytes (TMA would write up to the next 16): a masked store.
// CHECK: brick.store {{.*}} : tensor<64x32x!brick.ptr<f16>>
// CHECK-NOT: brick.descriptor_load
// OFF-LABEL: func.func @dot_operands
// OFF-NOT: brick.descriptor_load
func.func @dot_operands(%p: !brick.ptr<f16>, %q: !brick.ptr<f16>, %m: i32 {brick.divisibility = 16 : i32}, %s: i64,
                        %map: !brick.tensormap, %i: i32, %j: i32, %acc: tensor<64x64xf32>, %acc2: tensor<64x64xf32>,
                        %odd: i32) {
  %c1 = arith.constant 1 : i64
  %da = brick.make_tensor_descriptor %p, [%m, %m], [%s, %c1], %map : !brick.ptr<f16> -> !brick.tensordesc<64x32xf16>
  %db = brick.make_tensor_descriptor %p, [%m, %m], [%s, %c1], %map : !brick.ptr<f16> -> !brick.tensordesc<32x64xf16>
  %dn = brick.make_tensor_descriptor %p, [%m, %m], [%s, %c1], %map : !brick.ptr<f16> -> !brick.tensordesc<64x8xf16>
  %dk = brick.make_tensor_descriptor %p, [%m, %m], [%s, %c1], %map : !brick.ptr<f16> -> !brick.tensordesc<8x64xf16>
  %ds = brick.make_tensor_descriptor %p, [%m, %m], [%s, %c1], %map : !brick.ptr<f16> -> !brick.tensordesc<4x64xf16>
  %a = brick.descriptor_load %da[%i, %j] : !brick.tensordesc<64x32xf16> -> tensor<64x32xf16>
  %b = brick.descriptor_load %db[%j, %i] : !brick.tensordesc<32x64xf16> -> tensor<32x64xf16>
  %d = brick.dot %a, %b, %acc : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
  %e = brick.descriptor_load %da[%j, %i] : !brick.tensordesc<64x32xf16> -> tensor<64x32xf16>
  brick.descriptor_store %da[%i, %i], %e : !brick.tensordesc<64x32xf16>, tensor<64x32xf16>
  %n = brick.descriptor_load %dn[%i, %j] : !brick.tensordesc<64x8xf16> -> tensor<64x8xf16>
  %k = brick.descriptor_load %dk[%i, %j] : !brick.tensordesc<8x64xf16> -> tensor<8x64xf16>
  %d2 = brick.dot %n, %k, %acc2 : tensor<64x8xf16> * tensor<8x64xf16> -> tensor<64x64xf32>
  %sm = brick.descriptor_load %ds[%i, %j] : !brick.tensordesc<4x64xf16> -> tensor<4x64xf16>
  brick.descriptor_store %ds[%i, %j], %sm : !brick.tensordesc<4x64xf16>, tensor<4x64xf16>
  %dodd = brick.make_tensor_descriptor %p, [%m, %odd], [%s, %c1], %map : !brick.ptr<f16> -> !brick.tensordesc<64x32xf16>
  brick.descriptor_store %dodd[%i, %j], %e : !brick.tensordesc<64x32xf16>, tensor<64x32xf16>
  return
}

// -----

// f32 operands (tf32 stays on mma.sync, which reads registers): through pointers.
// CHECK-LABEL: func.func @f32_operands
// CHECK-NOT: brick.descriptor_load
func.func @f32_operands(%p: !brick.ptr<f32>, %m: i32, %s: i64, %map: !brick.tensormap, %i: i32,
                        %acc: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %c1 = arith.constant 1 : i64
  %da = brick.make_tensor_descriptor %p, [%m, %m], [%s, %c1], %map : !brick.ptr<f32> -> !brick.tensordesc<64x64xf32>
  %a = brick.descriptor_load %da[%i, %i] : !brick.tensordesc<64x64xf32> -> tensor<64x64xf32>
  %d = brick.dot %a, %a, %acc : tensor<64x64xf32> * tensor<64x64xf32> -> tensor<64x64xf32>
  return %d : tensor<64x64xf32>
}

// -----

// A block a dot reads transposed (x * W^T, W's [N, K] block) stays for TMA: wgmma (M a multiple of 64) reads
// the block in place, and mma.sync (a dot of 32 rows) through a transposed view of its buffer. Transposed for
// anything else (here, returned), or into a dot too small for mma.sync (8 rows), it goes through pointers.
// CHECK-LABEL: func.func @transposed_operand
// CHECK: %[[W:.*]] = brick.descriptor_load %{{.*}} -> tensor<64x32xf16>
// CHECK: %[[WT:.*]] = brick.trans %[[W]] [1, 0]
// CHECK: brick.dot %{{.*}}, %[[WT]]
// CHECK: brick.load {{.*}} : tensor<64x32x!brick.ptr<f16>>
// CHECK: brick.trans
// CHECK: %[[U:.*]] = brick.descriptor_load %{{.*}} -> tensor<64x32xf16>
// CHECK: %[[UT:.*]] = brick.trans %[[U]] [1, 0]
// CHECK: brick.dot %{{.*}}, %[[UT]]
// CHECK: brick.load {{.*}} : tensor<64x32x!brick.ptr<f16>>
// CHECK: brick.trans
// CHECK: brick.dot
// CHECK-NOT: brick.descriptor_load
func.func @transposed_operand(%p: !brick.ptr<f16>, %m: i32 {brick.divisibility = 16 : i32}, %s: i64,
                              %map: !brick.tensormap, %i: i32, %j: i32, %a: tensor<64x32xf16>, %acc: tensor<64x64xf32>,
                              %a32: tensor<32x32xf16>, %acc32: tensor<32x64xf32>, %a8: tensor<8x32xf16>,
                              %acc8: tensor<8x64xf32>)
    -> (tensor<64x64xf32>, tensor<32x64xf16>, tensor<32x64xf32>, tensor<8x64xf32>) {
  %c1 = arith.constant 1 : i64
  %dw = brick.make_tensor_descriptor %p, [%m, %m], [%s, %c1], %map : !brick.ptr<f16> -> !brick.tensordesc<64x32xf16>
  %w = brick.descriptor_load %dw[%i, %j] : !brick.tensordesc<64x32xf16> -> tensor<64x32xf16>
  %wt = brick.trans %w [1, 0] : tensor<64x32xf16> -> tensor<32x64xf16>
  %d = brick.dot %a, %wt, %acc : tensor<64x32xf16> * tensor<32x64xf16> -> tensor<64x64xf32>
  %v = brick.descriptor_load %dw[%j, %i] : !brick.tensordesc<64x32xf16> -> tensor<64x32xf16>
  %vt = brick.trans %v [1, 0] : tensor<64x32xf16> -> tensor<32x64xf16>
  %u = brick.descriptor_load %dw[%i, %i] : !brick.tensordesc<64x32xf16> -> tensor<64x32xf16>
  %ut = brick.trans %u [1, 0] : tensor<64x32xf16> -> tensor<32x64xf16>
  %small = brick.dot %a32, %ut, %acc32 : tensor<32x32xf16> * tensor<32x64xf16> -> tensor<32x64xf32>
  %x = brick.descriptor_load %dw[%j, %j] : !brick.tensordesc<64x32xf16> -> tensor<64x32xf16>
  %xt = brick.trans %x [1, 0] : tensor<64x32xf16> -> tensor<32x64xf16>
  %tiny = brick.dot %a8, %xt, %acc8 : tensor<8x32xf16> * tensor<32x64xf16> -> tensor<8x64xf32>
  return %d, %vt, %small, %tiny : tensor<64x64xf32>, tensor<32x64xf16>, tensor<32x64xf32>, tensor<8x64xf32>
}
