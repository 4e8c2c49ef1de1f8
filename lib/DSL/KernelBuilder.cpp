//===- KernelBuilder.cpp - The kernel under construction: errors, types, broadcasting ---===//

#include "KernelBuilder.h"

#include "brick/Registration.h"
#include "brick/Dialect/Brick/Float8.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mlir;

namespace brick {

std::string_view name(DType type) {
  switch (type) {
  case DType::I1: return "i1";
  case DType::I8: return "i8";
  case DType::I16: return "i16";
  case DType::I32: return "i32";
  case DType::I64: return "i64";
  case DType::F16: return "f16";
  case DType::BF16: return "bf16";
  case DType::F32: return "f32";
  case DType::F64: return "f64";
  case DType::F8E4M3: return "f8e4m3";
  case DType::F8E5M2: return "f8e5m2";
  }
  return "?";
}
bool isFloat(DType type) {
  return type == DType::F16 || type == DType::BF16 || type == DType::F32 || type == DType::F64 ||
         type == DType::F8E4M3 || type == DType::F8E5M2;
}
bool isInteger(DType type) { return !isFloat(type); }
unsigned bitWidth(DType type) {
  switch (type) {
  case DType::I1: return 1;
  case DType::I8: case DType::F8E4M3: case DType::F8E5M2: return 8;
  case DType::I16: case DType::F16: case DType::BF16: return 16;
  case DType::I32: case DType::F32: return 32;
  case DType::I64: case DType::F64: return 64;
  }
  return 0;
}

std::string Diagnostic::str() const {
  return file + ":" + std::to_string(line) + ":" + std::to_string(column) + ": error: " + message;
}

std::string BuildResult::errors() const {
  std::string text;
  for (const Diagnostic &diagnostic : diagnostics_)
    text += diagnostic.str() + "\n";
  return text;
}

namespace detail {

namespace {
thread_local KernelBuilder *innermost = nullptr;

Diagnostic makeDiagnostic(Location loc, std::string message) {
  Diagnostic diagnostic;
  diagnostic.message = std::move(message);
  if (auto fileLoc = loc->findInstanceOf<FileLineColLoc>()) {
    diagnostic.file = fileLoc.getFilename().str();
    diagnostic.line = fileLoc.getLine();
    diagnostic.column = fileLoc.getColumn();
  } else {
    diagnostic.file = "<unknown>";
  }
  return diagnostic;
}
} // namespace

std::string describe(Type type) { return mlir::brick::typeToString(type); }

bool broadcastsTo(ArrayRef<int64_t> from, ArrayRef<int64_t> to) {
  if (from.size() > to.size())
    return false;
  for (size_t i = 0; i < from.size(); ++i) {
    int64_t have = from[from.size() - 1 - i], want = to[to.size() - 1 - i];
    if (have != want && have != 1)
      return false;
  }
  return true;
}

std::string describeShape(ArrayRef<int64_t> shape) { return mlir::brick::shapeToString(shape); }

KernelBuilder::KernelBuilder(MLIRContext *context, Loc loc)
    : ownedContext_(context ? nullptr : std::make_unique<MLIRContext>()),
      context_(context ? context : ownedContext_.get()), builder_(context_), enclosing_(innermost) {
  DialectRegistry registry;
  registerDialects(registry);
  context_->appendDialectRegistry(registry);
  context_->loadDialect<mlir::brick::BrickDialect, arith::ArithDialect, math::MathDialect, scf::SCFDialect,
                        func::FuncDialect>();
  module_ = ModuleOp::create(location(loc));
  innermost = this;
}

KernelBuilder::~KernelBuilder() { innermost = enclosing_; }

KernelBuilder *KernelBuilder::current(const char *what, Loc loc) {
  if (!innermost)
    llvm::errs() << loc.file_name() << ":" << loc.line() << ":" << loc.column() << ": error: brick::" << what
                 << " used outside a kernel body (it only works while a brick::kernel is being built)\n";
  return innermost;
}

bool KernelBuilder::active() { return innermost != nullptr; }

Location KernelBuilder::location(Loc loc) {
  return FileLineColLoc::get(context_, loc.file_name(), loc.line(), loc.column());
}

void KernelBuilder::error(Loc loc, const llvm::Twine &message) { error(location(loc), message); }
void KernelBuilder::error(Location loc, const llvm::Twine &message) {
  diagnostics_.push_back(makeDiagnostic(loc, message.str()));
}

Tensor KernelBuilder::poison(Type type) {
  if (!type)
    type = builder_.getI32Type();
  auto cast = UnrealizedConversionCastOp::create(builder_, builder_.getUnknownLoc(), TypeRange{type}, ValueRange{});
  cast->setAttr("brick.poison", builder_.getUnitAttr());
  return Access::wrap(cast.getResult(0));
}

bool KernelBuilder::isPoison(Value value) const {
  Operation *op = value.getDefiningOp();
  return op && op->hasAttr("brick.poison");
}

Tensor KernelBuilder::fail(Loc loc, const llvm::Twine &message, Type type) {
  error(loc, message);
  return poison(type);
}

Value KernelBuilder::use(const Tensor &handle, const char *what, Loc loc) {
  Value value = Access::value(handle);
  if (!value) {
    error(loc, llvm::Twine(what) + " got an unset handle (a Tensor that was never assigned)");
    return {};
  }
  return value;
}

Value KernelBuilder::use(const Operand &operand, Type like, const char *what, Loc loc) {
  if (!Access::isLiteral(operand))
    return use(Access::handle(operand), what, loc);
  Type likeElement = like ? getElementTypeOrSelf(like) : Type();
  if (Access::isBoolLiteral(operand))
    return constantInt(builder_.getI1Type(), Access::intLiteral(operand), loc);
  if (Access::isFloatLiteral(operand)) {
    Type type = likeElement && isa<FloatType>(likeElement) ? likeElement : builder_.getF32Type();
    return constant(type, Access::floatLiteral(operand), loc);
  }
  int64_t literal = Access::intLiteral(operand);
  bool fitsI32 = literal >= INT32_MIN && literal <= INT32_MAX;
  Type type = fitsI32 ? builder_.getI32Type() : builder_.getI64Type();
  if (likeElement && isa<FloatType>(likeElement))
    return constant(likeElement, static_cast<double>(literal), loc);
  if (likeElement && likeElement.isInteger() && likeElement.getIntOrFloatBitWidth() > 1) {
    unsigned width = likeElement.getIntOrFloatBitWidth();
    bool fits = width >= 64 || (literal >= -(int64_t(1) << (width - 1)) && literal < (int64_t(1) << (width - 1)));
    // A literal adopts the other side's integer type when it fits; otherwise promotion widens both sides.
    if (fits)
      type = likeElement;
  }
  return constantInt(type, literal, loc);
}

Type KernelBuilder::type(DType dtype) {
  switch (dtype) {
  case DType::I1: return builder_.getI1Type();
  case DType::I8: return builder_.getI8Type();
  case DType::I16: return builder_.getI16Type();
  case DType::I32: return builder_.getI32Type();
  case DType::I64: return builder_.getI64Type();
  case DType::F16: return builder_.getF16Type();
  case DType::BF16: return builder_.getBF16Type();
  case DType::F32: return builder_.getF32Type();
  case DType::F64: return builder_.getF64Type();
  case DType::F8E4M3: return builder_.getType<Float8E4M3FNType>();
  case DType::F8E5M2: return builder_.getType<Float8E5M2Type>();
  }
  return {};
}

std::optional<DType> dtypeOf(Type elementType) {
  if (auto pointer = dyn_cast<mlir::brick::PointerType>(elementType))
    elementType = pointer.getPointeeType();
  if (elementType.isInteger(1)) return DType::I1;
  if (elementType.isInteger(8)) return DType::I8;
  if (elementType.isInteger(16)) return DType::I16;
  if (elementType.isInteger(32)) return DType::I32;
  if (elementType.isInteger(64)) return DType::I64;
  if (elementType.isF16()) return DType::F16;
  if (elementType.isBF16()) return DType::BF16;
  if (elementType.isF32()) return DType::F32;
  if (elementType.isF64()) return DType::F64;
  if (isa<Float8E4M3FNType>(elementType)) return DType::F8E4M3;
  if (isa<Float8E5M2Type>(elementType)) return DType::F8E5M2;
  return std::nullopt;
}

Value KernelBuilder::constant(Type type, double value, Loc loc) {
  if (type.isInteger())
    return constantInt(type, static_cast<int64_t>(value), loc);
  if (mlir::brick::isFloat8(type)) // an f32 constant converted, as the GPU converts it
    return convert(constant(builder_.getF32Type(), value, loc), type, loc);
  return arith::ConstantOp::create(builder_, location(loc), builder_.getFloatAttr(type, value));
}

Value KernelBuilder::constantInt(Type type, int64_t value, Loc loc) {
  if (isa<FloatType>(type))
    return constant(type, static_cast<double>(value), loc);
  return arith::ConstantOp::create(builder_, location(loc), builder_.getIntegerAttr(type, value));
}

Value KernelBuilder::convert(Value value, Type to, Loc loc) {
  Type from = getElementTypeOrSelf(value.getType());
  if (from == to)
    return value;
  Location l = location(loc);
  Type result = mlir::brick::getTypeLike(value.getType(), to);
  bool fromFloat = isa<FloatType>(from), toFloat = isa<FloatType>(to);
  if (to.isInteger(1)) {
    // C's conversion to bool: "not equal to zero".
    Value zero = fromFloat ? constant(from, 0.0, loc) : constantInt(from, 0, loc);
    if (isa<RankedTensorType>(value.getType()))
      zero = mlir::brick::SplatOp::create(builder_, l, value.getType(), zero);
    if (fromFloat)
      return arith::CmpFOp::create(builder_, l, arith::CmpFPredicate::UNE, value, zero);
    return arith::CmpIOp::create(builder_, l, arith::CmpIPredicate::ne, value, zero);
  }
  if (!fromFloat && !toFloat) {
    unsigned fromWidth = from.getIntOrFloatBitWidth(), toWidth = to.getIntOrFloatBitWidth();
    if (fromWidth < toWidth)
      return from.isInteger(1) ? Value(arith::ExtUIOp::create(builder_, l, result, value))
                               : Value(arith::ExtSIOp::create(builder_, l, result, value));
    return arith::TruncIOp::create(builder_, l, result, value);
  }
  // 8-bit floats convert to and from f32 (and what f32 converts to): never from f64 at once (two roundings would
  // differ from the GPU's one), never to or from integers.
  const bool from8 = mlir::brick::isFloat8(from), to8 = mlir::brick::isFloat8(to);
  if ((from8 && (!toFloat || to.isF64())) || (to8 && (!fromFloat || from.isF64())))
    return convert(convert(value, builder_.getF32Type(), loc), to, loc);
  if (fromFloat && toFloat) {
    // f16 <-> bf16 (and e4m3 <-> e5m2) have the same width: go through f32.
    if (from.getIntOrFloatBitWidth() == to.getIntOrFloatBitWidth())
      return convert(convert(value, builder_.getF32Type(), loc), to, loc);
    if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
      return arith::ExtFOp::create(builder_, l, result, value);
    return arith::TruncFOp::create(builder_, l, result, value);
  }
  if (!fromFloat)
    return from.isInteger(1) ? Value(arith::UIToFPOp::create(builder_, l, result, value))
                             : Value(arith::SIToFPOp::create(builder_, l, result, value));
  return arith::FPToSIOp::create(builder_, l, result, value);
}

Type KernelBuilder::promote(Type a, Type b) const {
  if (a == b)
    return a;
  bool aFloat = isa<FloatType>(a), bFloat = isa<FloatType>(b);
  if (aFloat && bFloat) {
    unsigned aWidth = a.getIntOrFloatBitWidth(), bWidth = b.getIntOrFloatBitWidth();
    if (aWidth == bWidth) // f16 with bf16: neither holds the other
      return Float32Type::get(a.getContext());
    return aWidth > bWidth ? a : b;
  }
  if (aFloat != bFloat)
    return aFloat ? a : b;
  return a.getIntOrFloatBitWidth() >= b.getIntOrFloatBitWidth() ? a : b;
}

Value KernelBuilder::broadcastTo(Value value, ArrayRef<int64_t> shape, const char *what, Loc loc) {
  Location l = location(loc);
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type) {
    if (shape.empty())
      return value;
    return mlir::brick::SplatOp::create(builder_, l, RankedTensorType::get(shape, value.getType()), value);
  }
  ArrayRef<int64_t> from = type.getShape();
  if (!broadcastsTo(from, shape)) {
    error(loc, llvm::Twine(what) + ": cannot broadcast shape " + describeShape(from) + " to " + describeShape(shape));
    return {};
  }
  // Leading unit dimensions first (NumPy aligns shapes on the right), then repeat the unit dimensions.
  while (static_cast<size_t>(cast<RankedTensorType>(value.getType()).getRank()) < shape.size()) {
    auto current = cast<RankedTensorType>(value.getType());
    SmallVector<int64_t> expanded(current.getShape());
    expanded.insert(expanded.begin(), 1);
    value = mlir::brick::ExpandDimsOp::create(builder_, l, RankedTensorType::get(expanded, current.getElementType()),
                                              value, 0);
  }
  auto current = cast<RankedTensorType>(value.getType());
  if (current.getShape() == shape)
    return value;
  return mlir::brick::BroadcastOp::create(builder_, l, RankedTensorType::get(shape, current.getElementType()), value);
}

std::pair<Value, Value> KernelBuilder::broadcastPair(Value a, Value b, const char *what, Loc loc) {
  ArrayRef<int64_t> aShape = mlir::brick::getShapeOrEmpty(a.getType());
  ArrayRef<int64_t> bShape = mlir::brick::getShapeOrEmpty(b.getType());
  bool aBlock = isa<RankedTensorType>(a.getType()), bBlock = isa<RankedTensorType>(b.getType());
  if (!aBlock && !bBlock)
    return {a, b};
  size_t rank = std::max(aShape.size(), bShape.size());
  SmallVector<int64_t> shape(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t x = i < aShape.size() ? aShape[aShape.size() - 1 - i] : 1;
    int64_t y = i < bShape.size() ? bShape[bShape.size() - 1 - i] : 1;
    if (x != y && x != 1 && y != 1) {
      error(loc, llvm::Twine(what) + ": shapes " + describeShape(aShape) + " and " + describeShape(bShape) +
                     " do not broadcast (dimension " + llvm::Twine(rank - 1 - i) + " from the left of the result is " +
                     llvm::Twine(x) + " vs " + llvm::Twine(y) + ")");
      return {};
    }
    shape[rank - 1 - i] = std::max(x, y);
  }
  return {broadcastTo(a, shape, what, loc), broadcastTo(b, shape, what, loc)};
}

//===----------------------------------------------------------------------===//
// BuildSession
//===----------------------------------------------------------------------===//

namespace {
const char *describeParam(ParamKind kind) {
  switch (kind) {
  case ParamKind::Pointer: return "a pointer";
  case ParamKind::Scalar: return "a runtime scalar";
  case ParamKind::Constant: return "a Const";
  case ParamKind::TensorDescriptor: return "a TensorDescriptor";
  }
  return "?";
}

/// How many kernel arguments a parameter takes: a TensorDescriptor is its base, shape, strides and tensor map.
int argumentsOf(const ParamInfo &param) {
  switch (param.kind) {
  case ParamKind::Constant: return 0;
  case ParamKind::TensorDescriptor: return 2 + 2 * param.rank;
  default: return 1;
  }
}
} // namespace

BuildSession::BuildSession(MLIRContext *context, const std::string &name, const std::vector<ParamInfo> &params,
                           const Specialization &spec, Loc loc)
    : builder_(std::make_unique<KernelBuilder>(context, loc)), spec_(spec), params_(params),
      descriptors_(params.size()) {
  KernelBuilder &kb = *builder_;
  if (spec_.empty())
    spec_.resize(params.size());
  if (spec_.size() != params.size()) {
    kb.error(loc, "kernel '" + name + "' has " + std::to_string(params.size()) +
                      " parameters but the specialization gives " + std::to_string(spec.size()) + " arguments");
    return;
  }
  SmallVector<Type> argumentTypes;
  for (auto [index, param] : llvm::enumerate(params)) {
    const Arg &arg = spec_[index];
    std::string which = "kernel '" + name + "': parameter " + std::to_string(index) + " (" +
                        describeParam(param.kind) + " of " + std::string(::brick::name(param.dtype)) + ")";
    if (param.kind == ParamKind::Constant) {
      if (!arg.isConstant())
        kb.error(loc, which + " needs its value in the specialization");
      continue;
    }
    if (arg.isConstant())
      kb.error(loc, which + " is passed at launch; the specialization gives it a constant");
    if (param.kind == ParamKind::TensorDescriptor) {
      const std::vector<int64_t> &block = arg.blockShape();
      if (block.size() != size_t(param.rank) || !mlir::brick::isBlockShape(block))
        kb.error(loc, which + " needs a block shape of " + std::to_string(param.rank) +
                          " powers of two in the specialization (Arg::descriptor)");
      Type element = kb.type(param.dtype);
      argumentTypes.push_back(mlir::brick::PointerType::get(element));
      argumentTypes.append(param.rank, kb.builder().getI32Type());
      argumentTypes.append(param.rank, kb.builder().getI64Type());
      argumentTypes.push_back(mlir::brick::TensorMapType::get(kb.context()));
      continue;
    }
    if (!arg.blockShape().empty())
      kb.error(loc, which + " is not a TensorDescriptor; the specialization gives it a block shape");
    if (arg.equalsOne() && (param.kind != ParamKind::Scalar || !isInteger(param.dtype) || param.dtype == DType::I1))
      kb.error(loc, which + " cannot be specialized as equal to 1: only integer scalars can");
    Type element = kb.type(param.dtype);
    argumentTypes.push_back(param.kind == ParamKind::Pointer ? mlir::brick::PointerType::get(element) : element);
  }
  if (kb.failed())
    return;

  OpBuilder &b = kb.builder();
  b.setInsertionPointToEnd(kb.module()->getBody());
  auto function = func::FuncOp::create(b, kb.location(loc), name, b.getFunctionType(argumentTypes, {}));
  function->setAttr(mlir::brick::BrickDialect::getKernelAttrName(), b.getUnitAttr());
  int argument = 0;
  auto divisible = [&](int index, int64_t divisibility) {
    function.setArgAttr(index, mlir::brick::BrickDialect::getDivisibilityAttrName(),
                        b.getI32IntegerAttr(static_cast<int32_t>(divisibility)));
  };
  for (auto [index, param] : llvm::enumerate(params)) {
    if (param.kind == ParamKind::TensorDescriptor) {
      // What a launch checks of every descriptor: a 16-byte aligned base, strides of whole 16-byte units but the
      // innermost, which is 1.
      divisible(argument, 16);
      const std::vector<int64_t> &extents = spec_[index].extentDivisibility();
      for (int d = 0; d < param.rank && d < int(extents.size()); ++d)
        if (extents[d] > 1)
          divisible(argument + 1 + d, extents[d]);
      int64_t elementBytes = std::max(1u, bitWidth(param.dtype) / 8);
      for (int d = 0; d + 1 < param.rank; ++d)
        divisible(argument + 1 + param.rank + d, std::max<int64_t>(1, 16 / elementBytes));
    } else if (param.kind != ParamKind::Constant && spec_[index].divisibility() > 1) {
      divisible(argument, spec_[index].divisibility());
    }
    argument += argumentsOf(param);
  }
  kb.function() = function;
  b.setInsertionPointToStart(function.addEntryBlock());
  argument = 0;
  for (auto [index, param] : llvm::enumerate(params)) {
    if (param.kind == ParamKind::TensorDescriptor) {
      Location where = kb.location(loc);
      auto arguments = function.getArguments().slice(argument, argumentsOf(param));
      SmallVector<Value> strides(arguments.slice(1 + param.rank, param.rank));
      strides.back() = mlir::arith::ConstantOp::create(b, where, b.getI64IntegerAttr(1));
      auto type = mlir::brick::TensorDescType::get(kb.context(), spec_[index].blockShape(), kb.type(param.dtype));
      Value desc = mlir::brick::MakeTensorDescriptorOp::create(b, where, type, arguments[0],
                                                                ValueRange(arguments.slice(1, param.rank)), strides,
                                                                arguments.back());
      descriptors_[index] = Access::wrap(desc);
    }
    argument += argumentsOf(param);
  }
}

BuildSession::~BuildSession() = default;

bool BuildSession::ok() const { return !builder_->failed(); }

Tensor BuildSession::parameter(size_t index) const {
  KernelBuilder &kb = *builder_;
  if (params_[index].kind == ParamKind::TensorDescriptor)
    return descriptors_[index];
  int argument = 0;
  for (size_t i = 0; i < index; ++i)
    argument += argumentsOf(params_[i]);
  Value value = kb.function().getArgument(argument);
  if (spec_[index].equalsOne())
    return Access::wrap(kb.constantInt(value.getType(), 1, Loc::current()));
  return Access::wrap(value);
}

BuildResult BuildSession::finish(const std::function<void(Operation *)> &run) {
  KernelBuilder &kb = *builder_;
  BuildResult result;
  if (!kb.failed()) {
    func::ReturnOp::create(kb.builder(), kb.function().getLoc());
    // Whatever the DSL's own checks missed, the verifier catches; its messages carry the user's lines too.
    ScopedDiagnosticHandler handler(kb.context(), [&](mlir::Diagnostic &diagnostic) {
      if (diagnostic.getSeverity() == DiagnosticSeverity::Error)
        kb.error(diagnostic.getLocation(), diagnostic.str());
      return success();
    });
    if (failed(verify(*kb.module())) && !kb.failed())
      kb.error(kb.function().getLoc(), "the kernel failed verification");
  }
  result.diagnostics_ = kb.diagnostics();
  if (result.ok()) {
    llvm::raw_string_ostream os(result.ir_);
    kb.module()->print(os);
    if (run)
      run(kb.module()->getOperation());
  }
  return result;
}

} // namespace detail
} // namespace brick
