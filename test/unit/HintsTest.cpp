//===- HintsTest.cpp - multiple_of / max_contiguous / max_constancy / assume: what they unlock in the PTX, and
//                     the interpreter's check that they are true ---===//

#include "DSLTestUtils.h"
#include "brick/JIT/Compile.h"
#include "brick/JIT/JIT.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <numeric>
#include <regex>

using namespace brick;
using ::testing::HasSubstr;

namespace {

using brick::testing::cpu;

/// The line of gather()'s hints, which a false hint's error names.
int hintLine = 0;

/// A paged gather: each group of 4 indices is 4 consecutive elements starting at a multiple of 4, which only
/// the programmer knows.
auto gather() {
  return kernel("gather", [](Ptr<f32> out, Ptr<f32> table, Ptr<i32> indices, Int n, Const<int> BLOCK,
                             Const<bool> HINT) {
    Tensor i = program_id(0) * BLOCK + arange(0, BLOCK);
    Tensor index = load(indices + i, i < n);
    hintLine = __LINE__ + 2;
    if (HINT)
      index = max_contiguous(multiple_of(index, {4}), {4});
    store(out + i, load(table + index, i < n), i < n);
  });
}

int count(const std::string &text, const std::string &pattern) {
  std::regex re(pattern);
  return int(std::distance(std::sregex_iterator(text.begin(), text.end(), re), std::sregex_iterator()));
}

TEST(Hints, ContiguityAndDivisibilityUnlockVectorLoads) {
  Specialization plain = {Arg::divisibleBy(16), Arg::divisibleBy(16), Arg::divisibleBy(16), Arg::divisibleBy(16), 256,
                          false};
  Specialization hinted = plain;
  hinted[5] = true;
  auto without = compileKernel(gather(), plain, {.target = "sm_90a", .stage = "ptx"});
  auto with = compileKernel(gather(), hinted, {.target = "sm_90a", .stage = "ptx"});
  ASSERT_TRUE(without && with);
  // The indices are v4 loads either way; the gathered f32 are scalar loads unless the hint says 4 in a row.
  EXPECT_GT(count(without->text, R"(ld\.global\.b32)"), 0);
  EXPECT_EQ(count(with->text, R"(ld\.global\.b32)"), 0);
  EXPECT_EQ(count(with->text, R"(ld\.global\.v4\.b32)"), 2 * count(without->text, R"(ld\.global\.v4\.b32)"));
}

TEST(Hints, TrueHintsRunAndFalseOnesAreErrorsAtTheirLine) {
  const int n = 512;
  std::vector<float> table(n), out(n, -1.0f);
  std::iota(table.begin(), table.end(), 0.0f);
  std::vector<int32_t> indices(n);
  for (int i = 0; i < n; ++i)
    indices[i] = (i / 4 * 37 % (n / 4)) * 4 + i % 4; // pages of 4 in a scrambled order
  auto kernel = gather();
  ASSERT_FALSE(kernel.launch(Grid{2}, LaunchOptions{.device = &cpu()}, out.data(), table.data(), indices.data(), n,
                             256, true));
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(out[i], float(indices[i])) << i;
  // Elements 6 and 7 break their run of 4 (still starting at a multiple of 4): max_contiguous is false there.
  indices[6] = 100, indices[7] = 101;
  runtime::Error error = kernel.launch(Grid{2}, LaunchOptions{.device = &cpu()}, out.data(), table.data(),
                                       indices.data(), n, 256, true);
  ASSERT_TRUE(error);
  EXPECT_THAT(error.message(), HasSubstr("HintsTest.cpp:" + std::to_string(hintLine)));
  EXPECT_THAT(error.message(), HasSubstr("hint: contiguity 4 along dimension 0 is false: 100 at element (6) does not follow"));
  // A run that starts off a multiple of 4.
  for (int i = 0; i < 4; ++i)
    indices[i] = 2 + i;
  indices[6] = indices[5] + 1, indices[7] = indices[5] + 2;
  error = kernel.launch(Grid{2}, LaunchOptions{.device = &cpu()}, out.data(), table.data(), indices.data(), n, 256,
                        true);
  ASSERT_TRUE(error);
  EXPECT_THAT(error.message(), HasSubstr("hint: divisibility 4 along dimension 0 is false: 2 at element (0)"));
}

TEST(Hints, ConstancyAndAssume) {
  auto kernel = brick::kernel("rows", [](Ptr<i32> out, Ptr<i32> in, Int n) {
    assume(n > 0);
    Tensor i = arange(0, 16);
    Tensor row = max_constancy(load(in + i), {4});
    store(out + i, row * n);
  });
  std::vector<int32_t> in = {1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4}, out(16);
  ASSERT_FALSE(kernel.launch(Grid{1}, LaunchOptions{.device = &cpu()}, out.data(), in.data(), 3));
  EXPECT_EQ(out[15], 12);
  runtime::Error assumed = kernel.launch(Grid{1}, LaunchOptions{.device = &cpu()}, out.data(), in.data(), 0);
  ASSERT_TRUE(assumed);
  EXPECT_THAT(assumed.message(), HasSubstr("assume: the condition is false"));
  in[5] = 7;
  runtime::Error constancy = kernel.launch(Grid{1}, LaunchOptions{.device = &cpu()}, out.data(), in.data(), 3);
  ASSERT_TRUE(constancy);
  EXPECT_THAT(constancy.message(), HasSubstr("hint: constancy 4 along dimension 0 is false: 7 at element (5) differs "
                                             "from 2"));
  // On the GPU, assume is llvm.assume.
  auto compiled = compileKernel(kernel, {dyn, dyn, dyn}, {.stage = "llvm-dialect"});
  ASSERT_TRUE(compiled) << compiled.error().message();
  EXPECT_THAT(compiled->text, HasSubstr("llvm.intr.assume"));
}

TEST(Hints, MisuseIsAnErrorAtTheUsersLine) {
  auto floats = kernel("floats", [](Ptr<f32> out) { store(out + arange(0, 16), multiple_of(zeros<f32>({16}), {16})); });
  EXPECT_THAT(floats.build().errors(), HasSubstr("multiple_of: hints describe integer values (offsets, indices)"));
  auto count = kernel("count", [](Ptr<i32> out) {
    store(out + arange(0, 16), max_contiguous(arange(0, 16), {4, 4}));
  });
  EXPECT_THAT(count.build().errors(), HasSubstr("max_contiguous: give one value per dimension"));
  auto longRun = kernel("long_run", [](Ptr<i32> out) {
    store(out + arange(0, 16), max_constancy(arange(0, 16), {32}));
  });
  EXPECT_THAT(longRun.build().errors(), HasSubstr("runs of 32 (dimension 0) are longer than the dimension"));
  auto notPowerOfTwo = kernel("npot", [](Ptr<i32> out) { store(out + arange(0, 16), multiple_of(arange(0, 16), {6})); });
  BuildResult built = notPowerOfTwo.build();
  EXPECT_THAT(built.errors(), HasSubstr("HintsTest.cpp"));
  EXPECT_THAT(built.errors(), HasSubstr("multiple_of: 6 (dimension 0) is not a positive power of two"));
}

} // namespace
