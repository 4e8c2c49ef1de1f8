//===- PTX.cpp - LLVM IR through the NVPTX back end, and ptxas -----------------===//

#include "brick/Target/PTX.h"

#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"

#include <mutex>

namespace brick {

namespace {
constexpr const char *kTriple = "nvptx64-nvidia-cuda";

llvm::Error error(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

void initializeNVPTX() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
}

llvm::Expected<std::unique_ptr<llvm::TargetMachine>> createTargetMachine(const GpuTarget &target) {
  initializeNVPTX();
  std::string message;
  llvm::Triple triple(kTriple);
  const llvm::Target *nvptx = llvm::TargetRegistry::lookupTarget(triple, message);
  if (!nvptx)
    return error("the NVPTX back end is not available: " + message);
  std::string features = "+ptx" + std::to_string(ptxVersion(target));
  llvm::TargetOptions options;
  // The back end's default level: its aggressive one gave byte-identical PTX for every example (ptxas schedules
  // and allocates registers) and took a quarter longer.
  std::unique_ptr<llvm::TargetMachine> machine(nvptx->createTargetMachine(
      triple, target.name(), features, options, llvm::Reloc::PIC_, std::nullopt, llvm::CodeGenOptLevel::Default));
  if (!machine)
    return error("cannot create an NVPTX target machine for " + target.name());
  return machine;
}
} // namespace

unsigned ptxVersion(const GpuTarget &target) { return target.computeCapability >= 89 ? 84 : 80; }

std::string GpuTarget::name() const {
  return "sm_" + std::to_string(computeCapability) + (archSpecific && computeCapability >= 90 ? "a" : "");
}

unsigned GpuTarget::maxSharedMemory() const {
  if (computeCapability == 80 || computeCapability == 87)
    return 163 * 1024;
  if (computeCapability == 90 || computeCapability == 100 || computeCapability == 103)
    return 227 * 1024;
  return 99 * 1024;
}

llvm::Expected<GpuTarget> GpuTarget::parse(llvm::StringRef name) {
  GpuTarget target;
  llvm::StringRef rest = name;
  if (!rest.consume_front("sm_"))
    return error("unknown GPU architecture '" + name + "': expected sm_80, sm_90 or sm_90a");
  target.archSpecific = rest.consume_back("a");
  if (rest.getAsInteger(10, target.computeCapability) || target.computeCapability < 80)
    return error("unsupported GPU architecture '" + name + "': Brick targets sm_80 and newer (sm_80, sm_90, sm_90a)");
  if (target.archSpecific && target.computeCapability < 90)
    return error("'" + name + "' has no architecture-specific variant; use sm_" +
                 std::to_string(target.computeCapability));
  // What PTX ISA 8.0 and 8.4 (ptxVersion) can name; a newer GPU would need a newer ISA, which the back end would
  // otherwise refuse with an abort.
  static constexpr unsigned kSupported[] = {80, 86, 87, 89, 90};
  if (!llvm::is_contained(kSupported, target.computeCapability))
    return error("unsupported GPU architecture '" + name +
                 "': Brick emits PTX ISA 8.0 and 8.4, which cover sm_80, sm_86, sm_87, sm_89, sm_90 and sm_90a; newer GPUs "
                 "are not supported yet");
  return target;
}

llvm::Expected<std::unique_ptr<llvm::Module>> translateToLLVMIR(mlir::ModuleOp module, llvm::LLVMContext &context,
                                                                const GpuTarget &target) {
  mlir::DialectRegistry registry;
  mlir::registerBuiltinDialectTranslation(registry);
  mlir::registerLLVMDialectTranslation(registry);
  mlir::registerNVVMDialectTranslation(registry);
  module->getContext()->appendDialectRegistry(registry);
  std::unique_ptr<llvm::Module> llvmModule = mlir::translateModuleToLLVMIR(module, context, "brick");
  if (!llvmModule)
    return error("translating the LLVM dialect to LLVM IR failed (see the diagnostics above)");
  auto machine = createTargetMachine(target);
  if (!machine)
    return machine.takeError();
  llvmModule->setTargetTriple(llvm::Triple(kTriple));
  llvmModule->setDataLayout((*machine)->createDataLayout());

  // The -O3 pipeline, with the NVPTX target's cost model, less dead-store elimination: Brick's lowering writes
  // no dead stores (every example's PTX is byte-identical without it), and on a matmul's swizzled shared-memory
  // addresses BasicAA's GEP decomposition made it a third of the pipeline's time (callgrind).
  // InstCombine runs only its first kInstCombineRuns times of -O3's seven: they reach what the later ones would
  // (the matmul kernels' PTX, both targets, is byte-identical) and the later runs were a quarter of the pipeline.
  // Fewer is not free: with two, every example's PTX changes; with none, the sm_90a pointer matmul gains 3% but
  // tf32 loses 28%, sm_80 code 5%, and NVPTX's own passes take 4x longer (H100, brick-bench --matmul).
  constexpr int kInstCombineRuns = 3;
  llvm::PassInstrumentationCallbacks instrumentation;
  instrumentation.registerShouldRunOptionalPassCallback(
      [instCombines = llvm::DenseMap<const llvm::Function *, int>()](llvm::StringRef pass, llvm::Any ir) mutable {
        if (pass == "InstCombinePass") {
          // Counted per function: a module with several runs the pipeline's positions once for each.
          auto *const *function = llvm::any_cast<const llvm::Function *>(&ir);
          return !function || instCombines[*function]++ < kInstCombineRuns;
        }
        return pass != "DSEPass";
      });
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager cgscc;
  llvm::ModuleAnalysisManager modules;
  llvm::PassBuilder builder(machine->get(), llvm::PipelineTuningOptions(), std::nullopt, &instrumentation);
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(cgscc);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, cgscc, modules);
  llvm::ModulePassManager pipeline = builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  pipeline.run(*llvmModule, modules);
  return llvmModule;
}

llvm::Expected<std::string> emitPTX(llvm::Module &module, const GpuTarget &target) {
  auto machine = createTargetMachine(target);
  if (!machine)
    return machine.takeError();
  module.setDataLayout((*machine)->createDataLayout());
  llvm::SmallString<0> ptx;
  llvm::raw_svector_ostream stream(ptx);
  llvm::legacy::PassManager codegen;
  if ((*machine)->addPassesToEmitFile(codegen, stream, nullptr, llvm::CodeGenFileType::AssemblyFile))
    return error("the NVPTX back end cannot emit assembly for " + target.name());
  codegen.run(module);
  return std::string(ptx.str());
}

std::string findPtxas() {
  if (const char *env = std::getenv("BRICK_PTXAS"); env && *env)
    return env;
  if (llvm::sys::fs::can_execute("/usr/local/cuda/bin/ptxas"))
    return "/usr/local/cuda/bin/ptxas";
  if (auto found = llvm::sys::findProgramByName("ptxas"))
    return *found;
  return "";
}

namespace {
unsigned readNumber(llvm::StringRef report, llvm::StringRef pattern) {
  llvm::SmallVector<llvm::StringRef> match;
  unsigned value = 0;
  if (llvm::Regex(pattern).match(report, &match))
    match[1].getAsInteger(10, value);
  return value;
}
} // namespace

llvm::Expected<std::vector<char>> assembleCubin(llvm::StringRef ptx, const GpuTarget &target, ResourceUsage *usage) {
  std::string ptxas = findPtxas();
  if (ptxas.empty())
    return error("ptxas was not found (set BRICK_PTXAS, or install the CUDA toolkit in /usr/local/cuda)");
  llvm::SmallString<128> input, output, log;
  if (auto ec = llvm::sys::fs::createTemporaryFile("brick", "ptx", input))
    return error("cannot create a temporary file: " + ec.message());
  llvm::sys::fs::createTemporaryFile("brick", "cubin", output);
  llvm::sys::fs::createTemporaryFile("brick", "log", log);
  llvm::scope_exit cleanup([&] {
    llvm::sys::fs::remove(input);
    llvm::sys::fs::remove(output);
    llvm::sys::fs::remove(log);
  });
  {
    std::error_code ec;
    llvm::raw_fd_ostream file(input, ec);
    if (ec)
      return error("cannot write " + input + ": " + ec.message());
    file << ptx;
  }
  std::string arch = "-arch=" + target.name();
  llvm::SmallVector<llvm::StringRef> args = {ptxas, arch, "-v", "-O3", input, "-o", output};
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, llvm::StringRef(log), llvm::StringRef(log)};
  std::string message;
  int status = llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects, 0, 0, &message);
  auto logText = llvm::MemoryBuffer::getFile(log);
  std::string report = logText ? (*logText)->getBuffer().str() : "";
  if (status != 0)
    return error("ptxas (" + ptxas + ") " + arch + " failed" + (message.empty() ? "" : " (" + message + ")") +
                 (report.empty() ? std::string() : ":\n" + report));
  if (usage) {
    usage->report = report;
    usage->registers = readNumber(report, "Used ([0-9]+) registers");
    usage->spillStores = readNumber(report, "([0-9]+) bytes spill stores");
    usage->spillLoads = readNumber(report, "([0-9]+) bytes spill loads");
    usage->stackFrame = readNumber(report, "([0-9]+) bytes stack frame");
    usage->sharedMemory = readNumber(report, "([0-9]+) bytes smem");
  }
  auto cubin = llvm::MemoryBuffer::getFile(output, /*IsText=*/false);
  if (!cubin)
    return error("ptxas (" + ptxas + ") wrote no cubin: " + cubin.getError().message());
  // A cubin is an ELF file; a "ptxas" that exits 0 and writes nothing (or something else) must not become a
  // kernel that fails at load time, far from the cause.
  llvm::StringRef bytes = (*cubin)->getBuffer();
  if (!bytes.starts_with("\x7f" "ELF"))
    return error("ptxas (" + ptxas + ") exited 0 but wrote no cubin: " + std::to_string(bytes.size()) +
                 " bytes that are not an ELF file");
  return std::vector<char>(bytes.begin(), bytes.end());
}

} // namespace brick
