#ifndef BRICK_TRANSFORMS_PASSES_TD
#define BRICK_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def BrickCombine : Pass<"brick-combine", "::mlir::ModuleOp"> {
  let summary = "Fuse brick op sequences into cheaper forms";
  let description = [{
    Rewrites `arith.addf(brick.dot(a, b, 0), d)` into `brick.dot(a, b, d)` so that the tensor-core
    accumulator starts from `d` instead of zero and the addition disappears. Runs with the canonicalization
    patterns of the brick dialect.
  }];
  let dependentDialects = ["::mlir::brick::BrickDialect", "::mlir::arith::ArithDialect"];
}

#endif // BRICK_TRANSFORMS_PASSES_TD
