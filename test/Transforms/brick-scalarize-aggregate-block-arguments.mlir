// RUN: brick-opt %s -brick-scalarize-aggregate-block-arguments | FileCheck %s
// RUN: brick-opt %s -brick-scalarize-aggregate-block-arguments -canonicalize | FileCheck %s --check-prefix=FOLDED

// A loop that carries a struct (a tile of two floats) and an i32: the struct becomes two arguments, the
// predecessors pass its members, the block rebuilds it.
// CHECK-LABEL: llvm.func @loop
// CHECK: llvm.br ^bb1(%{{.*}}, %{{.*}}, %{{.*}} : i32, f32, f32)
// CHECK: ^bb1(%[[I:.*]]: i32, %[[A:.*]]: f32, %[[B:.*]]: f32):
// CHECK:   %[[U:.*]] = llvm.mlir.undef : !llvm.struct<(f32, f32)>
// CHECK:   %[[S0:.*]] = llvm.insertvalue %[[A]], %[[U]][0]
// CHECK:   %[[S1:.*]] = llvm.insertvalue %[[B]], %[[S0]][1]
// CHECK:   llvm.cond_br %{{.*}}, ^bb1(%{{.*}}, %{{.*}}, %{{.*}} : i32, f32, f32), ^bb2
// CHECK: ^bb2:
// CHECK:   llvm.extractvalue %[[S1]][1]
//
// After canonicalization the loop carries scalars and no struct is left.
// FOLDED-LABEL: llvm.func @loop
// FOLDED-NOT: llvm.struct
// FOLDED: ^bb1(%{{.*}}: i32, %[[A:.*]]: f32, %[[B:.*]]: f32):
// FOLDED:   %[[SUM:.*]] = llvm.fadd %[[A]], %[[B]]
// FOLDED:   llvm.cond_br %{{.*}}, ^bb1(%{{.*}}, %[[SUM]], %[[A]] : i32, f32, f32), ^bb2
// FOLDED:   llvm.return %[[B]]
llvm.func @loop(%n: i32, %x: f32) -> f32 {
  %zero = llvm.mlir.constant(0 : i32) : i32
  %one = llvm.mlir.constant(1 : i32) : i32
  %u = llvm.mlir.undef : !llvm.struct<(f32, f32)>
  %s0 = llvm.insertvalue %x, %u[0] : !llvm.struct<(f32, f32)>
  %s1 = llvm.insertvalue %x, %s0[1] : !llvm.struct<(f32, f32)>
  llvm.br ^loop(%zero, %s1 : i32, !llvm.struct<(f32, f32)>)
^loop(%i: i32, %acc: !llvm.struct<(f32, f32)>):
  %a = llvm.extractvalue %acc[0] : !llvm.struct<(f32, f32)>
  %b = llvm.extractvalue %acc[1] : !llvm.struct<(f32, f32)>
  %sum = llvm.fadd %a, %b : f32
  %swapped = llvm.insertvalue %a, %acc[1] : !llvm.struct<(f32, f32)>
  %next = llvm.insertvalue %sum, %swapped[0] : !llvm.struct<(f32, f32)>
  %inext = llvm.add %i, %one : i32
  %more = llvm.icmp "slt" %inext, %n : i32
  llvm.cond_br %more, ^loop(%inext, %next : i32, !llvm.struct<(f32, f32)>), ^exit
^exit:
  %r = llvm.extractvalue %acc[1] : !llvm.struct<(f32, f32)>
  llvm.return %r : f32
}

// Entry arguments (the function's signature) and nested aggregates are left alone.
// CHECK-LABEL: llvm.func @kept
// CHECK-SAME: (%{{.*}}: !llvm.struct<(i32, i32)>
// CHECK: ^bb1(%{{.*}}: !llvm.struct<(struct<(i32)>, i32)>):
llvm.func @kept(%s: !llvm.struct<(i32, i32)>, %t: !llvm.struct<(struct<(i32)>, i32)>) -> i32 {
  llvm.br ^next(%t : !llvm.struct<(struct<(i32)>, i32)>)
^next(%n: !llvm.struct<(struct<(i32)>, i32)>):
  %v = llvm.extractvalue %n[1] : !llvm.struct<(struct<(i32)>, i32)>
  %w = llvm.extractvalue %s[0] : !llvm.struct<(i32, i32)>
  %r = llvm.add %v, %w : i32
  llvm.return %r : i32
}
