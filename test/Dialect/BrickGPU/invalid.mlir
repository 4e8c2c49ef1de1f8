// RUN: brick-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{threadsPerWarp must multiply to 32 (a warp), got 16}}
#bad = #brickgpu.blocked<{sizePerThread = [1], threadsPerWarp = [16], warpsPerCTA = [4], order = [0]}>
func.func @f(%x: tensor<64xf32, #bad>) { return }

// -----

// expected-error @+1 {{sizePerThread, threadsPerWarp, warpsPerCTA and order must have one entry per dimension; got 2, 1, 1 and 1}}
#bad = #brickgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @f(%x: tensor<64xf32, #bad>) { return }

// -----

// expected-error @+1 {{sizePerThread, threadsPerWarp and warpsPerCTA must be powers of two}}
#bad = #brickgpu.blocked<{sizePerThread = [3], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @f(%x: tensor<64xf32, #bad>) { return }

// -----

// expected-error @+1 {{order must be a permutation of the 2 dimensions}}
#bad = #brickgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 1]}>
func.func @f(%x: tensor<64x64xf32, #bad>) { return }

// -----

#blocked = #brickgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// expected-error @+1 {{slice dimension 1 is out of range for a parent of rank 1}}
#bad = #brickgpu.slice<{dim = 1, parent = #blocked}>
func.func @f(%x: tensor<64xf32, #bad>) { return }

// -----

#shared = #brickgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
// expected-error @+1 {{a shared-memory block has a static power-of-two shape}}
func.func @f(%x: !brickgpu.memdesc<48xf32, #shared>) { return }

// -----

#blocked = #brickgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
// expected-error @+1 {{a shared-memory block needs a #brickgpu.shared encoding}}
func.func @f(%x: !brickgpu.memdesc<64xf32, #blocked>) { return }

// -----

#blocked = #brickgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#shared = #brickgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @f(%x: tensor<64xf32, #blocked>) {
  // expected-error @+1 {{block 'tensor<64xf32, #brickgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>' and shared buffer '!brickgpu.memdesc<128xf32, #brickgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>>' must have one shape and element type}}
  %b = brickgpu.local_alloc %x : (tensor<64xf32, #blocked>) -> !brickgpu.memdesc<128xf32, #shared>
  return
}

// -----

#blocked = #brickgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#shared = #brickgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @f(%b: !brickgpu.memdesc<64xf32, #shared>) {
  // expected-error @+1 {{must have one shape and element type}}
  %x = brickgpu.local_load %b : !brickgpu.memdesc<64xf32, #shared> -> tensor<64xf16, #blocked>
  return
}

// -----

#blocked = #brickgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#shared = #brickgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @f(%x: tensor<32xf32, #blocked>, %b: !brickgpu.memdesc<64xf32, #shared>) {
  // expected-error @+1 {{must have one shape and element type}}
  brickgpu.local_store %x, %b : tensor<32xf32, #blocked> -> !brickgpu.memdesc<64xf32, #shared>
  return
}

// -----

#a = #brickgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
func.func @f(%x: tensor<64xf32, #a>) {
  // expected-error @+1 {{requires the same shape for all operands and results}}
  %y = brickgpu.convert_layout %x : tensor<64xf32, #a> -> tensor<128xf32, #a>
  return
}
