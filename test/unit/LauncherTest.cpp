//===- LauncherTest.cpp - What generated AOT launchers rely on: matching arguments to specializations ---===//
//
// Runs with the runtime alone. The interpreter's bundle runner is replaced by one that records which bundle a
// launch chose, so the choice is tested without a GPU or the compiler.
//
//===----------------------------------------------------------------------===//

#include "brick/Runtime/Launcher.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

using namespace brick::runtime;
using ::testing::HasSubstr;

namespace {

std::string lastLaunched;
int32_t lastN = 0;

Error recordLaunch(const KernelBundle &bundle, std::array<unsigned, 3>, void **args) {
  lastLaunched = bundle.name + "/" + bundle.target;
  lastN = *static_cast<int32_t *>(args[1]);
  return Error();
}

std::string bundleBytes(const std::string &name, const std::string &target) {
  KernelBundle bundle;
  bundle.name = name;
  bundle.target = target;
  bundle.params = {{BundleParam::Kind::Pointer, "f32"}, {BundleParam::Kind::Scalar, "i32"}};
  bundle.ptx = "// " + target;
  return bundle.serialize();
}

using Kind = Requirement::Kind;

TEST(Launcher, RequirementsHoldAsSpecializationsAssume) {
  LauncherArg pointer{LauncherArg::Kind::Pointer, 0x1000};
  LauncherArg misaligned{LauncherArg::Kind::Pointer, 0x1004};
  LauncherArg integer{LauncherArg::Kind::Integer, 0, 48};
  LauncherArg one{LauncherArg::Kind::Integer, 0, 1};
  LauncherArg real{LauncherArg::Kind::Float, 0, 0, 0.5};
  EXPECT_TRUE((Requirement{Kind::DivisibleBy, 16}.holds(pointer)));
  EXPECT_FALSE((Requirement{Kind::DivisibleBy, 16}.holds(misaligned)));
  EXPECT_TRUE((Requirement{Kind::DivisibleBy, 16}.holds(integer)));
  EXPECT_FALSE((Requirement{Kind::DivisibleBy, 32}.holds(integer)));
  EXPECT_TRUE((Requirement{Kind::EqualInteger, 1}.holds(one)));
  EXPECT_FALSE((Requirement{Kind::EqualInteger, 1}.holds(integer)));
  EXPECT_TRUE((Requirement{Kind::EqualReal, 0, 0.5}.holds(real)));
  EXPECT_FALSE((Requirement{Kind::EqualReal, 0, 0.25}.holds(real)));
  EXPECT_TRUE((Requirement{Kind::Any}.holds(misaligned)));
}

TEST(Launcher, TheFirstVariantTheArgumentsFitIsLaunched) {
  static const std::string aligned = bundleBytes("k_aligned", "sm_90a"), any = bundleBytes("k_any", "sm_90a");
  Launcher launcher("k", "(*f32, i32, Const<i32>)",
                    {{reinterpret_cast<const unsigned char *>(aligned.data()), aligned.size(),
                      {{Kind::DivisibleBy, 16}, {Kind::DivisibleBy, 16}, {Kind::EqualInteger, 256}},
                      "(%16, %16, 256) warps=4 stages=3 sm_90a"},
                     {reinterpret_cast<const unsigned char *>(any.data()), any.size(),
                      {{Kind::Any}, {Kind::Any}, {Kind::EqualInteger, 256}},
                      "(_, _, 256) warps=4 stages=3 sm_90a"}});
  setBundleInterpreter(&recordLaunch);
  Device interpreter = Device::interpreter();
  auto launch = [&](uint64_t address, int32_t n, int block) {
    LauncherArg args[] = {{LauncherArg::Kind::Pointer, address, 0, 0, &address},
                          {LauncherArg::Kind::Integer, 0, n, 0, &n},
                          {LauncherArg::Kind::Integer, 0, block, 0, nullptr}};
    return launcher.launch(&interpreter, nullptr, {4}, args, 3);
  };
  ASSERT_FALSE(launch(0x1000, 4096, 256));
  EXPECT_EQ(lastLaunched, "k_aligned/sm_90a");
  EXPECT_EQ(lastN, 4096); // the runtime argument's value reaches the kernel; the Const one does not
  ASSERT_FALSE(launch(0x1000, 3000, 256));
  EXPECT_EQ(lastLaunched, "k_any/sm_90a");
  ASSERT_FALSE(launch(0x1008, 4096, 256));
  EXPECT_EQ(lastLaunched, "k_any/sm_90a");
  Error none = launch(0x1000, 4096, 512);
  ASSERT_TRUE(none);
  EXPECT_THAT(none.message(), HasSubstr("kernel 'k(*f32, i32, Const<i32>)': no compiled specialization fits the "
                                        "arguments (pointer aligned to 16, 4096, 512) on the interpreter; compiled:\n"
                                        "  (%16, %16, 256) warps=4 stages=3 sm_90a\n  (_, _, 256)"));
  Error grid = launcher.launch(&interpreter, nullptr, {0}, nullptr, 0);
  ASSERT_TRUE(grid);
  EXPECT_THAT(grid.message(), HasSubstr("grid (0, 1, 1) is not launchable"));
  // The runtime alone has no interpreter.
  setBundleInterpreter(nullptr);
  Error missing = launch(0x1000, 4096, 256);
  ASSERT_TRUE(missing);
  EXPECT_THAT(missing.message(), HasSubstr("needs Brick::brick and a call to brick::enableBundleInterpreter()"));
}

TEST(Launcher, DamagedEmbeddedBundlesAreErrors) {
  static std::string damaged = bundleBytes("k", "sm_90a");
  damaged[damaged.size() - 3] ^= 0x40;
  Launcher launcher("k", "(*f32, i32)",
                    {{reinterpret_cast<const unsigned char *>(damaged.data()), damaged.size(),
                      {{Kind::Any}, {Kind::Any}}, "(_, _) warps=4 stages=3 sm_90a"}});
  setBundleInterpreter(&recordLaunch);
  Device interpreter = Device::interpreter();
  uint64_t address = 0x1000;
  int32_t n = 1;
  LauncherArg args[] = {{LauncherArg::Kind::Pointer, address, 0, 0, &address}, {LauncherArg::Kind::Integer, 0, n, 0, &n}};
  Error error = launcher.launch(&interpreter, nullptr, {1}, args, 2);
  ASSERT_TRUE(error);
  EXPECT_THAT(error.message(), HasSubstr("checksum mismatch"));
  setBundleInterpreter(nullptr);
}

} // namespace
