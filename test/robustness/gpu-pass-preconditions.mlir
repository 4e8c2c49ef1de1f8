// Passes that need layouts say so, on IR that has none, instead of crashing in the layout lookup.
// RUN: brick-opt %s -split-input-file -verify-diagnostics -convert-brickgpu-to-llvm
// RUN: not brick-opt %s -brickgpu-coalesce 2>&1 | FileCheck %s --check-prefix=COALESCE
// RUN: not brick-opt %s -brickgpu-accelerate-dot 2>&1 | FileCheck %s --check-prefix=ACCELERATE
// RUN: not brick-opt %s -brickgpu-remove-layout-conversions 2>&1 | FileCheck %s --check-prefix=REMOVE
// RUN: not brick-opt %s -brickgpu-pipeline 2>&1 | FileCheck %s --check-prefix=PIPELINE
// RUN: not brick-opt %s -brickgpu-allocate-shared-memory 2>&1 | FileCheck %s --check-prefix=ALLOCATE

// COALESCE: brickgpu-coalesce needs every block to have a layout
// ACCELERATE: brickgpu-accelerate-dot needs every block to have a layout
// REMOVE: brickgpu-remove-layout-conversions needs every block to have a layout
// PIPELINE: brickgpu-pipeline needs every block to have a layout
// ALLOCATE: brickgpu-allocate-shared-memory needs every block to have a layout

func.func @no_layouts(%p: !brick.ptr<f32>) attributes {brick.kernel} {
  // expected-error @+1 {{convert-brickgpu-to-llvm needs every block to have a layout (run convert-brick-to-brickgpu first); 'tensor<128xi32>' has none}}
  %r = brick.make_range 0, 128 : tensor<128xi32>
  %ps = brick.splat %p : tensor<128x!brick.ptr<f32>>
  %ptrs = brick.addptr %ps, %r : tensor<128x!brick.ptr<f32>>, tensor<128xi32>
  %x = brick.load %ptrs : tensor<128x!brick.ptr<f32>>
  brick.store %ptrs, %x : tensor<128x!brick.ptr<f32>>
  return
}
