// RUN: brick-opt %s -brick-combine -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @dot_plus_bias
// CHECK-SAME: (%[[A:.*]]: tensor<64x32xf16>, %[[B:.*]]: tensor<32x16xf16>, %[[D:.*]]: tensor<64x16xf32>)
// CHECK: %[[R:.*]] = brick.dot %[[A]], %[[B]], %[[D]]
// CHECK-NOT: arith.addf
// CHECK: return %[[R]]
func.func @dot_plus_bias(%a: tensor<64x32xf16>, %b: tensor<32x16xf16>, %d: tensor<64x16xf32>) -> tensor<64x16xf32> {
  %z = arith.constant dense<0.0> : tensor<64x16xf32>
  %0 = brick.dot %a, %b, %z : tensor<64x32xf16> * tensor<32x16xf16> -> tensor<64x16xf32>
  %1 = arith.addf %0, %d : tensor<64x16xf32>
  return %1 : tensor<64x16xf32>
}

// -----

// CHECK-LABEL: func.func @bias_plus_dot
// CHECK-SAME: (%[[A:.*]]: tensor<16x16xf32>, %[[B:.*]]: tensor<16x16xf32>, %[[D:.*]]: tensor<16x16xf32>)
// CHECK: brick.dot %[[A]], %[[B]], %[[D]] inputPrecision = tf32
// CHECK-NOT: arith.addf
func.func @bias_plus_dot(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>, %d: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %z = arith.constant dense<0.0> : tensor<16x16xf32>
  %0 = brick.dot %a, %b, %z inputPrecision = tf32 : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32>
  %1 = arith.addf %d, %0 : tensor<16x16xf32>
  return %1 : tensor<16x16xf32>
}

// -----

// The combined dot keeps the promise that a's rows from %n on are zero.
// CHECK-LABEL: func.func @zero_rows_plus_bias
// CHECK-SAME: (%[[A:.*]]: tensor<64x32xf16>, %[[B:.*]]: tensor<32x16xf16>, %[[D:.*]]: tensor<64x16xf32>, %[[N:.*]]: i32)
// CHECK: brick.dot %[[A]], %[[B]], %[[D]] zero_rows_from %[[N]] :
// CHECK-NOT: arith.addf
func.func @zero_rows_plus_bias(%a: tensor<64x32xf16>, %b: tensor<32x16xf16>, %d: tensor<64x16xf32>, %n: i32) -> tensor<64x16xf32> {
  %z = arith.constant dense<0.0> : tensor<64x16xf32>
  %0 = brick.dot %a, %b, %z zero_rows_from %n : tensor<64x32xf16> * tensor<32x16xf16> -> tensor<64x16xf32>
  %1 = arith.addf %0, %d : tensor<64x16xf32>
  return %1 : tensor<64x16xf32>
}

// -----

// Not combined: the dot's accumulator is not zero, or the dot has another use.
// CHECK-LABEL: func.func @not_combined
// CHECK-COUNT-2: arith.addf
func.func @not_combined(%a: tensor<16x16xf16>, %b: tensor<16x16xf16>, %c: tensor<16x16xf32>, %d: tensor<16x16xf32>)
    -> (tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>) {
  %0 = brick.dot %a, %b, %c : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
  %1 = arith.addf %0, %d : tensor<16x16xf32>
  %z = arith.constant dense<0.0> : tensor<16x16xf32>
  %2 = brick.dot %a, %b, %z : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32>
  %3 = arith.addf %2, %d : tensor<16x16xf32>
  return %1, %2, %3 : tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>
}

// -----

// The brick canonicalizations run too.
// CHECK-LABEL: func.func @canonicalizes
// CHECK-NOT: brick.addptr
func.func @canonicalizes(%p: !brick.ptr<f32>) -> !brick.ptr<f32> {
  %z = arith.constant 0 : i32
  %0 = brick.addptr %p, %z : !brick.ptr<f32>, i32
  return %0 : !brick.ptr<f32>
}
