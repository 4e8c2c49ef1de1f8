//===- Tool.cpp - brickc's options for a program's own kernels; AOT launcher generation ---------===//

#include "brick/Tool/Tool.h"

#include "Internal.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>


namespace brick::tool {

namespace {

constexpr const char *kHelp = R"(Compile this program's Brick kernels to any stage, or ahead of time.

  --list                 the kernels: parameters and the specializations --aot compiles
  --kernel=NAME          the kernel to compile (needed when there are several)
  --spec=SPEC            the specialization, as --list prints it, e.g. '(%16, %16, _, =1, 1024)': per argument a
                         Const value, _ (nothing known), %N (a multiple of N; pointers: N-byte aligned), =1;
                         repeat it with --aot for several (default: the kernel's own list)
  --emit=STAGE           brick, brickgpu, llvm-dialect, llvm-ir, ptx (default), cubin or bundle
  --arch=ARCH            sm_80, sm_86, sm_87, sm_89, sm_90 or sm_90a (default); with --aot, a comma-separated list
  --num-warps=N          warps per program (default: the specialization's, else 4)
  --num-stages=N         buffers per ring when prefetching a loop's dot operands (default: its own, else 3)
  --warp-specialize      sm_90a: a producer warpgroup issues a TMA + wgmma K loop's copies
  --cluster-size=N       programs per cluster, 2, 4 or 8 (sm_90a: blocks the cluster shares are multicast)
  --no-fast-math         precise exp/log/sin/cos/tanh and f32 division instead of PTX's approximate instructions
  --dump-dir=DIR         write the IR after every pass, the LLVM IR and the PTX into DIR, numbered in order
  --resource-usage       assemble with ptxas and report registers, spills and shared memory (on stderr)
  --time-stages          how long each step took (on stderr)
  -o FILE                output file (default: stdout)
  --aot=DIR              write DIR/<namespace>.h and .cpp (a typed launcher per kernel over its bundles, for a
                         program linking Brick::runtime alone) and DIR/<kernel>.<n>.brick
  --namespace=NS         the launchers' namespace (default: brick_kernels)
  --help                 this text
)";

int fail(const std::string &message) {
  std::fprintf(stderr, "error: %s\n", message.c_str());
  return 1;
}

bool isIdentifier(std::string_view text) {
  if (text.empty() || std::isdigit(static_cast<unsigned char>(text.front())))
    return false;
  return std::all_of(text.begin(), text.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

std::vector<std::string> split(const std::string &text, char separator) {
  std::vector<std::string> pieces;
  std::stringstream stream(text);
  for (std::string piece; std::getline(stream, piece, separator);)
    if (!piece.empty())
      pieces.push_back(piece);
  return pieces;
}

/// Writes `bytes` to `path` unless it already holds them (a build that regenerates launchers then does not
/// recompile what did not change).
runtime::Error writeIfChanged(const std::string &path, std::string_view bytes) {
  {
    std::ifstream existing(path, std::ios::binary);
    if (existing) {
      std::string old((std::istreambuf_iterator<char>(existing)), std::istreambuf_iterator<char>());
      if (old == bytes)
        return runtime::Error();
    }
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), std::streamsize(bytes.size()));
  out.close();
  if (!out)
    return runtime::Error("cannot write '" + path + "': " + std::strerror(errno));
  return runtime::Error();
}

/// The C++ type a launcher takes for a parameter, or an empty string when launchers cannot take it.
std::string cppType(const detail::ParamInfo &param) {
  if (param.kind == detail::ParamKind::Pointer)
    return "brick::runtime::KernelPointer";
  if (param.kind == detail::ParamKind::TensorDescriptor)
    return "";
  switch (param.dtype) {
  case DType::I1: return "bool";
  case DType::I8: return "int8_t";
  case DType::I16: return "int16_t";
  case DType::I32: return param.kind == detail::ParamKind::Constant ? "int" : "int32_t";
  case DType::I64: return "int64_t";
  case DType::F32: return "float";
  case DType::F64: return "double";
  default: return "";
  }
}

/// How the specialization constrains an argument, as C++ for a brick::runtime::Requirement.
std::string requirement(const Arg &arg) {
  const char *kind = "brick::runtime::Requirement::Kind::";
  if (arg.isConstant()) {
    const auto &value = arg.constant();
    if (auto *b = std::get_if<bool>(&value))
      return std::string("{") + kind + "EqualInteger, " + (*b ? "1" : "0") + ", 0}";
    if (auto *i = std::get_if<int64_t>(&value))
      return std::string("{") + kind + "EqualInteger, INT64_C(" + std::to_string(*i) + "), 0}";
    char text[40];
    std::snprintf(text, sizeof(text), "%.17g", std::get<double>(value));
    return std::string("{") + kind + "EqualReal, 0, " + text + "}";
  }
  if (arg.equalsOne())
    return std::string("{") + kind + "EqualInteger, 1, 0}";
  if (arg.divisibility() > 1)
    return std::string("{") + kind + "DivisibleBy, " + std::to_string(arg.divisibility()) + ", 0}";
  return std::string("{") + kind + "Any, 0, 0}";
}

/// How much a specialization assumes: launchers try the most specialized first.
int specificity(const Specialization &spec) {
  int score = 0;
  for (const Arg &arg : spec) {
    if (arg.equalsOne())
      score += 5;
    for (int64_t d = arg.divisibility(); d > 1; d /= 2)
      ++score;
  }
  return score;
}

std::string byteArray(std::string_view bytes) {
  std::string text;
  text.reserve(bytes.size() * 5 + bytes.size() / 4);
  char hex[8];
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::snprintf(hex, sizeof(hex), "%u,", static_cast<unsigned char>(bytes[i]));
    text += hex;
    if (i % 24 == 23)
      text += "\n";
  }
  return text;
}

std::string variantDescription(const Variant &variant, const std::string &target) {
  return describeSpecialization(variant.spec) + " warps=" + std::to_string(variant.numWarps) +
         " stages=" + std::to_string(variant.numStages) + (variant.warpSpecialize ? " warp-specialized" : "") +
         (variant.clusterSize > 1 ? " clusters=" + std::to_string(variant.clusterSize) : "") +
         (target.empty() ? "" : " " + target);
}

} // namespace

runtime::Expected<GeneratedLaunchers> generateLaunchers(const std::vector<Entry> &kernels, const std::string &ns,
                                                        const std::vector<std::string> &targets) {
  for (const std::string &part : split(ns + "::", ':'))
    if (!isIdentifier(part))
      return runtime::Error("--namespace '" + ns + "' is not a C++ namespace name");
  if (targets.empty())
    return runtime::Error("no target to compile for");
  std::string headerName = ns;
  std::replace(headerName.begin(), headerName.end(), ':', '_');
  std::string banner = std::string("// Generated by Brick ") + detail::compilerId() +
                       " (brick::tool --aot). Do not edit: regenerate.\n";
  GeneratedLaunchers out;
  out.header = banner + "#pragma once\n\n#include \"brick/Runtime/Launcher.h\"\n\n#include <cstdint>\n\nnamespace " + ns +
               " {\n";
  out.source = banner + "#include \"" + headerName + ".h\"\n\nnamespace " + ns + " {\n";
  std::map<std::string, int> seen;
  for (const Entry &entry : kernels) {
    const detail::JitKernel &kernel = entry.kernel;
    if (!isIdentifier(kernel.name))
      return runtime::Error("kernel '" + kernel.name + "': its name is not a C++ identifier, which its launcher needs");
    if (seen[kernel.name]++)
      return runtime::Error("two kernels are named '" + kernel.name + "'");
    if (entry.variants.empty())
      return runtime::Error("kernel '" + kernel.name + "': no specialization to compile (give its variants or --spec)");
    std::vector<std::string> names = entry.parameterNames;
    if (names.empty())
      for (size_t i = 0; i < kernel.params.size(); ++i)
        names.push_back("arg" + std::to_string(i));
    if (names.size() != kernel.params.size())
      return runtime::Error("kernel '" + kernel.name + "': " + std::to_string(names.size()) +
                            " parameter names for " + std::to_string(kernel.params.size()) + " parameters");
    std::string parameters, arguments;
    for (size_t i = 0; i < kernel.params.size(); ++i) {
      const detail::ParamInfo &param = kernel.params[i];
      std::string type = cppType(param);
      if (type.empty())
        return runtime::Error("kernel '" + kernel.name + "': parameter " + std::to_string(i) + " (" + names[i] +
                              ") is a " + describeParameters({param}) +
                              ", which AOT launchers do not take yet (pointers, numbers and Const values)");
      if (!isIdentifier(names[i]) || names[i] == "stream" || names[i] == "grid" || names[i] == "device")
        return runtime::Error("kernel '" + kernel.name + "': parameter name '" + names[i] +
                              "' is not a C++ identifier the launcher can use");
      parameters += ", " + type + " " + names[i];
      const char *kind = "brick::runtime::LauncherArg::Kind::";
      std::string value = param.kind == detail::ParamKind::Constant ? "nullptr" : "&" + names[i];
      if (param.kind == detail::ParamKind::Pointer)
        arguments += std::string("      {") + kind + "Pointer, " + names[i] + ".address, 0, 0, &" + names[i] +
                     ".address},\n";
      else if (isFloat(param.dtype))
        arguments += std::string("      {") + kind + "Float, 0, 0, static_cast<double>(" + names[i] + "), " + value +
                     "},\n";
      else
        arguments += std::string("      {") + kind + "Integer, 0, static_cast<int64_t>(" + names[i] + "), 0, " +
                     value + "},\n";
    }

    // Every variant for every target, most specialized first (the launcher takes the first that fits).
    std::vector<const Variant *> ordered;
    for (const Variant &variant : entry.variants)
      ordered.push_back(&variant);
    std::stable_sort(ordered.begin(), ordered.end(),
                     [](const Variant *a, const Variant *b) { return specificity(a->spec) > specificity(b->spec); });
    std::string table, data, compiledList;
    int index = 0;
    for (const Variant *variant : ordered) {
      for (const std::string &target : targets) {
        CompileRequest request;
        request.target = target;
        request.stage = "bundle";
        request.numWarps = variant->numWarps;
        request.numStages = variant->numStages;
        request.warpSpecialize = variant->warpSpecialize;
        request.clusterSize = variant->clusterSize;
        auto compiled = detail::compileKernel(kernel, variant->spec, request);
        if (!compiled)
          return runtime::Error(compiled.error().message() + "\n  (specialization " +
                                describeSpecialization(variant->spec) + " for " + target + ")");
        std::string bytes(compiled->binary.begin(), compiled->binary.end());
        std::string symbol = kernel.name + "_" + std::to_string(index);
        std::string description = variantDescription(*variant, compiled->bundle.target);
        out.bundles.emplace_back(kernel.name + "." + std::to_string(index) + ".brick", bytes);
        data += "// " + description + "\nconst unsigned char " + symbol + "[] = {\n" + byteArray(bytes) + "};\n";
        std::string requirements;
        for (const Arg &arg : variant->spec)
          requirements += (requirements.empty() ? "" : ", ") + requirement(arg);
        table += "      {" + symbol + ", sizeof(" + symbol + "), {" + requirements + "}, \"" + description + "\"},\n";
        compiledList += "///   " + description + "\n";
        ++index;
      }
    }
    std::string signature = describeParameters(kernel.params);
    std::string declaration = "brick::runtime::Error " + kernel.name +
                              "(const brick::runtime::Stream *stream, brick::runtime::LaunchGrid grid" + parameters +
                              ", const brick::runtime::Device *device";
    out.header += "\n/// Launches " + kernel.name + signature + " on `device` (null: GPU 0, or the interpreter with\n"
                  "/// BRICK_INTERPRET=1) with the first of these that the arguments and the device allow:\n" +
                  compiledList + declaration + " = nullptr);\n";
    out.source += "\nnamespace {\n" + data + "} // namespace\n\n" + declaration + ") {\n" +
                  "  static brick::runtime::Launcher launcher(\"" + kernel.name + "\", \"" + signature + "\", {\n" +
                  table + "  });\n  brick::runtime::LauncherArg arguments[] = {\n" + arguments + "  };\n" +
                  "  return launcher.launch(device, stream, grid, arguments, " + std::to_string(kernel.params.size()) +
                  ");\n}\n";
  }
  out.header += "\n} // namespace " + ns + "\n";
  out.source += "\n} // namespace " + ns + "\n";
  return out;
}

int main(int argc, char **argv, const std::vector<Entry> &kernels) {
  std::map<std::string, std::string> options;
  std::vector<std::string> specs;
  static const char *valued[] = {"kernel", "spec", "emit", "arch", "num-warps", "num-stages", "cluster-size",
                                 "dump-dir", "aot", "namespace"};
  static const char *flags[] = {"list", "warp-specialize", "no-fast-math", "resource-usage", "time-stages", "help"};
  std::string output = "-";
  for (int i = 1; i < argc; ++i) {
    std::string argument = argv[i];
    if (argument == "-o") {
      if (++i == argc)
        return fail("-o needs a file name");
      output = argv[i];
      continue;
    }
    if (argument.rfind("--", 0) != 0)
      return fail("unexpected argument '" + argument + "' (--help lists the options)");
    std::string name = argument.substr(2), value;
    bool hasValue = false;
    if (size_t equals = name.find('='); equals != std::string::npos) {
      value = name.substr(equals + 1);
      name = name.substr(0, equals);
      hasValue = true;
    }
    bool isValued = std::any_of(std::begin(valued), std::end(valued), [&](const char *o) { return name == o; });
    bool isFlag = std::any_of(std::begin(flags), std::end(flags), [&](const char *o) { return name == o; });
    if (!isValued && !isFlag)
      return fail("unknown option '--" + name + "' (--help lists the options)");
    if (isValued && !hasValue) {
      if (++i == argc)
        return fail("--" + name + " needs a value");
      value = argv[i];
    }
    if (isFlag && hasValue)
      return fail("--" + name + " takes no value");
    if (name == "spec")
      specs.push_back(value);
    else
      options[name] = value;
  }
  auto has = [&](const char *name) { return options.count(name) != 0; };
  if (has("help")) {
    std::fputs(kHelp, stdout);
    return 0;
  }
  if (kernels.empty())
    return fail("this program offers no kernels");

  if (has("list")) {
    for (const Entry &entry : kernels) {
      std::printf("%s%s\n", entry.kernel.name.c_str(), describeParameters(entry.kernel.params).c_str());
      for (const Variant &variant : entry.variants)
        std::printf("  %s\n", variantDescription(variant, "").c_str());
    }
    return 0;
  }

  // The kernels this command is about, and their specializations.
  std::vector<Entry> chosen;
  if (has("kernel")) {
    for (const Entry &entry : kernels)
      if (entry.kernel.name == options["kernel"])
        chosen.push_back(entry);
    if (chosen.empty()) {
      std::string names;
      for (const Entry &entry : kernels)
        names += " " + entry.kernel.name;
      return fail("no kernel named '" + options["kernel"] + "'; this program has:" + names);
    }
  } else {
    chosen = kernels;
  }
  auto number = [&](const char *name, unsigned low, unsigned high) -> std::optional<unsigned> {
    if (!has(name))
      return std::nullopt;
    char *end = nullptr;
    unsigned long value = std::strtoul(options[name].c_str(), &end, 10);
    if (options[name].empty() || *end || value < low || value > high)
      return 0u;
    return unsigned(value);
  };
  std::optional<unsigned> warps = number("num-warps", 1, 32), stages = number("num-stages", 1, 8);
  if (warps && (*warps == 0 || (*warps & (*warps - 1))))
    return fail("--num-warps must be a power of two from 1 to 32, got '" + options["num-warps"] + "'");
  if (stages && *stages == 0)
    return fail("--num-stages must be from 1 to 8, got '" + options["num-stages"] + "'");
  std::optional<unsigned> cluster = number("cluster-size", 1, 8);
  if (cluster && !runtime::Function::isClusterSize(*cluster))
    return fail("--cluster-size must be 1, 2, 4 or 8, got '" + options["cluster-size"] + "'");
  if (!specs.empty() && chosen.size() != 1)
    return fail("--spec needs --kernel=NAME (this program has several kernels)");
  for (Entry &entry : chosen) {
    if (!specs.empty()) {
      std::vector<Variant> variants;
      for (const std::string &text : specs) {
        auto spec = parseSpecialization(text, entry.kernel.params);
        if (!spec)
          return fail("kernel '" + entry.kernel.name + "': " + spec.error().message());
        variants.push_back(Variant{*spec});
      }
      entry.variants = variants;
    }
    for (Variant &variant : entry.variants) {
      variant.numWarps = warps.value_or(variant.numWarps);
      variant.numStages = stages.value_or(variant.numStages);
      variant.warpSpecialize = variant.warpSpecialize || has("warp-specialize");
      variant.clusterSize = cluster.value_or(variant.clusterSize);
    }
  }

  std::string arch = has("arch") ? options["arch"] : "sm_90a";
  if (has("aot")) {
    std::string directory = options["aot"];
    std::string ns = has("namespace") ? options["namespace"] : "brick_kernels";
    auto generated = generateLaunchers(chosen, ns, split(arch, ','));
    if (!generated)
      return fail(generated.error().message());
    ::mkdir(directory.c_str(), 0777);
    std::string headerName = ns;
    std::replace(headerName.begin(), headerName.end(), ':', '_');
    if (auto error = writeIfChanged(directory + "/" + headerName + ".h", generated->header))
      return fail(error.message());
    if (auto error = writeIfChanged(directory + "/" + headerName + ".cpp", generated->source))
      return fail(error.message());
    for (const auto &[name, bytes] : generated->bundles)
      if (auto error = writeIfChanged(directory + "/" + name, bytes))
        return fail(error.message());
    return 0;
  }

  if (chosen.size() != 1)
    return fail("this program has " + std::to_string(chosen.size()) + " kernels: choose one with --kernel=NAME");
  const Entry &entry = chosen.front();
  if (entry.variants.empty())
    return fail("kernel '" + entry.kernel.name + "' has no specialization listed: give one with --spec");
  const Variant &variant = entry.variants.front();
  CompileRequest request;
  request.target = arch;
  request.stage = has("emit") ? options["emit"] : "ptx";
  request.numWarps = variant.numWarps;
  request.numStages = variant.numStages;
  request.warpSpecialize = variant.warpSpecialize;
  request.clusterSize = variant.clusterSize;
  request.fastMath = !has("no-fast-math");
  request.dumpDirectory = has("dump-dir") ? options["dump-dir"] : "";
  request.resourceUsage = has("resource-usage");
  bool binary = request.stage == "cubin" || request.stage == "bundle";
  if (binary && output == "-" && isatty(fileno(stdout)))
    return fail("a " + request.stage + " is binary: write it to a file with -o");
  auto compiled = detail::compileKernel(entry.kernel, variant.spec, request);
  if (!compiled)
    return fail(compiled.error().message());
  if (compiled->resources)
    std::fprintf(stderr, "%s %s (%s, %u warps): %s\n", compiled->name.c_str(), compiled->specialization.c_str(),
                 arch.c_str(), request.numWarps, compiled->resources->str().c_str());
  if (has("time-stages"))
    std::fprintf(stderr, "%s (%s): %s\n", compiled->name.c_str(), arch.c_str(), compiled->timings.c_str());
  std::string bytes = binary ? std::string(compiled->binary.begin(), compiled->binary.end()) : compiled->text;
  FILE *file = output == "-" ? stdout : std::fopen(output.c_str(), "wb");
  if (!file)
    return fail("cannot open '" + output + "': " + std::strerror(errno));
  std::fwrite(bytes.data(), 1, bytes.size(), file);
  if (std::fflush(file) != 0 || std::ferror(file))
    return fail("cannot write '" + output + "': " + std::strerror(errno));
  if (file != stdout)
    std::fclose(file);
  return 0;
}

} // namespace brick::tool
