//===- JIT.cpp - Specialize, compile (or find in the disk cache), load and launch ------===//

#include "brick/JIT/JIT.h"
#include "brick/JIT/Compile.h"

#include "Internal.h"

#include "brick/Compiler/Pipeline.h"
#include "brick/Runtime/TensorMap.h"
#include "brick/Runtime/Trace.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstring>

#include "llvm/ADT/SmallVector.h"
#include <cstdlib>

#ifndef BRICK_COMPILER_ID
#error "BRICK_COMPILER_ID (the compiler's version, part of every cache key) must be defined by the build"
#endif

namespace brick::detail {

std::string hex(uint64_t value) {
  char text[17];
  std::snprintf(text, sizeof(text), "%016llx", static_cast<unsigned long long>(value));
  return text;
}

std::string cacheDirectory() {
  if (const char *dir = std::getenv("BRICK_CACHE_DIR"); dir && *dir)
    return dir;
  const char *home = std::getenv("HOME");
  return std::string(home && *home ? home : "/tmp") + "/.cache/brick";
}

const char *compilerId() { return BRICK_COMPILER_ID; }

bool verifyEachPass() {
  const char *each = std::getenv("BRICK_VERIFY_EACH_PASS");
  return each && std::string(each) == "1";
}

CollectedErrors::CollectedErrors(mlir::MLIRContext &context)
    : handler_(&context, [this](mlir::Diagnostic &diagnostic) {
        if (diagnostic.getSeverity() == mlir::DiagnosticSeverity::Error)
          llvm::raw_string_ostream(text_) << "\n" << diagnostic.getLocation() << ": error: " << diagnostic.str();
        return mlir::success();
      }) {}

namespace {

/// The largest of 1, 2, 4, 8 and 16 that divides `value`. Row strides and sizes of 1000 or 3000 elements are
/// multiples of 8: enough for 16-byte vectors of f16/bf16 (4 for f32), which divisibility by 16 alone would miss.
int64_t powerOfTwoDivisor(int64_t value) {
  int64_t divisor = 1;
  while (divisor < 16 && value % (divisor * 2) == 0)
    divisor *= 2;
  return divisor;
}

} // namespace

double numberOf(const LaunchArg &arg) {
  if (arg.kind == LaunchArg::Kind::Float)
    return arg.real;
  return arg.beyondInt64 ? static_cast<double>(static_cast<uint64_t>(arg.integer)) : static_cast<double>(arg.integer);
}

Specialization specializationFor(const std::vector<ParamInfo> &params, const std::vector<LaunchArg> &args) {
  Specialization spec;
  for (auto [param, arg] : llvm::zip(params, args)) {
    switch (param.kind) {
    case ParamKind::Constant:
      if (param.dtype == DType::I1)
        spec.push_back(Arg(arg.integer != 0));
      else if (isFloat(param.dtype))
        spec.push_back(Arg(numberOf(arg)));
      else
        spec.push_back(Arg(arg.integer));
      break;
    case ParamKind::Pointer:
      spec.push_back(arg.pointer % 16 == 0 ? Arg::divisibleBy(16) : Arg());
      break;
    case ParamKind::TensorDescriptor: {
      std::vector<int64_t> extents;
      for (int64_t extent : arg.descriptor->shape)
        extents.push_back(powerOfTwoDivisor(extent));
      spec.push_back(Arg::descriptor(arg.descriptor->blockShape, std::move(extents)));
      break;
    }
    case ParamKind::Scalar:
      if (isFloat(param.dtype) || param.dtype == DType::I1 || arg.kind == LaunchArg::Kind::Float)
        spec.push_back(Arg());
      else if (arg.integer == 1)
        spec.push_back(Arg::equalToOne());
      else if (int64_t divisor = powerOfTwoDivisor(arg.integer); divisor > 1)
        spec.push_back(Arg::divisibleBy(divisor));
      else
        spec.push_back(Arg());
      break;
    }
  }
  return spec;
}

std::string specializationKey(const JitKernel &kernel, const Specialization &spec, const LaunchOptions &options,
                              const std::string &target) {
  std::string key = describeSpecialization(spec);
  std::string code = options.targetCapability ? "sm_" + std::to_string(options.targetCapability) + " code for " : "";
  return key + " warps=" + std::to_string(options.numWarps) + " stages=" + std::to_string(options.numStages) +
         (options.warpSpecialize ? " warp-specialized " : " ") +
         (options.clusterSize > 1 ? "clusters=" + std::to_string(options.clusterSize) + " " : "") + code + target;
}

runtime::Expected<mlir::OwningOpRef<mlir::ModuleOp>> buildModule(const JitKernel &kernel, const Specialization &spec,
                                                                  mlir::MLIRContext &context, std::string *ir) {
  mlir::OwningOpRef<mlir::ModuleOp> module;
  BuildResult built = kernel.build(&context, spec, [&](mlir::Operation *op) {
    module = mlir::OwningOpRef<mlir::ModuleOp>(llvm::cast<mlir::ModuleOp>(op->clone()));
  });
  if (!built)
    return runtime::Error("kernel '" + kernel.name + "' does not build:\n" + built.errors());
  if (ir)
    *ir = built.ir();
  return module;
}

std::shared_ptr<void> findCompiled(JitState &state, llvm::ArrayRef<int64_t> key) {
  for (auto &[k, value] : state.compiled)
    if (llvm::ArrayRef<int64_t>(k) == key)
      return value;
  return nullptr;
}

void remember(JitState &state, llvm::ArrayRef<int64_t> key, std::shared_ptr<void> compiled, const JitKernel &kernel,
              const Specialization &spec, const LaunchOptions &options, const std::string &target,
              const std::string &why, std::chrono::steady_clock::time_point start) {
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  state.compiled.emplace_back(std::vector<int64_t>(key.begin(), key.end()), std::move(compiled));
  char line[64];
  std::snprintf(line, sizeof(line), " in %.1f ms", ms);
  state.log.push_back(kernel.name + specializationKey(kernel, spec, options, target) + ": " + why + line);
}

/// Whole milliseconds since `start`, for the JIT's log.
static std::string millisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::to_string(
      int(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() + 0.5));
}

runtime::Expected<runtime::KernelBundle> compileSpecialization(const JitKernel &kernel, const Specialization &spec,
                                                               const LaunchOptions &options, const std::string &target,
                                                               std::string *why) {
  auto device = GpuTarget::parse(target);
  if (!device)
    return runtime::Error(llvm::toString(device.takeError()));
  // The code's target: the device's, or an older generation the launch asks for (assembled for the device).
  GpuTarget gpu = *device;
  if (options.targetCapability && options.targetCapability != device->computeCapability) {
    if (options.targetCapability < 80 || options.targetCapability > device->computeCapability)
      return runtime::Error("kernel '" + kernel.name + "': LaunchOptions::targetCapability " +
                            std::to_string(options.targetCapability) + " must be from 80 to the device's " +
                            std::to_string(device->computeCapability));
    auto older = GpuTarget::parse("sm_" + std::to_string(options.targetCapability));
    if (!older)
      return runtime::Error("kernel '" + kernel.name + "': LaunchOptions::targetCapability: " +
                            llvm::toString(older.takeError()));
    gpu = *older;
  }
  auto irStart = std::chrono::steady_clock::now();
  mlir::DialectRegistry registry;
  registerPipelineDialects(registry);
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  std::string ir;
  auto module = buildModule(kernel, spec, context, &ir);
  if (!module)
    return module.error();
  std::string irMs = millisecondsSince(irStart); // the DSL's IR (a context, the kernel traced)

  // The disk cache key: the IR itself, the options and the compiler.
  std::string options_ = "warps=" + std::to_string(options.numWarps) + " stages=" + std::to_string(options.numStages) +
                         (options.warpSpecialize ? " warp-specialized" : "") +
                         (options.clusterSize > 1 ? " clusters=" + std::to_string(options.clusterSize) : "") +
                         " target=" + gpu.name() + " device=" + target + " compiler=" BRICK_COMPILER_ID;
  std::string key = kernel.name + "-" + hex(runtime::fnv1a(ir + "\n" + options_));
  std::string directory = cacheDirectory();
  std::string path = directory + "/" + key + ".brick";
  std::string damage;
  if (llvm::sys::fs::exists(path)) {
    auto cached = runtime::KernelBundle::readFile(path);
    // A whole entry must also be the kernel asked for (another kernel's bundle at this name, an entry for another
    // target or warp count, another signature): used only when it is.
    std::string mismatch;
    if (cached) {
      if (cached->name != kernel.name)
        mismatch = "it holds kernel '" + cached->name + "'";
      else if (cached->target != device->name())
        mismatch = "it was assembled for " + cached->target + ", not " + device->name();
      else if (cached->numWarps != options.numWarps && !(options.warpSpecialize && cached->numWarps == options.numWarps + 4))
        mismatch = "it runs " + std::to_string(cached->numWarps) + " warps, not " + std::to_string(options.numWarps);
      else if (cached->params != kernelParams(**module))
        mismatch = "its parameters are not the kernel's";
    }
    if (cached && mismatch.empty()) {
      *why = "disk cache";
      return cached;
    }
    damage = " (the disk cache entry was unusable and is rebuilt: " +
             (cached ? mismatch : cached.error().message()) + ")";
  }

  CompileOptions compileOptions;
  compileOptions.target = gpu;
  compileOptions.assembleFor = *device;
  compileOptions.numWarps = options.numWarps;
  compileOptions.numStages = options.numStages;
  compileOptions.warpSpecialize = options.warpSpecialize;
  compileOptions.clusterSize = options.clusterSize;
  compileOptions.verifyEachPass = verifyEachPass();
  if (const char *dump = std::getenv("BRICK_DUMP_DIR"); dump && *dump)
    compileOptions.dumpDirectory = std::string(dump) + "/" + key;
  CollectedErrors errors(context);
  auto artifacts = compile(**module, compileOptions, Stage::Bundle);
  if (!artifacts)
    return runtime::Error("kernel '" + kernel.name + "' failed to compile: " + llvm::toString(artifacts.takeError()) +
                          damage + errors.text());
  runtime::KernelBundle bundle = artifacts->bundle(*device);
  llvm::sys::fs::create_directories(directory);
  // A cache that cannot be written costs a recompile next time, nothing more.
  (void)bundle.writeFile(path);
  *why = "compiled" + damage + "; IR " + irMs + " ms, " + artifacts->timings.str();
  for (const std::string &note : artifacts->notes)
    *why += "; " + note;
  return bundle;
}

runtime::Expected<const runtime::Device *> launchDevice(const LaunchOptions &options) {
  if (options.device)
    return options.device;
  static runtime::Expected<runtime::Device> device = runtime::Device::get(0);
  if (!device)
    return device.error();
  return &*device;
}

namespace {

/// One argument as the kernel's parameter type wants it in memory (a tensor map is 128 bytes, 64-aligned).
struct PackedArg {
  alignas(64) unsigned char bytes[128] = {};
};

runtime::Error pack(const std::string &kernelName, const std::vector<ParamInfo> &params, const LaunchArg *args,
                    bool encodeTensorMaps, llvm::SmallVectorImpl<PackedArg> &packed) {
  for (size_t i = 0; i < params.size(); ++i) {
    const ParamInfo &param = params[i];
    const LaunchArg &arg = args[i];
    if (param.kind == ParamKind::Constant)
      continue;
    if (param.kind == ParamKind::TensorDescriptor) {
      const TensorDescriptorArg &desc = *arg.descriptor;
      if (desc.hostPointer)
        return runtime::Error("kernel '" + kernelName + "': parameter " + std::to_string(i) +
                              " is given a descriptor of host memory, which only the CPU interpreter can use");
      auto push = [&](auto v) {
        PackedArg value;
        std::memcpy(value.bytes, &v, sizeof(v));
        packed.push_back(value);
      };
      push(desc.address);
      for (int64_t extent : desc.shape)
        push(static_cast<int32_t>(extent));
      for (int64_t stride : desc.strides)
        push(stride);
      PackedArg map; // the tensor map: read only by TMA code, left zero for other code
      if (encodeTensorMaps) {
        runtime::Expected<runtime::TensorMap> encoded = runtime::encodeTensorMap(
            desc.address, std::max(1u, bitWidth(param.dtype) / 8), desc.shape, desc.strides, desc.blockShape);
        if (!encoded)
          return runtime::Error("kernel '" + kernelName + "': parameter " + std::to_string(i) + ": " +
                                encoded.error().message());
        static_assert(sizeof(map.bytes) == sizeof(encoded->bytes));
        std::memcpy(map.bytes, encoded->bytes, sizeof(map.bytes));
      }
      packed.push_back(map);
      continue;
    }
    PackedArg value;
    auto store = [&](auto v) { std::memcpy(value.bytes, &v, sizeof(v)); };
    if (param.kind == ParamKind::Pointer && arg.hostPointer)
      return runtime::Error("kernel '" + kernelName + "': parameter " + std::to_string(i) +
                            " is given a host pointer, which only the CPU interpreter can use (pass a DeviceBuffer)");
    if (param.kind == ParamKind::Pointer) {
      store(static_cast<uint64_t>(arg.pointer));
    } else if (isFloat(param.dtype)) {
      double real = numberOf(arg);
      if (param.dtype == DType::F64)
        store(real);
      else if (param.dtype == DType::F32)
        store(static_cast<float>(real));
      else
        return runtime::Error("kernel '" + kernelName + "': parameter " + std::to_string(i) + " is a " +
                              std::string(name(param.dtype)) + " scalar, which launches do not pass yet");
    } else { // validateArguments has checked that the integer fits
      switch (bitWidth(param.dtype)) {
      case 1:
      case 8: store(static_cast<int8_t>(arg.integer)); break;
      case 16: store(static_cast<int16_t>(arg.integer)); break;
      case 32: store(static_cast<int32_t>(arg.integer)); break;
      default: store(static_cast<int64_t>(arg.integer)); break;
      }
    }
    packed.push_back(value);
  }
  return runtime::Error();
}
} // namespace

/// One number per parameter saying what the specialization keeps of its argument, then the options.
void compactKey(const std::vector<ParamInfo> &params, const LaunchArg *args, const LaunchOptions &options,
                const runtime::Device *device, llvm::SmallVectorImpl<int64_t> &key) {
  for (size_t i = 0; i < params.size(); ++i) {
    const LaunchArg &arg = args[i];
    switch (params[i].kind) {
    case ParamKind::Constant: {
      // The value the specialization holds: a floating-point constant's double, whichever number gave it (an
      // integer's bits must not meet a double's), an integer constant's integer.
      int64_t bits = arg.integer;
      if (isFloat(params[i].dtype)) {
        double real = numberOf(arg);
        std::memcpy(&bits, &real, sizeof(bits));
      }
      key.push_back(bits);
      break;
    }
    case ParamKind::Pointer: key.push_back(arg.pointer % 16 == 0); break;
    case ParamKind::TensorDescriptor:
      for (int64_t extent : arg.descriptor->blockShape)
        key.push_back(extent);
      for (int64_t extent : arg.descriptor->shape)
        key.push_back(powerOfTwoDivisor(extent));
      break;
    case ParamKind::Scalar:
      key.push_back(arg.kind == LaunchArg::Kind::Float ? 0 : arg.integer == 1 ? -1 : powerOfTwoDivisor(arg.integer));
      break;
    }
  }
  key.push_back(options.numWarps);
  key.push_back(options.numStages);
  key.push_back(options.warpSpecialize);
  key.push_back(options.clusterSize);
  key.push_back(options.targetCapability);
  key.push_back(device ? device->computeCapability() : 0);
  key.push_back(device ? device->ordinal() : 0);
}

namespace {
/// What a GPU accepts, checked the same way for the interpreter: a grid of 1 to 2^31 - 1 programs along x and
/// up to 65535 along y and z, a power of two from 1 to 32 warps, 1 to 8 stages.
runtime::Error validateLaunch(const std::string &name, Grid grid, const LaunchOptions &options) {
  // A persistent grid's x is its work, which one wave of programs takes however large it is.
  if (grid.oneWave && grid.x == 0)
    return runtime::Error("kernel '" + name + "': a persistent grid needs work: Grid::persistent(0)");
  if (grid.x < 1 || (!grid.oneWave && grid.x > 0x7fffffffu) || grid.y < 1 || grid.y > 65535 || grid.z < 1 ||
      grid.z > 65535)
    return runtime::Error("kernel '" + name + "': grid (" + std::to_string(grid.x) + ", " + std::to_string(grid.y) +
                          ", " + std::to_string(grid.z) +
                          ") is not launchable: 1 to 2147483647 programs along x, 1 to 65535 along y and z");
  if (options.numWarps < 1 || options.numWarps > 32 || (options.numWarps & (options.numWarps - 1)))
    return runtime::Error("kernel '" + name + "': numWarps must be a power of two from 1 to 32, got " +
                          std::to_string(options.numWarps));
  if (options.numStages < 1 || options.numStages > 8)
    return runtime::Error("kernel '" + name + "': numStages must be from 1 to 8, got " +
                          std::to_string(options.numStages));
  if (!runtime::Function::isClusterSize(options.clusterSize))
    return runtime::Error("kernel '" + name + "': clusterSize must be 1, 2, 4 or 8, got " +
                          std::to_string(options.clusterSize));
  if (grid.oneWave && (grid.y != 1 || grid.z != 1))
    return runtime::Error("kernel '" + name + "': a persistent grid is one wave of programs along x; got (" +
                          std::to_string(grid.x) + ", " + std::to_string(grid.y) + ", " + std::to_string(grid.z) + ")");
  if (!grid.oneWave && grid.x % options.clusterSize != 0)
    return runtime::Error("kernel '" + name + "': clusters of " + std::to_string(options.clusterSize) +
                          " programs need a grid whose x is a multiple of that, got " + std::to_string(grid.x));
  return runtime::Error();
}

/// A persistent grid made concrete: its work rounded up to whole clusters, no more than the `resident`
/// programs (rounded down to whole clusters) that fit the device at once.
runtime::Expected<Grid> residentGrid(const std::string &name, Grid grid, unsigned cluster, unsigned resident) {
  if (!grid.oneWave)
    return grid;
  unsigned fit = resident / cluster * cluster;
  if (fit == 0)
    return runtime::Error("kernel '" + name + "': a persistent grid, but not even one " +
                          (cluster > 1 ? "cluster of " + std::to_string(cluster) + " programs" : std::string("program")) +
                          " fits the device at once (its registers or shared memory are too many)");
  uint64_t work = (uint64_t(grid.x) + cluster - 1) / cluster * cluster;
  return Grid{unsigned(std::min<uint64_t>(work, fit)), 1, 1};
}
} // namespace

/// What TMA needs of a tensor, checked for every device so that a kernel runs alike everywhere.
runtime::Error validateDescriptor(const std::string &name, size_t index, const ParamInfo &param,
                                  const TensorDescriptorArg &desc) {
  std::string what = "kernel '" + name + "': parameter " + std::to_string(index) + " (TensorDescriptor<" +
                     std::string(brick::name(param.dtype)) + ", " + std::to_string(param.rank) + ">) ";
  size_t rank = size_t(param.rank);
  if (desc.shape.size() != rank || desc.strides.size() != rank || desc.blockShape.size() != rank)
    return runtime::Error(what + "needs " + std::to_string(rank) + " extents, strides and block dimensions; got " +
                          std::to_string(desc.shape.size()) + ", " + std::to_string(desc.strides.size()) + " and " +
                          std::to_string(desc.blockShape.size()));
  int64_t bytes = std::max(1u, bitWidth(param.dtype) / 8);
  if (desc.address % 16 != 0)
    return runtime::Error(what + "has a base address that is not 16-byte aligned (" + std::to_string(desc.address % 16) +
                          " bytes past)");
  for (size_t d = 0; d < rank; ++d) {
    std::string dim = " of dimension " + std::to_string(d);
    if (desc.shape[d] < 1 || desc.shape[d] > INT32_MAX)
      return runtime::Error(what + "has extent " + std::to_string(desc.shape[d]) + dim + "; extents are 1 to 2^31 - 1");
    int64_t block = desc.blockShape[d];
    if (block < 1 || block > 256 || (block & (block - 1)))
      return runtime::Error(what + "has block dimension " + std::to_string(block) + dim +
                            "; block dimensions are powers of two from 1 to 256 (what one TMA copy moves)");
    if (d + 1 == rank) {
      if (desc.strides[d] != 1)
        return runtime::Error(what + "has innermost stride " + std::to_string(desc.strides[d]) +
                              "; the innermost dimension must be contiguous (stride 1)");
      if (block * bytes < 16)
        return runtime::Error(what + "has innermost block rows of " + std::to_string(block * bytes) +
                              " bytes; at least 16 are needed");
    } else if (desc.strides[d] < 1 || (desc.strides[d] * bytes) % 16 != 0) {
      return runtime::Error(what + "has stride " + std::to_string(desc.strides[d]) + dim + " (" +
                            std::to_string(desc.strides[d] * bytes) +
                            " bytes); strides other than the innermost are positive multiples of 16 bytes");
    }
  }
  return runtime::Error();
}

/// Every number a launch passes must reach the kernel as given: integer parameters take integers their type
/// holds (Const<bool> and i1 scalars: 0 or 1), floating-point parameters take any number (integers convert to
/// the nearest value). Checked the same way for both devices, before anything is built.
runtime::Error validateArguments(const std::string &name, const std::vector<ParamInfo> &params, const LaunchArg *args,
                                 size_t count) {
  if (count != params.size())
    return runtime::Error("kernel '" + name + "' takes " + std::to_string(params.size()) + " arguments, the launch passes " +
                          std::to_string(count));
  for (size_t i = 0; i < count; ++i) {
    const ParamInfo &param = params[i];
    const LaunchArg &arg = args[i];
    if (arg.kind == LaunchArg::Kind::FromConfig)
      return runtime::Error("kernel '" + name + "': parameter " + std::to_string(i) +
                            " is given brick::fromConfig, which only a launch through the autotuner fills "
                            "(brick::autotune)");
    if (param.kind == ParamKind::TensorDescriptor) {
      if (runtime::Error invalid = validateDescriptor(name, i, param, *arg.descriptor))
        return invalid;
      continue;
    }
    if (param.kind == ParamKind::Pointer || isFloat(param.dtype))
      continue;
    std::string what = "kernel '" + name + "': parameter " + std::to_string(i) + " (" +
                       (param.kind == ParamKind::Constant ? "Const<" : "Scalar<") + std::string(brick::name(param.dtype)) +
                       ">) ";
    if (arg.kind == LaunchArg::Kind::Float)
      return runtime::Error(what + "is given the floating-point number " + std::to_string(arg.real) +
                            "; pass an integer (integer parameters do not round or truncate)");
    unsigned bits = bitWidth(param.dtype);
    int64_t low = bits == 1 ? 0 : bits >= 64 ? INT64_MIN : -(int64_t(1) << (bits - 1));
    int64_t high = bits == 1 ? 1 : bits >= 64 ? INT64_MAX : (int64_t(1) << (bits - 1)) - 1;
    if (arg.beyondInt64 || arg.integer < low || arg.integer > high)
      return runtime::Error(what + "is given " +
                            (arg.beyondInt64 ? std::to_string(static_cast<uint64_t>(arg.integer)) : std::to_string(arg.integer)) +
                            ", which " + std::string(brick::name(param.dtype)) + " cannot hold (" + std::to_string(low) +
                            " to " + std::to_string(high) + ")");
  }
  return runtime::Error();
}

runtime::Error launch(const std::string &name, const std::vector<ParamInfo> &params, JitState &state,
                      const std::function<JitKernel()> &describe, Grid grid, const LaunchOptions &options,
                      const LaunchArg *args, size_t count) {
  if (runtime::Error invalid = validateLaunch(name, grid, options))
    return invalid;
  if (runtime::Error invalid = validateArguments(name, params, args, count))
    return invalid;
  runtime::Expected<const runtime::Device *> device = launchDevice(options);
  if (!device)
    return runtime::Error("kernel '" + name + "': " + device.error().message());
  if ((*device)->isInterpreter()) {
    // The interpreter runs programs in turn; a persistent grid gets those of 4 SMs, as small as a GPU's is large.
    auto concrete = residentGrid(name, grid, options.clusterSize, std::max(4u, options.clusterSize));
    if (!concrete)
      return concrete.error();
    return interpretLaunch(name, params, state, describe, *concrete, options, args, count);
  }
  int capability = (*device)->computeCapability();
  llvm::SmallVector<int64_t, 24> key;
  compactKey(params, args, options, *device, key);

  runtime::LoadedKernel *loaded = nullptr;
  {
    std::lock_guard<std::mutex> lock(state.mutex);
    loaded = static_cast<runtime::LoadedKernel *>(findCompiled(state, key).get());
    if (!loaded) {
      // A first launch: compile (or read the disk cache) and load.
      JitKernel kernel = describe();
      std::string target = "sm_" + std::to_string(capability) + (capability >= 90 ? "a" : "");
      Specialization spec = specializationFor(kernel.params, std::vector<LaunchArg>(args, args + count));
      auto start = std::chrono::steady_clock::now();
      std::string why;
      auto bundle = [&] {
        runtime::trace::Range range(
            [&] { return "brick compile " + name + specializationKey(kernel, spec, options, target); });
        return compileSpecialization(kernel, spec, options, target, &why);
      }();
      if (!bundle)
        return bundle.error();
      auto loadStart = std::chrono::steady_clock::now();
      auto module = [&] {
        runtime::trace::Range range([&] { return "brick load " + name; });
        return runtime::LoadedKernel::load(**device, *bundle);
      }();
      if (!module)
        return module.error();
      why += ", load " + millisecondsSince(loadStart) + " ms";
      auto owned = std::make_shared<runtime::LoadedKernel>(std::move(*module));
      loaded = owned.get();
      remember(state, key, std::move(owned), kernel, spec, options, target, why, start);
    }
  }
  llvm::SmallVector<PackedArg, 24> packed;
  if (runtime::Error error = pack(name, params, args, loaded->readsTensorMaps(), packed))
    return error;
  llvm::SmallVector<void *, 24> pointers;
  for (PackedArg &value : packed)
    pointers.push_back(value.bytes);
  if (grid.oneWave) {
    auto resident = loaded->maxResidentPrograms();
    if (!resident)
      return resident.error();
    auto concrete = residentGrid(name, grid, options.clusterSize, *resident);
    if (!concrete)
      return concrete.error();
    grid = *concrete;
  }
  runtime::trace::Range range([&] { return "brick launch " + name; });
  auto run = [&] { return loaded->launch({grid.x, grid.y, grid.z}, options.stream, pointers.data()); };
  if (profiling()) {
    std::string target = "sm_" + std::to_string(capability) + (capability >= 90 ? "a" : "");
    return profiledLaunch({&name, &params, &state, &describe, key, grid, &options, args, count, *device, target}, run);
  }
  return run();
}

} // namespace brick::detail
