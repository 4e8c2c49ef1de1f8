//===- ProfileTest.cpp - BRICK_PROFILE's counts of bytes and FLOPs, and its records ---===//
//
// Launches on the CPU interpreter with profiling on, and checks what the profiler counted against the bytes and
// FLOPs worked out by hand for each kernel and shape.
//
//===----------------------------------------------------------------------===//

#include "DSLTestUtils.h"

#include "brick/JIT/JIT.h"
#include "brick/JIT/Profile.h"
#include "brick/Support/HalfFloat.h"

#include "matmul.h"
#include "vector_add.h"

#include <gmock/gmock.h>

#include <vector>

using namespace brick;
using brick::testing::cpu;
using ::testing::HasSubstr;

namespace {

LaunchOptions onCpu() { return LaunchOptions{.device = &cpu()}; }

/// Profiling on and empty for one test, off after it.
class Profile : public ::testing::Test {
protected:
  void SetUp() override {
    profile::reset();
    profile::enable();
  }
  void TearDown() override {
    profile::enable(false);
    profile::reset();
  }
};

runtime::DeviceBuffer buffer(size_t bytes, float value = 1.0f) {
  auto made = runtime::DeviceBuffer::allocate(cpu(), bytes);
  EXPECT_TRUE(bool(made)) << made.error().message();
  std::vector<float> values(bytes / sizeof(float), value);
  EXPECT_FALSE(made->copyFromHost(values.data(), values.size() * sizeof(float)));
  return std::move(*made);
}

TEST_F(Profile, VectorAddCountsEveryLaneOfItsBlocksAndEachBufferOnce) {
  auto kernel = examples::vectorAdd();
  const int n = 3000, block = 1024; // 3 programs; the last one's 72 lanes past n are masked off
  runtime::DeviceBuffer x = buffer(n * 4), y = buffer(n * 4), out = buffer(n * 4);
  for (int i = 0; i < 2; ++i)
    ASSERT_FALSE(kernel.launch(Grid{3}, onCpu(), x, y, out, n, block));
  std::vector<profile::Record> records = profile::records();
  ASSERT_EQ(records.size(), 1u);
  const profile::Record &r = records[0];
  EXPECT_EQ(r.kernel, "vector_add");
  EXPECT_EQ(r.signature, "(*f32, *f32, *f32, i32, Const<i32>)");
  EXPECT_EQ(r.launches, 2u);
  EXPECT_EQ(r.grid, (std::array<unsigned, 3>{3, 1, 1}));
  EXPECT_EQ(r.readBytes, 2.0 * 3 * block * 4);
  EXPECT_EQ(r.writtenBytes, 3.0 * block * 4);
  EXPECT_EQ(r.dramBytes, 3.0 * n * 4); // each buffer at most its size
  EXPECT_EQ(r.otherFlops, 3.0 * block);
  EXPECT_EQ(r.flops(), 3.0 * block);
  EXPECT_TRUE(r.exact) << r.inexact;
  EXPECT_GT(r.medianMs, 0);
  EXPECT_EQ(r.peaks.device, "the CPU interpreter");
  EXPECT_EQ(r.bound(), "unknown");

  // Another n is another group: the count depends on it.
  ASSERT_FALSE(kernel.launch(Grid{2}, onCpu(), x, y, out, 2048, block));
  records = profile::records();
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[1].readBytes, 2.0 * 2 * block * 4);
  EXPECT_EQ(records[1].dramBytes, 3.0 * 2048 * 4);
}

// Descriptor blocks count only what lies inside the tensor, as TMA moves: M = 200 is one whole block of 128
// rows and 72 rows of the next; K = 104 is three whole steps of 32 and 8 columns of a fourth.
struct MatmulShape {
  static constexpr int M = 200, N = 192, K = 104, BM = 128, BN = 64, BK = 32;
  static constexpr double tiles = 2 * 3, steps = 4;
  static constexpr double readA = 3.0 * M * K * 2;  // every column of tiles reads all of A
  static constexpr double readB = 2.0 * K * N * 2;  // every row of tiles reads all of B
  static constexpr double written = double(M) * N * 2;
  static constexpr double dotFlops = tiles * steps * 2.0 * BM * BN * BK; // whole blocks multiply
  static constexpr double dram = double(M) * K * 2 + double(K) * N * 2 + double(M) * N * 2;
};

struct MatmulBuffers {
  std::vector<uint16_t> a = std::vector<uint16_t>(MatmulShape::M * MatmulShape::K, floatToHalf(1.0f));
  std::vector<uint16_t> b = std::vector<uint16_t>(MatmulShape::K * MatmulShape::N, floatToHalf(1.0f));
  std::vector<uint16_t> c = std::vector<uint16_t>(MatmulShape::M * MatmulShape::N);
  TensorDescriptorArg da = TensorDescriptorArg::of(a.data(), {MatmulShape::M, MatmulShape::K}, {MatmulShape::K, 1},
                                                   {MatmulShape::BM, MatmulShape::BK});
  TensorDescriptorArg db = TensorDescriptorArg::of(b.data(), {MatmulShape::K, MatmulShape::N}, {MatmulShape::N, 1},
                                                   {MatmulShape::BK, MatmulShape::BN});
  TensorDescriptorArg dc = TensorDescriptorArg::of(c.data(), {MatmulShape::M, MatmulShape::N}, {MatmulShape::N, 1},
                                                   {MatmulShape::BM, MatmulShape::BN});
};

void expectMatmulCounts(const profile::Record &r) {
  using S = MatmulShape;
  EXPECT_EQ(r.readBytes, S::readA + S::readB);
  EXPECT_EQ(r.writtenBytes, S::written);
  EXPECT_EQ(r.dotFlops[int(profile::DotKind::F16)], S::dotFlops);
  EXPECT_EQ(r.dramBytes, S::dram);
  EXPECT_TRUE(r.exact) << r.inexact;
}

TEST_F(Profile, DescriptorBlocksCountOnlyTheElementsInsideTheTensor) {
  using S = MatmulShape;
  MatmulBuffers buffers;
  auto kernel = examples::matmulDescriptors<f16>();
  ASSERT_FALSE(kernel.launch(Grid{6}, onCpu(), buffers.da, buffers.db, buffers.dc, S::M, S::N, S::K, S::BM, S::BN,
                             S::BK, 8));
  std::vector<profile::Record> records = profile::records();
  ASSERT_EQ(records.size(), 1u);
  expectMatmulCounts(records[0]);
}

// A persistent grid's programs run different numbers of tiles (4 programs on the interpreter, 6 tiles): each is
// counted with its own loop, and together they do the same work.
TEST_F(Profile, PersistentProgramsAreCountedOneByOne) {
  using S = MatmulShape;
  MatmulBuffers buffers;
  auto kernel = examples::matmulPersistent<f16>();
  ASSERT_FALSE(kernel.launch(Grid::persistent(6), onCpu(), buffers.da, buffers.db, buffers.dc, S::M, S::N, S::K, S::BM,
                             S::BN, S::BK, 8));
  std::vector<profile::Record> records = profile::records();
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].grid, (std::array<unsigned, 3>{4, 1, 1}));
  expectMatmulCounts(records[0]);
}

TEST_F(Profile, ALoopBoundReadFromMemoryMakesTheCountApproximateAndSaysWhere) {
  auto kernel = brick::kernel("rows_from_memory", [](Ptr<i32> counts, Ptr<f32> out) {
    Int rows = load(counts + program_id(0));
    for_range(0, rows, 1, [&](Int row) { store(out + row * 16 + arange(0, 16), full<f32>({16}, 1.0)); });
  });
  std::vector<int32_t> counts = {3};
  std::vector<float> out(64);
  ASSERT_FALSE(kernel.launch(Grid{1}, onCpu(), counts.data(), out.data()));
  std::vector<profile::Record> records = profile::records();
  ASSERT_EQ(records.size(), 1u);
  EXPECT_FALSE(records[0].exact);
  EXPECT_THAT(records[0].inexact, HasSubstr("loop's bounds depend on memory"));
  EXPECT_THAT(records[0].inexact, HasSubstr("ProfileTest.cpp"));
  EXPECT_EQ(records[0].readBytes, 4);          // the count itself
  EXPECT_EQ(records[0].writtenBytes, 16 * 4);  // the body, once
  EXPECT_THAT(profile::table(records), HasSubstr("approximate"));
}

TEST_F(Profile, TheTableAndJsonNameEveryRecord) {
  auto kernel = examples::vectorAdd();
  std::vector<float> x(1024, 1.0f), y(1024, 2.0f), out(1024);
  ASSERT_FALSE(kernel.launch(Grid{1}, onCpu(), x.data(), y.data(), out.data(), 1024, 1024));
  std::vector<profile::Record> records = profile::records();
  std::string table = profile::table(records);
  EXPECT_THAT(table, HasSubstr("brick profile on the CPU interpreter"));
  EXPECT_THAT(table, HasSubstr("vector_add"));
  EXPECT_THAT(table, HasSubstr("1 launch, median"));
  EXPECT_THAT(table, HasSubstr("8.19 KB read, 4.10 KB written, 12.3 KB of device memory"));
  std::string json = profile::json(records);
  EXPECT_THAT(json, HasSubstr("\"kernel\": \"vector_add\""));
  EXPECT_THAT(json, HasSubstr("\"read_bytes\": 8192"));
  EXPECT_THAT(json, HasSubstr("\"grid\": [1, 1, 1]"));
  EXPECT_THAT(json, HasSubstr("\"bound\": \"unknown\""));
}

TEST_F(Profile, NothingIsRecordedWhileOffOrPaused) {
  auto kernel = examples::vectorAdd();
  std::vector<float> x(1024, 1.0f), y(1024, 2.0f), out(1024);
  {
    profile::Pause pause;
    ASSERT_FALSE(kernel.launch(Grid{1}, onCpu(), x.data(), y.data(), out.data(), 1024, 1024));
  }
  profile::enable(false);
  ASSERT_FALSE(kernel.launch(Grid{1}, onCpu(), x.data(), y.data(), out.data(), 1024, 1024));
  EXPECT_TRUE(profile::records().empty());
}

TEST(ProfileRecord, SharesAndBoundComeFromThePeaks) {
  profile::Record r;
  r.medianMs = 1;
  r.dramBytes = 2e9;                                  // 2 TB/s
  r.dotFlops[int(profile::DotKind::F16)] = 0.25e12;   // 250 TFLOP/s
  r.peaks.dramBytesPerSecond = 4e12;
  r.peaks.dotFlopsPerSecond[int(profile::DotKind::F16)] = 1e15;
  EXPECT_DOUBLE_EQ(r.achievedBytesPerSecond(), 2e12);
  EXPECT_DOUBLE_EQ(r.memoryShare(), 0.5);
  EXPECT_DOUBLE_EQ(r.computeShare(), 0.25);
  EXPECT_EQ(r.bound(), "memory");
  r.dotFlops[int(profile::DotKind::F16)] = 0.75e12;
  EXPECT_EQ(r.bound(), "compute");
  r.dramBytes = 1e8;
  r.dotFlops[int(profile::DotKind::F16)] = 1e9;
  EXPECT_EQ(r.bound(), "latency");
}

} // namespace
