#ifndef BRICKGPU_ATTRS_TD
#define BRICKGPU_ATTRS_TD

include "BrickGPU/BrickGPUDialect.td"
include "mlir/IR/AttrTypeBase.td"

def BrickGPU_DistributedLayout : AttrInterface<"DistributedLayoutAttr"> {
  let cppNamespace = "::mlir::brickgpu";
  let description = [{
    A layout of a block over the registers, lanes and warps of one program. Every such layout is linear:
    `toLinearLayout(shape)` says which element each (register, lane, warp) holds, and the lowering to LLVM
    works from that alone, so a new layout (mma accumulators, dot operands) only has to say how it is linear.
  }];
  let methods = [
    InterfaceMethod<"The element each (register, lane, warp) holds, for a block of this shape",
      "::mlir::brickgpu::LinearLayout", "toLinearLayout", (ins "::llvm::ArrayRef<int64_t>":$shape)>,
    InterfaceMethod<"The number of warps the layout spreads a block over", "unsigned", "getNumWarps", (ins)>,
    InterfaceMethod<"The rank of the blocks it lays out", "unsigned", "getRank", (ins)>,
  ];
}

class BrickGPU_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<BrickGPU_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def BrickGPU_BlockedEncodingAttr : BrickGPU_Attr<"BlockedEncoding", "blocked",
    [DeclareAttrInterfaceMethods<BrickGPU_DistributedLayout>]> {
  let summary = "A block tiled over threads: each thread holds sizePerThread contiguous elements per tile";
  let description = [{
    One tile is `sizePerThread[d] * threadsPerWarp[d] * warpsPerCTA[d]` elements along dimension d; a larger
    block repeats the tile in each thread's registers, a smaller one is replicated over threads. `order`
    lists the dimensions fastest-varying first: consecutive registers, lanes and warps step along order[0].
    ```mlir
    #brickgpu.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"unsigned">:$sizePerThread, ArrayRefParameter<"unsigned">:$threadsPerWarp,
                        ArrayRefParameter<"unsigned">:$warpsPerCTA, ArrayRefParameter<"unsigned">:$order);
  let assemblyFormat = [{
    `<` `{` `sizePerThread` `=` `[` $sizePerThread `]` `,` `threadsPerWarp` `=` `[` $threadsPerWarp `]` `,`
    `warpsPerCTA` `=` `[` $warpsPerCTA `]` `,` `order` `=` `[` $order `]` `}` `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// A layout for a block of `shape` over `numWarps` warps: `sizePerThreadFastest` elements per thread
    /// along the fastest dimension, then lanes and warps spread fastest dimension first. `order` lists the
    /// dimensions fastest first; empty means row-major (the last dimension fastest).
    static BlockedEncodingAttr getDefault(::mlir::MLIRContext *context, ::llvm::ArrayRef<int64_t> shape,
                                          unsigned numWarps, unsigned sizePerThreadFastest = 1,
                                          ::llvm::ArrayRef<unsigned> order = {});
  }];
}

def BrickGPU_SliceEncodingAttr : BrickGPU_Attr<"SliceEncoding", "slice",
    [DeclareAttrInterfaceMethods<BrickGPU_DistributedLayout>]> {
  let summary = "A layout with one dimension removed: what a reduction along it leaves";
  let description = [{
    `#brickgpu.slice<{dim = 1, parent = #blocked}>` lays out a rank-(r-1) block as `parent` lays out the rank-r
    block it came from, with dimension `dim` collapsed: the threads that held a row of dimension `dim` all
    hold its one remaining element. `expand_dims` along `dim` turns it back into `parent`.
  }];
  let parameters = (ins "unsigned":$dim, "::mlir::brickgpu::DistributedLayoutAttr":$parent);
  let assemblyFormat = "`<` `{` struct(params) `}` `>`";
  let genVerifyDecl = 1;
}

def BrickGPU_MmaEncodingAttr : BrickGPU_Attr<"MmaEncoding", "mma",
    [DeclareAttrInterfaceMethods<BrickGPU_DistributedLayout>]> {
  let summary = "The accumulator of tensor-core instructions: mma.sync (version 2) or wgmma (version 3)";
  let description = [{
    Version 2 is the accumulator of `mma.sync.m16n8k*`: in each 16x8 tile a warp holds, lane `l` holds the
    elements (l / 4, 2 * (l % 4) + {0, 1}) and the same two 8 rows further down. `warpsPerCTA` spreads warps over
    M and N (warp bits along N first); a block larger than the warps' tiles repeats the tile in each thread's
    registers, along N first, then M. `instrShape` is the instruction's [M, N]: [16, 8].

    Version 3 is the accumulator of `wgmma.mma_async.m64nNk*` (sm_90a), issued by warpgroups of 4 warps:
    `instrShape = [64, N]`, N a power of two from 8 to 256. Warp w of a warpgroup holds rows 16 (w % 4) .. +15 of
    the instruction's 64 x N tile, each 16 x 8 piece as version 2 does, pieces along N in consecutive registers.
    Warp bits go along M first (the 4 warps of a warpgroup, then warpsPerCTA[0] / 4 warpgroups), then N; a block
    larger than the warpgroups' tiles repeats them in registers, along N first, then M.
    ```mlir
    #brickgpu.mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
    #brickgpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128]}>
    ```
  }];
  let parameters = (ins "unsigned":$versionMajor, ArrayRefParameter<"unsigned">:$warpsPerCTA,
                        ArrayRefParameter<"unsigned">:$instrShape);
  let assemblyFormat = [{
    `<` `{` `version` `=` $versionMajor `,` `warpsPerCTA` `=` `[` $warpsPerCTA `]` `,`
    `instrShape` `=` `[` $instrShape `]` `}` `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    bool isWarpGroup() const { return getVersionMajor() == 3; }
  }];
}

def BrickGPU_DotOperandEncodingAttr : BrickGPU_Attr<"DotOperandEncoding", "dot_op",
    [DeclareAttrInterfaceMethods<BrickGPU_DistributedLayout>]> {
  let summary = "An operand of a tensor-core dot, in the registers its instruction reads";
  let description = [{
    `opIdx` 0 is A (M x K), 1 is B (K x N) of a dot whose result has the `#mma` layout `parent`. `kWidth` is how many
    elements along K one thread holds together in a 32-bit register (2 for f16 and bf16, 1 for tf32, 4 for i8).
    For mma.sync the instruction's K is 8 * kWidth; A's fragment holds (l / 4, kWidth * (l % 4) + i) and the copies 8
    rows down and 4 * kWidth along K; B's holds (kWidth * (l % 4) + i, l / 4) and the copy 4 * kWidth along K. Warps
    that split the parent along the other operand's dimension hold the same elements.
    With an `#mma` version 3 parent (wgmma, A only) each warp of a warpgroup holds that fragment for its 16 of the
    instruction's 64 rows, K step after K step: the layout a wgmma accumulator over the same
    rows already has, so an accumulator turned into the next dot's A (attention's P) moves no data.
    ```mlir
    #brickgpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
    ```
  }];
  let parameters = (ins "unsigned":$opIdx, "::mlir::brickgpu::MmaEncodingAttr":$parent, "unsigned":$kWidth);
  let assemblyFormat = "`<` `{` struct(params) `}` `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The instruction's K: how many elements along K one mma.sync consumes.
    unsigned getInstrK() const { return 8 * getKWidth(); }
  }];
}

def BrickGPU_SharedEncodingAttr : BrickGPU_Attr<"SharedEncoding", "shared"> {
  let summary = "How a block is laid out in shared memory: row order and an XOR swizzle against bank conflicts";
  let description = [{
    Elements are stored along `order` (fastest first). With `maxPhase` > 1, groups of `vec` elements of a row
    are XOR-swizzled by `(row / perPhase) % maxPhase`, so that column accesses spread over the banks.
  }];
  let parameters = (ins "unsigned":$vec, "unsigned":$perPhase, "unsigned":$maxPhase, ArrayRefParameter<"unsigned">:$order);
  let assemblyFormat = [{
    `<` `{` `vec` `=` $vec `,` `perPhase` `=` $perPhase `,` `maxPhase` `=` $maxPhase `,` `order` `=` `[` $order `]` `}` `>`
  }];
}

def BrickGPU_NVMMASharedEncodingAttr : BrickGPU_Attr<"NVMMASharedEncoding", "nvmma_shared"> {
  let summary = "The shared-memory layout wgmma and TMA read: 32, 64 or 128-byte swizzled rows";
  let description = [{
    A 2-D buffer whose fastest dimension (`order[0]`) is cut into columns of `swizzle` bytes; each column is
    stored whole (every row of it, `swizzle` bytes per row) before the next. Within a column, the 16-byte groups
    of row r are XOR-swizzled by (r / (128 / swizzle)) % (swizzle / 16): the pattern the hardware applies to
    address bits 4.. with bits 7.., so buffers start at 1024-byte boundaries. A wgmma descriptor then names an
    operand tile by its start address, the bytes between columns (leading byte offset) and between groups of 8
    rows (stride byte offset, 8 * swizzle).
    ```mlir
    #brickgpu.nvmma_shared<{swizzle = 128, order = [1, 0]}>
    ```
  }];
  let parameters = (ins "unsigned":$swizzle, ArrayRefParameter<"unsigned">:$order);
  let assemblyFormat = "`<` `{` `swizzle` `=` $swizzle `,` `order` `=` `[` $order `]` `}` `>`";
  let genVerifyDecl = 1;
}

#endif // BRICKGPU_ATTRS_TD
