//===- ToolTest.cpp - A user's kernels compiled without a GPU: the compile API, specializations as text,
//                    brick::tool's command line and the AOT launchers it generates ---===//

#include "brick/JIT/Compile.h"
#include "brick/Target/PTX.h"
#include "brick/Tool/Tool.h"
#include "matmul.h"
#include "vector_add.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace brick;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

namespace {

auto scale() {
  return kernel("scale", [](Ptr<f32> out, Ptr<f32> in, Float factor, Int n, Const<int> BLOCK, Const<float> BIAS,
                            Const<bool> CLAMP) {
    Tensor offsets = program_id(0) * BLOCK + arange(0, BLOCK);
    Tensor value = load(in + offsets, offsets < n) * factor + BIAS;
    if (CLAMP)
      value = maximum(value, 0.0f);
    store(out + offsets, value, offsets < n);
  });
}

std::string readFile(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(Tool, SpecializationsReadBackAsPrinted) {
  auto kernel = scale();
  for (const char *text : {"(%16, _, _, =1, 256, 0.5, true)", "(_, %8, _, %16, 1024, -2.0, false)",
                           "(%4, %2, _, _, 64, 1e-07, true)"}) {
    auto spec = parseSpecialization(text, kernel.params());
    ASSERT_TRUE(spec) << spec.error().message();
    EXPECT_EQ(describeSpecialization(*spec), text);
  }
  // Without parentheses and with other spacing: the same.
  auto loose = parseSpecialization("%16,_ ,_,  =1,256,0.5,1", kernel.params());
  ASSERT_TRUE(loose) << loose.error().message();
  EXPECT_EQ(describeSpecialization(*loose), "(%16, _, _, =1, 256, 0.5, true)");
  // Descriptors: block shape and what is known of each extent.
  auto matmul = examples::matmulDescriptors<f16>();
  auto descriptors = parseSpecialization("([128x64]%16_, [64x128]%16%16, [128x128]__, %16, _, =1, 128, 128, 64, 8)",
                                         matmul.params());
  ASSERT_TRUE(descriptors) << descriptors.error().message();
  EXPECT_EQ(describeSpecialization(*descriptors), "([128x64]%16_, [64x128]%16%16, [128x128]__, %16, _, =1, 128, 128, 64, 8)");
}

TEST(Tool, BadSpecializationsNameTheArgument) {
  auto kernel = scale();
  auto error = [&](const char *text) {
    auto spec = parseSpecialization(text, kernel.params());
    return spec ? std::string("parsed") : spec.error().message();
  };
  EXPECT_THAT(error("(%16, _, _)"), HasSubstr("has 3 arguments; the kernel takes 7 (*f32, *f32, f32, i32, Const<i32>, "
                                             "Const<f32>, Const<i1>)"));
  EXPECT_THAT(error("(%3, _, _, _, 256, 0.5, true)"), HasSubstr("argument 0 ('%3', *f32) takes _ or %N"));
  EXPECT_THAT(error("(_, _, %16, _, 256, 0.5, true)"), HasSubstr("argument 2 ('%16', f32) takes _"));
  EXPECT_THAT(error("(_, _, _, =2, 256, 0.5, true)"), HasSubstr("argument 3 ('=2', i32) takes _, =1 or %N"));
  EXPECT_THAT(error("(_, _, _, _, 4294967296, 0.5, true)"), HasSubstr("argument 4 ('4294967296', Const<i32>) takes a "
                                                                      "32-bit integer"));
  EXPECT_THAT(error("(_, _, _, _, 256, half, true)"), HasSubstr("argument 5 ('half', Const<f32>) takes a number"));
  EXPECT_THAT(error("(_, _, _, _, 256, 0.5, maybe)"), HasSubstr("argument 6 ('maybe', Const<i1>) takes true or false"));
  auto matmul = examples::matmulDescriptors<f16>();
  auto bad = parseSpecialization("([128]%16, [64x128], [128x128], _, _, _, 128, 128, 64, 8)", matmul.params());
  ASSERT_FALSE(bad);
  EXPECT_THAT(bad.error().message(), HasSubstr("argument 0 ('[128]%16', TensorDescriptor<f16, 2>) needs 2 block"));
}

TEST(Tool, SpecializationOfMatchesWhatALaunchCompiles) {
  auto kernel = examples::vectorAdd();
  float host[64];
  Specialization spec = specializationOf(kernel, DevicePointer{0x7f0000000000}, DevicePointer{0x7f0000000004},
                                         &host[0], 4096, 1024);
  // The host array's alignment is whatever it is: only the first two are certain.
  std::string text = describeSpecialization(spec);
  EXPECT_EQ(text.substr(0, 8), "(%16, _,");
  EXPECT_THAT(text, HasSubstr(", %16, 1024)"));
  EXPECT_EQ(describeSpecialization(specializationOf(kernel, DevicePointer{16}, DevicePointer{32}, DevicePointer{48},
                                                    1, 256)),
            "(%16, %16, %16, =1, 256)");
  EXPECT_EQ(describeSpecialization(specializationOf(kernel, DevicePointer{16}, DevicePointer{32}, DevicePointer{48},
                                                    1000, 256)),
            "(%16, %16, %16, %8, 256)");
}

TEST(Tool, CompileKernelGivesEveryStage) {
  auto kernel = examples::vectorAdd();
  Specialization spec = {Arg::divisibleBy(16), Arg::divisibleBy(16), Arg::divisibleBy(16), Arg::divisibleBy(16), 1024};
  auto brickIR = compileKernel(kernel, spec, {.stage = "brick"});
  ASSERT_TRUE(brickIR) << brickIR.error().message();
  EXPECT_THAT(brickIR->text, HasSubstr("func.func @vector_add"));
  EXPECT_EQ(brickIR->specialization, "(%16, %16, %16, %16, 1024)");
  auto gpu = compileKernel(kernel, spec, {.stage = "brickgpu", .numWarps = 8});
  ASSERT_TRUE(gpu) << gpu.error().message();
  EXPECT_THAT(gpu->text, HasSubstr("#brickgpu.blocked"));
  EXPECT_THAT(gpu->text, HasSubstr("warpsPerCTA = [8]"));
  for (const char *target : {"sm_80", "sm_90a"}) {
    auto ptx = compileKernel(kernel, spec, {.target = target, .stage = "ptx"});
    ASSERT_TRUE(ptx) << ptx.error().message();
    EXPECT_THAT(ptx->text, HasSubstr(std::string(".target ") + target));
    EXPECT_THAT(ptx->text, HasSubstr("ld.global.v4.b32"));
    EXPECT_EQ(ptx->bundle.target, target);
    EXPECT_THAT(ptx->bundle.brickIR, HasSubstr("func.func @vector_add")); // the interpreter can run an AOT bundle
  }
  auto bundle = compileKernel(kernel, spec, {.stage = "bundle"});
  ASSERT_TRUE(bundle) << bundle.error().message();
  auto read = runtime::KernelBundle::deserialize(std::string_view(bundle->binary.data(), bundle->binary.size()));
  ASSERT_TRUE(read) << read.error().message();
  EXPECT_EQ(*read, bundle->bundle);
}

TEST(Tool, CompileKernelReportsResourcesWithPtxas) {
  if (findPtxas().empty())
    GTEST_SKIP() << "no ptxas (install the CUDA toolkit): the resource report needs it";
  auto kernel = examples::vectorAdd();
  auto compiled = compileKernel(kernel, {dyn, dyn, dyn, dyn, 1024}, {.target = "sm_80", .resourceUsage = true});
  ASSERT_TRUE(compiled) << compiled.error().message();
  ASSERT_TRUE(compiled->resources);
  EXPECT_GT(compiled->resources->registers, 0u);
  EXPECT_THAT(compiled->resources->str(), HasSubstr(" registers, 0 bytes spill stores"));
}

TEST(Tool, CompileKernelErrorsSayWhat) {
  auto kernel = examples::vectorAdd();
  Specialization spec = {dyn, dyn, dyn, dyn, 1024};
  auto target = compileKernel(kernel, spec, {.target = "sm_100"});
  ASSERT_FALSE(target);
  EXPECT_THAT(target.error().message(), HasSubstr("kernel 'vector_add': unsupported GPU architecture 'sm_100'"));
  auto stage = compileKernel(kernel, spec, {.stage = "sass"});
  ASSERT_FALSE(stage);
  EXPECT_THAT(stage.error().message(), HasSubstr("sass"));
  auto warps = compileKernel(kernel, spec, {.numWarps = 3});
  ASSERT_FALSE(warps);
  EXPECT_THAT(warps.error().message(), HasSubstr("numWarps must be a power of two from 1 to 32, got 3"));
  auto cluster = compileKernel(kernel, spec, {.clusterSize = 3});
  ASSERT_FALSE(cluster);
  EXPECT_THAT(cluster.error().message(), HasSubstr("clusters of 3 programs: a cluster holds 2, 4 or 8"));
  // A specialization that does not build: the user's diagnostics.
  auto build = compileKernel(kernel, {dyn, dyn, dyn, dyn, 1000});
  ASSERT_FALSE(build);
  EXPECT_THAT(build.error().message(), HasSubstr("does not build"));
}

std::vector<tool::Entry> toolKernels() {
  return {tool::entry(examples::vectorAdd(), {"x", "y", "out", "n", "BLOCK"},
                      {{{Arg::divisibleBy(16), Arg::divisibleBy(16), Arg::divisibleBy(16), Arg::divisibleBy(16), 1024}},
                       {{dyn, dyn, dyn, dyn, 1024}, 8}}),
          tool::entry(scale(), {}, {{{dyn, dyn, dyn, dyn, 256, 0.5, true}}})};
}

int runTool(std::vector<std::string> args) {
  std::vector<char *> argv;
  static std::string program = "tool";
  argv.push_back(program.data());
  for (std::string &arg : args)
    argv.push_back(arg.data());
  return tool::main(int(argv.size()), argv.data(), toolKernels());
}

TEST(Tool, MainEmitsAnyStageOfTheProgramsKernels) {
  fs::path dir = fs::temp_directory_path() / ("brick-tool-test-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::string ptx = (dir / "out.ptx").string();
  ASSERT_EQ(runTool({"--kernel=vector_add", "--emit=ptx", "--arch=sm_80", "-o", ptx}), 0);
  EXPECT_THAT(readFile(ptx), HasSubstr(".target sm_80"));
  std::string ir = (dir / "out.mlir").string();
  ASSERT_EQ(runTool({"--kernel=scale", "--spec", "(%16, %16, _, =1, 128, 2.0, false)", "--emit=brick", "-o", ir}), 0);
  EXPECT_THAT(readFile(ir), HasSubstr("func.func @scale"));
  EXPECT_THAT(readFile(ir), HasSubstr("tensor<128xf32>"));
  ASSERT_EQ(runTool({"--kernel=vector_add", "--emit=llvm-ir", "--dump-dir", (dir / "stages").string(), "-o",
                     (dir / "out.ll").string()}),
            0);
  EXPECT_TRUE(fs::exists(dir / "stages"));
  EXPECT_FALSE(fs::is_empty(dir / "stages"));
  fs::remove_all(dir);
}

TEST(Tool, MainRefusesWhatItCannotDo) {
  EXPECT_EQ(runTool({"--emit=ptx"}), 1);                          // two kernels: which?
  EXPECT_EQ(runTool({"--kernel=nope"}), 1);                       // no such kernel
  EXPECT_EQ(runTool({"--bogus"}), 1);                             // no such option
  EXPECT_EQ(runTool({"--list=yes"}), 1);                          // a flag with a value
  EXPECT_EQ(runTool({"--kernel=vector_add", "--num-warps=3"}), 1); // not a power of two
  EXPECT_EQ(runTool({"--kernel=vector_add", "--spec=(_, _)"}), 1); // the wrong number of arguments
  EXPECT_EQ(runTool({"--spec=(_, _, _, _, 1024)"}), 1);           // --spec without --kernel
  EXPECT_EQ(runTool({"--kernel=vector_add", "--arch=sm_75"}), 1);  // not a target Brick emits
  EXPECT_EQ(runTool({"-o"}), 1);
}

TEST(Tool, AotWritesLaunchersOverEmbeddedBundles) {
  auto generated = tool::generateLaunchers({toolKernels().front()}, "my::kernels", {"sm_80", "sm_90a"});
  ASSERT_TRUE(generated) << generated.error().message();
  EXPECT_THAT(generated->header, HasSubstr("namespace my::kernels {"));
  EXPECT_THAT(generated->header,
              HasSubstr("brick::runtime::Error vector_add(const brick::runtime::Stream *stream, brick::runtime::LaunchGrid "
                        "grid, brick::runtime::KernelPointer x, brick::runtime::KernelPointer y, "
                        "brick::runtime::KernelPointer out, int32_t n, int BLOCK, const brick::runtime::Device *device "
                        "= nullptr);"));
  // Most specialized first, one bundle per variant and target.
  size_t aligned = generated->header.find("(%16, %16, %16, %16, 1024) warps=4 stages=3 sm_80");
  size_t generic = generated->header.find("(_, _, _, _, 1024) warps=8 stages=3 sm_90a");
  ASSERT_NE(aligned, std::string::npos);
  ASSERT_NE(generic, std::string::npos);
  EXPECT_LT(aligned, generic);
  ASSERT_EQ(generated->bundles.size(), 4u);
  EXPECT_EQ(generated->bundles[0].first, "vector_add.0.brick");
  EXPECT_THAT(generated->source, HasSubstr("#include \"my__kernels.h\""));
  EXPECT_THAT(generated->source, HasSubstr("Requirement::Kind::DivisibleBy, 16"));
  EXPECT_THAT(generated->source, HasSubstr("Requirement::Kind::EqualInteger, INT64_C(1024)"));
  for (const auto &[name, bytes] : generated->bundles) {
    auto bundle = runtime::KernelBundle::deserialize(bytes);
    ASSERT_TRUE(bundle) << name << ": " << bundle.error().message();
    EXPECT_FALSE(bundle->brickIR.empty());
  }
}

TEST(Tool, AotRefusesWhatLaunchersCannotTake) {
  auto namespaceError = tool::generateLaunchers(toolKernels(), "my-kernels", {"sm_90a"});
  ASSERT_FALSE(namespaceError);
  EXPECT_THAT(namespaceError.error().message(), HasSubstr("is not a C++ namespace name"));
  auto descriptors = tool::generateLaunchers(
      {tool::entry(examples::matmulDescriptors<f16>(), {}, {{{Arg::descriptor({128, 64}), Arg::descriptor({64, 128}),
                                                              Arg::descriptor({128, 128}), dyn, dyn, dyn, 128, 128, 64, 8}}})},
      "k", {"sm_90a"});
  ASSERT_FALSE(descriptors);
  EXPECT_THAT(descriptors.error().message(), HasSubstr("which AOT launchers do not take yet"));
  auto names = tool::generateLaunchers({tool::entry(examples::vectorAdd(), {"x", "y"}, {{{dyn, dyn, dyn, dyn, 64}}})},
                                       "k", {"sm_90a"});
  ASSERT_FALSE(names);
  EXPECT_THAT(names.error().message(), HasSubstr("2 parameter names for 5 parameters"));
  auto reserved = tool::generateLaunchers(
      {tool::entry(examples::vectorAdd(), {"x", "y", "grid", "n", "B"}, {{{dyn, dyn, dyn, dyn, 64}}})}, "k", {"sm_90a"});
  ASSERT_FALSE(reserved);
  EXPECT_THAT(reserved.error().message(), HasSubstr("parameter name 'grid'"));
}

} // namespace
