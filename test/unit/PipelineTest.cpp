//===- PipelineTest.cpp - The pass pipeline's verification, pass by pass or at its ends ---===//

#include "brick/Compiler/Pipeline.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

using namespace brick;
using ::testing::HasSubstr;

namespace {

/// A kernel whose only op breaks its verifier: a program id has axes 0 to 2.
constexpr const char *kInvalidKernel = R"mlir(
func.func @bad() attributes {brick.kernel} {
  %0 = brick.num_programs 7
  return
}
)mlir";

struct Parsed {
  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  std::string errors;
  explicit Parsed(const char *source) {
    mlir::DialectRegistry registry;
    registerPipelineDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    context.getDiagEngine().registerHandler([this](mlir::Diagnostic &diagnostic) {
      errors += diagnostic.str() + "\n";
      return mlir::success();
    });
    // Unverified, as a caller of compile() may hand it over.
    module = mlir::parseSourceString<mlir::ModuleOp>(source, mlir::ParserConfig(&context, /*verifyAfterParse=*/false));
  }
};

// The JIT runs the passes without verifying after each one; it must still refuse IR that is invalid to begin with
// (the passes assume valid IR) with the verifier's message.
TEST(Pipeline, WithoutPerPassVerificationInvalidInputIsStillRejected) {
  for (bool eachPass : {true, false}) {
    Parsed parsed(kInvalidKernel);
    ASSERT_TRUE(parsed.module) << parsed.errors;
    CompileOptions options;
    options.target = *GpuTarget::parse("sm_80");
    options.verifyEachPass = eachPass;
    auto artifacts = compile(*parsed.module, options, Stage::PTX);
    ASSERT_FALSE(bool(artifacts)) << "verifyEachPass " << eachPass;
    llvm::consumeError(artifacts.takeError());
    EXPECT_THAT(parsed.errors, HasSubstr("whose maximum value is 2")) << "verifyEachPass " << eachPass;
  }
}

} // namespace
