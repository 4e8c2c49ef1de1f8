// Conversions disappear: cheap values are recomputed in the layout users want, and elementwise ops and
// reductions move into the layout their operands come from.
// RUN: brick-opt %s -brickgpu-remove-layout-conversions -canonicalize -split-input-file | FileCheck %s

#a = #brickgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#b = #brickgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>

// Pointers and masks built from ranges and splats are recomputed in the load's layout.
// CHECK-LABEL: func.func @recompute_addresses
// CHECK-NOT: brickgpu.convert_layout
// CHECK: brick.make_range 0, 1024 : tensor<1024xi32, #[[B:.*]]>
// CHECK: brick.load {{.*}} : tensor<1024x!brick.ptr<f32>, #[[B]]>
func.func @recompute_addresses(%p: !brick.ptr<f32>, %n: i32) -> tensor<1024xf32, #b> {
  %r = brick.make_range 0, 1024 : tensor<1024xi32, #a>
  %ns = brick.splat %n : tensor<1024xi32, #a>
  %m = arith.cmpi slt, %r, %ns : tensor<1024xi32, #a>
  %ps = brick.splat %p : tensor<1024x!brick.ptr<f32>, #a>
  %ptrs = brick.addptr %ps, %r : tensor<1024x!brick.ptr<f32>, #a>, tensor<1024xi32, #a>
  %ptrs_b = brickgpu.convert_layout %ptrs : tensor<1024x!brick.ptr<f32>, #a> -> tensor<1024x!brick.ptr<f32>, #b>
  %m_b = brickgpu.convert_layout %m : tensor<1024xi1, #a> -> tensor<1024xi1, #b>
  %x = brick.load %ptrs_b, %m_b : tensor<1024x!brick.ptr<f32>, #b>
  return %x : tensor<1024xf32, #b>
}

// -----

#a = #brickgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#b = #brickgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>

// Loaded values converted away and back meet after the elementwise op moves into their layout.
// CHECK-LABEL: func.func @sink_through_elementwise
// CHECK-NOT: brickgpu.convert_layout
// CHECK: arith.addf {{.*}} : tensor<1024xf32, #[[B:.*]]>
// CHECK: math.exp {{.*}} : tensor<1024xf32, #[[B]]>
// CHECK: brick.store {{.*}} : tensor<1024x!brick.ptr<f32>, #[[B]]>
func.func @sink_through_elementwise(%pa: tensor<1024x!brick.ptr<f32>, #b>, %pb: tensor<1024x!brick.ptr<f32>, #b>, %c: f32) {
  %x = brick.load %pa : tensor<1024x!brick.ptr<f32>, #b>
  %y = brick.load %pb : tensor<1024x!brick.ptr<f32>, #b>
  %xa = brickgpu.convert_layout %x : tensor<1024xf32, #b> -> tensor<1024xf32, #a>
  %ya = brickgpu.convert_layout %y : tensor<1024xf32, #b> -> tensor<1024xf32, #a>
  %cs = brick.splat %c : tensor<1024xf32, #a>
  %s = arith.addf %xa, %ya : tensor<1024xf32, #a>
  %t = arith.mulf %s, %cs : tensor<1024xf32, #a>
  %e = math.exp %t : tensor<1024xf32, #a>
  %eb = brickgpu.convert_layout %e : tensor<1024xf32, #a> -> tensor<1024xf32, #b>
  brick.store %pa, %eb : tensor<1024x!brick.ptr<f32>, #b>
  return
}

// -----

#a = #brickgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#b = #brickgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>

// A reduction reads its operand where it was loaded.
// CHECK-LABEL: func.func @sink_into_reduce
// CHECK-NOT: brickgpu.convert_layout
// CHECK: brick.reduce(%{{.*}}) axis = 0 : (tensor<1024xf32, #[[B:.*]]>) -> f32
func.func @sink_into_reduce(%p: tensor<1024x!brick.ptr<f32>, #b>) -> f32 {
  %x = brick.load %p : tensor<1024x!brick.ptr<f32>, #b>
  %xa = brickgpu.convert_layout %x : tensor<1024xf32, #b> -> tensor<1024xf32, #a>
  %m = brick.reduce(%xa) axis = 0 : (tensor<1024xf32, #a>) -> f32 {
  ^bb0(%u: f32, %v: f32):
    %w = arith.maxnumf %u, %v : f32
    brick.reduce.return %w : f32
  }
  return %m : f32
}

// -----

#a = #brickgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#b = #brickgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>

// A loaded value that must change layout for a store keeps its conversion.
// CHECK-LABEL: func.func @keeps_needed_conversion
// CHECK: brickgpu.convert_layout %{{.*}} : tensor<1024xf32, #{{.*}}> -> tensor<1024xf32, #{{.*}}>
func.func @keeps_needed_conversion(%pa: tensor<1024x!brick.ptr<f32>, #a>, %pb: tensor<1024x!brick.ptr<f32>, #b>) {
  %x = brick.load %pa : tensor<1024x!brick.ptr<f32>, #a>
  %xb = brickgpu.convert_layout %x : tensor<1024xf32, #a> -> tensor<1024xf32, #b>
  brick.store %pb, %xb : tensor<1024x!brick.ptr<f32>, #b>
  return
}

// -----

// Loop-carried values move into the layout their users in the loop convert them to: the accumulator of a
// tensor-core dot stays #mma across iterations, the pointers stay in the load's layout; the conversions happen
// once, after the loop (or not at all: the zeros are made in #mma).
#acc = #brickgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [1, 4], order = [1, 0]}>
#ld = #brickgpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #brickgpu.mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#a = #brickgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#b = #brickgpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
#s = #brickgpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>
// CHECK-LABEL: func.func @carry_in_users_layout
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<64x64xf32, #[[MMA:mma.*]]>
// CHECK: %[[R:.*]]:2 = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]], %[[P:.*]] = %{{.*}}) -> (tensor<64x64xf32, #[[MMA]]>, tensor<64x64x!brick.ptr<f16>, #[[LD:blocked.*]]>)
// CHECK-NOT: brickgpu.convert_layout
// CHECK: brick.load %[[P]] : tensor<64x64x!brick.ptr<f16>, #[[LD]]>
// CHECK: %[[D:.*]] = brick.dot {{.*}}, %[[ACC]] : {{.*}} -> tensor<64x64xf32, #[[MMA]]>
// CHECK: %[[NEXT:.*]] = brick.addptr %[[P]], %{{.*}} : tensor<64x64x!brick.ptr<f16>, #[[LD]]>, tensor<64x64xi32, #[[LD]]>
// CHECK: scf.yield %[[D]], %[[NEXT]]
// CHECK: brickgpu.convert_layout %[[R]]#0 : tensor<64x64xf32, #[[MMA]]> -> tensor<64x64xf32, #{{.*}}>
func.func @carry_in_users_layout(%p: tensor<64x64x!brick.ptr<f16>, #acc>, %n: i32) -> tensor<64x64xf32, #acc> {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
  %step = arith.constant dense<64> : tensor<64x64xi32, #acc>
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero, %q = %p) -> (tensor<64x64xf32, #acc>, tensor<64x64x!brick.ptr<f16>, #acc>) : i32 {
    %q_ld = brickgpu.convert_layout %q : tensor<64x64x!brick.ptr<f16>, #acc> -> tensor<64x64x!brick.ptr<f16>, #ld>
    %x = brick.load %q_ld : tensor<64x64x!brick.ptr<f16>, #ld>
    %buffer = brickgpu.local_alloc %x : (tensor<64x64xf16, #ld>) -> !brickgpu.memdesc<64x64xf16, #s>
    %xa = brickgpu.local_load %buffer : !brickgpu.memdesc<64x64xf16, #s> -> tensor<64x64xf16, #a>
    %xb = brickgpu.local_load %buffer : !brickgpu.memdesc<64x64xf16, #s> -> tensor<64x64xf16, #b>
    %c = brickgpu.convert_layout %acc : tensor<64x64xf32, #acc> -> tensor<64x64xf32, #mma>
    %d = brick.dot %xa, %xb, %c : tensor<64x64xf16, #a> * tensor<64x64xf16, #b> -> tensor<64x64xf32, #mma>
    %d_acc = brickgpu.convert_layout %d : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #acc>
    %q2 = brick.addptr %q, %step : tensor<64x64x!brick.ptr<f16>, #acc>, tensor<64x64xi32, #acc>
    scf.yield %d_acc, %q2 : tensor<64x64xf32, #acc>, tensor<64x64x!brick.ptr<f16>, #acc>
  }
  return %r#0 : tensor<64x64xf32, #acc>
}

// -----

// Online softmax: the running max and sum and the output accumulator are carried in the dot's #mma layout (and
// its row slice), though their users in the loop are elementwise ops in the blocked layout: an elementwise user
// of a loop value runs in the layout another operand of it is converted from (the max: a reduction of the
// scores), or in the one its result is converted to (acc * correction, before the dot). No whole block is
// converted in the loop.
#blk = #brickgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #brickgpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 64]}>
// CHECK-DAG: #[[MMA:.*]] = #brickgpu.mma<{version = 3
// CHECK-DAG: #[[ROWS:.*]] = #brickgpu.slice<{dim = 1, parent = #[[MMA]]}>
// CHECK-LABEL: func.func @online_softmax
// CHECK: scf.for {{.*}} -> (tensor<64x64xf32, #[[MMA]]>, tensor<64xf32, #[[ROWS]]>)
// CHECK-NOT: brickgpu.convert_layout {{.*}} : tensor<64x64xf32
// CHECK: scf.yield
module attributes {brickgpu.num_warps = 4 : i32} {
  func.func @online_softmax(%scores: tensor<64x64xf32, #mma>, %acc0: tensor<64x64xf32, #blk>, %max0: tensor<64xf32, #brickgpu.slice<{dim = 1, parent = #blk}>>, %n: i32) -> tensor<64x64xf32, #blk> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %acc0, %max = %max0) -> (tensor<64x64xf32, #blk>, tensor<64xf32, #brickgpu.slice<{dim = 1, parent = #blk}>>) : i32 {
      %s = arith.addf %scores, %scores : tensor<64x64xf32, #mma>
      %top = "brick.reduce"(%s) <{axis = 1 : i32}> ({
      ^bb0(%x: f32, %y: f32):
        %m = arith.maxnumf %x, %y : f32
        "brick.reduce.return"(%m) : (f32) -> ()
      }) : (tensor<64x64xf32, #mma>) -> tensor<64xf32, #brickgpu.slice<{dim = 1, parent = #mma}>>
      %top1 = brickgpu.convert_layout %top : tensor<64xf32, #brickgpu.slice<{dim = 1, parent = #mma}>> -> tensor<64xf32, #brickgpu.slice<{dim = 1, parent = #blk}>>
      %newMax = arith.maxnumf %max, %top1 : tensor<64xf32, #brickgpu.slice<{dim = 1, parent = #blk}>>
      %diff = arith.subf %max, %newMax : tensor<64xf32, #brickgpu.slice<{dim = 1, parent = #blk}>>
      %correction = math.exp2 %diff : tensor<64xf32, #brickgpu.slice<{dim = 1, parent = #blk}>>
      %column = brick.expand_dims %correction {axis = 1 : i32} : tensor<64xf32, #brickgpu.slice<{dim = 1, parent = #blk}>> -> tensor<64x1xf32, #blk>
      %wide = brick.broadcast %column : tensor<64x1xf32, #blk> -> tensor<64x64xf32, #blk>
      %scaled = arith.mulf %acc, %wide : tensor<64x64xf32, #blk>
      %c = brickgpu.convert_layout %scaled : tensor<64x64xf32, #blk> -> tensor<64x64xf32, #mma>
      %d = arith.addf %c, %s : tensor<64x64xf32, #mma>
      %back = brickgpu.convert_layout %d : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blk>
      scf.yield %back, %newMax : tensor<64x64xf32, #blk>, tensor<64xf32, #brickgpu.slice<{dim = 1, parent = #blk}>>
    }
    return %r#0 : tensor<64x64xf32, #blk>
  }
}

// -----

// DeepSeek-V3's promotion: a row's scales, read a step ahead and carried, scale each step's product into the
// accumulator with one fma. The small load (one element a thread at most) is loaded again in the accumulator's
// row slice rather than converted every step; the fma runs in the dot's layout once the accumulator is carried
// there (accumulators first: then the scales are wanted in a slice of #mma, not of the fma's old layout).
#blk = #brickgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [2, 4], order = [1, 0]}>
#vec = #brickgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>
#mma = #brickgpu.mma<{version = 3, warpsPerCTA = [8, 1], instrShape = [64, 128]}>
// CHECK-DAG: #[[MMA:.*]] = #brickgpu.mma<{version = 3
// CHECK-DAG: #[[ROWS:.*]] = #brickgpu.slice<{dim = 1, parent = #[[MMA]]}>
// CHECK-LABEL: func.func @promotion_scales
// CHECK: scf.for {{.*}} -> (tensor<128x128xf32, #[[MMA]]>, tensor<128xf32, #[[ROWS]]>)
// CHECK-NOT: brickgpu.convert_layout
// CHECK: brick.load {{.*}} : tensor<128x!brick.ptr<f32>, #[[ROWS]]>
// CHECK-NOT: brickgpu.convert_layout
// CHECK: math.fma {{.*}} : tensor<128x128xf32, #[[MMA]]>
// CHECK: scf.yield
module attributes {brickgpu.num_warps = 8 : i32} {
  func.func @promotion_scales(%scale: !brick.ptr<f32>, %product: tensor<128x128xf32, #mma>, %n: i32) -> tensor<128x128xf32, #blk> {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %zero = arith.constant dense<0.0> : tensor<128x128xf32, #blk>
    %rows = brick.make_range 0, 128 : tensor<128xi32, #vec>
    %base = brick.splat %scale : tensor<128x!brick.ptr<f32>, #vec>
    %first = brick.addptr %base, %rows : tensor<128x!brick.ptr<f32>, #vec>, tensor<128xi32, #vec>
    %s0 = brick.load %first : tensor<128x!brick.ptr<f32>, #vec>
    %r:2 = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zero, %s = %s0) -> (tensor<128x128xf32, #blk>, tensor<128xf32, #vec>) : i32 {
      %at = brick.splat %k : tensor<128xi32, #vec>
      %next = arith.addi %rows, %at : tensor<128xi32, #vec>
      %ptrs = brick.addptr %base, %next : tensor<128x!brick.ptr<f32>, #vec>, tensor<128xi32, #vec>
      %s1 = brick.load %ptrs : tensor<128x!brick.ptr<f32>, #vec>
      %p = arith.addf %product, %product : tensor<128x128xf32, #mma>
      %pb = brickgpu.convert_layout %p : tensor<128x128xf32, #mma> -> tensor<128x128xf32, #blk>
      %sr = brickgpu.convert_layout %s : tensor<128xf32, #vec> -> tensor<128xf32, #brickgpu.slice<{dim = 1, parent = #blk}>>
      %col = brick.expand_dims %sr {axis = 1 : i32} : tensor<128xf32, #brickgpu.slice<{dim = 1, parent = #blk}>> -> tensor<128x1xf32, #blk>
      %wide = brick.broadcast %col : tensor<128x1xf32, #blk> -> tensor<128x128xf32, #blk>
      %acc1 = math.fma %pb, %wide, %acc : tensor<128x128xf32, #blk>
      scf.yield %acc1, %s1 : tensor<128x128xf32, #blk>, tensor<128xf32, #vec>
    }
    return %r#0 : tensor<128x128xf32, #blk>
  }
}

// -----

// A small load of memory the kernel also writes keeps its conversion: loaded again in another layout, a thread
// would read elements other warps loaded, unordered against their stores.
#vec = #brickgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#blk = #brickgpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], order = [0, 1]}>
#sl = #brickgpu.slice<{dim = 1, parent = #blk}>
// CHECK-LABEL: func.func @written_load_is_converted
// CHECK: %[[X:.*]] = brick.load %{{.*}} : tensor<128x!brick.ptr<f32>, #[[VEC:.*]]>
// CHECK-NOT: brick.load
// CHECK: brickgpu.convert_layout %[[X]] : tensor<128xf32, #[[VEC]]> -> tensor<128xf32, #{{.*}}>
module attributes {brickgpu.num_warps = 4 : i32} {
  func.func @written_load_is_converted(%p: !brick.ptr<f32>) -> tensor<128xf32, #sl> {
    %rows = brick.make_range 0, 128 : tensor<128xi32, #vec>
    %base = brick.splat %p : tensor<128x!brick.ptr<f32>, #vec>
    %ptrs = brick.addptr %base, %rows : tensor<128x!brick.ptr<f32>, #vec>, tensor<128xi32, #vec>
    %x = brick.load %ptrs : tensor<128x!brick.ptr<f32>, #vec>
    %one = arith.constant dense<1.0> : tensor<128xf32, #vec>
    %y = arith.addf %x, %one : tensor<128xf32, #vec>
    brick.store %ptrs, %y : tensor<128x!brick.ptr<f32>, #vec>
    %z = brickgpu.convert_layout %x : tensor<128xf32, #vec> -> tensor<128xf32, #sl>
    return %z : tensor<128xf32, #sl>
  }
}
