// An instruction outside every function is an error, not a crash in LLVM's translation (found by fuzzing).
// RUN: not brickc %s --emit=ptx -o /dev/null 2>&1 | FileCheck %s
// CHECK: top-level-ops.mlir:[[@LINE+1]]:1: error: 'nvvm.barrier0' cannot stand at the top of a module: only functions and globals can
nvvm.barrier0
func.func @k(%p: !brick.ptr<f32>) attributes {brick.kernel} {
  return
}
