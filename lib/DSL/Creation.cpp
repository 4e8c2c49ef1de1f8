//===- Creation.cpp - program_id, num_programs, arange, full, zeros, cdiv ---===//

#include "KernelBuilder.h"
#include "brick/Dialect/Brick/Float8.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace brick {

namespace {
template <class Op> Int gridQuery(const char *what, int axis, Loc loc) {
  KernelBuilder *kb = KernelBuilder::current(what, loc);
  if (!kb)
    return {};
  if (axis < 0 || axis > 2)
    return Int(kb->fail(loc, std::string(what) + ": axis must be 0, 1 or 2, got " + std::to_string(axis)));
  return Int(Access::wrap(Op::create(kb->builder(), kb->location(loc), axis)));
}
} // namespace

Int program_id(int axis, Loc loc) { return gridQuery<bir::ProgramIdOp>("program_id", axis, loc); }
Int num_programs(int axis, Loc loc) { return gridQuery<bir::NumProgramsOp>("num_programs", axis, loc); }
Int cluster_rank(Loc loc) {
  KernelBuilder *kb = KernelBuilder::current("cluster_rank", loc);
  return kb ? Int(Access::wrap(bir::ClusterRankOp::create(kb->builder(), kb->location(loc)))) : Int();
}
Int cluster_size(Loc loc) {
  KernelBuilder *kb = KernelBuilder::current("cluster_size", loc);
  return kb ? Int(Access::wrap(bir::ClusterSizeOp::create(kb->builder(), kb->location(loc)))) : Int();
}

Tensor arange(int64_t start, int64_t end, Loc loc) {
  KernelBuilder *kb = KernelBuilder::current("arange", loc);
  if (!kb)
    return {};
  int64_t length = end - start;
  auto fallback = RankedTensorType::get({length > 0 && llvm::isPowerOf2_64(length) ? length : 1},
                                        kb->builder().getI32Type());
  if (end <= start)
    return kb->fail(loc, "arange(" + std::to_string(start) + ", " + std::to_string(end) + "): end must exceed start",
                    fallback);
  if (!llvm::isPowerOf2_64(length))
    return kb->fail(loc, "arange(" + std::to_string(start) + ", " + std::to_string(end) + "): the length " +
                             std::to_string(length) + " is not a power of two (blocks have power-of-two shapes; "
                             "round up with a mask, e.g. arange(0, " + std::to_string(llvm::PowerOf2Ceil(length)) +
                             ") < n)", fallback);
  if (start < INT32_MIN || end > INT32_MAX)
    return kb->fail(loc, "arange: [" + std::to_string(start) + ", " + std::to_string(end) + ") does not fit in i32",
                    fallback);
  return Access::wrap(bir::MakeRangeOp::create(kb->builder(), kb->location(loc), fallback,
                                               static_cast<int32_t>(start), static_cast<int32_t>(end)));
}

Tensor full(std::vector<int64_t> shape, double value, DType type, Loc loc) {
  KernelBuilder *kb = KernelBuilder::current("full", loc);
  if (!kb)
    return {};
  Type element = kb->type(type);
  if (!bir::isBlockShape(shape))
    return kb->fail(loc, "full: shape " + detail::describeShape(shape) +
                             " is not a block shape (one or more dimensions, each a power of two)");
  // An 8-bit float is the f32 converted as the GPU converts it (saturating), not the attribute's rounding (NaN
  // past the largest finite value).
  if (bir::isFloat8(element)) {
    Tensor wide = full(shape, value, DType::F32, loc);
    return Access::wrap(kb->convert(kb->use(wide, "full", loc), element, loc));
  }
  auto tensorType = RankedTensorType::get(shape, element);
  TypedAttr scalar = isa<FloatType>(element) ? TypedAttr(kb->builder().getFloatAttr(element, value))
                                             : TypedAttr(kb->builder().getIntegerAttr(element, static_cast<int64_t>(value)));
  if (shape.empty())
    return Access::wrap(arith::ConstantOp::create(kb->builder(), kb->location(loc), scalar));
  return Access::wrap(arith::ConstantOp::create(kb->builder(), kb->location(loc), tensorType,
                                                DenseElementsAttr::get(tensorType, scalar)));
}

Tensor zeros(std::vector<int64_t> shape, DType type, Loc loc) { return full(std::move(shape), 0.0, type, loc); }

Tensor cdiv(const Operand &a, const Operand &b, Loc loc) {
  Tensor sum = Operand(a + b, loc) - Operand(1, loc);
  return Operand(sum, loc) / b;
}

Tile grouped_tile(const Int &program, const Int &tilesM, const Int &tilesN, const Operand &groupM, Loc loc) {
  Int programsPerGroup = Operand(groupM) * Operand(tilesN, loc);
  Int firstRow = Operand(Operand(program, loc) / programsPerGroup, loc) * groupM;
  // The last group may have fewer than groupM rows.
  Int groupRows = minimum(Operand(tilesM, loc) - firstRow, groupM, loc);
  Int inGroup = Operand(program, loc) % programsPerGroup;
  return Tile{Operand(firstRow, loc) + Operand(inGroup, loc) % groupRows, Operand(inGroup, loc) / groupRows};
}

} // namespace brick
