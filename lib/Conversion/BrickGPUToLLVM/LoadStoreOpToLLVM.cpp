//===- LoadStoreOpToLLVM.cpp - Global loads, stores and atomics -------------------===//
//
// Accesses become inline PTX (`@p ld.global.v4.b32 {...}, [addr];`) so that each access is exactly the
// predicated vector instruction the layout and the axis info allow: up to 16 bytes of consecutive, aligned
// registers per instruction, all under one mask bit. A masked-off element of a load is `other`.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include "mlir/IR/BuiltinOps.h"

namespace mlir::brick::lowering {
namespace {

unsigned memoryBits(Type elementType) {
  if (isa<LLVM::LLVMPointerType>(elementType))
    return 64;
  return std::max(8u, elementType.getIntOrFloatBitWidth());
}

/// How `count` elements of `elementBits` travel: as 32-bit words, 64-bit words, or one narrower access (8 or
/// 16 bits, held in a 16-bit register: PTX has no 8-bit registers).
struct Words {
  unsigned count, bits;
  unsigned registerBits() const { return std::max(16u, bits); }
  const char *constraint() const { return bits == 32 ? "r" : bits == 64 ? "l" : "h"; }
  const char *suffix() const { return bits == 32 ? "b32" : bits == 64 ? "b64" : bits == 16 ? "b16" : "u8"; }
};
Words wordsFor(unsigned elements, unsigned elementBits) {
  unsigned total = elements * elementBits;
  if (total >= 32 && elementBits <= 32)
    return {total / 32, 32};
  if (elementBits == 64)
    return {elements, 64};
  return {1, total};
}

/// Elements (LLVM values of `elementType`) packed into words.
SmallVector<Value> toWords(OpBuilder &b, Location loc, ArrayRef<Value> elements, Type elementType, Words words) {
  unsigned bits = memoryBits(elementType);
  auto asMemoryInt = [&](Value v) {
    if (elementType.isInteger(1))
      return Value(LLVM::ZExtOp::create(b, loc, b.getI8Type(), v));
    return bitcastToInt(b, loc, v);
  };
  Type intType = b.getIntegerType(bits);
  Type wordType = b.getIntegerType(words.registerBits());
  if (words.bits > bits) {
    // Several elements per word: build a vector and reinterpret it.
    unsigned perWord = words.bits / bits;
    SmallVector<Value> result;
    for (unsigned w = 0; w < words.count; ++w) {
      Value vector = LLVM::UndefOp::create(b, loc, VectorType::get({perWord}, intType));
      for (unsigned i = 0; i < perWord; ++i)
        vector = LLVM::InsertElementOp::create(b, loc, vector, asMemoryInt(elements[w * perWord + i]),
                                               i32Constant(b, loc, i));
      result.push_back(LLVM::BitcastOp::create(b, loc, wordType, vector));
    }
    return result;
  }
  SmallVector<Value> result;
  for (Value element : elements) {
    Value asInt = asMemoryInt(element);
    result.push_back(words.registerBits() == bits ? asInt : Value(LLVM::ZExtOp::create(b, loc, wordType, asInt)));
  }
  return result;
}

/// Words back into `count` elements of `elementType`.
SmallVector<Value> fromWords(OpBuilder &b, Location loc, ArrayRef<Value> words, Type elementType, unsigned count,
                             Words layout) {
  unsigned bits = memoryBits(elementType);
  Type intType = b.getIntegerType(bits);
  auto fromMemoryInt = [&](Value v) {
    if (elementType.isInteger(1))
      return Value(LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, v, constantLike(b, loc, v.getType(), 0)));
    return bitcastFromInt(b, loc, v, elementType);
  };
  SmallVector<Value> elements;
  if (layout.bits > bits) {
    unsigned perWord = layout.bits / bits;
    for (Value word : words) {
      Value vector = LLVM::BitcastOp::create(b, loc, VectorType::get({perWord}, intType), word);
      for (unsigned i = 0; i < perWord; ++i)
        elements.push_back(fromMemoryInt(LLVM::ExtractElementOp::create(b, loc, vector, i32Constant(b, loc, i))));
    }
  } else {
    for (Value word : words)
      elements.push_back(fromMemoryInt(word.getType() == intType ? word : Value(LLVM::TruncOp::create(b, loc, intType, word))));
  }
  elements.resize(count);
  return elements;
}

std::string cacheSuffix(CacheModifier cache) {
  return cache == CacheModifier::none ? "" : "." + stringifyCacheModifier(cache).str();
}
/// The eviction priority's qualifier. PTX takes either a cache modifier or an L1 eviction priority, not both
/// (ptxas rejects `ld.global.cg.L1::evict_first`): with a modifier, the modifier wins.
std::string evictSuffix(CacheModifier cache, EvictionPolicy evict) {
  if (cache != CacheModifier::none)
    return "";
  switch (evict) {
  case EvictionPolicy::evict_first: return ".L1::evict_first";
  case EvictionPolicy::evict_last: return ".L1::evict_last";
  default: return "";
  }
}


Value andPredicates(OpBuilder &b, Location loc, Value x, Value y) {
  if (!x)
    return y;
  if (!y)
    return x;
  return LLVM::AndOp::create(b, loc, x, y);
}

struct LoadLowering : ConvertOpToLLVMPattern<LoadOp> {
  LoadLowering(LLVMTypeConverter &converter, const LoweringContext &context)
      : ConvertOpToLLVMPattern(converter), context(context) {}

  LogicalResult matchAndRewrite(LoadOp op, OpAdaptor adaptor, ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    Type resultType = getTypeConverter()->convertType(op.getType());
    Type elementType = getTypeConverter()->convertType(getElementTypeOrSelf(op.getType()));
    SmallVector<Value> pointers = elementsOf(b, loc, adaptor.getPtr());
    SmallVector<Value> masks = adaptor.getMask() ? elementsOf(b, loc, adaptor.getMask()) : SmallVector<Value>();
    SmallVector<Value> others = adaptor.getOther() ? elementsOf(b, loc, adaptor.getOther()) : SmallVector<Value>();
    unsigned bits = memoryBits(elementType);
    unsigned width = getMemoryAccessWidth(*context.axisInfo, op.getPtr(), op.getMask(), bits);
    std::string hints = cacheSuffix(op.getCache()) + evictSuffix(op.getCache(), op.getEvict());
    if (op.getIsVolatile())
      hints = ".volatile";

    SmallVector<Value> results;
    for (unsigned first = 0; first < pointers.size(); first += width) {
      Words words = wordsFor(width, bits);
      SmallVector<Type> wordTypes(words.count, b.getIntegerType(words.registerBits()));
      std::string constraints, text;
      SmallVector<Value> operands;
      for (unsigned w = 0; w < words.count; ++w)
        constraints += std::string(w ? "," : "") + "=" + words.constraint();
      unsigned next = words.count;
      auto addOperand = [&](Value v, const char *constraint) {
        operands.push_back(v);
        constraints += std::string(",") + constraint;
        return next++;
      };
      unsigned pointerIndex = addOperand(pointers[first], "l");
      std::string predicate;
      if (!masks.empty())
        predicate = "@$" + std::to_string(addOperand(masks[first], "b")) + " ";
      if (!others.empty()) {
        SmallVector<Value> otherWords =
            toWords(b, loc, ArrayRef<Value>(others).slice(first, width), elementType, words);
        for (unsigned w = 0; w < words.count; ++w)
          text += "mov.b" + std::to_string(words.registerBits()) + " $" +
                  std::to_string(w) + ", $" + std::to_string(addOperand(otherWords[w], words.constraint())) + ";\n";
      }
      std::string destinations;
      for (unsigned w = 0; w < words.count; ++w)
        destinations += std::string(w ? ", " : "") + "$" + std::to_string(w);
      std::string vector = words.count > 1 ? ".v" + std::to_string(words.count) : "";
      text += predicate + "ld.global" + hints + vector + "." + words.suffix() + " " +
              (words.count > 1 ? "{" + destinations + "}" : destinations) + ", [ $" + std::to_string(pointerIndex) +
              " + 0 ];";
      Value loaded = inlineAsm(b, loc, wordTypes, operands, text, constraints, /*sideEffects=*/true);
      SmallVector<Value> loadedWords =
          words.count > 1 ? unpack(b, loc, loaded) : SmallVector<Value>{loaded};
      llvm::append_range(results, fromWords(b, loc, loadedWords, elementType, width, words));
    }
    if (isa<RankedTensorType>(op.getType()))
      b.replaceOp(op, pack(b, loc, resultType, results));
    else
      b.replaceOp(op, results.front());
    return success();
  }

  LoweringContext context;
};

struct StoreLowering : ConvertOpToLLVMPattern<StoreOp> {
  StoreLowering(LLVMTypeConverter &converter, const LoweringContext &context)
      : ConvertOpToLLVMPattern(converter), context(context) {}

  LogicalResult matchAndRewrite(StoreOp op, OpAdaptor adaptor, ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    Type elementType = getTypeConverter()->convertType(getElementTypeOrSelf(op.getValue().getType()));
    SmallVector<Value> pointers = elementsOf(b, loc, adaptor.getPtr());
    SmallVector<Value> values = elementsOf(b, loc, adaptor.getValue());
    SmallVector<Value> masks = adaptor.getMask() ? elementsOf(b, loc, adaptor.getMask()) : SmallVector<Value>();
    unsigned bits = memoryBits(elementType);
    unsigned width = getMemoryAccessWidth(*context.axisInfo, op.getPtr(), op.getMask(), bits);
    Ownership owner = getOwnership(b, loc, op.getPtr().getType());
    std::string hints = cacheSuffix(op.getCache()) + evictSuffix(op.getCache(), op.getEvict());

    for (unsigned first = 0; first < pointers.size(); first += width) {
      if (!owner.registerOwned[first])
        continue;
      Words words = wordsFor(width, bits);
      SmallVector<Value> storedWords = toWords(b, loc, ArrayRef<Value>(values).slice(first, width), elementType, words);
      SmallVector<Value> operands{pointers[first]};
      std::string constraints = "l";
      std::string sources;
      for (auto [w, word] : llvm::enumerate(storedWords)) {
        operands.push_back(word);
        constraints += std::string(",") + words.constraint();
        sources += std::string(w ? ", " : "") + "$" + std::to_string(w + 1);
      }
      Value predicate = andPredicates(b, loc, masks.empty() ? Value() : masks[first], owner.threadOwns);
      std::string guard;
      if (predicate) {
        operands.push_back(predicate);
        constraints += ",b";
        guard = "@$" + std::to_string(operands.size() - 1) + " ";
      }
      std::string vector = words.count > 1 ? ".v" + std::to_string(words.count) : "";
      std::string text = guard + "st.global" + hints + vector + "." + words.suffix() + " [ $0 + 0 ], " +
                         (words.count > 1 ? "{" + sources + "}" : sources) + ";";
      inlineAsm(b, loc, {}, operands, text, constraints, /*sideEffects=*/true);
    }
    b.eraseOp(op);
    return success();
  }

  LoweringContext context;
};

/// The PTX type suffix of an atomic on `type`.
FailureOr<std::string> atomicType(RMWOp rmw, Type type) {
  unsigned bits = type.getIntOrFloatBitWidth();
  if (isa<FloatType>(type)) {
    if (rmw == RMWOp::fadd)
      return type.isF16() ? std::string("noftz.f16") : type.isBF16() ? std::string("noftz.bf16") : "f" + std::to_string(bits);
    if (rmw == RMWOp::xchg)
      return "b" + std::to_string(bits);
    return failure();
  }
  switch (rmw) {
  case RMWOp::and_:
  case RMWOp::or_:
  case RMWOp::xor_:
  case RMWOp::xchg: return "b" + std::to_string(bits);
  case RMWOp::add:
  case RMWOp::umax:
  case RMWOp::umin: return "u" + std::to_string(bits);
  case RMWOp::max:
  case RMWOp::min: return "s" + std::to_string(bits);
  default: return failure();
  }
}

std::string atomicOperation(RMWOp rmw) {
  switch (rmw) {
  case RMWOp::and_: return "and";
  case RMWOp::or_: return "or";
  case RMWOp::xor_: return "xor";
  case RMWOp::add:
  case RMWOp::fadd: return "add";
  case RMWOp::max:
  case RMWOp::umax: return "max";
  case RMWOp::min:
  case RMWOp::umin: return "min";
  case RMWOp::xchg: return "exch";
  }
  return "";
}

std::string ordering(MemSemantic sem, MemScope scope) {
  return "." + stringifyMemSemantic(sem).str() + "." + stringifyMemScope(scope).str();
}

template <class Op>
LogicalResult lowerAtomic(Op op, ArrayRef<Value> pointers, ArrayRef<ArrayRef<Value>> values, ArrayRef<Value> masks,
                          const std::string &instruction, Type elementType, const LLVMTypeConverter &converter,
                          ConversionPatternRewriter &b) {
  Location loc = op.getLoc();
  if (!isa<RankedTensorType>(op.getType()) && !op->use_empty())
    return b.notifyMatchFailure(op, "the result of an atomic on a scalar pointer is not supported yet");
  Ownership owner = getOwnership(b, loc, op.getPtr().getType());
  unsigned bits = elementType.getIntOrFloatBitWidth();
  const char *constraint = bits == 64 ? "l" : bits == 32 ? "r" : "h";
  Type intType = b.getIntegerType(bits);
  SmallVector<Value> results;
  for (unsigned reg = 0; reg < pointers.size(); ++reg) {
    SmallVector<Value> operands{pointers[reg]};
    std::string constraints = std::string("=") + constraint + ",l";
    std::string text;
    std::string sources;
    for (ArrayRef<Value> value : values) {
      operands.push_back(bitcastToInt(b, loc, value[reg]));
      constraints += std::string(",") + constraint;
      sources += ", $" + std::to_string(operands.size());
    }
    Value predicate = andPredicates(b, loc, masks.empty() ? Value() : masks[reg],
                                    owner.registerOwned[reg] ? owner.threadOwns : Value(LLVM::ConstantOp::create(b, loc, b.getI1Type(), b.getBoolAttr(false))));
    std::string guard;
    if (predicate) {
      operands.push_back(predicate);
      constraints += ",b";
      guard = "@$" + std::to_string(operands.size()) + " ";
    }
    text = "mov.b" + std::to_string(bits) + " $0, 0;\n" + guard + instruction + " $0, [ $1 + 0 ]" + sources + ";";
    Value old = inlineAsm(b, loc, {intType}, operands, text, constraints, /*sideEffects=*/true);
    results.push_back(bitcastFromInt(b, loc, old, elementType));
  }
  if (isa<RankedTensorType>(op.getType()))
    b.replaceOp(op, pack(b, loc, converter.convertType(op.getType()), results));
  else
    b.replaceOp(op, results.front());
  return success();
}

struct AtomicRMWLowering : ConvertOpToLLVMPattern<AtomicRMWOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(AtomicRMWOp op, OpAdaptor adaptor, ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    Type elementType = getTypeConverter()->convertType(getElementTypeOrSelf(op.getType()));
    FailureOr<std::string> type = atomicType(op.getRmw(), elementType);
    if (failed(type))
      return b.notifyMatchFailure(op, "PTX has no atom." + atomicOperation(op.getRmw()) + " for this element type");
    std::string instruction = "atom" + ordering(op.getSem(), op.getScope()) + ".global." +
                              atomicOperation(op.getRmw()) + "." + *type;
    SmallVector<Value> pointers = elementsOf(b, loc, adaptor.getPtr());
    SmallVector<Value> values = elementsOf(b, loc, adaptor.getVal());
    SmallVector<Value> masks = adaptor.getMask() ? elementsOf(b, loc, adaptor.getMask()) : SmallVector<Value>();
    return lowerAtomic(op, pointers, {ArrayRef<Value>(values)}, masks, instruction, elementType, *getTypeConverter(), b);
  }
};

struct AtomicCASLowering : ConvertOpToLLVMPattern<AtomicCASOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(AtomicCASOp op, OpAdaptor adaptor, ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    Type elementType = getTypeConverter()->convertType(getElementTypeOrSelf(op.getType()));
    std::string instruction = "atom" + ordering(op.getSem(), op.getScope()) + ".global.cas.b" +
                              std::to_string(elementType.getIntOrFloatBitWidth());
    SmallVector<Value> pointers = elementsOf(b, loc, adaptor.getPtr());
    SmallVector<Value> compare = elementsOf(b, loc, adaptor.getCmp());
    SmallVector<Value> values = elementsOf(b, loc, adaptor.getVal());
    return lowerAtomic(op, pointers, {ArrayRef<Value>(compare), ArrayRef<Value>(values)}, {}, instruction,
                       elementType, *getTypeConverter(), b);
  }
};

} // namespace

void populateMemoryPatterns(LLVMTypeConverter &converter, RewritePatternSet &patterns, const LoweringContext &context) {
  patterns.add<LoadLowering, StoreLowering>(converter, context);
  patterns.add<AtomicRMWLowering, AtomicCASLowering>(converter);
}

} // namespace mlir::brick::lowering
