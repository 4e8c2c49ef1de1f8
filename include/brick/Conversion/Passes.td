#ifndef BRICK_CONVERSION_PASSES_TD
#define BRICK_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertBrickToBrickGPU : Pass<"convert-brick-to-brickgpu", "::mlir::ModuleOp"> {
  let summary = "Give every block a layout over the threads of a program";
  let description = [{
    Every tensor gets the default `#brickgpu.blocked` layout for its shape and `num-warps` (threads spread
    along the last dimension first). Ops whose operand and result layouts must be related get conversions:
    `expand_dims` takes a `#brickgpu.slice` of its result's layout, `broadcast` takes its result's layout,
    and `reduce` yields a slice of its source's layout. `coalesce` and `remove-layout-conversions` improve on
    these defaults. The module records `brickgpu.num_warps`.
  }];
  let options = [Option<"numWarps", "num-warps", "unsigned", "4", "Warps per program">];
  let dependentDialects = ["::mlir::brickgpu::BrickGPUDialect"];
}

def ConvertBrickGPUToLLVM : Pass<"convert-brickgpu-to-llvm", "::mlir::ModuleOp"> {
  let summary = "Lower brick and brickgpu to per-thread code in the LLVM and NVVM dialects";
  let description = [{
    Each block value becomes an LLVM struct of the elements the running thread holds (its layout says which);
    each op becomes the per-thread code that computes them: predicated, vectorized global loads and stores,
    warp shuffles and shared memory for reductions, shared memory for layout conversions. Kernels become
    `llvm.func`s with the `nvvm.kernel` attribute. Needs `allocate-shared-memory` first.
  }];
  let options = [
    Option<"computeCapability", "compute-capability", "unsigned", "90", "SM version the code is for (80, 90)">,
    Option<"fastMath", "fast-math", "bool", "true",
           "Lower exp/exp2/log/log2/sin/cos/tanh/rsqrt to PTX's approximate instructions (ex2.approx.ftz, lg2.approx, ...), as Triton does, and f32 division to div.full (1 / y to rcp.approx.ftz)">,
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect"];
}

#endif // BRICK_CONVERSION_PASSES_TD
