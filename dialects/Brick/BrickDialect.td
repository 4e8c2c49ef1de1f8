#ifndef BRICK_DIALECT_TD
#define BRICK_DIALECT_TD

include "mlir/IR/OpBase.td"

def Brick_Dialect : Dialect {
  let name = "brick";
  let cppNamespace = "::mlir::brick";
  let summary = "Block-level tensor programs: hardware-free, layout-free";
  let description = [{
    The `brick` dialect describes one *program* of a GPU kernel as operations on whole blocks (tiles) of data:
    ranked tensors with static, power-of-two shapes whose elements are scalars or `!brick.ptr<T>` pointers
    into global memory. It knows nothing about threads, warps or layouts; the `brickgpu` dialect adds those.

    A kernel is a `func.func` carrying the `brick.kernel` unit attribute, returning nothing. Arguments are
    scalars (`i1`..`i64`, `f16`, `bf16`, `f32`, `f64`) or pointers; argument attributes such as
    `brick.divisibility = 16` record what the runtime knows about an argument's value. Arithmetic, math and
    control flow come from the `arith`, `math` and `scf` dialects.
  }];
  let useDefaultTypePrinterParser = 1;
  let hasConstantMaterializer = 1;
  // Patterns for ops of other dialects that brick IR needs decided before theirs (BrickFolds.cpp).
  let hasCanonicalizer = 1;
  let hasOperationAttrVerify = 1;
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::func::FuncDialect",
  ];
  let extraClassDeclaration = [{
    /// Name of the unit attribute that marks a func.func as a kernel entry point.
    static constexpr ::llvm::StringLiteral getKernelAttrName() { return "brick.kernel"; }
    /// Name of the argument attribute: the argument (an integer, or a pointer's address) is a multiple of it.
    static constexpr ::llvm::StringLiteral getDivisibilityAttrName() { return "brick.divisibility"; }
  }];
}

#endif // BRICK_DIALECT_TD
