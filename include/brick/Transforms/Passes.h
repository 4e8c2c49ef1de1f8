//===- Passes.h - Brick's dialect-level passes ------------------------------===//
#ifndef BRICK_TRANSFORMS_PASSES_H
#define BRICK_TRANSFORMS_PASSES_H

#include "brick/Dialect/Brick/BrickDialect.h"
#include "mlir/Pass/Pass.h"

namespace mlir::brick {

/// True for an integer or float constant (scalar or splat) equal to zero.
bool isZeroConstant(Value value);

#define GEN_PASS_DECL
#include "brick/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "brick/Transforms/Passes.h.inc"

} // namespace mlir::brick

#endif // BRICK_TRANSFORMS_PASSES_H
