//===- ScalarizeAggregateBlockArguments.cpp - brick-scalarize-aggregate-block-arguments -===//
//
// A struct carried through a block argument becomes one argument per member, so that LLVM sees phis of
// scalars: its instruction selector copies a whole aggregate phi for every extractvalue of it (quadratic in
// the tile a loop carries), and its scalar optimizations do not look into aggregate phis.
//
//===----------------------------------------------------------------------===//

#include "brick/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"

namespace mlir::brick {
#define GEN_PASS_DEF_BRICKSCALARIZEAGGREGATEBLOCKARGUMENTS
#include "brick/Transforms/Passes.h.inc"

namespace {

/// A struct whose members are not aggregates themselves (extractvalue/insertvalue take one position).
bool isFlatStruct(Type type) {
  auto structType = dyn_cast<LLVM::LLVMStructType>(type);
  if (!structType || structType.isOpaque() || structType.getBody().empty())
    return false;
  return llvm::none_of(structType.getBody(),
                       [](Type member) { return isa<LLVM::LLVMStructType, LLVM::LLVMArrayType>(member); });
}

/// True when every predecessor reaches `block` through a branch that forwards its operands (llvm.br,
/// llvm.cond_br, llvm.switch), so that the argument's incoming values can be taken apart before the branch.
bool predecessorsForwardOperands(Block &block) {
  for (auto it = block.pred_begin(), end = block.pred_end(); it != end; ++it) {
    auto branch = dyn_cast<BranchOpInterface>((*it)->getTerminator());
    if (!branch || branch.getSuccessorOperands(it.getSuccessorIndex()).getProducedOperandCount() != 0)
      return false;
  }
  return true;
}

void scalarizeArgument(Block &block, unsigned index) {
  BlockArgument argument = block.getArgument(index);
  auto structType = cast<LLVM::LLVMStructType>(argument.getType());
  Location loc = argument.getLoc();
  SmallVector<Value> members;
  for (Type member : structType.getBody())
    members.push_back(block.addArgument(member, loc));

  OpBuilder builder(&block, block.begin());
  Value rebuilt = LLVM::UndefOp::create(builder, loc, structType);
  for (auto [position, member] : llvm::enumerate(members))
    rebuilt = LLVM::InsertValueOp::create(builder, loc, rebuilt, member, int64_t(position));
  argument.replaceAllUsesWith(rebuilt);

  for (auto it = block.pred_begin(), end = block.pred_end(); it != end; ++it) {
    Operation *terminator = (*it)->getTerminator();
    SuccessorOperands operands = cast<BranchOpInterface>(terminator).getSuccessorOperands(it.getSuccessorIndex());
    Value incoming = operands[index];
    builder.setInsertionPoint(terminator);
    for (size_t position = 0; position < members.size(); ++position)
      operands.append(LLVM::ExtractValueOp::create(builder, loc, incoming, int64_t(position)).getResult());
    operands.erase(index);
  }
  block.eraseArgument(index);
}

struct ScalarizeAggregateBlockArgumentsPass
    : impl::BrickScalarizeAggregateBlockArgumentsBase<ScalarizeAggregateBlockArgumentsPass> {
  void runOnOperation() override {
    getOperation().walk([](LLVM::LLVMFuncOp function) {
      if (function.getBody().empty())
        return;
      for (Block &block : llvm::drop_begin(function.getBody())) {
        if (!predecessorsForwardOperands(block))
          continue;
        // From the last argument down: the members are appended, so earlier indices stay put.
        for (unsigned index = block.getNumArguments(); index-- > 0;)
          if (isFlatStruct(block.getArgument(index).getType()))
            scalarizeArgument(block, index);
      }
    });
  }
};

} // namespace
} // namespace mlir::brick
