//===- FuzzPipeline.cpp - Fuzz target: parse, verify, compile to PTX ------------===//
//
// Any input must end in success or in diagnostics: never a crash, a hang or a memory error. Built with
// libFuzzer (BRICK_FUZZ=ON, clang) as brick-fuzz, and without it as brick-fuzz-replay, which runs given files
// through the same function (the corpus and the crash regressions, in the test suite).
//
//===----------------------------------------------------------------------===//

#include "brick/Compiler/Pipeline.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/SourceMgr.h"

#include <cstddef>
#include <cstdint>
#include <string>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
// MLIR's bump allocator, inlined into this instrumented code, poisons fresh slabs that the uninstrumented libMLIR
// then writes without unpoisoning: a false report on the first seed. Those checks are off; the rest are on.
extern "C" const char *__asan_default_options() { return "allow_user_poisoning=0"; }
#endif
#endif

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static mlir::DialectRegistry *registry = [] {
    auto *r = new mlir::DialectRegistry();
    brick::registerPipelineDialects(*r);
    return r;
  }();
  mlir::MLIRContext context(*registry, mlir::MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
  // Diagnostics are expected outcomes; only crashes are findings.
  mlir::ScopedDiagnosticHandler quiet(&context, [](mlir::Diagnostic &) { return mlir::success(); });

  // MLIR's lexer reads up to a terminating NUL: give it one (libFuzzer's bytes have none; the first crash
  // this target found, kept in regressions/unterminated-buffer.mlir, was this harness reading past them).
  std::string text(reinterpret_cast<const char *>(data), size);
  mlir::ParserConfig config(&context);
  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::parseSourceString<mlir::ModuleOp>(text, config);
  if (!module || mlir::failed(mlir::verify(*module)))
    return 0;
  brick::CompileOptions options;
  // The first byte picks the warps and the target, so both vary with the input.
  options.numWarps = 1u << (size ? data[0] % 4 : 2);
  options.target.computeCapability = size && (data[0] & 16) ? 80 : 90;
  auto artifacts = brick::compile(*module, options, brick::Stage::PTX);
  if (!artifacts)
    llvm::consumeError(artifacts.takeError());
  return 0;
}
