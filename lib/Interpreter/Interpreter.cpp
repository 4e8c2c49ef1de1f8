//===- Interpreter.cpp - The grid, the structure ops, blocks, dot and reduce --------------===//

#include "brick/Interpreter/Interpreter.h"

#include "Engine.h"

#include "brick/Dialect/Brick/BrickDialect.h"
#include "brick/Support/Float8.h"
#include "brick/Support/HalfFloat.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Format.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>

using namespace mlir;

namespace brick::interpreter {

namespace detail {

llvm::SmallVector<int64_t, 2> shapeOf(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return llvm::SmallVector<int64_t, 2>(tensor.getShape());
  return {};
}

int64_t elementCount(llvm::ArrayRef<int64_t> shape) {
  return std::accumulate(shape.begin(), shape.end(), int64_t(1), std::multiplies<int64_t>());
}

double roundToFloat(double value, Type type) {
  if (type.isF64())
    return value;
  if (isa<Float8E4M3FNType>(type)) // from f32 or narrower only (the DSL converts f64 through f32)
    return float8::decode(float8::e4m3fn, float8::encode(float8::e4m3fn, value));
  if (isa<Float8E5M2Type>(type))
    return float8::decode(float8::e5m2, float8::encode(float8::e5m2, value));
  float single = float(value);
  if (!type.isF16() && !type.isBF16())
    return single;
  // Rounded to odd (the float on the exact value's side whose last bit is 1, where the nearest one is not exact
  // and even): 24 bits then round once more to 11 or 8 as if from the exact value. (Past the largest float, the
  // nearest is infinity and the odd one is the largest float, which is past the largest f16 and bf16 too.)
  uint32_t bits;
  std::memcpy(&bits, &single, 4);
  if (!std::isnan(value) && double(single) != value && !(bits & 1))
    single = std::nextafter(single, value > double(single) ? INFINITY : -INFINITY);
  return type.isF16() ? halfToFloat(floatToHalf(single)) : bf16ToFloat(floatToBf16(single));
}

double towardOdd(double value, int direction) {
  uint64_t bits;
  std::memcpy(&bits, &value, 8);
  if (direction == 0 || !std::isfinite(value) || (bits & 1))
    return value;
  return std::nextafter(value, direction > 0 ? INFINITY : -INFINITY);
}

unsigned memoryBytes(Type elementType) {
  if (isa<mlir::brick::PointerType>(elementType))
    return 8;
  return std::max(8u, elementType.getIntOrFloatBitWidth()) / 8;
}

unsigned integerBits(Type elementType) {
  if (auto integer = dyn_cast<IntegerType>(elementType))
    return integer.getWidth();
  return 64; // pointers, index
}

const Block &Program::get(Value value) const {
  auto found = values_.find(value);
  if (found == values_.end())
    llvm::report_fatal_error("brick interpreter: a value is used before the interpreter computed it");
  return found->second;
}

std::vector<Block> Program::getAll(ValueRange values) const {
  std::vector<Block> blocks;
  for (Value value : values)
    blocks.push_back(get(value));
  return blocks;
}

void Program::setAll(ValueRange targets, std::vector<Block> blocks) {
  for (auto [target, block] : llvm::zip(targets, blocks))
    set(target, std::move(block));
}

std::string Program::coordinates(llvm::ArrayRef<int64_t> shape, int64_t index) {
  llvm::SmallVector<int64_t, 4> coordinate(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    coordinate[d] = index % shape[d];
    index /= shape[d];
  }
  std::string text = "(";
  for (size_t d = 0; d < coordinate.size(); ++d)
    text += (d ? ", " : "") + std::to_string(coordinate[d]);
  return text + ")";
}

llvm::Error Program::error(Operation *op, const llvm::Twine &message) const {
  std::string where;
  if (auto fileLoc = op->getLoc()->findInstanceOf<FileLineColLoc>())
    where = (fileLoc.getFilename().str() + ":" + std::to_string(fileLoc.getLine()) + ":" +
             std::to_string(fileLoc.getColumn()));
  else
    llvm::raw_string_ostream(where) << op->getLoc();
  return llvm::createStringError(where + ": error: " + message.str() + " [program (" + std::to_string(id[0]) + ", " +
                                 std::to_string(id[1]) + ", " + std::to_string(id[2]) + ")]");
}

namespace {

/// A block of `shape` whose element i is element `sourceIndex(i)` of `source`.
template <class F> Block gather(const Block &source, llvm::ArrayRef<int64_t> shape, F sourceIndex) {
  size_t n = size_t(elementCount(shape));
  Block result{llvm::SmallVector<int64_t, 2>(shape), {}, {}};
  if (source.isReal()) {
    result.reals.resize(n);
    for (size_t i = 0; i < n; ++i)
      result.reals[i] = source.reals[sourceIndex(i)];
  } else {
    result.ints.resize(n);
    for (size_t i = 0; i < n; ++i)
      result.ints[i] = source.ints[sourceIndex(i)];
  }
  return result;
}

llvm::SmallVector<int64_t, 4> stridesOf(llvm::ArrayRef<int64_t> shape) {
  llvm::SmallVector<int64_t, 4> strides(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;)
    strides[d - 1] = strides[d] * shape[d];
  return strides;
}

Block broadcast(const Block &source, llvm::ArrayRef<int64_t> shape) {
  if (source.shape.empty()) // a scalar (splat)
    return gather(source, shape, [](size_t) { return size_t(0); });
  llvm::SmallVector<int64_t, 4> sourceStrides = stridesOf(source.shape);
  for (size_t d = 0; d < shape.size(); ++d)
    if (source.shape[d] == 1)
      sourceStrides[d] = 0;
  return gather(source, shape, [&](size_t i) {
    size_t index = 0;
    for (size_t d = shape.size(); d-- > 0;) {
      index += (i % shape[d]) * sourceStrides[d];
      i /= shape[d];
    }
    return index;
  });
}

Block transpose(const Block &source, llvm::ArrayRef<int32_t> order, llvm::ArrayRef<int64_t> shape) {
  llvm::SmallVector<int64_t, 4> sourceStrides = stridesOf(source.shape);
  return gather(source, shape, [&](size_t i) {
    size_t index = 0;
    for (size_t d = shape.size(); d-- > 0;) {
      index += (i % shape[d]) * sourceStrides[order[d]];
      i /= shape[d];
    }
    return index;
  });
}

/// float32 -> tf32 as cvt.rna.tf32.f32 does: 10 mantissa bits, ties away from zero.
double toTf32(double value) {
  float f = float(value);
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  if ((bits & 0x7f800000) != 0x7f800000)
    bits = (bits + 0x1000) & ~0x1fffu;
  std::memcpy(&f, &bits, 4);
  return f;
}

} // namespace

llvm::Expected<Operation *> Program::runBlock(mlir::Block &block) {
  for (Operation &op : block) {
    if (op.hasTrait<OpTrait::IsTerminator>())
      return &op;
    if (llvm::Error error = runOp(&op))
      return std::move(error);
  }
  return nullptr;
}

llvm::Error Program::runOp(Operation *op) {
  if (std::optional<llvm::Error> done = runArithmetic(*this, op))
    return std::move(*done);
  if (std::optional<llvm::Error> done = runMemory(*this, op))
    return std::move(*done);

  auto single = [&](Type type, auto value) {
    if constexpr (std::is_floating_point_v<decltype(value)>)
      return Block::ofReals({}, {roundToFloat(value, type)});
    else
      return Block::ofInts({}, {wrapInteger(int64_t(value), integerBits(type))});
  };
  if (auto pid = dyn_cast<mlir::brick::ProgramIdOp>(op)) {
    set(pid, single(pid.getType(), id[pid.getAxis()]));
    return llvm::Error::success();
  }
  if (auto count = dyn_cast<mlir::brick::NumProgramsOp>(op)) {
    set(count, single(count.getType(), grid[count.getAxis()]));
    return llvm::Error::success();
  }
  if (auto rank = dyn_cast<mlir::brick::ClusterRankOp>(op)) {
    set(rank, single(rank.getType(), id[0] % options.clusterSize));
    return llvm::Error::success();
  }
  if (auto size = dyn_cast<mlir::brick::ClusterSizeOp>(op)) {
    set(size, single(size.getType(), options.clusterSize));
    return llvm::Error::success();
  }
  if (auto shared = dyn_cast<mlir::brick::ClusterSharedOp>(op))
    return runClusterShared(shared);
  if (auto range = dyn_cast<mlir::brick::MakeRangeOp>(op)) {
    std::vector<int64_t> values(range.getEndValue() - range.getStartValue());
    std::iota(values.begin(), values.end(), range.getStartValue());
    set(range, Block::ofInts(shapeOf(range.getType()), std::move(values)));
    return llvm::Error::success();
  }
  if (isa<mlir::brick::SplatOp, mlir::brick::BroadcastOp>(op)) {
    set(op->getResult(0), broadcast(get(op->getOperand(0)), shapeOf(op->getResult(0).getType())));
    return llvm::Error::success();
  }
  if (isa<mlir::brick::ExpandDimsOp, mlir::brick::ReshapeOp>(op)) { // row-major: the same elements, another shape
    Block block = get(op->getOperand(0));
    block.shape = shapeOf(op->getResult(0).getType());
    set(op->getResult(0), std::move(block));
    return llvm::Error::success();
  }
  if (auto gatherOp = dyn_cast<mlir::brick::GatherOp>(op)) {
    const Block &source = get(gatherOp.getSrc()), &indices = get(gatherOp.getIndices());
    llvm::SmallVector<int64_t, 2> sourceShape = shapeOf(gatherOp.getSrc().getType());
    llvm::SmallVector<int64_t, 2> shape = shapeOf(gatherOp.getType());
    unsigned axis = gatherOp.getAxis();
    unsigned bits = integerBits(getElementTypeOrSelf(gatherOp.getIndices().getType()));
    auto resultStrides = stridesOf(shape), sourceStrides = stridesOf(sourceShape);
    for (size_t i = 0; i < indices.ints.size(); ++i) {
      int64_t index = asSigned(indices.ints[i], bits);
      if (index < 0 || index >= sourceShape[axis])
        return error(op, "gather: index " + std::to_string(index) + " is outside [0, " +
                             std::to_string(sourceShape[axis]) + ") along axis " + std::to_string(axis) +
                             " (element " + std::to_string(i) + " of the indices)");
    }
    set(gatherOp, gather(source, shape, [&](size_t i) {
      size_t at = 0;
      for (size_t d = 0; d < shape.size(); ++d) {
        int64_t c = int64_t(i) / resultStrides[d] % shape[d];
        if (d == axis)
          c = asSigned(indices.ints[i], bits);
        at += size_t(c * sourceStrides[d]);
      }
      return at;
    }));
    return llvm::Error::success();
  }
  if (auto trans = dyn_cast<mlir::brick::TransOp>(op)) {
    set(trans, transpose(get(trans.getSrc()), trans.getOrder(), shapeOf(trans.getType())));
    return llvm::Error::success();
  }
  if (auto addptr = dyn_cast<mlir::brick::AddPtrOp>(op)) {
    const Block &pointers = get(addptr.getPtr()), &offsets = get(addptr.getOffset());
    auto pointee = cast<mlir::brick::PointerType>(getElementTypeOrSelf(addptr.getType())).getPointeeType();
    int64_t bytes = memoryBytes(pointee);
    unsigned offsetBits = integerBits(getElementTypeOrSelf(addptr.getOffset().getType()));
    Block result = pointers;
    for (size_t i = 0; i < result.ints.size(); ++i) {
      int64_t offset = asSigned(at(offsets.ints, i), offsetBits);
      result.ints[i] = int64_t(uint64_t(result.ints[i]) + uint64_t(offset) * uint64_t(bytes));
    }
    set(addptr, std::move(result));
    return llvm::Error::success();
  }
  if (auto dot = dyn_cast<mlir::brick::DotOp>(op))
    return runDot(dot);
  if (auto reduce = dyn_cast<mlir::brick::ReduceOp>(op))
    return runReduce(reduce);
  if (auto scan = dyn_cast<mlir::brick::ScanOp>(op))
    return runScan(scan);
  if (auto forOp = dyn_cast<scf::ForOp>(op))
    return runFor(forOp);
  if (auto ifOp = dyn_cast<scf::IfOp>(op))
    return runIf(ifOp);
  if (auto whileOp = dyn_cast<scf::WhileOp>(op))
    return runWhile(whileOp);
  if (isa<mlir::brick::InlineAsmElementwiseOp>(op))
    return error(op, "inline_asm_elementwise runs PTX, which only a GPU can: the interpreter cannot run this kernel "
                     "(compute the same values with the DSL's ops here, or run it on the GPU)");
  if (auto hint = dyn_cast<mlir::brick::HintOp>(op)) {
    const Block &x = get(hint.getSrc());
    if (std::optional<std::string> wrong = falseHint(hint, x))
      return error(op, *wrong + " (a hint holds for every element, masked-off ones too: a masked load's `other` "
                                "must keep it)");
    set(hint.getResult(), x);
    return llvm::Error::success();
  }
  if (auto assume = dyn_cast<mlir::brick::AssumeOp>(op)) {
    const Block &condition = get(assume.getCondition());
    for (size_t i = 0; i < condition.ints.size(); ++i)
      if (!condition.ints[i])
        return error(op, std::string("assume: the condition is false") +
                             (condition.shape.empty() ? "" : " at element " + coordinates(condition.shape, i)));
    return llvm::Error::success();
  }
  if (auto assertOp = dyn_cast<mlir::brick::AssertOp>(op)) {
    const Block &condition = get(assertOp.getCondition());
    for (size_t i = 0; i < condition.ints.size(); ++i)
      if (!condition.ints[i])
        return error(op, "assertion failed: " + assertOp.getMessage() +
                             (condition.shape.empty() ? "" : " (element " + coordinates(condition.shape, i) + ")"));
    return llvm::Error::success();
  }
  if (auto print = dyn_cast<mlir::brick::PrintOp>(op))
    return runPrint(print);
  return error(op, "the interpreter cannot run '" + op->getName().getStringRef() + "'");
}

/// Why a brick.hint states something false of `x` (the axis analysis's meaning: brick/Analysis/AxisInfo.h), or
/// nothing when it holds. Runs are aligned groups along one dimension; a run's first element carries the
/// divisibility (every element does where the value does not increase by one along the dimension).
std::optional<std::string> Program::falseHint(mlir::brick::HintOp hint, const Block &x) const {
  llvm::SmallVector<int64_t, 2> shape(x.shape.begin(), x.shape.end());
  if (shape.empty())
    shape.push_back(1);
  size_t rank = shape.size();
  llvm::SmallVector<int64_t, 2> strides(rank, 1);
  for (size_t d = rank - 1; d > 0; --d)
    strides[d - 1] = strides[d] * shape[d];
  auto stated = [](std::optional<llvm::ArrayRef<int64_t>> values, size_t d) -> int64_t {
    return values && d < values->size() ? (*values)[d] : 1;
  };
  for (size_t d = 0; d < rank; ++d) {
    int64_t divisor = stated(hint.getDivisibility(), d), run = stated(hint.getContiguity(), d),
            same = stated(hint.getConstancy(), d);
    for (size_t i = 0; i < x.ints.size(); ++i) {
      int64_t position = (int64_t(i) / strides[d]) % shape[d];
      bool follows = position > 0 && x.ints[i] == x.ints[i - strides[d]] + 1;
      auto at = [&] { return x.shape.empty() ? std::string() : " at element " + coordinates(x.shape, i); };
      if (divisor > 1 && !follows && x.ints[i] % divisor != 0)
        return "hint: divisibility " + std::to_string(divisor) + " along dimension " + std::to_string(d) +
               " is false: " + std::to_string(x.ints[i]) + at();
      if (run > 1 && position % run != 0 && !follows)
        return "hint: contiguity " + std::to_string(run) + " along dimension " + std::to_string(d) +
               " is false: " + std::to_string(x.ints[i]) + at() + " does not follow " +
               std::to_string(x.ints[i - strides[d]]);
      if (same > 1 && position % same != 0 && x.ints[i] != x.ints[i - strides[d]])
        return "hint: constancy " + std::to_string(same) + " along dimension " + std::to_string(d) +
               " is false: " + std::to_string(x.ints[i]) + at() + " differs from " +
               std::to_string(x.ints[i - strides[d]]);
    }
  }
  return std::nullopt;
}

llvm::Error Program::runDot(mlir::brick::DotOp dot) {
  const Block &a = get(dot.getA()), &b = get(dot.getB()), &c = get(dot.getC());
  // [batch,] m x k times [batch,] k x n: one product per batch index.
  bool batched = a.shape.size() == 3;
  int64_t batches = batched ? a.shape[0] : 1;
  int64_t m = a.shape[batched], k = a.shape[batched + 1], n = b.shape[batched + 1];
  Type accumulator = getElementTypeOrSelf(dot.getType());
  // The promise that a's rows at or past zero_rows_from are zero (the GPU may skip their products): checked.
  // Those rows of the result are unspecified: a float result gets NaN there (below), so reading them shows.
  int64_t unspecifiedFrom = m;
  if (mlir::Value zeroRowsFrom = dot.getZeroRowsFrom()) {
    int64_t from = std::max<int64_t>(0, get(zeroRowsFrom).ints[0]);
    unspecifiedFrom = std::min(from, m);
    for (int64_t i = from; i < m; ++i)
      for (int64_t p = 0; p < k; ++p)
        if (a.isReal() ? a.reals[i * k + p] != 0 : a.ints[i * k + p] != 0)
          return error(dot, "dot: a's row " + llvm::Twine(i) + " (column " + llvm::Twine(p) +
                                ") is not zero, but the dot was promised that rows from " + llvm::Twine(from) +
                                " on are (ZeroRowsFrom)");
  }
  Block d{c.shape, {}, {}};
  if (!c.isReal()) { // i8 x i8 -> i32, wrapping
    d.ints.resize(batches * m * n);
    for (int64_t q = 0; q < batches; ++q)
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          int64_t sum = c.ints[(q * m + i) * n + j];
          for (int64_t p = 0; p < k; ++p)
            sum += a.ints[(q * m + i) * k + p] * b.ints[(q * k + p) * n + j];
          d.ints[(q * m + i) * n + j] = wrapInteger(sum, integerBits(accumulator));
        }
    set(dot, std::move(d));
    return llvm::Error::success();
  }
  // Products of f16/bf16/tf32 inputs are exact in double; the sum is rounded once, to the accumulator's type.
  bool tf32 = dot.getInputPrecision() == mlir::brick::InputPrecision::tf32 && getElementTypeOrSelf(dot.getA().getType()).isF32();
  std::vector<double> left = a.reals, right = b.reals;
  if (tf32) {
    for (double &v : left)
      v = toTf32(v);
    for (double &v : right)
      v = toTf32(v);
  }
  d.reals.resize(batches * m * n);
  for (int64_t q = 0; q < batches; ++q)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = c.reals[(q * m + i) * n + j];
        for (int64_t p = 0; p < k; ++p)
          sum += left[(q * m + i) * k + p] * right[(q * k + p) * n + j];
        d.reals[(q * m + i) * n + j] =
            i < unspecifiedFrom ? roundToFloat(sum, accumulator) : std::numeric_limits<double>::quiet_NaN();
      }
  set(dot, std::move(d));
  return llvm::Error::success();
}

// A tree: the combiner runs once per level, on whole halves of the axis at once (element j with element
// j + half), so a 1024-element reduction costs 10 runs of the combiner's ops, each over a block.
llvm::Error Program::runReduce(mlir::brick::ReduceOp reduce) {
  auto sources = reduce.getSrcs();
  llvm::SmallVector<int64_t, 2> shape = shapeOf(sources[0].getType());
  unsigned axis = reduce.getAxis();
  int64_t outer = elementCount(llvm::ArrayRef<int64_t>(shape).take_front(axis)), length = shape[axis],
          inner = elementCount(llvm::ArrayRef<int64_t>(shape).drop_front(axis + 1));
  std::vector<Block> current = getAll(sources);
  mlir::Block &combiner = reduce.getCombiner().front();
  size_t count = sources.size();
  while (length > 1) {
    int64_t half = length / 2;
    llvm::SmallVector<int64_t, 2> halfShape = {outer * half * inner};
    for (size_t k = 0; k < count; ++k) {
      auto index = [&](size_t i, int64_t shift) {
        int64_t o = int64_t(i) / (half * inner), rest = int64_t(i) % (half * inner);
        return size_t(o * length * inner + rest + shift * inner);
      };
      set(combiner.getArgument(k), gather(current[k], halfShape, [&](size_t i) { return index(i, 0); }));
      set(combiner.getArgument(count + k), gather(current[k], halfShape, [&](size_t i) { return index(i, half); }));
    }
    auto terminator = runBlock(combiner);
    if (!terminator)
      return terminator.takeError();
    for (size_t k = 0; k < count; ++k) {
      const Block &combined = get((*terminator)->getOperand(k));
      current[k] = combined.size() == 1 ? broadcast(Block{{}, combined.ints, combined.reals}, halfShape) : combined;
      current[k].shape = halfShape;
    }
    length = half;
  }
  for (size_t k = 0; k < count; ++k) {
    current[k].shape = shapeOf(reduce.getResult(k).getType());
    set(reduce.getResult(k), std::move(current[k]));
  }
  return llvm::Error::success();
}

// Hillis and Steele: after the step with distance d, element i holds the combination of the 2d elements ending
// at i (in scan order), so log2(length) runs of the combiner's ops, each over a whole block, scan the axis. The
// earlier elements are always the combiner's first operands: the order of a non-commutative combiner is kept.
llvm::Error Program::runScan(mlir::brick::ScanOp scan) {
  auto sources = scan.getSrcs();
  llvm::SmallVector<int64_t, 2> shape = shapeOf(sources[0].getType());
  unsigned axis = scan.getAxis();
  int64_t outer = elementCount(llvm::ArrayRef<int64_t>(shape).take_front(axis)), length = shape[axis],
          inner = elementCount(llvm::ArrayRef<int64_t>(shape).drop_front(axis + 1));
  bool reverse = scan.getReverse();
  std::vector<Block> current = getAll(sources);
  mlir::Block &combiner = scan.getCombiner().front();
  size_t count = sources.size();
  for (int64_t d = 1; d < length; d *= 2) {
    // The elements that change: d..length-1 in scan order, each with the one d before it.
    int64_t changing = length - d;
    llvm::SmallVector<int64_t, 2> partShape = {outer * changing * inner};
    auto index = [&](size_t i, int64_t back) { // element i of the changing part, or the one `back` before it
      int64_t o = int64_t(i) / (changing * inner), rest = int64_t(i) % (changing * inner);
      int64_t position = d + rest / inner - back, within = rest % inner;
      if (reverse)
        position = length - 1 - position;
      return size_t((o * length + position) * inner + within);
    };
    for (size_t k = 0; k < count; ++k) {
      set(combiner.getArgument(k), gather(current[k], partShape, [&](size_t i) { return index(i, d); }));
      set(combiner.getArgument(count + k), gather(current[k], partShape, [&](size_t i) { return index(i, 0); }));
    }
    auto terminator = runBlock(combiner);
    if (!terminator)
      return terminator.takeError();
    for (size_t k = 0; k < count; ++k) {
      const Block &combined = get((*terminator)->getOperand(k));
      Block part = combined.size() == 1 ? broadcast(Block{{}, combined.ints, combined.reals}, partShape) : combined;
      for (size_t i = 0; i < size_t(partShape[0]); ++i) {
        if (part.isReal())
          current[k].reals[index(i, 0)] = part.reals[i];
        else
          current[k].ints[index(i, 0)] = part.ints[i];
      }
    }
  }
  for (size_t k = 0; k < count; ++k) {
    current[k].shape = shape;
    set(scan.getResult(k), std::move(current[k]));
  }
  return llvm::Error::success();
}

llvm::Error Program::runFor(scf::ForOp loop) {
  Type inductionType = loop.getInductionVar().getType();
  unsigned bits = integerBits(inductionType);
  // The bounds as the loop compares them: signed, or unsigned (`scf.for unsigned`: a negative lower bound is then
  // above a small upper one, and the loop runs no trip). Counted in 128 bits, so that no step can wrap.
  bool isUnsigned = loop.getUnsignedCmp();
  auto bound = [&](Value v) -> __int128 {
    int64_t raw = get(v).ints[0];
    return isUnsigned ? __int128(asUnsigned(raw, bits)) : __int128(asSigned(raw, bits));
  };
  __int128 lower = bound(loop.getLowerBound()), upper = bound(loop.getUpperBound()), step = bound(loop.getStep());
  if (step <= 0 && lower < upper)
    return error(loop, "a for loop with step " + std::to_string(int64_t(step)) + " would never end");
  std::vector<Block> carried = getAll(loop.getInitArgs());
  for (__int128 i = lower; i < upper; i += step) {
    set(loop.getInductionVar(), Block::ofInts({}, {wrapInteger(int64_t(i), bits)}));
    setAll(loop.getRegionIterArgs(), std::move(carried));
    auto terminator = runBlock(*loop.getBody());
    if (!terminator)
      return terminator.takeError();
    carried = getAll((*terminator)->getOperands());
  }
  setAll(loop.getResults(), std::move(carried));
  return llvm::Error::success();
}

llvm::Error Program::runIf(scf::IfOp branch) {
  bool taken = get(branch.getCondition()).ints[0];
  Region &region = taken ? branch.getThenRegion() : branch.getElseRegion();
  if (region.empty())
    return llvm::Error::success();
  auto terminator = runBlock(region.front());
  if (!terminator)
    return terminator.takeError();
  setAll(branch.getResults(), getAll((*terminator)->getOperands()));
  return llvm::Error::success();
}

llvm::Error Program::runWhile(scf::WhileOp loop) {
  std::vector<Block> carried = getAll(loop.getInits());
  while (true) {
    setAll(loop.getBeforeArguments(), std::move(carried));
    auto condition = runBlock(loop.getBefore().front());
    if (!condition)
      return condition.takeError();
    auto conditionOp = cast<scf::ConditionOp>(*condition);
    carried = getAll(conditionOp.getArgs());
    if (!get(conditionOp.getCondition()).ints[0])
      break;
    setAll(loop.getAfterArguments(), std::move(carried));
    auto yield = runBlock(loop.getAfter().front());
    if (!yield)
      return yield.takeError();
    carried = getAll((*yield)->getOperands());
  }
  setAll(loop.getResults(), std::move(carried));
  return llvm::Error::success();
}

llvm::Error Program::runClusterShared(mlir::brick::ClusterSharedOp shared) {
  if (!cluster)
    return llvm::Error::success();
  ClusterPromises::Visit visit{(get(shared.getWhen()).ints[0] & 1) != 0, {}};
  for (Value index : shared.getIndices())
    visit.indices.push_back(asSigned(get(index).ints[0], 32));
  size_t time = cluster->seen[shared]++;
  unsigned rank = id[0] % options.clusterSize;
  std::vector<ClusterPromises::Visit> &visits = cluster->first[shared];
  if (rank == 0) {
    visits.push_back(std::move(visit));
    return llvm::Error::success();
  }
  auto list = [](llvm::ArrayRef<int64_t> values) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "[";
    llvm::interleaveComma(values, os);
    os << "]";
    return text;
  };
  std::string prefix = "a block shared by the cluster (sharedByCluster): ";
  std::string firstProgram = "the cluster's first program " + firstOfCluster();
  if (time >= visits.size())
    return visitCountError(shared, "reads", time + 1, visits.size());
  const ClusterPromises::Visit &expected = visits[time];
  std::string when = " (read " + std::to_string(time + 1) + " of it here)";
  if (visit.when != expected.when)
    return error(shared, prefix + "its condition is " + (visit.when ? "true" : "false") + " here and " +
                             (expected.when ? "true" : "false") + " for " + firstProgram + when);
  if (visit.when && visit.indices != expected.indices)
    return error(shared, prefix + "this program reads the block at " + list(visit.indices) + ", " + firstProgram +
                             " at " + list(expected.indices) + when);
  return llvm::Error::success();
}

llvm::Error Program::visitCountError(Operation *op, llvm::StringRef verb, size_t times, size_t firstTimes) const {
  return error(op, "a block shared by the cluster (sharedByCluster): this program " + verb + " it here " +
                       std::to_string(times) + " times, the cluster's first program " + firstOfCluster() + " " +
                       std::to_string(firstTimes) + ": the cluster's programs must run the loops around it as many "
                       "times");
}

std::string Program::firstOfCluster() const {
  return "(" + std::to_string(id[0] - id[0] % options.clusterSize) + ", " + std::to_string(id[1]) + ", " +
         std::to_string(id[2]) + ")";
}

llvm::Error Program::checkClusterVisits() const {
  if (!cluster || id[0] % options.clusterSize == 0)
    return llvm::Error::success();
  for (auto &[op, visits] : cluster->first) {
    auto seen = cluster->seen.find(op);
    size_t times = seen == cluster->seen.end() ? 0 : seen->second;
    if (times < visits.size())
      return visitCountError(op, "read", times, visits.size());
  }
  return llvm::Error::success();
}

// The GPU's format: "<prefix>pid (x, y, z) idx (i, j) <value>", one line per element.
llvm::Error Program::runPrint(mlir::brick::PrintOp print) {
  llvm::raw_ostream &out = *options.printStream;
  std::string pid = "pid (" + std::to_string(id[0]) + ", " + std::to_string(id[1]) + ", " + std::to_string(id[2]) + ")";
  if (print.getArgs().empty()) {
    out << print.getPrefix() << "\n";
    return llvm::Error::success();
  }
  for (Value argument : print.getArgs()) {
    const Block &block = get(argument);
    Type element = getElementTypeOrSelf(argument.getType());
    for (size_t i = 0; i < block.size(); ++i) {
      out << print.getPrefix() << pid;
      if (!block.shape.empty())
        out << " idx " << coordinates(block.shape, i);
      out << " ";
      if (block.isReal())
        out << llvm::format("%f", block.reals[i]);
      else if (print.getHex() || isa<mlir::brick::PointerType>(element))
        out << llvm::format_hex(asUnsigned(block.ints[i], integerBits(element)), 2);
      else if (integerBits(element) == 1) // a boolean: 1 for true, as C and the GPU print it
        out << (block.ints[i] & 1);
      else
        out << asSigned(block.ints[i], integerBits(element));
      out << "\n";
    }
  }
  return llvm::Error::success();
}

} // namespace detail

func::FuncOp findKernel(ModuleOp module) {
  func::FuncOp kernel;
  module.walk([&](func::FuncOp function) {
    if (function->hasAttr("brick.kernel") && !kernel)
      kernel = function;
  });
  return kernel;
}

llvm::Error run(func::FuncOp kernel, std::array<unsigned, 3> grid, llvm::ArrayRef<Argument> args, const Options &options) {
  using detail::Block;
  std::string name = kernel.getName().str();
  if (kernel.getNumArguments() != args.size())
    return llvm::createStringError("kernel '" + name + "' takes " + std::to_string(kernel.getNumArguments()) +
                                   " arguments; the interpreter was given " + std::to_string(args.size()));
  std::vector<Block> parameters;
  for (auto [index, argument] : llvm::enumerate(args)) {
    Type type = kernel.getArgument(index).getType();
    auto mismatch = [&, index = index](const char *wanted) {
      return llvm::createStringError("kernel '" + name + "': parameter " + std::to_string(index) + " is " + wanted +
                                     ", the argument is not");
    };
    if (isa<mlir::brick::PointerType>(type)) {
      if (argument.kind != Argument::Kind::Pointer)
        return mismatch("a pointer");
      parameters.push_back(Block::ofInts({}, {int64_t(argument.pointer)}));
    } else if (isa<FloatType>(type)) {
      if (argument.kind == Argument::Kind::Pointer)
        return mismatch("a number");
      double value = argument.kind == Argument::Kind::Float ? argument.real : double(argument.integer);
      parameters.push_back(Block::ofReals({}, {detail::roundToFloat(value, type)}));
    } else if (isa<IntegerType>(type)) {
      if (argument.kind != Argument::Kind::Integer)
        return mismatch("an integer");
      parameters.push_back(Block::ofInts({}, {detail::wrapInteger(argument.integer, detail::integerBits(type))}));
    } else if (isa<mlir::brick::TensorMapType>(type)) {
      parameters.push_back(Block::ofInts({}, {0})); // read only by TMA code, which the interpreter never runs
    } else {
      return llvm::createStringError("kernel '" + name + "': the interpreter cannot pass a parameter of this type");
    }
  }
  mlir::Block &body = kernel.getBody().front();
  // Programs run one after the other, a cluster's (consecutive along x) together.
  detail::ClusterPromises promises;
  bool clustered = options.clusterSize > 1;
  for (unsigned z = 0; z < grid[2]; ++z)
    for (unsigned y = 0; y < grid[1]; ++y)
      for (unsigned x = 0; x < grid[0]; ++x) {
        if (clustered && x % options.clusterSize == 0)
          promises.first.clear();
        promises.seen.clear();
        detail::Program program({x, y, z}, grid, options, clustered ? &promises : nullptr);
        program.setAll(body.getArguments(), parameters);
        auto terminator = program.runBlock(body);
        if (!terminator)
          return terminator.takeError();
        if (llvm::Error error = program.checkClusterVisits())
          return error;
      }
  return llvm::Error::success();
}

} // namespace brick::interpreter
