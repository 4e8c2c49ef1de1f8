// The tensor-core layouts as linear layouts: which element each register, lane and warp bit steps to.
// RUN: brick-opt %s -test-print-linear-layouts -o /dev/null 2>&1 | FileCheck %s

#mma = #brickgpu.mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#mma1 = #brickgpu.mma<{version = 2, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
#a = #brickgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#b = #brickgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
#a32 = #brickgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 1}>
#b8 = #brickgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 4}>

// The m16n8 accumulator: c0, c1 at (l / 4, 2 (l % 4) + {0, 1}), c2, c3 eight rows down; warps split N (first bit)
// and M; a larger block repeats the warps' 32x16 tile along N, then M.
// CHECK: argument 0: regs={{\[}}[0, 1], [8, 0]] lanes={{\[}}[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]] warps={{\[}}[0, 8], [16, 0]] shape=[32, 16]
// CHECK: argument 1: regs={{\[}}[0, 1], [8, 0], [0, 16], [32, 0]] lanes={{\[}}[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]] warps={{\[}}[0, 8], [16, 0]] shape=[64, 32]
// A block smaller than the warps' tile: the extra warps hold copies (zero bases).
// CHECK: argument 2: regs={{\[}}[0, 1], [8, 0], [0, 8]] lanes={{\[}}[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]] warps={{\[}}[0, 0], [0, 0]] shape=[16, 16]
func.func @accumulators(%x: tensor<32x16xf32, #mma>, %y: tensor<64x32xf32, #mma>, %z: tensor<16x16xf32, #mma1>) {
  return
}

// f16 a (m16k16): pairs along K in a register, 8 rows down, 8 columns on; the warps along N hold the same rows.
// CHECK: argument 0: regs={{\[}}[0, 1], [8, 0], [0, 8]] lanes={{\[}}[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]] warps={{\[}}[0, 0], [16, 0]] shape=[32, 16]
// f16 b (k16n8): pairs along K, 8 rows of K on; the warps along M hold the same columns.
// CHECK: argument 1: regs={{\[}}[1, 0], [8, 0]] lanes={{\[}}[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]] warps={{\[}}[0, 8], [0, 0]] shape=[16, 16]
// Repeats: K steps of 16 first, then M tiles of 16 rows per warp along M.
// CHECK: argument 2: regs={{\[}}[0, 1], [8, 0], [0, 8], [0, 16], [32, 0]] lanes={{\[}}[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]] warps={{\[}}[0, 0], [16, 0]] shape=[64, 32]
// tf32 a (m16k8): one element per register.
// CHECK: argument 3: regs={{\[}}[8, 0], [0, 4]] lanes={{\[}}[0, 1], [0, 2], [1, 0], [2, 0], [4, 0]] warps={{\[}}[0, 0], [16, 0]] shape=[32, 8]
// i8 b (k32n8): four along K per register, 16 rows of K on; then K steps of 32, then N tiles.
// CHECK: argument 4: regs={{\[}}[1, 0], [2, 0], [16, 0], [32, 0], [0, 16]] lanes={{\[}}[4, 0], [8, 0], [0, 1], [0, 2], [0, 4]] warps={{\[}}[0, 8], [0, 0]] shape=[64, 32]
func.func @operands(%a: tensor<32x16xf16, #a>, %b: tensor<16x16xf16, #b>, %c: tensor<64x32xf16, #a>,
                    %d: tensor<32x8xf32, #a32>, %e: tensor<64x32xi8, #b8>) {
  return
}

// wgmma (version 3): a warp's 16 rows, its pieces of 8 columns along the instruction's N in consecutive registers;
// the 4 warps of a warpgroup along M, then warpgroups (M first, then N); a larger block repeats along N, then M.
#v3 = #brickgpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 32]}>
#v3x2 = #brickgpu.mma<{version = 3, warpsPerCTA = [4, 2], instrShape = [64, 16]}>
// CHECK: argument 0: regs={{\[}}[0, 1], [8, 0], [0, 8], [0, 16]] lanes={{\[}}[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]] warps={{\[}}[16, 0], [32, 0]] shape=[64, 32]
// CHECK: argument 1: regs={{\[}}[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [64, 0]] lanes={{\[}}[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]] warps={{\[}}[16, 0], [32, 0]] shape=[128, 64]
// CHECK: argument 2: regs={{\[}}[0, 1], [8, 0], [0, 8]] lanes={{\[}}[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]] warps={{\[}}[16, 0], [32, 0], [0, 16]] shape=[64, 32]
func.func @warpgroups(%x: tensor<64x32xf32, #v3>, %y: tensor<128x64xf32, #v3>, %z: tensor<64x32xf32, #v3x2>) {
  return
}

// Batched (3-D) version 2: the 2-D layout on the last two dimensions; warps over M and N first, then batches;
// batch repeats are the outermost registers. Both operands follow the batch warps.
#mma3 = #brickgpu.mma<{version = 2, warpsPerCTA = [2, 2, 1], instrShape = [16, 8]}>
#a3 = #brickgpu.dot_op<{opIdx = 0, parent = #mma3, kWidth = 2}>
#b3 = #brickgpu.dot_op<{opIdx = 1, parent = #mma3, kWidth = 2}>
// CHECK: argument 0: regs={{\[}}[0, 0, 1], [0, 8, 0], [0, 0, 8], [2, 0, 0]] lanes={{\[}}[0, 0, 2], [0, 0, 4], [0, 1, 0], [0, 2, 0], [0, 4, 0]] warps={{\[}}[0, 16, 0], [1, 0, 0]] shape=[4, 32, 16]
// CHECK: argument 1: regs={{\[}}[0, 0, 1], [0, 8, 0], [0, 0, 8], [2, 0, 0]] lanes={{\[}}[0, 0, 2], [0, 0, 4], [0, 1, 0], [0, 2, 0], [0, 4, 0]] warps={{\[}}[0, 16, 0], [1, 0, 0]] shape=[4, 32, 16]
// CHECK: argument 2: regs={{\[}}[0, 1, 0], [0, 8, 0], [0, 0, 8], [2, 0, 0]] lanes={{\[}}[0, 2, 0], [0, 4, 0], [0, 0, 1], [0, 0, 2], [0, 0, 4]] warps={{\[}}[0, 0, 0], [1, 0, 0]] shape=[4, 16, 16]
func.func @batched(%c: tensor<4x32x16xf32, #mma3>, %a: tensor<4x32x16xf16, #a3>, %b: tensor<4x16x16xf16, #b3>) {
  return
}
