//===- BrickGPUDialect.cpp - Layout attributes, memdesc type, op verifiers -----===//

#include "brick/Dialect/BrickGPU/BrickGPUDialect.h"
#include "brick/Runtime/TensorMap.h"
#include "brick/Dialect/Brick/Float8.h"

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
    else if (isa<NVMMASharedEncodingAttr>(attr))
      os << "nvmma_shared";
    else if (isa<MmaEncodingAttr>(attr))
      os << "mma";
    else if (isa<DotOperandEncodingAttr>(attr))
      os << "dot_op";
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

LogicalResult BrickGPUDialect::verifyOperationAttribute(Operation *op, NamedAttribute attribute) {
  auto value = dyn_cast<IntegerAttr>(attribute.getValue());
  StringRef name = attribute.getName().getValue();
  if (name == getNumWarpsAttrName()) {
    // A program is at most 1024 threads; warps tile blocks in powers of two.
    if (!value || value.getInt() < 1 || value.getInt() > 32 || !llvm::isPowerOf2_64(value.getInt()))
      return op->emitError() << "'" << name << "' must be a power of two from 1 to 32 (warps per program), got "
                             << attribute.getValue();
    return success();
  }
  if (name == getSharedAttrName() || name == getOffsetAttrName()) {
    if (!value || value.getInt() < 0)
      return op->emitError() << "'" << name << "' must be a non-negative number of bytes, got " << attribute.getValue();
    return success();
  }
  return success();
}

namespace {
/// The integer attribute `name` of the module enclosing `op` (or `op` itself), else `unset`.
unsigned moduleNumber(Operation *op, StringRef name, unsigned unset) {
  ModuleOp module = isa<ModuleOp>(op) ? cast<ModuleOp>(op) : op->getParentOfType<ModuleOp>();
  if (module)
    if (auto attr = module->getAttrOfType<IntegerAttr>(name))
      return attr.getInt();
  return unset;
}
} // namespace

unsigned BrickGPUDialect::getNumWarps(Operation *op) { return moduleNumber(op, getNumWarpsAttrName(), 4); }

unsigned BrickGPUDialect::getClusterSize(Operation *op) { return moduleNumber(op, getClusterSizeAttrName(), 1); }

DistributedLayoutAttr mlir::brickgpu::getLayout(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor ? dyn_cast_if_present<DistributedLayoutAttr>(tensor.getEncoding()) : DistributedLayoutAttr();
}

LogicalResult mlir::brickgpu::verifyEveryBlockHasALayout(Operation *module, StringRef pass) {
  auto hasLayout = [](Type type) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    return !tensor || getLayout(tensor);
  };
  unsigned numWarps = BrickGPUDialect::getNumWarps(module);
  // A layout that does not fit its block or the module computes part of the block: refused here, not
  // miscompiled later. (Elementwise operands in different layouts are refused by arith's and math's own
  // verifiers: SameOperandsAndResultType compares encodings.)
  auto fits = [&](Operation *op, Type type) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    DistributedLayoutAttr layout = tensor ? getLayout(tensor) : DistributedLayoutAttr();
    if (!layout)
      return true;
    if (layout.getRank() != unsigned(tensor.getRank())) {
      op->emitError() << pass << ": the layout of " << type << " is for rank-" << layout.getRank() << " blocks";
      return false;
    }
    if (layout.getNumWarps() != numWarps) {
      op->emitError() << pass << ": the layout of " << type << " spreads a block over " << layout.getNumWarps()
                      << " warps, but the module runs " << numWarps << " (brickgpu.num_warps)";
      return false;
    }
    return true;
  };
  WalkResult walk = module->walk([&](Operation *op) {
    for (Value result : op->getResults()) {
      if (!hasLayout(result.getType())) {
        op->emitError() << pass << " needs every block to have a layout (run convert-brick-to-brickgpu first); "
                        << result.getType() << " has none";
        return WalkResult::interrupt();
      }
      if (!fits(op, result.getType()))
        return WalkResult::interrupt();
    }
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument argument : block.getArguments())
          if (!hasLayout(argument.getType())) {
            op->emitError() << pass << " needs every block to have a layout (run convert-brick-to-brickgpu first); "
                            << "a block argument of type " << argument.getType() << " has none";
            return WalkResult::interrupt();
          }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

LinearLayout mlir::brickgpu::getLinearLayout(RankedTensorType type) {
  return cast<DistributedLayoutAttr>(type.getEncoding()).toLinearLayout(type.getShape());
}

namespace {
/// A basis vector along `dim` of a block of `shape`; a step beyond the extent wraps around to zero (the
/// threads or registers it would distinguish hold the same elements).
LinearLayout::Coordinate basisAlong(ArrayRef<int64_t> shape, unsigned dim, int64_t value) {
  LinearLayout::Coordinate coordinate(shape.size(), 0);
  if (value < shape[dim])
    coordinate[dim] = value;
  return coordinate;
}

/// Bases for `count` (a power of two) steps of `step` along `dim`: step, 2 * step, ...
void appendSteps(SmallVectorImpl<LinearLayout::Coordinate> &bases, ArrayRef<int64_t> shape, unsigned dim,
                 int64_t step, unsigned count) {
  for (unsigned i = 1; i < count; i *= 2)
    bases.push_back(basisAlong(shape, dim, step * i));
}

/// Registers that repeat a tile of `tile` elements along `dim` until the block's extent.
void appendRepeats(SmallVectorImpl<LinearLayout::Coordinate> &bases, ArrayRef<int64_t> shape, unsigned dim,
                   int64_t tile) {
  for (int64_t step = tile; step < shape[dim]; step *= 2)
    bases.push_back(basisAlong(shape, dim, step));
}

LogicalResult verifyWarps(function_ref<InFlightDiagnostic()> emitError, ArrayRef<unsigned> warpsPerCTA) {
  if (warpsPerCTA.size() != 2 && warpsPerCTA.size() != 3)
    return emitError() << "a tensor-core layout is 2-D (or 3-D with a leading batch dimension): warpsPerCTA needs 2 "
                          "or 3 entries, got "
                       << warpsPerCTA.size();
  if (!llvm::all_of(warpsPerCTA, [](unsigned w) { return w > 0 && llvm::isPowerOf2_32(w); }))
    return emitError() << "warpsPerCTA must be powers of two";
  return success();
}
} // namespace

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
  SmallVector<LinearLayout::Coordinate> registers, lanes, warps;
  ArrayRef<unsigned> spt = getSizePerThread(), tpw = getThreadsPerWarp(), wpc = getWarpsPerCTA();
  for (unsigned d : getOrder())
    appendSteps(registers, shape, d, 1, spt[d]);
  for (unsigned d : getOrder())
    appendSteps(lanes, shape, d, spt[d], tpw[d]);
  for (unsigned d : getOrder())
    appendSteps(warps, shape, d, int64_t(spt[d]) * tpw[d], wpc[d]);
  // A block larger than one tile repeats the tile in more registers.
  for (unsigned d : getOrder())
    appendRepeats(registers, shape, d, int64_t(spt[d]) * tpw[d] * wpc[d]);
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
// #mma and #dot_op
//===----------------------------------------------------------------------===//


LogicalResult MmaEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError, unsigned versionMajor,
                                      ArrayRef<unsigned> warpsPerCTA, ArrayRef<unsigned> instrShape) {
  if (versionMajor == 2) {
    if (instrShape.size() != 2 || instrShape[0] != 16 || instrShape[1] != 8)
      return emitError() << "an mma version 2 layout has instrShape = [16, 8]";
    return verifyWarps(emitError, warpsPerCTA);
  }
  if (versionMajor != 3)
    return emitError() << "mma version " << versionMajor << " is not supported; 2 (mma.sync) and 3 (wgmma) are";
  if (instrShape.size() != 2 || instrShape[0] != 64 || instrShape[1] < 8 || instrShape[1] > 256 ||
      !llvm::isPowerOf2_32(instrShape[1]))
    return emitError() << "an mma version 3 layout has instrShape = [64, N], N a power of two from 8 to 256";
  if (failed(verifyWarps(emitError, warpsPerCTA)))
    return failure();
  if (warpsPerCTA.size() != 2)
    return emitError() << "an mma version 3 layout is 2-D: warpsPerCTA needs 2 entries, got " << warpsPerCTA.size();
  if (warpsPerCTA[0] % 4 != 0)
    return emitError() << "an mma version 3 layout is issued by warpgroups: warpsPerCTA[0] must be a multiple of 4, got "
                       << warpsPerCTA[0];
  return success();
}

LinearLayout MmaEncodingAttr::toLinearLayout(ArrayRef<int64_t> shape) const {
  // M and N are the last two dimensions; a 3-D layout has a batch dimension first, whose warps come after the
  // M and N ones and whose repeats are the outermost registers.
  ArrayRef<unsigned> wpc = getWarpsPerCTA();
  unsigned rank = wpc.size(), mDim = rank - 2, nDim = rank - 1;
  // One 16x8 piece per warp: c0, c1 at (l / 4, 2 * (l % 4) + {0, 1}), c2, c3 eight rows down.
  SmallVector<LinearLayout::Coordinate> registers{basisAlong(shape, nDim, 1), basisAlong(shape, mDim, 8)};
  SmallVector<LinearLayout::Coordinate> lanes{basisAlong(shape, nDim, 2), basisAlong(shape, nDim, 4),
                                              basisAlong(shape, mDim, 1), basisAlong(shape, mDim, 2),
                                              basisAlong(shape, mDim, 4)};
  SmallVector<LinearLayout::Coordinate> warps;
  if (isWarpGroup()) {
    // wgmma: a warp's pieces run along the instruction's N; the warps of a warpgroup, then warpgroups, along M.
    int64_t instrN = getInstrShape()[1];
    appendSteps(registers, shape, 1, 8, instrN / 8);
    appendSteps(warps, shape, 0, 16, wpc[0]);
    appendSteps(warps, shape, 1, instrN, wpc[1]);
    appendRepeats(registers, shape, 1, instrN * int64_t(wpc[1]));
    appendRepeats(registers, shape, 0, 16 * int64_t(wpc[0]));
    return LinearLayout(shape, registers, lanes, warps);
  }
  appendSteps(warps, shape, nDim, 8, wpc[nDim]);
  appendSteps(warps, shape, mDim, 16, wpc[mDim]);
  if (rank == 3)
    appendSteps(warps, shape, 0, 1, wpc[0]);
  appendRepeats(registers, shape, nDim, 8 * int64_t(wpc[nDim]));
  appendRepeats(registers, shape, mDim, 16 * int64_t(wpc[mDim]));
  if (rank == 3)
    appendRepeats(registers, shape, 0, wpc[0]);
  return LinearLayout(shape, registers, lanes, warps);
}

unsigned MmaEncodingAttr::getNumWarps() const {
  unsigned warps = 1;
  for (unsigned w : getWarpsPerCTA())
    warps *= w;
  return warps;
}
unsigned MmaEncodingAttr::getRank() const { return getWarpsPerCTA().size(); }

LogicalResult DotOperandEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError, unsigned opIdx,
                                             MmaEncodingAttr parent, unsigned kWidth) {
  if (opIdx > 1)
    return emitError() << "opIdx is 0 (the dot's a) or 1 (its b), got " << opIdx;
  if (!parent)
    return emitError() << "a dot operand needs an #mma parent";
  if (parent.getVersionMajor() != 2 && opIdx != 0)
    return emitError() << "wgmma (an mma version 3 parent) reads B from shared memory; only A may be in registers";
  if (kWidth != 1 && kWidth != 2 && kWidth != 4)
    return emitError() << "kWidth (elements along K per 32-bit register) is 1, 2 or 4, got " << kWidth;
  return success();
}

LinearLayout DotOperandEncodingAttr::toLinearLayout(ArrayRef<int64_t> shape) const {
  // The operand's own dimensions (the last two; a batch dimension comes first): K, and the one it shares with the
  // result (M for a, N for b).
  ArrayRef<unsigned> wpc = getParent().getWarpsPerCTA();
  unsigned rank = wpc.size(), mDim = rank - 2, nDim = rank - 1;
  unsigned kDim = getOpIdx() == 0 ? nDim : mDim, otherDim = getOpIdx() == 0 ? mDim : nDim;
  int64_t kWidth = getKWidth();
  SmallVector<LinearLayout::Coordinate> registers, lanes, warps;
  appendSteps(registers, shape, kDim, 1, kWidth); // kWidth elements along K share a 32-bit register
  if (getOpIdx() == 0)
    registers.push_back(basisAlong(shape, otherDim, 8)); // a's fragment covers 16 rows
  registers.push_back(basisAlong(shape, kDim, 4 * kWidth));
  lanes = {basisAlong(shape, kDim, kWidth), basisAlong(shape, kDim, 2 * kWidth), basisAlong(shape, otherDim, 1),
           basisAlong(shape, otherDim, 2), basisAlong(shape, otherDim, 4)};
  // The parent's warp bits, N first, then M, then batch: warps along the other operand's dimension hold the same
  // elements; both operands follow the batch warps.
  LinearLayout::Coordinate none(rank, 0);
  if (getParent().isWarpGroup()) {
    // wgmma's A: the parent's warps run along M first (see MmaEncodingAttr::toLinearLayout), 16 rows each.
    appendSteps(warps, shape, mDim, 16, wpc[mDim]);
    for (unsigned i = 1; i < wpc[nDim]; i *= 2)
      warps.push_back(none);
  } else {
    for (unsigned i = 1; i < wpc[nDim]; i *= 2)
      warps.push_back(getOpIdx() == 1 ? basisAlong(shape, nDim, 8 * i) : none);
    for (unsigned i = 1; i < wpc[mDim]; i *= 2)
      warps.push_back(getOpIdx() == 0 ? basisAlong(shape, mDim, 16 * i) : none);
  }
  if (rank == 3)
    appendSteps(warps, shape, 0, 1, wpc[0]);
  appendRepeats(registers, shape, kDim, getInstrK());
  appendRepeats(registers, shape, otherDim, getOpIdx() == 0 ? 16 * int64_t(wpc[mDim]) : 8 * int64_t(wpc[nDim]));
  if (rank == 3)
    appendRepeats(registers, shape, 0, wpc[0]);
  return LinearLayout(shape, registers, lanes, warps);
}

unsigned DotOperandEncodingAttr::getNumWarps() const { return getParent().getNumWarps(); }
unsigned DotOperandEncodingAttr::getRank() const { return getParent().getRank(); }

LogicalResult NVMMASharedEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError, unsigned swizzle,
                                              ArrayRef<unsigned> order) {
  if (swizzle != 32 && swizzle != 64 && swizzle != 128)
    return emitError() << "an nvmma_shared swizzle is 32, 64 or 128 bytes, got " << swizzle;
  if (order.size() != 2 || order[0] > 1 || order[1] != 1 - order[0])
    return emitError() << "an nvmma_shared order is [1, 0] or [0, 1]";
  return success();
}

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
  // A ring of buffers (the pipeline's) may have any number of them; each buffer has a block's shape.
  if (shape.empty() || shape.front() < 1 ||
      !(shape.size() == 1 ? brick::isBlockShape(shape) : brick::isBlockShape(shape.drop_front())))
    return emitError() << "a shared-memory block has a static power-of-two shape (a ring of them any number of "
                          "buffers first)";
  if (!elementType.isIntOrFloat())
    return emitError() << "a shared-memory block holds integers or floats, not " << elementType;
  if (auto nvmma = dyn_cast<NVMMASharedEncodingAttr>(encoding)) {
    // Each buffer is whole columns of `swizzle` bytes and whole groups of 8 rows (one swizzle pattern).
    ArrayRef<int64_t> block = shape.size() == 2 ? shape : shape.drop_front();
    ArrayRef<unsigned> order = nvmma.getOrder();
    if (block.size() != 2 || order.size() != 2)
      return emitError() << "a #brickgpu.nvmma_shared buffer is 2-D (a ring of them 3-D)";
    int64_t rowBytes = block[order[0]] * elementType.getIntOrFloatBitWidth() / 8;
    if (rowBytes % nvmma.getSwizzle() != 0 || block[order[1]] % 8 != 0)
      return emitError() << "a #brickgpu.nvmma_shared buffer with " << nvmma.getSwizzle()
                         << "-byte swizzle needs rows of a multiple of " << nvmma.getSwizzle()
                         << " bytes and a multiple of 8 of them; got " << block[order[1]] << " rows of " << rowBytes
                         << " bytes";
    return success();
  }
  if (!isa<SharedEncodingAttr>(encoding))
    return emitError() << "a shared-memory block needs a #brickgpu.shared or #brickgpu.nvmma_shared encoding, got "
                       << encoding;
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
  auto block = cast<RankedTensorType>(getSrc().getType());
  MemDescType buffer = getDst().getType();
  std::optional<int64_t> offset = getColumnOffset();
  if (!offset)
    return verifySameBlock(*this, block, buffer);
  if (block.getRank() != 2 || buffer.getShape().size() != 2 || block.getElementType() != buffer.getElementType() ||
      block.getDimSize(0) != buffer.getShape()[0])
    return emitOpError() << "a column window of " << block << " is a 2-D buffer of its rows and element type, not "
                         << buffer;
  int64_t width = buffer.getShape()[1];
  if (*offset < 0 || *offset % width || *offset + width > block.getDimSize(1))
    return emitOpError() << "column window [" << *offset << ", " << *offset + width << ") is not one of the "
                         << width << "-column windows of " << block;
  if (!isThreadIndependentColumnWindow(block, width))
    return emitOpError() << "the registers holding a " << width << "-column window of " << block
                         << " depend on the thread";
  return success();
}

bool mlir::brickgpu::fitsMmaSync(int64_t m, int64_t n, int64_t k, unsigned bits) {
  return m >= 16 && n >= 8 && k * bits >= 256;
}

bool mlir::brickgpu::isThreadIndependentColumnWindow(RankedTensorType block, int64_t width) {
  if (!getLayout(block) || block.getRank() != 2 || width <= 0 || !llvm::isPowerOf2_64(width))
    return false;
  LinearLayout layout = getLinearLayout(block);
  // Lane and warp bases must stay inside a window: no column bit at or above log2(width).
  auto insideWindow = [&](const LinearLayout::Coordinate &basis) { return basis[1] < width; };
  return llvm::all_of(layout.getLaneBases(), insideWindow) && llvm::all_of(layout.getWarpBases(), insideWindow);
}

LogicalResult MemDescIndexOp::verify() {
  MemDescType ring = getSrc().getType(), slot = getType();
  if (ring.getShape().drop_front() != slot.getShape() || ring.getElementType() != slot.getElementType() ||
      ring.getEncoding() != slot.getEncoding())
    return emitOpError() << "a slot of " << ring << " is a " << ring.getShape().size() - 1
                         << "-D buffer of its element type and layout, not " << slot;
  return success();
}

MemDescType MemDescTransOp::transposed(MemDescType type) {
  auto layout = dyn_cast<NVMMASharedEncodingAttr>(type.getEncoding());
  if (type.getShape().size() != 2 || !layout || layout.getOrder().size() != 2)
    return {};
  ArrayRef<unsigned> order = layout.getOrder();
  return MemDescType::get(type.getContext(), {type.getShape()[1], type.getShape()[0]}, type.getElementType(),
                          NVMMASharedEncodingAttr::get(type.getContext(), layout.getSwizzle(),
                                                       {1 - order[0], 1 - order[1]}));
}

LogicalResult MemDescTransOp::verify() {
  MemDescType expected = transposed(getSrc().getType());
  if (!expected)
    return emitOpError() << "transposes 2-D #brickgpu.nvmma_shared buffers; got " << getSrc().getType();
  if (getType() != expected)
    return emitOpError() << "of " << getSrc().getType() << " is " << expected << ", not " << getType();
  return success();
}

Value mlir::brickgpu::underlyingBuffer(Value buffer) {
  while (auto view = buffer.getDefiningOp<MemDescTransOp>())
    buffer = view.getSrc();
  return buffer;
}

LogicalResult AsyncCopyGlobalToLocalOp::verify() {
  auto pointers = dyn_cast<RankedTensorType>(getPtr().getType());
  MemDescType buffer = getDst().getType();
  if (!pointers || pointers.getShape() != buffer.getShape() ||
      cast<brick::PointerType>(pointers.getElementType()).getPointeeType() != buffer.getElementType())
    return emitOpError() << "copies a block of pointers into a buffer of its shape and element type; got "
                         << getPtr().getType() << " into " << buffer;
  return success();
}

namespace {
/// An mbarrier is one 64-bit word of shared memory.
LogicalResult verifyBarrier(Operation *op, MemDescType barrier) {
  if (barrier.getShape() != ArrayRef<int64_t>{1} || !barrier.getElementType().isInteger(64))
    return op->emitOpError() << "takes an mbarrier, a shared buffer of one i64 (memdesc<1xi64>); got " << barrier;
  return success();
}
} // namespace

LogicalResult InitBarrierOp::verify() {
  if (getCount() < 1)
    return emitOpError() << "expects at least one arrival, not " << getCount();
  return verifyBarrier(*this, getBarrier().getType());
}
LogicalResult InvalidateBarrierOp::verify() { return verifyBarrier(*this, getBarrier().getType()); }
LogicalResult BarrierExpectOp::verify() { return verifyBarrier(*this, getBarrier().getType()); }
LogicalResult WaitBarrierOp::verify() { return verifyBarrier(*this, getBarrier().getType()); }
LogicalResult BarrierArriveOp::verify() { return verifyBarrier(*this, getBarrier().getType()); }

LogicalResult SetMaxRegistersOp::verify() {
  if (getCount() < 24 || getCount() > 256 || getCount() % 8 != 0)
    return emitOpError() << "sets 24 to 256 registers in steps of 8 (setmaxnreg), not " << getCount();
  return success();
}

NVMMASharedEncodingAttr mlir::brickgpu::getTMALayout(MLIRContext *context, ArrayRef<int64_t> shape, Type elementType) {
  unsigned bytes = std::max(1u, elementType.getIntOrFloatBitWidth() / 8);
  if (shape.size() != 2 || shape[0] % 8 != 0)
    return {};
  unsigned swizzle = ::brick::runtime::tmaBlockLayout(shape[1], bytes).swizzleBytes;
  return swizzle ? NVMMASharedEncodingAttr::get(context, swizzle, {1, 0}) : NVMMASharedEncodingAttr();
}

bool mlir::brickgpu::isTMALayout(MemDescType type) {
  NVMMASharedEncodingAttr tma = getTMALayout(type.getContext(), type.getShape(), type.getElementType());
  return tma && type.getEncoding() == tma;
}

namespace {
/// A TMA copy's buffer is 2-D, at 2 coordinates, and laid out as the tensor map (tmaBlockLayout) has it.
LogicalResult verifyTMABuffer(Operation *op, MemDescType buffer, size_t indices) {
  if (buffer.getShape().size() != 2 || indices != 2)
    return op->emitOpError() << "copies 2-D blocks at 2 coordinates; got " << buffer << " at " << indices;
  if (!isTMALayout(buffer)) {
    NVMMASharedEncodingAttr tma = getTMALayout(op->getContext(), buffer.getShape(), buffer.getElementType());
    InFlightDiagnostic error = op->emitOpError() << "copies the layout its tensor map gives, ";
    if (tma)
      error << tma;
    else
      error << "unswizzled 16-byte rows (which TMA copies here do not use)";
    return error << "; got " << buffer;
  }
  return success();
}
} // namespace

LogicalResult AsyncTMACopyLocalToGlobalOp::verify() {
  return verifyTMABuffer(*this, getSrc().getType(), getIndices().size());
}

LogicalResult AsyncTMACopyGlobalToLocalOp::verify() {
  if (failed(verifyBarrier(*this, getBarrier().getType())))
    return failure();
  return verifyTMABuffer(*this, getDst().getType(), getIndices().size());
}

LogicalResult WarpGroupDotOp::verify() {
  Type a = getA().getType();
  MemDescType b = getB().getType();
  auto d = cast<RankedTensorType>(getType());
  auto mma = dyn_cast_if_present<MmaEncodingAttr>(d.getEncoding());
  if (!mma || !mma.isWarpGroup())
    return emitOpError() << "accumulates in an #mma version 3 layout, not " << d;
  if (!isa<NVMMASharedEncodingAttr>(b.getEncoding()))
    return emitOpError() << "reads B from an #brickgpu.nvmma_shared buffer; got " << b;
  ArrayRef<int64_t> aShape;
  Type aElement;
  if (auto buffer = dyn_cast<MemDescType>(a)) {
    if (!isa<NVMMASharedEncodingAttr>(buffer.getEncoding()))
      return emitOpError() << "reads A from an #brickgpu.nvmma_shared buffer or from registers; got " << a;
    aShape = buffer.getShape();
    aElement = buffer.getElementType();
  } else {
    auto registers = cast<RankedTensorType>(a);
    auto operand = dyn_cast_if_present<DotOperandEncodingAttr>(registers.getEncoding());
    unsigned kWidth = 32 / std::max(8u, registers.getElementTypeBitWidth());
    if (!operand || operand.getOpIdx() != 0 || operand.getParent() != mma || operand.getKWidth() != kWidth ||
        !(registers.getElementType().isF16() || registers.getElementType().isBF16() ||
          registers.getElementType().isInteger(8)))
      return emitOpError() << "takes A in registers as f16, bf16 or i8 in #brickgpu.dot_op<{opIdx = 0, parent = "
                              "(the result's #mma), kWidth = " << kWidth << "}>; got " << a;
    aShape = registers.getShape();
    aElement = registers.getElementType();
  }
  if (aShape.size() != 2 || b.getShape().size() != 2 || aShape[1] != b.getShape()[0] || aShape[0] != d.getDimSize(0) ||
      b.getShape()[1] != d.getDimSize(1))
    return emitOpError() << "multiplies M x K by K x N into M x N; got " << a << " * " << b << " -> " << d;
  // One element type, or two 8-bit floats (wgmma takes e4m3 x e5m2).
  using ::mlir::brick::isFloat8;
  if (aElement != b.getElementType() && !(isFloat8(aElement) && isFloat8(b.getElementType())))
    return emitOpError() << "operands of one element type; got " << aElement << " and " << b.getElementType();
  // Each warpgroup's instruction tile must lie inside the block.
  ArrayRef<unsigned> warps = mma.getWarpsPerCTA();
  if (d.getDimSize(0) % (16 * warps[0]) != 0 || d.getDimSize(1) % (int64_t(mma.getInstrShape()[1]) * warps[1]) != 0)
    return emitOpError() << "a " << d.getDimSize(0) << "x" << d.getDimSize(1) << " accumulator is not a whole number of "
                         << mma.getInstrShape()[0] << "x" << mma.getInstrShape()[1] << " wgmma tiles over warpsPerCTA ["
                         << warps[0] << ", " << warps[1] << "]";
  return success();
}
