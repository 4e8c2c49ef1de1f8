#ifndef BRICKGPU_OPS_TD
#define BRICKGPU_OPS_TD

include "BrickGPU/BrickGPUDialect.td"
include "BrickGPU/BrickGPUAttrs.td"
include "BrickGPU/BrickGPUTypes.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

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
  let arguments = (ins Optional<AnyRankedTensor>:$src);
  let results = (outs BrickGPU_MemDescType:$result);
  let assemblyFormat = "($src^)? attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def BrickGPU_LocalLoadOp : BrickGPU_Op<"local_load", [MemoryEffects<[MemRead<BrickGPU_SharedMemory>]>]> {
  let summary = "Read a shared-memory buffer into a block of a distributed layout";
  let arguments = (ins BrickGPU_MemDescType:$src);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$src attr-dict `:` qualified(type($src)) `->` type($result)";
  let hasVerifier = 1;
}

def BrickGPU_LocalStoreOp : BrickGPU_Op<"local_store", [MemoryEffects<[MemWrite<BrickGPU_SharedMemory>]>]> {
  let summary = "Write a block into a shared-memory buffer";
  let arguments = (ins AnyRankedTensor:$src, BrickGPU_MemDescType:$dst);
  let assemblyFormat = "$src `,` $dst attr-dict `:` type($src) `->` qualified(type($dst))";
  let hasVerifier = 1;
}

def BrickGPU_BarrierOp : BrickGPU_Op<"barrier", [MemoryEffects<[MemRead<BrickGPU_SharedMemory>,
                                                                 MemWrite<BrickGPU_SharedMemory>]>]> {
  let summary = "Wait until every thread of the program arrives; orders shared-memory accesses (bar.sync 0)";
  let assemblyFormat = "attr-dict";
}

#endif // BRICKGPU_OPS_TD
