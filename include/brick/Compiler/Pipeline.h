//===- Pipeline.h - Brick's compilation pipeline, stage by stage ---------------===//
//
//   brick  --(canonicalize, cse, brick-combine)-->  brick
//          --(convert-brick-to-brickgpu, coalesce, accelerate-dot, remove-layout-conversions, pipeline,
//             allocate-shared-memory)--> brickgpu
//          --(scf-to-cf, convert-brickgpu-to-llvm)--> LLVM dialect --> LLVM IR --> PTX --> cubin (ptxas)
//
//===----------------------------------------------------------------------===//
#ifndef BRICK_COMPILER_PIPELINE_H
#define BRICK_COMPILER_PIPELINE_H

#include "brick/Runtime/Bundle.h"
#include "brick/Target/PTX.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"

#include <optional>
#include <string>
#include <vector>

namespace brick {

enum class Stage { Brick, BrickGPU, LLVMDialect, LLVMIR, PTX, Cubin, Bundle };
/// "brick", "brickgpu", "llvm-dialect", "llvm-ir", "ptx", "cubin", "bundle".
llvm::StringRef stageName(Stage stage);
llvm::Expected<Stage> parseStage(llvm::StringRef name);

struct CompileOptions {
  GpuTarget target;
  /// The GPU the cubin is assembled for, when not `target` (ptxas compiles older PTX for newer GPUs).
  std::optional<GpuTarget> assembleFor;
  unsigned numWarps = 4;
  /// Buffers in each ring the pipeline prefetches a loop's dot operands into (1: no prefetching).
  unsigned numStages = 3;
  /// sm_90a: split a TMA + wgmma K loop into a producer warpgroup and consumer warpgroups
  /// (brickgpu-warp-specialize); the kernel then runs 4 warps more than numWarps.
  bool warpSpecialize = false;
  /// sm_90 and newer: the kernel is launched in thread block clusters of this many programs (consecutive along
  /// grid axis 0): cluster_rank() and cluster_size() tell a program its place, and descriptor loads shared by the
  /// cluster are multicast in warp-specialized loops. 1: no clusters (on older targets, always).
  unsigned clusterSize = 1;
  /// exp, exp2, log, log2, sin, cos, tanh, rsqrt through PTX's approximate instructions (Triton's default).
  bool fastMath = true;
  /// When set, the IR after every pass, then the LLVM IR and the PTX, go to files in this folder, numbered
  /// in pipeline order.
  std::string dumpDirectory;
  /// Verify the IR after every pass (brickc, brick-opt, the tests), so that a pass that breaks it is named. When
  /// false (the JIT, unless $BRICK_VERIFY_EACH_PASS=1), only the input and the pipeline's output are verified:
  /// per-pass verification was a third of the MLIR passes' time on the sm_80 matmul.
  bool verifyEachPass = true;
};

/// What compiling a module produced, up to the stage asked for.
struct Artifacts {
  std::string kernelName;
  unsigned numWarps = 4;
  unsigned sharedMemory = 0; // dynamic shared memory bytes the launch must provide
  unsigned clusterSize = 1;  // programs per cluster (hardware clusters on sm_90 and newer)
  std::string llvmIR; // the LLVM IR as text, for the llvm-ir stage or a dump folder
  std::string ptx;
  std::vector<char> cubin;
  ResourceUsage usage;
  /// Milliseconds each step took: the MLIR passes, LLVM IR (translation and -O3), PTX (the NVPTX back end), ptxas.
  struct Timings {
    double mlir = 0, llvmIR = 0, ptx = 0, ptxas = 0;
    /// "MLIR 52 ms, LLVM IR 110 ms, PTX 85 ms, ptxas 80 ms" (the steps that ran).
    std::string str() const;
  } timings;
  /// The kernel's runtime parameters, in order (Const parameters are compiled in).
  std::vector<runtime::BundleParam> params;
  /// What the compiler was asked for and did not do, and why ("warp specialization was not applied: ..."): not
  /// errors (the kernel is correct without it), but a user who asked should hear of it.
  std::vector<std::string> notes;

  /// What the runtime loads: name, launch facts, signature, PTX and (when assembled) the cubin.
  runtime::KernelBundle bundle(const GpuTarget &target) const;
};

/// The runtime parameters of `module`'s (first) kernel, as a bundle lists them: pointers, scalars, tensor maps.
std::vector<runtime::BundleParam> kernelParams(mlir::ModuleOp module);

/// The dialects a module may hold at any stage.
void registerPipelineDialects(mlir::DialectRegistry &registry);

/// Runs the MLIR part of the pipeline over `module` up to `stage` (brick, brickgpu or llvm-dialect).
/// Errors are reported as diagnostics on the module's context.
mlir::LogicalResult lowerModule(mlir::ModuleOp module, const CompileOptions &options, Stage stage);
/// The same, numbering dumped files from `*dumpCounter` on (and advancing it).
mlir::LogicalResult lowerModule(mlir::ModuleOp module, const CompileOptions &options, Stage stage,
                                unsigned *dumpCounter);

/// Lowers `module` and carries on to LLVM IR, PTX and the cubin as far as `stage` asks (`bundle` means the
/// cubin when ptxas is there, else the PTX alone).
llvm::Expected<Artifacts> compile(mlir::ModuleOp module, const CompileOptions &options, Stage stage);

} // namespace brick

#endif // BRICK_COMPILER_PIPELINE_H
