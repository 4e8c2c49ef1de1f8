#ifndef BRICK_TRANSFORMS_COMBINE_TD
#define BRICK_TRANSFORMS_COMBINE_TD

include "mlir/IR/PatternBase.td"
include "mlir/Dialect/Arith/IR/ArithOps.td"
include "Brick/BrickOps.td"

def IsZeroConstant : Constraint<CPred<"::mlir::brick::isZeroConstant($0)">, "a zero constant">;
def HasOneUse : Constraint<CPred<"$0.hasOneUse()">, "used once">;

// addf(dot(a, b, 0), d) -> dot(a, b, d), with the dot on either side of the addition.
def CombineDotAddFLeft : Pat<
  (Arith_AddFOp (Brick_DotOp:$dot $a, $b, $zero, $precision, $imprecise), $d, $fastmath),
  (Brick_DotOp $a, $b, $d, $precision, $imprecise),
  [(IsZeroConstant $zero), (HasOneUse $dot)]>;
def CombineDotAddFRight : Pat<
  (Arith_AddFOp $d, (Brick_DotOp:$dot $a, $b, $zero, $precision, $imprecise), $fastmath),
  (Brick_DotOp $a, $b, $d, $precision, $imprecise),
  [(IsZeroConstant $zero), (HasOneUse $dot)]>;

#endif // BRICK_TRANSFORMS_COMBINE_TD
