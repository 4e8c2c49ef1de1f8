// Warps per program must be a power of two from 1 to 32, on the module and in the pass option.
// RUN: brick-opt %s -split-input-file -verify-diagnostics
// RUN: not brick-opt %S/../Conversion/Inputs/empty-kernel.mlir -convert-brick-to-brickgpu=num-warps=0 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not brick-opt %S/../Conversion/Inputs/empty-kernel.mlir -convert-brick-to-brickgpu=num-warps=48 2>&1 | FileCheck %s --check-prefix=ODD
// ZERO: error: convert-brick-to-brickgpu: num-warps must be a power of two from 1 to 32, got 0
// ODD: error: convert-brick-to-brickgpu: num-warps must be a power of two from 1 to 32, got 48

// expected-error @+1 {{'brickgpu.num_warps' must be a power of two from 1 to 32 (warps per program), got 0 : i32}}
module attributes {brickgpu.num_warps = 0 : i32} {}

// -----

// expected-error @+1 {{'brickgpu.num_warps' must be a power of two from 1 to 32 (warps per program), got 2147483647 : i32}}
module attributes {brickgpu.num_warps = 2147483647 : i32} {}

// -----

// expected-error @+1 {{'brickgpu.shared' must be a non-negative number of bytes, got -16 : i32}}
module attributes {brickgpu.shared = -16 : i32} {}
