//===- PTX.h - LLVM dialect -> LLVM IR -> PTX -> cubin --------------------------===//
#ifndef BRICK_TARGET_PTX_H
#define BRICK_TARGET_PTX_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace brick {

/// Which GPU code is for: sm_<capability>, with the `a` suffix (sm_90a: wgmma, setmaxnreg) when asked.
struct GpuTarget {
  unsigned computeCapability = 90;
  bool archSpecific = true;
  /// "sm_90a", "sm_80".
  std::string name() const;
  /// The most shared memory (bytes) one program may use: 163 KB on sm_80 and sm_87, 227 KB on sm_90 and sm_100,
  /// 99 KB on the others (sm_86, sm_89, sm_120).
  unsigned maxSharedMemory() const;
  /// Parses "sm_80", "sm_90", "sm_90a"; an error names what is accepted.
  static llvm::Expected<GpuTarget> parse(llvm::StringRef name);
};

/// The PTX ISA version Brick emits for `target` (times ten): 8.0 for sm_80 to sm_87, which CUDA 12.0+ ptxas and
/// drivers (r525+) accept; 8.4 from sm_89, whose 8-bit float mma.sync needs it (CUDA 12.4+, drivers r550+).
unsigned ptxVersion(const GpuTarget &target);

/// Translates a module in the LLVM and NVVM dialects to LLVM IR for `target`, optimized at -O3.
llvm::Expected<std::unique_ptr<llvm::Module>> translateToLLVMIR(mlir::ModuleOp module, llvm::LLVMContext &context,
                                                                const GpuTarget &target);

/// PTX for an LLVM module, through LLVM's NVPTX back end.
llvm::Expected<std::string> emitPTX(llvm::Module &module, const GpuTarget &target);

/// What ptxas said about a kernel (from -v).
struct ResourceUsage {
  unsigned registers = 0;
  unsigned spillStores = 0, spillLoads = 0;
  unsigned stackFrame = 0;
  unsigned sharedMemory = 0; // static shared memory; dynamic shared memory is on top of it
  std::string report;        // ptxas's own words
};

/// The ptxas to use: $BRICK_PTXAS, /usr/local/cuda/bin/ptxas, or ptxas on the PATH; empty when none.
std::string findPtxas();

/// Assembles PTX into a cubin with ptxas; `usage` receives its resource report.
llvm::Expected<std::vector<char>> assembleCubin(llvm::StringRef ptx, const GpuTarget &target, ResourceUsage *usage);

} // namespace brick

#endif // BRICK_TARGET_PTX_H
