// Kernels are launched, never called (a call to one compiled to `exit;`), and pointers point into global memory
// (address space 3 was read and written with ld.global/st.global).
// RUN: brick-opt %s -split-input-file -verify-diagnostics

func.func @k(%p: !brick.ptr<f32>) attributes {brick.kernel} {
  // expected-error @+1 {{'k' is a kernel (brick.kernel): kernels are launched, not called; call a function without brick.kernel that holds the shared code}}
  func.call @k(%p) : (!brick.ptr<f32>) -> ()
  return
}

// -----

func.func @k(%p: !brick.ptr<f32>) attributes {brick.kernel} {
  return
}
func.func @other(%p: !brick.ptr<f32>) attributes {brick.kernel} {
  // expected-error @+1 {{'k' is a kernel (brick.kernel): kernels are launched, not called}}
  func.call @k(%p) : (!brick.ptr<f32>) -> ()
  return
}

// -----

// A function without brick.kernel may be called.
func.func @helper(%p: !brick.ptr<f32>) {
  return
}
func.func @k(%p: !brick.ptr<f32>) attributes {brick.kernel} {
  func.call @helper(%p) : (!brick.ptr<f32>) -> ()
  return
}

// -----

// expected-error @+1 {{a brick pointer points into global memory (address space 1), not address space 3}}
func.func @shared(%p: !brick.ptr<f32, 3>) attributes {brick.kernel} {
  return
}
