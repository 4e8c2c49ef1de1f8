// brick.scan: a running combination in each thread's registers, then the lanes' totals by shfl.sync.idx, then
// the warps' through shared memory. The combiner keeps its operand order (the earlier elements first).
// RUN: brick-opt %s -split-input-file -convert-brickgpu-to-llvm -reconcile-unrealized-casts -canonicalize -cse | FileCheck %s

#v4 = #brickgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {brickgpu.num_warps = 4 : i32, brickgpu.shared = 48 : i32} {
  // 512 elements: 4 registers, 32 lanes, 4 warps along the axis. The registers: 3 subtractions in order, each
  // from the running total (x0 - x1 - x2 - x3 is no scan: the combiner here is "first - second", kept in
  // order). Then 5 lane steps, one shuffle each (the last register's value from the lane below's half), and
  // 4 combines kept only where the lane is in the later half. Then the warps' totals: stored, 3 loaded.
  // CHECK-LABEL: llvm.func @running_difference
  // CHECK: %[[R1:.*]] = llvm.fsub %[[X0:.*]], %[[X1:.*]] : f32
  // CHECK: %[[R2:.*]] = llvm.fsub %[[R1]], %[[X2:.*]] : f32
  // CHECK: %[[R3:.*]] = llvm.fsub %[[R2]], %[[X3:.*]] : f32
  // CHECK-COUNT-5: nvvm.shfl.sync idx
  // CHECK-NOT: nvvm.shfl.sync
  // CHECK: nvvm.barrier0
  // CHECK: llvm.store {{.*}} : f32, !llvm.ptr<3>
  // CHECK-NOT: llvm.store
  // CHECK: nvvm.barrier0
  // CHECK-COUNT-3: llvm.load {{.*}} : !llvm.ptr<3> -> f32
  // CHECK-NOT: llvm.load
  func.func @running_difference(%x: tensor<512xf32, #v4>) -> tensor<512xf32, #v4> {
    %c = brick.scan(%x) axis = 0 reverse = false {brickgpu.offset = 0 : i32} : (tensor<512xf32, #v4>) -> tensor<512xf32, #v4> {
    ^bb0(%u: f32, %v: f32):
      %w = arith.subf %u, %v : f32
      brick.scan.return %w : f32
    }
    return %c : tensor<512xf32, #v4>
  }
}

// -----

#v4 = #brickgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
module attributes {brickgpu.num_warps = 1 : i32, brickgpu.shared = 0 : i32} {
  // Reversed, in one warp: the registers from the last (x3) down, and no shared memory.
  // CHECK-LABEL: llvm.func @reverse_in_one_warp
  // CHECK-DAG: %[[X3:.*]] = llvm.extractvalue %{{.*}}[3]
  // CHECK-DAG: %[[X2:.*]] = llvm.extractvalue %{{.*}}[2]
  // CHECK: %[[R2:.*]] = llvm.sub %[[X3]], %[[X2]] : i32
  // CHECK-COUNT-5: nvvm.shfl.sync idx
  // CHECK-NOT: nvvm.barrier0
  // CHECK-NOT: llvm.store
  func.func @reverse_in_one_warp(%x: tensor<128xi32, #v4>) -> tensor<128xi32, #v4> {
    %c = brick.scan(%x) axis = 0 reverse = true : (tensor<128xi32, #v4>) -> tensor<128xi32, #v4> {
    ^bb0(%u: i32, %v: i32):
      %w = arith.subi %u, %v : i32
      brick.scan.return %w : i32
    }
    return %c : tensor<128xi32, #v4>
  }
}

// -----

#b = #brickgpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {brickgpu.num_warps = 4 : i32, brickgpu.shared = 0 : i32} {
  // The warps split the rows, so a scan along each row (axis 1) stays in its warp: registers, then the 3 lane
  // bits along the row, no barrier.
  // CHECK-LABEL: llvm.func @along_rows
  // CHECK-COUNT-3: nvvm.shfl.sync idx
  // CHECK-NOT: nvvm.shfl.sync
  // CHECK-NOT: nvvm.barrier0
  func.func @along_rows(%x: tensor<16x32xf32, #b>) -> tensor<16x32xf32, #b> {
    %c = brick.scan(%x) axis = 1 reverse = false : (tensor<16x32xf32, #b>) -> tensor<16x32xf32, #b> {
    ^bb0(%u: f32, %v: f32):
      %w = arith.addf %u, %v : f32
      brick.scan.return %w : f32
    }
    return %c : tensor<16x32xf32, #b>
  }
}
