#ifndef BRICK_TRANSFORMS_COMBINE_TD
#define BRICK_TRANSFORMS_COMBINE_TD

include "mlir/IR/PatternBase.td"
include "mlir/Dialect/Arith/IR/ArithOps.td"
include "Brick/BrickOps.td"

def IsZeroConstant : Constraint<CPred<"::mlir::brick::isZeroConstant($0)">, "a zero constant">;
def HasOneUse : Constraint<CPred<"$0.hasOneUse()">, "used once">;

// addf(dot(a, b, 0), d) -> dot(a, b, d), with the dot on either side of the addition. The new dot is the old one
// with d for its accumulator (its zero_rows_from too: DRR would pass an absent optional operand as a null value).
def AccumulateInto : NativeCodeCall<"::mlir::brick::accumulateInto($_builder, $0, $1)">;
def CombineDotAddFLeft : Pat<
  (Arith_AddFOp (Brick_DotOp:$dot $a, $b, $zero, $rows, $precision, $imprecise), $d, $fastmath),
  (AccumulateInto $dot, $d),
  [(IsZeroConstant $zero), (HasOneUse $dot)]>;
def CombineDotAddFRight : Pat<
  (Arith_AddFOp $d, (Brick_DotOp:$dot $a, $b, $zero, $rows, $precision, $imprecise), $fastmath),
  (AccumulateInto $dot, $d),
  [(IsZeroConstant $zero), (HasOneUse $dot)]>;

#endif // BRICK_TRANSFORMS_COMBINE_TD
