//===- Utility.h - Shared helpers of the brickgpu-to-llvm lowering (private) -----===//
#ifndef BRICK_LIB_CONVERSION_BRICKGPUTOLLVM_UTILITY_H
#define BRICK_LIB_CONVERSION_BRICKGPUTOLLVM_UTILITY_H

#include "brick/Analysis/AxisInfo.h"
#include "brick/Dialect/BrickGPU/BrickGPUDialect.h"

#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace mlir::brick::lowering {

/// What every pattern of the lowering shares.
struct LoweringContext {
  const ModuleAxisInfo *axisInfo;
  unsigned computeCapability;
  bool fastMath;
  /// Whether the async proxy reads shared memory in this module (wgmma, TMA stores): writes to it then need an
  /// async-proxy fence (sm_90; there is none before).
  bool asyncProxyReads = false;
};

/// The values a thread holds of a block: one per register of its layout.
SmallVector<Value> unpack(OpBuilder &builder, Location loc, Value structValue);
/// Packs per-register values into the struct a block lowers to.
Value pack(OpBuilder &builder, Location loc, Type structType, ValueRange values);
/// The per-register values of a converted operand: the struct's elements, or a scalar alone.
SmallVector<Value> elementsOf(OpBuilder &builder, Location loc, Value converted);

/// A vector of `elements`. Where they are the elements of one vector of `type`, in order (ldmatrix's words passed
/// on to mma.sync, a vector load stored again), that vector itself: the insertelements of its extractelements
/// would be left for LLVM's InstCombine, which spent a third of its time on them in a matmul.
Value buildVector(OpBuilder &builder, Location loc, VectorType type, ValueRange elements);

/// The row-major index (i32) of `coordinate` in a block of `shape`.
Value rowMajorIndex(OpBuilder &b, Location loc, ArrayRef<Value> coordinate, ArrayRef<int64_t> shape);

Value i32Constant(OpBuilder &builder, Location loc, int64_t value);
/// This program's place in its cluster of `op`'s module: program_id(0) mod the cluster size (what %cluster_ctaid.x
/// holds in clusters along x, and a numbering without hardware clusters alike).
Value clusterRank(OpBuilder &builder, Location loc, Operation *op);
Value constantLike(OpBuilder &builder, Location loc, Type type, int64_t value);

/// shfl.sync of any scalar (`kind` bfly: `lane` is the XOR mask; idx: the source lane), all lanes taking part:
/// narrower values travel in an i32, 64-bit ones as two.
Value shuffle(OpBuilder &b, Location loc, Value value, Value lane, NVVM::ShflKind kind);
/// A reduce or scan combiner applied to (accumulated, next), inlined; its scalar ops are lowered by the arith
/// patterns afterwards.
SmallVector<Value> inlineCombiner(OpBuilder &b, Region &combiner, ArrayRef<Value> accumulated, ArrayRef<Value> next);

/// This thread's lane (0..31) and warp within the program.
struct ThreadId {
  Value lane, warp;
};
ThreadId getThreadId(OpBuilder &builder, Location loc);

/// The coordinates (i32, one per dimension) of the element each register holds, for this thread.
SmallVector<SmallVector<Value>> emitCoordinates(OpBuilder &builder, Location loc, const brickgpu::LinearLayout &layout,
                                                ThreadId thread);

/// Start of this op's shared memory (its `brickgpu.offset`), as an address-space-3 pointer.
Value getSharedMemoryBase(OpBuilder &builder, Location loc, Operation *op);
/// The element offset (i32) of `coordinate` in a shared-memory buffer of `type`: its rows (every dimension
/// but the fastest) one after another, 16-byte groups of a row XOR-swizzled by the row's phase.
Value emitSharedOffset(OpBuilder &builder, Location loc, ArrayRef<Value> coordinate, brickgpu::MemDescType type);
/// How many consecutive registers of `layout`, from each multiple of that many, hold consecutive elements along
/// dimension `dim` (the last by default) at a multiple of that many (so that they are one aligned vector in a
/// row), up to `maxElements`.
unsigned rowVectorWidth(const brickgpu::LinearLayout &layout, unsigned maxElements, int dim = -1);
/// The dimension a shared buffer's elements run along first.
unsigned sharedFastestDim(brickgpu::MemDescType type);
/// How many elements, from each multiple of that many along a buffer's fastest dimension, stay consecutive in
/// shared memory under its layout's swizzle (16 bytes for #nvmma_shared, `vec` for a swizzled #shared).
unsigned sharedRowRunElements(brickgpu::MemDescType type);
/// bar.sync 0; in a warp-specialized module (brickgpu.producer_warps), a barrier of the consumer warps alone
/// unless `allWarps`.
void emitBarrier(OpBuilder &builder, Location loc, bool allWarps = false);
/// Inline PTX `text` with LLVM constraints; its result (a struct when several), or null when it has none.
Value inlineAsm(OpBuilder &b, Location loc, TypeRange results, ValueRange operands, StringRef text,
                StringRef constraints, bool sideEffects);

/// For each register of `to`, the register of `from` that holds the element `to`'s register holds after
/// `transform` maps `to`'s coordinates into `from`'s; empty when that is not true of every thread (the lane
/// and warp parts of the layouts must agree under `transform`).
std::optional<SmallVector<unsigned>>
mapRegisters(const brickgpu::LinearLayout &from, const brickgpu::LinearLayout &to,
             llvm::function_ref<brickgpu::LinearLayout::Coordinate(const brickgpu::LinearLayout::Coordinate &)> transform);

/// Which register holds each coordinate of a 2-D or batched 3-D layout (lane 0 of warp 0's view; other threads hold the same
/// registers at their own offsets): how tensor-core lowerings find an instruction's fragments.
struct RegisterIndex {
  explicit RegisterIndex(const brickgpu::LinearLayout &layout) {
    for (unsigned reg = 0; reg < layout.getNumRegisters(); ++reg)
      byCoordinate.try_emplace(key(layout.registerCoordinate(reg)), reg);
  }
  /// (row, column) of a 2-D block, or of batch `batch` of a 3-D one.
  unsigned at(int64_t row, int64_t column, int64_t batch = 0) const {
    return byCoordinate.lookup({batch, row, column});
  }
  bool contains(int64_t row, int64_t column, int64_t batch = 0) const {
    return byCoordinate.contains({batch, row, column});
  }
  static std::tuple<int64_t, int64_t, int64_t> key(const brickgpu::LinearLayout::Coordinate &c) {
    return c.size() == 3 ? std::tuple{c[0], c[1], c[2]} : std::tuple{int64_t(0), c[0], c[1]};
  }
  llvm::DenseMap<std::tuple<int64_t, int64_t, int64_t>, unsigned> byCoordinate;
};

/// fence.proxy.async.shared::cta: shared-memory writes of this thread become visible to the async proxy (wgmma,
/// TMA) once a barrier follows.
void emitAsyncProxyFence(OpBuilder &builder, Location loc);

/// A value `bits` wide as i32 words (or a single narrower integer) and back, for shuffles and vector memory.
Value bitcastToInt(OpBuilder &builder, Location loc, Value value);
Value bitcastFromInt(OpBuilder &builder, Location loc, Value value, Type type);

/// Which registers of a block hold an element that no lower register holds, and the predicate that this
/// thread is the one (of those holding the same elements) that owns them: stores, atomics and prints act
/// once per element. A scalar is owned by thread 0.
struct Ownership {
  SmallVector<bool> registerOwned;
  Value threadOwns; // null: every thread owns its elements
};
Ownership getOwnership(OpBuilder &builder, Location loc, Type blockOrScalarType);

/// The patterns of each op family.
void populateElementwisePatterns(LLVMTypeConverter &converter, RewritePatternSet &patterns, const LoweringContext &context);
void populateFloat8Patterns(LLVMTypeConverter &converter, RewritePatternSet &patterns, const LoweringContext &context);
/// `value` (an LLVM scalar of `from`: an i8 code when `from` is an 8-bit float) converted to `to`, when either is
/// e4m3fn or e5m2 (Float8ToLLVM.cpp).
Value convertFloat8(OpBuilder &b, Location loc, Value value, Type from, Type to, unsigned computeCapability);
void populateMemoryPatterns(LLVMTypeConverter &converter, RewritePatternSet &patterns, const LoweringContext &context);
void populateReducePatterns(LLVMTypeConverter &converter, RewritePatternSet &patterns, const LoweringContext &context);
void populateScanPatterns(LLVMTypeConverter &converter, RewritePatternSet &patterns, const LoweringContext &context);
void populateLayoutPatterns(LLVMTypeConverter &converter, RewritePatternSet &patterns, const LoweringContext &context);
void populateDotPatterns(LLVMTypeConverter &converter, RewritePatternSet &patterns, const LoweringContext &context);
void populateMmaDotPatterns(LLVMTypeConverter &converter, RewritePatternSet &patterns, const LoweringContext &context);
void populateAsyncCopyPatterns(LLVMTypeConverter &converter, RewritePatternSet &patterns, const LoweringContext &context);
void populateDotOperandPatterns(LLVMTypeConverter &converter, RewritePatternSet &patterns, const LoweringContext &context);
void populateWarpGroupDotPatterns(LLVMTypeConverter &converter, RewritePatternSet &patterns, const LoweringContext &context);
void populateSharedMemoryPatterns(LLVMTypeConverter &converter, RewritePatternSet &patterns, const LoweringContext &context);
void populateTMAPatterns(LLVMTypeConverter &converter, RewritePatternSet &patterns, const LoweringContext &context);
void populateWarpSpecializePatterns(LLVMTypeConverter &converter, RewritePatternSet &patterns, const LoweringContext &context);
void populateDebugPatterns(LLVMTypeConverter &converter, RewritePatternSet &patterns, const LoweringContext &context);
void populateHintPatterns(LLVMTypeConverter &converter, RewritePatternSet &patterns, const LoweringContext &context);
void populateProgramPatterns(LLVMTypeConverter &converter, RewritePatternSet &patterns, const LoweringContext &context);

} // namespace mlir::brick::lowering

#endif // BRICK_LIB_CONVERSION_BRICKGPUTOLLVM_UTILITY_H
