//===- BrickOps.cpp - Verifiers and builders of the brick ops --------------===//
//
// Every message names the operands, shapes and types at fault, so that a DSL user reading it at their own
// source line knows what to change.
//
//===----------------------------------------------------------------------===//

#include "brick/Dialect/Brick/BrickDialect.h"
#include "brick/Dialect/Brick/Float8.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::brick;

#define GET_OP_CLASSES
#include "Brick/BrickOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Making and reshaping blocks
//===----------------------------------------------------------------------===//

LogicalResult MakeRangeOp::verify() {
  int64_t start = getStartValue(), end = getEndValue();
  if (end <= start)
    return emitOpError() << "needs start < end, got [" << start << ", " << end << ")";
  int64_t length = end - start;
  if (!llvm::isPowerOf2_64(length))
    return emitOpError() << "length end - start = " << length << " is not a power of two";
  auto type = getType();
  if (type.getRank() != 1 || type.getDimSize(0) != length || !type.getElementType().isInteger(32))
    return emitOpError() << "result must be tensor<" << length << "xi32> for [" << start << ", " << end
                         << "), got " << type;
  return success();
}

LogicalResult BroadcastOp::verify() {
  auto srcType = getSrc().getType(), resultType = getType();
  if (srcType.getRank() != resultType.getRank())
    return emitOpError() << "source " << srcType << " and result " << resultType
                         << " differ in rank; insert dimensions with expand_dims first";
  for (auto [dim, sizes] : llvm::enumerate(llvm::zip(srcType.getShape(), resultType.getShape()))) {
    auto [from, to] = sizes;
    if (from != to && from != 1)
      return emitOpError() << "cannot broadcast " << srcType << " to " << resultType << ": dimension " << dim
                           << " is " << from << ", neither 1 nor " << to;
  }
  return success();
}

LogicalResult ExpandDimsOp::verify() {
  auto srcType = getSrc().getType();
  int64_t axis = getAxis();
  if (axis < 0 || axis > srcType.getRank())
    return emitOpError() << "axis " << axis << " is out of range [0, " << srcType.getRank() << "] for "
                         << srcType;
  SmallVector<int64_t> expected(srcType.getShape());
  expected.insert(expected.begin() + axis, 1);
  if (getType().getShape() != ArrayRef<int64_t>(expected))
    return emitOpError() << "inserting a unit dimension at axis " << axis << " of " << srcType
                         << " gives shape " << shapeToString(expected) << ", but the result is " << getType();
  return success();
}

LogicalResult ReshapeOp::verify() {
  auto srcType = getSrc().getType(), resultType = getType();
  if (srcType.getNumElements() != resultType.getNumElements())
    return emitOpError() << "cannot reshape " << srcType << " (" << srcType.getNumElements() << " elements) to "
                         << resultType << " (" << resultType.getNumElements() << " elements)";
  return success();
}

LogicalResult HintOp::verify() {
  auto tensor = dyn_cast<RankedTensorType>(getSrc().getType());
  int64_t dimensions = tensor ? tensor.getRank() : 1;
  if (!getDivisibility() && !getContiguity() && !getConstancy())
    return emitOpError() << "states nothing: give divisibility, contiguity or constancy";
  auto check = [&](std::optional<ArrayRef<int64_t>> values, StringRef name, bool runs) -> LogicalResult {
    if (!values)
      return success();
    if (static_cast<int64_t>(values->size()) != dimensions)
      return emitOpError() << name << " has " << values->size() << " entries; " << getSrc().getType() << " needs "
                           << dimensions << " (one per dimension; a scalar has one)";
    for (auto [d, value] : llvm::enumerate(*values)) {
      if (value < 1 || !llvm::isPowerOf2_64(value))
        return emitOpError() << name << " " << value << " (dimension " << d << ") is not a positive power of two";
      if (runs && value > (tensor ? tensor.getDimSize(d) : 1))
        return emitOpError() << name << " " << value << " (dimension " << d << ") is longer than the dimension "
                             << (tensor ? tensor.getDimSize(d) : 1);
    }
    return success();
  };
  if (failed(check(getDivisibility(), "divisibility", false)) || failed(check(getContiguity(), "contiguity", true)) ||
      failed(check(getConstancy(), "constancy", true)))
    return failure();
  return success();
}

int64_t InlineAsmElementwiseOp::elementsPerRegister(Type elementType, int64_t pack) {
  unsigned width = elementType.isIntOrFloat() ? elementType.getIntOrFloatBitWidth() : 64;
  if (width != 8 && width != 16)
    return 1;
  return std::min<int64_t>(32 / width, std::max<int64_t>(pack, 1));
}

std::pair<int64_t, int64_t> InlineAsmElementwiseOp::expectedConstraintCounts() {
  int64_t outputs = 0, inputs = 0;
  for (Value result : getResults())
    outputs += registersPerInvocation(getElementTypeOrSelf(result.getType()), getPack());
  for (Value arg : getArgs())
    inputs += registersPerInvocation(getElementTypeOrSelf(arg.getType()), getPack());
  return {outputs, inputs};
}

LogicalResult InlineAsmElementwiseOp::verify() {
  if (getResults().empty())
    return emitOpError() << "has no results: inline_asm_elementwise computes one or more values per element";
  int64_t pack = getPack();
  if (pack < 1 || pack > 16 || !llvm::isPowerOf2_64(pack))
    return emitOpError() << "pack " << pack << " is not 1, 2, 4, 8 or 16 (elements per invocation)";
  // Per result, then per operand: one constraint per register of an invocation.
  SmallVector<StringRef> parts;
  getConstraints().split(parts, ',', -1, false);
  int64_t outputs = llvm::count_if(parts, [](StringRef part) { return part.trim().starts_with("="); });
  int64_t inputs = int64_t(parts.size()) - outputs;
  auto [wantOutputs, wantInputs] = expectedConstraintCounts();
  if (outputs != wantOutputs || inputs != wantInputs)
    return emitOpError() << "constraints '" << getConstraints() << "' name " << outputs << " outputs and " << inputs
                         << " inputs; its " << getResults().size() << " results and " << getArgs().size()
                         << " operands at pack " << pack << " need " << wantOutputs << " and " << wantInputs;
  for (Value value : llvm::concat<Value>(getArgs(), getResults()))
    if (isa<PointerType>(getElementTypeOrSelf(value.getType())))
      return emitOpError() << "takes and gives numbers, not pointers (" << value.getType() << ")";
  return success();
}

void InlineAsmElementwiseOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  if (getPure())
    return;
  effects.emplace_back(MemoryEffects::Write::get(), GlobalMemory::get());
  effects.emplace_back(MemoryEffects::Read::get(), GlobalMemory::get());
}

LogicalResult TransOp::verify() {
  auto srcType = getSrc().getType();
  ArrayRef<int32_t> order = getOrder();
  int64_t rank = srcType.getRank();
  SmallVector<bool> seen(rank, false);
  if (static_cast<int64_t>(order.size()) != rank)
    return emitOpError() << "order has " << order.size() << " entries but " << srcType << " has rank " << rank;
  SmallVector<int64_t> expected;
  for (int32_t dim : order) {
    if (dim < 0 || dim >= rank || seen[dim])
      return emitOpError() << "order [" << llvm::make_range(order.begin(), order.end())
                           << "] is not a permutation of the " << rank << " dimensions of " << srcType;
    seen[dim] = true;
    expected.push_back(srcType.getDimSize(dim));
  }
  if (getType().getShape() != ArrayRef<int64_t>(expected))
    return emitOpError() << "transposing " << srcType << " gives shape " << shapeToString(expected)
                         << ", but the result is " << getType();
  return success();
}

//===----------------------------------------------------------------------===//
// Pointers and memory
//===----------------------------------------------------------------------===//

LogicalResult AddPtrOp::verify() {
  Type ptrType = getPtr().getType(), offsetType = getOffset().getType();
  if (getShapeOrEmpty(ptrType) != getShapeOrEmpty(offsetType) || isa<RankedTensorType>(ptrType) !=
                                                                      isa<RankedTensorType>(offsetType))
    return emitOpError() << "pointer " << ptrType << " and offset " << offsetType
                         << " must have the same shape (splat or broadcast one of them)";
  // Blocks of one shape in two layouts hold different elements in each thread's registers.
  auto ptrTensor = dyn_cast<RankedTensorType>(ptrType), offsetTensor = dyn_cast<RankedTensorType>(offsetType);
  if (ptrTensor && offsetTensor && ptrTensor.getEncoding() != offsetTensor.getEncoding())
    return emitOpError() << "pointer " << ptrType << " and offset " << offsetType
                         << " must have the same layout (convert one with brickgpu.convert_layout)";
  return success();
}

LogicalResult LoadOp::verify() {
  if (getOther() && !getMask())
    return emitOpError() << "has an 'other' value but no mask; 'other' only fills masked-off elements";
  return success();
}

void LoadOp::getEffects(SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  effects.emplace_back(MemoryEffects::Read::get(), &getPtrMutable(), GlobalMemory::get());
  // A volatile load must neither be removed nor merged with another: model it as writing memory too.
  if (getIsVolatile())
    effects.emplace_back(MemoryEffects::Write::get(), GlobalMemory::get());
}

namespace {
/// Bit width of what a pointer-like value points to (0 when it points to a pointer).
unsigned pointeeBitWidth(Type ptrLike) {
  Type pointee = getElementTypeOrSelf(getPointeeTypeLike(ptrLike));
  return pointee.isIntOrFloat() ? pointee.getIntOrFloatBitWidth() : 0;
}
} // namespace

LogicalResult AtomicRMWOp::verify() {
  Type pointee = getElementTypeOrSelf(getVal().getType());
  unsigned width = pointeeBitWidth(getPtr().getType());
  bool isFloatPointee = isa<FloatType>(pointee);
  switch (getRmw()) {
  case RMWOp::fadd:
    if (!isFloatPointee)
      return emitOpError() << "fadd needs floating-point elements, got " << pointee << "; use add for integers";
    break;
  case RMWOp::and_:
  case RMWOp::or_:
  case RMWOp::xor_:
  case RMWOp::add:
  case RMWOp::umax:
  case RMWOp::umin:
    if (isFloatPointee)
      return emitOpError() << stringifyRMWOp(getRmw()) << " needs integer elements, got " << pointee
                           << (getRmw() == RMWOp::add ? "; use fadd for floats" : "");
    break;
  case RMWOp::max:
  case RMWOp::min:
  case RMWOp::xchg:
    break;
  }
  if (width != 16 && width != 32 && width != 64)
    return emitOpError() << "atomics work on 16-, 32- or 64-bit elements, got " << pointee;
  if (width == 16 && getRmw() != RMWOp::fadd)
    return emitOpError() << "16-bit atomics support only fadd, got " << stringifyRMWOp(getRmw());
  // PTX's atom.max and atom.min take integers only (the interpreter would run it; the GPU lowering cannot).
  if (isFloatPointee && (getRmw() == RMWOp::max || getRmw() == RMWOp::min))
    return emitOpError() << stringifyRMWOp(getRmw()) << " on floating-point elements (" << pointee
                         << ") has no GPU atomic; use atomic_cas in a loop, or max/min on integers";
  // A scalar atomic's returned old value is not lowered for the GPU (each thread would need the one it got).
  if (!isa<RankedTensorType>(getType()) && !getResult().use_empty())
    return emitOpError() << "the old value of an atomic on a scalar pointer cannot be used yet; use a block of one "
                            "element (ptr + arange(0, 1)) to read it";
  return success();
}

LogicalResult AtomicCASOp::verify() {
  unsigned width = pointeeBitWidth(getPtr().getType());
  if (width != 16 && width != 32 && width != 64)
    return emitOpError() << "compare-and-swap works on 16-, 32- or 64-bit elements, got "
                         << getElementTypeOrSelf(getVal().getType());
  if (!isa<RankedTensorType>(getType()) && !getResult().use_empty())
    return emitOpError() << "the old value of an atomic on a scalar pointer cannot be used yet; use a block of one "
                            "element (ptr + arange(0, 1)) to read it";
  return success();
}

//===----------------------------------------------------------------------===//
// Compute
//===----------------------------------------------------------------------===//

LogicalResult DotOp::verify() {
  auto aType = cast<RankedTensorType>(getA().getType());
  auto bType = cast<RankedTensorType>(getB().getType());
  auto cType = cast<RankedTensorType>(getC().getType());
  // [M, K] x [K, N] -> [M, N], or with a leading batch dimension on all three.
  int64_t rank = aType.getRank();
  if ((rank != 2 && rank != 3) || bType.getRank() != rank || cType.getRank() != rank)
    return emitOpError() << "needs 2-D operands, or 3-D ones with a leading batch dimension, got a: " << aType
                         << ", b: " << bType << ", c: " << cType;
  unsigned m = rank - 2, k = rank - 1;
  if (rank == 3 && (bType.getDimSize(0) != aType.getDimSize(0) || cType.getDimSize(0) != aType.getDimSize(0)))
    return emitOpError() << "batch dimensions differ: a: " << aType << ", b: " << bType << ", c: " << cType;
  if (aType.getDimSize(k) != bType.getDimSize(m))
    return emitOpError() << "inner dimensions differ: a is " << aType << " (K = " << aType.getDimSize(k)
                         << ") but b is " << bType << " (K = " << bType.getDimSize(m) << ")";
  if (cType.getDimSize(m) != aType.getDimSize(m) || cType.getDimSize(k) != bType.getDimSize(k))
    return emitOpError() << "accumulator " << cType << " must be " << aType.getDimSize(m) << "x"
                         << bType.getDimSize(k) << " for a: " << aType << " and b: " << bType;
  Type aElt = aType.getElementType(), bElt = bType.getElementType(), cElt = cType.getElementType();
  // 8-bit floats multiply each other in any pairing (e4m3 x e5m2 too, as wgmma takes them).
  if (isFloat8(aElt) || isFloat8(bElt)) {
    if (!isFloat8(aElt) || !isFloat8(bElt))
      return emitOpError() << "an 8-bit float dot takes 8-bit floats on both sides, got " << aElt << " and " << bElt;
    if (!cElt.isF32())
      return emitOpError() << "an 8-bit float dot accumulates in f32, not " << cElt;
  } else if (aElt != bElt) {
    return emitOpError() << "a and b must have the same element type, got " << aElt << " and " << bElt;
  } else if (aElt.isInteger(8)) {
    if (!cElt.isInteger(32))
      return emitOpError() << "an i8 dot accumulates in i32, not " << cElt;
  } else if (aElt.isF16() || aElt.isBF16() || aElt.isF32()) {
    if (!cElt.isF32() && !(aElt.isF16() && cElt.isF16()))
      return emitOpError() << "a " << aElt << " dot accumulates in f32" << (aElt.isF16() ? " or f16" : "")
                           << ", not " << cElt;
  } else {
    return emitOpError() << "dot supports f16, bf16, f32, i8, e4m3fn and e5m2 inputs, not " << aElt;
  }
  if (getInputPrecision() != InputPrecision::ieee && !aElt.isF32())
    return emitOpError() << "inputPrecision = " << stringifyInputPrecision(getInputPrecision())
                         << " applies to f32 inputs only, got " << aElt;
  if (getZeroRowsFrom() && rank != 2)
    return emitOpError() << "zero_rows_from applies to 2-D dots only, got a: " << aType;
  return success();
}

SmallVector<int64_t> ReduceOp::getResultShape() {
  auto srcType = cast<RankedTensorType>(getSrcs().front().getType());
  SmallVector<int64_t> shape(srcType.getShape());
  shape.erase(shape.begin() + getAxis());
  return shape;
}

namespace {
/// What reduce and scan ask of their operands' shapes and of their combiner: `n` blocks of one shape, a
/// combiner over 2n scalars of their element types ending in `Return` with n of them.
template <typename Return>
LogicalResult verifyCombiner(Operation *op, OperandRange srcs, Region &combiner, StringRef what) {
  if (srcs.empty())
    return op->emitOpError() << "needs at least one block to " << what;
  auto firstType = cast<RankedTensorType>(srcs.front().getType());
  for (auto [i, src] : llvm::enumerate(srcs))
    if (cast<RankedTensorType>(src.getType()).getShape() != firstType.getShape())
      return op->emitOpError() << "all blocks must have one shape: operand 0 is " << firstType << " but operand "
                               << i << " is " << src.getType();
  unsigned n = srcs.size();
  Block &body = combiner.front();
  if (body.getNumArguments() != 2 * n)
    return op->emitOpError() << "combiner takes " << 2 * n << " scalars (accumulated values, then new ones), got "
                             << body.getNumArguments();
  for (unsigned i = 0; i < 2 * n; ++i) {
    Type expected = getElementTypeOrSelf(srcs[i % n].getType());
    if (body.getArgument(i).getType() != expected)
      return op->emitOpError() << "combiner argument " << i << " must be " << expected << ", got "
                               << body.getArgument(i).getType();
  }
  auto ret = body.empty() ? Return() : dyn_cast<Return>(body.back());
  if (!ret)
    return op->emitOpError() << "combiner must end with " << Return::getOperationName();
  // The combiner runs as many times, and on pairs in such an order, as the lowering chooses: what it writes would
  // depend on that.
  WalkResult writes = combiner.walk([&](Operation *inner) {
    auto effects = dyn_cast<MemoryEffectOpInterface>(inner);
    return effects && effects.hasEffect<MemoryEffects::Write>() ? WalkResult::interrupt() : WalkResult::advance();
  });
  if (writes.wasInterrupted())
    return op->emitOpError() << "combiner must not write memory (store, atomics, print): it runs once per pair "
                                "combined, as many times and in such an order as the lowering chooses";
  if (ret.getResults().size() != n)
    return ret.emitOpError() << "returns " << ret.getResults().size() << " values; the " << what << " combines " << n;
  for (unsigned i = 0; i < n; ++i)
    if (ret.getResults()[i].getType() != getElementTypeOrSelf(srcs[i].getType()))
      return ret.emitOpError() << "value " << i << " has type " << ret.getResults()[i].getType() << ", expected "
                               << getElementTypeOrSelf(srcs[i].getType());
  return success();
}

LogicalResult verifyAxis(Operation *op, OperandRange srcs, int64_t axis, unsigned results, StringRef what) {
  auto type = cast<RankedTensorType>(srcs.front().getType());
  if (axis < 0 || axis >= type.getRank())
    return op->emitOpError() << "axis " << axis << " is out of range [0, " << type.getRank() << ") for " << type;
  if (results != srcs.size())
    return op->emitOpError() << what << " " << srcs.size() << " blocks but has " << results << " results";
  return success();
}

/// A type without its layout: results may be in any layout; their shape and element type are fixed.
Type withoutLayout(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return RankedTensorType::get(tensor.getShape(), tensor.getElementType());
  return type;
}
} // namespace

LogicalResult GatherOp::verify() {
  auto src = cast<RankedTensorType>(getSrc().getType());
  auto indices = cast<RankedTensorType>(getIndices().getType());
  int64_t axis = getAxis();
  if (axis < 0 || axis >= src.getRank())
    return emitOpError() << "axis " << axis << " is out of range [0, " << src.getRank() << ") for " << src;
  if (indices.getRank() != src.getRank())
    return emitOpError() << "indices " << indices << " must have the source's rank " << src.getRank();
  for (int64_t d = 0; d < src.getRank(); ++d)
    if (d != axis && indices.getDimSize(d) != src.getDimSize(d))
      return emitOpError() << "indices " << indices << " and source " << src << " differ in dimension " << d
                           << ", which is not the axis " << axis;
  auto expected = RankedTensorType::get(indices.getShape(), src.getElementType());
  if (withoutLayout(getType()) != expected)
    return emitOpError() << "result must be " << expected << " (the indices' shape, the source's elements), got "
                         << getType();
  return success();
}

LogicalResult ReduceOp::verifyRegions() {
  if (failed(verifyCombiner<ReduceReturnOp>(*this, getSrcs(), getCombiner(), "reduce")) ||
      failed(verifyAxis(*this, getSrcs(), getAxis(), getNumResults(), "reduces")))
    return failure();
  SmallVector<int64_t> shape = getResultShape();
  for (unsigned i = 0; i < getNumResults(); ++i) {
    Type elementType = getElementTypeOrSelf(getSrcs()[i].getType());
    Type expected = shape.empty() ? elementType : RankedTensorType::get(shape, elementType);
    if (withoutLayout(getResult(i).getType()) != expected)
      return emitOpError() << "result " << i << " must be " << expected << " (operand " << i << " reduced along axis "
                           << getAxis() << "), got " << getResult(i).getType();
  }
  return success();
}

LogicalResult ScanOp::verifyRegions() {
  if (failed(verifyCombiner<ScanReturnOp>(*this, getSrcs(), getCombiner(), "scan")) ||
      failed(verifyAxis(*this, getSrcs(), getAxis(), getNumResults(), "scans")))
    return failure();
  // A scan keeps its operands' types, layouts included: it moves no element to another thread.
  for (unsigned i = 0; i < getNumResults(); ++i)
    if (getResult(i).getType() != getSrcs()[i].getType())
      return emitOpError() << "result " << i << " must have operand " << i << "'s type " << getSrcs()[i].getType()
                           << ", got " << getResult(i).getType();
  return success();
}

//===----------------------------------------------------------------------===//
// Tensor descriptors
//===----------------------------------------------------------------------===//

namespace {
LogicalResult verifyIndices(Operation *op, TensorDescType desc, size_t indices) {
  if (indices != desc.getBlockShape().size())
    return op->emitOpError() << "takes one index per dimension of " << desc << ", got " << indices;
  return success();
}
} // namespace

LogicalResult MakeTensorDescriptorOp::verify() {
  auto desc = getType();
  size_t rank = desc.getBlockShape().size();
  if (getShape().size() != rank)
    return emitOpError() << "takes one shape entry and one stride per dimension of " << desc << ", got "
                         << getShape().size();
  if (getBase().getType().getPointeeType() != desc.getElementType())
    return emitOpError() << "a descriptor of " << desc.getElementType() << " needs a pointer to it, got "
                         << getBase().getType();
  return success();
}

namespace {
/// Whether `type` is the descriptor's block, in any layout.
bool isBlockOf(Type type, TensorDescType desc) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getShape() == desc.getBlockShape() && tensor.getElementType() == desc.getElementType();
}
} // namespace

LogicalResult DescriptorLoadOp::verify() {
  if (!isBlockOf(getType(), getDesc().getType()))
    return emitOpError() << "reads a " << getDesc().getType().getBlockType() << " from " << getDesc().getType()
                         << ", not a " << getType();
  return verifyIndices(*this, getDesc().getType(), getIndices().size());
}

LogicalResult DescriptorStoreOp::verify() {
  if (!isBlockOf(getValue().getType(), getDesc().getType()))
    return emitOpError() << "writes a " << getDesc().getType().getBlockType() << " into " << getDesc().getType()
                         << ", not a " << getValue().getType();
  return verifyIndices(*this, getDesc().getType(), getIndices().size());
}
