#b = #brickgpu.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {brickgpu.num_warps = 1 : i32, brickgpu.shared = 0 : i32} {
  // A constant block that is not a splat: a table in global memory, read at each thread's coordinates.
  // CHECK: llvm.mlir.global internal constant @brick_table_0(dense<[3, 1, 4, 1]> : tensor<4xi32>) {addr_space = 1 : i32, alignment = 16 : i64} : !llvm.array<4 x i32>
  // CHECK-LABEL: llvm.func @table
  // CHECK: llvm.mlir.addressof @brick_table_0 : !llvm.ptr<1>
  // CHECK: llvm.load {{.*}} : !llvm.ptr<1> -> i32
  func.func @table() -> tensor<4xi32, #b> {
    %c = arith.constant dense<[3, 1, 4, 1]> : tensor<4xi32, #b>
    return %c : tensor<4xi32, #b>
  }
}
