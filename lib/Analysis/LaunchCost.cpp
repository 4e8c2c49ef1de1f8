//===- LaunchCost.cpp - The bytes and FLOPs one launch of a brick kernel asks for -----===//

#include "brick/Analysis/LaunchCost.h"
#include "brick/Analysis/SharedMemory.h"
#include "brick/Dialect/Brick/BrickDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

namespace mlir::brick {

const char *dotKindName(DotKind kind) {
  switch (kind) {
  case DotKind::F16: return "f16/bf16";
  case DotKind::F8: return "fp8";
  case DotKind::TF32: return "tf32";
  case DotKind::F32: return "f32";
  case DotKind::I8: return "i8";
  }
  return "?";
}

double LaunchCost::totalRead() const {
  double total = 0;
  for (double bytes : readBytes)
    total += bytes;
  return total;
}

double LaunchCost::totalWritten() const {
  double total = 0;
  for (double bytes : writtenBytes)
    total += bytes;
  return total;
}

double LaunchCost::totalDotFlops() const {
  double total = 0;
  for (double flops : dotFlops)
    total += flops;
  return total;
}

double LaunchCost::dramBytes(const std::vector<uint64_t> &extentBytes) const {
  double total = 0;
  for (size_t i = 0; i < readBytes.size(); ++i) {
    double extent = i < extentBytes.size() ? double(extentBytes[i]) : 0;
    double read = readBytes[i], written = writtenBytes[i];
    total += extent > 0 ? std::min(read, extent) + std::min(written, extent) : read + written;
  }
  return total;
}

namespace {

/// An integer the counter knows (or not), and whether it was computed from the program's index: a launch whose
/// control flow never depends on that costs the same in every program, and one program is counted for all.
struct Known {
  int64_t value = 0;
  bool known = false;
  bool fromProgram = false;
};

unsigned widthOf(Type type) {
  if (auto integer = dyn_cast<IntegerType>(type))
    return integer.getWidth();
  return isa<IndexType>(type) ? 64 : 0;
}

/// `value` wrapped to a signed integer of `width` bits, as the GPU's arithmetic leaves it.
int64_t wrapSigned(uint64_t value, unsigned width) {
  if (width >= 64)
    return int64_t(value);
  uint64_t mask = (uint64_t(1) << width) - 1, sign = uint64_t(1) << (width - 1);
  value &= mask;
  return int64_t((value ^ sign) - sign);
}

uint64_t asUnsigned(int64_t value, unsigned width) {
  return width >= 64 ? uint64_t(value) : uint64_t(value) & ((uint64_t(1) << width) - 1);
}

double elementsOf(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return double(tensor.getNumElements());
  return 1;
}

Type elementTypeOf(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return tensor.getElementType();
  return type;
}

/// Bytes of one element a pointer (or a block of them) points at.
double pointeeBytes(Type pointerLike) {
  auto pointer = cast<PointerType>(elementTypeOf(pointerLike));
  return double(getSharedElementBytes(pointer.getPointeeType()));
}

/// How many floating-point operations one element of `op` does (0 for everything that is not one).
double flopsPerElement(Operation *op) {
  if (isa<arith::CmpFOp>(op))
    return 1;
  if (op->getNumResults() != 1 || !isa<FloatType>(elementTypeOf(op->getResult(0).getType())))
    return 0;
  if (isa<math::FmaOp>(op))
    return 2;
  if (isa<math::MathDialect>(op->getDialect()))
    return 1;
  if (isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp, arith::RemFOp, arith::MaximumFOp,
          arith::MinimumFOp, arith::MaxNumFOp, arith::MinNumFOp, arith::NegFOp>(op))
    return 1;
  return 0;
}

class Counter {
public:
  Counter(func::FuncOp kernel, const LaunchInputs &inputs, LaunchCost &cost)
      : kernel_(kernel), inputs_(inputs), cost_(cost), unattributed_(int(kernel.getNumArguments())) {}

  /// Counts program (x, y, z) into the cost; false when the op budget ran out during it.
  bool runProgram(unsigned x, unsigned y, unsigned z) {
    program_ = {x, y, z};
    values_.clear();
    Block &entry = kernel_.getBody().front();
    for (BlockArgument argument : entry.getArguments()) {
      unsigned i = argument.getArgNumber();
      if (i < inputs_.integers.size() && inputs_.integers[i])
        values_[argument] = Known{*inputs_.integers[i], true, false};
    }
    runBlock(entry);
    return !stopped_;
  }

  bool programDependent() const { return programDependent_; }

private:
  Known get(Value value) const {
    auto found = values_.find(value);
    return found == values_.end() ? Known{} : found->second;
  }

  void inexact(Operation *op, const llvm::Twine &why) {
    if (!cost_.exact)
      return;
    cost_.exact = false;
    std::string location;
    llvm::raw_string_ostream(location) << op->getLoc();
    cost_.inexact = (why + " (" + location + ")").str();
  }

  /// A value that decides how much runs: if it comes from the program's index, programs differ.
  Known control(Value value) {
    Known known = get(value);
    programDependent_ |= known.fromProgram;
    return known;
  }

  void runBlock(Block &block) {
    for (Operation &op : block.without_terminator()) {
      if (stopped_)
        return;
      if (++evaluated_ > inputs_.opBudget) {
        stopped_ = true;
        return;
      }
      visit(&op);
    }
  }

  /// Which argument of the kernel a pointer (or a block of them) was made from; unattributed_ if none.
  int argumentOf(Value pointer) {
    auto cached = provenance_.find(pointer);
    if (cached != provenance_.end())
      return cached->second;
    Value value = pointer;
    int found = unattributed_;
    for (int step = 0; step < 1000; ++step) {
      if (auto argument = dyn_cast<BlockArgument>(value)) {
        Operation *parent = argument.getOwner()->getParentOp();
        if (isa<func::FuncOp>(parent)) {
          found = int(argument.getArgNumber());
          break;
        }
        auto loop = dyn_cast<scf::ForOp>(parent);
        if (!loop || argument.getArgNumber() == 0)
          break;
        value = loop.getInitArgs()[argument.getArgNumber() - 1];
        continue;
      }
      Operation *def = value.getDefiningOp();
      if (auto add = dyn_cast<AddPtrOp>(def))
        value = add.getPtr();
      else if (isa<SplatOp, BroadcastOp, ExpandDimsOp, ReshapeOp, TransOp>(def))
        value = def->getOperand(0);
      else if (isa<arith::SelectOp>(def))
        value = def->getOperand(1);
      else if (auto loop = dyn_cast<scf::ForOp>(def))
        value = loop.getInitArgs()[cast<OpResult>(value).getResultNumber()];
      else if (auto branch = dyn_cast<scf::IfOp>(def))
        value = branch.thenYield().getOperand(cast<OpResult>(value).getResultNumber());
      else
        break;
    }
    provenance_[pointer] = found;
    return found;
  }

  /// Elements of a descriptor block at `indices` that lie inside the tensor (TMA moves no others).
  double elementsInside(Operation *op, MakeTensorDescriptorOp make, ValueRange indices, TensorDescType type) {
    double elements = 1;
    for (auto [d, block] : llvm::enumerate(type.getBlockShape())) {
      Known at = control(indices[d]);
      Known extent = make ? control(make.getShape()[d]) : Known{};
      if (!at.known || !extent.known) {
        inexact(op, "a descriptor block's position or its tensor's shape depends on memory");
        elements *= double(block);
        continue;
      }
      int64_t low = std::max<int64_t>(at.value, 0), high = std::min<int64_t>(at.value + block, extent.value);
      elements *= double(std::max<int64_t>(high - low, 0));
    }
    return elements;
  }

  /// Bytes of a descriptor block at `indices` that lie inside the tensor.
  double descriptorBytes(Operation *op, Value desc, ValueRange indices) {
    auto type = cast<TensorDescType>(desc.getType());
    return elementsInside(op, desc.getDefiningOp<MakeTensorDescriptorOp>(), indices, type) *
           double(getSharedElementBytes(type.getElementType()));
  }

  int descriptorArgument(Value desc) {
    auto make = desc.getDefiningOp<MakeTensorDescriptorOp>();
    return make ? argumentOf(make.getBase()) : unattributed_;
  }

  void visit(Operation *op) {
    if (auto loop = dyn_cast<scf::ForOp>(op))
      return runLoop(loop);
    if (auto branch = dyn_cast<scf::IfOp>(op))
      return runBranch(branch);
    if (countMemoryAndMath(op))
      return;
    evaluate(op);
  }

  /// Adds what `op` moves or computes; true if that is all it does.
  bool countMemoryAndMath(Operation *op) {
    return llvm::TypeSwitch<Operation *, bool>(op)
        .Case([&](LoadOp load) {
          cost_.readBytes[argumentOf(load.getPtr())] += elementsOf(load.getType()) * pointeeBytes(load.getPtr().getType());
          evaluate(op); // a scalar load's value is unknown, but it may come from the program's index
          return true;
        })
        .Case([&](StoreOp store) {
          cost_.writtenBytes[argumentOf(store.getPtr())] +=
              elementsOf(store.getValue().getType()) * pointeeBytes(store.getPtr().getType());
          return true;
        })
        .Case<AtomicRMWOp, AtomicCASOp>([&](Operation *atomic) {
          // Both read and write every element: operands (ptr, val, mask) and (ptr, cmp, val).
          Value pointer = atomic->getOperand(0), values = isa<AtomicCASOp>(atomic) ? atomic->getOperand(2)
                                                                                   : atomic->getOperand(1);
          double bytes = elementsOf(values.getType()) * pointeeBytes(pointer.getType());
          int argument = argumentOf(pointer);
          cost_.readBytes[argument] += bytes;
          cost_.writtenBytes[argument] += bytes;
          evaluate(op);
          return true;
        })
        .Case([&](DescriptorLoadOp load) {
          cost_.readBytes[descriptorArgument(load.getDesc())] += descriptorBytes(op, load.getDesc(), load.getIndices());
          return true;
        })
        .Case([&](DescriptorStoreOp store) {
          cost_.writtenBytes[descriptorArgument(store.getDesc())] +=
              descriptorBytes(op, store.getDesc(), store.getIndices());
          return true;
        })
        .Case([&](DotOp dot) {
          auto a = cast<RankedTensorType>(dot.getA().getType());
          double flops = 2 * elementsOf(dot.getD().getType()) * double(a.getShape().back());
          Type element = a.getElementType();
          DotKind kind = element.isInteger(8)                            ? DotKind::I8
                         : isa<Float8E4M3FNType, Float8E5M2Type>(element) ? DotKind::F8
                         : element.isF32() ? (dot.getInputPrecision() == InputPrecision::ieee ? DotKind::F32
                                                                                               : DotKind::TF32)
                                           : DotKind::F16;
          cost_.dotFlops[int(kind)] += flops;
          return true;
        })
        .Case<ReduceOp, ScanOp>([&](Operation *combining) {
          // The combiner runs about once per element of the input.
          double perElement = 0;
          combining->getRegion(0).walk([&](Operation *inner) { perElement += flopsPerElement(inner); });
          cost_.otherFlops += perElement * elementsOf(combining->getOperand(0).getType());
          evaluate(op);
          return true;
        })
        .Default([&](Operation *other) {
          if (double perElement = flopsPerElement(other)) {
            cost_.otherFlops += perElement * elementsOf(other->getResult(0).getType());
            return true;
          }
          if (other->getNumRegions() > 0)
            inexact(other, "'" + other->getName().getStringRef() + "' is not counted inside");
          return false;
        });
  }

  void runLoop(scf::ForOp loop) {
    Known low = control(loop.getLowerBound()), high = control(loop.getUpperBound()), step = control(loop.getStep());
    Block &body = *loop.getBody();
    llvm::SmallVector<Known, 8> carried;
    for (Value init : loop.getInitArgs())
      carried.push_back(get(init));
    unsigned width = widthOf(loop.getInductionVar().getType());
    auto iterate = [&](Known index) {
      values_[body.getArgument(0)] = index;
      for (auto [argument, value] : llvm::zip(body.getArguments().drop_front(), carried))
        values_[argument] = value;
      runBlock(body);
      Operation *yield = body.getTerminator();
      for (auto [i, value] : llvm::enumerate(yield->getOperands()))
        carried[i] = get(value);
    };
    if (!low.known || !high.known || !step.known || step.value <= 0) {
      inexact(loop, "a loop's bounds depend on memory; its body counted once");
      iterate(Known{0, false, low.fromProgram || high.fromProgram || step.fromProgram});
      for (Known &value : carried)
        value.known = false;
    } else {
      bool fromProgram = low.fromProgram || high.fromProgram || step.fromProgram;
      for (int64_t index = low.value; index < high.value && !stopped_;) {
        iterate(Known{index, true, fromProgram});
        if (high.value - index <= step.value)
          break;
        index = wrapSigned(uint64_t(index) + uint64_t(step.value), width);
      }
    }
    for (auto [result, value] : llvm::zip(loop.getResults(), carried))
      values_[result] = value;
  }

  void runBranch(scf::IfOp branch) {
    Known condition = control(branch.getCondition());
    auto take = [&](Region &region) {
      if (region.empty())
        return;
      runBlock(region.front());
      for (auto [result, value] : llvm::zip(branch.getResults(), region.front().getTerminator()->getOperands()))
        values_[result] = get(value);
    };
    if (condition.known) {
      take(condition.value ? branch.getThenRegion() : branch.getElseRegion());
      return;
    }
    // Unknown: count the branch that asks for more.
    inexact(branch, "a branch depends on memory; the costlier side counted");
    LaunchCost before = cost_;
    take(branch.getThenRegion());
    LaunchCost afterThen = cost_;
    cost_ = before;
    take(branch.getElseRegion());
    auto weight = [](const LaunchCost &c) { return c.totalRead() + c.totalWritten() + c.totalDotFlops(); };
    if (weight(afterThen) > weight(cost_))
      cost_ = afterThen;
    for (Value result : branch.getResults())
      values_[result] = Known{0, false, condition.fromProgram};
  }

  /// Sets the integer results of `op` where its operands are known; the rest become unknown.
  void evaluate(Operation *op) {
    bool fromProgram = false;
    for (Value operand : op->getOperands())
      fromProgram |= get(operand).fromProgram;
    for (Value result : op->getResults())
      values_[result] = Known{0, false, fromProgram};
    if (op->getNumResults() != 1 || isa<RankedTensorType>(op->getResult(0).getType()))
      return;
    Value result = op->getResult(0);
    unsigned width = widthOf(result.getType());
    auto set = [&](int64_t value, bool program) { values_[result] = Known{wrapSigned(uint64_t(value), width), true, program}; };
    if (isa<ProgramIdOp, ClusterRankOp>(op)) {
      unsigned axis = 0;
      if (auto id = dyn_cast<ProgramIdOp>(op))
        axis = unsigned(id.getAxis());
      int64_t index = program_[axis];
      set(isa<ClusterRankOp>(op) ? index % std::max(1u, inputs_.clusterSize) : index, true);
      return;
    }
    if (auto count = dyn_cast<NumProgramsOp>(op))
      return set(inputs_.grid[unsigned(count.getAxis())], false);
    if (isa<ClusterSizeOp>(op))
      return set(std::max(1u, inputs_.clusterSize), false);
    if (width == 0)
      return;
    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      if (auto integer = dyn_cast<IntegerAttr>(constant.getValue()))
        set(integer.getValue().getSExtValue(), false);
      else if (auto boolean = dyn_cast<BoolAttr>(constant.getValue()))
        set(boolean.getValue(), false);
      return;
    }
    llvm::SmallVector<int64_t, 3> in;
    llvm::SmallVector<uint64_t, 3> unsignedIn;
    for (Value operand : op->getOperands()) {
      Known value = get(operand);
      if (!value.known)
        return;
      in.push_back(value.value);
      unsignedIn.push_back(asUnsigned(value.value, widthOf(operand.getType())));
    }
    auto binary = [&](auto f) {
      if (in.size() == 2)
        if (std::optional<int64_t> value = f(in[0], in[1], unsignedIn[0], unsignedIn[1]))
          set(*value, fromProgram);
    };
    using Maybe = std::optional<int64_t>;
    llvm::TypeSwitch<Operation *>(op)
        .Case([&](arith::AddIOp) { binary([](int64_t a, int64_t b, uint64_t, uint64_t) -> Maybe { return int64_t(uint64_t(a) + uint64_t(b)); }); })
        .Case([&](arith::SubIOp) { binary([](int64_t a, int64_t b, uint64_t, uint64_t) -> Maybe { return int64_t(uint64_t(a) - uint64_t(b)); }); })
        .Case([&](arith::MulIOp) { binary([](int64_t a, int64_t b, uint64_t, uint64_t) -> Maybe { return int64_t(uint64_t(a) * uint64_t(b)); }); })
        .Case([&](arith::DivSIOp) { binary([](int64_t a, int64_t b, uint64_t, uint64_t) -> Maybe { return b == 0 || (b == -1 && a == INT64_MIN) ? Maybe() : a / b; }); })
        .Case([&](arith::RemSIOp) { binary([](int64_t a, int64_t b, uint64_t, uint64_t) -> Maybe { return b == 0 ? Maybe() : b == -1 ? Maybe(0) : Maybe(a % b); }); })
        .Case([&](arith::DivUIOp) { binary([](int64_t, int64_t, uint64_t a, uint64_t b) -> Maybe { return b == 0 ? Maybe() : int64_t(a / b); }); })
        .Case([&](arith::RemUIOp) { binary([](int64_t, int64_t, uint64_t a, uint64_t b) -> Maybe { return b == 0 ? Maybe() : int64_t(a % b); }); })
        .Case([&](arith::CeilDivSIOp) {
          binary([](int64_t a, int64_t b, uint64_t, uint64_t) -> Maybe {
            if (b == 0 || (b == -1 && a == INT64_MIN))
              return Maybe();
            int64_t q = a / b;
            return (a % b != 0 && ((a < 0) == (b < 0))) ? q + 1 : q;
          });
        })
        .Case([&](arith::CeilDivUIOp) { binary([](int64_t, int64_t, uint64_t a, uint64_t b) -> Maybe { return b == 0 ? Maybe() : int64_t(a / b + (a % b != 0)); }); })
        .Case([&](arith::FloorDivSIOp) {
          binary([](int64_t a, int64_t b, uint64_t, uint64_t) -> Maybe {
            if (b == 0 || (b == -1 && a == INT64_MIN))
              return Maybe();
            int64_t q = a / b;
            return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
          });
        })
        .Case([&](arith::MinSIOp) { binary([](int64_t a, int64_t b, uint64_t, uint64_t) -> Maybe { return std::min(a, b); }); })
        .Case([&](arith::MaxSIOp) { binary([](int64_t a, int64_t b, uint64_t, uint64_t) -> Maybe { return std::max(a, b); }); })
        .Case([&](arith::MinUIOp) { binary([](int64_t, int64_t, uint64_t a, uint64_t b) -> Maybe { return int64_t(std::min(a, b)); }); })
        .Case([&](arith::MaxUIOp) { binary([](int64_t, int64_t, uint64_t a, uint64_t b) -> Maybe { return int64_t(std::max(a, b)); }); })
        .Case([&](arith::AndIOp) { binary([](int64_t a, int64_t b, uint64_t, uint64_t) -> Maybe { return a & b; }); })
        .Case([&](arith::OrIOp) { binary([](int64_t a, int64_t b, uint64_t, uint64_t) -> Maybe { return a | b; }); })
        .Case([&](arith::XOrIOp) { binary([](int64_t a, int64_t b, uint64_t, uint64_t) -> Maybe { return a ^ b; }); })
        .Case([&](arith::ShLIOp) { binary([width](int64_t, int64_t, uint64_t a, uint64_t b) -> Maybe { return b >= width ? Maybe() : int64_t(a << b); }); })
        .Case([&](arith::ShRUIOp) { binary([width](int64_t, int64_t, uint64_t a, uint64_t b) -> Maybe { return b >= width ? Maybe() : int64_t(a >> b); }); })
        .Case([&](arith::ShRSIOp) { binary([width](int64_t a, int64_t, uint64_t, uint64_t b) -> Maybe { return b >= width ? Maybe() : a >> b; }); })
        .Case([&](arith::CmpIOp compare) {
          if (in.size() != 2)
            return;
          int64_t a = in[0], b = in[1];
          uint64_t ua = unsignedIn[0], ub = unsignedIn[1];
          bool holds = false;
          switch (compare.getPredicate()) {
          case arith::CmpIPredicate::eq: holds = a == b; break;
          case arith::CmpIPredicate::ne: holds = a != b; break;
          case arith::CmpIPredicate::slt: holds = a < b; break;
          case arith::CmpIPredicate::sle: holds = a <= b; break;
          case arith::CmpIPredicate::sgt: holds = a > b; break;
          case arith::CmpIPredicate::sge: holds = a >= b; break;
          case arith::CmpIPredicate::ult: holds = ua < ub; break;
          case arith::CmpIPredicate::ule: holds = ua <= ub; break;
          case arith::CmpIPredicate::ugt: holds = ua > ub; break;
          case arith::CmpIPredicate::uge: holds = ua >= ub; break;
          }
          values_[result] = Known{holds ? 1 : 0, true, fromProgram};
        })
        .Case([&](arith::SelectOp) {
          if (in.size() == 3)
            set(in[0] & 1 ? in[1] : in[2], fromProgram);
        })
        .Case<arith::ExtSIOp, arith::TruncIOp, arith::IndexCastOp>([&](Operation *) { set(in[0], fromProgram); })
        .Case<arith::ExtUIOp, arith::IndexCastUIOp>([&](Operation *) { set(int64_t(unsignedIn[0]), fromProgram); });
  }

  func::FuncOp kernel_;
  const LaunchInputs &inputs_;
  LaunchCost &cost_;
  int unattributed_;
  std::array<unsigned, 3> program_ = {0, 0, 0};
  llvm::DenseMap<Value, Known> values_;
  llvm::DenseMap<Value, int> provenance_;
  uint64_t evaluated_ = 0;
  bool stopped_ = false;
  bool programDependent_ = false;
};

void scale(LaunchCost &cost, double factor) {
  for (double &bytes : cost.readBytes)
    bytes *= factor;
  for (double &bytes : cost.writtenBytes)
    bytes *= factor;
  for (double &flops : cost.dotFlops)
    flops *= factor;
  cost.otherFlops *= factor;
}

} // namespace

LaunchCost countLaunchCost(func::FuncOp kernel, const LaunchInputs &inputs) {
  LaunchCost cost;
  cost.readBytes.assign(kernel.getNumArguments() + 1, 0);
  cost.writtenBytes.assign(kernel.getNumArguments() + 1, 0);
  const auto [gx, gy, gz] = inputs.grid;
  uint64_t programs = uint64_t(gx) * gy * gz;
  if (programs == 0)
    return cost;
  Counter counter(kernel, inputs, cost);
  if (!counter.runProgram(0, 0, 0)) {
    cost.exact = false;
    cost.inexact = "one program runs more ops than the count's budget; what it ran so far is counted";
    return cost;
  }
  if (!counter.programDependent()) {
    scale(cost, double(programs));
    return cost;
  }
  uint64_t counted = 1;
  for (uint64_t p = 1; p < programs; ++p) {
    LaunchCost before = cost;
    if (!counter.runProgram(unsigned(p % gx), unsigned(p / gx % gy), unsigned(p / (uint64_t(gx) * gy)))) {
      cost = before;
      scale(cost, double(programs) / double(counted));
      cost.exact = false;
      cost.inexact = "counted " + std::to_string(counted) + " of " + std::to_string(programs) +
                     " programs (the count's budget), the rest taken to be alike";
      return cost;
    }
    ++counted;
  }
  return cost;
}

} // namespace mlir::brick
