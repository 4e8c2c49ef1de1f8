//===- AxisInfo.cpp - Transfer functions of the axis-info dataflow analysis ----===//

#include "brick/Analysis/AxisInfo.h"

#include "brick/Dialect/BrickGPU/BrickGPUDialect.h"

#include "mlir/Analysis/DataFlow/ConstantPropagationAnalysis.h"
#include "mlir/Analysis/DataFlow/DeadCodeAnalysis.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

#include <numeric>

using namespace mlir;
using namespace mlir::brick;
using dataflow::Lattice;

namespace {
/// Divisibility beyond this says nothing more; it also stands for "divisible by anything" (zero).
constexpr int64_t kMaxDivisibility = int64_t(1) << 30;

int64_t powerOfTwoDivisor(int64_t value) {
  if (value == 0)
    return kMaxDivisibility;
  uint64_t magnitude = value < 0 ? -static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
  return std::min<int64_t>(static_cast<int64_t>(magnitude & -magnitude), kMaxDivisibility);
}

unsigned rankOf(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getRank() > 0 ? tensor.getRank() : 1;
}

SmallVector<int64_t, 4> shapeOf(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || tensor.getRank() == 0)
    return {1};
  return SmallVector<int64_t, 4>(tensor.getShape());
}

AxisInfo::Vector filled(unsigned rank, int64_t value) { return AxisInfo::Vector(rank, value); }

/// Bytes per element that pointers of this type step by (1 for integers).
int64_t elementBytes(Type pointerLike) {
  auto pointer = dyn_cast<PointerType>(getElementTypeOrSelf(pointerLike));
  if (!pointer || !pointer.getPointeeType().isIntOrFloat())
    return 1;
  return std::max<int64_t>(1, pointer.getPointeeType().getIntOrFloatBitWidth() / 8);
}

/// The divisibility that holds of every element, not just of the first of each contiguous run.
int64_t everyElementDivisibility(const AxisInfo &info) {
  int64_t result = kMaxDivisibility;
  for (unsigned d = 0; d < info.getRank(); ++d)
    result = std::min(result, info.getContiguity(d) > 1 ? int64_t(1) : info.getDivisibility(d));
  return result;
}

/// a + b (pointer + offset when `scale` is the pointee's size in bytes).
AxisInfo add(const AxisInfo &a, const AxisInfo &b, int64_t scale, bool isSubtraction) {
  unsigned rank = a.getRank();
  AxisInfo::Vector contiguity(rank), divisibility(rank), constancy(rank);
  for (unsigned d = 0; d < rank; ++d) {
    // A run of +1 steps plus a constant stays a run; a constant minus a run does not.
    contiguity[d] = std::min(a.getContiguity(d), b.getConstancy(d));
    if (!isSubtraction)
      contiguity[d] = std::max(contiguity[d], std::min(b.getContiguity(d), a.getConstancy(d)));
    divisibility[d] = std::gcd(a.getDivisibility(d), std::min(b.getDivisibility(d) * scale, kMaxDivisibility));
    constancy[d] = std::gcd(a.getConstancy(d), b.getConstancy(d));
  }
  std::optional<int64_t> constant;
  if (a.getConstantValue() && b.getConstantValue() && scale == 1)
    constant = isSubtraction ? *a.getConstantValue() - *b.getConstantValue()
                             : *a.getConstantValue() + *b.getConstantValue();
  return AxisInfo(contiguity, divisibility, constancy, constant);
}

AxisInfo multiply(const AxisInfo &a, const AxisInfo &b) {
  unsigned rank = a.getRank();
  AxisInfo::Vector contiguity(rank, 1), divisibility(rank), constancy(rank);
  int64_t divisor = std::min(everyElementDivisibility(a) * everyElementDivisibility(b), kMaxDivisibility);
  for (unsigned d = 0; d < rank; ++d) {
    if (b.getConstantValue() == 1)
      contiguity[d] = a.getContiguity(d);
    else if (a.getConstantValue() == 1)
      contiguity[d] = b.getContiguity(d);
    divisibility[d] = contiguity[d] > 1 ? std::gcd(a.getDivisibility(d), b.getDivisibility(d)) : divisor;
    constancy[d] = std::gcd(a.getConstancy(d), b.getConstancy(d));
  }
  std::optional<int64_t> constant;
  if (a.getConstantValue() && b.getConstantValue())
    constant = *a.getConstantValue() * *b.getConstantValue();
  return AxisInfo(contiguity, divisibility, constancy, constant);
}

AxisInfo divide(const AxisInfo &a, const AxisInfo &b) {
  unsigned rank = a.getRank();
  AxisInfo::Vector contiguity(rank, 1), divisibility(rank, 1), constancy(rank);
  std::optional<int64_t> divisor = b.getConstantValue();
  for (unsigned d = 0; d < rank; ++d) {
    constancy[d] = std::gcd(a.getConstancy(d), b.getConstancy(d));
    // Runs of c consecutive values starting at multiples of c, divided by a multiple of c that is constant
    // along them, have one quotient per run (no multiple of the divisor falls inside a run).
    if (b.getConstancy(d) >= a.getContiguity(d)) {
      int64_t run = std::min({a.getContiguity(d), a.getDivisibility(d), b.getDivisibility(d)});
      constancy[d] = std::max(constancy[d], run);
    }
  }
  std::optional<int64_t> constant;
  if (a.getConstantValue() && divisor && *divisor != 0)
    constant = *a.getConstantValue() / *divisor;
  return AxisInfo(contiguity, divisibility, constancy, constant);
}

AxisInfo remainder(const AxisInfo &a, const AxisInfo &b) {
  unsigned rank = a.getRank();
  AxisInfo::Vector contiguity(rank, 1), divisibility(rank), constancy(rank);
  for (unsigned d = 0; d < rank; ++d) {
    // A run starting at a multiple of D stays a run modulo m for gcd(D, divisibility of m) elements.
    if (b.getConstancy(d) >= a.getContiguity(d))
      contiguity[d] = std::min(a.getContiguity(d), std::gcd(a.getDivisibility(d), b.getDivisibility(d)));
    divisibility[d] = std::gcd(a.getDivisibility(d), b.getDivisibility(d));
    constancy[d] = std::gcd(a.getConstancy(d), b.getConstancy(d));
  }
  std::optional<int64_t> constant;
  if (a.getConstantValue() && b.getConstantValue() && *b.getConstantValue() != 0)
    constant = *a.getConstantValue() % *b.getConstantValue();
  return AxisInfo(contiguity, divisibility, constancy, constant);
}

/// An ordering comparison of a run against a value constant along it is constant over aligned stretches.
AxisInfo compare(const AxisInfo &a, const AxisInfo &b, bool ordering) {
  unsigned rank = a.getRank();
  AxisInfo::Vector constancy(rank);
  for (unsigned d = 0; d < rank; ++d) {
    constancy[d] = std::gcd(a.getConstancy(d), b.getConstancy(d));
    if (ordering && b.getConstancy(d) >= a.getContiguity(d))
      constancy[d] = std::max(constancy[d], std::gcd(a.getContiguity(d), b.getDivisibility(d)));
    if (ordering && a.getConstancy(d) >= b.getContiguity(d))
      constancy[d] = std::max(constancy[d], std::gcd(b.getContiguity(d), a.getDivisibility(d)));
  }
  return AxisInfo(filled(rank, 1), filled(rank, 1), constancy);
}

AxisInfo constancyOnly(ArrayRef<AxisInfo> operands) {
  unsigned rank = operands.front().getRank();
  AxisInfo::Vector constancy(operands.front().getConstancy());
  for (const AxisInfo &info : operands.drop_front())
    for (unsigned d = 0; d < rank; ++d)
      constancy[d] = std::gcd(constancy[d], info.getConstancy(d));
  return AxisInfo(filled(rank, 1), filled(rank, 1), constancy);
}

AxisInfo fromConstant(Attribute value, Type type) {
  unsigned rank = rankOf(type);
  std::optional<int64_t> constant;
  if (auto integer = dyn_cast<IntegerAttr>(value))
    constant = integer.getValue().getSExtValue();
  else if (auto splat = dyn_cast<SplatElementsAttr>(value); splat && splat.getElementType().isIntOrIndex())
    constant = splat.getSplatValue<APInt>().getSExtValue();
  if (!constant)
    return AxisInfo(filled(rank, 1), filled(rank, 1), filled(rank, 1));
  return AxisInfo(filled(rank, 1), filled(rank, powerOfTwoDivisor(*constant)), shapeOf(type), constant);
}
} // namespace

AxisInfo AxisInfo::getPessimisticValueState(Value value) {
  unsigned rank = rankOf(value.getType());
  int64_t divisibility = 1;
  if (auto argument = dyn_cast<BlockArgument>(value))
    if (auto function = dyn_cast_if_present<FunctionOpInterface>(argument.getOwner()->getParentOp()))
      if (argument.getOwner()->isEntryBlock())
        if (auto attr = function.getArgAttrOfType<IntegerAttr>(argument.getArgNumber(),
                                                               BrickDialect::getDivisibilityAttrName()))
          divisibility = std::min(attr.getInt(), kMaxDivisibility);
  return AxisInfo(filled(rank, 1), filled(rank, divisibility), filled(rank, 1));
}

AxisInfo AxisInfo::join(const AxisInfo &lhs, const AxisInfo &rhs) {
  if (!lhs.isInitialized())
    return rhs;
  if (!rhs.isInitialized() || lhs == rhs)
    return lhs;
  unsigned rank = lhs.getRank();
  Vector contiguity(rank), divisibility(rank), constancy(rank);
  for (unsigned d = 0; d < rank; ++d) {
    contiguity[d] = std::gcd(lhs.getContiguity(d), rhs.getContiguity(d));
    divisibility[d] = std::gcd(lhs.getDivisibility(d), rhs.getDivisibility(d));
    constancy[d] = std::gcd(lhs.getConstancy(d), rhs.getConstancy(d));
  }
  std::optional<int64_t> constant;
  if (lhs.getConstantValue() == rhs.getConstantValue())
    constant = lhs.getConstantValue();
  return AxisInfo(contiguity, divisibility, constancy, constant);
}

void AxisInfo::print(raw_ostream &os) const {
  auto list = [&](const Vector &values) {
    os << "[";
    llvm::interleaveComma(values, os);
    os << "]";
  };
  os << "contiguity = ";
  list(contiguity_);
  os << ", divisibility = ";
  list(divisibility_);
  os << ", constancy = ";
  list(constancy_);
  if (constant_)
    os << ", constant = " << *constant_;
}

void AxisInfoAnalysis::setToEntryState(Lattice<AxisInfo> *lattice) {
  propagateIfChanged(lattice, lattice->join(AxisInfo::getPessimisticValueState(lattice->getAnchor())));
}

LogicalResult AxisInfoAnalysis::visitOperation(Operation *op, ArrayRef<const Lattice<AxisInfo> *> operands,
                                               ArrayRef<Lattice<AxisInfo> *> results) {
  SmallVector<AxisInfo> in;
  for (const Lattice<AxisInfo> *operand : operands) {
    if (!operand->getValue().isInitialized())
      return success(); // visited again once the operand is known
    in.push_back(operand->getValue());
  }
  if (results.size() != 1) {
    setAllToEntryStates(results);
    return success();
  }
  Value result = op->getResult(0);
  Type type = result.getType();
  unsigned rank = rankOf(type);
  std::optional<AxisInfo> out = llvm::TypeSwitch<Operation *, std::optional<AxisInfo>>(op)
      .Case([&](arith::ConstantOp constant) { return fromConstant(constant.getValue(), type); })
      .Case([&](MakeRangeOp range) {
        int64_t length = range.getEndValue() - range.getStartValue();
        return AxisInfo({length}, {powerOfTwoDivisor(range.getStartValue())}, {1});
      })
      .Case([&](SplatOp) {
        return AxisInfo(filled(rank, 1), filled(rank, in[0].getDivisibility(0)), shapeOf(type),
                        in[0].getConstantValue());
      })
      .Case([&](AddPtrOp addptr) { return add(in[0], in[1], elementBytes(addptr.getType()), false); })
      .Case([&](arith::AddIOp) { return add(in[0], in[1], 1, false); })
      .Case([&](arith::SubIOp) { return add(in[0], in[1], 1, true); })
      .Case([&](arith::MulIOp) { return multiply(in[0], in[1]); })
      .Case([&](arith::DivSIOp) { return divide(in[0], in[1]); })
      .Case([&](arith::DivUIOp) { return divide(in[0], in[1]); })
      .Case([&](arith::RemSIOp) { return remainder(in[0], in[1]); })
      .Case([&](arith::RemUIOp) { return remainder(in[0], in[1]); })
      .Case([&](arith::CmpIOp cmp) {
        bool ordering = cmp.getPredicate() != arith::CmpIPredicate::eq && cmp.getPredicate() != arith::CmpIPredicate::ne;
        return compare(in[0], in[1], ordering);
      })
      .Case([&](arith::SelectOp) {
        // Constant where the condition and both sides are.
        return constancyOnly(in);
      })
      .Case<arith::AndIOp, arith::OrIOp, arith::XOrIOp>([&](Operation *) { return constancyOnly(in); })
      .Case<arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp, brickgpu::ConvertLayoutOp>(
          [&](Operation *) { return in[0]; })
      .Case([&](BroadcastOp broadcast) {
        auto srcShape = shapeOf(broadcast.getSrc().getType()), shape = shapeOf(type);
        AxisInfo::Vector contiguity(in[0].getContiguity()), divisibility(in[0].getDivisibility()),
            constancy(in[0].getConstancy());
        for (unsigned d = 0; d < rank; ++d)
          if (srcShape[d] == 1 && shape[d] > 1)
            contiguity[d] = 1, constancy[d] = shape[d];
        return AxisInfo(contiguity, divisibility, constancy, in[0].getConstantValue());
      })
      .Case([&](ExpandDimsOp expand) {
        AxisInfo::Vector contiguity(in[0].getContiguity()), divisibility(in[0].getDivisibility()),
            constancy(in[0].getConstancy());
        unsigned axis = expand.getAxis();
        // A scalar-shaped source (rank 1 of size 1 here) gains its dimension in front.
        contiguity.insert(contiguity.begin() + axis, 1);
        divisibility.insert(divisibility.begin() + axis, everyElementDivisibility(in[0]));
        constancy.insert(constancy.begin() + axis, 1);
        contiguity.resize(rank), divisibility.resize(rank), constancy.resize(rank);
        return AxisInfo(contiguity, divisibility, constancy, in[0].getConstantValue());
      })
      .Case([&](ReshapeOp reshape) -> std::optional<AxisInfo> {
        // A reshape that only adds or drops dimensions of size 1 (a 3-D program's `arange(0, n).reshape({1, 1, n})`)
        // keeps each other dimension's runs; the size-1 ones are as expand_dims makes them. Others: nothing known.
        auto srcShape = shapeOf(reshape.getSrc().getType()), shape = shapeOf(type);
        SmallVector<unsigned> srcDims, dims;
        for (unsigned d = 0; d < srcShape.size(); ++d)
          if (srcShape[d] != 1)
            srcDims.push_back(d);
        for (unsigned d = 0; d < shape.size(); ++d)
          if (shape[d] != 1)
            dims.push_back(d);
        if (srcDims.size() != dims.size())
          return std::nullopt;
        AxisInfo::Vector contiguity(rank, 1), divisibility(rank, everyElementDivisibility(in[0])), constancy(rank, 1);
        for (auto [from, to] : llvm::zip(srcDims, dims)) {
          if (srcShape[from] != shape[to])
            return std::nullopt;
          contiguity[to] = in[0].getContiguity(from);
          divisibility[to] = in[0].getDivisibility(from);
          constancy[to] = in[0].getConstancy(from);
        }
        return AxisInfo(contiguity, divisibility, constancy, in[0].getConstantValue());
      })
      .Case([&](HintOp hint) {
        // What the programmer states, where it says more than the analysis found.
        AxisInfo::Vector contiguity(in[0].getContiguity()), divisibility(in[0].getDivisibility()),
            constancy(in[0].getConstancy());
        auto raise = [&](std::optional<ArrayRef<int64_t>> stated, AxisInfo::Vector &known) {
          if (stated)
            for (auto [d, value] : llvm::enumerate(*stated))
              if (d < known.size())
                known[d] = std::max(known[d], value);
        };
        raise(hint.getContiguity(), contiguity);
        raise(hint.getDivisibility(), divisibility);
        raise(hint.getConstancy(), constancy);
        return AxisInfo(contiguity, divisibility, constancy, in[0].getConstantValue());
      })
      .Case([&](TransOp trans) {
        AxisInfo::Vector contiguity, divisibility, constancy;
        for (int32_t d : trans.getOrder()) {
          contiguity.push_back(in[0].getContiguity(d));
          divisibility.push_back(in[0].getDivisibility(d));
          constancy.push_back(in[0].getConstancy(d));
        }
        return AxisInfo(contiguity, divisibility, constancy, in[0].getConstantValue());
      })
      .Default([&](Operation *) { return std::nullopt; });
  if (!out || out->getRank() != rank) {
    setAllToEntryStates(results);
    return success();
  }
  propagateIfChanged(results[0], results[0]->join(*out));
  return success();
}

ModuleAxisInfo::ModuleAxisInfo(Operation *root) {
  solver_.load<dataflow::DeadCodeAnalysis>();
  solver_.load<dataflow::SparseConstantPropagation>();
  solver_.load<AxisInfoAnalysis>();
  (void)solver_.initializeAndRun(root);
}

AxisInfo ModuleAxisInfo::get(Value value) const {
  const auto *lattice = solver_.lookupState<Lattice<AxisInfo>>(value);
  if (!lattice || !lattice->getValue().isInitialized())
    return AxisInfo::getPessimisticValueState(value);
  return lattice->getValue();
}

int64_t ModuleAxisInfo::getVectorizableElements(Value pointers, unsigned dim) const {
  AxisInfo info = get(pointers);
  if (dim >= info.getRank())
    return 1;
  int64_t bytes = elementBytes(pointers.getType());
  int64_t alignedElements = std::max<int64_t>(1, info.getDivisibility(dim) / bytes);
  return std::max<int64_t>(1, std::min(info.getContiguity(dim), alignedElements));
}

int64_t ModuleAxisInfo::getMaskConstancy(Value mask, unsigned dim) const {
  if (!mask)
    return kMaxDivisibility;
  AxisInfo info = get(mask);
  return dim < info.getRank() ? info.getConstancy(dim) : 1;
}

unsigned mlir::brick::getMemoryAccessWidth(const ModuleAxisInfo &axisInfo, Value pointers, Value mask,
                                          unsigned elementBits) {
  auto type = dyn_cast<RankedTensorType>(pointers.getType());
  if (!type)
    return 1;
  brickgpu::LinearLayout layout = brickgpu::getLinearLayout(type);
  if (layout.getRegisterBases().empty())
    return 1;
  // The dimension consecutive registers step along.
  const auto &first = layout.getRegisterBases().front();
  unsigned dim = std::find_if(first.begin(), first.end(), [](int64_t x) { return x != 0; }) - first.begin();
  if (dim >= first.size())
    return 1;
  int64_t width = layout.getContiguousRegisters(dim);
  width = std::min<int64_t>(width, axisInfo.getVectorizableElements(pointers, dim));
  width = std::min<int64_t>(width, axisInfo.getMaskConstancy(mask, dim));
  width = std::min<int64_t>(width, 128 / elementBits);
  return std::max<int64_t>(1, width);
}

