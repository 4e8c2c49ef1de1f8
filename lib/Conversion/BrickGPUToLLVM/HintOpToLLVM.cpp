//===- HintOpToLLVM.cpp - What the programmer tells the compiler: brick.hint (facts for the axis analysis, nothing
//                        at run time), brick.assume (llvm.assume), brick.inline_asm_elementwise (their PTX) ---===//

#include "Utility.h"

namespace mlir::brick::lowering {
namespace {

/// The analysis has read the hint; the value is the operand's.
struct HintLowering : ConvertOpToLLVMPattern<HintOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(HintOp op, OpAdaptor adaptor, ConversionPatternRewriter &b) const override {
    b.replaceOp(op, adaptor.getSrc());
    return success();
  }
};

/// llvm.assume of every element a thread holds: LLVM may use them (value ranges, known bits).
struct AssumeLowering : ConvertOpToLLVMPattern<AssumeOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(AssumeOp op, OpAdaptor adaptor, ConversionPatternRewriter &b) const override {
    for (Value element : elementsOf(b, op.getLoc(), adaptor.getCondition()))
      LLVM::AssumeOp::create(b, op.getLoc(), element);
    b.eraseOp(op);
    return success();
  }
};

/// The programmer's PTX once per `pack` elements a thread holds, in register order: the operands' elements in
/// (8- and 16-bit ones as many to a 32-bit register as fit, the first in the lowest bits), the results' out (several
/// registers come back as an LLVM struct). A last invocation the thread's elements do not fill is padded with zeros
/// and what it gives for the padding is dropped.
struct InlineAsmElementwiseLowering : ConvertOpToLLVMPattern<InlineAsmElementwiseOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  /// One value's registers in an invocation: `perRegister` elements of `element` each.
  struct Registers {
    Type element;
    int64_t perRegister, count;
    Type registerType() const {
      return perRegister == 1 ? element : Type(VectorType::get({perRegister}, element));
    }
  };

  LogicalResult matchAndRewrite(InlineAsmElementwiseOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    int64_t elementsPerInvocation = op.getPack();
    auto registersOf = [&](Type type) -> Registers {
      Type element = getTypeConverter()->convertType(getElementTypeOrSelf(type));
      int64_t per = InlineAsmElementwiseOp::elementsPerRegister(getElementTypeOrSelf(type), elementsPerInvocation);
      return {element, per, elementsPerInvocation / per};
    };
    SmallVector<SmallVector<Value>> operands;
    SmallVector<Registers> operandRegisters, resultRegisters;
    for (auto [arg, original] : llvm::zip(adaptor.getArgs(), op.getArgs())) {
      operands.push_back(elementsOf(b, loc, arg));
      operandRegisters.push_back(registersOf(original.getType()));
    }
    SmallVector<Type> resultTypes, asmResultTypes;
    for (Type type : op.getResultTypes()) {
      Type converted = getTypeConverter()->convertType(type);
      if (!converted)
        return b.notifyMatchFailure(op, "a result type has no LLVM type");
      resultTypes.push_back(converted);
      resultRegisters.push_back(registersOf(type));
      for (int64_t r = 0; r < resultRegisters.back().count; ++r)
        asmResultTypes.push_back(resultRegisters.back().registerType());
    }
    size_t count = 1;
    if (auto structType = dyn_cast<LLVM::LLVMStructType>(resultTypes.front()))
      count = structType.getBody().size();
    for (const SmallVector<Value> &elements : operands)
      if (elements.size() != count)
        return b.notifyMatchFailure(op, "operands and results hold different numbers of elements per thread");

    SmallVector<SmallVector<Value>> results(resultTypes.size());
    for (size_t first = 0; first < count; first += elementsPerInvocation) {
      // Element `first + k` of every operand, zero past the thread's last element.
      SmallVector<Value> in;
      for (auto [elements, registers] : llvm::zip(operands, operandRegisters)) {
        auto element = [&, &elements = elements, &registers = registers](int64_t k) -> Value {
          return first + k < count ? elements[first + k] : LLVM::ZeroOp::create(b, loc, registers.element);
        };
        for (int64_t r = 0; r < registers.count; ++r) {
          if (registers.perRegister == 1) {
            in.push_back(element(r));
            continue;
          }
          Value vector = LLVM::UndefOp::create(b, loc, registers.registerType());
          for (int64_t lane = 0; lane < registers.perRegister; ++lane) {
            Value value = element(r * registers.perRegister + lane);
            Value index = LLVM::ConstantOp::create(b, loc, b.getI32Type(), lane);
            vector = LLVM::InsertElementOp::create(b, loc, vector, value, index);
          }
          in.push_back(vector);
        }
      }
      Value out = inlineAsm(b, loc, asmResultTypes, in, op.getAsmString(), op.getConstraints(), !op.getPure());
      // Unpack: result registers in order, each register's elements lowest first.
      int64_t position = 0;
      for (auto [values, registers] : llvm::zip(results, resultRegisters))
        for (int64_t r = 0; r < registers.count; ++r, ++position) {
          Value reg = asmResultTypes.size() == 1 ? out : LLVM::ExtractValueOp::create(b, loc, out, position).getResult();
          for (int64_t lane = 0; lane < registers.perRegister; ++lane) {
            if (first + r * registers.perRegister + lane >= count)
              continue;
            values.push_back(registers.perRegister == 1
                                 ? reg
                                 : LLVM::ExtractElementOp::create(
                                       b, loc, reg, LLVM::ConstantOp::create(b, loc, b.getI32Type(), lane))
                                       .getResult());
          }
        }
    }
    SmallVector<Value> replacements;
    for (auto [type, values] : llvm::zip(resultTypes, results))
      replacements.push_back(isa<LLVM::LLVMStructType>(type) ? pack(b, loc, type, values) : values.front());
    b.replaceOp(op, replacements);
    return success();
  }
};

} // namespace

void populateHintPatterns(LLVMTypeConverter &converter, RewritePatternSet &patterns, const LoweringContext &) {
  patterns.add<HintLowering, AssumeLowering, InlineAsmElementwiseLowering>(converter);
}

} // namespace mlir::brick::lowering
