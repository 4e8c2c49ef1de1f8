//===- MovementTest.cpp - join, split, cat, permute, flip on the interpreter, in PTX, and their misuse ----===//

#include "DSLTestUtils.h"
#include "brick/JIT/Compile.h"
#include "brick/JIT/JIT.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <algorithm>
#include <limits>

using namespace brick;
using ::testing::HasSubstr;

namespace {

using brick::testing::cpu;

/// in: 8x16 f32 rows; out: join / split / cat / permute / flip results, laid out one after another.
auto movements() {
  return kernel("movements", [](Ptr<f32> out, Ptr<f32> in) {
    Tensor rows = arange(0, 8).column(), columns = arange(0, 16).row();
    Tensor x = load(in + rows * 16 + columns);                 // [8, 16]
    Tensor y = x * 2;
    Tensor joined = join(x, y);                                // [8, 16, 2]
    Tensor k = arange(0, 2).row().expand_dims(0);              // [1, 1, 2]
    store(out + (rows.expand_dims(2) * 16 + columns.expand_dims(2)) * 2 + k, joined);
    auto [first, second] = split(joined);                      // x, y again
    store(out + 256 + rows * 16 + columns, first);
    store(out + 384 + rows * 16 + columns, second);
    Tensor stacked = cat(x, y);                                // [16, 16]: x's rows, then y's
    store(out + 512 + arange(0, 16).column() * 16 + columns, stacked);
    store(out + 768 + arange(0, 16).column() * 8 + rows.row().reshape({1, 8}), permute(x, {1, 0}));  // [16, 8]
    store(out + 896 + rows * 16 + columns, flip(x, 1));
    store(out + 1024 + rows * 16 + columns, flip(x, 0));
  });
}

TEST(Movement, JoinSplitCatPermuteFlipMoveEveryElement) {
  std::vector<float> in(128), out(1152, -1.0f);
  for (int i = 0; i < 128; ++i)
    in[i] = float(i) + 0.5f;
  in[3] = -0.0f;
  in[4] = std::numeric_limits<float>::quiet_NaN();
  in[5] = -std::numeric_limits<float>::infinity();
  ASSERT_FALSE(movements().launch(Grid{1}, LaunchOptions{.device = &cpu()}, out.data(), in.data()));
  auto same = [](float a, float b) { return std::memcmp(&a, &b, sizeof(float)) == 0; }; // bit for bit
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 16; ++c) {
      float x = in[r * 16 + c], y = x * 2;
      int i = r * 16 + c;
      ASSERT_TRUE(same(out[2 * i], x) && same(out[2 * i + 1], y)) << "join " << r << "," << c;
      ASSERT_TRUE(same(out[256 + i], x)) << "split first " << r << "," << c << ": " << out[256 + i];
      ASSERT_TRUE(same(out[384 + i], y)) << "split second " << r << "," << c;
      ASSERT_TRUE(same(out[512 + i], x) && same(out[512 + 128 + i], y)) << "cat " << r << "," << c;
      ASSERT_TRUE(same(out[768 + c * 8 + r], x)) << "permute " << r << "," << c;
      ASSERT_TRUE(same(out[896 + r * 16 + (15 - c)], x)) << "flip axis 1 " << r << "," << c;
      ASSERT_TRUE(same(out[1024 + (7 - r) * 16 + c], x)) << "flip axis 0 " << r << "," << c;
    }
}

TEST(Movement, IntegersAndLongAxesFlip) {
  auto kernel = brick::kernel("flip_ints", [](Ptr<i32> out, Ptr<i32> in) {
    Tensor i = arange(0, 1024);
    auto [even, odd] = split(load(in + i).reshape({512, 2}));
    store(out + arange(0, 512), even);
    store(out + 512 + arange(0, 512), odd);
    store(out + 1024 + i, flip(load(in + i), 0));
  });
  std::vector<int32_t> in(1024), out(2048);
  for (int i = 0; i < 1024; ++i)
    in[i] = i * 7 - 3000 + (i == 5 ? INT32_MIN : 0);
  ASSERT_FALSE(kernel.launch(Grid{1}, LaunchOptions{.device = &cpu()}, out.data(), in.data()));
  for (int i = 0; i < 512; ++i) {
    ASSERT_EQ(out[i], in[2 * i]);
    ASSERT_EQ(out[512 + i], in[2 * i + 1]);
  }
  for (int i = 0; i < 1024; ++i)
    ASSERT_EQ(out[1024 + i], in[1023 - i]);
}

TEST(Movement, SortAndTopkMatchStdSort) {
  auto kernel = brick::kernel("sorting", [](Ptr<f32> out, Ptr<f32> in, Ptr<i32> outInts, Ptr<i32> ints) {
    Tensor rows = arange(0, 4).column(), columns = arange(0, 64).row();
    Tensor x = load(in + rows * 64 + columns); // [4, 64]: each row sorted on its own
    store(out + rows * 64 + columns, sort(x));
    store(out + 256 + rows * 64 + columns, sort(x, /*descending=*/true));
    store(out + 512 + rows * 8 + arange(0, 8).row(), topk(x, 8));
    Tensor all = arange(0, 256);
    store(outInts + all, sort(load(ints + all)));
  });
  std::vector<float> in(256), out(544);
  std::vector<int32_t> ints(256), outInts(256);
  uint32_t state = 12345;
  auto next = [&] { return state = state * 1664525u + 1013904223u; };
  for (int i = 0; i < 256; ++i) {
    in[i] = float(int32_t(next()) % 1000) / 7.0f; // duplicates too
    ints[i] = int32_t(next());
  }
  ASSERT_FALSE(kernel.launch(Grid{1}, LaunchOptions{.device = &cpu()}, out.data(), in.data(), outInts.data(),
                             ints.data()));
  for (int r = 0; r < 4; ++r) {
    std::vector<float> row(in.begin() + r * 64, in.begin() + r * 64 + 64);
    std::sort(row.begin(), row.end());
    for (int c = 0; c < 64; ++c) {
      ASSERT_EQ(out[r * 64 + c], row[c]) << "row " << r << ", " << c;
      ASSERT_EQ(out[256 + r * 64 + c], row[63 - c]) << "descending row " << r << ", " << c;
    }
    for (int c = 0; c < 8; ++c)
      ASSERT_EQ(out[512 + r * 8 + c], row[63 - c]) << "topk row " << r << ", " << c;
  }
  std::sort(ints.begin(), ints.end());
  EXPECT_EQ(outInts, ints);
}

TEST(Scan, CumsumCumprodAndRunningMaxAlongEitherAxis) {
  auto kernel = brick::kernel("scans", [](Ptr<i32> sums, Ptr<i32> ints, Ptr<f32> out, Ptr<f32> in) {
    Tensor all = arange(0, 1024);
    store(sums + all, cumsum(load(ints + all), 0));
    store(sums + 1024 + all, cumsum(load(ints + all), 0, /*reverse=*/true));
    Tensor rows = arange(0, 8).column(), columns = arange(0, 16).row();
    Tensor x = load(in + rows * 16 + columns);
    store(out + rows * 16 + columns, cumsum(x, 0));                                      // down the columns
    store(out + 128 + rows * 16 + columns,
          associative_scan(x, 1, [](Tensor a, Tensor b) { return maximum(a, b); }));      // running max per row
    store(out + 256 + rows * 16 + columns, cumprod(x, 1));
    store(sums + 2048 + arange(0, 64), cumsum(load(ints + arange(0, 64)).to<i8>(), 0));   // i8 sums in i32
  });
  std::vector<int32_t> ints(1024), sums(2112);
  std::vector<float> in(128), out(384);
  uint32_t state = 7;
  auto next = [&] { return state = state * 1664525u + 1013904223u; };
  for (int32_t &v : ints)
    v = int32_t(next() % 2001) - 1000;
  for (int i = 0; i < 128; ++i)
    in[i] = 0.5f + float(next() % 5) * 0.25f; // products stay exact enough to compare in order
  ASSERT_FALSE(kernel.launch(Grid{1}, LaunchOptions{.device = &cpu()}, sums.data(), ints.data(), out.data(), in.data()));
  int32_t running = 0;
  for (int i = 0; i < 1024; ++i) {
    running += ints[i];
    ASSERT_EQ(sums[i], running) << i;
  }
  running = 0;
  for (int i = 1023; i >= 0; --i) {
    running += ints[i];
    ASSERT_EQ(sums[1024 + i], running) << "reverse " << i;
  }
  running = 0;
  for (int i = 0; i < 64; ++i) {
    running += int8_t(ints[i]);
    ASSERT_EQ(sums[2048 + i], running) << "i8 " << i;
  }
  for (int c = 0; c < 16; ++c) {
    float column = 0;
    for (int r = 0; r < 8; ++r) {
      column += in[r * 16 + c];
      ASSERT_FLOAT_EQ(out[r * 16 + c], column) << r << "," << c;
    }
  }
  for (int r = 0; r < 8; ++r) {
    float best = in[r * 16], product = 1;
    for (int c = 0; c < 16; ++c) {
      best = std::max(best, in[r * 16 + c]);
      product *= in[r * 16 + c];
      ASSERT_EQ(out[128 + r * 16 + c], best) << r << "," << c;
      ASSERT_FLOAT_EQ(out[256 + r * 16 + c], product) << r << "," << c;
    }
  }
}

TEST(Scan, SeveralOperandsScanTogether) {
  // A running argmax: the best value so far and where it was (the first one on ties).
  auto kernel = brick::kernel("running_argmax", [](Ptr<f32> best, Ptr<i32> where_, Ptr<f32> in) {
    Tensor i = arange(0, 128);
    std::vector<Tensor> scanned = associative_scan({load(in + i), i}, 0, [](std::vector<Tensor> a, std::vector<Tensor> b) {
      Tensor takeB = b[0] > a[0];
      return std::vector<Tensor>{where(takeB, b[0], a[0]), where(takeB, b[1], a[1])};
    });
    store(best + i, scanned[0]);
    store(where_ + i, scanned[1]);
  });
  std::vector<float> in(128), best(128);
  std::vector<int32_t> at(128);
  for (int i = 0; i < 128; ++i)
    in[i] = float((i * 37) % 29);
  ASSERT_FALSE(kernel.launch(Grid{1}, LaunchOptions{.device = &cpu()}, best.data(), at.data(), in.data()));
  float top = in[0];
  int index = 0;
  for (int i = 0; i < 128; ++i) {
    if (in[i] > top)
      top = in[i], index = i;
    ASSERT_EQ(best[i], top) << i;
    ASSERT_EQ(at[i], index) << i;
  }
}

TEST(Scan, MisuseIsAnErrorAtTheUsersLine) {
  auto axis = kernel("axis", [](Ptr<f32> out) { store(out + arange(0, 8), cumsum(zeros<f32>({8}), 1)); });
  EXPECT_THAT(axis.build().errors(), HasSubstr("associative_scan: axis 1 is not a dimension"));
  auto shape = kernel("shape", [](Ptr<f32> out) {
    store(out + arange(0, 8), associative_scan(zeros<f32>({8}), 0, [](Tensor a, Tensor) { return sum(a, 0); }));
  });
  // The combiner runs on scalars: a block op in it is an error at the user's line.
  BuildResult built = shape.build();
  EXPECT_THAT(built.errors(), HasSubstr("MovementTest.cpp"));
  EXPECT_THAT(built.errors(), HasSubstr("sum: cannot reduce a scalar (f32)"));
  auto type = kernel("type", [](Ptr<f32> out) {
    store(out + arange(0, 8), associative_scan(zeros<f32>({8}), 0, [](Tensor a, Tensor) { return a.to(DType::I32); }));
  });
  EXPECT_THAT(type.build().errors(),
              HasSubstr("the combiner must return scalars of its operands' types: value 0 is i32, expected f32"));
}

TEST(Gather, OutOfRangeIndicesAndMisuseAreErrorsAtTheUsersLine) {
  auto outside = kernel("outside", [](Ptr<f32> out, Ptr<i32> idx) {
    Tensor i = arange(0, 8);
    store(out + i, gather(zeros<f32>({8}), load(idx + i), 0));
  });
  std::vector<float> out(8);
  std::vector<int32_t> idx = {0, 1, 2, 3, 4, 5, 6, 8};
  auto error = outside.launch(Grid{1}, LaunchOptions{.device = &cpu()}, out.data(), idx.data());
  ASSERT_TRUE(error);
  EXPECT_THAT(error.message(), HasSubstr("MovementTest.cpp"));
  EXPECT_THAT(error.message(), HasSubstr("gather: index 8 is outside [0, 8) along axis 0 (element 7 of the indices)"));
  auto shape = kernel("shape", [](Ptr<f32> out) {
    store(out + arange(0, 4), gather(zeros<f32>({8, 4}), zeros<i32>({2, 2}), 0).reshape({4}));
  });
  EXPECT_THAT(shape.build().errors(),
              HasSubstr("gather: indices tensor<2x2xi32> must have the shape of tensor<8x4xf32> but along axis 0"));
  auto floats = kernel("floats", [](Ptr<f32> out) {
    store(out + arange(0, 8), gather(zeros<f32>({8}), zeros<f32>({8}), 0));
  });
  EXPECT_THAT(floats.build().errors(), HasSubstr("gather: indices must be integers"));
}

TEST(Movement, CompilesForTheGpu) {
  for (const char *target : {"sm_80", "sm_90a"}) {
    auto compiled = compileKernel(movements(), {dyn, dyn}, {.target = target, .stage = "ptx"});
    EXPECT_TRUE(compiled) << target << ": " << compiled.error().message();
  }
}

TEST(Movement, MisuseIsAnErrorAtTheUsersLine) {
  auto shapes = kernel("shapes", [](Ptr<f32> out) { store(out + arange(0, 16), split(join(zeros<f32>({16}), zeros<f32>({8}))).first); });
  BuildResult built = shapes.build();
  EXPECT_THAT(built.errors(), HasSubstr("MovementTest.cpp"));
  EXPECT_THAT(built.errors(), HasSubstr("join: operands of different shapes or types"));
  auto last = kernel("last", [](Ptr<f32> out) { store(out + arange(0, 4), split(zeros<f32>({4, 4})).first); });
  EXPECT_THAT(last.build().errors(), HasSubstr("split: the last dimension must be 2"));
  auto pointers = kernel("pointers", [](Ptr<f32> out) {
    Tensor p = out + arange(0, 8);
    store(split(join(p, p)).first, 1.0f);
  });
  EXPECT_THAT(pointers.build().errors(), HasSubstr("split the offsets before adding them"));
  auto k = kernel("k", [](Ptr<f32> out) { store(out + arange(0, 8), topk(zeros<f32>({64}), 6)); });
  EXPECT_THAT(k.build().errors(), HasSubstr("topk: k must be a power of two from 1 to the last dimension (64), got 6"));
  auto axis = kernel("axis", [](Ptr<f32> out) { store(out + arange(0, 8), flip(zeros<f32>({8}), 1)); });
  EXPECT_THAT(axis.build().errors(), HasSubstr("flip: axis 1 is not a dimension"));
}

} // namespace
