//===- Internal.h - What the JIT's GPU and interpreter launches share (private) -------===//
#ifndef BRICK_LIB_JIT_INTERNAL_H
#define BRICK_LIB_JIT_INTERNAL_H

#include "brick/JIT/JIT.h"

#include "llvm/ADT/SmallVector.h"

namespace brick::detail {

/// One number per parameter saying what the specialization keeps of its argument, then the options and the
/// device (its compute capability; 0 for the interpreter).
void compactKey(const std::vector<ParamInfo> &params, const LaunchArg *args, const LaunchOptions &options,
                int capability, llvm::SmallVectorImpl<int64_t> &key);

/// A launch on the CPU interpreter: builds the specialization's brick IR once (kept in `state`) and runs it.
runtime::Error interpretLaunch(const std::string &name, const std::vector<ParamInfo> &params, JitState &state,
                               const std::function<JitKernel()> &describe, Grid grid, const LaunchOptions &options,
                               const LaunchArg *args, size_t count);

} // namespace brick::detail

#endif // BRICK_LIB_JIT_INTERNAL_H
