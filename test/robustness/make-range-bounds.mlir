// make_range's bounds are signed i32: a negative start is a range (it was read as 2^32 - 4 and refused), and the
// length is computed in 64 bits (it wrapped around in 32).
// RUN: brick-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// CHECK: brick.make_range -4, 0 : tensor<4xi32>
func.func @negative() -> tensor<4xi32> {
  %r = brick.make_range -4, 0 : tensor<4xi32>
  return %r : tensor<4xi32>
}

// -----

func.func @wraps() {
  // expected-error @+1 {{length end - start = 4294967295 is not a power of two}}
  %r = brick.make_range -2147483648, 2147483647 : tensor<4xi32>
  return
}
