//===- Pipeline.cpp - The pass pipeline and the stages after MLIR ---------------===//

#include "brick/Compiler/Pipeline.h"

#include "brick/Conversion/Passes.h"
#include "brick/Dialect/BrickGPU/BrickGPUDialect.h"
#include "brick/Registration.h"
#include "brick/Transforms/Passes.h"

#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

namespace brick {

namespace {
llvm::Error error(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

constexpr Stage kStages[] = {Stage::Brick, Stage::BrickGPU, Stage::LLVMDialect, Stage::LLVMIR,
                             Stage::PTX,   Stage::Cubin,    Stage::Bundle};

/// Writes `text` to `name` in the dump folder.
void dump(const CompileOptions &options, llvm::StringRef name, llvm::StringRef text) {
  if (options.dumpDirectory.empty())
    return;
  llvm::SmallString<256> path(options.dumpDirectory);
  llvm::sys::path::append(path, name);
  std::error_code ec;
  llvm::raw_fd_ostream file(path, ec);
  if (!ec)
    file << text;
}

/// Milliseconds since `start`, and restarts it.
double lap(std::chrono::steady_clock::time_point &start) {
  auto now = std::chrono::steady_clock::now();
  double ms = std::chrono::duration<double, std::milli>(now - start).count();
  start = now;
  return ms;
}

std::string numbered(unsigned index, llvm::StringRef name) {
  return (llvm::Twine(index < 10 ? "0" : "") + llvm::Twine(index) + "_" + name).str();
}

/// Writes the module after every pass as "<NN>_<pass>.mlir" (00 is the input).
struct DumpAfterEachPass : mlir::PassInstrumentation {
  DumpAfterEachPass(const CompileOptions &options, unsigned &counter) : options(options), counter(counter) {}
  void runAfterPass(mlir::Pass *pass, mlir::Operation *op) override {
    std::string text;
    llvm::raw_string_ostream os(text);
    op->print(os);
    dump(options, numbered(++counter, pass->getArgument().str() + ".mlir"), text);
  }
  const CompileOptions &options;
  unsigned &counter;
};
} // namespace

llvm::StringRef stageName(Stage stage) {
  switch (stage) {
  case Stage::Brick: return "brick";
  case Stage::BrickGPU: return "brickgpu";
  case Stage::LLVMDialect: return "llvm-dialect";
  case Stage::LLVMIR: return "llvm-ir";
  case Stage::PTX: return "ptx";
  case Stage::Cubin: return "cubin";
  case Stage::Bundle: return "bundle";
  }
  return "";
}

llvm::Expected<Stage> parseStage(llvm::StringRef name) {
  for (Stage stage : kStages)
    if (stageName(stage) == name)
      return stage;
  return error("unknown stage '" + name + "': expected brick, brickgpu, llvm-dialect, llvm-ir, ptx, cubin or bundle");
}

void registerPipelineDialects(mlir::DialectRegistry &registry) { registerDialects(registry); }

mlir::LogicalResult lowerModule(mlir::ModuleOp module, const CompileOptions &options, Stage stage) {
  return lowerModule(module, options, stage, nullptr);
}

mlir::LogicalResult lowerModule(mlir::ModuleOp module, const CompileOptions &options, Stage stage,
                                unsigned *dumpCounter) {
  // A module holds functions and globals; anything else at its top (an instruction outside every function)
  // would reach LLVM's translation, which has nowhere to put it.
  for (mlir::Operation &op : module.getBody()->getOperations())
    if (!mlir::isa<mlir::FunctionOpInterface, mlir::LLVM::GlobalOp>(op))
      return op.emitError() << "'" << op.getName()
                            << "' cannot stand at the top of a module: only functions and globals can";
  if (options.clusterSize > 1) {
    // What a cluster can hold on every sm_90 GPU (8 is the portable limit). Older targets get the same
    // cluster_rank() and cluster_size() without hardware clusters.
    if (options.clusterSize > 8 || !llvm::isPowerOf2_32(options.clusterSize))
      return mlir::emitError(mlir::UnknownLoc::get(module.getContext()))
             << "clusters of " << options.clusterSize << " programs: a cluster holds 2, 4 or 8";
    module->setAttr(mlir::brickgpu::BrickGPUDialect::getClusterSizeAttrName(),
                    mlir::IntegerAttr::get(mlir::IntegerType::get(module.getContext(), 32), options.clusterSize));
  }
  mlir::PassManager pm(module.getContext());
  pm.enableVerifier(options.verifyEachPass);
  unsigned localCounter = 0;
  unsigned &counter = dumpCounter ? *dumpCounter : localCounter;
  if (!options.dumpDirectory.empty()) {
    // Asking for the stages and getting none, silently, is worse than an error.
    std::error_code created = llvm::sys::fs::create_directories(options.dumpDirectory);
    if (created || !llvm::sys::fs::is_directory(options.dumpDirectory) ||
        llvm::sys::fs::access(options.dumpDirectory, llvm::sys::fs::AccessMode::Write))
      return mlir::emitError(mlir::UnknownLoc::get(module.getContext()))
             << "cannot write the stages into the dump directory '" << options.dumpDirectory
                                << "': "
                                << (created ? created.message()
                                    : !llvm::sys::fs::is_directory(options.dumpDirectory)
                                        ? std::string("it is not a directory")
                                        : std::string("it is not writable"));
    std::string input;
    llvm::raw_string_ostream os(input);
    module->print(os);
    dump(options, numbered(counter, "input.mlir"), input);
    pm.addInstrumentation(std::make_unique<DumpAfterEachPass>(options, counter));
  }
  // Without per-pass verification the passes must still start from valid IR (after the input is dumped), and
  // what they hand on must be.
  if (!options.verifyEachPass && mlir::failed(mlir::verify(module)))
    return mlir::failure();
  // Descriptor blocks become masked loads and stores first, so that canonicalization cleans their index
  // arithmetic (a splat of 1 times x is x) before the axis analysis reads it.
  // On sm_90a the blocks that feed dots stay for TMA.
  mlir::brick::BrickLowerTensorDescriptorsOptions descriptors;
  bool hopper = options.target.computeCapability == 90 && options.target.archSpecific;
  descriptors.keepForTMA = hopper && stage >= Stage::BrickGPU;
  pm.addPass(mlir::brick::createBrickLowerTensorDescriptors(descriptors));
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(mlir::createCSEPass());
  pm.addPass(mlir::brick::createBrickCombine());
  if (stage >= Stage::BrickGPU) {
    mlir::brick::ConvertBrickToBrickGPUOptions layouts;
    layouts.numWarps = options.numWarps;
    pm.addPass(mlir::brick::createConvertBrickToBrickGPU(layouts));
    pm.addPass(mlir::brick::createBrickGPUCoalesce());
    mlir::brick::BrickGPUAccelerateDotOptions accelerate;
    accelerate.computeCapability = options.target.computeCapability;
    accelerate.wgmma = hopper;
    pm.addPass(mlir::brick::createBrickGPUAccelerateDot(accelerate));
    pm.addPass(mlir::brick::createBrickGPURemoveLayoutConversions());
    if (hopper && options.warpSpecialize) {
      mlir::brick::BrickGPUWarpSpecializeOptions specializing;
      specializing.numStages = options.numStages;
      pm.addPass(mlir::brick::createBrickGPUWarpSpecialize(specializing));
    }
    mlir::brick::BrickGPUPipelineOptions pipelining;
    pipelining.numStages = options.numStages;
    pm.addPass(mlir::brick::createBrickGPUPipeline(pipelining));
    // What the pipeline leaves behind: loop values only the copies it replaced read.
    pm.addPass(mlir::createRemoveDeadValuesPass());
    pm.addPass(mlir::createCanonicalizerPass());
    pm.addPass(mlir::createCSEPass());
    if (descriptors.keepForTMA) { // what the pipeline did not put in a ring, and the stores
      pm.addPass(mlir::brick::createBrickGPULowerDescriptorLoads());
      pm.addPass(mlir::brick::createBrickGPULowerDescriptorStores());
    }
    mlir::brick::BrickGPUAllocateSharedMemoryOptions allocation;
    allocation.maxSharedMemory = options.target.maxSharedMemory();
    pm.addPass(mlir::brick::createBrickGPUAllocateSharedMemory(allocation));
  }
  if (stage >= Stage::LLVMDialect) {
    pm.addPass(mlir::createSCFToControlFlowPass());
    mlir::brick::ConvertBrickGPUToLLVMOptions lowering;
    lowering.computeCapability = options.target.computeCapability;
    lowering.fastMath = options.fastMath;
    pm.addPass(mlir::brick::createConvertBrickGPUToLLVM(lowering));
    // NVVM ops LLVM has no intrinsic for (wgmma.mma_async, sm_90a only) become inline PTX.
    if (options.target.computeCapability == 90 && options.target.archSpecific)
      pm.addPass(mlir::createConvertNVVMToLLVMPass());
    pm.addPass(mlir::createReconcileUnrealizedCastsPass());
    // Loops carry tiles as structs; LLVM compiles phis of scalars much faster (see the pass).
    pm.addPass(mlir::brick::createBrickScalarizeAggregateBlockArguments());
    pm.addPass(mlir::createCanonicalizerPass());
    pm.addPass(mlir::createCSEPass());
  }
  if (mlir::failed(pm.run(module)))
    return mlir::failure();
  return mlir::success(options.verifyEachPass || mlir::succeeded(mlir::verify(module)));
}

std::vector<runtime::BundleParam> kernelParams(mlir::ModuleOp module) {
  std::vector<runtime::BundleParam> params;
  for (auto function : module.getOps<mlir::func::FuncOp>()) {
    if (!function->hasAttr(mlir::brick::BrickDialect::getKernelAttrName()))
      continue;
    for (mlir::Type type : function.getArgumentTypes()) {
      runtime::BundleParam param;
      if (mlir::isa<mlir::brick::TensorMapType>(type)) {
        param.kind = runtime::BundleParam::Kind::TensorMap;
        param.dtype = "tensormap";
      } else if (auto pointer = mlir::dyn_cast<mlir::brick::PointerType>(type)) {
        param.kind = runtime::BundleParam::Kind::Pointer;
        param.dtype = mlir::brick::typeToString(pointer.getPointeeType());
      } else {
        param.dtype = mlir::brick::typeToString(type);
      }
      params.push_back(param);
    }
    break;
  }
  return params;
}

llvm::Expected<Artifacts> compile(mlir::ModuleOp module, const CompileOptions &options, Stage stage) {
  Artifacts artifacts;
  artifacts.numWarps = options.numWarps;
  // A bundle is one kernel: its name and parameters. (PTX and the stages before it may hold several.)
  llvm::SmallVector<std::string> kernels;
  module.walk([&](mlir::func::FuncOp function) {
    if (function->hasAttr(mlir::brick::BrickDialect::getKernelAttrName()))
      kernels.push_back(function.getSymName().str());
  });
  if (stage == Stage::Bundle && kernels.size() != 1) {
    std::string names;
    for (const std::string &name : kernels)
      names += (names.empty() ? "" : ", ") + name;
    return error(kernels.empty() ? std::string("no kernel to bundle: the module has no func.func marked brick.kernel")
                                 : "a bundle holds one kernel; this module has " + std::to_string(kernels.size()) +
                                       " (" + names + "): compile each from a module of its own");
  }
  if (!kernels.empty())
    artifacts.kernelName = kernels.front();
  artifacts.params = kernelParams(module);
  unsigned counter = 0;
  auto clock = std::chrono::steady_clock::now();
  if (mlir::failed(lowerModule(module, options, std::min(stage, Stage::LLVMDialect), &counter)))
    return error("compilation failed (see the errors above)");
  artifacts.timings.mlir = lap(clock);
  if (auto shared = module->getAttrOfType<mlir::IntegerAttr>("brickgpu.shared"))
    artifacts.sharedMemory = shared.getInt();
  if (auto producers = module->getAttrOfType<mlir::IntegerAttr>("brickgpu.producer_warps")) // warp-specialized
    artifacts.numWarps += producers.getInt();
  else if (options.warpSpecialize && stage >= Stage::BrickGPU) {
    // The pass says why it left the kernel whole; it does not run off sm_90a.
    auto refused = module->getAttrOfType<mlir::StringAttr>("brickgpu.warp_specialize_refused");
    std::string why = refused ? refused.str() : "it needs sm_90a (wgmma and TMA), not " + options.target.name();
    artifacts.notes.push_back("warp specialization was asked for but not applied: " + why);
  }
  artifacts.clusterSize = mlir::brickgpu::BrickGPUDialect::getClusterSize(module);
  if (stage <= Stage::LLVMDialect)
    return artifacts;

  llvm::LLVMContext context;
  auto llvmModule = translateToLLVMIR(module, context, options.target);
  if (!llvmModule)
    return llvmModule.takeError();
  artifacts.timings.llvmIR = lap(clock);
  if (stage == Stage::LLVMIR || !options.dumpDirectory.empty()) { // its text only when someone reads it
    llvm::raw_string_ostream(artifacts.llvmIR) << **llvmModule;
    dump(options, numbered(++counter, "llvm-ir.ll"), artifacts.llvmIR);
  }
  if (stage == Stage::LLVMIR)
    return artifacts;

  auto ptx = emitPTX(**llvmModule, options.target);
  if (!ptx)
    return ptx.takeError();
  artifacts.ptx = std::move(*ptx);
  artifacts.timings.ptx = lap(clock);
  dump(options, numbered(++counter, "ptx.ptx"), artifacts.ptx);
  if (stage == Stage::PTX)
    return artifacts;

  if (stage == Stage::Bundle && findPtxas().empty())
    return artifacts; // the driver compiles the PTX at load
  auto cubin = assembleCubin(artifacts.ptx, options.assembleFor.value_or(options.target), &artifacts.usage);
  if (!cubin)
    return cubin.takeError();
  artifacts.cubin = std::move(*cubin);
  artifacts.timings.ptxas = lap(clock);
  return artifacts;
}

std::string Artifacts::Timings::str() const {
  std::string text;
  auto add = [&](const char *name, double ms) {
    if (ms > 0)
      text += (text.empty() ? "" : ", ") + std::string(name) + " " + std::to_string(int(ms + 0.5)) + " ms";
  };
  add("MLIR", mlir);
  add("LLVM IR", llvmIR);
  add("PTX", ptx);
  add("ptxas", ptxas);
  return text;
}

runtime::KernelBundle Artifacts::bundle(const GpuTarget &target) const {
  runtime::KernelBundle bundle;
  bundle.name = kernelName;
  bundle.target = target.name();
  bundle.numWarps = numWarps;
  bundle.sharedMemory = sharedMemory;
  bundle.clusterSize = clusterSize;
  bundle.params = params;
  bundle.ptx = ptx;
  bundle.cubin = cubin;
  return bundle;
}

} // namespace brick
