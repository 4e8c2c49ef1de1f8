// brick.print, brick.assert and the shared-memory ops in LLVM.

#b = #brickgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {brickgpu.num_warps = 1 : i32, brickgpu.shared = 0 : i32} {
  // CHECK-DAG: llvm.func @vprintf(!llvm.ptr, !llvm.ptr) -> i32
  // CHECK-DAG: llvm.func @__assertfail(!llvm.ptr, !llvm.ptr, i32, !llvm.ptr, i64)
  // CHECK-DAG: llvm.mlir.global internal constant @{{.*}}("x = pid (%u, %u, %u) idx (%u) %f\0A\00")
  // CHECK-DAG: llvm.mlir.global internal constant @{{.*}}("x must be positive\00")
  // CHECK-LABEL: llvm.func @debug
  func.func @debug(%x: tensor<32xf32, #b>, %n: i32) {
    // CHECK: llvm.fpext {{.*}} : f32 to f64
    // CHECK: llvm.call @vprintf
    brick.print "x = " %x : tensor<32xf32, #b>
    %zero = arith.constant dense<0.0> : tensor<32xf32, #b>
    %positive = arith.cmpf ogt, %x, %zero : tensor<32xf32, #b>
    // CHECK: llvm.cond_br
    // CHECK: llvm.call @__assertfail
    brick.assert %positive, "x must be positive" : tensor<32xi1, #b>
    return
  }
}
