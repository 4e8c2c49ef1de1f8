//===- TMAOpToLLVM.cpp - mbarriers and TMA copies as PTX (sm_90a) -------------------===//
//
// Each op is one PTX instruction (or a wait loop) in inline assembly, since LLVM 22 selects few of their
// forms: barriers and buffers are 32-bit shared-window addresses, the tensor map the generic address of the
// kernel's __grid_constant__ parameter. Thread 0 initializes, invalidates, arrives and issues copies (under its
// op's predicate); every thread waits.
//
//===----------------------------------------------------------------------===//

#include "Utility.h"

#include "brick/Runtime/TensorMap.h"

namespace mlir::brick::lowering {
namespace {

/// A shared-memory pointer as the 32-bit address PTX's .shared instructions take.
Value sharedAddress(OpBuilder &b, Location loc, Value pointer) {
  return LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), pointer);
}

/// Whether this thread is the one that acts for the program (thread 0; for an op of the producer warps of a
/// warp-specialized kernel, their first thread), and `pred` (when given) holds.
Value threadZero(OpBuilder &b, Location loc, Value pred = Value(), Operation *op = nullptr) {
  int64_t first = 0;
  if (op && op->hasAttr("brickgpu.producer"))
    first = 32 * int64_t(brickgpu::BrickGPUDialect::getNumWarps(op->getParentOfType<ModuleOp>()));
  Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
  Value acts = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, tid, i32Constant(b, loc, first));
  return pred ? LLVM::AndOp::create(b, loc, acts, pred).getResult() : acts;
}

/// Calls `copy(boxShared, boxRow, boxColumn)` once per TMA box of a 2-D TMA-layout buffer at `shared` whose first
/// element in the tensor is at (`row`, `column`): column c of boxes holds columns [c * boxInner, (c + 1) *
/// boxInner) of every row, after column c - 1 (the columns of #nvmma_shared), in boxes of tmaBoxRows rows one
/// below the other, as runtime::tmaBlockLayout and tmaBoxRows lay them out.
void forEachTmaBox(OpBuilder &b, Location loc, brickgpu::MemDescType buffer, Value shared, Value row, Value column,
                   llvm::function_ref<void(Value boxShared, Value boxRow, Value boxColumn)> copy) {
  ArrayRef<int64_t> shape = buffer.getShape();
  unsigned bytes = std::max(1u, buffer.getElementType().getIntOrFloatBitWidth() / 8);
  ::brick::runtime::TmaBlockLayout tma = ::brick::runtime::tmaBlockLayout(shape[1], bytes);
  int64_t boxRows = ::brick::runtime::tmaBoxRows(shape[0]);
  for (int64_t box = 0; box * tma.boxInner < shape[1]; ++box)
    for (int64_t first = 0; first < shape[0]; first += boxRows)
      copy(LLVM::AddOp::create(b, loc, shared, i32Constant(b, loc, (box * shape[0] + first) * tma.boxInner * bytes)),
           first ? LLVM::AddOp::create(b, loc, row, i32Constant(b, loc, first)).getResult() : row,
           LLVM::AddOp::create(b, loc, column, i32Constant(b, loc, box * tma.boxInner)));
}

struct InitBarrierLowering : ConvertOpToLLVMPattern<brickgpu::InitBarrierOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(brickgpu::InitBarrierOp op, OpAdaptor adaptor, ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    // The init is a generic-proxy write; TMA completes transactions on the barrier through the async proxy.
    inlineAsm(b, loc, {}, {sharedAddress(b, loc, adaptor.getBarrier()), i32Constant(b, loc, op.getCount()), threadZero(b, loc)},
              "@$2 mbarrier.init.shared::cta.b64 [$0], $1;\n\t@$2 fence.mbarrier_init.release.cluster;", "r,r,b",
              /*sideEffects=*/true);
    b.eraseOp(op);
    return success();
  }
};

struct InvalidateBarrierLowering : ConvertOpToLLVMPattern<brickgpu::InvalidateBarrierOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(brickgpu::InvalidateBarrierOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    inlineAsm(b, loc, {}, {sharedAddress(b, loc, adaptor.getBarrier()), threadZero(b, loc)},
              "@$1 mbarrier.inval.shared::cta.b64 [$0];", "r,b", /*sideEffects=*/true);
    b.eraseOp(op);
    return success();
  }
};

struct BarrierExpectLowering : ConvertOpToLLVMPattern<brickgpu::BarrierExpectOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(brickgpu::BarrierExpectOp op, OpAdaptor adaptor, ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    inlineAsm(b, loc, {},
              {sharedAddress(b, loc, adaptor.getBarrier()), i32Constant(b, loc, op.getBytes()),
               threadZero(b, loc, adaptor.getPred(), op)},
              "@$2 mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], $1;", "r,r,b", /*sideEffects=*/true);
    b.eraseOp(op);
    return success();
  }
};

struct BarrierArriveLowering : ConvertOpToLLVMPattern<brickgpu::BarrierArriveOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(brickgpu::BarrierArriveOp op, OpAdaptor adaptor, ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    // The first thread of each warpgroup arrives, once its warpgroup is done with the slot.
    Value tid = NVVM::ThreadIdXOp::create(b, loc, b.getI32Type());
    Value inGroup = LLVM::AndOp::create(b, loc, tid, i32Constant(b, loc, 127));
    Value first = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, inGroup, i32Constant(b, loc, 0));
    Value arrives = LLVM::AndOp::create(b, loc, first, adaptor.getPred());
    Value barrier = sharedAddress(b, loc, adaptor.getBarrier());
    if (!op.getCluster()) {
      inlineAsm(b, loc, {}, {barrier, arrives}, "@$1 mbarrier.arrive.shared::cta.b64 _, [$0];", "r,b",
                /*sideEffects=*/true);
      b.eraseOp(op);
      return success();
    }
    // The same barrier in each program of the cluster (mapa: its address in the cluster's shared window). The
    // default semantics (release at CTA scope) suffice: what the arrival orders is this warpgroup's wgmma reads of
    // the slot, complete at the wgmma wait before it. `.release.cluster` made the persistent matmul in clusters of
    // 2 run at 325-351 TFLOP/s instead of 738-752 (H100, 4096^3 and 8192^3).
    for (unsigned rank = 0, size = brickgpu::BrickGPUDialect::getClusterSize(op); rank < size; ++rank)
      inlineAsm(b, loc, {}, {barrier, i32Constant(b, loc, rank), arrives},
                "{\n\t.reg .b32 remote;\n\t@$2 mapa.shared::cluster.u32 remote, $0, $1;\n\t"
                "@$2 mbarrier.arrive.shared::cluster.b64 _, [remote];\n\t}",
                "r,r,b", /*sideEffects=*/true);
    b.eraseOp(op);
    return success();
  }
};

struct WaitBarrierLowering : ConvertOpToLLVMPattern<brickgpu::WaitBarrierOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(brickgpu::WaitBarrierOp op, OpAdaptor adaptor, ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    // try_wait suspends the thread for a while before it answers; the label is local to the { } block.
    inlineAsm(b, loc, {}, {sharedAddress(b, loc, adaptor.getBarrier()), adaptor.getPhase()},
              "{\n\t.reg .pred done;\n\tLAB_WAIT:\n\t"
              "mbarrier.try_wait.parity.shared::cta.b64 done, [$0], $1;\n\t"
              "@!done bra LAB_WAIT;\n\t}",
              "r,r", /*sideEffects=*/true);
    b.eraseOp(op);
    return success();
  }
};

struct AsyncTMACopyLowering : ConvertOpToLLVMPattern<brickgpu::AsyncTMACopyGlobalToLocalOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(brickgpu::AsyncTMACopyGlobalToLocalOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value destination = sharedAddress(b, loc, adaptor.getDst());
    Value barrier = sharedAddress(b, loc, adaptor.getBarrier());
    Value issue = threadZero(b, loc, adaptor.getPred(), op);
    Value row = adaptor.getIndices()[0];
    unsigned clusterSize = brickgpu::BrickGPUDialect::getClusterSize(op);
    Value rank, alone = issue;
    if (adaptor.getMulticast()) {
      // Shared: this program issues boxes rank, rank + C, ... to the whole cluster; else all of them to itself.
      rank = clusterRank(b, loc, op);
      Value one = LLVM::ConstantOp::create(b, loc, b.getI1Type(), b.getBoolAttr(true));
      alone = LLVM::AndOp::create(b, loc, issue, LLVM::XOrOp::create(b, loc, adaptor.getMulticast(), one));
    }
    Value everyone = LLVM::ConstantOp::create(b, loc, b.getI16Type(), b.getI16IntegerAttr((1 << clusterSize) - 1));
    int64_t box = 0;
    forEachTmaBox(b, loc, op.getDst().getType(), destination, row, adaptor.getIndices()[1],
                  [&](Value boxDestination, Value boxRow, Value boxColumn) {
                    inlineAsm(b, loc, {}, {boxDestination, adaptor.getMap(), boxColumn, boxRow, barrier, alone},
                              "@$5 cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
                              "[$0], [$1, {$2, $3}], [$4];",
                              "r,l,r,r,r,b", /*sideEffects=*/true);
                    if (!rank)
                      return;
                    Value mine = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::eq, rank,
                                                      i32Constant(b, loc, box++ % clusterSize));
                    Value shares = LLVM::AndOp::create(
                        b, loc, LLVM::AndOp::create(b, loc, issue, adaptor.getMulticast()), mine);
                    inlineAsm(b, loc, {},
                              {boxDestination, adaptor.getMap(), boxColumn, boxRow, barrier, everyone, shares},
                              "@$6 cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                              ".multicast::cluster [$0], [$1, {$2, $3}], [$4], $5;",
                              "r,l,r,r,r,h,b", /*sideEffects=*/true);
                  });
    b.eraseOp(op);
    return success();
  }
};
struct AsyncTMAStoreLowering : ConvertOpToLLVMPattern<brickgpu::AsyncTMACopyLocalToGlobalOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(brickgpu::AsyncTMACopyLocalToGlobalOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value source = sharedAddress(b, loc, adaptor.getSrc());
    Value issue = threadZero(b, loc, Value(), op);
    Value row = adaptor.getIndices()[0];
    // The boxes of the loads (a swizzle span of the rows, at most 128 rows); then one bulk group (async_tma_store_wait waits until
    // it has read the buffer).
    forEachTmaBox(b, loc, op.getSrc().getType(), source, row, adaptor.getIndices()[1],
                  [&](Value boxSource, Value boxRow, Value boxColumn) {
                    inlineAsm(b, loc, {}, {adaptor.getMap(), boxColumn, boxRow, boxSource, issue},
                              "@$4 cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [$0, {$1, $2}], [$3];",
                              "l,r,r,r,b", /*sideEffects=*/true);
                  });
    inlineAsm(b, loc, {}, {issue}, "@$0 cp.async.bulk.commit_group;", "b", /*sideEffects=*/true);
    b.eraseOp(op);
    return success();
  }
};

struct AsyncTMAStoreWaitLowering : ConvertOpToLLVMPattern<brickgpu::AsyncTMAStoreWaitOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(brickgpu::AsyncTMAStoreWaitOp op, OpAdaptor,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    inlineAsm(b, loc, {}, {threadZero(b, loc, Value(), op)}, "@$0 cp.async.bulk.wait_group.read 0;", "b",
              /*sideEffects=*/true);
    b.eraseOp(op);
    return success();
  }
};

struct FenceAsyncSharedLowering : ConvertOpToLLVMPattern<brickgpu::FenceAsyncSharedOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(brickgpu::FenceAsyncSharedOp op, OpAdaptor, ConversionPatternRewriter &b) const override {
    emitAsyncProxyFence(b, op.getLoc());
    b.eraseOp(op);
    return success();
  }
};
struct ClusterBarrierLowering : ConvertOpToLLVMPattern<brickgpu::ClusterBarrierOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(brickgpu::ClusterBarrierOp op, OpAdaptor, ConversionPatternRewriter &b) const override {
    inlineAsm(b, op.getLoc(), {}, {}, "barrier.cluster.arrive.release;\n\tbarrier.cluster.wait.acquire;", "",
              /*sideEffects=*/true);
    b.eraseOp(op);
    return success();
  }
};
} // namespace

void populateTMAPatterns(LLVMTypeConverter &converter, RewritePatternSet &patterns, const LoweringContext &) {
  patterns.add<InitBarrierLowering, InvalidateBarrierLowering, BarrierExpectLowering, BarrierArriveLowering,
               WaitBarrierLowering, AsyncTMACopyLowering, AsyncTMAStoreLowering, AsyncTMAStoreWaitLowering,
               FenceAsyncSharedLowering, ClusterBarrierLowering>(converter);
}

} // namespace mlir::brick::lowering
