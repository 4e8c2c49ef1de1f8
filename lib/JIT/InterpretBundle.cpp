//===- InterpretBundle.cpp - AOT bundles (generated launchers) on the CPU interpreter --------===//
//
// The runtime alone cannot interpret (the interpreter runs MLIR); a program that also links Brick::brick calls
// brick::enableBundleInterpreter(), and generated launchers then run on Device::interpreter() from the brick IR
// each AOT bundle carries.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include "brick/Compiler/Pipeline.h"
#include "brick/Interpreter/Interpreter.h"
#include "brick/Runtime/HostMemory.h"
#include "brick/Runtime/Launcher.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <cstring>
#include <map>

namespace brick {

namespace {

template <class T> T read(void *value) {
  T result;
  std::memcpy(&result, value, sizeof(T));
  return result;
}

runtime::Error interpretBundle(const runtime::KernelBundle &bundle, std::array<unsigned, 3> grid, void **args) {
  std::string what = "kernel '" + bundle.name + "' on the CPU interpreter: ";
  if (bundle.brickIR.empty())
    return runtime::Error(what + "its bundle carries no brick IR (bundles from brick::compileKernel and --aot do)");
  static std::mutex mutex;
  static std::map<uint64_t, std::shared_ptr<detail::InterpretedKernel>> parsed;
  std::shared_ptr<detail::InterpretedKernel> kernel;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto &entry = parsed[runtime::fnv1a(bundle.brickIR)];
    if (!entry) {
      mlir::DialectRegistry registry;
      registerPipelineDialects(registry);
      auto fresh = std::make_shared<detail::InterpretedKernel>(registry);
      std::string errors;
      mlir::ScopedDiagnosticHandler handler(&fresh->context, [&](mlir::Diagnostic &diagnostic) {
        errors += "\n" + diagnostic.str();
        return mlir::success();
      });
      fresh->module = mlir::parseSourceString<mlir::ModuleOp>(bundle.brickIR, &fresh->context);
      if (!fresh->module || !(fresh->function = interpreter::findKernel(*fresh->module)))
        return runtime::Error(what + "its brick IR does not parse" + errors);
      entry = fresh;
    }
    kernel = entry;
  }
  interpreter::Options options;
  options.clusterSize = bundle.clusterSize;
  std::vector<interpreter::Argument> arguments;
  for (size_t i = 0; i < bundle.params.size(); ++i) {
    const runtime::BundleParam &param = bundle.params[i];
    const std::string &type = param.dtype;
    switch (param.kind) {
    case runtime::BundleParam::Kind::Pointer: {
      uint64_t address = read<uint64_t>(args[i]);
      // Not the interpreter's memory: a host pointer, whose extent the interpreter cannot check.
      if (address && !runtime::findHostAllocation(address))
        options.hostPointers.push_back(address);
      arguments.push_back(interpreter::Argument::address(address));
      break;
    }
    case runtime::BundleParam::Kind::Scalar:
      if (type == "f32")
        arguments.push_back(interpreter::Argument::floating(read<float>(args[i])));
      else if (type == "f64")
        arguments.push_back(interpreter::Argument::floating(read<double>(args[i])));
      else if (type == "i64")
        arguments.push_back(interpreter::Argument::integral(read<int64_t>(args[i])));
      else if (type == "i32")
        arguments.push_back(interpreter::Argument::integral(read<int32_t>(args[i])));
      else if (type == "i16")
        arguments.push_back(interpreter::Argument::integral(read<int16_t>(args[i])));
      else if (type == "i8" || type == "i1")
        arguments.push_back(interpreter::Argument::integral(read<int8_t>(args[i])));
      else
        return runtime::Error(what + "parameter " + std::to_string(i) + " is a " + type +
                              " scalar, which launches do not pass");
      break;
    case runtime::BundleParam::Kind::TensorMap:
      return runtime::Error(what + "tensor descriptors are not supported by AOT launchers yet");
    }
  }
  if (llvm::Error error = interpreter::run(kernel->function, grid, arguments, options))
    return runtime::Error(what + llvm::toString(std::move(error)));
  return runtime::Error();
}

} // namespace

void enableBundleInterpreter() { runtime::setBundleInterpreter(&interpretBundle); }

} // namespace brick
