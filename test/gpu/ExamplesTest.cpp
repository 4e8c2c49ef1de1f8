//===- ExamplesTest.cpp - Every example's host program, on the GPU and on the CPU interpreter ---===//
//
// Each example's host program (examples/<name>_host.cpp) makes fresh random inputs (never all zeros), poisons
// its outputs with NaN, launches through the JIT and compares with a float64 reference: f32 within 1e-5 relative
// norm, f16/bf16 within 1e-2. The same tests run on two devices: Gpu/ (skipped, saying why, without a GPU) and
// Interpreter/ (everywhere, in CI too). Shapes include ragged ones (n = 1000, 3000 columns) and unaligned rows.
//
//===----------------------------------------------------------------------===//

#include "host.h"
#include "vector_add.h"

#include <gtest/gtest.h>

using namespace brick;

namespace {

enum class Where { Gpu, Interpreter };

const runtime::Device *deviceFor(Where where, std::string *why) {
  if (where == Where::Interpreter) {
    static runtime::Device interpreter = runtime::Device::interpreter();
    return &interpreter;
  }
  static runtime::Expected<runtime::Device> gpu = runtime::Device::get(0);
  if (!gpu) {
    *why = "no GPU: " + gpu.error().message();
    return nullptr;
  }
  if (gpu->isInterpreter()) {
    *why = "BRICK_INTERPRET is set: the Interpreter/ tests cover it";
    return nullptr;
  }
  return &*gpu;
}

class Examples : public ::testing::TestWithParam<Where> {
protected:
  void SetUp() override {
    std::string why;
    device_ = deviceFor(GetParam(), &why);
    if (!device_)
      GTEST_SKIP() << why;
  }
  const runtime::Device &device() const { return *device_; }

private:
  const runtime::Device *device_ = nullptr;
};

#define EXPECT_PASSES(check)                                                                                   \
  do {                                                                                                         \
    examples::Check result = (check);                                                                          \
    EXPECT_TRUE(result.ok()) << result.str();                                                                  \
  } while (false)

TEST_P(Examples, VectorAdd) {
  for (int n : {1, 1000, 1024, 98432, 1 << 20, 3000017})
    EXPECT_PASSES(examples::runVectorAdd(device(), n));
}

TEST_P(Examples, SoftmaxF32) {
  for (auto [rows, cols] : {std::pair{1, 1}, {5, 3000}, {64, 1000}, {33, 1024}, {8, 4096}, {4, 16384}, {128, 256}})
    EXPECT_PASSES(examples::runSoftmax<f32>(device(), rows, cols));
}

TEST_P(Examples, SoftmaxBf16) {
  for (auto [rows, cols] : {std::pair{1, 1}, {5, 3000}, {64, 1000}, {33, 1024}, {8, 4096}, {4, 16384}, {128, 256}})
    EXPECT_PASSES(examples::runSoftmax<bf16>(device(), rows, cols));
}

TEST_P(Examples, SoftmaxOnAPersistentGridLoopsOverTiles) {
  EXPECT_PASSES(examples::runSoftmax<f32>(device(), 64, 1000, /*maxPrograms=*/5));
  EXPECT_PASSES(examples::runSoftmax<bf16>(device(), 33, 3000, /*maxPrograms=*/4));
}

TEST_P(Examples, SoftmaxF16) {
  for (auto [rows, cols] : {std::pair{3, 3000}, {16, 512}})
    EXPECT_PASSES(examples::runSoftmax<f16>(device(), rows, cols));
}

TEST_P(Examples, MatmulF16) {
  for (auto [m, n, k] : {std::tuple{128, 128, 64}, {256, 384, 512}, {100, 70, 50}, {1, 300, 33}, {513, 129, 257}})
    EXPECT_PASSES(examples::runMatmul(device(), m, n, k));
}

TEST_P(Examples, MoeBf16) {
  for (int tokens : {1, 7, 100})
    EXPECT_PASSES(examples::runMoe(device(), tokens));
}

INSTANTIATE_TEST_SUITE_P(Gpu, Examples, ::testing::Values(Where::Gpu));
INSTANTIATE_TEST_SUITE_P(Interpreter, Examples, ::testing::Values(Where::Interpreter));

TEST(ExamplesOnGpu, SecondLaunchReusesTheCompiledKernel) {
  std::string why;
  const runtime::Device *gpu = deviceFor(Where::Gpu, &why);
  if (!gpu)
    GTEST_SKIP() << why;
  auto kernel = examples::vectorAdd();
  std::vector<float> x = examples::host::randomFloats(4096);
  auto dx = examples::host::upload(*gpu, x), dy = examples::host::upload(*gpu, x);
  auto out = examples::host::poisoned(*gpu, 4096 * 4);
  ASSERT_TRUE(dx && dy && out);
  for (int i = 0; i < 3; ++i)
    ASSERT_FALSE(kernel.launch(Grid{4}, LaunchOptions{}, *dx, *dy, *out, 4096, 1024));
  EXPECT_EQ(kernel.specializations().size(), 1u);
  ASSERT_FALSE(kernel.launch(Grid{4}, LaunchOptions{}, *dx, *dy, *out, 4095, 1024)); // n no longer divisible by 16
  EXPECT_EQ(kernel.specializations().size(), 2u);
}

} // namespace
