//===- InterpretLaunch.cpp - Kernel::launch on the CPU interpreter --------------------===//

#include "Internal.h"

#include "brick/Compiler/Pipeline.h"
#include "brick/Interpreter/Interpreter.h"
#include "brick/Runtime/HostMemory.h"
#include "brick/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"

#include <chrono>

namespace brick::detail {

runtime::Error interpretLaunch(const std::string &name, const std::vector<ParamInfo> &params, JitState &state,
                               const std::function<JitKernel()> &describe, Grid grid, const LaunchOptions &options,
                               const LaunchArg *args, size_t count) {
  llvm::SmallVector<int64_t, 24> key;
  compactKey(params, args, options, /*device=*/nullptr, key);
  std::shared_ptr<InterpretedKernel> kernel;
  {
    std::lock_guard<std::mutex> lock(state.mutex);
    kernel = std::static_pointer_cast<InterpretedKernel>(findCompiled(state, key));
    if (!kernel) {
      JitKernel description = describe();
      Specialization spec = specializationFor(description.params, std::vector<LaunchArg>(args, args + count));
      auto start = std::chrono::steady_clock::now();
      mlir::DialectRegistry registry;
      registerPipelineDialects(registry);
      kernel = std::make_shared<InterpretedKernel>(registry);
      auto module = buildModule(description, spec, kernel->context);
      if (!module)
        return module.error();
      kernel->module = std::move(*module);
      // Tensor descriptors run as the masked loads and stores every target shares; the blocks a cluster
      // shares are checked to be the same for all its programs.
      mlir::PassManager lowering(&kernel->context);
      mlir::brick::BrickLowerTensorDescriptorsOptions descriptors;
      descriptors.checkClusterSharing = true;
      lowering.addPass(mlir::brick::createBrickLowerTensorDescriptors(descriptors));
      if (mlir::failed(lowering.run(*kernel->module)))
        return runtime::Error("kernel '" + name + "': its tensor descriptors could not be lowered for the interpreter");
      kernel->function = interpreter::findKernel(*kernel->module);
      remember(state, key, kernel, description, spec, options, "interpreter", "built", start);
    }
  }

  // Pointers must be the interpreter's memory (its DeviceBuffers, checked on every access) or plain host
  // pointers (unchecked: the interpreter cannot know their extent); a GPU address would crash the host.
  interpreter::Options runOptions;
  runOptions.clusterSize = options.clusterSize;
  std::vector<interpreter::Argument> arguments;
  for (size_t i = 0; i < count; ++i) {
    const LaunchArg &arg = args[i];
    switch (params[i].kind) {
    case ParamKind::Constant: continue;
    case ParamKind::Pointer:
      if (arg.hostPointer && arg.pointer)
        runOptions.hostPointers.push_back(arg.pointer);
      else if (arg.pointer && !runtime::findHostAllocation(arg.pointer))
        return runtime::Error("kernel '" + name + "': parameter " + std::to_string(i) +
                              " is not memory of the CPU interpreter (a DeviceBuffer of another device?): allocate "
                              "it on the interpreter's device, or pass a host pointer");
      arguments.push_back(interpreter::Argument::address(arg.pointer));
      break;
    case ParamKind::Scalar:
      arguments.push_back(arg.kind == LaunchArg::Kind::Float || isFloat(params[i].dtype)
                              ? interpreter::Argument::floating(numberOf(arg))
                              : interpreter::Argument::integral(arg.integer));
      break;
    case ParamKind::TensorDescriptor: {
      const TensorDescriptorArg &desc = *arg.descriptor;
      if (desc.hostPointer && desc.address)
        runOptions.hostPointers.push_back(desc.address);
      else if (desc.address && !runtime::findHostAllocation(desc.address))
        return runtime::Error("kernel '" + name + "': parameter " + std::to_string(i) +
                              " describes memory that is not the CPU interpreter's");
      arguments.push_back(interpreter::Argument::address(desc.address));
      for (int64_t extent : desc.shape)
        arguments.push_back(interpreter::Argument::integral(extent));
      for (int64_t stride : desc.strides)
        arguments.push_back(interpreter::Argument::integral(stride));
      arguments.push_back(interpreter::Argument::integral(0)); // the tensor map (TMA only)
      break;
    }
    }
  }
  auto run = [&] {
    if (llvm::Error error = interpreter::run(kernel->function, {grid.x, grid.y, grid.z}, arguments, runOptions))
      return runtime::Error("kernel '" + name + "' on the CPU interpreter: " + llvm::toString(std::move(error)));
    return runtime::Error();
  };
  if (profiling()) {
    runtime::Expected<const runtime::Device *> device = launchDevice(options);
    if (!device)
      return device.error();
    return profiledLaunch({&name, &params, &state, &describe, key, grid, &options, args, count, *device, "interpreter"},
                          run);
  }
  return run();
}

} // namespace brick::detail
