//===- DebugOpToLLVM.cpp - brick.print through vprintf, brick.assert through __assertfail ---===//

#include "Utility.h"

#include "mlir/IR/BuiltinOps.h"

namespace mlir::brick::lowering {
namespace {
/// A user's prefix inside a vprintf format: every '%' doubled, so that it prints as written (as the interpreter
/// prints it) and never reads an argument that is not there.
std::string escapePercent(llvm::StringRef text) {
  std::string escaped;
  for (char c : text) {
    escaped += c;
    if (c == '%')
      escaped += '%';
  }
  return escaped;
}


/// Runs `body` (emitting at the insertion point) only where `condition` holds; the insertion point ends up
/// after it.
void emitIf(ConversionPatternRewriter &b, Location loc, Value condition, llvm::function_ref<void()> body) {
  Block *current = b.getInsertionBlock();
  Block *after = b.splitBlock(current, b.getInsertionPoint());
  Block *then = b.createBlock(after);
  b.setInsertionPointToEnd(current);
  LLVM::CondBrOp::create(b, loc, condition, then, after);
  b.setInsertionPointToEnd(then);
  body();
  LLVM::BrOp::create(b, loc, ValueRange{}, after);
  b.setInsertionPointToStart(after);
}

/// A NUL-terminated string constant in global memory, and its address.
Value stringAddress(ConversionPatternRewriter &b, Location loc, Operation *anchor, StringRef text) {
  auto module = anchor->getParentOfType<ModuleOp>();
  std::string value = text.str();
  value.push_back('\0');
  unsigned index = 0;
  std::string name;
  do
    name = "brick_string_" + std::to_string(index++);
  while (module.lookupSymbol(name));
  auto type = LLVM::LLVMArrayType::get(b.getI8Type(), value.size());
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    LLVM::GlobalOp::create(b, loc, type, /*isConstant=*/true, LLVM::Linkage::Internal, name, b.getStringAttr(value));
  }
  return LLVM::AddressOfOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext()), name);
}

/// The declaration of an external function, added once.
LLVM::LLVMFuncOp declare(ConversionPatternRewriter &b, Operation *anchor, StringRef name, Type result,
                         ArrayRef<Type> arguments) {
  auto module = anchor->getParentOfType<ModuleOp>();
  if (auto existing = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
    return existing;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(module.getBody());
  return LLVM::LLVMFuncOp::create(b, anchor->getLoc(), name, LLVM::LLVMFunctionType::get(result, arguments));
}

struct PrintLowering : ConvertOpToLLVMPattern<PrintOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(PrintOp op, OpAdaptor adaptor, ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    Type pointer = LLVM::LLVMPointerType::get(b.getContext());
    auto vprintf = declare(b, op, "vprintf", b.getI32Type(), {pointer, pointer});
    Type i32 = b.getI32Type();
    Value one = i32Constant(b, loc, 1);
    SmallVector<Value> pid = {NVVM::BlockIdXOp::create(b, loc, i32), NVVM::BlockIdYOp::create(b, loc, i32),
                              NVVM::BlockIdZOp::create(b, loc, i32)};
    if (op.getArgs().empty()) {
      // Only a prefix: once per program.
      Value first = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, NVVM::ThreadIdXOp::create(b, loc, i32),
                                         i32Constant(b, loc, 0));
      emitIf(b, loc, first, [&] {
        Value format = stringAddress(b, loc, op, escapePercent(op.getPrefix()) + "\n");
        LLVM::CallOp::create(b, loc, vprintf, ValueRange{format, LLVM::ZeroOp::create(b, loc, pointer)});
      });
      b.eraseOp(op);
      return success();
    }
    for (auto [argument, converted] : llvm::zip(op.getArgs(), adaptor.getArgs())) {
      auto tensorType = dyn_cast<RankedTensorType>(argument.getType());
      SmallVector<Value> values = elementsOf(b, loc, converted);
      Type element = getElementTypeOrSelf(argument.getType());
      // printf's promotions: floats to double, narrow integers to 32 bits, pointers and i64 as 64 bits.
      std::string spec = isa<FloatType>(element) ? "%f" : op.getHex() ? (element.isInteger(64) || isa<PointerType>(element) ? "0x%llx" : "0x%x")
                         : isa<PointerType>(element) ? "%p" : element.isInteger(64) ? "%lld" : "%d";
      brickgpu::LinearLayout layout;
      SmallVector<SmallVector<Value>> coordinates;
      unsigned rank = 0;
      if (tensorType) {
        layout = brickgpu::getLinearLayout(tensorType);
        coordinates = emitCoordinates(b, loc, layout, getThreadId(b, loc));
        rank = tensorType.getRank();
      }
      std::string format = escapePercent(op.getPrefix()) + "pid (%u, %u, %u)";
      if (rank) {
        format += " idx (";
        for (unsigned d = 0; d < rank; ++d)
          format += d ? ", %u" : "%u";
        format += ")";
      }
      format += " " + spec + "\n";
      Value formatAddress = stringAddress(b, loc, op, format);
      // Each element once: only its owning register of its owning thread prints it.
      Ownership owner = getOwnership(b, loc, argument.getType());
      Value owns = owner.threadOwns ? owner.threadOwns
                                    : Value(LLVM::ConstantOp::create(b, loc, b.getI1Type(), b.getBoolAttr(true)));
      emitIf(b, loc, owns, [&] {
        for (unsigned reg = 0; reg < values.size(); ++reg) {
          if (!owner.registerOwned[reg])
            continue;
          Value value = values[reg];
          if (isa<FloatType>(value.getType()))
            value = LLVM::FPExtOp::create(b, loc, b.getF64Type(), value);
          else if (isa<LLVM::LLVMPointerType>(value.getType()))
            value = LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), value);
          else if (value.getType().isInteger(1)) // a boolean prints 1 for true, not -1
            value = LLVM::ZExtOp::create(b, loc, i32, value);
          else if (value.getType().getIntOrFloatBitWidth() < 32)
            value = LLVM::SExtOp::create(b, loc, i32, value);
          SmallVector<Value> fields(pid);
          if (rank)
            fields.append(coordinates[reg].begin(), coordinates[reg].end());
          fields.push_back(value);
          SmallVector<Type> fieldTypes = llvm::map_to_vector(fields, [](Value v) { return v.getType(); });
          auto structType = LLVM::LLVMStructType::getLiteral(b.getContext(), fieldTypes);
          Value buffer = LLVM::AllocaOp::create(b, loc, pointer, structType, one);
          for (auto [i, field] : llvm::enumerate(fields)) {
            Value slot = LLVM::GEPOp::create(b, loc, pointer, structType, buffer,
                                             ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(i)});
            LLVM::StoreOp::create(b, loc, field, slot);
          }
          LLVM::CallOp::create(b, loc, vprintf, ValueRange{formatAddress, buffer});
        }
      });
    }
    b.eraseOp(op);
    return success();
  }
};

struct AssertLowering : ConvertOpToLLVMPattern<AssertOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(AssertOp op, OpAdaptor adaptor, ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    Type pointer = LLVM::LLVMPointerType::get(b.getContext());
    auto assertfail = declare(b, op, "__assertfail", LLVM::LLVMVoidType::get(b.getContext()),
                              {pointer, pointer, b.getI32Type(), pointer, b.getI64Type()});
    Value allTrue;
    for (Value element : elementsOf(b, loc, adaptor.getCondition()))
      allTrue = allTrue ? Value(LLVM::AndOp::create(b, loc, allTrue, element)) : element;
    Value failed = LLVM::XOrOp::create(b, loc, allTrue, LLVM::ConstantOp::create(b, loc, b.getI1Type(), b.getBoolAttr(true)));
    std::string file = "<unknown>";
    unsigned line = 0;
    if (auto fileLoc = loc->findInstanceOf<FileLineColLoc>())
      file = fileLoc.getFilename().str(), line = fileLoc.getLine();
    std::string function = "<kernel>";
    if (auto parent = op->getParentOfType<FunctionOpInterface>())
      function = parent.getName().str();
    emitIf(b, loc, failed, [&] {
      Value message = stringAddress(b, loc, op, op.getMessage());
      Value fileName = stringAddress(b, loc, op, file);
      Value functionName = stringAddress(b, loc, op, function);
      LLVM::CallOp::create(b, loc, assertfail,
                           ValueRange{message, fileName, i32Constant(b, loc, line), functionName,
                                      LLVM::ConstantOp::create(b, loc, b.getI64Type(), b.getI64IntegerAttr(1))});
    });
    b.eraseOp(op);
    return success();
  }
};

} // namespace

void populateDebugPatterns(LLVMTypeConverter &converter, RewritePatternSet &patterns, const LoweringContext &) {
  patterns.add<PrintLowering, AssertLowering>(converter);
}

} // namespace mlir::brick::lowering
