#ifndef BRICK_TRANSFORMS_PASSES_TD
#define BRICK_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def BrickCombine : Pass<"brick-combine", "::mlir::ModuleOp"> {
  let summary = "Fuse brick op sequences into cheaper forms";
  let description = [{
    Rewrites `arith.addf(brick.dot(a, b, 0), d)` into `brick.dot(a, b, d)` so that the tensor-core
    accumulator starts from `d` instead of zero and the addition disappears. Runs with the canonicalization
    patterns of the brick dialect.
  }];
  let dependentDialects = ["::mlir::brick::BrickDialect", "::mlir::arith::ArithDialect"];
}

def BrickLowerTensorDescriptors : Pass<"brick-lower-tensor-descriptors", "::mlir::ModuleOp"> {
  let summary = "Tensor descriptor loads and stores as masked loads and stores through pointers";
  let description = [{
    `brick.descriptor_load %d[%i, %j]` of a `!brick.tensordesc<BxCxT>` made by `brick.make_tensor_descriptor
    %base, [%rows, %cols], [%rowStride, %colStride], %map` becomes a `brick.load` of `base + (i + r) * rowStride
    + (j + c) * colStride` (offsets in i64) masked to `0 <= i + r < rows, 0 <= j + c < cols`, zeros elsewhere;
    `brick.descriptor_store` a `brick.store` under the same mask. The semantics every target and the interpreter
    share.

    With `keep-for-tma` (sm_90a), a 2-D load whose only users are dot operands and whose rows fill a TMA swizzle
    span (32 bytes or more: `brick::runtime::tmaBlockLayout`) of 1- or 2-byte elements stays: the pipeline copies
    it with TMA into the dot's shared buffer, and brickgpu-lower-descriptor-loads what the pipeline leaves. A 2-D
    store of 1-, 2- or 4-byte elements whose rows fill a swizzle span stays too, for
    brickgpu-lower-descriptor-stores (a TMA store).

    With `check-cluster-sharing` (the interpreter's), a lowered load with `shared_by_cluster %s` first gets a
    `brick.cluster_shared %s [indices]`, so that the interpreter checks the promise the GPU's multicast trusts.
  }];
  let options = [
    Option<"keepForTMA", "keep-for-tma", "bool", "false", "Leave the loads that feed dots, and the stores, for TMA (sm_90a)">,
    Option<"checkClusterSharing", "check-cluster-sharing", "bool", "false",
           "Before each lowered load with shared_by_cluster, a brick.cluster_shared of its promise (the interpreter checks it)">,
  ];
  let dependentDialects = ["::mlir::brick::BrickDialect", "::mlir::arith::ArithDialect"];
}

def BrickGPUCoalesce : Pass<"brickgpu-coalesce", "::mlir::ModuleOp"> {
  let summary = "Give each global load and store a layout that makes 16-byte, coalesced accesses";
  let description = [{
    For each memory op on a block of pointers, the axis-info analysis says along which dimension the
    addresses are contiguous and how aligned they are (kernel arguments carry `brick.divisibility`), and how
    far the mask stays constant. The op gets a blocked layout whose order puts that dimension first, with as
    many elements per thread as one access may cover (at most 16 bytes), and consecutive threads on
    consecutive vectors. Operands and results are converted; `remove-layout-conversions` cleans up.
  }];
  let dependentDialects = ["::mlir::brickgpu::BrickGPUDialect"];
}

def BrickGPUAccelerateDot : Pass<"brickgpu-accelerate-dot", "::mlir::ModuleOp"> {
  let summary = "Put every dot the tensor cores can take on mma.sync: #mma result, #dot_op operands";
  let description = [{
    A dot of f16 or bf16 (accumulating in f32, or f16 for f16), of f32 under tf32 or tf32x3 precision, of i8
    (accumulating in i32), or of e4m3/e5m2 in any pairing (accumulating in f32: m16n8k32 from sm_89, f16 copies
    of the operands before), with M >= 16, N >= 8 and K at least the instruction's (16, 8 for tf32, 32 for 8-bit),
    gets an `#mma` (version 2) result and accumulator and `#dot_op` operands. Warps are spread over M and N
    from the module's warps and the block shape (the larger per-warp dimension is split first). Each operand is
    staged in a swizzled shared-memory buffer (`local_alloc`, 16-byte groups XOR-swizzled so that the 8 rows an
    ldmatrix reads fall in different banks; its fastest dimension is the one the operand's loads are contiguous
    along) and read into registers with `local_load`. Other dots (f32 under ieee precision, small blocks) keep
    their blocked layouts and lower to FMAs.

    With `wgmma` (sm_90a), a dot of f16 or bf16 (either operand contiguous along K or not), or of i8 (both
    operands contiguous along K), accumulating in f32 or i32, whose M is a multiple of 64 and whose
    operands' contiguous rows are at least 32 bytes, goes on `wgmma` instead: an `#mma` version 3 accumulator
    (warpgroups along M first, the instruction's N the largest power of two up to 256 that the warps' share of
    N allows) and a `brickgpu.warpgroup_dot` reading both operands from `#brickgpu.nvmma_shared` buffers with
    the widest swizzle (128, 64 or 32 bytes) their rows and instruction tiles allow. tf32 and 8-bit floats go
    there too; wgmma reads tf32 truncated, where mma.sync rounds to nearest; tf32x3 stays on mma.sync.

    Every dot is also checked against the register file: an accumulator (plus one step of operands) that
    cannot fit in the registers one thread may have is an error at the dot, naming the numbers.
  }];
  let options = [
    Option<"computeCapability", "compute-capability", "unsigned", "90",
           "The GPU's compute capability (80 and up has mma.sync)">,
    Option<"wgmma", "wgmma", "bool", "false", "Put dots on wgmma where they fit (sm_90a)">,
  ];
  let dependentDialects = ["::mlir::brickgpu::BrickGPUDialect"];
}

def BrickGPURemoveLayoutConversions : Pass<"brickgpu-remove-layout-conversions", "::mlir::ModuleOp"> {
  let summary = "Remove layout conversions by computing values in the layout their users want";
  let description = [{
    Two rewrites, to a fixed point: a conversion of a value that is cheap to recompute (constants, splats,
    ranges, and elementwise arithmetic, pointer arithmetic, expand_dims and broadcast over them) is replaced
    by recomputing the value in the target layout; and an elementwise op or reduction whose operands all come
    converted from one layout is moved into that layout, its result converted instead (conversions then meet
    and cancel). What remains goes through shared memory.
  }];
  let dependentDialects = ["::mlir::brickgpu::BrickGPUDialect"];
}

def BrickGPUWarpSpecialize : Pass<"brickgpu-warp-specialize", "::mlir::ModuleOp"> {
  let summary = "A TMA + wgmma K loop split into a producer warpgroup and consumer warpgroups (sm_90a)";
  let description = [{
    A kernel's top-level `scf.for` whose body only multiplies descriptor blocks kept for TMA on wgmma (each block
    filling a `local_alloc` laid out as its tensor map writes, each dot only accumulating across iterations) gets a
    producer warpgroup: the module says `brickgpu.producer_warps = 4`, and the program runs num_warps + 4 warps.

      rings of num-stages buffers; full[S] (1 arrival) and empty[S] (one per consumer warpgroup) mbarriers
      barrier {allWarps}; init; barrier {allWarps}
      warp_specialize {                     // producers: fewer registers, then for each iteration i:
        set_max_registers 40                //   wait empty[i % S] (parity of the pass before), expect
        scf.for ... { ... }                 //   full[i % S] the blocks' bytes, TMA copies into slot i % S
      }
      set_max_registers 232 {increase}      // consumers: for each iteration, wait full[i % S], the first
      scf.for ... { ... }                   //   wgmma (in flight), wait for the previous iteration's, arrive on
                                            //   empty of its slot, then the iteration's other wgmmas
      warpgroup_dot_wait 0; barrier; inval  // then the code after the loop (its barriers: consumers only)

    Loops it cannot take (other loads, stores, synchronous dots; code before the loop that uses shared memory or
    memory at all, which the producers would run too) are left to brickgpu-pipeline.

    In a persistent tile loop that ends each tile with its only store, a descriptor store (the epilogue), and
    whose K loop has the same bounds for every tile (what computes them in the tile is moved before the tile
    loop) and a constant step, the consumers store a tile's block during the next tile's K loop: the tile loop
    carries the block, its coordinates and an i1 (it waits to be stored), and TMA store box c of it
    (`{brickgpu.store_window = c}`) goes in K step min(c, last), once the step's wgmmas are issued and the
    previous slot released. The last tile, and every tile of a K loop without steps, stores its block at its end.
  }];
  let options = [
    Option<"numStages", "num-stages", "unsigned", "4", "Buffers in each ring">,
  ];
  let dependentDialects = ["::mlir::brickgpu::BrickGPUDialect", "::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect"];
}

def BrickGPUPipeline : Pass<"brickgpu-pipeline", "::mlir::ModuleOp"> {
  let summary = "Prefetch the loads that feed a loop's dots with cp.async into a ring of num-stages buffers";
  let description = [{
    In an `scf.for`, a `brick.load` whose only use is a `local_alloc` (an operand staged in shared memory for a
    dot, as accelerate-dot leaves it) becomes `cp.async` copies into a ring of `num-stages` buffers, issued
    `num-stages - 1` iterations ahead:

      prologue   copies for iterations 0 .. S-2 (masked off past the loop's end), one commit group each
      iteration  wait until the group of this iteration has landed (`cp.async.wait_group S-2`), barrier;
                 copy iteration i + S-1 into the slot iteration i-1 read; read slot i % S
      epilogue   wait for every group, barrier (the ring's bytes may then be reused)

    The addresses, masks and loop-carried values of a copy are recomputed for the iteration it is for (the ops
    they come from are cloned; they must be side-effect free). A masked load is copied with cp.async's zero fill,
    so its `other` must be absent or zero; a copy moves 4, 8 or 16 contiguous bytes per thread, so the axis info
    must prove that much contiguity and alignment. Loads that do not qualify stay as they are, and so do the
    loads of loops that store or use atomics (a load moved ahead would pass them) or compare their bounds
    unsigned. num-stages = 1 leaves every loop unchanged.
  }];
  let options = [
    Option<"numStages", "num-stages", "unsigned", "3", "Buffers in each ring (iterations in flight + 1)">,
  ];
  let dependentDialects = ["::mlir::brickgpu::BrickGPUDialect", "::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect"];
}

def BrickGPULowerDescriptorLoads : Pass<"brickgpu-lower-descriptor-loads", "::mlir::ModuleOp"> {
  let summary = "The descriptor loads kept for TMA that the pipeline did not take: one TMA copy each, awaited";
  let description = [{
    A `brick.descriptor_load` left for TMA (brick-lower-tensor-descriptors with `keep-for-tma`) and not
    pipelined becomes a TMA copy into a shared buffer laid out as its tensor map writes, behind a fresh mbarrier:

      barrier; init_barrier %bar; barrier
      barrier_expect %bar, <block bytes>; async_tma_copy_global_to_local %map[%i, %j] %buffer, %bar
      wait_barrier %bar, 0; barrier; inval_barrier %bar

    The buffer is the local_alloc the load fed when that has the tensor map's layout (a dot operand already in
    shared memory); otherwise a new one, read back with a local_load. Then the tensor descriptors are unused.
  }];
  let dependentDialects = ["::mlir::brickgpu::BrickGPUDialect", "::mlir::arith::ArithDialect"];
}

def BrickGPULowerDescriptorStores : Pass<"brickgpu-lower-descriptor-stores", "::mlir::ModuleOp"> {
  let summary = "Descriptor stores kept for TMA: the block through a shared buffer and TMA stores";
  let description = [{
    `brick.descriptor_store %d[%i, %j], %x` (kept by brick-lower-tensor-descriptors with `keep-for-tma`) becomes

      async_tma_store_wait                                     (thread 0: the buffer's last store has read it)
      local_store %x, %buffer                                  (its lowering: barrier; writes; fence; barrier)
      async_tma_copy_local_to_global %map[%i, %j] %buffer      (thread 0: issue, commit)

    with `%buffer` laid out as the tensor map reads it and made before the outermost loop around the store, after
    which `async_tma_store_wait; barrier` follow: the store's read of the buffer overlaps what comes after it
    (in a persistent kernel, the next tile's main loop) until the buffer is written again. A layout conversion
    feeding the store is looked through: the local_store writes the block from the registers it was computed in
    (the accumulator's), so it passes through shared memory once. TMA writes nothing outside the tensor.

    A block of several TMA boxes (rows wider than the swizzle span) whose layout holds each box in the same
    registers of every thread (wgmma's accumulator) goes through one box-sized buffer, box by box: the same
    sequence per box with `local_store {column_offset = c}` and the store at `[%i, %j + c]`. A persistent
    kernel's ring lives through its epilogue; the smaller buffer leaves room for another stage. A store marked
    `{brickgpu.store_window = w}` (brickgpu-warp-specialize spreads a tile's boxes over the next tile's K steps)
    writes box w only.
  }];
  let dependentDialects = ["::mlir::brickgpu::BrickGPUDialect", "::mlir::arith::ArithDialect"];
}

def BrickGPUAllocateSharedMemory : Pass<"brickgpu-allocate-shared-memory", "::mlir::ModuleOp"> {
  let summary = "Place every shared-memory buffer and scratch area; record the total on the module";
  let description = [{
    Layout conversions, reductions across warps and `local_alloc` need shared memory. Each gets an offset
    (`brickgpu.offset`, bytes) such that buffers live at the same time do not overlap, while buffers that
    are never live together reuse the same bytes; liveness follows program order, with a buffer used inside
    a loop live through the whole loop. The module records the total as `brickgpu.shared`.
    With `max-shared-memory`, a total above it is an error at the largest buffer (for a dot's operands: the
    dot's source line), naming the kernel and the numbers, before any code is generated.
  }];
  let options = [
    Option<"maxSharedMemory", "max-shared-memory", "unsigned", "0",
           "The most shared memory one program may use on the target GPU, in bytes (0: no limit)">,
  ];
}

def BrickScalarizeAggregateBlockArguments
    : Pass<"brick-scalarize-aggregate-block-arguments", "::mlir::ModuleOp"> {
  let summary = "Split LLVM struct block arguments (a loop's carried tiles) into one argument per member";
  let description = [{
    The conversion to LLVM carries a block of values as one `!llvm.struct`, so a loop that carries a tile
    (a dot's accumulator: 128 floats per thread) becomes a phi of a 128-member struct. LLVM keeps such phis
    whole, and its instruction selector copies every member of the struct for each `extractvalue` of it:
    quadratic in the tile, a sixth of a matmul's compile time. Each struct argument of a non-entry block
    (flat: no nested aggregates; every predecessor a branch that forwards its operands) becomes one argument
    per member: predecessors pass the members (`llvm.extractvalue`), the block rebuilds the struct
    (`llvm.insertvalue`), and canonicalization folds what the block then extracts.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // BRICK_TRANSFORMS_PASSES_TD
