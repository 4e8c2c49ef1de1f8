// Folds and canonicalization patterns of the brick ops.
// RUN: brick-opt %s -canonicalize -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @splat_of_constant
// CHECK: %[[C:.*]] = arith.constant dense<2.500000e+00> : tensor<64xf32>
// CHECK-NOT: brick.splat
// CHECK: return %[[C]]
func.func @splat_of_constant() -> tensor<64xf32> {
  %c = arith.constant 2.5 : f32
  %0 = brick.splat %c : tensor<64xf32>
  return %0 : tensor<64xf32>
}

// -----

// CHECK-LABEL: func.func @addptr_by_zero
// CHECK-SAME: (%[[P:.*]]: tensor<32x!brick.ptr<f16>>, %[[Q:.*]]: !brick.ptr<f16>)
// CHECK-NOT: brick.addptr
// CHECK: return %[[P]], %[[Q]]
func.func @addptr_by_zero(%p: tensor<32x!brick.ptr<f16>>, %q: !brick.ptr<f16>) -> (tensor<32x!brick.ptr<f16>>, !brick.ptr<f16>) {
  %z = arith.constant dense<0> : tensor<32xi32>
  %0 = brick.addptr %p, %z : tensor<32x!brick.ptr<f16>>, tensor<32xi32>
  %zs = arith.constant 0 : i64
  %1 = brick.addptr %q, %zs : !brick.ptr<f16>, i64
  return %0, %1 : tensor<32x!brick.ptr<f16>>, !brick.ptr<f16>
}

// -----

// CHECK-LABEL: func.func @addptr_of_splats
// CHECK-SAME: (%[[P:.*]]: !brick.ptr<f32>, %[[O:.*]]: i32)
// CHECK: %[[S:.*]] = brick.addptr %[[P]], %[[O]] : !brick.ptr<f32>, i32
// CHECK: %[[B:.*]] = brick.splat %[[S]] : tensor<16x!brick.ptr<f32>>
// CHECK: return %[[B]]
func.func @addptr_of_splats(%p: !brick.ptr<f32>, %o: i32) -> tensor<16x!brick.ptr<f32>> {
  %ps = brick.splat %p : tensor<16x!brick.ptr<f32>>
  %os = brick.splat %o : tensor<16xi32>
  %0 = brick.addptr %ps, %os : tensor<16x!brick.ptr<f32>>, tensor<16xi32>
  return %0 : tensor<16x!brick.ptr<f32>>
}

// -----

// Two steps become one, summed in i64: each step sign-extends its offset, so a narrower sum could wrap where the
// steps do not.
// CHECK-LABEL: func.func @addptr_chain
// CHECK-SAME: (%[[P:.*]]: tensor<16x!brick.ptr<f32>>, %[[A:.*]]: tensor<16xi32>, %[[B:.*]]: tensor<16xi32>)
// CHECK-DAG: %[[WA:.*]] = arith.extsi %[[A]] : tensor<16xi32> to tensor<16xi64>
// CHECK-DAG: %[[WB:.*]] = arith.extsi %[[B]] : tensor<16xi32> to tensor<16xi64>
// CHECK: %[[SUM:.*]] = arith.addi %[[WA]], %[[WB]] : tensor<16xi64>
// CHECK: %[[R:.*]] = brick.addptr %[[P]], %[[SUM]] : tensor<16x!brick.ptr<f32>>, tensor<16xi64>
// CHECK: return %[[R]]
func.func @addptr_chain(%p: tensor<16x!brick.ptr<f32>>, %a: tensor<16xi32>, %b: tensor<16xi32>) -> tensor<16x!brick.ptr<f32>> {
  %0 = brick.addptr %p, %a : tensor<16x!brick.ptr<f32>>, tensor<16xi32>
  %1 = brick.addptr %0, %b : tensor<16x!brick.ptr<f32>>, tensor<16xi32>
  return %1 : tensor<16x!brick.ptr<f32>>
}

// -----

// Found by brick-fuzz-interpreter: two i1 steps of true (-1 each) were summed in i1 to false (no step at all), and
// two i8 steps of 100 to -56. Offsets of different types combine too, each widened.
// CHECK-LABEL: func.func @addptr_chain_of_narrow_offsets
// CHECK-SAME: (%[[P:.*]]: !brick.ptr<f16>, %[[A:.*]]: i1, %[[B:.*]]: i8, %[[C:.*]]: i64)
// CHECK-DAG: %[[WA:.*]] = arith.extsi %[[A]] : i1 to i64
// CHECK-DAG: %[[WB:.*]] = arith.extsi %[[B]] : i8 to i64
// CHECK: %[[AB:.*]] = arith.addi %[[WA]], %[[WB]] : i64
// CHECK: %[[ABC:.*]] = arith.addi %[[AB]], %[[C]] : i64
// CHECK: %[[R:.*]] = brick.addptr %[[P]], %[[ABC]] : !brick.ptr<f16>, i64
// CHECK: return %[[R]]
func.func @addptr_chain_of_narrow_offsets(%p: !brick.ptr<f16>, %a: i1, %b: i8, %c: i64) -> !brick.ptr<f16> {
  %0 = brick.addptr %p, %a : !brick.ptr<f16>, i1
  %1 = brick.addptr %0, %b : !brick.ptr<f16>, i8
  %2 = brick.addptr %1, %c : !brick.ptr<f16>, i64
  return %2 : !brick.ptr<f16>
}

// -----

// CHECK-LABEL: func.func @broadcast_of_splat
// CHECK-SAME: (%[[X:.*]]: i32)
// CHECK: %[[S:.*]] = brick.splat %[[X]] : tensor<8x16xi32>
// CHECK-NOT: brick.broadcast
// CHECK: return %[[S]]
func.func @broadcast_of_splat(%x: i32) -> tensor<8x16xi32> {
  %0 = brick.splat %x : tensor<1x16xi32>
  %1 = brick.broadcast %0 : tensor<1x16xi32> -> tensor<8x16xi32>
  return %1 : tensor<8x16xi32>
}

// -----

// CHECK-LABEL: func.func @broadcast_chain
// CHECK: brick.broadcast %{{.*}} : tensor<1x1xf32> -> tensor<8x16xf32>
// CHECK-NOT: brick.broadcast
func.func @broadcast_chain(%x: tensor<1x1xf32>) -> tensor<8x16xf32> {
  %0 = brick.broadcast %x : tensor<1x1xf32> -> tensor<1x16xf32>
  %1 = brick.broadcast %0 : tensor<1x16xf32> -> tensor<8x16xf32>
  return %1 : tensor<8x16xf32>
}

// -----

// CHECK-LABEL: func.func @shape_ops_of_constants
// CHECK-DAG: arith.constant dense<1.000000e+00> : tensor<4x1xf32>
// CHECK-DAG: arith.constant dense<1.000000e+00> : tensor<1x4xf32>
// CHECK-DAG: arith.constant dense<1.000000e+00> : tensor<2x2xf32>
// CHECK-DAG: arith.constant dense<1.000000e+00> : tensor<4x4xf32>
// CHECK-NOT: brick.
func.func @shape_ops_of_constants() -> (tensor<4x1xf32>, tensor<1x4xf32>, tensor<2x2xf32>, tensor<4x4xf32>) {
  %c = arith.constant dense<1.0> : tensor<4xf32>
  %0 = brick.expand_dims %c {axis = 1 : i32} : tensor<4xf32> -> tensor<4x1xf32>
  %1 = brick.trans %0 [1, 0] : tensor<4x1xf32> -> tensor<1x4xf32>
  %2 = brick.reshape %c : tensor<4xf32> -> tensor<2x2xf32>
  %3 = brick.broadcast %1 : tensor<1x4xf32> -> tensor<4x4xf32>
  return %0, %1, %2, %3 : tensor<4x1xf32>, tensor<1x4xf32>, tensor<2x2xf32>, tensor<4x4xf32>
}

// -----

// CHECK-LABEL: func.func @shape_ops_of_splat
// CHECK-SAME: (%[[X:.*]]: f16)
// CHECK-DAG: brick.splat %[[X]] : tensor<4x1xf16>
// CHECK-DAG: brick.splat %[[X]] : tensor<1x4xf16>
// CHECK-DAG: brick.splat %[[X]] : tensor<2x2xf16>
// CHECK-NOT: brick.expand_dims
// CHECK-NOT: brick.trans
// CHECK-NOT: brick.reshape
func.func @shape_ops_of_splat(%x: f16) -> (tensor<4x1xf16>, tensor<1x4xf16>, tensor<2x2xf16>) {
  %s = brick.splat %x : tensor<4xf16>
  %0 = brick.expand_dims %s {axis = 1 : i32} : tensor<4xf16> -> tensor<4x1xf16>
  %1 = brick.trans %0 [1, 0] : tensor<4x1xf16> -> tensor<1x4xf16>
  %2 = brick.reshape %s : tensor<4xf16> -> tensor<2x2xf16>
  return %0, %1, %2 : tensor<4x1xf16>, tensor<1x4xf16>, tensor<2x2xf16>
}

// -----

// CHECK-LABEL: func.func @identity_shape_ops
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: return %[[X]], %[[X]], %[[X]]
func.func @identity_shape_ops(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = brick.trans %x [0, 1] : tensor<4x8xf32> -> tensor<4x8xf32>
  %1 = brick.reshape %x : tensor<4x8xf32> -> tensor<4x8xf32>
  %2 = brick.broadcast %x : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0, %1, %2 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_and_trans_chains
// CHECK: brick.reshape %{{.*}} : tensor<4x8xf32> -> tensor<32xf32>
// CHECK-NOT: brick.reshape
// CHECK: brick.trans %{{.*}} [2, 0, 1] : tensor<2x4x8xf32> -> tensor<8x2x4xf32>
// CHECK-NOT: brick.trans
func.func @reshape_and_trans_chains(%x: tensor<4x8xf32>, %y: tensor<2x4x8xf32>) -> (tensor<32xf32>, tensor<8x2x4xf32>) {
  %0 = brick.reshape %x : tensor<4x8xf32> -> tensor<2x16xf32>
  %1 = brick.reshape %0 : tensor<2x16xf32> -> tensor<32xf32>
  %2 = brick.trans %y [1, 0, 2] : tensor<2x4x8xf32> -> tensor<4x2x8xf32>
  %3 = brick.trans %2 [2, 1, 0] : tensor<4x2x8xf32> -> tensor<8x2x4xf32>
  return %1, %3 : tensor<32xf32>, tensor<8x2x4xf32>
}

// -----

// CHECK-LABEL: func.func @constant_masks
// CHECK-SAME: (%[[P:.*]]: tensor<8x!brick.ptr<f32>>, %[[O:.*]]: tensor<8xf32>)
// CHECK: %[[L:.*]] = brick.load %[[P]] : tensor<8x!brick.ptr<f32>>
// CHECK: brick.store %[[P]], %[[L]] : tensor<8x!brick.ptr<f32>>
// CHECK-NOT: brick.store
// CHECK: return %[[L]], %[[O]]
func.func @constant_masks(%p: tensor<8x!brick.ptr<f32>>, %o: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %t = arith.constant dense<true> : tensor<8xi1>
  %f = arith.constant dense<false> : tensor<8xi1>
  %0 = brick.load %p, %t, %o : tensor<8x!brick.ptr<f32>>
  %1 = brick.load %p, %f, %o : tensor<8x!brick.ptr<f32>>
  brick.store %p, %0, %t : tensor<8x!brick.ptr<f32>>
  brick.store %p, %1, %f : tensor<8x!brick.ptr<f32>>
  return %0, %1 : tensor<8xf32>, tensor<8xf32>
}

// -----

// A volatile load under a false mask stays: it must not be removed.
// CHECK-LABEL: func.func @volatile_load_stays
// CHECK: brick.load %{{.*}}, %{{.*}}, %{{.*}} volatile
func.func @volatile_load_stays(%p: tensor<8x!brick.ptr<f32>>, %o: tensor<8xf32>) -> tensor<8xf32> {
  %f = arith.constant dense<false> : tensor<8xi1>
  %0 = brick.load %p, %f, %o volatile : tensor<8x!brick.ptr<f32>>
  return %0 : tensor<8xf32>
}

// -----

// Loads without uses disappear; stores and atomics stay.
// CHECK-LABEL: func.func @dead_memory_ops
// CHECK-NOT: brick.load
// CHECK: brick.atomic_rmw
// CHECK: brick.store
func.func @dead_memory_ops(%p: tensor<8x!brick.ptr<i32>>, %v: tensor<8xi32>) {
  %0 = brick.load %p : tensor<8x!brick.ptr<i32>>
  %1 = brick.atomic_rmw add, relaxed, gpu, %p, %v : tensor<8x!brick.ptr<i32>>
  brick.store %p, %v : tensor<8x!brick.ptr<i32>>
  return
}

// -----

// A float comparison whose predicate is `false` or `true` is that constant; upstream's CmpFIntToFPConst crashed on
// these (llvm_unreachable) when the left side came from an integer and the right was a constant. Found by
// brick-fuzz-interpreter. (The pattern is the brick dialect's, so it applies where brick is loaded: in every kernel,
// and here through brick.splat.)
// CHECK-LABEL: func.func @always_false_and_true_float_comparisons
// CHECK-DAG: %[[F:.*]] = arith.constant false
// CHECK-DAG: %[[T:.*]] = arith.constant true
// CHECK-DAG: %[[FS:.*]] = arith.constant dense<false> : tensor<8xi1>
// CHECK-NOT: arith.cmpf
// CHECK: return %[[F]], %[[T]], %[[FS]]
func.func @always_false_and_true_float_comparisons(%x: i32, %y: i64, %w: f32) -> (i1, i1, tensor<8xi1>) {
  %a = arith.uitofp %x : i32 to bf16
  %zero = arith.constant 0.0 : bf16
  %0 = arith.cmpf false, %a, %zero : bf16
  %b = arith.sitofp %y : i64 to f32
  %one = arith.constant 1.0 : f32
  %1 = arith.cmpf true, %b, %one : f32
  %z = brick.splat %w : tensor<8xf32>
  %2 = arith.cmpf false, %z, %z : tensor<8xf32>
  return %0, %1, %2 : i1, i1, tensor<8xi1>
}
