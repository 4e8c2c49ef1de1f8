//===- RandomTest.cpp - randint4x / randint / rand / randn: Philox4x32 bit for bit, on the interpreter ---===//

#include "DSLTestUtils.h"
#include "brick/JIT/Compile.h"
#include "brick/JIT/JIT.h"
#include "Philox.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

using namespace brick;
using ::testing::HasSubstr;

namespace {

using test::philox;
using test::uniform;

using brick::testing::cpu;

auto randomBits() {
  return kernel("random_bits", [](Ptr<i32> out, Long seed, Ptr<i64> offsetsIn, Int n, Const<int> BLOCK) {
    Tensor i = program_id(0) * BLOCK + arange(0, BLOCK);
    Tensor mask = i < n;
    Tensor offsets = load(offsetsIn + i, mask);
    std::array<Tensor, 4> bits = randint4x(seed, offsets);
    for (int k = 0; k < 4; ++k)
      store(out + i * 4 + k, bits[k], mask);
  });
}

auto randomFloats() {
  return kernel("random_floats", [](Ptr<f32> uniforms, Ptr<f32> normals, Int seed, Int n, Const<int> BLOCK) {
    Tensor i = program_id(0) * BLOCK + arange(0, BLOCK);
    store(uniforms + i, rand(seed, i), i < n);
    store(normals + i, randn(seed, i), i < n);
  });
}

TEST(Random, PhiloxMatchesItsKnownAnswer) {
  // Random123's known-answer vector for philox4x32-10: counter 0, key 0.
  EXPECT_EQ(philox({0, 0, 0, 0}, 0, 0), (std::array<uint32_t, 4>{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
}

TEST(Random, RandintIsPhiloxOfSeedAndOffset) {
  auto kernel = randomBits();
  const int n = 300; // ragged: 3 programs of 128, the last one masked
  const int64_t seed = 0x0123456789ABCDEFll;
  std::vector<int64_t> offsets(n);
  for (int i = 0; i < n; ++i)
    offsets[i] = i == 0 ? 0 : int64_t(i) * 0x100000007ll - 5; // high halves, negative ones, zero
  std::vector<int32_t> out(4 * n, 0);
  ASSERT_FALSE(kernel.launch(Grid{3}, LaunchOptions{.device = &cpu()}, out.data(), seed, offsets.data(), n, 128));
  for (int i = 0; i < n; ++i) {
    auto expected = philox({uint32_t(offsets[i]), uint32_t(uint64_t(offsets[i]) >> 32), 0, 0}, uint32_t(seed),
                           uint32_t(uint64_t(seed) >> 32));
    for (int k = 0; k < 4; ++k)
      ASSERT_EQ(uint32_t(out[4 * i + k]), expected[k]) << "offset " << offsets[i] << ", block " << k;
  }
  // Seed 0, offset 0 is the known answer itself.
  std::vector<int64_t> zero(1, 0);
  ASSERT_FALSE(kernel.launch(Grid{1}, LaunchOptions{.device = &cpu()}, out.data(), int64_t(0), zero.data(), 1, 128));
  EXPECT_EQ(uint32_t(out[0]), 0x6627e8d5u);
  EXPECT_EQ(uint32_t(out[3]), 0x9b00dbd8u);
}

TEST(Random, TheStreamIsTritons) {
  // What Triton 3.6 gave on an H100 for tl.randint(1234, tl.arange(0, 8)) and tl.rand(1234, tl.arange(0, 8))
  // (gpu-package/tri/rand.py, 2026-11-23): Brick's randint and rand are the same stream, bit for bit.
  auto kernel = randomFloats();
  const std::array<uint32_t, 8> tritonRandint = {546353992u,  2666454581u, 1070188760u, 3055983166u,
                                                 346514135u,  3391693257u, 4245463582u, 3004048045u};
  const std::array<float, 8> tritonRand = {0x1.048598p-2f, 0x1.844486p-1f, 0x1.fe4e44p-2f, 0x1.276596p-1f,
                                           0x1.4a762cp-3f, 0x1.aeb6f0p-2f, 0x1.79aeeep-6f, 0x1.33c774p-1f};
  std::vector<float> uniforms(8), normals(8);
  ASSERT_FALSE(kernel.launch(Grid{1}, LaunchOptions{.device = &cpu()}, uniforms.data(), normals.data(), 1234, 8, 8));
  std::vector<int64_t> offsets = {0, 1, 2, 3, 4, 5, 6, 7};
  std::vector<int32_t> bits(32);
  ASSERT_FALSE(randomBits().launch(Grid{1}, LaunchOptions{.device = &cpu()}, bits.data(), int64_t(1234), offsets.data(), 8, 8));
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(uint32_t(bits[4 * i]), tritonRandint[i]) << i;
    EXPECT_EQ(uniforms[i], tritonRand[i]) << i;
  }
}

TEST(Random, RandIsUniformAndRandnIsNormal) {
  auto kernel = randomFloats();
  const int n = 5000, seed = 1234;
  std::vector<float> uniforms(n), normals(n);
  ASSERT_FALSE(kernel.launch(Grid{(n + 255) / 256}, LaunchOptions{.device = &cpu()}, uniforms.data(), normals.data(),
                             seed, n, 256));
  double mean = 0, normalMean = 0, normalVariance = 0;
  for (int i = 0; i < n; ++i) {
    auto bits = philox({uint32_t(i), 0, 0, 0}, uint32_t(seed), 0);
    ASSERT_EQ(uniforms[i], uniform(bits[0])) << i; // bit for bit
    ASSERT_GE(uniforms[i], 0.0f);
    ASSERT_LT(uniforms[i], 1.0f);
    double u1 = std::max(1.0e-7f, uniform(bits[0])), u2 = uniform(bits[1]);
    double expected = std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
    ASSERT_NEAR(normals[i], expected, 1e-5 * (1 + std::fabs(expected))) << i;
    mean += uniforms[i];
    normalMean += normals[i];
    normalVariance += double(normals[i]) * normals[i];
  }
  mean /= n, normalMean /= n, normalVariance /= n;
  EXPECT_NEAR(mean, 0.5, 0.02);
  EXPECT_NEAR(normalMean, 0.0, 0.05);
  EXPECT_NEAR(normalVariance, 1.0, 0.08);
}

TEST(Random, ProductsBecomeMulHi) {
  auto compiled = compileKernel(randomFloats(), {dyn, dyn, dyn, dyn, 256}, {.target = "sm_90a", .stage = "ptx"});
  ASSERT_TRUE(compiled) << compiled.error().message();
  EXPECT_THAT(compiled->text, HasSubstr("mul.hi.u32"));
  // No 64-bit products left (mul.wide.s32 by 4 addresses the f32 elements).
  EXPECT_EQ(compiled->text.find("mul.wide.u32"), std::string::npos);
  EXPECT_EQ(compiled->text.find("mul.lo.s64"), std::string::npos);
}

TEST(Random, MisuseIsAnErrorAtTheUsersLine) {
  auto badSeed = kernel("bad_seed", [](Ptr<f32> out, Float seed) {
    store(out + arange(0, 16), rand(seed, arange(0, 16)));
  });
  BuildResult built = badSeed.build();
  ASSERT_FALSE(built);
  EXPECT_THAT(built.errors(), HasSubstr("RandomTest.cpp"));
  EXPECT_THAT(built.errors(), HasSubstr("a random seed is an integer scalar"));
  auto badOffsets = kernel("bad_offsets", [](Ptr<f32> out) {
    store(out + arange(0, 16), rand(7, arange(0, 16).to<f32>()));
  });
  EXPECT_THAT(badOffsets.build().errors(), HasSubstr("random offsets are an i32 or i64 block"));
  auto badRounds = kernel("bad_rounds", [](Ptr<i32> out) { store(out + arange(0, 16), randint(7, arange(0, 16), 0)); });
  EXPECT_THAT(badRounds.build().errors(), HasSubstr("Philox takes 1 to 64 rounds"));
}

} // namespace
