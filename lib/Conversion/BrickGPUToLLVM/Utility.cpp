//===- Utility.cpp - Shared helpers of the brickgpu-to-llvm lowering -------------===//

#include "Utility.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

namespace mlir::brick::lowering {

/// The members a chain of insertvalues (what pack() builds) put into `structValue`, or nothing when the chain
/// does not set every member. Reading them back directly spares each user of a block N extractvalues, which
/// canonicalization would then fold one by one through the N-long chain: quadratic in the block, and most of
/// the lowering's output for a tile-sized block.
SmallVector<Value> packedMembers(Value structValue, size_t count) {
  SmallVector<Value> members(count);
  size_t found = 0;
  Value current = structValue;
  while (auto insert = current.getDefiningOp<LLVM::InsertValueOp>()) {
    if (insert.getPosition().size() != 1)
      return {};
    Value &member = members[size_t(insert.getPosition()[0])];
    if (!member) { // the last insert into a position wins
      member = insert.getValue();
      if (++found == count)
        return members;
    }
    current = insert.getContainer();
  }
  return {};
}

SmallVector<Value> unpack(OpBuilder &builder, Location loc, Value structValue) {
  auto type = cast<LLVM::LLVMStructType>(structValue.getType());
  if (SmallVector<Value> members = packedMembers(structValue, type.getBody().size()); !members.empty())
    return members;
  SmallVector<Value> values;
  for (unsigned i = 0; i < type.getBody().size(); ++i)
    values.push_back(LLVM::ExtractValueOp::create(builder, loc, structValue, i));
  return values;
}

Value pack(OpBuilder &builder, Location loc, Type structType, ValueRange values) {
  Value result = LLVM::UndefOp::create(builder, loc, structType);
  for (auto [i, value] : llvm::enumerate(values))
    result = LLVM::InsertValueOp::create(builder, loc, result, value, i);
  return result;
}

SmallVector<Value> elementsOf(OpBuilder &builder, Location loc, Value converted) {
  if (isa<LLVM::LLVMStructType>(converted.getType()))
    return unpack(builder, loc, converted);
  return {converted};
}

namespace {
/// The vector whose elements 0, 1, ... `elements` are, if they are exactly that.
Value extractedFrom(VectorType type, ValueRange elements) {
  Value source;
  for (auto [i, element] : llvm::enumerate(elements)) {
    auto extract = element.getDefiningOp<LLVM::ExtractElementOp>();
    APInt position;
    if (!extract || (source && extract.getVector() != source) ||
        !matchPattern(extract.getPosition(), m_ConstantInt(&position)) || position != i)
      return {};
    source = extract.getVector();
  }
  return source && source.getType() == type && int64_t(elements.size()) == type.getNumElements() ? source : Value();
}
} // namespace

Value buildVector(OpBuilder &builder, Location loc, VectorType type, ValueRange elements) {
  if (Value source = extractedFrom(type, elements))
    return source;
  Value vector = LLVM::UndefOp::create(builder, loc, type);
  for (auto [i, element] : llvm::enumerate(elements))
    vector = LLVM::InsertElementOp::create(builder, loc, vector, element, i32Constant(builder, loc, i));
  return vector;
}

Value shuffle(OpBuilder &b, Location loc, Value value, Value lane, NVVM::ShflKind kind) {
  Type type = value.getType();
  Type i32 = b.getI32Type();
  auto shuffle32 = [&](Value word) {
    return NVVM::ShflOp::create(b, loc, i32, i32Constant(b, loc, -1), word, lane, i32Constant(b, loc, 0x1f), kind,
                                UnitAttr())
        .getResult();
  };
  Value asInt = bitcastToInt(b, loc, value);
  unsigned bits = asInt.getType().getIntOrFloatBitWidth();
  if (bits == 64) {
    Value low = LLVM::TruncOp::create(b, loc, i32, asInt);
    Value high = LLVM::TruncOp::create(b, loc, i32,
                                       LLVM::LShrOp::create(b, loc, asInt, constantLike(b, loc, asInt.getType(), 32)));
    low = LLVM::ZExtOp::create(b, loc, asInt.getType(), shuffle32(low));
    high = LLVM::ZExtOp::create(b, loc, asInt.getType(), shuffle32(high));
    Value joined = LLVM::OrOp::create(b, loc, low, LLVM::ShlOp::create(b, loc, high, constantLike(b, loc, asInt.getType(), 32)));
    return bitcastFromInt(b, loc, joined, type);
  }
  Value word = bits == 32 ? asInt : Value(LLVM::ZExtOp::create(b, loc, i32, asInt));
  Value shuffled = shuffle32(word);
  if (bits != 32)
    shuffled = LLVM::TruncOp::create(b, loc, asInt.getType(), shuffled);
  return type.isInteger() ? shuffled : bitcastFromInt(b, loc, shuffled, type);
}

SmallVector<Value> inlineCombiner(OpBuilder &b, Region &combiner, ArrayRef<Value> accumulated, ArrayRef<Value> next) {
  Block &body = combiner.front();
  IRMapping mapping;
  for (auto [i, value] : llvm::enumerate(accumulated))
    mapping.map(body.getArgument(i), value);
  for (auto [i, value] : llvm::enumerate(next))
    mapping.map(body.getArgument(accumulated.size() + i), value);
  for (Operation &inner : body.without_terminator())
    b.clone(inner, mapping);
  return llvm::map_to_vector(body.getTerminator()->getOperands(), [&](Value v) { return mapping.lookupOrDefault(v); });
}

Value rowMajorIndex(OpBuilder &b, Location loc, ArrayRef<Value> coordinate, ArrayRef<int64_t> shape) {
  Value index = i32Constant(b, loc, 0);
  for (auto [c, extent] : llvm::zip(coordinate, shape)) {
    index = LLVM::MulOp::create(b, loc, index, i32Constant(b, loc, extent));
    index = LLVM::AddOp::create(b, loc, index, c);
  }
  return index;
}

Value i32Constant(OpBuilder &builder, Location loc, int64_t value) {
  return LLVM::ConstantOp::create(builder, loc, builder.getI32Type(), builder.getI32IntegerAttr(value));
}

Value clusterRank(OpBuilder &builder, Location loc, Operation *op) {
  unsigned size = brickgpu::BrickGPUDialect::getClusterSize(op);
  Value program = NVVM::BlockIdXOp::create(builder, loc, builder.getI32Type());
  return LLVM::AndOp::create(builder, loc, program, i32Constant(builder, loc, size - 1));
}

Value constantLike(OpBuilder &builder, Location loc, Type type, int64_t value) {
  if (isa<FloatType>(type))
    return LLVM::ConstantOp::create(builder, loc, type, builder.getFloatAttr(type, value));
  return LLVM::ConstantOp::create(builder, loc, type, builder.getIntegerAttr(type, value));
}

ThreadId getThreadId(OpBuilder &builder, Location loc) {
  Value tid = NVVM::ThreadIdXOp::create(builder, loc, builder.getI32Type());
  Value lane = LLVM::AndOp::create(builder, loc, tid, i32Constant(builder, loc, 31));
  Value warp = LLVM::LShrOp::create(builder, loc, tid, i32Constant(builder, loc, 5));
  return {lane, warp};
}

namespace {
/// The part of coordinate `dim` that bits of `id` contribute through `bases`. Runs of consecutive bits
/// whose bases double (the usual case) become one shift-and-mask-and-multiply.
Value threadPart(OpBuilder &builder, Location loc, Value id, ArrayRef<brickgpu::LinearLayout::Coordinate> bases,
                 unsigned dim) {
  Value result;
  auto combine = [&](Value term) { result = result ? Value(LLVM::XOrOp::create(builder, loc, result, term)) : term; };
  for (unsigned bit = 0; bit < bases.size();) {
    int64_t base = bases[bit][dim];
    if (base == 0) {
      ++bit;
      continue;
    }
    unsigned run = 1;
    while (bit + run < bases.size() && bases[bit + run][dim] == base << run)
      ++run;
    Value bits = LLVM::LShrOp::create(builder, loc, id, i32Constant(builder, loc, bit));
    bits = LLVM::AndOp::create(builder, loc, bits, i32Constant(builder, loc, (1 << run) - 1));
    combine(LLVM::MulOp::create(builder, loc, bits, i32Constant(builder, loc, base)));
    bit += run;
  }
  return result;
}
} // namespace

SmallVector<SmallVector<Value>> emitCoordinates(OpBuilder &builder, Location loc, const brickgpu::LinearLayout &layout,
                                                ThreadId thread) {
  unsigned rank = layout.getRank();
  SmallVector<Value> threadParts(rank);
  for (unsigned d = 0; d < rank; ++d) {
    Value lane = threadPart(builder, loc, thread.lane, layout.getLaneBases(), d);
    Value warp = threadPart(builder, loc, thread.warp, layout.getWarpBases(), d);
    threadParts[d] = lane && warp ? Value(LLVM::XOrOp::create(builder, loc, lane, warp)) : (lane ? lane : warp);
  }
  SmallVector<SmallVector<Value>> coordinates;
  for (unsigned reg = 0; reg < layout.getNumRegisters(); ++reg) {
    brickgpu::LinearLayout::Coordinate registerPart = layout.registerCoordinate(reg);
    SmallVector<Value> coordinate;
    for (unsigned d = 0; d < rank; ++d) {
      Value constant = i32Constant(builder, loc, registerPart[d]);
      coordinate.push_back(threadParts[d] ? Value(LLVM::XOrOp::create(builder, loc, threadParts[d], constant)) : constant);
    }
    coordinates.push_back(coordinate);
  }
  return coordinates;
}

Value getSharedMemoryBase(OpBuilder &builder, Location loc, Operation *op) {
  auto module = op->getParentOfType<ModuleOp>();
  auto global = module.lookupSymbol<LLVM::GlobalOp>("brick_shared_memory");
  auto pointerType = LLVM::LLVMPointerType::get(builder.getContext(), 3);
  Value base = LLVM::AddressOfOp::create(builder, loc, pointerType, global.getSymName());
  int64_t offset = 0;
  if (auto attr = op->getAttrOfType<IntegerAttr>(brickgpu::BrickGPUDialect::getOffsetAttrName()))
    offset = attr.getInt();
  if (offset == 0)
    return base;
  return LLVM::GEPOp::create(builder, loc, pointerType, builder.getI8Type(), base,
                             ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(offset)});
}

unsigned rowVectorWidth(const brickgpu::LinearLayout &layout, unsigned maxElements, int dim) {
  unsigned last = dim < 0 ? layout.getRank() - 1 : unsigned(dim);
  unsigned width = std::min<unsigned>(layout.getContiguousRegisters(last), maxElements);
  auto aligned = [&](ArrayRef<brickgpu::LinearLayout::Coordinate> bases) {
    return llvm::all_of(bases, [&](const brickgpu::LinearLayout::Coordinate &basis) { return basis[last] % width == 0; });
  };
  while (width > 1 && !(aligned(layout.getRegisterBases().drop_front(llvm::Log2_32(width))) &&
                        aligned(layout.getLaneBases()) && aligned(layout.getWarpBases())))
    width /= 2;
  return width;
}

unsigned sharedFastestDim(brickgpu::MemDescType type) {
  if (auto nvmma = dyn_cast<brickgpu::NVMMASharedEncodingAttr>(type.getEncoding()))
    return nvmma.getOrder()[0];
  return cast<brickgpu::SharedEncodingAttr>(type.getEncoding()).getOrder()[0];
}

unsigned sharedRowRunElements(brickgpu::MemDescType type) {
  if (isa<brickgpu::NVMMASharedEncodingAttr>(type.getEncoding()))
    return 128 / type.getElementType().getIntOrFloatBitWidth();
  auto encoding = cast<brickgpu::SharedEncodingAttr>(type.getEncoding());
  // Rows start aligned to the largest power of two dividing their length; a swizzle keeps `vec` together.
  int64_t rowLength = type.getShape()[sharedFastestDim(type)];
  unsigned rowAlignment = unsigned(rowLength & -rowLength);
  return std::max(1u, encoding.getMaxPhase() > 1 ? std::min(encoding.getVec(), rowAlignment) : rowAlignment);
}

/// The element offset of `coordinate` in a buffer of `type`.
Value emitSharedOffset(OpBuilder &b, Location loc, ArrayRef<Value> coordinate, brickgpu::MemDescType type) {
  if (auto nvmma = dyn_cast<brickgpu::NVMMASharedEncodingAttr>(type.getEncoding())) {
    // Columns of `swizzle` bytes, each whole; in a column, row r's 16-byte groups XOR (r / perPhase) % maxPhase.
    unsigned fast = nvmma.getOrder()[0], slow = nvmma.getOrder()[1];
    int64_t bits = type.getElementType().getIntOrFloatBitWidth();
    int64_t perRow = nvmma.getSwizzle() * 8 / bits, perGroup = 128 / bits;
    int64_t perPhase = 128 / nvmma.getSwizzle(), maxPhase = nvmma.getSwizzle() / 16;
    Value row = coordinate[slow], c = coordinate[fast];
    Value column = LLVM::UDivOp::create(b, loc, c, i32Constant(b, loc, perRow));
    Value inRow = LLVM::URemOp::create(b, loc, c, i32Constant(b, loc, perRow));
    Value phase = LLVM::URemOp::create(b, loc, LLVM::UDivOp::create(b, loc, row, i32Constant(b, loc, perPhase)),
                                       i32Constant(b, loc, maxPhase));
    Value group = LLVM::XOrOp::create(b, loc, LLVM::UDivOp::create(b, loc, inRow, i32Constant(b, loc, perGroup)), phase);
    Value swizzled = LLVM::AddOp::create(b, loc, LLVM::MulOp::create(b, loc, group, i32Constant(b, loc, perGroup)),
                                         LLVM::URemOp::create(b, loc, inRow, i32Constant(b, loc, perGroup)));
    Value columnStart = LLVM::MulOp::create(b, loc, column, i32Constant(b, loc, type.getShape()[slow] * perRow));
    return LLVM::AddOp::create(
        b, loc, columnStart,
        LLVM::AddOp::create(b, loc, LLVM::MulOp::create(b, loc, row, i32Constant(b, loc, perRow)), swizzled));
  }
  auto encoding = cast<brickgpu::SharedEncodingAttr>(type.getEncoding());
  ArrayRef<unsigned> order = encoding.getOrder();
  ArrayRef<int64_t> shape = type.getShape();
  Value column = coordinate[order[0]];
  int64_t rowLength = shape[order[0]];
  // Every dimension but the fastest makes up the row index.
  Value row = i32Constant(b, loc, 0);
  for (unsigned i = order.size(); i-- > 1;) {
    row = LLVM::MulOp::create(b, loc, row, i32Constant(b, loc, shape[order[i]]));
    row = LLVM::AddOp::create(b, loc, row, coordinate[order[i]]);
  }
  if (encoding.getMaxPhase() > 1) {
    Value phase = LLVM::URemOp::create(b, loc, LLVM::UDivOp::create(b, loc, row, i32Constant(b, loc, encoding.getPerPhase())),
                                       i32Constant(b, loc, encoding.getMaxPhase()));
    Value vec = i32Constant(b, loc, encoding.getVec());
    Value group = LLVM::XOrOp::create(b, loc, LLVM::UDivOp::create(b, loc, column, vec), phase);
    column = LLVM::AddOp::create(b, loc, LLVM::MulOp::create(b, loc, group, vec), LLVM::URemOp::create(b, loc, column, vec));
  }
  return LLVM::AddOp::create(b, loc, LLVM::MulOp::create(b, loc, row, i32Constant(b, loc, rowLength)), column);
}

void emitBarrier(OpBuilder &builder, Location loc, bool allWarps) {
  // In a warp-specialized kernel the block-level code runs on the consumer warps alone (the producers have left):
  // they synchronize among themselves on named barrier 1.
  Operation *parent = builder.getInsertionBlock()->getParentOp();
  auto module = isa<ModuleOp>(parent) ? cast<ModuleOp>(parent) : parent->getParentOfType<ModuleOp>();
  auto producers = module ? module->getAttrOfType<IntegerAttr>("brickgpu.producer_warps") : IntegerAttr();
  if (!producers || allWarps) {
    NVVM::Barrier0Op::create(builder, loc);
    return;
  }
  unsigned consumers = 32 * brickgpu::BrickGPUDialect::getNumWarps(module);
  inlineAsm(builder, loc, {}, {}, "bar.sync 1, " + std::to_string(consumers) + ";", "", /*sideEffects=*/true);
}

Value inlineAsm(OpBuilder &b, Location loc, TypeRange results, ValueRange operands, StringRef text,
                StringRef constraints, bool sideEffects) {
  Type resultType;
  if (results.size() == 1)
    resultType = results.front();
  else if (results.size() > 1)
    resultType = LLVM::LLVMStructType::getLiteral(b.getContext(), SmallVector<Type>(results));
  auto op = LLVM::InlineAsmOp::create(b, loc, resultType ? TypeRange{resultType} : TypeRange{}, operands, text,
                                      constraints, sideEffects, /*is_align_stack=*/false, LLVM::TailCallKind::None,
                                      LLVM::AsmDialectAttr(), ArrayAttr());
  return op.getNumResults() ? op.getResult(0) : Value();
}


std::optional<SmallVector<unsigned>>
mapRegisters(const brickgpu::LinearLayout &from, const brickgpu::LinearLayout &to,
             llvm::function_ref<brickgpu::LinearLayout::Coordinate(const brickgpu::LinearLayout::Coordinate &)> transform) {
  auto agree = [&](ArrayRef<brickgpu::LinearLayout::Coordinate> toBases,
                   ArrayRef<brickgpu::LinearLayout::Coordinate> fromBases) {
    if (toBases.size() != fromBases.size())
      return false;
    for (auto [a, b] : llvm::zip(toBases, fromBases))
      if (transform(a) != b)
        return false;
    return true;
  };
  if (!agree(to.getLaneBases(), from.getLaneBases()) || !agree(to.getWarpBases(), from.getWarpBases()))
    return std::nullopt;
  llvm::DenseMap<ArrayRef<int64_t>, unsigned> fromRegister;
  SmallVector<brickgpu::LinearLayout::Coordinate> fromCoordinates;
  for (unsigned reg = 0; reg < from.getNumRegisters(); ++reg)
    fromCoordinates.push_back(from.registerCoordinate(reg));
  for (unsigned reg = 0; reg < from.getNumRegisters(); ++reg)
    fromRegister.try_emplace(ArrayRef<int64_t>(fromCoordinates[reg]), reg);
  SmallVector<unsigned> mapping;
  for (unsigned reg = 0; reg < to.getNumRegisters(); ++reg) {
    brickgpu::LinearLayout::Coordinate wanted = transform(to.registerCoordinate(reg));
    auto it = fromRegister.find(ArrayRef<int64_t>(wanted));
    if (it == fromRegister.end())
      return std::nullopt;
    mapping.push_back(it->second);
  }
  return mapping;
}

Value bitcastToInt(OpBuilder &builder, Location loc, Value value) {
  Type type = value.getType();
  if (isa<LLVM::LLVMPointerType>(type))
    return LLVM::PtrToIntOp::create(builder, loc, builder.getI64Type(), value);
  if (type.isInteger())
    return value;
  return LLVM::BitcastOp::create(builder, loc, builder.getIntegerType(type.getIntOrFloatBitWidth()), value);
}

Value bitcastFromInt(OpBuilder &builder, Location loc, Value value, Type type) {
  if (value.getType() == type)
    return value;
  if (isa<LLVM::LLVMPointerType>(type))
    return LLVM::IntToPtrOp::create(builder, loc, type, value);
  return LLVM::BitcastOp::create(builder, loc, type, value);
}

Ownership getOwnership(OpBuilder &b, Location loc, Type pointerType) {
  Ownership result;
  auto type = dyn_cast<RankedTensorType>(pointerType);
  if (!type) {
    // A scalar: thread 0 acts for the program.
    result.registerOwned = {true};
    Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
    result.threadOwns = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, tid, i32Constant(b, loc, 0));
    return result;
  }
  brickgpu::LinearLayout layout = brickgpu::getLinearLayout(type);
  auto isZero = [](const brickgpu::LinearLayout::Coordinate &c) { return llvm::all_of(c, [](int64_t x) { return x == 0; }); };
  unsigned duplicateRegisterBits = 0;
  for (auto [bit, basis] : llvm::enumerate(layout.getRegisterBases()))
    if (isZero(basis))
      duplicateRegisterBits |= 1u << bit;
  for (unsigned reg = 0; reg < layout.getNumRegisters(); ++reg)
    result.registerOwned.push_back((reg & duplicateRegisterBits) == 0);
  unsigned laneBits = 0, warpBits = 0;
  for (auto [bit, basis] : llvm::enumerate(layout.getLaneBases()))
    if (isZero(basis))
      laneBits |= 1u << bit;
  for (auto [bit, basis] : llvm::enumerate(layout.getWarpBases()))
    if (isZero(basis))
      warpBits |= 1u << bit;
  if (laneBits || warpBits) {
    ThreadId thread = getThreadId(b, loc);
    Value lanePart = LLVM::AndOp::create(b, loc, thread.lane, i32Constant(b, loc, laneBits));
    Value warpPart = LLVM::AndOp::create(b, loc, thread.warp, i32Constant(b, loc, warpBits));
    Value either = LLVM::OrOp::create(b, loc, lanePart, warpPart);
    result.threadOwns = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, either, i32Constant(b, loc, 0));
  }
  return result;
}

} // namespace mlir::brick::lowering
