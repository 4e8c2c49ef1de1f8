//===- BrickDialect.cpp - Dialect registration, types and shared helpers ---===//

#include "brick/Dialect/Brick/BrickDialect.h"

#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::brick;

#include "Brick/BrickDialect.cpp.inc"
#include "Brick/BrickEnums.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "Brick/BrickTypes.cpp.inc"

void BrickDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "Brick/BrickTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "Brick/BrickOps.cpp.inc"
      >();
}

Operation *BrickDialect::materializeConstant(OpBuilder &builder, Attribute value, Type type, Location loc) {
  return arith::ConstantOp::materialize(builder, value, type, loc);
}

LogicalResult PointerType::verify(function_ref<InFlightDiagnostic()> emitError, Type pointeeType,
                                  int addressSpace) {
  if (!isa<IntegerType, FloatType, PointerType>(pointeeType))
    return emitError() << "a brick pointer points to an integer, a float or a pointer, not " << pointeeType;
  // Loads, stores and atomics are global-memory instructions; shared memory is the compiler's to place
  // (brickgpu.local_alloc), so no other address space has a meaning here yet.
  if (addressSpace != 1)
    return emitError() << "a brick pointer points into global memory (address space 1), not address space "
                       << addressSpace;
  return success();
}

LogicalResult BrickDialect::verifyOperationAttribute(Operation *op, NamedAttribute attribute) {
  if (attribute.getName() != getKernelAttrName())
    return success();
  // A kernel is launched with scalars and pointers and returns nothing: what a GPU launch can pass and keep.
  auto function = dyn_cast<FunctionOpInterface>(op);
  if (!function)
    return op->emitError() << "'" << getKernelAttrName() << "' marks functions (func.func), not '" << op->getName() << "'";
  for (auto [index, type] : llvm::enumerate(function.getArgumentTypes()))
    if (!type.isIntOrFloat() && !isa<PointerType, TensorMapType>(type))
      return op->emitError() << "kernel argument #" << index << " is " << type
                             << ": a kernel takes scalars (integers, floats), !brick.ptr pointers and !brick.tensormap "
                                "tensor maps; pass a block as a pointer and load it";
  if (!function.getResultTypes().empty())
    return op->emitError() << "a kernel returns nothing (it has " << function.getResultTypes().size()
                           << " results): store what it computes through a pointer argument";
  // A kernel is a GPU entry point: launched, never called (a call to one compiled to nothing).
  if (auto module = op->getParentOfType<ModuleOp>())
    if (std::optional<SymbolTable::UseRange> uses = SymbolTable::getSymbolUses(op, module))
      for (const SymbolTable::SymbolUse &use : *uses)
        if (isa<CallOpInterface>(use.getUser()))
          return use.getUser()->emitError() << "'" << function.getName()
                                            << "' is a kernel (brick.kernel): kernels are launched, not called; "
                                               "call a function without brick.kernel that holds the shared code";
  return success();
}

Type TensorDescType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type element;
  if (parser.parseLess() || parser.parseDimensionList(shape, /*allowDynamic=*/false, /*withTrailingX=*/true) ||
      parser.parseType(element) || parser.parseGreater())
    return {};
  return TensorDescType::getChecked([&] { return parser.emitError(parser.getNameLoc()); }, parser.getContext(), shape,
                                    element);
}

void TensorDescType::print(AsmPrinter &printer) const {
  printer << "<";
  for (int64_t d : getBlockShape())
    printer << d << "x";
  printer << getElementType() << ">";
}

LogicalResult TensorDescType::verify(function_ref<InFlightDiagnostic()> emitError, ArrayRef<int64_t> blockShape,
                                     Type elementType) {
  if (!isBlockShape(blockShape) || blockShape.size() > 5)
    return emitError() << "a tensor descriptor's block has a static power-of-two shape of rank 1 to 5";
  if (!isa<IntegerType, FloatType>(elementType) || elementType.isInteger(1))
    return emitError() << "a tensor descriptor holds integers (8 bits or more) or floats, not " << elementType;
  return success();
}

bool mlir::brick::isBlockShape(ArrayRef<int64_t> shape) {
  // Rank 0 is a scalar, not a block: layouts tile at least one dimension.
  return !shape.empty() && llvm::all_of(shape, [](int64_t d) { return d > 0 && llvm::isPowerOf2_64(d); });
}

Type mlir::brick::getTypeLike(Type like, Type elementType) {
  if (auto tensor = dyn_cast<RankedTensorType>(like))
    return RankedTensorType::get(tensor.getShape(), elementType, tensor.getEncoding());
  return elementType;
}

Type mlir::brick::getPointeeTypeLike(Type ptrLike) {
  // Anything that is not pointer-like maps to itself so that a parser resolving types through this never
  // sees a null type; the operand's type constraint then reports the mistake.
  auto pointer = dyn_cast<PointerType>(getElementTypeOrSelf(ptrLike));
  if (!pointer)
    return ptrLike;
  return getTypeLike(ptrLike, pointer.getPointeeType());
}

Type mlir::brick::getI1TypeLike(Type type) { return getTypeLike(type, IntegerType::get(type.getContext(), 1)); }

ArrayRef<int64_t> mlir::brick::getShapeOrEmpty(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return tensor.getShape();
  return {};
}

std::string mlir::brick::typeToString(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

std::string mlir::brick::shapeToString(ArrayRef<int64_t> shape) {
  std::string text = "[";
  llvm::raw_string_ostream os(text);
  llvm::interleaveComma(shape, os);
  os << "]";
  return text;
}
