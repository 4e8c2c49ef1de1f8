// Per-thread code: blocks become structs of registers; memory ops become predicated vector PTX.

#v4 = #brickgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {brickgpu.num_warps = 4 : i32, brickgpu.shared = 0 : i32} {
  // CHECK-LABEL: llvm.func @copy
  // CHECK-SAME: %{{.*}}: !llvm.ptr<1> {llvm.align = 16 : i64}
  // CHECK-SAME: attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>}
  func.func @copy(%p: !brick.ptr<f32> {brick.divisibility = 16 : i32}, %n: i32 {brick.divisibility = 16 : i32}) attributes {brick.kernel} {
    // CHECK: nvvm.read.ptx.sreg.ctaid.x
    %pid = brick.program_id 0
    // CHECK: nvvm.read.ptx.sreg.tid.x
    %r = brick.make_range 0, 1024 : tensor<1024xi32, #v4>
    %ns = brick.splat %n : tensor<1024xi32, #v4>
    %m = arith.cmpi slt, %r, %ns : tensor<1024xi32, #v4>
    %ps = brick.splat %p : tensor<1024x!brick.ptr<f32>, #v4>
    // CHECK-COUNT-8: llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
    %ptrs = brick.addptr %ps, %r : tensor<1024x!brick.ptr<f32>, #v4>, tensor<1024xi32, #v4>
    // 1024 elements over 128 threads: two 16-byte loads each, under the mask, with `other` moved in first.
    // CHECK-COUNT-2: llvm.inline_asm has_side_effects "mov.b32 $0, $6;{{.*}}@$5 ld.global.v4.b32 {$0, $1, $2, $3}, [ $4 + 0 ];"
    %zero = arith.constant dense<0.0> : tensor<1024xf32, #v4>
    %x = brick.load %ptrs, %m, %zero : tensor<1024x!brick.ptr<f32>, #v4>
    // CHECK-COUNT-8: llvm.fadd
    %y = arith.addf %x, %x : tensor<1024xf32, #v4>
    // CHECK-COUNT-2: llvm.inline_asm has_side_effects "@$5 st.global.v4.b32 [ $0 + 0 ], {$1, $2, $3, $4};"
    brick.store %ptrs, %y, %m : tensor<1024x!brick.ptr<f32>, #v4>
    return
  }
}
