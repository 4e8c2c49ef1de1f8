#ifndef BRICKGPU_DIALECT_TD
#define BRICKGPU_DIALECT_TD

include "mlir/IR/OpBase.td"

def BrickGPU_Dialect : Dialect {
  let name = "brickgpu";
  let cppNamespace = "::mlir::brickgpu";
  let summary = "Brick blocks laid out over the threads of an NVIDIA GPU";
  let description = [{
    `brickgpu` gives every block tensor a *layout* (its type's encoding): which registers of which lanes of
    which warps hold which elements. It adds the ops that layouts need: converting between layouts, and
    shared-memory buffers with their loads, stores and barriers. A module in this dialect carries
    `brickgpu.num_warps` (warps per program) and, once allocated, `brickgpu.shared` (bytes of shared memory).
  }];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let dependentDialects = ["::mlir::brick::BrickDialect"];
  let extraClassDeclaration = [{
    static constexpr ::llvm::StringLiteral getNumWarpsAttrName() { return "brickgpu.num_warps"; }
    static constexpr ::llvm::StringLiteral getSharedAttrName() { return "brickgpu.shared"; }
    static constexpr ::llvm::StringLiteral getOffsetAttrName() { return "brickgpu.offset"; }
    /// Warps per program of the module enclosing `op` (4 when unset).
    static unsigned getNumWarps(::mlir::Operation *op);
    /// Programs per cluster the module's kernels are launched in (sm_90: thread block clusters along grid axis 0).
    static constexpr ::llvm::StringLiteral getClusterSizeAttrName() { return "brickgpu.cluster_size"; }
    /// The cluster size of the module enclosing `op` (1 when unset).
    static unsigned getClusterSize(::mlir::Operation *op);
  }];
}

#endif // BRICKGPU_DIALECT_TD
