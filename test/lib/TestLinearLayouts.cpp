//===- TestLinearLayouts.cpp - test-print-linear-layouts: each block's linear layout as a remark ---===//

#include "brick/Dialect/BrickGPU/BrickGPUDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace brick::test {
namespace {
struct TestLinearLayoutsPass : mlir::PassWrapper<TestLinearLayoutsPass, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestLinearLayoutsPass)
  llvm::StringRef getArgument() const final { return "test-print-linear-layouts"; }
  llvm::StringRef getDescription() const final {
    return "Attach the linear layout of every function argument with a distributed layout as a remark";
  }
  void runOnOperation() override {
    getOperation().walk([&](mlir::func::FuncOp function) {
      for (auto [index, type] : llvm::enumerate(function.getArgumentTypes())) {
        auto tensor = mlir::dyn_cast<mlir::RankedTensorType>(type);
        if (!tensor || !mlir::brickgpu::getLayout(tensor))
          continue;
        function.emitRemark() << "argument " << index << ": " << mlir::brickgpu::getLinearLayout(tensor).str();
      }
    });
  }
};
} // namespace

void registerTestLinearLayoutsPass() { mlir::PassRegistration<TestLinearLayoutsPass>(); }
} // namespace brick::test
