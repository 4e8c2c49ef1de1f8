//===- AllocateSharedMemory.cpp - brickgpu-allocate-shared-memory ----------------===//
//
// Every op that needs shared memory gets an offset. Buffers are intervals in program order: scratch lives
// while its op runs; a local_alloc buffer from its definition to the end of its last use (a use inside a
// loop or branch keeps it alive through that whole op; a buffer a dot reads through a local_load, until the
// dot). Largest first, each buffer goes at the lowest offset where it overlaps no placed buffer that is live at
// the same time, so buffers never live together share bytes.
//
//===----------------------------------------------------------------------===//

#include "brick/Analysis/SharedMemory.h"
#include "brick/Dialect/BrickGPU/BrickGPUDialect.h"
#include "brick/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::brick {
#define GEN_PASS_DEF_BRICKGPUALLOCATESHAREDMEMORY
#include "brick/Transforms/Passes.h.inc"

namespace {
constexpr int64_t kAlignment = 16;

struct Buffer {
  Operation *owner;
  int64_t size;
  int64_t alignment;
  int64_t first, last; // live over program positions [first, last]
  int64_t offset = 0;
};

struct AllocateSharedMemoryPass : impl::BrickGPUAllocateSharedMemoryBase<AllocateSharedMemoryPass> {
  using Base::Base;
  void runOnOperation() override {
    if (failed(brickgpu::verifyEveryBlockHasALayout(getOperation(), "brickgpu-allocate-shared-memory")))
      return signalPassFailure();
    ModuleOp module = getOperation();
    // Program positions: pre-order; an op's subtree spans [position(op), end(op)].
    llvm::DenseMap<Operation *, int64_t> position, end;
    int64_t counter = 0;
    module.walk<WalkOrder::PreOrder>([&](Operation *op) { position[op] = counter++; });
    // PostOrder visits children before parents; an op's subtree ends at its last descendant.
    module.walk<WalkOrder::PostOrder>([&](Operation *op) {
      int64_t last = position[op];
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (Operation &child : block)
            last = std::max(last, end[&child]);
      end[op] = last;
    });

    SmallVector<Buffer> buffers;
    module.walk([&](Operation *op) {
      if (auto alloc = dyn_cast<brickgpu::LocalAllocOp>(op)) {
        int64_t last = position[op];
        auto keepUntil = [&](Operation *user) {
          // The user's ancestor in the alloc's block: a use inside a loop keeps the buffer for the whole loop.
          Operation *ancestor = op->getBlock()->findAncestorOpInBlock(*user);
          last = std::max(last, ancestor ? end[ancestor] : end[user]);
        };
        // Slots of a ring (memdesc_index) and views (memdesc_trans) are the buffer: their users keep it too.
        SmallVector<Operation *> users(alloc->getUsers());
        for (size_t i = 0; i < users.size(); ++i)
          if (isa<brickgpu::MemDescIndexOp, brickgpu::MemDescTransOp>(users[i]))
            llvm::append_range(users, users[i]->getUsers());
        for (Operation *user : users) {
          keepUntil(user);
          // A dot on tensor cores reads its operands' buffers itself, K step by K step (the local_load only
          // names them): the buffer lives until the dot.
          if (isa<brickgpu::LocalLoadOp>(user))
            for (Operation *reader : user->getUsers())
              if (isa<DotOp>(reader))
                keepUntil(reader);
        }
        auto type = alloc.getType();
        // wgmma and TMA swizzle by address bits 4..9: their buffers start at 1024-byte boundaries.
        int64_t alignment = isa<brickgpu::NVMMASharedEncodingAttr>(type.getEncoding()) ? 1024 : kAlignment;
        buffers.push_back({op, type.getNumElements() * getSharedElementBytes(type.getElementType()), alignment,
                           position[op], last});
      } else if (int64_t bytes = getScratchBytes(op)) {
        buffers.push_back({op, bytes, kAlignment, position[op], end[op]});
      }
    });

    std::stable_sort(buffers.begin(), buffers.end(), [](const Buffer &a, const Buffer &b) { return a.size > b.size; });
    int64_t total = 0;
    for (size_t i = 0; i < buffers.size(); ++i) {
      Buffer &buffer = buffers[i];
      bool moved = true;
      while (moved) {
        moved = false;
        for (size_t j = 0; j < i; ++j) {
          const Buffer &placed = buffers[j];
          bool liveTogether = placed.first <= buffer.last && buffer.first <= placed.last;
          bool overlap = placed.offset < buffer.offset + buffer.size && buffer.offset < placed.offset + placed.size;
          if (liveTogether && overlap) {
            buffer.offset = llvm::alignTo(placed.offset + placed.size, buffer.alignment);
            moved = true;
          }
        }
      }
      total = std::max(total, buffer.offset + buffer.size);
      buffer.owner->setAttr(brickgpu::BrickGPUDialect::getOffsetAttrName(),
                            IntegerAttr::get(IntegerType::get(&getContext(), 32), buffer.offset));
    }
    total = llvm::alignTo(total, kAlignment);
    module->setAttr(brickgpu::BrickGPUDialect::getSharedAttrName(),
                    IntegerAttr::get(IntegerType::get(&getContext(), 32), total));
    if (maxSharedMemory && total > int64_t(maxSharedMemory) && !buffers.empty()) {
      // Before launch, not at it: name the kernel, the numbers and the largest buffer (at its source line).
      const Buffer &largest = buffers.front();
      auto kernel = largest.owner->getParentOfType<func::FuncOp>();
      InFlightDiagnostic error = mlir::emitError(largest.owner->getLoc())
                                 << "kernel '" << (kernel ? kernel.getSymName() : StringRef("?")) << "' needs " << total
                                 << " bytes of shared memory, more than the " << unsigned(maxSharedMemory)
                                 << " a program may have on the target GPU; the largest part is here: " << largest.size
                                 << " bytes";
      if (auto alloc = dyn_cast<brickgpu::LocalAllocOp>(largest.owner)) {
        ArrayRef<int64_t> shape = alloc.getType().getShape();
        error << " for " << (alloc.getSrc() ? "a staged " : "a ring of ");
        llvm::interleave(shape, error, "x");
        error << " " << alloc.getType().getElementType() << " buffer"
              << (alloc.getSrc() ? "" : "s (lower num_stages or the block sizes)");
      }
      signalPassFailure();
    }
  }
};
} // namespace
} // namespace mlir::brick
