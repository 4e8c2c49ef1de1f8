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
// expected-error @+1 {{a shared-memory block needs a #brickgpu.shared or #brickgpu.nvmma_shared encoding}}
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

// -----

// expected-error @+1 {{mma version 4 is not supported; 2 (mma.sync) and 3 (wgmma) are}}
func.func @f(%x: tensor<32x32xf32, #brickgpu.mma<{version = 4, warpsPerCTA = [2, 2], instrShape = [16, 8]}>>) { return }

// -----

// expected-error @+1 {{an mma version 3 layout has instrShape = [64, N], N a power of two from 8 to 256}}
func.func @f(%x: tensor<64x32xf32, #brickgpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [16, 8]}>>) { return }

// -----

// expected-error @+1 {{warpsPerCTA[0] must be a multiple of 4, got 2}}
func.func @f(%x: tensor<64x32xf32, #brickgpu.mma<{version = 3, warpsPerCTA = [2, 2], instrShape = [64, 16]}>>) { return }

// -----

// expected-error @+1 {{an mma version 3 layout is 2-D: warpsPerCTA needs 2 entries, got 3}}
func.func @f(%x: tensor<2x64x32xf32, #brickgpu.mma<{version = 3, warpsPerCTA = [1, 4, 1], instrShape = [64, 16]}>>) { return }

// -----

// expected-error @+1 {{a tensor-core layout is 2-D (or 3-D with a leading batch dimension): warpsPerCTA needs 2 or 3 entries, got 4}}
func.func @f(%x: tensor<2x2x64x32xf32, #brickgpu.mma<{version = 2, warpsPerCTA = [1, 1, 2, 2], instrShape = [16, 8]}>>) { return }


// -----

// expected-error @+1 {{an nvmma_shared swizzle is 32, 64 or 128 bytes, got 16}}
func.func @f(%x: !brickgpu.memdesc<64x64xf16, #brickgpu.nvmma_shared<{swizzle = 16, order = [1, 0]}>>) { return }

// -----

// expected-error @+1 {{needs rows of a multiple of 128 bytes and a multiple of 8 of them; got 64 rows of 64 bytes}}
func.func @f(%x: !brickgpu.memdesc<64x32xf16, #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>>) { return }

// -----

// expected-error @+1 {{wgmma (an mma version 3 parent) reads B from shared memory; only A may be in registers}}
func.func @f(%x: tensor<32x64xf16, #brickgpu.dot_op<{opIdx = 1, parent = #brickgpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 32]}>, kWidth = 2}>>) { return }

// -----

// An A in registers must be in the #dot_op layout of the result's #mma, with kWidth elements per 32-bit register.
#mma = #brickgpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
#other = #brickgpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 32]}>
#nv = #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
func.func @f(%a: tensor<64x64xf16, #brickgpu.dot_op<{opIdx = 0, parent = #other, kWidth = 2}>>, %b: !brickgpu.memdesc<64x64xf16, #nv>, %c: tensor<64x64xf32, #mma>) {
  // expected-error @+1 {{takes A in registers as f16, bf16 or i8 in #brickgpu.dot_op<{opIdx = 0, parent = (the result's #mma), kWidth = 2}>}}
  %d = brickgpu.warpgroup_dot %a, %b, %c : tensor<64x64xf16, #brickgpu.dot_op<{opIdx = 0, parent = #other, kWidth = 2}>>, !brickgpu.memdesc<64x64xf16, #nv> -> tensor<64x64xf32, #mma>
  return
}

// -----

#mma = #brickgpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
#nv = #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
func.func @f(%a: tensor<64x64xf16, #brickgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>>, %b: !brickgpu.memdesc<64x64xf16, #nv>, %c: tensor<64x64xf32, #mma>) {
  // expected-error @+1 {{kWidth = 2}}
  %d = brickgpu.warpgroup_dot %a, %b, %c : tensor<64x64xf16, #brickgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 4}>>, !brickgpu.memdesc<64x64xf16, #nv> -> tensor<64x64xf32, #mma>
  return
}

// -----

#mma = #brickgpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
#nv = #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
func.func @f(%a: tensor<64x32xf16, #brickgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>, %b: !brickgpu.memdesc<64x64xf16, #nv>, %c: tensor<64x64xf32, #mma>) {
  // expected-error @+1 {{multiplies M x K by K x N into M x N}}
  %d = brickgpu.warpgroup_dot %a, %b, %c : tensor<64x32xf16, #brickgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>, !brickgpu.memdesc<64x64xf16, #nv> -> tensor<64x64xf32, #mma>
  return
}

// -----

#mma = #brickgpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
#nv = #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
func.func @f(%a: !brickgpu.memdesc<64x64xf16, #nv>, %b: !brickgpu.memdesc<32x64xf16, #nv>, %c: tensor<64x64xf32, #mma>) {
  // expected-error @+1 {{multiplies M x K by K x N into M x N}}
  %d = brickgpu.warpgroup_dot %a, %b, %c : !brickgpu.memdesc<64x64xf16, #nv>, !brickgpu.memdesc<32x64xf16, #nv> -> tensor<64x64xf32, #mma>
  return
}

// -----

#blocked = #brickgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#nv = #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
func.func @f(%a: !brickgpu.memdesc<64x64xf16, #nv>, %b: !brickgpu.memdesc<64x64xf16, #nv>, %c: tensor<64x64xf32, #blocked>) {
  // expected-error @+1 {{accumulates in an #mma version 3 layout}}
  %d = brickgpu.warpgroup_dot %a, %b, %c : !brickgpu.memdesc<64x64xf16, #nv>, !brickgpu.memdesc<64x64xf16, #nv> -> tensor<64x64xf32, #blocked>
  return
}

// -----

// expected-error @+1 {{an mma version 2 layout has instrShape = [16, 8]}}
func.func @f(%x: tensor<32x32xf32, #brickgpu.mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 16]}>>) { return }

// -----

// expected-error @+1 {{warpsPerCTA must be powers of two}}
func.func @f(%x: tensor<32x32xf32, #brickgpu.mma<{version = 2, warpsPerCTA = [3, 1], instrShape = [16, 8]}>>) { return }

// -----

#mma = #brickgpu.mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
// expected-error @+1 {{opIdx is 0 (the dot's a) or 1 (its b), got 2}}
func.func @f(%x: tensor<32x32xf16, #brickgpu.dot_op<{opIdx = 2, parent = #mma, kWidth = 2}>>) { return }

// -----

#mma = #brickgpu.mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
// expected-error @+1 {{kWidth (elements along K per 32-bit register) is 1, 2 or 4, got 3}}
func.func @f(%x: tensor<32x32xf16, #brickgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 3}>>) { return }

// -----

#shared = #brickgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
func.func @f(%ring: !brickgpu.memdesc<3x64x64xf16, #shared>, %i: i32) {
  // expected-error @+1 {{a slot of '!brickgpu.memdesc<3x64x64xf16, #brickgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>>' is a 2-D buffer of its element type and layout}}
  %s = brickgpu.memdesc_index %ring[%i] : !brickgpu.memdesc<3x64x64xf16, #shared> -> !brickgpu.memdesc<64x32xf16, #shared>
  return
}

// -----

#shared = #brickgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
#blocked = #brickgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
func.func @f(%p: tensor<64x64x!brick.ptr<f32>, #blocked>, %buffer: !brickgpu.memdesc<64x64xf16, #shared>) {
  // expected-error @+1 {{copies a block of pointers into a buffer of its shape and element type}}
  brickgpu.async_copy_global_to_local %p, %buffer : tensor<64x64x!brick.ptr<f32>, #blocked> -> !brickgpu.memdesc<64x64xf16, #shared>
  return
}

// -----

#shared = #brickgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
// expected-error @+1 {{a shared-memory block has a static power-of-two shape (a ring of them any number of buffers first)}}
func.func @f(%ring: !brickgpu.memdesc<3x48x64xf16, #shared>) { return }

// -----

#s = #brickgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @f(%bar: !brickgpu.memdesc<2xi64, #s>) {
  // expected-error @+1 {{takes an mbarrier, a shared buffer of one i64 (memdesc<1xi64>)}}
  brickgpu.init_barrier %bar, 1 : !brickgpu.memdesc<2xi64, #s>
  return
}

// -----

#s = #brickgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
func.func @f(%bar: !brickgpu.memdesc<1xi64, #s>) {
  // expected-error @+1 {{expects at least one arrival, not 0}}
  brickgpu.init_barrier %bar, 0 : !brickgpu.memdesc<1xi64, #s>
  return
}

// -----

// The runtime encodes a tensor map with the widest swizzle a block's rows fill (128 bytes for rows of 256): a
// buffer with another layout would read the block scrambled.
#s = #brickgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#n64 = #brickgpu.nvmma_shared<{swizzle = 64, order = [1, 0]}>
func.func @f(%map: !brick.tensormap, %i: i32, %buffer: !brickgpu.memdesc<32x128xf16, #n64>,
             %bar: !brickgpu.memdesc<1xi64, #s>, %pred: i1) {
  // expected-error @+1 {{copies the layout its tensor map gives, #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>; got}}
  brickgpu.async_tma_copy_global_to_local %map[%i, %i] %buffer, %bar, %pred : !brickgpu.memdesc<32x128xf16, #n64>, !brickgpu.memdesc<1xi64, #s>
  return
}

// -----

#s = #brickgpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#n128 = #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
func.func @f(%map: !brick.tensormap, %i: i32, %buffer: !brickgpu.memdesc<32x128xf16, #n128>,
             %bar: !brickgpu.memdesc<1xi64, #s>, %pred: i1) {
  // expected-error @+1 {{copies 2-D blocks at 2 coordinates}}
  brickgpu.async_tma_copy_global_to_local %map[%i] %buffer, %bar, %pred : !brickgpu.memdesc<32x128xf16, #n128>, !brickgpu.memdesc<1xi64, #s>
  return
}

// -----

#n = #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
func.func @f(%b: !brickgpu.memdesc<128x64xf16, #n>) {
  // expected-error @+1 {{of '!brickgpu.memdesc<128x64xf16, #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>>' is '!brickgpu.memdesc<64x128xf16, #brickgpu.nvmma_shared<{swizzle = 128, order = [0, 1]}>>', not}}
  %t = brickgpu.memdesc_trans %b : !brickgpu.memdesc<128x64xf16, #n> -> !brickgpu.memdesc<64x128xf16, #n>
  return
}

// -----

#shared = #brickgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
func.func @f(%b: !brickgpu.memdesc<64x64xf16, #shared>) {
  // expected-error @+1 {{transposes 2-D #brickgpu.nvmma_shared buffers}}
  %t = brickgpu.memdesc_trans %b : !brickgpu.memdesc<64x64xf16, #shared> -> !brickgpu.memdesc<64x64xf16, #shared>
  return
}

// -----

#mma = #brickgpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128]}>
#s = #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
func.func @f(%x: tensor<64x128xf16, #mma>, %b: !brickgpu.memdesc<64x64xf16, #s>) {
  // expected-error @+1 {{column window [32, 96) is not one of the 64-column windows of}}
  brickgpu.local_store %x, %b {column_offset = 32 : i64} : tensor<64x128xf16, #mma> -> !brickgpu.memdesc<64x64xf16, #s>
  return
}

// -----

#mma = #brickgpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128]}>
#s = #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
func.func @f(%x: tensor<64x128xf16, #mma>, %b: !brickgpu.memdesc<32x64xf16, #s>) {
  // expected-error @+1 {{is a 2-D buffer of its rows and element type, not '!brickgpu.memdesc<32x64xf16}}
  brickgpu.local_store %x, %b {column_offset = 0 : i64} : tensor<64x128xf16, #mma> -> !brickgpu.memdesc<32x64xf16, #s>
  return
}

// -----

#rows = #brickgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#s = #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
func.func @f(%x: tensor<64x128xf16, #rows>, %b: !brickgpu.memdesc<64x64xf16, #s>) {
  // expected-error @+1 {{the registers holding a 64-column window of}}
  brickgpu.local_store %x, %b {column_offset = 64 : i64} : tensor<64x128xf16, #rows> -> !brickgpu.memdesc<64x64xf16, #s>
  return
}

// -----

// Pointers and offsets of one shape in two layouts: each thread would add offsets it does not hold to its pointers.
#rows = #brickgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#cols = #brickgpu.blocked<{sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
func.func @addptr_layouts(%p: tensor<32x32x!brick.ptr<f32>, #rows>, %o: tensor<32x32xi32, #cols>) {
  // expected-error @+1 {{must have the same layout (convert one with brickgpu.convert_layout)}}
  %0 = brick.addptr %p, %o : tensor<32x32x!brick.ptr<f32>, #rows>, tensor<32x32xi32, #cols>
  return
}
