//===- Compile.cpp - Compiling a user's kernel for any target to any stage; specializations as text --===//

#include "brick/JIT/Compile.h"

#include "Internal.h"

#include "brick/Compiler/Pipeline.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

#include <charconv>

namespace brick {

namespace {

std::string describeArg(const Arg &arg) {
  if (arg.isConstant()) {
    const auto &value = arg.constant();
    if (auto *b = std::get_if<bool>(&value))
      return *b ? "true" : "false";
    if (auto *i = std::get_if<int64_t>(&value))
      return std::to_string(*i);
    // Shortest text that reads back as the same double.
    char text[32];
    auto [end, ec] = std::to_chars(text, text + sizeof(text), std::get<double>(value));
    std::string real(text, end);
    if (real.find_first_of(".eEn") == std::string::npos) // "2" would read back as an integer
      real += ".0";
    return real;
  }
  if (arg.equalsOne())
    return "=1";
  if (!arg.blockShape().empty()) {
    std::string blocks = "[";
    for (size_t d = 0; d < arg.blockShape().size(); ++d)
      blocks += (d ? "x" : "") + std::to_string(arg.blockShape()[d]);
    blocks += "]";
    for (int64_t divisor : arg.extentDivisibility())
      blocks += divisor > 1 ? "%" + std::to_string(divisor) : "_";
    return blocks;
  }
  return arg.divisibility() > 1 ? "%" + std::to_string(arg.divisibility()) : "_";
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
    text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t'))
    text.remove_suffix(1);
  return text;
}

/// The whole of `text` as a number of type T (from_chars: no sign prefix '+', no spaces).
template <class T> std::optional<T> parseNumber(std::string_view text) {
  T value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty())
    return std::nullopt;
  return value;
}
std::optional<int64_t> parseInteger(std::string_view text) { return parseNumber<int64_t>(text); }
std::optional<double> parseReal(std::string_view text) { return parseNumber<double>(text); }

/// `%N` with N 2, 4, 8 or 16 (what a launch can derive), or `_`.
std::optional<int64_t> parseDivisibility(std::string_view text) {
  if (text == "_")
    return 1;
  if (text.size() < 2 || text.front() != '%')
    return std::nullopt;
  auto divisor = parseInteger(text.substr(1));
  if (!divisor || (*divisor != 2 && *divisor != 4 && *divisor != 8 && *divisor != 16))
    return std::nullopt;
  return *divisor;
}

std::string paramName(const detail::ParamInfo &param) {
  std::string dtype(name(param.dtype));
  switch (param.kind) {
  case detail::ParamKind::Pointer: return "*" + dtype;
  case detail::ParamKind::Scalar: return dtype;
  case detail::ParamKind::Constant: return "Const<" + dtype + ">";
  case detail::ParamKind::TensorDescriptor: return "TensorDescriptor<" + dtype + ", " + std::to_string(param.rank) + ">";
  }
  return dtype;
}

/// One argument of a specialization for `param`, or why `text` is not one.
runtime::Expected<Arg> parseArg(std::string_view text, const detail::ParamInfo &param) {
  switch (param.kind) {
  case detail::ParamKind::Constant:
    if (param.dtype == DType::I1) {
      if (text == "true" || text == "1")
        return Arg(true);
      if (text == "false" || text == "0")
        return Arg(false);
      return runtime::Error("takes true or false");
    }
    if (isFloat(param.dtype)) {
      if (auto real = parseReal(text))
        return Arg(*real);
      return runtime::Error("takes a number");
    }
    if (auto integer = parseInteger(text)) {
      if (param.dtype == DType::I32 && (*integer < INT32_MIN || *integer > INT32_MAX))
        return runtime::Error("takes a 32-bit integer");
      return Arg(*integer);
    }
    return runtime::Error("takes an integer");
  case detail::ParamKind::Pointer:
    if (auto divisor = parseDivisibility(text))
      return *divisor > 1 ? Arg::divisibleBy(*divisor) : Arg();
    return runtime::Error("takes _ or %N (N-byte aligned: 2, 4, 8 or 16)");
  case detail::ParamKind::Scalar:
    if (isFloat(param.dtype) || param.dtype == DType::I1) {
      if (text == "_")
        return Arg();
      return runtime::Error("takes _ (nothing is specialized on floating-point and boolean scalars)");
    }
    if (text == "=1")
      return Arg::equalToOne();
    if (auto divisor = parseDivisibility(text))
      return *divisor > 1 ? Arg::divisibleBy(*divisor) : Arg();
    return runtime::Error("takes _, =1 or %N (a multiple of 2, 4, 8 or 16)");
  case detail::ParamKind::TensorDescriptor: {
    // [AxB] then one `%N` or `_` per dimension (or none: nothing known of the extents).
    size_t close = text.find(']');
    if (text.empty() || text.front() != '[' || close == std::string_view::npos)
      return runtime::Error("takes its block shape and extents, e.g. [128x64]%16_");
    std::vector<int64_t> blocks;
    std::string_view shape = text.substr(1, close - 1);
    while (!shape.empty()) {
      size_t x = shape.find('x');
      auto block = parseInteger(shape.substr(0, x));
      if (!block || *block < 1)
        return runtime::Error("has a block shape that is not positive integers joined by x");
      blocks.push_back(*block);
      shape = x == std::string_view::npos ? std::string_view() : shape.substr(x + 1);
    }
    if (blocks.size() != size_t(param.rank))
      return runtime::Error("needs " + std::to_string(param.rank) + " block dimensions, got " +
                            std::to_string(blocks.size()));
    std::vector<int64_t> extents;
    std::string_view rest = text.substr(close + 1);
    while (!rest.empty()) {
      size_t next = rest.find_first_of("%_", 1);
      auto divisor = parseDivisibility(rest.substr(0, next));
      if (!divisor)
        return runtime::Error("has extents that are not _ or %N (N 2, 4, 8 or 16)");
      extents.push_back(*divisor);
      rest = next == std::string_view::npos ? std::string_view() : rest.substr(next);
    }
    if (!extents.empty() && extents.size() != size_t(param.rank))
      return runtime::Error("needs " + std::to_string(param.rank) + " extents or none, got " +
                            std::to_string(extents.size()));
    return Arg::descriptor(std::move(blocks), std::move(extents));
  }
  }
  return runtime::Error("has an unknown kind");
}

} // namespace

std::string describeSpecialization(const Specialization &spec) {
  std::string text = "(";
  for (size_t i = 0; i < spec.size(); ++i)
    text += (i ? ", " : "") + describeArg(spec[i]);
  return text + ")";
}

std::string describeParameters(const std::vector<detail::ParamInfo> &params) {
  std::string text = "(";
  for (size_t i = 0; i < params.size(); ++i)
    text += (i ? ", " : "") + paramName(params[i]);
  return text + ")";
}

runtime::Expected<Specialization> parseSpecialization(std::string_view text,
                                                      const std::vector<detail::ParamInfo> &params) {
  std::string_view body = trim(text);
  if (!body.empty() && body.front() == '(' && body.back() == ')')
    body = body.substr(1, body.size() - 2);
  std::vector<std::string_view> pieces;
  while (!trim(body).empty() || !pieces.empty()) {
    size_t comma = body.find(',');
    pieces.push_back(trim(body.substr(0, comma)));
    if (comma == std::string_view::npos)
      break;
    body = body.substr(comma + 1);
  }
  std::string quoted = "specialization '" + std::string(text) + "'";
  if (pieces.size() != params.size())
    return runtime::Error(quoted + " has " + std::to_string(pieces.size()) + " arguments; the kernel takes " +
                          std::to_string(params.size()) + " " + describeParameters(params));
  Specialization spec;
  for (size_t i = 0; i < params.size(); ++i) {
    auto arg = parseArg(pieces[i], params[i]);
    if (!arg)
      return runtime::Error(quoted + ": argument " + std::to_string(i) + " ('" + std::string(pieces[i]) + "', " +
                            paramName(params[i]) + ") " + arg.error().message());
    spec.push_back(std::move(*arg));
  }
  return spec;
}

std::string ResourceReport::str() const {
  return std::to_string(registers) + " registers, " + std::to_string(spillStoreBytes) + " bytes spill stores, " +
         std::to_string(spillLoadBytes) + " bytes spill loads, " + std::to_string(stackBytes) + " bytes stack, " +
         std::to_string(staticSharedBytes) + " bytes static + " + std::to_string(dynamicSharedBytes) +
         " bytes dynamic shared memory";
}

namespace detail {

runtime::Expected<CompiledKernel> compileKernel(const JitKernel &kernel, const Specialization &spec,
                                                const CompileRequest &request) {
  std::string what = "kernel '" + kernel.name + "': ";
  auto target = GpuTarget::parse(request.target);
  if (!target)
    return runtime::Error(what + llvm::toString(target.takeError()));
  auto stage = parseStage(request.stage);
  if (!stage)
    return runtime::Error(what + llvm::toString(stage.takeError()));
  if (request.numWarps == 0 || (request.numWarps & (request.numWarps - 1)) || request.numWarps > 32)
    return runtime::Error(what + "numWarps must be a power of two from 1 to 32, got " +
                          std::to_string(request.numWarps));
  if (request.numStages == 0 || request.numStages > 8)
    return runtime::Error(what + "numStages must be from 1 to 8, got " + std::to_string(request.numStages));

  mlir::DialectRegistry registry;
  registerPipelineDialects(registry);
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  CompiledKernel compiled;
  compiled.name = kernel.name;
  compiled.stage = stageName(*stage).str();
  compiled.specialization = describeSpecialization(spec);
  std::string ir;
  auto module = buildModule(kernel, spec, context, &ir);
  if (!module)
    return module.error();

  CollectedErrors errors(context); // the compiler's errors, at the user's C++ lines
  CompileOptions options;
  options.target = *target;
  options.numWarps = request.numWarps;
  options.numStages = request.numStages;
  options.warpSpecialize = request.warpSpecialize;
  options.clusterSize = request.clusterSize;
  options.fastMath = request.fastMath;
  options.dumpDirectory = request.dumpDirectory;
  auto failed = [&](llvm::Error error) {
    return runtime::Error(what + "failed to compile for " + target->name() + ": " + llvm::toString(std::move(error)) +
                          errors.text());
  };
  auto report = [&](const Artifacts &assembled) {
    const ResourceUsage &usage = assembled.usage;
    compiled.resources = ResourceReport{usage.registers,  usage.spillStores,  usage.spillLoads,
                                        usage.stackFrame, usage.sharedMemory, assembled.sharedMemory};
  };
  // The report needs ptxas's word: a stage short of the cubin assembles a copy of the module for it.
  bool assembles = *stage == Stage::Cubin || (*stage == Stage::Bundle && !findPtxas().empty());
  if (request.resourceUsage && !assembles) {
    mlir::OwningOpRef<mlir::ModuleOp> copy((*module)->clone());
    CompileOptions reportOptions = options;
    reportOptions.dumpDirectory.clear();
    auto assembled = compile(*copy, reportOptions, Stage::Cubin);
    if (!assembled)
      return failed(assembled.takeError());
    report(*assembled);
  }
  auto artifacts = compile(**module, options, *stage);
  if (!artifacts)
    return failed(artifacts.takeError());
  if (request.resourceUsage && assembles)
    report(*artifacts);
  compiled.timings = artifacts->timings.str();
  switch (*stage) {
  case Stage::Brick:
  case Stage::BrickGPU:
  case Stage::LLVMDialect: {
    llvm::raw_string_ostream os(compiled.text);
    (*module)->print(os);
    break;
  }
  case Stage::LLVMIR: compiled.text = artifacts->llvmIR; break;
  case Stage::PTX:
  case Stage::Cubin:
  case Stage::Bundle:
    compiled.bundle = artifacts->bundle(*target);
    compiled.bundle.brickIR = ir;
    if (*stage == Stage::PTX)
      compiled.text = artifacts->ptx;
    else if (*stage == Stage::Cubin)
      compiled.binary = artifacts->cubin;
    else {
      std::string bytes = compiled.bundle.serialize();
      compiled.binary.assign(bytes.begin(), bytes.end());
    }
    break;
  }
  return compiled;
}

} // namespace detail
} // namespace brick
