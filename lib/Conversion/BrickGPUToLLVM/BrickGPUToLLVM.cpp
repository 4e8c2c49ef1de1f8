//===- BrickGPUToLLVM.cpp - convert-brickgpu-to-llvm: the pass -------------------===//
//
// Blocks lower to LLVM structs of the registers a thread holds (their layout says which). Scalars and
// control flow lower with MLIR's own patterns; math functions without a PTX instruction (erf, and with
// fast-math off every transcendental) become polynomials first; f16/bf16 math computes in f32.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Math/IR/Math.h"
#include "Utility.h"

#include "brick/Conversion/Passes.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::brick {
#define GEN_PASS_DEF_CONVERTBRICKGPUTOLLVM
#include "brick/Conversion/Passes.h.inc"

namespace {

struct ConvertBrickGPUToLLVMPass : impl::ConvertBrickGPUToLLVMBase<ConvertBrickGPUToLLVMPass> {
  using Base::Base;

  void runOnOperation() override {
    if (failed(brickgpu::verifyEveryBlockHasALayout(getOperation(), "convert-brickgpu-to-llvm")))
      return signalPassFailure();
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    // NVPTX has no f64 transcendentals and Brick links no libdevice: say so at the op, where LLVM would abort
    // (sin, cos) or fail without a location (exp, log, ...).
    WalkResult unsupported = module.walk([&](Operation *op) {
      if (!isa<math::ExpOp, math::Exp2Op, math::LogOp, math::Log2Op, math::SinOp, math::CosOp, math::TanhOp,
               math::ErfOp>(op) ||
          !getElementTypeOrSelf(op->getResult(0).getType()).isF64())
        return WalkResult::advance();
      op->emitError() << op->getName() << " of f64 has no GPU implementation here; compute it in f32";
      return WalkResult::interrupt();
    });
    if (unsupported.wasInterrupted())
      return signalPassFailure();
    ModuleAxisInfo axisInfo(module);
    lowering::LoweringContext loweringContext{&axisInfo, computeCapability, fastMath};
    module.walk([&](Operation *op) {
      if (isa<brickgpu::WarpGroupDotOp, brickgpu::AsyncTMACopyLocalToGlobalOp>(op))
        loweringContext.asyncProxyReads = true;
    });

    LowerToLLVMOptions options(context);
    LLVMTypeConverter converter(context, options);
    converter.addConversion([context](PointerType type) -> Type {
      return LLVM::LLVMPointerType::get(context, type.getAddressSpace());
    });
    // A tensor map is 128 bytes passed by value (a __grid_constant__ parameter): its address is what TMA reads.
    converter.addConversion([context](TensorMapType) -> Type { return LLVM::LLVMPointerType::get(context); });
    module.walk([&](func::FuncOp function) {
      for (unsigned i = 0; i < function.getNumArguments(); ++i)
        if (isa<TensorMapType>(function.getArgumentTypes()[i]))
          function.setArgAttr(i, "brick.tensormap", UnitAttr::get(context));
    });
    converter.addConversion([&converter](RankedTensorType type) -> std::optional<Type> {
      if (!brickgpu::getLayout(type))
        return std::nullopt;
      Type element = converter.convertType(type.getElementType());
      unsigned registers = brickgpu::getLinearLayout(type).getNumRegisters();
      return LLVM::LLVMStructType::getLiteral(type.getContext(), SmallVector<Type>(registers, element));
    });

    // Dynamic shared memory: one extern array; each op finds its bytes at its brickgpu.offset. 1024-byte aligned,
    // as wgmma's swizzled operands must be.
    OpBuilder builder(module.getBodyRegion());
    auto shared = LLVM::GlobalOp::create(builder, module.getLoc(), LLVM::LLVMArrayType::get(builder.getI8Type(), 0),
                                         /*isConstant=*/false, LLVM::Linkage::External, "brick_shared_memory",
                                         Attribute(), /*alignment=*/1024, /*addrSpace=*/3);
    (void)shared;

    RewritePatternSet patterns(context);
    lowering::populateProgramPatterns(converter, patterns, loweringContext);
    lowering::populateElementwisePatterns(converter, patterns, loweringContext);
    lowering::populateFloat8Patterns(converter, patterns, loweringContext);
    lowering::populateMemoryPatterns(converter, patterns, loweringContext);
    lowering::populateReducePatterns(converter, patterns, loweringContext);
    lowering::populateScanPatterns(converter, patterns, loweringContext);
    lowering::populateLayoutPatterns(converter, patterns, loweringContext);
    lowering::populateDotPatterns(converter, patterns, loweringContext);
    lowering::populateMmaDotPatterns(converter, patterns, loweringContext);
    lowering::populateDotOperandPatterns(converter, patterns, loweringContext);
    lowering::populateWarpGroupDotPatterns(converter, patterns, loweringContext);
    lowering::populateAsyncCopyPatterns(converter, patterns, loweringContext);
    lowering::populateTMAPatterns(converter, patterns, loweringContext);
    lowering::populateWarpSpecializePatterns(converter, patterns, loweringContext);
    lowering::populateSharedMemoryPatterns(converter, patterns, loweringContext);
    lowering::populateDebugPatterns(converter, patterns, loweringContext);
    lowering::populateHintPatterns(converter, patterns, loweringContext);
    // Math on scalars: f16/bf16 through f32; polynomials where PTX has no (fast) instruction.
    populateMathF32ExpansionPatterns(patterns, [](StringRef) { return true; }, /*benefit=*/3);
    bool fast = fastMath;
    populateMathPolynomialApproximationPatterns(
        patterns, [fast](StringRef name) {
          name.consume_front("math."); // the predicate may see "math.exp" or "exp"
          bool hasFastInstruction = name == "exp" || name == "exp2" || name == "log" || name == "log2" ||
                                    name == "sin" || name == "cos" || name == "tanh" || name == "rsqrt";
          return !fast || !hasFastInstruction;
        },
        /*benefit=*/3);
    arith::populateArithToLLVMConversionPatterns(converter, patterns);
    populateMathToLLVMConversionPatterns(converter, patterns);
    populateFuncToLLVMConversionPatterns(converter, patterns);
    cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);

    LLVMConversionTarget target(*context);
    target.addLegalDialect<NVVM::NVVMDialect>();
    target.addIllegalDialect<BrickDialect, brickgpu::BrickGPUDialect, arith::ArithDialect, math::MathDialect,
                             func::FuncDialect, cf::ControlFlowDialect>();
    target.addLegalOp<ModuleOp>();
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();

    // The patterns build a tensor's struct for every value they produce and take members from the chains
    // directly (unpack), so most insertvalue chains and many constants end up unused (the sm_80 matmul: 13.9k
    // ops, 6.2k live): one backward sweep erases them more cheaply than the canonicalizer's worklist did
    // (callgrind, sm_80 matmul: the canonicalizer runs 84 M -> 52 M instructions, all MLIR passes 217 M -> 185 M;
    // the PTX is byte-identical).
    module.walk([](LLVM::LLVMFuncOp function) {
      for (Block &block : llvm::reverse(function.getBody()))
        for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block)))
          if (isOpTriviallyDead(&op))
            op.erase();
    });

    // Kernels: PTX entries with their block size; pointer arguments known to be 16-byte aligned say so.
    // A warp-specialized kernel runs its producer warps besides.
    unsigned threads = 32 * brickgpu::BrickGPUDialect::getNumWarps(module);
    if (auto producers = module->getAttrOfType<IntegerAttr>("brickgpu.producer_warps"))
      threads += 32 * producers.getInt();
    module.walk([&](LLVM::LLVMFuncOp function) {
      if (!function->hasAttr(BrickDialect::getKernelAttrName()))
        return;
      function->removeAttr(BrickDialect::getKernelAttrName());
      function->setAttr("nvvm.kernel", UnitAttr::get(context));
      function->setAttr("nvvm.maxntid", DenseI32ArrayAttr::get(context, {static_cast<int32_t>(threads), 1, 1}));
      for (unsigned i = 0; i < function.getNumArguments(); ++i) {
        if (function.getArgAttr(i, "brick.tensormap")) {
          function.removeArgAttr(i, "brick.tensormap");
          function.setArgAttr(i, LLVM::LLVMDialect::getByValAttrName(),
                              TypeAttr::get(LLVM::LLVMArrayType::get(builder.getI8Type(), 128)));
          function.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(), builder.getI64IntegerAttr(64));
          function.setArgAttr(i, "nvvm.grid_constant", UnitAttr::get(context));
          continue;
        }
        auto divisibility = function.getArgAttrOfType<IntegerAttr>(i, BrickDialect::getDivisibilityAttrName());
        if (!divisibility)
          continue;
        function.removeArgAttr(i, BrickDialect::getDivisibilityAttrName());
        if (isa<LLVM::LLVMPointerType>(function.getArgumentTypes()[i]))
          function.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                              builder.getI64IntegerAttr(std::min<int64_t>(divisibility.getInt(), 256)));
      }
    });
  }
};
} // namespace
} // namespace mlir::brick
