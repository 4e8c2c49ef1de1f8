// Every brick op, printed and parsed back: custom form, and the generic form parsed into the custom one.
// RUN: brick-opt %s | brick-opt | FileCheck %s
// RUN: brick-opt %s --mlir-print-op-generic | brick-opt | FileCheck %s

// CHECK-LABEL: func.func @grid
func.func @grid() -> (i32, i32) {
  // CHECK: brick.program_id 2
  %0 = brick.program_id 2
  // CHECK: brick.num_programs 0
  %1 = brick.num_programs 0
  return %0, %1 : i32, i32
}

// CHECK-LABEL: func.func @types
// CHECK-SAME: !brick.ptr<f16>, %{{.*}}: !brick.ptr<i8>, %{{.*}}: tensor<4x!brick.ptr<bf16>>
func.func @types(%a: !brick.ptr<f16>, %b: !brick.ptr<i8, 1>, %c: tensor<4x!brick.ptr<bf16>>) {
  return
}

// CHECK-LABEL: func.func @shapes
func.func @shapes(%x: f32, %v: tensor<128xf32>) -> (tensor<2048xf32>, tensor<32x64xf32>) {
  // CHECK: brick.make_range 16, 48 : tensor<32xi32>
  %r = brick.make_range 16, 48 : tensor<32xi32>
  // CHECK: brick.splat %{{.*}} : tensor<64x32xf32>
  %s = brick.splat %x : tensor<64x32xf32>
  // CHECK: brick.expand_dims %{{.*}} {axis = 1 : i32} : tensor<128xf32> -> tensor<128x1xf32>
  %e = brick.expand_dims %v {axis = 1 : i32} : tensor<128xf32> -> tensor<128x1xf32>
  // CHECK: brick.trans %{{.*}} [1, 0] : tensor<128x1xf32> -> tensor<1x128xf32>
  %t = brick.trans %e [1, 0] : tensor<128x1xf32> -> tensor<1x128xf32>
  // CHECK: brick.broadcast %{{.*}} : tensor<1x128xf32> -> tensor<16x128xf32>
  %b = brick.broadcast %t : tensor<1x128xf32> -> tensor<16x128xf32>
  // CHECK: brick.reshape %{{.*}} : tensor<16x128xf32> -> tensor<2048xf32>
  %rs = brick.reshape %b : tensor<16x128xf32> -> tensor<2048xf32>
  %u = brick.trans %s [1, 0] : tensor<64x32xf32> -> tensor<32x64xf32>
  return %rs, %u : tensor<2048xf32>, tensor<32x64xf32>
}

// CHECK-LABEL: func.func @memory
func.func @memory(%p: !brick.ptr<f32>, %offs: tensor<128xi32>, %mask: tensor<128xi1>, %other: tensor<128xf32>) {
  %ps = brick.splat %p : tensor<128x!brick.ptr<f32>>
  // CHECK: brick.addptr %{{.*}}, %{{.*}} : tensor<128x!brick.ptr<f32>>, tensor<128xi32>
  %ptrs = brick.addptr %ps, %offs : tensor<128x!brick.ptr<f32>>, tensor<128xi32>
  // CHECK: brick.addptr %{{.*}}, %{{.*}} : !brick.ptr<f32>, i64
  %c = arith.constant 7 : i64
  %q = brick.addptr %p, %c : !brick.ptr<f32>, i64
  // CHECK: brick.load %{{.*}} : tensor<128x!brick.ptr<f32>>
  %a = brick.load %ptrs : tensor<128x!brick.ptr<f32>>
  // CHECK: brick.load %{{.*}}, %{{.*}} : tensor<128x!brick.ptr<f32>>
  %b = brick.load %ptrs, %mask : tensor<128x!brick.ptr<f32>>
  // CHECK: brick.load %{{.*}}, %{{.*}}, %{{.*}} cache = cg evict = evict_last volatile : tensor<128x!brick.ptr<f32>>
  %d = brick.load %ptrs, %mask, %other cache = cg evict = evict_last volatile : tensor<128x!brick.ptr<f32>>
  // CHECK: brick.load %{{.*}} : !brick.ptr<f32>
  %s = brick.load %q : !brick.ptr<f32>
  // CHECK: brick.store %{{.*}}, %{{.*}}, %{{.*}} cache = wt evict = evict_first : tensor<128x!brick.ptr<f32>>
  brick.store %ptrs, %a, %mask cache = wt evict = evict_first : tensor<128x!brick.ptr<f32>>
  // CHECK: brick.store %{{.*}}, %{{.*}} : !brick.ptr<f32>
  brick.store %q, %s : !brick.ptr<f32>
  return
}

// CHECK-LABEL: func.func @atomics
func.func @atomics(%ptrs: tensor<64x!brick.ptr<i32>>, %v: tensor<64xi32>, %mask: tensor<64xi1>, %fp: !brick.ptr<f16>, %h: f16) {
  // CHECK: brick.atomic_rmw add, relaxed, cta, %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x!brick.ptr<i32>>
  %0 = brick.atomic_rmw add, relaxed, cta, %ptrs, %v, %mask : tensor<64x!brick.ptr<i32>>
  // CHECK: brick.atomic_rmw xor, acq_rel, gpu, %{{.*}}, %{{.*}} : tensor<64x!brick.ptr<i32>>
  %1 = brick.atomic_rmw xor, acq_rel, gpu, %ptrs, %v : tensor<64x!brick.ptr<i32>>
  // CHECK: brick.atomic_rmw fadd, release, sys, %{{.*}}, %{{.*}} : !brick.ptr<f16>
  %2 = brick.atomic_rmw fadd, release, sys, %fp, %h : !brick.ptr<f16>
  // CHECK: brick.atomic_cas acquire, gpu, %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x!brick.ptr<i32>>
  %3 = brick.atomic_cas acquire, gpu, %ptrs, %v, %0 : tensor<64x!brick.ptr<i32>>
  return
}

// CHECK-LABEL: func.func @compute
func.func @compute(%a: tensor<64x32xf16>, %b: tensor<32x128xf16>, %c: tensor<64x128xf32>,
                   %x: tensor<64x32xf32>, %y: tensor<32x128xf32>, %i: tensor<16x32xi8>, %j: tensor<32x16xi8>, %k: tensor<16x16xi32>) {
  // CHECK: brick.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x32xf16> * tensor<32x128xf16> -> tensor<64x128xf32>
  %0 = brick.dot %a, %b, %c : tensor<64x32xf16> * tensor<32x128xf16> -> tensor<64x128xf32>
  // CHECK: brick.dot %{{.*}}, %{{.*}}, %{{.*}} inputPrecision = tf32 : tensor<64x32xf32> * tensor<32x128xf32> -> tensor<64x128xf32>
  %1 = brick.dot %x, %y, %c inputPrecision = tf32 : tensor<64x32xf32> * tensor<32x128xf32> -> tensor<64x128xf32>
  // CHECK: brick.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<16x32xi8> * tensor<32x16xi8> -> tensor<16x16xi32>
  %2 = brick.dot %i, %j, %k : tensor<16x32xi8> * tensor<32x16xi8> -> tensor<16x16xi32>
  // CHECK: brick.reduce(%{{.*}}) axis = 1 : (tensor<64x128xf32>) -> tensor<64xf32> {
  // CHECK: ^bb0(%{{.*}}: f32, %{{.*}}: f32):
  // CHECK:   brick.reduce.return %{{.*}} : f32
  %3 = brick.reduce(%0) axis = 1 : (tensor<64x128xf32>) -> tensor<64xf32> {
  ^bb0(%p: f32, %q: f32):
    %s = arith.addf %p, %q : f32
    brick.reduce.return %s : f32
  }
  // CHECK: brick.reduce(%{{.*}}, %{{.*}}) axis = 0 : (tensor<64xf32>, tensor<64xi32>) -> (f32, i32)
  %idx = brick.make_range 0, 64 : tensor<64xi32>
  %4:2 = brick.reduce(%3, %idx) axis = 0 : (tensor<64xf32>, tensor<64xi32>) -> (f32, i32) {
  ^bb0(%v0: f32, %i0: i32, %v1: f32, %i1: i32):
    %gt = arith.cmpf ogt, %v1, %v0 : f32
    %v = arith.select %gt, %v1, %v0 : f32
    %ix = arith.select %gt, %i1, %i0 : i32
    brick.reduce.return %v, %ix : f32, i32
  }
  // CHECK: brick.gather %{{.*}}[%{{.*}}] axis = 1 : (tensor<64x128xf32>, tensor<64x8xi32>) -> tensor<64x8xf32>
  %cols = arith.constant dense<3> : tensor<64x8xi32>
  %g = brick.gather %0[%cols] axis = 1 : (tensor<64x128xf32>, tensor<64x8xi32>) -> tensor<64x8xf32>
  // CHECK: brick.scan(%{{.*}}) axis = 1 reverse = false : (tensor<64x128xf32>) -> tensor<64x128xf32> {
  // CHECK:   brick.scan.return %{{.*}} : f32
  %5 = brick.scan(%0) axis = 1 reverse = false : (tensor<64x128xf32>) -> tensor<64x128xf32> {
  ^bb0(%p: f32, %q: f32):
    %s = arith.addf %p, %q : f32
    brick.scan.return %s : f32
  }
  // CHECK: brick.scan(%{{.*}}, %{{.*}}) axis = 0 reverse = true : (tensor<64xf32>, tensor<64xi32>) -> (tensor<64xf32>, tensor<64xi32>)
  %6:2 = brick.scan(%3, %idx) axis = 0 reverse = true : (tensor<64xf32>, tensor<64xi32>) -> (tensor<64xf32>, tensor<64xi32>) {
  ^bb0(%v0: f32, %i0: i32, %v1: f32, %i1: i32):
    %gt = arith.cmpf ogt, %v1, %v0 : f32
    %v = arith.select %gt, %v1, %v0 : f32
    %ix = arith.select %gt, %i1, %i0 : i32
    brick.scan.return %v, %ix : f32, i32
  }
  return
}

// CHECK-LABEL: func.func @hints
func.func @hints(%x: tensor<8x16xi32>, %n: i32, %c: tensor<8xi1>) {
  // CHECK: brick.hint %{{.*}} {contiguity = array<i64: 1, 16>, divisibility = array<i64: 16, 16>} : tensor<8x16xi32>
  %h = brick.hint %x {divisibility = array<i64: 16, 16>, contiguity = array<i64: 1, 16>} : tensor<8x16xi32>
  // CHECK: brick.hint %{{.*}} {divisibility = array<i64: 8>} : i32
  %m = brick.hint %n {divisibility = array<i64: 8>} : i32
  // CHECK: brick.hint %{{.*}} {constancy = array<i64: 8, 1>} : tensor<8x16xi32>
  %k = brick.hint %x {constancy = array<i64: 8, 1>} : tensor<8x16xi32>
  // CHECK: brick.assume %{{.*}} : tensor<8xi1>
  brick.assume %c : tensor<8xi1>
  // CHECK: brick.cluster_shared %{{.*}}[%{{.*}}, %{{.*}}]
  %t = arith.constant true
  brick.cluster_shared %t [%n, %n]
  return
}

// CHECK-LABEL: func.func @inline_asm
func.func @inline_asm(%x: tensor<8xi32>, %n: i32) {
  // CHECK: brick.inline_asm_elementwise "shf.l.wrap.b32 $0, $1, $1, $2;" "=r,r,r" pure %{{.*}}, %{{.*}} : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
  %s = brick.splat %n : tensor<8xi32>
  %r = brick.inline_asm_elementwise "shf.l.wrap.b32 $0, $1, $1, $2;" "=r,r,r" pure %x, %s : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
  // CHECK: brick.inline_asm_elementwise "mov.b64 {$0, $1}, $2;" "=r,=r,l" %{{.*}} : (i64) -> (i32, i32)
  %w = arith.extsi %n : i32 to i64
  %lo, %hi = brick.inline_asm_elementwise "mov.b64 {$0, $1}, $2;" "=r,=r,l" %w : (i64) -> (i32, i32)
  // Two f32 in, one register of two f16 out, per invocation.
  // CHECK: brick.inline_asm_elementwise "cvt.rn.f16x2.f32 $0, $2, $1;" "=r,r,r" pure %{{.*}} {pack = 2 : i32} : (tensor<8xf32>) -> tensor<8xf16>
  %f = arith.sitofp %x : tensor<8xi32> to tensor<8xf32>
  %h = brick.inline_asm_elementwise "cvt.rn.f16x2.f32 $0, $2, $1;" "=r,r,r" pure %f {pack = 2 : i32} : (tensor<8xf32>) -> tensor<8xf16>
  return
}

// CHECK-LABEL: func.func @debugging
func.func @debugging(%m: tensor<8xi1>, %x: tensor<8xf32>, %n: i32) {
  // CHECK: brick.assert %{{.*}}, "index out of range" : tensor<8xi1>
  brick.assert %m, "index out of range" : tensor<8xi1>
  // CHECK: brick.print "x = " %{{.*}}, %{{.*}} : tensor<8xf32>, i32
  brick.print "x = " %x, %n : tensor<8xf32>, i32
  // CHECK: brick.print "bits " hex %{{.*}} : i32
  brick.print "bits " hex %n : i32
  // CHECK: brick.print "here"
  brick.print "here"
  return
}
