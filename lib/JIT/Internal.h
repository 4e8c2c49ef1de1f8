//===- Internal.h - What the JIT's GPU and interpreter launches share (private) -------===//
#ifndef BRICK_LIB_JIT_INTERNAL_H
#define BRICK_LIB_JIT_INTERNAL_H

#include "brick/JIT/JIT.h"

#include <chrono>
#include <memory>

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

namespace brick::detail {

/// 16 hex digits.
std::string hex(uint64_t value);
/// $BRICK_CACHE_DIR, or ~/.cache/brick.
std::string cacheDirectory();
/// The compiler's version and commit: part of every disk-cache key.
const char *compilerId();
/// Whether the JIT verifies the IR after every pass ($BRICK_VERIFY_EACH_PASS=1, to find which pass breaks a
/// kernel's IR) rather than only the pipeline's input and output.
bool verifyEachPass();

/// The errors `context` reports while this lives, as "\n<location>: error: <message>" lines (for DSL ops, the
/// user's C++ lines).
class CollectedErrors {
public:
  explicit CollectedErrors(mlir::MLIRContext &context);
  const std::string &text() const { return text_; }

private:
  std::string text_;
  mlir::ScopedDiagnosticHandler handler_;
};

/// A kernel's brick IR the interpreter runs, in a context of its own (a launch's specialization, an AOT bundle's IR).
struct InterpretedKernel {
  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  mlir::func::FuncOp function;

  explicit InterpretedKernel(const mlir::DialectRegistry &registry)
      : context(registry, mlir::MLIRContext::Threading::DISABLED) {}
};

/// A Scalar or Const argument as the number a floating-point parameter takes: an unsigned integer above INT64_MAX
/// (held wrapped in `integer`) is itself, not its wrap.
double numberOf(const LaunchArg &arg);

/// One number per parameter saying what the specialization keeps of its argument, then the options and the
/// device (its compute capability and ordinal, as a loaded kernel belongs to one device's context; null and 0s
/// for the interpreter).
void compactKey(const std::vector<ParamInfo> &params, const LaunchArg *args, const LaunchOptions &options,
                const runtime::Device *device, llvm::SmallVectorImpl<int64_t> &key);

/// Builds `kernel`'s brick IR for `spec` into `context`; `ir` receives its text (what the disk cache key hashes).
runtime::Expected<mlir::OwningOpRef<mlir::ModuleOp>> buildModule(const JitKernel &kernel, const Specialization &spec,
                                                                  mlir::MLIRContext &context, std::string *ir = nullptr);

/// The memory cache (hold state.mutex): what `key` compiled to, or null.
std::shared_ptr<void> findCompiled(JitState &state, llvm::ArrayRef<int64_t> key);
/// Keeps `compiled` under `key` and logs why it was made ("compiled", "disk cache", "built") and how long it took.
void remember(JitState &state, llvm::ArrayRef<int64_t> key, std::shared_ptr<void> compiled, const JitKernel &kernel,
              const Specialization &spec, const LaunchOptions &options, const std::string &target,
              const std::string &why, std::chrono::steady_clock::time_point start);

/// The device a launch with `options` runs on: options.device, or the default one (GPU 0, or the interpreter
/// when BRICK_INTERPRET=1), opened once.
runtime::Expected<const runtime::Device *> launchDevice(const LaunchOptions &options);

/// Checks every argument against its parameter (numbers that fit, descriptors TMA can use, no fromConfig).
runtime::Error validateArguments(const std::string &name, const std::vector<ParamInfo> &params, const LaunchArg *args,
                                 size_t count);

/// A launch on the CPU interpreter: builds the specialization's brick IR once (kept in `state`) and runs it.
runtime::Error interpretLaunch(const std::string &name, const std::vector<ParamInfo> &params, JitState &state,
                               const std::function<JitKernel()> &describe, Grid grid, const LaunchOptions &options,
                               const LaunchArg *args, size_t count);

/// Whether launches on this thread are recorded (brick/JIT/Profile.h: on, and not paused by the autotuner).
bool profiling();

/// One launch to record: what the profiler needs to count it (its IR is built once per specialization).
struct ProfiledLaunch {
  const std::string *name;
  const std::vector<ParamInfo> *params;
  JitState *state;
  const std::function<JitKernel()> *describe;
  llvm::ArrayRef<int64_t> key; // the memory cache's key of the specialization
  Grid grid;                   // as launched (a persistent grid made concrete)
  const LaunchOptions *options;
  const LaunchArg *args;
  size_t count;
  const runtime::Device *device;
  std::string target; // "sm_90a", "interpreter"
};

/// Runs `run` (the launch) between two events on the launch's stream and records it, with its count.
runtime::Error profiledLaunch(const ProfiledLaunch &launch, llvm::function_ref<runtime::Error()> run);

} // namespace brick::detail

#endif // BRICK_LIB_JIT_INTERNAL_H
