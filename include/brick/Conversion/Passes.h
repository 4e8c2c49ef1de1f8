//===- Passes.h - Conversions between Brick's dialects and to LLVM -----------===//
#ifndef BRICK_CONVERSION_PASSES_H
#define BRICK_CONVERSION_PASSES_H

#include "brick/Dialect/BrickGPU/BrickGPUDialect.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Pass/Pass.h"

namespace mlir::brick {

#define GEN_PASS_DECL
#include "brick/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "brick/Conversion/Passes.h.inc"

} // namespace mlir::brick

#endif // BRICK_CONVERSION_PASSES_H
