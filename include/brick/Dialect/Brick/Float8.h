//===- Float8.h - Which element types are Brick's 8-bit floats ------------------------------===//
#ifndef BRICK_DIALECT_BRICK_FLOAT8_H
#define BRICK_DIALECT_BRICK_FLOAT8_H

#include "mlir/IR/BuiltinTypes.h"

namespace mlir::brick {

/// e4m3fn or e5m2: kept, moved, converted and multiplied by dots, not computed with.
inline bool isFloat8(Type type) { return isa<Float8E4M3FNType, Float8E5M2Type>(type); }

} // namespace mlir::brick

#endif // BRICK_DIALECT_BRICK_FLOAT8_H
