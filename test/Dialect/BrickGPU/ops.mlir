// The brickgpu layouts, types and ops print and parse back.
// RUN: brick-opt %s | brick-opt | FileCheck %s
// RUN: brick-opt %s --mlir-print-op-generic | brick-opt | FileCheck %s
// RUN: brick-opt %s -canonicalize | FileCheck %s --check-prefix=FOLD

// CHECK-DAG: #[[BLOCKED:.*]] = #brickgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]}>
// CHECK-DAG: #[[SLICE:.*]] = #brickgpu.slice<{dim = 0, parent = #[[BLOCKED]]}>
// CHECK-DAG: #[[SHARED:.*]] = #brickgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
// CHECK-DAG: #[[MMA:.*]] = #brickgpu.mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
// CHECK-DAG: #[[A:.*]] = #brickgpu.dot_op<{opIdx = 0, parent = #[[MMA]], kWidth = 2}>
#blocked = #brickgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [2, 2], order = [1, 0]}>
#other = #brickgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [0, 1]}>
#slice = #brickgpu.slice<{dim = 0, parent = #blocked}>
#shared = #brickgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>

// CHECK-LABEL: func.func @ops
func.func @ops(%x: tensor<64x64xf16, #blocked>, %r: tensor<64xi32, #slice>) -> tensor<64x64xf16, #other> {
  // CHECK: brickgpu.convert_layout %{{.*}} : tensor<64x64xf16, #[[BLOCKED]]> -> tensor<64x64xf16, #{{.*}}>
  %y = brickgpu.convert_layout %x : tensor<64x64xf16, #blocked> -> tensor<64x64xf16, #other>
  // CHECK: brickgpu.local_alloc %{{.*}} : (tensor<64x64xf16, #[[BLOCKED]]>) -> !brickgpu.memdesc<64x64xf16, #[[SHARED]]>
  %buf = brickgpu.local_alloc %x : (tensor<64x64xf16, #blocked>) -> !brickgpu.memdesc<64x64xf16, #shared>
  // CHECK: brickgpu.local_alloc : () -> !brickgpu.memdesc<64x64xf16, #[[SHARED]]>
  %empty = brickgpu.local_alloc : () -> !brickgpu.memdesc<64x64xf16, #shared>
  // CHECK: brickgpu.local_store %{{.*}}, %{{.*}} : tensor<64x64xf16, #[[BLOCKED]]> -> !brickgpu.memdesc<64x64xf16, #[[SHARED]]>
  brickgpu.local_store %x, %empty : tensor<64x64xf16, #blocked> -> !brickgpu.memdesc<64x64xf16, #shared>
  // CHECK: brickgpu.barrier
  brickgpu.barrier
  // CHECK: brickgpu.local_load %{{.*}} : !brickgpu.memdesc<64x64xf16, #[[SHARED]]> -> tensor<64x64xf16, #[[BLOCKED]]>
  %z = brickgpu.local_load %buf : !brickgpu.memdesc<64x64xf16, #shared> -> tensor<64x64xf16, #blocked>
  // CHECK: brick.expand_dims %{{.*}} {axis = 0 : i32} : tensor<64xi32, #[[SLICE]]> -> tensor<1x64xi32, #[[BLOCKED]]>
  %e = brick.expand_dims %r {axis = 0 : i32} : tensor<64xi32, #slice> -> tensor<1x64xi32, #blocked>
  return %y : tensor<64x64xf16, #other>
}

// A conversion to the same layout folds away.
// FOLD-LABEL: func.func @fold
// FOLD-SAME: (%[[X:.*]]: tensor<64x64xf16, #{{.*}}>)
// FOLD-NEXT: return %[[X]]
func.func @fold(%x: tensor<64x64xf16, #blocked>) -> tensor<64x64xf16, #blocked> {
  %y = brickgpu.convert_layout %x : tensor<64x64xf16, #blocked> -> tensor<64x64xf16, #blocked>
  return %y : tensor<64x64xf16, #blocked>
}

// Tensor-core layouts, rings of buffers and asynchronous copies.
#mma = #brickgpu.mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#a = #brickgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>

// CHECK-LABEL: func.func @async
func.func @async(%p: tensor<64x64x!brick.ptr<f16>, #blocked>, %m: tensor<64x64xi1, #blocked>, %i: i32) -> tensor<64x64xf16, #a> {
  // CHECK: %[[RING:.*]] = brickgpu.local_alloc : () -> !brickgpu.memdesc<3x64x64xf16, #[[SHARED]]>
  %ring = brickgpu.local_alloc : () -> !brickgpu.memdesc<3x64x64xf16, #shared>
  // CHECK: %[[SLOT:.*]] = brickgpu.memdesc_index %[[RING]][%{{.*}}] : !brickgpu.memdesc<3x64x64xf16, #[[SHARED]]> -> !brickgpu.memdesc<64x64xf16, #[[SHARED]]>
  %slot = brickgpu.memdesc_index %ring[%i] : !brickgpu.memdesc<3x64x64xf16, #shared> -> !brickgpu.memdesc<64x64xf16, #shared>
  // CHECK: brickgpu.async_copy_global_to_local %{{.*}}, %[[SLOT]] mask %{{.*}} : tensor<64x64x!brick.ptr<f16>, #[[BLOCKED]]> -> !brickgpu.memdesc<64x64xf16, #[[SHARED]]>, tensor<64x64xi1, #[[BLOCKED]]>
  brickgpu.async_copy_global_to_local %p, %slot mask %m : tensor<64x64x!brick.ptr<f16>, #blocked> -> !brickgpu.memdesc<64x64xf16, #shared>, tensor<64x64xi1, #blocked>
  // CHECK: brickgpu.async_copy_global_to_local %{{.*}}, %[[SLOT]] : tensor<64x64x!brick.ptr<f16>, #[[BLOCKED]]> -> !brickgpu.memdesc<64x64xf16, #[[SHARED]]>
  brickgpu.async_copy_global_to_local %p, %slot : tensor<64x64x!brick.ptr<f16>, #blocked> -> !brickgpu.memdesc<64x64xf16, #shared>
  // CHECK: brickgpu.async_commit_group
  brickgpu.async_commit_group
  // CHECK: brickgpu.async_wait {pending = 1 : i32}
  brickgpu.async_wait {pending = 1 : i32}
  // CHECK: brickgpu.async_wait %[[RING]] : !brickgpu.memdesc<3x64x64xf16, #[[SHARED]]> {pending = 0 : i32}
  brickgpu.async_wait %ring : !brickgpu.memdesc<3x64x64xf16, #shared> {pending = 0 : i32}
  // CHECK: brickgpu.local_load %[[SLOT]] : !brickgpu.memdesc<64x64xf16, #[[SHARED]]> -> tensor<64x64xf16, #[[A]]>
  %x = brickgpu.local_load %slot : !brickgpu.memdesc<64x64xf16, #shared> -> tensor<64x64xf16, #a>
  return %x : tensor<64x64xf16, #a>
}
