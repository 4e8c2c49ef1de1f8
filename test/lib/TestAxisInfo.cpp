//===- TestAxisInfo.cpp - test-print-axis-info: the analysis's answers as remarks ---===//

#include "brick/Analysis/AxisInfo.h"
#include "brick/Dialect/Brick/BrickDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace brick::test {
namespace {
struct TestAxisInfoPass : mlir::PassWrapper<TestAxisInfoPass, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestAxisInfoPass)
  llvm::StringRef getArgument() const final { return "test-print-axis-info"; }
  llvm::StringRef getDescription() const final {
    return "Attach the axis info of every integer or pointer result as a remark";
  }
  void runOnOperation() override {
    mlir::brick::ModuleAxisInfo info(getOperation());
    getOperation().walk([&](mlir::Operation *op) {
      if (op->getNumResults() != 1)
        return;
      mlir::Type element = mlir::getElementTypeOrSelf(op->getResult(0).getType());
      if (!element.isInteger() && !mlir::isa<mlir::brick::PointerType>(element))
        return;
      std::string text;
      llvm::raw_string_ostream os(text);
      info.get(op->getResult(0)).print(os);
      op->emitRemark() << text;
    });
  }
};
} // namespace

void registerTestAxisInfoPass() { mlir::PassRegistration<TestAxisInfoPass>(); }
} // namespace brick::test
