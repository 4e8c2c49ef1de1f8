//===- DotOperandToLLVM.cpp - local_load into #dot_op registers with ldmatrix ----------===//
//
// A #dot_op layout keeps kWidth elements along K in each 32-bit register ("word") exactly as mma.sync reads
// them, and ldmatrix delivers words in that arrangement: each of its 8x8 (16-bit) matrices is 8 rows of 16
// contiguous bytes, one row address per lane, and lane l receives the word at (row l / 4, word l % 4). So when
// the buffer is contiguous along K (rows are the operand's M or N), a plain ldmatrix gives the fragment; when it
// is contiguous along the other dimension (16-bit elements only), ldmatrix.trans does. Four consecutive words
// of a thread (their register bits are linear, so lanes 8q..8q+7 can address word q) are one ldmatrix.x4.
// Anything else (a 32- or 8-bit operand stored the other way) falls back to per-element loads.
//
// A local_load whose only user is an mma dot is left to the dot, which reads each K step's words right before
// its instructions (see DotOpToMMAv2.cpp): loading the whole block first would keep it all live at once.
//
//===----------------------------------------------------------------------===//

#include "Ldmatrix.h"

namespace mlir::brick::lowering {
namespace {
using brickgpu::DotOperandEncodingAttr;
using brickgpu::LinearLayout;
using brickgpu::MemDescType;
using brickgpu::SharedEncodingAttr;
} // namespace

std::optional<LdmatrixReader> LdmatrixReader::create(OpBuilder &b, Location loc, RankedTensorType type,
                                                     MemDescType memory, Value base,
                                                     const LLVMTypeConverter &converter) {
  auto operand = dyn_cast_if_present<DotOperandEncodingAttr>(type.getEncoding());
  if (!operand)
    return std::nullopt;
  // Either shared layout: a #shared one (what accelerate-dot stages registers in) or an #nvmma_shared one (what
  // TMA writes a descriptor's block in), whose 16-byte groups are always whole.
  auto shared = dyn_cast<SharedEncodingAttr>(memory.getEncoding());
  auto nvmma = dyn_cast<brickgpu::NVMMASharedEncodingAttr>(memory.getEncoding());
  unsigned fastest = shared ? shared.getOrder()[0] : nvmma.getOrder()[0];
  unsigned rank = type.getRank(), mDim = rank - 2, nDim = rank - 1; // a batch dimension comes first
  unsigned kDim = operand.getOpIdx() == 0 ? nDim : mDim, otherDim = operand.getOpIdx() == 0 ? mDim : nDim;
  unsigned bits = type.getElementTypeBitWidth();
  if (fastest != kDim && fastest != otherDim)
    return std::nullopt; // stored batch-fastest: no 16-byte rows of the operand
  LdmatrixReader reader(b, loc);
  reader.kWidth = operand.getKWidth();
  reader.transposed = fastest != kDim;
  // ldmatrix moves 32-bit words of kWidth elements; .trans exists for 16-bit elements only.
  if (bits * reader.kWidth != 32 || (reader.transposed && bits != 16))
    return std::nullopt;
  // Each matrix row is 16 contiguous bytes: the buffer's rows and swizzle groups must hold them.
  if (type.getDimSize(fastest) * bits < 128 || (shared && shared.getMaxPhase() > 1 && shared.getVec() * bits < 128))
    return std::nullopt;

  reader.layout = brickgpu::getLinearLayout(type);
  reader.memory = memory;
  reader.base = base;
  reader.element = converter.convertType(type.getElementType());
  unsigned words = reader.layout.getNumRegisters() / reader.kWidth;
  reader.wordsPerLoad = words % 4 == 0 ? 4 : words % 2 == 0 ? 2 : 1;
  reader.rowDim = reader.transposed ? kDim : otherDim;
  reader.values.resize(reader.layout.getNumRegisters());

  ThreadId thread = getThreadId(b, loc);
  LinearLayout warpsOnly(reader.layout.getShape(), {}, {}, reader.layout.getWarpBases());
  reader.warpPart = emitCoordinates(b, loc, warpsOnly, {i32Constant(b, loc, 0), thread.warp}).front();
  reader.row = LLVM::AndOp::create(b, loc, thread.lane, i32Constant(b, loc, 7));
  auto laneBit = [&](unsigned bit) {
    return LLVM::AndOp::create(b, loc, LLVM::LShrOp::create(b, loc, thread.lane, i32Constant(b, loc, bit)),
                               i32Constant(b, loc, 1));
  };
  reader.matrixBit0 = laneBit(3);
  reader.matrixBit1 = laneBit(4);
  return reader;
}

void LdmatrixReader::loadGroup(unsigned firstWord) {
  OpBuilder &b = *builder;
  auto origin = [&](unsigned word) { return layout.registerCoordinate(word * kWidth); };
  // Lane l addresses row l % 8 of matrix q = l / 8, which is this thread's word firstWord + q: the words' origins
  // are linear in q (their register bits are), so q's two bits each add a fixed step.
  LinearLayout::Coordinate first = origin(firstWord);
  SmallVector<Value> coordinate;
  for (unsigned d = 0; d < layout.getRank(); ++d) {
    Value c = i32Constant(b, loc, first[d]);
    if (wordsPerLoad > 1)
      c = LLVM::XOrOp::create(b, loc, c, LLVM::MulOp::create(b, loc, matrixBit0, i32Constant(b, loc, origin(firstWord + 1)[d] ^ first[d])));
    if (wordsPerLoad > 2)
      c = LLVM::XOrOp::create(b, loc, c, LLVM::MulOp::create(b, loc, matrixBit1, i32Constant(b, loc, origin(firstWord + 2)[d] ^ first[d])));
    if (d == rowDim)
      c = LLVM::OrOp::create(b, loc, c, row); // matrices start at multiples of 8 rows
    coordinate.push_back(LLVM::XOrOp::create(b, loc, c, warpPart[d]));
  }
  auto pointerType = LLVM::LLVMPointerType::get(b.getContext(), 3);
  Value address = LLVM::GEPOp::create(b, loc, pointerType, element, base,
                                      ValueRange{emitSharedOffset(b, loc, coordinate, memory)});
  Type i32 = b.getI32Type();
  Type resultType = wordsPerLoad == 1
                        ? i32
                        : Type(LLVM::LLVMStructType::getLiteral(b.getContext(), SmallVector<Type>(wordsPerLoad, i32)));
  auto load = NVVM::LdMatrixOp::create(b, loc, resultType, address, wordsPerLoad,
                                       transposed ? NVVM::MMALayout::col : NVVM::MMALayout::row,
                                       NVVM::LdStMatrixShapeAttr::get(b.getContext(), 8, 8),
                                       NVVM::LdStMatrixEltType::B16);
  SmallVector<Value> loaded = wordsPerLoad == 1 ? SmallVector<Value>{load.getResult()} : unpack(b, loc, load.getResult());
  for (auto [q, word] : llvm::enumerate(loaded)) {
    Value vector = LLVM::BitcastOp::create(b, loc, VectorType::get({kWidth}, element), word);
    for (unsigned i = 0; i < kWidth; ++i)
      values[(firstWord + q) * kWidth + i] = LLVM::ExtractElementOp::create(b, loc, vector, i32Constant(b, loc, i));
  }
}

Value LdmatrixReader::get(unsigned reg) {
  if (!values[reg])
    loadGroup(reg / kWidth / wordsPerLoad * wordsPerLoad);
  return values[reg];
}

SmallVector<Value> LdmatrixReader::getAll() {
  SmallVector<Value> all;
  for (unsigned reg = 0; reg < values.size(); ++reg)
    all.push_back(get(reg));
  return all;
}

bool isReadByMmaDot(brickgpu::LocalLoadOp op) {
  if (!op->hasOneUse())
    return false;
  auto dot = dyn_cast<DotOp>(*op->getUsers().begin());
  return dot && isa_and_present<brickgpu::MmaEncodingAttr>(cast<RankedTensorType>(dot.getType()).getEncoding());
}

namespace {
struct LdmatrixLowering : ConvertOpToLLVMPattern<brickgpu::LocalLoadOp> {
  LdmatrixLowering(LLVMTypeConverter &converter) : ConvertOpToLLVMPattern(converter, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(brickgpu::LocalLoadOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    auto type = cast<RankedTensorType>(op.getType());
    std::optional<LdmatrixReader> reader =
        LdmatrixReader::create(b, op.getLoc(), type, op.getSrc().getType(), adaptor.getSrc(), *getTypeConverter());
    if (!reader)
      return b.notifyMatchFailure(op, "ldmatrix cannot read this operand from this buffer");
    Type structType = getTypeConverter()->convertType(type);
    if (isReadByMmaDot(op)) // the dot reads the buffer itself, K step by K step
      b.replaceOp(op, LLVM::PoisonOp::create(b, op.getLoc(), structType));
    else
      b.replaceOp(op, pack(b, op.getLoc(), structType, reader->getAll()));
    return success();
  }
};
} // namespace

void populateDotOperandPatterns(LLVMTypeConverter &converter, RewritePatternSet &patterns, const LoweringContext &) {
  patterns.add<LdmatrixLowering>(converter);
}

} // namespace mlir::brick::lowering
