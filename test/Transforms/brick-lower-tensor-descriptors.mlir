// Tensor descriptor blocks as masked loads and stores: element (i + r, j + c) at base + (i + r) * s0 + (j + c) * s1
// (offsets in i64), inside the tensor only (0 <= i + r < rows, 0 <= j + c < cols, each an unsigned comparison);
// loads give zeros elsewhere.
// RUN: brick-opt %s -split-input-file -brick-lower-tensor-descriptors | FileCheck %s
// RUN: brick-opt %s -split-input-file -brick-lower-tensor-descriptors -canonicalize | FileCheck %s --check-prefix=CLEAN

// CHECK-LABEL: func.func @copy
// CHECK: %[[R:.*]] = brick.make_range 0, 64 : tensor<64xi32>
// CHECK: %[[RC:.*]] = brick.expand_dims %[[R]] {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
// CHECK: %[[RB:.*]] = brick.broadcast %[[RC]] : tensor<64x1xi32> -> tensor<64x32xi32>
// CHECK: %[[ROW:.*]] = arith.addi %[[RB]], %{{.*}} : tensor<64x32xi32>
// One unsigned comparison per dimension: a negative coordinate is above every extent.
// CHECK: arith.cmpi ult, %[[ROW]]
// CHECK: %[[WIDE:.*]] = arith.extsi %[[ROW]] : tensor<64x32xi32> to tensor<64x32xi64>
// CHECK: arith.muli %[[WIDE]], %{{.*}} : tensor<64x32xi64>
// CHECK: %[[C:.*]] = brick.make_range 0, 32 : tensor<32xi32>
// CHECK: brick.expand_dims %[[C]] {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
// CHECK: %[[PTRS:.*]] = brick.addptr %{{.*}}, %{{.*}} : tensor<64x32x!brick.ptr<f16>>, tensor<64x32xi64>
// CHECK: %[[X:.*]] = brick.load %[[PTRS]], %[[MASK:.*]], %{{.*}} : tensor<64x32x!brick.ptr<f16>>
// CHECK: brick.store %{{.*}}, %[[X]], %{{.*}} : tensor<64x32x!brick.ptr<f16>>
// CHECK-NOT: descriptor
// CLEAN-NOT: brick.make_tensor_descriptor
func.func @copy(%p: !brick.ptr<f16>, %m: i32, %n: i32, %s0: i64, %map: !brick.tensormap, %i: i32, %j: i32) attributes {brick.kernel} {
  %c1 = arith.constant 1 : i64
  %d = brick.make_tensor_descriptor %p, [%m, %n], [%s0, %c1], %map : !brick.ptr<f16> -> !brick.tensordesc<64x32xf16>
  %x = brick.descriptor_load %d[%i, %j] : !brick.tensordesc<64x32xf16> -> tensor<64x32xf16>
  brick.descriptor_store %d[%j, %i], %x : !brick.tensordesc<64x32xf16>, tensor<64x32xf16>
  return
}

// -----

// One dimension: no broadcast.
// CHECK-LABEL: func.func @line
// CHECK: %[[R:.*]] = brick.make_range 0, 128 : tensor<128xi32>
// CHECK-NOT: brick.broadcast
// CHECK: brick.load {{.*}} : tensor<128x!brick.ptr<f32>>
func.func @line(%p: !brick.ptr<f32>, %n: i32, %map: !brick.tensormap, %i: i32) -> tensor<128xf32> {
  %c1 = arith.constant 1 : i64
  %d = brick.make_tensor_descriptor %p, [%n], [%c1], %map : !brick.ptr<f32> -> !brick.tensordesc<128xf32>
  %x = brick.descriptor_load %d[%i] : !brick.tensordesc<128xf32> -> tensor<128xf32>
  return %x : tensor<128xf32>
}

// -----

// A shared block's promise: gone without check-cluster-sharing, a brick.cluster_shared of its condition and
// indices before the load with it (the interpreter's).
// RUN: brick-opt %s -split-input-file -brick-lower-tensor-descriptors=check-cluster-sharing | FileCheck %s --check-prefix=PROMISE
// CHECK-LABEL: func.func @shared
// CHECK-NOT: brick.cluster_shared
// CHECK: brick.load
// PROMISE-LABEL: func.func @shared
// PROMISE: brick.cluster_shared %{{.*}}[%{{.*}}, %{{.*}}]
// PROMISE-NEXT: brick.make_range
// PROMISE: brick.load
func.func @shared(%p: !brick.ptr<f16>, %m: i32, %n: i32, %s0: i64, %map: !brick.tensormap, %i: i32, %j: i32, %when: i1) -> tensor<64x32xf16> {
  %c1 = arith.constant 1 : i64
  %d = brick.make_tensor_descriptor %p, [%m, %n], [%s0, %c1], %map : !brick.ptr<f16> -> !brick.tensordesc<64x32xf16>
  %x = brick.descriptor_load %d[%i, %j] shared_by_cluster %when : !brick.tensordesc<64x32xf16> -> tensor<64x32xf16>
  return %x : tensor<64x32xf16>
}
