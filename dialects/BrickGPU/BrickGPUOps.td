#ifndef BRICKGPU_OPS_TD
#define BRICKGPU_OPS_TD

include "BrickGPU/BrickGPUDialect.td"
include "BrickGPU/BrickGPUAttrs.td"
include "BrickGPU/BrickGPUTypes.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "Brick/BrickTypes.td"
include "Brick/BrickAttrs.td"

def BrickGPU_SharedMemory : Resource<"::mlir::brickgpu::SharedMemory">;

class BrickGPU_Op<string mnemonic, list<Trait> traits = []> : Op<BrickGPU_Dialect, mnemonic, traits>;

def BrickGPU_ConvertLayoutOp : BrickGPU_Op<"convert_layout", [Pure, SameOperandsAndResultShape,
                                                               SameOperandsAndResultElementType]> {
  let summary = "Move a block's elements to the threads another layout assigns them to";
  let description = [{
    `brickgpu.convert_layout %x : tensor<128xf32, #a> -> tensor<128xf32, #b>`. Free when both layouts put
    every element in the same register of the same thread; otherwise the elements go through shared memory.
  }];
  let arguments = (ins AnyRankedTensor:$src);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def BrickGPU_LocalAllocOp : BrickGPU_Op<"local_alloc", [MemoryEffects<[MemAlloc<BrickGPU_SharedMemory>]>]> {
  let summary = "A buffer in shared memory, optionally filled from a block";
  let description = [{
    `brickgpu.local_alloc %x : (tensor<128x64xf16, #blocked>) -> !brickgpu.memdesc<128x64xf16, #shared>` gives a
    buffer of the memdesc's shape, element type and shared layout (swizzle), written with the block where there is
    one (which must have the buffer's shape and element type). Buffers live until their last use; the shared-memory
    allocation pass gives each its offset.
  }];
  let arguments = (ins Optional<AnyRankedTensor>:$src);
  let results = (outs BrickGPU_MemDescType:$result);
  let assemblyFormat = "($src^)? attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def BrickGPU_LocalLoadOp : BrickGPU_Op<"local_load", [MemoryEffects<[MemRead<BrickGPU_SharedMemory>]>]> {
  let summary = "Read a shared-memory buffer into a block of a distributed layout";
  let description = [{
    The inverse of `brickgpu.local_store`: each thread reads the elements the result's layout gives it (by
    `ldmatrix` where the layouts allow, else vector loads). The result has the buffer's shape and element type.
    Used where a layout conversion goes through shared memory and to feed `mma.sync` from staged operands.
  }];
  let arguments = (ins BrickGPU_MemDescType:$src);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$src attr-dict `:` qualified(type($src)) `->` type($result)";
  let hasVerifier = 1;
}

def BrickGPU_LocalStoreOp : BrickGPU_Op<"local_store", [MemoryEffects<[MemWrite<BrickGPU_SharedMemory>]>]> {
  let summary = "Write a block into a shared-memory buffer";
  let description = [{
    With `column_offset`, the buffer is narrower than the 2-D block and takes its columns [column_offset,
    column_offset + the buffer's width): an epilogue can stage a wide block through a small buffer, a column
    window at a time. Which registers hold the window's columns must not depend on the thread (the layout's lane
    and warp bases stay within one window), so that each thread writes a fixed subset of its registers.
  }];
  let arguments = (ins AnyRankedTensor:$src, BrickGPU_MemDescType:$dst, OptionalAttr<I64Attr>:$column_offset);
  let builders = [OpBuilder<(ins "Value":$src, "Value":$dst), [{ build($_builder, $_state, src, dst, IntegerAttr()); }]>];
  let assemblyFormat = "$src `,` $dst attr-dict `:` type($src) `->` qualified(type($dst))";
  let hasVerifier = 1;
}

def BrickGPU_BarrierOp : BrickGPU_Op<"barrier", [MemoryEffects<[MemRead<BrickGPU_SharedMemory>,
                                                                 MemWrite<BrickGPU_SharedMemory>]>]> {
  let summary = "Wait until every thread of the program arrives; orders shared-memory accesses (bar.sync 0)";
  let description = [{
    In a warp-specialized kernel (`brickgpu.producer_warps` on the module) a barrier waits for the warps that
    run the block-level code (the consumers: named barrier 1), unless `allWarps` says every warp of the program
    reaches it (before `brickgpu.warp_specialize`).
  }];
  let arguments = (ins UnitAttr:$allWarps);
  let assemblyFormat = "attr-dict";
}

def BrickGPU_MemDescIndexOp : BrickGPU_Op<"memdesc_index", [Pure]> {
  let summary = "One slot of a ring of shared-memory buffers";
  let description = [{
    `brickgpu.memdesc_index %ring[%i] : !brickgpu.memdesc<3x128x64xf16, #s> -> !brickgpu.memdesc<128x64xf16, #s>`
    is buffer `%i` of the ring (its leading dimension): the same layout, `%i` buffers further on.
  }];
  let arguments = (ins BrickGPU_MemDescType:$src, I32:$index);
  let results = (outs BrickGPU_MemDescType:$result);
  let assemblyFormat = "$src `[` $index `]` attr-dict `:` qualified(type($src)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def BrickGPU_MemDescTransOp : BrickGPU_Op<"memdesc_trans", [Pure]> {
  let summary = "A 2-D shared-memory buffer seen with its dimensions swapped";
  let description = [{
    `brickgpu.memdesc_trans %b : !brickgpu.memdesc<128x64xf16, #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>>
    -> !brickgpu.memdesc<64x128xf16, #brickgpu.nvmma_shared<{swizzle = 128, order = [0, 1]}>>` is the same bytes:
    element (i, j) of the result is element (j, i) of the source, and the layout's order is swapped with the
    dimensions. A wgmma dot reads a transposed block (a [N, K] weight's block as the K x N operand of x * W^T) in
    place, contiguous along K either way.
  }];
  let arguments = (ins BrickGPU_MemDescType:$src);
  let results = (outs BrickGPU_MemDescType:$result);
  let assemblyFormat = "$src attr-dict `:` qualified(type($src)) `->` qualified(type($result))";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The transposed view of `type` (2-D, #nvmma_shared), or a null type when it has no such view.
    static MemDescType transposed(MemDescType type);
  }];
}

def BrickGPU_AsyncCopyGlobalToLocalOp : BrickGPU_Op<"async_copy_global_to_local",
    [MemoryEffects<[MemRead, MemWrite<BrickGPU_SharedMemory>]>]> {
  let summary = "Start copying a block from global memory into a shared-memory buffer (cp.async)";
  let description = [{
    `brickgpu.async_copy_global_to_local %ptrs, %buffer mask %m : tensor<128x64x!brick.ptr<f16>, #l> -> !memdesc`
    starts one `cp.async` per vector of contiguous elements a thread holds (4, 8 or 16 bytes). Where the mask is
    false nothing is read and zeros are written. The copy completes at a later `async_wait` that leaves fewer
    groups pending than were committed since; until then the buffer must not be read.
  }];
  let arguments = (ins Brick_PtrLike:$ptr, BrickGPU_MemDescType:$dst, Optional<Brick_BoolLike>:$mask);
  let assemblyFormat = "$ptr `,` $dst (`mask` $mask^)? attr-dict `:` type($ptr) `->` qualified(type($dst)) (`,` type($mask)^)?";
  let hasVerifier = 1;
}

def BrickGPU_AsyncCommitGroupOp : BrickGPU_Op<"async_commit_group",
    [MemoryEffects<[MemWrite<BrickGPU_SharedMemory>]>]> {
  let summary = "Close the group of this thread's async copies started since the last commit (cp.async.commit_group)";
  let description = [{
    A later `brickgpu.async_wait {pending = N}` waits until at most N of this thread's groups are still in
    flight: the prefetching loop commits one group per stage so that it can wait for the oldest alone.
  }];
  let assemblyFormat = "attr-dict";
}

def BrickGPU_AsyncWaitOp : BrickGPU_Op<"async_wait",
    [MemoryEffects<[MemRead<BrickGPU_SharedMemory>, MemWrite<BrickGPU_SharedMemory>]>]> {
  let summary = "Wait until at most `pending` of this thread's committed copy groups are still running";
  let description = [{
    `brickgpu.async_wait %ring {pending = 1 : i32}` is `cp.async.wait_group 1`. Its operands are the buffers the
    copies write: they stay allocated until the wait (a `brickgpu.barrier` after it makes every thread's copies
    visible to the others).
  }];
  let arguments = (ins Variadic<BrickGPU_MemDescType>:$buffers, I32Attr:$pending);
  let assemblyFormat = "($buffers^ `:` qualified(type($buffers)))? attr-dict";
}

def BrickGPU_WarpGroupDotOp : BrickGPU_Op<"warpgroup_dot",
    [MemoryEffects<[MemRead<BrickGPU_SharedMemory>]>, AllTypesMatch<["c", "d"]>]> {
  let summary = "d = a * b + c on wgmma, B read from shared memory, A from shared memory or registers (sm_90a)";
  let description = [{
    `brickgpu.warpgroup_dot %a, %b, %c : !memdesc<128x64xf16, #nvmma>, !memdesc<64x128xf16, #nvmma> ->
    tensor<128x128xf32, #mma>`. The operands are `#brickgpu.nvmma_shared` buffers (A is M x K, B is K x N, either
    contiguous along K or along M/N for 16-bit types); the accumulator has an `#mma` version 3 layout. A may instead
    be a tensor in registers, `tensor<128x64xf16, #dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>>` (a computed
    operand: it then skips the round trip through shared memory). The
    warpgroups issue `wgmma.mma_async` for every instruction tile and K step and commit them as one group. When
    `isAsync` is false the dot also waits for them; when true the result may only be read after a
    `warpgroup_dot_wait` that leaves this dot's group complete, and the operands' buffers must not be written
    until then (and A's registers stay untouched: they are read as the instructions run).
    `zero_rows_from %n` carries brick.dot's promise (A's rows at or past `n` are zero): a warpgroup whose rows of
    an instruction tile all lie there skips that tile's wgmmas (the result's rows there are unspecified).
  }];
  let arguments = (ins AnyTypeOf<[BrickGPU_MemDescType, AnyRankedTensor]>:$a, BrickGPU_MemDescType:$b,
                       AnyRankedTensor:$c, Optional<I32>:$zeroRowsFrom,
                       DefaultValuedAttr<Brick_InputPrecision, "::mlir::brick::InputPrecision::ieee">:$inputPrecision,
                       UnitAttr:$isAsync);
  let results = (outs AnyRankedTensor:$d);
  let assemblyFormat = [{
    $a `,` $b `,` $c (`zero_rows_from` $zeroRowsFrom^)? attr-dict `:` qualified(type($a)) `,` qualified(type($b))
    `->` type($d)
  }];
  let hasVerifier = 1;
}

def BrickGPU_WarpGroupDotWaitOp : BrickGPU_Op<"warpgroup_dot_wait",
    [MemoryEffects<[MemRead<BrickGPU_SharedMemory>]>, AllTypesMatch<["inputs", "outputs"]>]> {
  let summary = "Wait until at most `pendings` asynchronous warpgroup dot groups are still running";
  let description = [{
    `%d2 = brickgpu.warpgroup_dot_wait %d {pendings = 1 : i32}` is `wgmma.wait_group.sync.aligned 1`. Its operands
    are the results of asynchronous dots, passed through: reading them through the wait (never before it) is
    what keeps the accumulator's registers untouched while the tensor cores write them.
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$inputs, I32Attr:$pendings);
  let results = (outs Variadic<AnyRankedTensor>:$outputs);
  let assemblyFormat = "$inputs attr-dict `:` type($inputs)";
}

//===----------------------------------------------------------------------===//
// mbarriers and TMA (sm_90a)
//===----------------------------------------------------------------------===//

def BrickGPU_InitBarrierOp : BrickGPU_Op<"init_barrier", [MemoryEffects<[MemWrite<BrickGPU_SharedMemory>]>]> {
  let summary = "Initialize an mbarrier in shared memory for `count` arrivals (one thread does)";
  let description = [{
    `brickgpu.init_barrier %bar, 1 : !brickgpu.memdesc<1xi64, #s>` is `mbarrier.init` by thread 0, then
    `fence.mbarrier_init`. A `brickgpu.barrier` must follow before other threads use it.
  }];
  let arguments = (ins BrickGPU_MemDescType:$barrier, I32Attr:$count);
  let assemblyFormat = "$barrier `,` $count attr-dict `:` qualified(type($barrier))";
  let hasVerifier = 1;
}

def BrickGPU_InvalidateBarrierOp : BrickGPU_Op<"inval_barrier", [MemoryEffects<[MemWrite<BrickGPU_SharedMemory>]>]> {
  let summary = "Invalidate an mbarrier (thread 0), so that its bytes may hold something else";
  let description = [{
    `brickgpu.inval_barrier %bar : !brickgpu.memdesc<1xi64, #s>` is `mbarrier.inval` by thread 0. Every thread
    must be done waiting on it (a `brickgpu.barrier` before).
  }];
  let arguments = (ins BrickGPU_MemDescType:$barrier);
  let assemblyFormat = "$barrier attr-dict `:` qualified(type($barrier))";
  let hasVerifier = 1;
}

def BrickGPU_BarrierExpectOp : BrickGPU_Op<"barrier_expect", [MemoryEffects<[MemWrite<BrickGPU_SharedMemory>]>]> {
  let summary = "Arrive on an mbarrier expecting `bytes` of TMA transactions (thread 0, where `pred` holds)";
  let description = [{
    `brickgpu.barrier_expect %bar, 32768, %pred : !brickgpu.memdesc<1xi64, #s>` is
    `mbarrier.arrive.expect_tx` by thread 0 when `%pred` is true: the barrier's phase completes once the TMA
    copies that signal it have written that many bytes.
  }];
  let arguments = (ins BrickGPU_MemDescType:$barrier, I32Attr:$bytes, I1:$pred);
  let assemblyFormat = "$barrier `,` $bytes `,` $pred attr-dict `:` qualified(type($barrier))";
  let hasVerifier = 1;
}

def BrickGPU_WaitBarrierOp : BrickGPU_Op<"wait_barrier",
    [MemoryEffects<[MemRead<BrickGPU_SharedMemory>, MemWrite<BrickGPU_SharedMemory>]>]> {
  let summary = "Wait until the mbarrier's phase of parity `phase` has completed (every thread)";
  let description = [{
    `brickgpu.wait_barrier %bar, %phase : !brickgpu.memdesc<1xi64, #s>` spins on `mbarrier.try_wait.parity`.
    Its optional `buffers` are what the awaited copies wrote: they stay allocated until the wait.
  }];
  let arguments = (ins BrickGPU_MemDescType:$barrier, I32:$phase, Variadic<BrickGPU_MemDescType>:$buffers);
  let assemblyFormat = [{
    $barrier `,` $phase (`buffers` $buffers^ `:` qualified(type($buffers)))? attr-dict `:` qualified(type($barrier))
  }];
  let hasVerifier = 1;
}

def BrickGPU_AsyncTMACopyGlobalToLocalOp : BrickGPU_Op<"async_tma_copy_global_to_local",
    [MemoryEffects<[MemRead, MemWrite<BrickGPU_SharedMemory>]>, AttrSizedOperandSegments]> {
  let summary = "Start TMA copies of a descriptor's block into a shared buffer, signalling an mbarrier";
  let description = [{
    `brickgpu.async_tma_copy_global_to_local %map[%i, %j] %buffer, %bar, %pred : !brick.tensormap ->
    !brickgpu.memdesc<128x64xf16, #nvmma>, !brickgpu.memdesc<1xi64, #s>` has thread 0 (where `%pred` holds)
    issue `cp.async.bulk.tensor` for the block whose first element is at (`%i`, `%j`), one box per swizzle span
    of its rows (as `brick::runtime::tmaBlockLayout` encodes the tensor map). Elements outside the tensor land as
    zeros. The copies complete the barrier's transactions (`barrier_expect` the block's bytes first).

    With `multicast %m`, in a kernel launched in clusters of C (`brickgpu.cluster_size`): where `%m` holds, each
    program of the cluster issues every C-th box (program r boxes r, r + C, ...) with `.multicast::cluster` to
    all C programs, which all issue this copy of the same block, each receiving the whole block in its `%buffer`
    and the transactions on its `%bar` (same offsets in every program); where it does not, each copies it all.
  }];
  let arguments = (ins Brick_TensorMapType:$map, Variadic<I32>:$indices, BrickGPU_MemDescType:$dst,
                       BrickGPU_MemDescType:$barrier, I1:$pred, Optional<I1>:$multicast);
  let assemblyFormat = [{
    $map `[` $indices `]` $dst `,` $barrier `,` $pred (`multicast` $multicast^)? attr-dict `:` qualified(type($dst))
    `,` qualified(type($barrier))
  }];
  let hasVerifier = 1;
}

def BrickGPU_FenceAsyncSharedOp : BrickGPU_Op<"fence_async_shared",
    [MemoryEffects<[MemRead<BrickGPU_SharedMemory>, MemWrite<BrickGPU_SharedMemory>]>]> {
  let summary = "Make this thread's shared-memory writes visible to the async proxy (TMA, wgmma)";
  let description = [{ `fence.proxy.async.shared::cta`; a `brickgpu.barrier` after it makes all threads' writes visible. }];
  let assemblyFormat = "attr-dict";
}

def BrickGPU_AsyncTMACopyLocalToGlobalOp : BrickGPU_Op<"async_tma_copy_local_to_global",
    [MemoryEffects<[MemWrite, MemRead<BrickGPU_SharedMemory>]>]> {
  let summary = "Store a shared buffer's block into a descriptor's tensor with TMA, asynchronously";
  let description = [{
    `brickgpu.async_tma_copy_local_to_global %map[%i, %j] %buffer : !brickgpu.memdesc<128x64xf16, #nvmma>` has
    thread 0 issue `cp.async.bulk.tensor` stores (one per swizzle span of the rows) of the block whose first
    element goes to (`%i`, `%j`) and commit them as a bulk group. Elements outside the tensor are not written.
    The buffer is laid out as the tensor map reads it; its contents must be fenced for the async proxy first,
    and nothing may write it (nor the program end) before a `brickgpu.async_tma_store_wait` says it was read.
  }];
  let arguments = (ins Brick_TensorMapType:$map, Variadic<I32>:$indices, BrickGPU_MemDescType:$src);
  let assemblyFormat = "$map `[` $indices `]` $src attr-dict `:` qualified(type($src))";
  let hasVerifier = 1;
}

def BrickGPU_AsyncTMAStoreWaitOp : BrickGPU_Op<"async_tma_store_wait",
    [MemoryEffects<[MemRead<BrickGPU_SharedMemory>, MemWrite<BrickGPU_SharedMemory>]>]> {
  let summary = "Wait until the TMA stores issued so far have read their shared buffers";
  let description = [{
    Thread 0 (which issued them) waits for its committed TMA store groups to have read shared memory
    (`cp.async.bulk.wait_group.read 0`; their writes to global memory complete on their own). A barrier after
    it (a `brickgpu.barrier`, or the one a `local_store` begins with) tells the other threads that the buffers
    may be written again.
  }];
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// Warp specialization (sm_90a)
//===----------------------------------------------------------------------===//

def BrickGPU_WarpSpecializeOp : BrickGPU_Op<"warp_specialize", []> {
  let summary = "Code that only the producer warps run, after which they exit";
  let description = [{
    In a kernel whose module has `brickgpu.producer_warps = P`, the program runs num_warps + P warps: warps
    num_warps and up (the producers) run this op's region and then exit the kernel; the others (the consumers)
    skip it and run what follows. The region ends in `brickgpu.warp_return`. Its ops marked `brickgpu.producer`
    that act once per program (TMA copies, barrier arrivals) act on the first producer thread.
  }];
  let regions = (region AnyRegion:$producer);
  let assemblyFormat = "$producer attr-dict";
}

def BrickGPU_WarpReturnOp : BrickGPU_Op<"warp_return", [Terminator, HasParent<"WarpSpecializeOp">]> {
  let summary = "End of the producer warps' code: they exit the kernel";
  let description = [{
    Terminates `brickgpu.warp_specialize`'s region. The producer warps return from the kernel here; they never
    reach the consumers' code after the op.
  }];
  let assemblyFormat = "attr-dict";
}

def BrickGPU_SetMaxRegistersOp : BrickGPU_Op<"set_max_registers", []> {
  let summary = "Raise or lower the registers each thread of the executing warpgroups may use (setmaxnreg)";
  let description = [{
    `brickgpu.set_max_registers 232 {increase}` is `setmaxnreg.inc.sync.aligned.u32 232`: producers give
    registers up, consumers take them.
  }];
  let arguments = (ins I32Attr:$count, UnitAttr:$increase);
  let assemblyFormat = "$count attr-dict";
  let hasVerifier = 1;
}

def BrickGPU_BarrierArriveOp : BrickGPU_Op<"barrier_arrive", [MemoryEffects<[MemWrite<BrickGPU_SharedMemory>]>]> {
  let summary = "Each executing warpgroup arrives once on an mbarrier, where `pred` holds";
  let description = [{
    `brickgpu.barrier_arrive %bar, %pred : !brickgpu.memdesc<1xi64, #s>` is `mbarrier.arrive` by the first
    thread of each warpgroup: consumers release a ring slot (the barrier counts one arrival per warpgroup).
    With `{cluster}` it arrives on the barrier at the same offset in every program of the cluster (a slot that
    multicast copies fill is free once every program's consumers released it).
  }];
  let arguments = (ins BrickGPU_MemDescType:$barrier, I1:$pred, UnitAttr:$cluster);
  let assemblyFormat = "$barrier `,` $pred attr-dict `:` qualified(type($barrier))";
  let hasVerifier = 1;
}

def BrickGPU_ClusterBarrierOp : BrickGPU_Op<"cluster_barrier",
    [MemoryEffects<[MemRead<BrickGPU_SharedMemory>, MemWrite<BrickGPU_SharedMemory>]>]> {
  let summary = "Every thread of every program of the cluster waits for all the others (barrier.cluster)";
  let description = [{
    `barrier.cluster.arrive.release` then `barrier.cluster.wait.acquire`: after it, what any thread of the
    cluster wrote before it (an mbarrier's initialization) is visible to all of them.
  }];
  let assemblyFormat = "attr-dict";
}

#endif // BRICKGPU_OPS_TD
