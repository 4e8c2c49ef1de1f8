//===- brickc.cpp - Compile a kernel to any stage and inspect it ---------------===//
//
//   brickc kernel.mlir --emit=ptx --arch=sm_90a -o kernel.ptx
//   brickc --example=softmax --emit=brickgpu --num-warps=8
//   brickc --example=matmul --emit=cubin --resource-usage -o matmul.cubin
//   brickc kernel.mlir --emit=ptx --dump-dir=stages/      (the IR after every pass, numbered)
//   brickc --example=softmax --emit=bundle -o softmax.brick  (AOT: the runtime loads it without the compiler)
//
//===----------------------------------------------------------------------===//

#include "catalog.h"

#include "brick/Compiler/Pipeline.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;

// --help lists these; LLVM's own options are behind --help-hidden.
static cl::OptionCategory brickCategory("Brick options");

static cl::opt<std::string> inputFile(cl::cat(brickCategory), cl::Positional, cl::desc("<input .mlir file (brick dialect)>"), cl::init(""));
static cl::opt<std::string> exampleName(cl::cat(brickCategory), "example",
                                        cl::desc("Compile a built-in example instead of a file (--list-examples "
                                                 "names them all: matmul, attention, moe, matmul_fp8_block_scaled, ...)"),
                                        cl::value_desc("name"), cl::init(""));
static cl::opt<bool> listExamples(cl::cat(brickCategory), "list-examples", cl::desc("List the built-in examples"));
static cl::list<int64_t> constants(cl::cat(brickCategory), "constants", cl::CommaSeparated,
                                   cl::desc("The example's Const parameters, in order, instead of its typical ones "
                                            "(--constants=128,256,64,8 for matmul's tiles)"));
static cl::opt<std::string> emit(cl::cat(brickCategory), "emit", cl::desc("Stage to stop at and print: brick, brickgpu, llvm-dialect, "
                                                  "llvm-ir, ptx, cubin, or bundle (an AOT kernel bundle the runtime "
                                                  "loads without the compiler)"),
                                 cl::init("ptx"));
static cl::opt<std::string> arch(cl::cat(brickCategory), "arch", cl::desc("GPU architecture: sm_80, sm_86, sm_87, sm_89, sm_90 or sm_90a"), cl::init("sm_90a"));
static cl::opt<unsigned> numWarps(cl::cat(brickCategory), "num-warps", cl::desc("Warps per program (default: 4, or the example's)"),
                                  cl::init(4));
static cl::opt<unsigned> numStages(cl::cat(brickCategory), "num-stages",
                                   cl::desc("Buffers per ring when prefetching a loop's dot operands (1: none; "
                                            "default: 3, or the example's)"),
                                   cl::init(3));
static cl::opt<bool> warpSpecialize(cl::cat(brickCategory), "warp-specialize",
                                    cl::desc("sm_90a: a producer warpgroup issues a TMA + wgmma K loop's copies while "
                                             "the num-warps consumer warps multiply (4 more warps run)"));
static cl::opt<unsigned> clusterSize(cl::cat(brickCategory), "cluster-size",
                                     cl::desc("Programs per cluster (2, 4 or 8; sm_90 launches thread block clusters): "
                                              "cluster_rank(), cluster_size(), multicast of blocks the cluster shares"),
                                     cl::init(1));
static cl::opt<bool> noFastMath(cl::cat(brickCategory), "no-fast-math", cl::desc("Precise exp/log/sin/cos/tanh (polynomials) and f32 "
                                                         "division (IEEE) instead of PTX's approximate instructions"));
static cl::opt<std::string> dumpDir(cl::cat(brickCategory), "dump-dir", cl::desc("Write the IR after every pass, the LLVM IR and the PTX "
                                                         "into this folder, numbered in pipeline order"),
                                    cl::init(""));
static cl::opt<std::string> outputFile(cl::cat(brickCategory), "o", cl::desc("Output file ('-' for stdout)"), cl::init("-"));
static cl::opt<bool> resourceUsage(cl::cat(brickCategory), "resource-usage", cl::desc("Assemble with ptxas and report registers, spills "
                                                              "and shared memory (on stderr)"));

static cl::opt<bool> verifyEach(cl::cat(brickCategory), "verify-each",
                                cl::desc("Verify the IR after every pass (default); =false verifies the input and the "
                                         "LLVM dialect only, as the JIT does"),
                                cl::init(true));
static cl::opt<bool> timeStages(cl::cat(brickCategory), "time-stages", cl::desc("Print how long each step took (the MLIR passes, LLVM IR, "
                                                        "PTX, ptxas) on stderr"));

static int fail(const Twine &message) {
  WithColor::error(errs(), "brickc") << message << "\n";
  return 1;
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  // LLVM's options stay usable and listed by --help-hidden (cl::HideUnrelatedOptions would drop them from it).
  for (auto &[name, option] : cl::getRegisteredOptions())
    if (!llvm::is_contained(option->Categories, &brickCategory) && name != "help" && name != "help-hidden" &&
        name != "version" && option->getOptionHiddenFlag() == cl::NotHidden)
      option->setHiddenFlag(cl::Hidden);
  cl::ParseCommandLineOptions(argc, argv,
                              "brickc: compile a Brick kernel (a .mlir file or a built-in example) to any stage\n\n"
                              "  brickc --example=softmax --emit=ptx --arch=sm_90a\n"
                              "  brickc kernel.mlir --emit=brickgpu --num-warps=8 --dump-dir=stages\n\n"
                              "LLVM's own options: --help-hidden. A program's own kernels: brick::tool::main "
                              "(brick/Tool/Tool.h).\n");

  if (listExamples) {
    for (const examples::Example &example : examples::catalog())
      outs() << example.name << "\t" << example.summary << "\n";
    return 0;
  }
  auto stage = brick::parseStage(emit);
  if (!stage)
    return fail(toString(stage.takeError()));
  auto target = brick::GpuTarget::parse(arch);
  if (!target)
    return fail(toString(target.takeError()));
  if (numWarps == 0 || (numWarps & (numWarps - 1)) || numWarps > 32)
    return fail("--num-warps must be a power of two from 1 to 32, got " + Twine(numWarps));
  if (numStages == 0 || numStages > 8)
    return fail("--num-stages must be from 1 to 8, got " + Twine(numStages));
  if (inputFile.empty() == exampleName.empty())
    return fail("give either an input .mlir file or --example=<name> (--list-examples lists them)");

  mlir::DialectRegistry registry;
  brick::registerPipelineDialects(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  SourceMgr sourceMgr;
  // Errors carry their locations: the .mlir line, or the C++ line of the DSL call.
  mlir::SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);

  mlir::OwningOpRef<mlir::ModuleOp> module;
  if (!exampleName.empty()) {
    const examples::Example *example = examples::findExample(exampleName);
    if (!example)
      return fail("no example named '" + exampleName + "' (--list-examples lists them)");
    brick::Specialization spec = example->spec;
    if (!constants.empty()) {
      size_t next = 0;
      for (brick::Arg &arg : spec)
        if (arg.isConstant() && next < constants.size())
          arg = brick::Arg(constants[next++]);
      size_t expected = llvm::count_if(example->spec, [](const brick::Arg &arg) { return arg.isConstant(); });
      if (next != constants.size() || next != expected)
        return fail("--constants: example '" + exampleName + "' has " + Twine(expected) + " Const parameters, got " +
                    Twine(constants.size()));
      if (example->withConstants) {
        spec = example->withConstants(std::vector<int64_t>(constants.begin(), constants.end()));
        // (The catalog's own mistake, as when a kernel gains a Const parameter and its rule does not.)
        if (spec.empty())
          return fail("--constants: example '" + exampleName + "' makes no specialization from " +
                      Twine(constants.size()) + " constants (examples/catalog.cpp)");
      }
    }
    brick::BuildResult built = example->buildSpecialization(&context, spec, [&](mlir::Operation *op) {
      module = mlir::OwningOpRef<mlir::ModuleOp>(cast<mlir::ModuleOp>(op->clone()));
    });
    if (!built) {
      errs() << built.errors();
      return 1;
    }
    // The example's own launch configuration, unless the command line says otherwise.
    if (!numWarps.getNumOccurrences())
      numWarps = example->numWarps;
    if (!numStages.getNumOccurrences())
      numStages = example->numStages;
  } else {
    std::string message;
    auto file = mlir::openInputFile(inputFile, &message);
    if (!file)
      return fail(message);
    sourceMgr.AddNewSourceBuffer(std::move(file), SMLoc());
    module = mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, &context);
    if (!module)
      return 1;
  }

  brick::CompileOptions options;
  options.target = *target;
  options.numWarps = numWarps;
  options.numStages = numStages;
  options.warpSpecialize = warpSpecialize;
  options.clusterSize = clusterSize;
  options.fastMath = !noFastMath;
  options.dumpDirectory = dumpDir;
  options.verifyEachPass = verifyEach;
  // The resource report needs a cubin, whatever stage is printed: it compiles a copy.
  if (resourceUsage) {
    mlir::OwningOpRef<mlir::ModuleOp> copy(module->clone());
    brick::CompileOptions reportOptions = options;
    reportOptions.dumpDirectory.clear();
    auto report = brick::compile(*copy, reportOptions, brick::Stage::Cubin);
    if (!report)
      return fail(toString(report.takeError()));
    const brick::ResourceUsage &usage = report->usage;
    errs() << report->kernelName << " (" << target->name() << ", " << numWarps << " warps): " << usage.registers
           << " registers, " << usage.spillStores << " bytes spill stores, " << usage.spillLoads
           << " bytes spill loads, " << usage.stackFrame << " bytes stack, " << usage.sharedMemory
           << " bytes static + " << report->sharedMemory << " bytes dynamic shared memory\n";
  }
  auto artifacts = brick::compile(*module, options, *stage);
  if (!artifacts)
    return fail(toString(artifacts.takeError()));
  if (timeStages)
    errs() << artifacts->kernelName << " (" << target->name() << "): " << artifacts->timings.str() << "\n";
  for (const std::string &note : artifacts->notes)
    WithColor::warning(errs(), "brickc") << note << "\n";

  std::string message;
  auto output = mlir::openOutputFile(outputFile, &message);
  if (!output)
    return fail(message);
  switch (*stage) {
  case brick::Stage::Brick:
  case brick::Stage::BrickGPU:
  case brick::Stage::LLVMDialect:
    module->print(output->os());
    break;
  case brick::Stage::LLVMIR: output->os() << artifacts->llvmIR; break;
  case brick::Stage::PTX: output->os() << artifacts->ptx; break;
  case brick::Stage::Cubin:
    if (outputFile == "-" && output->os().is_displayed())
      return fail("a cubin is binary: write it to a file with -o");
    output->os().write(artifacts->cubin.data(), artifacts->cubin.size());
    break;
  case brick::Stage::Bundle: {
    if (outputFile == "-" && output->os().is_displayed())
      return fail("a bundle is binary: write it to a file with -o");
    std::string bytes = artifacts->bundle(*target).serialize();
    output->os().write(bytes.data(), bytes.size());
    break;
  }
  }
  // A full disk or a closed pipe is an error here, not an abort when the stream closes.
  output->os().flush();
  if (output->os().has_error()) {
    std::string reason = output->os().error().message();
    output->os().clear_error();
    return fail("cannot write '" + outputFile + "': " + reason);
  }
  output->keep();
  return 0;
}
