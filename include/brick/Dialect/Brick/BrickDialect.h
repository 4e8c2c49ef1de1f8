//===- BrickDialect.h - The brick dialect: block tensors, pointers, programs ----===//
//
// Includes everything ODS generates for the brick dialect (dialects/Brick/*.td), plus the few helpers the
// generated type constraints call.
//
//===----------------------------------------------------------------------===//
#ifndef BRICK_DIALECT_BRICK_BRICKDIALECT_H
#define BRICK_DIALECT_BRICK_BRICKDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "Brick/BrickDialect.h.inc"
#include "Brick/BrickEnums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "Brick/BrickTypes.h.inc"

namespace mlir::brick {

/// Global memory: the resource that loads, stores and atomics read and write.
struct GlobalMemory : public SideEffects::Resource::Base<GlobalMemory> {
  llvm::StringRef getName() final { return "<GlobalMemory>"; }
};

/// True when every dimension is static and a power of two (a rank-0 shape qualifies).
bool isBlockShape(llvm::ArrayRef<int64_t> shape);

/// What a pointer-like value points to: `f32` for `!brick.ptr<f32>`, `tensor<4xf32>` for
/// `tensor<4x!brick.ptr<f32>>`. Returns a null type for anything that is not pointer-like.
Type getPointeeTypeLike(Type ptrLike);

/// `i1` with the shape of `type`: `i1` for a scalar, `tensor<4x8xi1>` for `tensor<4x8x...>`.
Type getI1TypeLike(Type type);

/// `elementType` with the shape (and encoding) of `like`; `elementType` itself when `like` is a scalar.
Type getTypeLike(Type like, Type elementType);

/// Shape of a value: its tensor shape, or empty for a scalar.
llvm::ArrayRef<int64_t> getShapeOrEmpty(Type type);

/// "f32" or "tensor<128xf32>" -- types as messages show them.
std::string typeToString(Type type);

/// "[64, 128]" -- shapes as messages show them.
std::string shapeToString(llvm::ArrayRef<int64_t> shape);

} // namespace mlir::brick

#define GET_OP_CLASSES
#include "Brick/BrickOps.h.inc"

#endif // BRICK_DIALECT_BRICK_BRICKDIALECT_H
