//===- BrickToBrickGPU.cpp - convert-brick-to-brickgpu: default layouts ----------===//
//
// The brick ops are also the brickgpu ops: this pass only gives tensor types an encoding. Each tensor gets the
// default blocked layout for its shape, so any two values of one shape agree (elementwise ops, loop-carried
// values and branches need no conversions). Only expand_dims, broadcast and reduce relate layouts of
// different shapes; they get explicit convert_layout ops, which later passes fold away.
//
//===----------------------------------------------------------------------===//

#include "brick/Conversion/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir::brick {
#define GEN_PASS_DEF_CONVERTBRICKTOBRICKGPU
#include "brick/Conversion/Passes.h.inc"

namespace {
using brickgpu::BlockedEncodingAttr;
using brickgpu::ConvertLayoutOp;
using brickgpu::SliceEncodingAttr;

/// Elements of one block a thread may hold: 16 times a thread's 255 registers, far past any block that compiles
/// to something useful (a 256 x 256 f32 accumulator over 4 warps is 512).
constexpr int64_t kMaxElementsPerThread = 4096;

struct ConvertBrickToBrickGPUPass : impl::ConvertBrickToBrickGPUBase<ConvertBrickToBrickGPUPass> {
  using Base::Base;

  RankedTensorType withDefaultLayout(RankedTensorType type) {
    return RankedTensorType::get(type.getShape(), type.getElementType(),
                                 BlockedEncodingAttr::getDefault(type.getContext(), type.getShape(), numWarps));
  }

  Type withDefaultLayout(Type type) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    return tensor && !tensor.getEncoding() ? withDefaultLayout(tensor) : type;
  }

  /// Replaces operand `index` of `op` by its conversion to `type`.
  void convertOperand(OpBuilder &builder, Operation *op, unsigned index, RankedTensorType type) {
    builder.setInsertionPoint(op);
    Value converted = ConvertLayoutOp::create(builder, op->getLoc(), type, op->getOperand(index));
    op->setOperand(index, converted);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    if (numWarps < 1 || numWarps > 32 || !llvm::isPowerOf2_32(numWarps)) {
      module.emitError() << "convert-brick-to-brickgpu: num-warps must be a power of two from 1 to 32, got " << unsigned(numWarps);
      return signalPassFailure();
    }
    // Blocks get layouts inside functions; a function's signature cannot carry them across a call here, and a
    // rank-0 tensor is not a block. Each is one error at the function, before anything is laid out.
    bool refused = false;
    module.walk([&](FunctionOpInterface function) {
      bool kernel = function->hasAttr(BrickDialect::getKernelAttrName());
      auto check = [&](ArrayRef<Type> types, const char *what) {
        for (auto [index, type] : llvm::enumerate(types)) {
          auto tensor = dyn_cast<RankedTensorType>(type);
          if (!tensor || refused)
            continue;
          if (tensor.getRank() == 0)
            function->emitError() << what << " #" << index << " of '" << function.getName() << "' is " << type
                                  << ", a rank-0 tensor: not a block; pass a scalar (" << tensor.getElementType()
                                  << ")";
          else if (!kernel)
            function->emitError() << what << " #" << index << " of '" << function.getName() << "' is the block "
                                  << type << ": functions other than kernels take and return scalars and pointers "
                                             "only (blocks do not cross calls); write code shared between kernels "
                                             "as a C++ function of the DSL, which is inlined";
          else
            continue;
          refused = true;
        }
      };
      check(function.getArgumentTypes(), "argument");
      check(function.getResultTypes(), "result");
    });
    // A block lives in its threads' registers (spilled to local memory past 255): one far past what a thread can
    // hold is refused here, at the op that makes it, where LLVM would run out of memory building it.
    const int64_t threads = 32 * int64_t(numWarps);
    module.walk([&](Operation *op) {
      for (Value result : op->getResults()) {
        auto tensor = dyn_cast<RankedTensorType>(result.getType());
        if (refused || !tensor || tensor.getNumElements() / threads <= kMaxElementsPerThread)
          continue;
        op->emitError() << "a block of " << tensor.getNumElements() << " elements (" << result.getType() << ") over "
                        << threads << " threads is " << tensor.getNumElements() / threads
                        << " elements a thread, more than the " << kMaxElementsPerThread
                        << " a thread's registers and local memory can hold; loop over smaller blocks";
        refused = true;
      }
    });
    if (refused)
      return signalPassFailure();
    module->setAttr(brickgpu::BrickGPUDialect::getNumWarpsAttrName(),
                    IntegerAttr::get(IntegerType::get(context, 32), numWarps));

    // 1. Every tensor value (results and block arguments) gets its shape's default layout.
    module.walk([&](Operation *op) {
      for (Value result : op->getResults())
        result.setType(withDefaultLayout(result.getType()));
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument argument : block.getArguments())
            argument.setType(withDefaultLayout(argument.getType()));
      // Constants carry their type in their value too.
      if (auto constant = dyn_cast<arith::ConstantOp>(op))
        if (auto dense = dyn_cast<DenseElementsAttr>(constant.getValue()))
          constant.setValueAttr(dense.reshape(cast<ShapedType>(constant.getType())));
    });

    // 2. The ops that relate layouts of different shapes.
    OpBuilder builder(context);
    module.walk([&](Operation *op) {
      if (auto expand = dyn_cast<ExpandDimsOp>(op)) {
        auto result = cast<RankedTensorType>(expand.getType());
        auto layout = SliceEncodingAttr::get(context, expand.getAxis(),
                                             cast<brickgpu::DistributedLayoutAttr>(result.getEncoding()));
        auto src = cast<RankedTensorType>(expand.getSrc().getType());
        convertOperand(builder, op, 0, RankedTensorType::get(src.getShape(), src.getElementType(), layout));
      } else if (auto broadcast = dyn_cast<BroadcastOp>(op)) {
        auto src = cast<RankedTensorType>(broadcast.getSrc().getType());
        Attribute layout = cast<RankedTensorType>(broadcast.getType()).getEncoding();
        convertOperand(builder, op, 0, RankedTensorType::get(src.getShape(), src.getElementType(), layout));
      } else if (auto reduce = dyn_cast<ReduceOp>(op)) {
        auto src = cast<RankedTensorType>(reduce.getSrcs().front().getType());
        builder.setInsertionPointAfter(op);
        for (OpResult result : reduce->getResults()) {
          auto type = dyn_cast<RankedTensorType>(result.getType());
          if (!type)
            continue; // reducing a 1-D block gives a scalar
          auto slice = SliceEncodingAttr::get(context, reduce.getAxis(),
                                              cast<brickgpu::DistributedLayoutAttr>(src.getEncoding()));
          result.setType(RankedTensorType::get(type.getShape(), type.getElementType(), slice));
          auto converted = ConvertLayoutOp::create(builder, op->getLoc(), type, result);
          result.replaceAllUsesExcept(converted, converted);
        }
      }
    });
  }
};
} // namespace
} // namespace mlir::brick
