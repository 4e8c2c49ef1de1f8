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

#endif // BRICKGPU_ATTRS_TD
