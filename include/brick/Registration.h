//===- Registration.h - The dialects and passes every Brick tool knows --------===//
//
// One place that says what brick-opt, brickc and the unit tests can parse and run.
//
//===----------------------------------------------------------------------===//
#ifndef BRICK_REGISTRATION_H
#define BRICK_REGISTRATION_H

#include "brick/Conversion/Passes.h"
#include "brick/Dialect/Brick/BrickDialect.h"
#include "brick/Dialect/BrickGPU/BrickGPUDialect.h"
#include "brick/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Transforms/Passes.h"

namespace brick {

/// brick plus the upstream dialects a kernel is written in or lowered to.
inline void registerDialects(mlir::DialectRegistry &registry) {
  registry.insert<mlir::brick::BrickDialect, mlir::brickgpu::BrickGPUDialect, mlir::arith::ArithDialect, mlir::math::MathDialect,
                  mlir::scf::SCFDialect, mlir::cf::ControlFlowDialect, mlir::func::FuncDialect,
                  mlir::LLVM::LLVMDialect, mlir::NVVM::NVVMDialect>();
}

/// Every Brick pass, plus the upstream passes Brick's pipeline uses (canonicalize, cse, inline, ...).
inline void registerPasses() {
  mlir::brick::registerBrickPasses();
  mlir::brick::registerBrickConversionPasses();
  mlir::registerTransformsPasses();
  mlir::registerSCFToControlFlowPass();
  mlir::registerReconcileUnrealizedCastsPass();
  mlir::registerConvertNVVMToLLVMPass();
}

} // namespace brick

#endif // BRICK_REGISTRATION_H
