// The axis-info analysis: contiguity, divisibility and constancy of integer and pointer blocks.
// RUN: brick-opt %s -test-print-axis-info -split-input-file -verify-diagnostics

func.func @vector_add_addresses(%p: !brick.ptr<f32> {brick.divisibility = 16 : i32}, %n: i32 {brick.divisibility = 16 : i32}) {
  // expected-remark @+1 {{contiguity = [1], divisibility = [1], constancy = [1]}}
  %pid = brick.program_id 0
  // expected-remark @+1 {{contiguity = [1], divisibility = [1024], constancy = [1], constant = 1024}}
  %c1024 = arith.constant 1024 : i32
  // expected-remark @+1 {{contiguity = [1], divisibility = [1024], constancy = [1]}}
  %start = arith.muli %pid, %c1024 : i32
  // expected-remark @+1 {{contiguity = [1024], divisibility = [1073741824], constancy = [1]}}
  %r = brick.make_range 0, 1024 : tensor<1024xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [1024], constancy = [1024]}}
  %s = brick.splat %start : tensor<1024xi32>
  // expected-remark @+1 {{contiguity = [1024], divisibility = [1024], constancy = [1]}}
  %offs = arith.addi %s, %r : tensor<1024xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [16], constancy = [1024]}}
  %ns = brick.splat %n : tensor<1024xi32>
  // A run of +1 compared with a multiple of 16 stays constant over 16 elements.
  // expected-remark @+1 {{contiguity = [1], divisibility = [1], constancy = [16]}}
  %mask = arith.cmpi slt, %offs, %ns : tensor<1024xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [16], constancy = [1024]}}
  %ps = brick.splat %p : tensor<1024x!brick.ptr<f32>>
  // Pointers: 1024 contiguous f32, the first of each run 16-byte aligned.
  // expected-remark @+1 {{contiguity = [1024], divisibility = [16], constancy = [1]}}
  %ptrs = brick.addptr %ps, %offs : tensor<1024x!brick.ptr<f32>>, tensor<1024xi32>
  return
}

// -----

func.func @unknown_size(%n: i32) {
  // expected-remark @+1 {{contiguity = [128], divisibility = [1073741824], constancy = [1]}}
  %r = brick.make_range 0, 128 : tensor<128xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [1], constancy = [128]}}
  %ns = brick.splat %n : tensor<128xi32>
  // Nothing known about n: the mask may change at every element.
  // expected-remark @+1 {{contiguity = [1], divisibility = [1], constancy = [1]}}
  %mask = arith.cmpi slt, %r, %ns : tensor<128xi32>
  return
}

// -----

func.func @two_dimensions(%stride: i32 {brick.divisibility = 16 : i32}) {
  // expected-remark @+1 {{contiguity = [64], divisibility = [1073741824], constancy = [1]}}
  %rows = brick.make_range 0, 64 : tensor<64xi32>
  // expected-remark @+1 {{contiguity = [32], divisibility = [1073741824], constancy = [1]}}
  %cols = brick.make_range 0, 32 : tensor<32xi32>
  // The new dimension has one element per run: every element must be divisible, and rows 0..63 are not.
  // expected-remark @+1 {{contiguity = [64, 1], divisibility = [1073741824, 1], constancy = [1, 1]}}
  %r2 = brick.expand_dims %rows {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  // expected-remark @+1 {{contiguity = [1, 1], divisibility = [16, 16], constancy = [64, 1]}}
  %ss = brick.splat %stride : tensor<64x1xi32>
  // Row offsets: multiples of 16 everywhere.
  // expected-remark @+1 {{contiguity = [1, 1], divisibility = [16, 16], constancy = [1, 1]}}
  %rowOffsets = arith.muli %r2, %ss : tensor<64x1xi32>
  // ... and constant along each row.
  // expected-remark @+1 {{contiguity = [1, 1], divisibility = [16, 16], constancy = [1, 32]}}
  %rb = brick.broadcast %rowOffsets : tensor<64x1xi32> -> tensor<64x32xi32>
  // expected-remark @+1 {{contiguity = [1, 32], divisibility = [1, 1073741824], constancy = [1, 1]}}
  %c2 = brick.expand_dims %cols {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  // expected-remark @+1 {{contiguity = [1, 32], divisibility = [1, 1073741824], constancy = [64, 1]}}
  %cb = brick.broadcast %c2 : tensor<1x32xi32> -> tensor<64x32xi32>
  // Each row: 32 contiguous offsets starting at a multiple of 16.
  // expected-remark @+1 {{contiguity = [1, 32], divisibility = [1, 16], constancy = [1, 1]}}
  %offs = arith.addi %rb, %cb : tensor<64x32xi32>
  return
}

// -----

func.func @wraparound(%m: i32 {brick.divisibility = 16 : i32}) {
  // expected-remark @+1 {{contiguity = [128], divisibility = [1073741824], constancy = [1]}}
  %r = brick.make_range 0, 128 : tensor<128xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [16], constancy = [128]}}
  %ms = brick.splat %m : tensor<128xi32>
  // x % m with m a multiple of 16: runs of 16 survive.
  // expected-remark @+1 {{contiguity = [16], divisibility = [16], constancy = [1]}}
  %w = arith.remsi %r, %ms : tensor<128xi32>
  // x / m: constant over aligned runs of 16.
  // expected-remark @+1 {{contiguity = [1], divisibility = [1], constancy = [16]}}
  %d = arith.divsi %r, %ms : tensor<128xi32>
  return
}

// -----

// brick.hint states what the analysis cannot see: offsets loaded from memory, contiguous in runs of 4 and
// starting at multiples of 4 (what a paged gather reads); a hint weaker than the analysis changes nothing.
func.func @hinted_offsets(%p: !brick.ptr<i32> {brick.divisibility = 16 : i32}) {
  // expected-remark @+1 {{contiguity = [64], divisibility = [1073741824], constancy = [1]}}
  %r = brick.make_range 0, 64 : tensor<64xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [16], constancy = [64]}}
  %ps = brick.splat %p : tensor<64x!brick.ptr<i32>>
  // expected-remark @+1 {{contiguity = [64], divisibility = [16], constancy = [1]}}
  %addresses = brick.addptr %ps, %r : tensor<64x!brick.ptr<i32>>, tensor<64xi32>
  // expected-remark @+1 {{contiguity = [1], divisibility = [1], constancy = [1]}}
  %loaded = brick.load %addresses : tensor<64x!brick.ptr<i32>>
  // expected-remark @+1 {{contiguity = [4], divisibility = [4], constancy = [1]}}
  %offsets = brick.hint %loaded {contiguity = array<i64: 4>, divisibility = array<i64: 4>} : tensor<64xi32>
  // expected-remark @+1 {{contiguity = [64], divisibility = [1073741824], constancy = [1]}}
  %same = brick.hint %r {contiguity = array<i64: 2>} : tensor<64xi32>
  // expected-remark @+1 {{contiguity = [4], divisibility = [16], constancy = [1]}}
  %gathered = brick.addptr %ps, %offsets : tensor<64x!brick.ptr<i32>>, tensor<64xi32>
  return
}

// -----

// A reshape that only adds or drops dimensions of size 1 keeps the runs of the others (as expand_dims does).
func.func @reshape_unit_dims() {
  // expected-remark @+1 {{contiguity = [16], divisibility = [1073741824], constancy = [1]}}
  %r = brick.make_range 0, 16 : tensor<16xi32>
  // expected-remark @+1 {{contiguity = [1, 1, 16], divisibility = [1, 1, 1073741824], constancy = [1, 1, 1]}}
  %k = brick.reshape %r : tensor<16xi32> -> tensor<1x1x16xi32>
  // expected-remark @+1 {{contiguity = [1, 16, 1], divisibility = [1, 1073741824, 1], constancy = [1, 1, 1]}}
  %rows = brick.reshape %r : tensor<16xi32> -> tensor<1x16x1xi32>
  // expected-remark @+1 {{contiguity = [16], divisibility = [1073741824], constancy = [1]}}
  %back = brick.reshape %k : tensor<1x1x16xi32> -> tensor<16xi32>
  // Anything else regroups elements: nothing known.
  // expected-remark @+1 {{contiguity = [1, 1], divisibility = [1, 1], constancy = [1, 1]}}
  %grid = brick.reshape %r : tensor<16xi32> -> tensor<4x4xi32>
  return
}
