//===- BrickGPUDialect.cpp - Layout attributes, memdesc type, op verifiers -----===//

#include "brick/Dialect/BrickGPU/BrickGPUDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::brickgpu;

#include "BrickGPU/BrickGPUDialect.cpp.inc"
#include "BrickGPU/BrickGPUAttrInterfaces.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "BrickGPU/BrickGPUAttrs.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "BrickGPU/BrickGPUTypes.cpp.inc"

namespace {
/// Prints layouts once at the top of the module as #blocked, #blocked1, #slice, ... (as Triton does).
struct BrickGPUAsmInterface : public OpAsmDialectInterface {
  using OpAsmDialectInterface::OpAsmDialectInterface;
  AliasResult getAlias(Attribute attr, raw_ostream &os) const override {
    if (isa<BlockedEncodingAttr>(attr))
      os << "blocked";
    else if (isa<SliceEncodingAttr>(attr))
      os << "slice";
    else if (isa<SharedEncodingAttr>(attr))
      os << "shared";
    else
      return AliasResult::NoAlias;
    return AliasResult::FinalAlias;
  }
};
} // namespace

void BrickGPUDialect::initialize() {
  addInterfaces<BrickGPUAsmInterface>();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "BrickGPU/BrickGPUAttrs.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "BrickGPU/BrickGPUTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "BrickGPU/BrickGPUOps.cpp.inc"
      >();
}

unsigned BrickGPUDialect::getNumWarps(Operation *op) {
  ModuleOp module = isa<ModuleOp>(op) ? cast<ModuleOp>(op) : op->getParentOfType<ModuleOp>();
  if (module)
    if (auto attr = module->getAttrOfType<IntegerAttr>(getNumWarpsAttrName()))
      return attr.getInt();
  return 4;
}

DistributedLayoutAttr mlir::brickgpu::getLayout(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor ? dyn_cast_if_present<DistributedLayoutAttr>(tensor.getEncoding()) : DistributedLayoutAttr();
}

LinearLayout mlir::brickgpu::getLinearLayout(RankedTensorType type) {
  return cast<DistributedLayoutAttr>(type.getEncoding()).toLinearLayout(type.getShape());
}

//===----------------------------------------------------------------------===//
// #blocked
//===----------------------------------------------------------------------===//

LogicalResult BlockedEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                          ArrayRef<unsigned> sizePerThread, ArrayRef<unsigned> threadsPerWarp,
                                          ArrayRef<unsigned> warpsPerCTA, ArrayRef<unsigned> order) {
  size_t rank = sizePerThread.size();
  if (threadsPerWarp.size() != rank || warpsPerCTA.size() != rank || order.size() != rank)
    return emitError() << "sizePerThread, threadsPerWarp, warpsPerCTA and order must have one entry per "
                          "dimension; got "
                       << sizePerThread.size() << ", " << threadsPerWarp.size() << ", " << warpsPerCTA.size()
                       << " and " << order.size();
  auto allPowersOfTwo = [](ArrayRef<unsigned> values) {
    return llvm::all_of(values, [](unsigned v) { return v > 0 && llvm::isPowerOf2_32(v); });
  };
  if (!allPowersOfTwo(sizePerThread) || !allPowersOfTwo(threadsPerWarp) || !allPowersOfTwo(warpsPerCTA))
    return emitError() << "sizePerThread, threadsPerWarp and warpsPerCTA must be powers of two";
  unsigned lanes = 1;
  for (unsigned t : threadsPerWarp)
    lanes *= t;
  if (lanes != 32)
    return emitError() << "threadsPerWarp must multiply to 32 (a warp), got " << lanes;
  SmallVector<bool> seen(rank, false);
  for (unsigned d : order) {
    if (d >= rank || seen[d])
      return emitError() << "order must be a permutation of the " << rank << " dimensions";
    seen[d] = true;
  }
  return success();
}

BlockedEncodingAttr BlockedEncodingAttr::getDefault(MLIRContext *context, ArrayRef<int64_t> shape,
                                                    unsigned numWarps, unsigned sizePerThreadFastest,
                                                    ArrayRef<unsigned> givenOrder) {
  unsigned rank = shape.size();
  SmallVector<unsigned> sizePerThread(rank, 1), threadsPerWarp(rank, 1), warpsPerCTA(rank, 1),
      order(givenOrder);
  if (order.empty())
    for (int d = rank - 1; d >= 0; --d)
      order.push_back(d);
  // Fill the fastest dimension first: its elements per thread, then lanes, then warps; what does not fit
  // spills to the next dimension, and what is left over after the last replicates.
  sizePerThread[order[0]] = std::max<int64_t>(1, std::min<int64_t>(sizePerThreadFastest, shape[order[0]]));
  unsigned lanesLeft = 32, warpsLeft = numWarps;
  for (unsigned i = 0; i < rank; ++i) {
    unsigned d = order[i];
    int64_t room = std::max<int64_t>(1, shape[d] / sizePerThread[d]);
    unsigned lanes = std::min<int64_t>(lanesLeft, room);
    threadsPerWarp[d] = lanes;
    lanesLeft /= lanes;
    room = std::max<int64_t>(1, room / lanes);
    unsigned warps = std::min<int64_t>(warpsLeft, room);
    warpsPerCTA[d] = warps;
    warpsLeft /= warps;
  }
  // Leftover lanes and warps go to the slowest dimension (they replicate a small block).
  threadsPerWarp[order.back()] *= lanesLeft;
  warpsPerCTA[order.back()] *= warpsLeft;
  return BlockedEncodingAttr::get(context, sizePerThread, threadsPerWarp, warpsPerCTA, order);
}

LinearLayout BlockedEncodingAttr::toLinearLayout(ArrayRef<int64_t> shape) const {
  unsigned rank = shape.size();
  SmallVector<LinearLayout::Coordinate> registers, lanes, warps;
  auto basis = [&](unsigned dim, int64_t value) {
    LinearLayout::Coordinate coordinate(rank, 0);
    // A step beyond the block's extent wraps around: those threads or registers replicate elements.
    if (value < shape[dim])
      coordinate[dim] = value;
    return coordinate;
  };
  ArrayRef<unsigned> spt = getSizePerThread(), tpw = getThreadsPerWarp(), wpc = getWarpsPerCTA();
  for (unsigned d : getOrder())
    for (unsigned i = 1; i < spt[d]; i *= 2)
      registers.push_back(basis(d, i));
  for (unsigned d : getOrder())
    for (unsigned i = 1; i < tpw[d]; i *= 2)
      lanes.push_back(basis(d, int64_t(spt[d]) * i));
  for (unsigned d : getOrder())
    for (unsigned i = 1; i < wpc[d]; i *= 2)
      warps.push_back(basis(d, int64_t(spt[d]) * tpw[d] * i));
  // A block larger than one tile repeats the tile in more registers.
  for (unsigned d : getOrder())
    for (int64_t step = int64_t(spt[d]) * tpw[d] * wpc[d]; step < shape[d]; step *= 2)
      registers.push_back(basis(d, step));
  return LinearLayout(shape, registers, lanes, warps);
}

unsigned BlockedEncodingAttr::getNumWarps() const {
  unsigned warps = 1;
  for (unsigned w : getWarpsPerCTA())
    warps *= w;
  return warps;
}

unsigned BlockedEncodingAttr::getRank() const { return getOrder().size(); }

//===----------------------------------------------------------------------===//
// #slice
//===----------------------------------------------------------------------===//

LogicalResult SliceEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError, unsigned dim,
                                        DistributedLayoutAttr parent) {
  if (!parent)
    return emitError() << "a slice needs a distributed parent layout";
  if (dim >= parent.getRank())
    return emitError() << "slice dimension " << dim << " is out of range for a parent of rank " << parent.getRank();
  return success();
}

LinearLayout SliceEncodingAttr::toLinearLayout(ArrayRef<int64_t> shape) const {
  SmallVector<int64_t> parentShape(shape);
  parentShape.insert(parentShape.begin() + getDim(), 1);
  return getParent().toLinearLayout(parentShape).removeDimension(getDim());
}

unsigned SliceEncodingAttr::getNumWarps() const { return getParent().getNumWarps(); }
unsigned SliceEncodingAttr::getRank() const { return getParent().getRank() - 1; }

//===----------------------------------------------------------------------===//
// !brickgpu.memdesc
//===----------------------------------------------------------------------===//

Type MemDescType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type elementType;
  Attribute encoding;
  if (parser.parseLess() || parser.parseDimensionList(shape, /*allowDynamic=*/false, /*withTrailingX=*/true) ||
      parser.parseType(elementType) || parser.parseComma() || parser.parseAttribute(encoding) ||
      parser.parseGreater())
    return {};
  return MemDescType::getChecked([&] { return parser.emitError(parser.getNameLoc()); }, parser.getContext(), shape,
                                 elementType, encoding);
}

void MemDescType::print(AsmPrinter &printer) const {
  printer << "<";
  for (int64_t d : getShape())
    printer << d << "x";
  printer << getElementType() << ", " << getEncoding() << ">";
}

LogicalResult MemDescType::verify(function_ref<InFlightDiagnostic()> emitError, ArrayRef<int64_t> shape,
                                  Type elementType, Attribute encoding) {
  if (!brick::isBlockShape(shape))
    return emitError() << "a shared-memory block has a static power-of-two shape";
  if (!elementType.isIntOrFloat())
    return emitError() << "a shared-memory block holds integers or floats, not " << elementType;
  if (!isa<SharedEncodingAttr>(encoding))
    return emitError() << "a shared-memory block needs a #brickgpu.shared encoding, got " << encoding;
  return success();
}

int64_t MemDescType::getNumElements() const {
  int64_t count = 1;
  for (int64_t d : getShape())
    count *= d;
  return count;
}

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

#define GET_OP_CLASSES
#include "BrickGPU/BrickGPUOps.cpp.inc"

OpFoldResult ConvertLayoutOp::fold(FoldAdaptor) {
  if (getSrc().getType() == getType())
    return getSrc();
  return {};
}

namespace {
/// convert_layout(convert_layout(x)) -> convert_layout(x).
struct CollapseConversions : OpRewritePattern<ConvertLayoutOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ConvertLayoutOp op, PatternRewriter &rewriter) const override {
    auto inner = op.getSrc().getDefiningOp<ConvertLayoutOp>();
    if (!inner)
      return failure();
    rewriter.replaceOpWithNewOp<ConvertLayoutOp>(op, op.getType(), inner.getSrc());
    return success();
  }
};
} // namespace

void ConvertLayoutOp::getCanonicalizationPatterns(RewritePatternSet &results, MLIRContext *context) {
  results.add<CollapseConversions>(context);
}

namespace {
LogicalResult verifySameBlock(Operation *op, RankedTensorType tensor, MemDescType memory) {
  if (tensor.getShape() != memory.getShape() || tensor.getElementType() != memory.getElementType())
    return op->emitOpError() << "block " << tensor << " and shared buffer " << memory
                             << " must have one shape and element type";
  return success();
}
} // namespace

LogicalResult LocalAllocOp::verify() {
  if (!getSrc())
    return success();
  return verifySameBlock(*this, cast<RankedTensorType>(getSrc().getType()), getType());
}

LogicalResult LocalLoadOp::verify() {
  return verifySameBlock(*this, cast<RankedTensorType>(getType()), getSrc().getType());
}

LogicalResult LocalStoreOp::verify() {
  return verifySameBlock(*this, cast<RankedTensorType>(getSrc().getType()), getDst().getType());
}
