//===- LowerTensorDescriptors.cpp - brick-lower-tensor-descriptors: blocks through pointers ----===//
//
// A descriptor's block at (i0, i1, ...) is, element by element,
//
//   base + sum_d (i_d + r_d) * stride_d      for 0 <= r_d < block_d,
//
// inside the tensor where 0 <= i_d + r_d < shape_d for every d (one unsigned comparison each). So a descriptor_load becomes a masked load with
// zeros elsewhere, and a descriptor_store a masked store: what TMA does, in ordinary loads and stores that every
// target (and the interpreter) runs. Offsets are computed in 64 bits (strides are i64); coordinates in 32.
//
//===----------------------------------------------------------------------===//

#include "brick/Dialect/Brick/BrickDialect.h"
#include "brick/Dialect/BrickGPU/BrickGPUDialect.h"
#include "brick/Runtime/TensorMap.h"
#include "brick/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::brick {
#define GEN_PASS_DEF_BRICKLOWERTENSORDESCRIPTORS
#include "brick/Transforms/Passes.h.inc"

namespace {

/// The pointers of a descriptor's block at `indices`, and the mask of those inside the tensor.
std::pair<Value, Value> blockAddresses(OpBuilder &b, Location loc, MakeTensorDescriptorOp desc, ValueRange indices) {
  TensorDescType type = desc.getType();
  ArrayRef<int64_t> block = type.getBlockShape();
  unsigned rank = block.size();
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  auto blockOf = [&](Type element) { return RankedTensorType::get(block, element); };
  Value offsets, mask;
  for (unsigned d = 0; d < rank; ++d) {
    // i_d + r_d along dimension d, broadcast over the block.
    Value range = MakeRangeOp::create(b, loc, RankedTensorType::get({block[d]}, i32), 0, int32_t(block[d]));
    for (unsigned other = 0; other < rank; ++other) {
      if (other == d)
        continue;
      auto shape = llvm::to_vector(cast<RankedTensorType>(range.getType()).getShape());
      unsigned axis = other < d ? other : shape.size();
      shape.insert(shape.begin() + axis, 1);
      range = ExpandDimsOp::create(b, loc, RankedTensorType::get(shape, i32), range, axis);
    }
    if (rank > 1)
      range = BroadcastOp::create(b, loc, blockOf(i32), range);
    // (One op per statement: the IR's order should not depend on the order C++ evaluates arguments in.)
    Value start = SplatOp::create(b, loc, blockOf(i32), indices[d]);
    Value coordinate = arith::AddIOp::create(b, loc, range, start);
    // 0 <= coordinate < extent in one unsigned comparison: a negative coordinate is above every extent (at most
    // 2^31 - 1, which launches check).
    Value extent = SplatOp::create(b, loc, blockOf(i32), desc.getShape()[d]);
    Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, coordinate, extent);
    mask = mask ? arith::AndIOp::create(b, loc, mask, inside).getResult() : inside;
    Value wide = arith::ExtSIOp::create(b, loc, blockOf(i64), coordinate);
    Value stride = SplatOp::create(b, loc, blockOf(i64), desc.getStrides()[d]);
    Value offset = arith::MulIOp::create(b, loc, wide, stride);
    offsets = offsets ? arith::AddIOp::create(b, loc, offsets, offset).getResult() : offset;
  }
  auto pointers = blockOf(desc.getBase().getType());
  Value base = SplatOp::create(b, loc, pointers, desc.getBase());
  Value address = AddPtrOp::create(b, loc, pointers, base, offsets);
  return {address, mask};
}

/// Whether TMA (on sm_90a) can take `load`: a 2-D block of 1- or 2-byte elements (what wgmma reads from shared
/// memory) whose rows fill a swizzle span, read only as dot operands, directly or transposed (brick.trans) into
/// dots the tensor cores take: wgmma reads a transposed block in place, mma.sync through a transposed view of its
/// buffer. (A dot too small for them transposes in registers, where masked loads serve it better.)
bool takenByTMA(DescriptorLoadOp load) {
  auto type = cast<RankedTensorType>(load.getType());
  unsigned bits = type.getElementTypeBitWidth();
  if (type.getRank() != 2 || type.getDimSize(0) % 8 != 0 || (bits != 8 && bits != 16) || load->use_empty())
    return false;
  if (!::brick::runtime::tmaBlockLayout(type.getDimSize(1), bits / 8).swizzleBytes)
    return false;
  auto dotOperand = [](OpOperand &use) {
    auto dot = dyn_cast<DotOp>(use.getOwner());
    return dot && use.getOperandNumber() < 2;
  };
  auto tensorCoreOperand = [&](OpOperand &use) {
    if (!dotOperand(use))
      return false;
    auto dot = cast<DotOp>(use.getOwner());
    auto c = cast<RankedTensorType>(dot.getType());
    int64_t k = cast<RankedTensorType>(dot.getA().getType()).getShape().back();
    return c.getRank() == 2 && mlir::brickgpu::fitsMmaSync(c.getDimSize(0), c.getDimSize(1), k, bits);
  };
  return llvm::all_of(load->getUses(), [&](OpOperand &use) {
    if (auto trans = dyn_cast<TransOp>(use.getOwner()))
      return trans.getOrder() == ArrayRef<int32_t>{1, 0} && !trans->use_empty() &&
             llvm::all_of(trans->getUses(), tensorCoreOperand);
    return dotOperand(use);
  });
}

/// The largest power of two `value` is known to be a multiple of: a constant's, or what the specialization says
/// of a kernel argument (`brick.divisibility`); 1 otherwise.
int64_t knownDivisor(Value value) {
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant)))
    return constant.isZero() ? int64_t(1) << 30 : int64_t(1) << constant.countr_zero();
  auto argument = dyn_cast<BlockArgument>(value);
  auto function = argument ? dyn_cast<func::FuncOp>(argument.getOwner()->getParentOp()) : func::FuncOp();
  if (!function)
    return 1;
  auto divisibility = function.getArgAttrOfType<IntegerAttr>(argument.getArgNumber(), BrickDialect::getDivisibilityAttrName());
  return divisibility ? divisibility.getInt() : 1;
}

/// Whether a TMA store (on sm_90a) can take `store`: a 2-D block of 1-, 2- or 4-byte elements whose rows fill a
/// swizzle span, in whole groups of 8 rows, into a tensor whose rows are known to end on 16-byte boundaries. (A
/// TMA store clips at the tensor's edge only to 16 bytes: measured on an H100, rows of 82 f16 got 6 elements of
/// the next 16 bytes written.)
bool storedByTMA(DescriptorStoreOp store, MakeTensorDescriptorOp desc) {
  auto type = cast<RankedTensorType>(store.getValue().getType());
  unsigned bits = type.getElementTypeBitWidth();
  if (type.getRank() != 2 || type.getDimSize(0) % 8 != 0 || (bits != 8 && bits != 16 && bits != 32))
    return false;
  if (knownDivisor(desc.getShape()[1]) * (bits / 8) % 16 != 0)
    return false;
  return ::brick::runtime::tmaBlockLayout(type.getDimSize(1), bits / 8).swizzleBytes != 0;
}

struct LowerTensorDescriptorsPass : impl::BrickLowerTensorDescriptorsBase<LowerTensorDescriptorsPass> {
  using Base::Base;

  void runOnOperation() override {
    bool failed = false;
    auto descriptorOf = [&](Operation *op, Value desc) -> MakeTensorDescriptorOp {
      auto make = desc.getDefiningOp<MakeTensorDescriptorOp>();
      if (!make) {
        op->emitError() << "this tensor descriptor does not come from a brick.make_tensor_descriptor in the kernel";
        failed = true;
      }
      return make;
    };
    getOperation().walk([&](Operation *op) {
      OpBuilder b(op);
      Location loc = op->getLoc();
      if (auto load = dyn_cast<DescriptorLoadOp>(op)) {
        MakeTensorDescriptorOp desc = descriptorOf(op, load.getDesc());
        if (!desc || (keepForTMA && takenByTMA(load)))
          return;
        if (Value shared = load.getSharedByCluster(); shared && checkClusterSharing)
          ClusterSharedOp::create(b, loc, shared, load.getIndices());
        auto [pointers, mask] = blockAddresses(b, loc, desc, load.getIndices());
        auto type = cast<RankedTensorType>(load.getType());
        Value zero = arith::ConstantOp::create(b, loc, type, cast<TypedAttr>(b.getZeroAttr(type)));
        load.replaceAllUsesWith(LoadOp::create(b, loc, pointers, mask, zero).getResult());
        load.erase();
      } else if (auto store = dyn_cast<DescriptorStoreOp>(op)) {
        MakeTensorDescriptorOp desc = descriptorOf(op, store.getDesc());
        if (!desc || (keepForTMA && storedByTMA(store, desc)))
          return;
        auto [pointers, mask] = blockAddresses(b, loc, desc, store.getIndices());
        StoreOp::create(b, loc, pointers, store.getValue(), mask);
        store.erase();
      }
    });
    if (failed)
      return signalPassFailure();
    // The descriptors themselves are now unused.
    getOperation().walk([](MakeTensorDescriptorOp desc) {
      if (desc->use_empty())
        desc.erase();
    });
  }
};
} // namespace
} // namespace mlir::brick
