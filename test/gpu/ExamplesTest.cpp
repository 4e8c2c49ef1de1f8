//===- ExamplesTest.cpp - Every example's host program, on the GPU and on the CPU interpreter ---===//
//
// Each example's host program (examples/<name>_host.cpp) makes fresh random inputs (never all zeros), poisons
// its outputs with NaN, launches through the JIT and compares with a float64 reference: f32 within 1e-5 relative
// norm, f16/bf16 within 1e-2. The same tests run on two devices: Gpu/ (skipped, saying why, without a GPU) and
// Interpreter/ (everywhere, in CI too). Shapes include ragged ones (n = 1000, 3000 columns) and unaligned rows.
//
//===----------------------------------------------------------------------===//

#include "brick/JIT/Autotune.h"
#include "brick/Support/Float8.h"
#include "brick/Support/HalfFloat.h"
#include "brick/Runtime/Graph.h"
#include "host.h"
#include "matmul_fp8.h"
#include "matmul_split_k.h"
#include "Philox.h"
#include "vector_add.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>

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

#define EXPECT_THAT_SKIPPED(trial, reason)                                                                     \
  do {                                                                                                         \
    EXPECT_EQ((trial).milliseconds, -1) << (trial).config.str();                                              \
    EXPECT_NE((trial).skipped.find(reason), std::string::npos) << (trial).config.str() << ": " << (trial).skipped; \
  } while (false)

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

// Matmul: ragged shapes, strided (padded rows) and transposed operands, every input type. The interpreter gets
// the small ones (it multiplies exactly, element by element); the GPU gets them all.
bool onGpu(const runtime::Device &device) { return !device.isInterpreter(); }

TEST_P(Examples, MatmulF16) {
  for (auto [m, n, k] : {std::tuple{128, 128, 64}, {256, 384, 512}, {100, 70, 50}, {1, 300, 33}, {7, 200, 90},
                         {513, 129, 257}, {17, 33, 65}})
    EXPECT_PASSES(examples::runMatmul<f16>(device(), {m, n, k}));
  EXPECT_PASSES(examples::runMatmul<f16>(device(), {.m = 64, .n = 80, .k = 96, .transposeA = true}));
  EXPECT_PASSES(examples::runMatmul<f16>(device(), {.m = 64, .n = 80, .k = 96, .transposeB = true, .padding = 8}));
  EXPECT_PASSES(examples::runMatmul<f16>(device(), {.m = 33, .n = 65, .k = 40, .transposeA = true, .transposeB = true, .padding = 3}));
  if (!onGpu(device()))
    return;
  for (auto [m, n, k] : {std::tuple{1000, 1000, 1000}, {1, 4096, 4096}, {4000, 4000, 4000}})
    EXPECT_PASSES(examples::runMatmul<f16>(device(), {m, n, k}));
  EXPECT_PASSES(examples::runMatmul<f16>(device(), {.m = 1000, .n = 1000, .k = 1000, .transposeA = true, .transposeB = true}));
  EXPECT_PASSES(examples::runMatmul<f16>(device(), {.m = 1000, .n = 1000, .k = 1000, .padding = 24}));
}

TEST_P(Examples, MatmulBf16) {
  for (auto [m, n, k] : {std::tuple{17, 33, 65}, {256, 128, 192}})
    EXPECT_PASSES(examples::runMatmul<bf16>(device(), {m, n, k}));
  EXPECT_PASSES(examples::runMatmul<bf16>(device(), {.m = 64, .n = 80, .k = 96, .transposeA = true, .transposeB = true}));
  if (!onGpu(device()))
    return;
  for (auto [m, n, k] : {std::tuple{1000, 1000, 1000}, {1, 4096, 4096}, {4000, 4000, 4000}})
    EXPECT_PASSES(examples::runMatmul<bf16>(device(), {m, n, k}));
  EXPECT_PASSES(examples::runMatmul<bf16>(device(), {.m = 1000, .n = 1000, .k = 1000, .transposeB = true, .padding = 8}));
}

TEST_P(Examples, MatmulF32) {
  for (Precision precision : {Precision::TF32, Precision::TF32x3, Precision::IEEE}) {
    EXPECT_PASSES(examples::runMatmul<f32>(device(), {.m = 17, .n = 33, .k = 65, .precision = precision}));
    EXPECT_PASSES(examples::runMatmul<f32>(device(), {.m = 64, .n = 80, .k = 96, .transposeA = true, .precision = precision}));
    EXPECT_PASSES(examples::runMatmul<f32>(device(), {.m = 40, .n = 36, .k = 20, .padding = 8, .precision = precision}));
    // Both operands contiguous along K (where sm_90a could take tf32 on wgmma, which would truncate it).
    EXPECT_PASSES(examples::runMatmul<f32>(device(), {.m = 128, .n = 80, .k = 96, .transposeB = true, .precision = precision}));
    if (onGpu(device())) {
      for (auto [m, n, k] : {std::tuple{1000, 1000, 1000}, {1, 4096, 4096}})
        EXPECT_PASSES(examples::runMatmul<f32>(device(), {.m = m, .n = n, .k = k, .precision = precision}));
      EXPECT_PASSES(examples::runMatmul<f32>(device(), {.m = 1000, .n = 1000, .k = 1000, .transposeB = true, .precision = precision}));
    }
  }
}

TEST_P(Examples, MatmulI8) {
  EXPECT_PASSES(examples::runMatmul<i8>(device(), {17, 33, 65}));
  EXPECT_PASSES(examples::runMatmul<i8>(device(), {.m = 64, .n = 96, .k = 128, .transposeB = true}));
  EXPECT_PASSES(examples::runMatmul<i8>(device(), {.m = 64, .n = 96, .k = 128, .transposeA = true}));
  if (onGpu(device())) {
    for (auto [m, n, k] : {std::tuple{1000, 1000, 1000}, {1, 4096, 4096}})
      EXPECT_PASSES(examples::runMatmul<i8>(device(), {m, n, k}));
    EXPECT_PASSES(examples::runMatmul<i8>(device(), {.m = 1000, .n = 1000, .k = 1000, .transposeB = true}));
  }
}

// The code an A100 gets (mma.sync, ldmatrix, cp.async), run on whatever GPU is here.
TEST_P(Examples, MatmulSm80CodeOnThisGpu) {
  if (!onGpu(device()))
    GTEST_SKIP() << "the interpreter runs brick IR, not sm_80 code";
  for (auto [m, n, k] : {std::tuple{17, 33, 65}, {1000, 1000, 1000}})
    EXPECT_PASSES(examples::runMatmul<f16>(device(), {.m = m, .n = n, .k = k, .targetCapability = 80}));
  EXPECT_PASSES(examples::runMatmul<f32>(device(), {.m = 1000, .n = 1000, .k = 1000, .targetCapability = 80}));
}

// Every stage count and warp count the pipeline and the layouts have: the same answer.
TEST_P(Examples, MatmulConfigs) {
  for (unsigned stages : {1u, 2u, 3u, 4u})
    for (unsigned warps : {1u, 2u, 4u, 8u})
      EXPECT_PASSES(examples::runMatmul<f16>(
          device(), {.m = onGpu(device()) ? 300 : 40, .n = 200, .k = onGpu(device()) ? 520 : 72,
                     .config = examples::MatmulConfig{64, 64, 32, 4, warps, stages}}));
}

// Through tensor descriptors: ragged M, N and K (blocks past the edges read zeros, write nothing), rows padded to
// 16-byte strides, every input type, both codes on a GPU.
TEST_P(Examples, MatmulDescriptors) {
  EXPECT_PASSES(examples::runMatmul<f16>(device(), {.m = 100, .n = 82, .k = 50, .padding = 14, .descriptors = true}));
  EXPECT_PASSES(examples::runMatmul<bf16>(device(), {.m = 33, .n = 18, .k = 66, .padding = 6, .descriptors = true}));
  EXPECT_PASSES(examples::runMatmul<f32>(device(), {.m = 40, .n = 36, .k = 20, .padding = 0, .descriptors = true}));
  EXPECT_PASSES(examples::runMatmul<i8>(device(), {.m = 64, .n = 82, .k = 50, .padding = 14, .descriptors = true}));
  // B stored N x K (x * W^T): the dot takes each descriptor block transposed.
  EXPECT_PASSES(examples::runMatmul<f16>(device(), {.m = 100, .n = 82, .k = 50, .transposeB = true, .padding = 14,
                                                     .descriptors = true}));
  EXPECT_PASSES(examples::runMatmul<bf16>(device(), {.m = 33, .n = 18, .k = 66, .transposeB = true, .padding = 6,
                                                      .descriptors = true}));
  // Persistent: one wave (4 programs on the interpreter; 6 on a GPU, no more than the tiles) takes the 2 x 3
  // tiles in turn.
  EXPECT_PASSES(examples::runMatmul<f16>(device(), {.m = 100, .n = 82, .k = 50, .padding = 14, .persistent = true}));
  // ... in clusters of 2 (cluster_rank, cluster_size). 32x32 tiles: 4 x 3 in pairs side by side that share A's
  // blocks, the second of each row's last pair past the end. 32x64 tiles: 4 x 2 in pairs of the grouped order
  // that share B's blocks (groups of 2 and 4 rows of tiles) or straddle two columns (3).
  for (int blockN : {32, 64})
    for (int groupM : {2, 3, 4}) {
      examples::MatmulConfig clustered{32, blockN, 16, groupM, 4, 2};
      clustered.clusterSize = 2;
      EXPECT_PASSES(examples::runMatmul<f16>(device(), {.m = 100, .n = 82, .k = 50, .padding = 14,
                                                         .config = clustered, .persistent = true}));
    }
  if (!onGpu(device()))
    return;
  for (unsigned target : {0u, 80u}) {
    EXPECT_PASSES(examples::runMatmul<f16>(device(), {.m = 1000, .n = 1000, .k = 1000, .padding = 8, .targetCapability = target, .descriptors = true}));
    EXPECT_PASSES(examples::runMatmul<bf16>(device(), {.m = 4000, .n = 4000, .k = 4000, .targetCapability = target, .descriptors = true}));
    EXPECT_PASSES(examples::runMatmul<f32>(device(), {.m = 1000, .n = 1000, .k = 1000, .padding = 8, .targetCapability = target, .descriptors = true}));
    EXPECT_PASSES(examples::runMatmul<i8>(device(), {.m = 1000, .n = 1000, .k = 1000, .padding = 8, .targetCapability = target, .descriptors = true}));
    EXPECT_PASSES(examples::runMatmul<bf16>(device(), {.m = 1000, .n = 1000, .k = 1000, .transposeB = true, .padding = 8,
                                                        .targetCapability = target, .descriptors = true}));
    // Decode (16-row blocks on mma.sync) with B stored N x K: its blocks are copied ahead (TMA on sm_90a) and read
    // through a transposed view of their buffer; ragged N and K.
    for (int m : {1, 16})
      EXPECT_PASSES(examples::runMatmul<f16>(device(), {.m = m, .n = 1000, .k = 704, .transposeB = true, .padding = 8,
                                                         .targetCapability = target, .descriptors = true}));
    EXPECT_PASSES(examples::runMatmul<bf16>(device(), {.m = 7, .n = 4096, .k = 4096, .transposeB = true,
                                                        .targetCapability = target, .descriptors = true}));
    // The other input types through the view (tf32: ldmatrix of 32-bit words; i8), at 16 rows and at 1000 (tf32
    // stays on mma.sync); and a view nothing prefetches (1 stage: the buffer written from registers).
    for (int m : {16, 1000}) {
      EXPECT_PASSES(examples::runMatmul<f32>(device(), {.m = m, .n = 300, .k = 200, .transposeB = true,
                                                         .targetCapability = target, .descriptors = true}));
      EXPECT_PASSES(examples::runMatmul<i8>(device(), {.m = m, .n = 320, .k = 256, .transposeB = true,
                                                        .targetCapability = target, .descriptors = true}));
    }
    EXPECT_PASSES(examples::runMatmul<f16>(device(), {.m = 16, .n = 1000, .k = 704, .transposeB = true, .padding = 8,
                                                       .config = examples::MatmulConfig{16, 64, 128, 1, 4, 1},
                                                       .targetCapability = target, .descriptors = true}));
  }
}

// The tile shapes and warp counts wgmma takes (one or two warpgroups, along M or N; instruction N from 64 to 256),
// each with operands stored both ways.
TEST_P(Examples, MatmulWarpGroupConfigs) {
  if (!onGpu(device()))
    GTEST_SKIP() << "large tiles: the interpreter runs the same IR in MatmulConfigs";
  for (examples::MatmulConfig config : {examples::MatmulConfig{256, 128, 64, 8, 8, 4}, examples::MatmulConfig{128, 256, 64, 8, 8, 3},
                                        examples::MatmulConfig{64, 256, 64, 8, 4, 4}, examples::MatmulConfig{64, 128, 32, 8, 8, 2},
                                        examples::MatmulConfig{128, 64, 16, 8, 4, 5}})
  {
    for (bool transposed : {false, true})
      EXPECT_PASSES(examples::runMatmul<bf16>(device(), {.m = 700, .n = 500, .k = 300, .transposeA = transposed,
                                                          .transposeB = transposed, .config = config}));
    // Through descriptors (TMA on sm_90a): rows of 32 to 512 bytes, so every swizzle and 1 to 4 boxes a block;
    // and with a producer warpgroup.
    // B stored N x K, read by wgmma in place through a transposed view.
    for (bool transposedB : {false, true})
      EXPECT_PASSES(examples::runMatmul<f16>(device(), {.m = 700, .n = 500, .k = 300, .transposeB = transposedB,
                                                         .padding = 4, .config = config, .descriptors = true}));
    config.warpSpecialize = true;
    for (bool transposedB : {false, true})
      EXPECT_PASSES(examples::runMatmul<bf16>(device(), {.m = 700, .n = 500, .k = 300, .transposeB = transposedB,
                                                          .padding = 4, .config = config, .descriptors = true}));
  }
  // Persistent (one wave of programs takes tiles in turn), warp-specialized or not: ragged shapes, more tiles than
  // programs and fewer; 4 stages beside the epilogue's box-sized store buffer, and 3. Warp-specialized, a tile's
  // TMA store boxes go in the next tile's K steps, several in the last step where there are fewer steps than
  // boxes (2 boxes here, 4 for the 128x256 tiles below; K loops of 1 and 3 steps).
  examples::MatmulConfig persistent{256, 128, 64, 8, 8, 3, true};
  for (bool specialize : {true, false})
    for (unsigned stages : {3u, 4u}) {
      persistent.warpSpecialize = specialize;
      persistent.stages = stages;
      for (auto [m, n, k] : {std::tuple{4000, 4000, 4000}, {300, 200, 8}, {2048, 4096, 1000}, {2600, 2000, 136}})
        EXPECT_PASSES(examples::runMatmul<bf16>(device(), {.m = m, .n = n, .k = k, .config = persistent, .persistent = true}));
    }
  // In clusters of 2 whose programs share a block (TMA multicast when warp-specialized), K loops of 1 to 63 steps.
  // 256x128 tiles: pairs side by side in a row share A's blocks (two boxes of 128 rows, one copied by each
  // program); with an odd count of tile columns (384 and 128 columns) the last pair's second tile is past the
  // end and still runs its K steps in step with the first. 128x256 tiles: consecutive tiles share B's blocks; an
  // odd tile count (600 x 128), groups of 3 rows of tiles (pairs that straddle two columns load their own blocks).
  for (bool specialize : {true, false})
    for (auto [blockM, blockN] : {std::pair{256, 128}, {128, 256}}) {
      examples::MatmulConfig clustered{blockM, blockN, 64, 8, 8, 4, specialize};
      clustered.clusterSize = 2;
      for (auto [m, n, k, groupM] : {std::tuple{4000, 4000, 4000, 8}, {600, 128, 1000, 8}, {600, 384, 1000, 8},
                                     {2048, 1024, 1000, 3}, {300, 712, 8, 8}, {2600, 2000, 136, 8}}) {
        clustered.groupM = groupM;
        EXPECT_PASSES(
            examples::runMatmul<f16>(device(), {.m = m, .n = n, .k = k, .config = clustered, .persistent = true}));
      }
    }
  // Warp-specialized at the H100 configuration: ragged shapes, K loops of 1 to 64 iterations.
  examples::MatmulConfig specialized{256, 128, 64, 8, 8, 4, true};
  for (auto [m, n, k] : {std::tuple{4000, 4000, 4000}, {1000, 1000, 64}, {300, 200, 8}, {2048, 1024, 4096}})
    EXPECT_PASSES(examples::runMatmul<f16>(device(), {.m = m, .n = n, .k = k, .config = specialized, .descriptors = true}));
  // Four consumer warpgroups (16 warps; 640 threads with the producers', 96 registers each at the start): setmaxnreg
  // raises them to what the producers give up (104), where a raise past it would wait forever.
  examples::MatmulConfig wide{256, 128, 64, 8, 16, 3, true};
  for (auto [m, n, k] : {std::tuple{1000, 1000, 1000}, {300, 200, 8}}) {
    EXPECT_PASSES(examples::runMatmul<f16>(device(), {.m = m, .n = n, .k = k, .config = wide, .persistent = true}));
    EXPECT_PASSES(examples::runMatmul<bf16>(device(), {.m = m, .n = n, .k = k, .config = wide, .descriptors = true}));
  }
  // B's rows (128 bytes) swizzle wider than its wgmma tiles (32 columns) take: its block is copied by TMA inside the
  // loop every iteration, so the dot must not stay in flight over it. And the decode tiles (mma.sync, TMA ring).
  for (examples::MatmulConfig config : {examples::MatmulConfig{64, 64, 64, 8, 8, 3}, examples::MatmulConfig{16, 64, 256, 1, 4, 4}})
    EXPECT_PASSES(examples::runMatmul<f16>(device(), {.m = 300, .n = 500, .k = 700, .padding = 4, .config = config,
                                                       .descriptors = true}));
}

// Fused attention: P = exp(S - max) feeds the second dot from registers on sm_90a (wgmma with A in registers);
// mma.sync with sm_80 code. Every option against float64 at ragged sizes (the interpreter takes the small ones;
// the GPU the issue's too: a packed batch of lengths 1, 17, 1000 and 4000, 32/8 and 8/1 grouped-query heads).
TEST_P(Examples, Attention) {
  using examples::AttentionConfig;
  using examples::AttentionShape;
  using examples::runAttention;
  const AttentionConfig small{.blockM = 64, .blockN = 32, .warps = 4, .stages = 2};
  // Ragged lengths in one packed batch; grouped-query heads; causal or not; the log-sum-exp.
  for (bool causal : {false, true}) {
    AttentionShape shape{.cuSeqlensQ = {0, 1, 18, 83}, .cuSeqlensK = {0, 1, 18, 83}, .qHeads = 4, .kvHeads = 2,
                         .headDim = 32, .causal = causal, .logSumExp = true};
    EXPECT_PASSES(runAttention<f16>(device(), shape, small));
  }
  // Fewer queries than keys (causal aligned bottom-right), and more (the first rows see no key: zeros, -inf).
  EXPECT_PASSES(runAttention<bf16>(device(), {.batch = 2, .seqLenQ = 37, .seqLenK = 100, .qHeads = 2, .kvHeads = 1,
                                              .headDim = 32, .causal = true, .logSumExp = true}, small));
  EXPECT_PASSES(runAttention<f16>(device(), {.batch = 1, .seqLenQ = 90, .seqLenK = 20, .qHeads = 1, .kvHeads = 1,
                                             .headDim = 32, .causal = true, .logSumExp = true}, small));
  // A sliding window on both sides, and on the left of a causal mask; a softcap.
  EXPECT_PASSES(runAttention<f16>(device(), {.batch = 1, .seqLenQ = 100, .seqLenK = 130, .headDim = 32,
                                             .windowLeft = 40, .windowRight = 10, .softcap = 5, .logSumExp = true}, small));
  EXPECT_PASSES(runAttention<bf16>(device(), {.batch = 2, .seqLenQ = 100, .seqLenK = 100, .qHeads = 2, .kvHeads = 2,
                                              .headDim = 32, .causal = true, .windowLeft = 33}, small));
  // A window bounded on one side only, each side; one wider than the keys.
  EXPECT_PASSES(runAttention<f16>(device(), {.batch = 1, .seqLenQ = 100, .seqLenK = 100, .headDim = 32,
                                             .windowLeft = 40, .windowRight = -1, .logSumExp = true}, small));
  EXPECT_PASSES(runAttention<f16>(device(), {.batch = 1, .seqLenQ = 70, .seqLenK = 100, .headDim = 32,
                                             .windowLeft = -1, .windowRight = 5, .logSumExp = true}, small));
  EXPECT_PASSES(runAttention<f16>(device(), {.batch = 1, .seqLenQ = 70, .seqLenK = 100, .headDim = 32,
                                             .windowLeft = 2000000000, .windowRight = 2000000000}, small));
  // Head dimensions that are not powers of two, read in pieces: 96 (three of 32), 80 (five of 16), and 192 for
  // Q.K with 128 for V (DeepSeek-V3's prefill).
  EXPECT_PASSES(runAttention<f16>(device(), {.batch = 1, .seqLenQ = 70, .seqLenK = 90, .qHeads = 2, .kvHeads = 1,
                                             .headDim = 96, .causal = true, .logSumExp = true}, small));
  EXPECT_PASSES(runAttention<bf16>(device(), {.cuSeqlensQ = {0, 17, 50}, .cuSeqlensK = {0, 17, 50}, .headDim = 80,
                                              .windowLeft = 20}, small));
  EXPECT_PASSES(runAttention<bf16>(device(), {.batch = 1, .seqLenQ = 60, .seqLenK = 60, .qHeads = 2, .kvHeads = 2,
                                              .headDim = 192, .valueDim = 128, .causal = true, .logSumExp = true},
                                   small));
  // The default tiles of two head dimensions, and sm_80 code.
  EXPECT_PASSES(runAttention<f16>(device(), {.batch = 2, .seqLenQ = 150, .seqLenK = 150, .headDim = 64}));
  EXPECT_PASSES(runAttention<bf16>(device(), {.batch = 1, .seqLenQ = 130, .seqLenK = 130, .qHeads = 2, .kvHeads = 1,
                                              .headDim = 128, .causal = true}));
  if (!onGpu(device()))
    return;
  EXPECT_PASSES(runAttention<f16>(device(), {.batch = 2, .seqLenQ = 256, .seqLenK = 300, .headDim = 64, .causal = true},
                                  std::nullopt, 80));
  // A producer warpgroup copying K and V for the consumers' three loops, every head dimension.
  for (int d : {64, 128, 256})
    for (bool causal : {false, true})
      EXPECT_PASSES(runAttention<bf16>(device(), {.cuSeqlensQ = {0, 1, 18, 1018}, .cuSeqlensK = {0, 1, 18, 1018},
                                                  .qHeads = 4, .kvHeads = 1, .headDim = d, .causal = causal,
                                                  .windowLeft = causal ? 300 : -1, .logSumExp = true},
                                       AttentionConfig{128, 64, 8, 2, true}));
  for (bool causal : {false, true}) {
    AttentionShape packed{.cuSeqlensQ = {0, 1, 18, 1018, 5018}, .cuSeqlensK = {0, 1, 18, 1018, 5018}, .qHeads = 32,
                          .kvHeads = 8, .headDim = 128, .causal = causal, .logSumExp = true};
    EXPECT_PASSES(runAttention<f16>(device(), packed));
    packed.qHeads = 8, packed.kvHeads = 1, packed.headDim = 64;
    EXPECT_PASSES(runAttention<bf16>(device(), packed));
  }
  for (int d : {16, 32, 64, 96, 128, 192, 256})
    for (bool causal : {false, true})
      EXPECT_PASSES(runAttention<f16>(device(), {.batch = 2, .seqLenQ = 300, .seqLenK = 500, .qHeads = 4, .kvHeads = 2,
                                                 .headDim = d, .causal = causal, .logSumExp = true}));
  // DeepSeek-V3's prefill shape (Q.K 192, V 128) on every candidate config, the warp-specialized ones included.
  for (AttentionConfig config : examples::attentionCandidates(192))
    EXPECT_PASSES(runAttention<bf16>(device(), {.cuSeqlensQ = {0, 1, 18, 1018}, .cuSeqlensK = {0, 1, 18, 1018},
                                                .qHeads = 4, .kvHeads = 1, .headDim = 192, .valueDim = 128,
                                                .causal = true, .logSumExp = true}, config));
  for (AttentionConfig config : {AttentionConfig{128, 128, 8, 2}, AttentionConfig{128, 64, 8, 3},
                                 AttentionConfig{64, 64, 4, 3}, AttentionConfig{128, 32, 4, 3},
                                 AttentionConfig{128, 64, 8, 2, true}, AttentionConfig{128, 128, 8, 2, true},
                                 AttentionConfig{64, 64, 4, 3, true}})
    EXPECT_PASSES(runAttention<bf16>(device(), {.batch = 3, .seqLenQ = 333, .seqLenK = 444, .qHeads = 2, .kvHeads = 1,
                                                .headDim = 64, .causal = true, .windowLeft = 100, .softcap = 30,
                                                .logSumExp = true}, config));
}

// Bad attention input is an error that says what is wrong, before anything runs.
TEST_P(Examples, AttentionRejectsBadInput) {
  using examples::AttentionShape;
  auto failure = [&](const AttentionShape &shape) { return examples::runAttention<f16>(device(), shape).failure; };
  EXPECT_NE(failure({.batch = 1, .seqLenQ = 64, .seqLenK = 64, .qHeads = 6, .kvHeads = 4}).find("multiple of the K/V heads"),
            std::string::npos);
  EXPECT_NE(failure({.batch = 1, .seqLenQ = 64, .seqLenK = 64, .headDim = 100}).find("head dimension of Q and K must be"),
            std::string::npos);
  EXPECT_NE(failure({.batch = 1, .seqLenQ = 64, .seqLenK = 64, .headDim = 64, .valueDim = 512}).find("head dimension of V"),
            std::string::npos);
  EXPECT_NE(failure({.cuSeqlensQ = {0, 50, 40}, .cuSeqlensK = {0, 50, 90}}).find("cuSeqlensQ decreases from 50 to 40"),
            std::string::npos);
  EXPECT_NE(failure({.cuSeqlensQ = {0, 50}, .cuSeqlensK = {0, 50, 90}}).find("batch + 1 offsets"), std::string::npos);
  // Offsets that pass the end of the buffers.
  auto tiny = runtime::DeviceBuffer::allocate(device(), 64);
  ASSERT_TRUE(tiny) << tiny.error().message();
  AttentionShape shape{.cuSeqlensQ = {0, 100}, .cuSeqlensK = {0, 100}};
  examples::AttentionBuffers buffers{&*tiny, &*tiny, &*tiny, &*tiny, nullptr, &*tiny, &*tiny};
  runtime::Error error = examples::launchAttention<f16>(shape, buffers, examples::attentionConfig(64),
                                                        LaunchOptions{.device = &device()});
  EXPECT_NE(error.message().find("Q needs 12800 bytes"), std::string::npos) << error.message();
}

TEST_P(Examples, MoeLayer) {
  using examples::runMoe;
  // Decode (one token); a ragged batch (H and I not multiples of the tiles) with experts no token picks; sigmoid +
  // bias routing over 64 experts, top-8, not renormalized.
  EXPECT_PASSES(runMoe<bf16>(device(), {.tokens = 1, .experts = 8, .topk = 2, .hidden = 128, .intermediate = 96}));
  EXPECT_PASSES(runMoe<bf16>(device(), {.tokens = 37, .experts = 8, .topk = 2, .hidden = 80, .intermediate = 96,
                                        .silentExperts = 2}));
  EXPECT_PASSES(runMoe<f16>(device(), {.tokens = 100, .experts = 64, .topk = 8, .hidden = 64, .intermediate = 32,
                                       .sigmoid = true, .bias = true, .renormalize = false}));
  // Expert and top-k counts that are not powers of two (DeepSeek-V2 routes to 6 of 160): blocks of 16 experts
  // and 32 pairs with the extra ones masked off.
  EXPECT_PASSES(runMoe<bf16>(device(), {.tokens = 23, .experts = 12, .topk = 3, .hidden = 64, .intermediate = 48}));
  EXPECT_PASSES(runMoe<bf16>(device(), {.tokens = 40, .experts = 160, .topk = 6, .hidden = 32, .intermediate = 32}));
  // Weights made on the device by random_fill, checked through 4 sampled tokens and their experts read back.
  EXPECT_PASSES(runMoe<bf16>(device(), {.tokens = 20, .experts = 8, .topk = 2, .hidden = 64, .intermediate = 64},
                             examples::MoeWeights::Device));
  // Experts' runs of ~10 blocks cut into groups of at most 3 (3, 3, 2, 2: the tile order within runs), and blocks
  // past the padded total.
  examples::MoeConfig grouped{.blockM = 16, .gateUpN = 32, .gateUpK = 32, .downN = 32, .downK = 32, .groupM = 3,
                              .stages = 2};
  EXPECT_PASSES(runMoe<bf16>(device(), {.tokens = 300, .experts = 2, .topk = 1, .hidden = 64, .intermediate = 48},
                             examples::MoeWeights::Host, grouped));
  // GEMM 1's weights through a tensor descriptor (TMA on sm_90a): I not a multiple of BLOCK_N (the last tile's
  // blocks reach into the next rows), H not of BLOCK_K.
  grouped.weightDescriptors = true;
  EXPECT_PASSES(runMoe<bf16>(device(), {.tokens = 300, .experts = 2, .topk = 1, .hidden = 80, .intermediate = 48},
                             examples::MoeWeights::Host, grouped));
  // ... and the token rows gathered into sorted order first, read through a descriptor too.
  grouped.gatherRows = true;
  EXPECT_PASSES(runMoe<bf16>(device(), {.tokens = 300, .experts = 2, .topk = 1, .hidden = 80, .intermediate = 48},
                             examples::MoeWeights::Host, grouped));
  // ... but with rows of I that are not whole 16-byte units (44 bf16: 88 bytes) the activations cannot be stored
  // by descriptor in sorted order, so GEMM 1 keeps reading the token rows by pointers and storing by pair.
  {
    examples::MoeShape ragged{.tokens = 300, .experts = 2, .topk = 1, .hidden = 80, .intermediate = 44};
    auto layer = examples::MoeLayer<bf16>::create(device(), ragged, grouped);
    ASSERT_TRUE(layer.ok()) << layer.error().message();
    EXPECT_FALSE(layer->gatherRows());
    EXPECT_TRUE(layer->weightDescriptors());
    EXPECT_PASSES(runMoe<bf16>(device(), ragged, examples::MoeWeights::Host, grouped));
  }
  // ... as a persistent kernel: 5 programs take the ~40 live tiles in turn (the blocks past the padded total
  // none).
  grouped.persistent = true;
  grouped.persistentPrograms = 5;
  EXPECT_PASSES(runMoe<bf16>(device(), {.tokens = 300, .experts = 2, .topk = 1, .hidden = 80, .intermediate = 48},
                             examples::MoeWeights::Host, grouped));
  if (GetParam() == Where::Interpreter)
    return;
  // The middle and the prefill configs (64- and 128-row blocks, wgmma on an H100), 2 of 8 and 8 of 256 experts.
  EXPECT_PASSES(runMoe<bf16>(device(), {.tokens = 600, .experts = 8, .topk = 2, .hidden = 512, .intermediate = 384}));
  EXPECT_PASSES(runMoe<bf16>(device(), {.tokens = 4099, .experts = 8, .topk = 2, .hidden = 256, .intermediate = 320,
                                        .silentExperts = 1}));
  EXPECT_PASSES(runMoe<bf16>(device(), {.tokens = 333, .experts = 256, .topk = 8, .hidden = 256, .intermediate = 128,
                                        .sigmoid = true, .bias = true}));
  EXPECT_PASSES(runMoe<bf16>(device(), {.tokens = 300, .experts = 160, .topk = 6, .hidden = 128, .intermediate = 64}));
  // The prefill config with GEMM 1's weights by TMA: wgmma reads them transposed in place.
  for (examples::MoeShape shape : {examples::MoeShape{.tokens = 4099, .experts = 8, .topk = 2, .hidden = 256,
                                                      .intermediate = 320, .silentExperts = 1},
                                   examples::MoeShape{.tokens = 600, .experts = 8, .topk = 2, .hidden = 520,
                                                      .intermediate = 384}}) {
    examples::MoeConfig config = examples::moeConfig(shape);
    config.weightDescriptors = true;
    EXPECT_PASSES(runMoe<bf16>(device(), shape, examples::MoeWeights::Host, config));
    config.gatherRows = true;
    EXPECT_PASSES(runMoe<bf16>(device(), shape, examples::MoeWeights::Host, config));
    // Persistent and warp-specialized (4 stages beside the epilogue's TMA box, and 3); one wave, and 7 programs
    // (many tiles each).
    config.persistent = true;
    EXPECT_PASSES(runMoe<bf16>(device(), shape, examples::MoeWeights::Host, config));
    config.stages = 3;
    EXPECT_PASSES(runMoe<bf16>(device(), shape, examples::MoeWeights::Host, config));
    config.persistentPrograms = 7;
    EXPECT_PASSES(runMoe<bf16>(device(), shape, examples::MoeWeights::Host, config));
  }
}

// The layer in FP8 (MoeConfig::fp8: e4m3 weights with 128 x 128 block scales, activations quantized per 1 x 128
// group) against float64 over the same codes and scales, the activations quantized as the device does: blocks of
// 64 rows over one warpgroup and of 128 over two, GEMM 2's tiles 128 and 64 wide (two tiles a scale block), two
// 128-groups of H and I, experts no token picks; weights made on the device.
TEST_P(Examples, MoeLayerFp8) {
  using examples::runMoe;
  examples::MoeConfig fp8{.blockM = 64, .downN = 128, .groupM = 8, .gateUpWarps = 4, .downWarps = 4, .stages = 3,
                          .fp8 = true};
  examples::MoeShape shape{.tokens = 37, .experts = 8, .topk = 2, .hidden = 256, .intermediate = 256,
                           .silentExperts = 2};
  EXPECT_PASSES(runMoe<bf16>(device(), shape, examples::MoeWeights::Host, fp8));
  fp8.blockM = 128, fp8.downN = 64, fp8.gateUpWarps = 8, fp8.downWarps = 8;
  EXPECT_PASSES(runMoe<bf16>(device(), shape, examples::MoeWeights::Host, fp8));
  EXPECT_PASSES(runMoe<bf16>(device(), {.tokens = 20, .experts = 8, .topk = 2, .hidden = 128, .intermediate = 128},
                             examples::MoeWeights::Device, fp8));
  // Decode's blocks of 16 rows (mma.sync on the 8-bit floats where wgmma's 64 rows would be mostly padding).
  examples::MoeConfig decode = fp8;
  decode.blockM = 16, decode.downN = 64, decode.groupM = 1, decode.gateUpWarps = 4, decode.downWarps = 4;
  decode.stages = 4;
  EXPECT_PASSES(runMoe<bf16>(device(), {.tokens = 5, .experts = 8, .topk = 2, .hidden = 256, .intermediate = 256},
                             examples::MoeWeights::Host, decode));
  // What the FP8 layer cannot take is an error at create, not a wrong answer.
  auto ragged = examples::MoeLayer<bf16>::create(device(), {.tokens = 4, .experts = 4, .topk = 1, .hidden = 96,
                                                            .intermediate = 128}, fp8);
  ASSERT_FALSE(ragged.ok());
  EXPECT_NE(ragged.error().message().find("multiples of 128"), std::string::npos) << ragged.error().message();
}

TEST_P(Examples, MoePaddedRowsAreEachExpertsRowsRoundedUpToBlocks) {
  // One token to 2 of 8 experts: two blocks of 16 rows, 30 of them padding.
  examples::MoeConfig decode{.blockM = 16, .gateUpN = 32, .gateUpK = 32, .downN = 32, .downK = 32, .groupM = 1,
                             .stages = 2};
  auto one = examples::MoeLayer<bf16>::create(device(), {.tokens = 1, .experts = 8, .topk = 2, .hidden = 32,
                                                          .intermediate = 32}, decode);
  ASSERT_TRUE(one.ok()) << one.error().message();
  ASSERT_FALSE(one->run());
  std::string failure;
  EXPECT_EQ(one->paddedRows(failure), 32);
  EXPECT_EQ(failure, "");
  // 300 tokens to 1 of 2 experts, each expert's rows rounded up to 16: 320 where both counts leave a remainder
  // (their remainders then sum to 12), else 304 (remainders 0 and 12, or summing to 28).
  auto two = examples::MoeLayer<bf16>::create(device(), {.tokens = 300, .experts = 2, .topk = 1, .hidden = 32,
                                                          .intermediate = 32}, decode);
  ASSERT_TRUE(two.ok()) << two.error().message();
  ASSERT_FALSE(two->run());
  int64_t padded = two->paddedRows(failure);
  EXPECT_EQ(failure, "");
  EXPECT_TRUE(padded == 304 || padded == 320) << padded;
  two->check(failure); // the padded total against the counts of the routing's own choice
  EXPECT_EQ(failure, "");
}

TEST_P(Examples, AGraphReplaysWhatItRecorded) {
  auto increment = brick::kernel("increment", [](Ptr<i32> data, Int n, Const<int> BLOCK) {
    Tensor i = program_id(0) * BLOCK + arange(0, BLOCK);
    store(data + i, load(data + i, i < n) + 1, i < n);
  });
  auto twice = brick::kernel("twice", [](Ptr<i32> data, Int n, Const<int> BLOCK) {
    Tensor i = program_id(0) * BLOCK + arange(0, BLOCK);
    store(data + i, load(data + i, i < n) * 2, i < n);
  });
  const int n = 1000;
  auto stream = runtime::Stream::create(device());
  ASSERT_TRUE(stream.ok()) << stream.error().message();
  auto data = runtime::DeviceBuffer::allocate(device(), n * 4);
  ASSERT_TRUE(data.ok());
  std::vector<int32_t> host(n, 1);
  ASSERT_FALSE(data->copyFromHost(host.data(), n * 4));
  LaunchOptions options{.stream = &*stream, .device = &device()};
  ASSERT_FALSE(increment.launch(Grid{4}, options, *data, n, 256)); // compiled and loaded before the capture: 2
  // `twice` launches first inside the capture: the JIT compiles and loads it while the stream records.
  auto graph = runtime::Graph::capture(*stream, [&]() -> runtime::Error {
    if (runtime::Error e = increment.launch(Grid{4}, options, *data, n, 256))
      return e;
    return twice.launch(Grid{4}, options, *data, n, 256);
  });
  ASSERT_TRUE(graph.ok()) << graph.error().message();
  ASSERT_FALSE(stream->synchronize());
  ASSERT_FALSE(data->copyToHost(host.data(), n * 4));
  EXPECT_EQ(host, std::vector<int32_t>(n, 2)) << "capturing ran nothing";
  for (int expected : {6, 14}) { // (2 + 1) * 2, (6 + 1) * 2
    ASSERT_FALSE(graph->replay(*stream));
    ASSERT_FALSE(stream->synchronize());
    ASSERT_FALSE(data->copyToHost(host.data(), n * 4));
    EXPECT_EQ(host, std::vector<int32_t>(n, expected));
  }
  // A failed launch inside the callable is the capture's error on a GPU (and the stream is usable afterwards); the
  // interpreter's graph is the callable, whose error comes at replay.
  auto failed = runtime::Graph::capture(*stream, [&] { return increment.launch(Grid{4}, options, *data, n, 300); });
  if (device().isInterpreter()) {
    ASSERT_TRUE(failed.ok());
    EXPECT_TRUE(bool(failed->replay(*stream)));
  } else {
    ASSERT_FALSE(failed.ok());
    EXPECT_NE(failed.error().message().find("while capturing a graph"), std::string::npos) << failed.error().message();
  }
  ASSERT_FALSE(increment.launch(Grid{4}, options, *data, n, 256));
  ASSERT_FALSE(stream->synchronize());
  ASSERT_FALSE(data->copyToHost(host.data(), n * 4));
  EXPECT_EQ(host, std::vector<int32_t>(n, 15));
}

TEST_P(Examples, MoeLayerReplaysAsAGraph) {
  examples::MoeShape shape{.tokens = 5, .experts = 8, .topk = 2, .hidden = 64, .intermediate = 64};
  auto layer = examples::MoeLayer<bf16>::create(device(), shape, examples::moeConfig(shape));
  ASSERT_TRUE(layer.ok()) << layer.error().message();
  auto stream = runtime::Stream::create(device());
  ASSERT_TRUE(stream.ok());
  ASSERT_FALSE(layer->run(&*stream)); // tunes the GEMMs (the capture cannot: tuning waits for the GPU)
  // moeConfig's layer launches its GEMMs through the autotuner: a choice per GEMM for this shape's key.
  EXPECT_NE(layer->tunedChoice().find("gate_up ["), std::string::npos) << layer->tunedChoice();
  EXPECT_NE(layer->tunedChoice().find("down ["), std::string::npos) << layer->tunedChoice();
  EXPECT_EQ(layer->tunedChoice().find("not tuned"), std::string::npos) << layer->tunedChoice();
  auto graph = runtime::Graph::capture(*stream, [&] { return layer->run(&*stream); });
  ASSERT_TRUE(graph.ok()) << graph.error().message();
  ASSERT_FALSE(graph->replay(*stream));
  ASSERT_FALSE(stream->synchronize());
  std::string failure;
  double error = layer->check(failure);
  EXPECT_TRUE(failure.empty()) << failure;
  EXPECT_LE(error, 1e-2);
}

// run() is its four steps in turn: launched one by one on a fresh layer (what the bench times alone), they leave
// the same routing, sorted rows and output, checked against float64.
TEST_P(Examples, MoeLayerRunsStepByStep) {
  examples::MoeShape shape{.tokens = 7, .experts = 8, .topk = 2, .hidden = 64, .intermediate = 64};
  auto layer = examples::MoeLayer<bf16>::create(device(), shape, examples::moeConfig(shape));
  ASSERT_TRUE(layer.ok()) << layer.error().message();
  ASSERT_FALSE(layer->runRouting());
  ASSERT_FALSE(layer->runGateUp());
  ASSERT_FALSE(layer->runDown());
  ASSERT_FALSE(layer->runSum());
  std::string failure;
  double error = layer->check(failure);
  EXPECT_TRUE(failure.empty()) << failure;
  EXPECT_LE(error, 1e-2);
}

TEST_P(Examples, RandomNumbersAreTheSameEverywhere) {
  auto kernel = brick::kernel("random", [](Ptr<i32> bits, Ptr<f32> uniforms, Ptr<f32> normals, Long seed, Int n,
                                           Const<int> BLOCK) {
    Tensor i = program_id(0) * BLOCK + arange(0, BLOCK);
    Tensor offsets = i.to<i64>() * 0x100000001ll; // high halves too
    std::array<Tensor, 4> r = randint4x(seed, offsets);
    for (int k = 0; k < 4; ++k)
      store(bits + i * 4 + k, r[k], i < n);
    store(uniforms + i, rand(seed, offsets), i < n);
    store(normals + i, randn(seed, offsets), i < n);
  });
  const int n = 1000; // ragged: 8 programs of 128, the last one masked
  const int64_t seed = -0x0123456789ABCDEll;
  auto bits = examples::host::poisoned(device(), n * 16), uniforms = examples::host::poisoned(device(), n * 4),
       normals = examples::host::poisoned(device(), n * 4);
  ASSERT_TRUE(bits && uniforms && normals);
  ASSERT_FALSE(kernel.launch(Grid{8}, LaunchOptions{.device = &device()}, *bits, *uniforms, *normals, seed, n, 128));
  std::string failure;
  auto gotBits = examples::host::download<int32_t>(*bits, 4 * n, failure);
  auto gotUniforms = examples::host::download<float>(*uniforms, n, failure);
  auto gotNormals = examples::host::download<float>(*normals, n, failure);
  ASSERT_TRUE(failure.empty()) << failure;
  for (int i = 0; i < n; ++i) {
    uint64_t offset = uint64_t(i) * 0x100000001ull;
    auto expected = brick::test::philox({uint32_t(offset), uint32_t(offset >> 32), 0, 0}, uint32_t(seed), uint32_t(uint64_t(seed) >> 32));
    for (int k = 0; k < 4; ++k)
      ASSERT_EQ(uint32_t(gotBits[4 * i + k]), expected[k]) << "element " << i << ", block " << k;
    using brick::test::uniform;
    ASSERT_EQ(gotUniforms[i], uniform(expected[0])) << i;
    double u1 = std::max(1.0e-7f, uniform(expected[0])), u2 = uniform(expected[1]);
    double normal = std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
    // The GPU's log and cos are PTX's approximate instructions.
    ASSERT_NEAR(gotNormals[i], normal, 2e-5 * (1 + std::fabs(normal))) << i;
  }
}

// e4m3fn and e5m2: every code converts to f32, f16 and bf16 as the formats define it, and floats (from f32, f16
// and bf16: every kind of value, ties, saturation, NaN) convert to the codes brick/Support/Float8.h gives, on the
// interpreter and on the GPU (sm_90 code: PTX's cvt; sm_80 code: the same in integer arithmetic).
TEST_P(Examples, Float8ConversionsMatchTheReferenceOnEveryCode) {
  auto decode = brick::kernel("fp8_decode", [](Ptr<f8e4m3> e4, Ptr<f8e5m2> e5, Ptr<f32> f, Ptr<f16> h, Ptr<bf16> b) {
    Tensor i = arange(0, 256);
    Tensor x = load(e4 + i), y = load(e5 + i);
    store(f + i, x.to<f32>()), store(h + i, x.to<f16>()), store(b + i, x.to<bf16>());
    store(f + 256 + i, y.to<f32>()), store(h + 256 + i, y.to<f16>()), store(b + 256 + i, y.to<bf16>());
  });
  auto encode = brick::kernel("fp8_encode", [](Ptr<f32> f, Ptr<f16> h, Ptr<bf16> b, Ptr<f8e4m3> e4, Ptr<f8e5m2> e5,
                                               Int n, Const<int> BLOCK) {
    Tensor i = program_id(0) * BLOCK + arange(0, BLOCK);
    Tensor x = load(f + i, i < n), y = load(h + i, i < n), z = load(b + i, i < n);
    store(e4 + i, x.to<f8e4m3>(), i < n), store(e5 + i, x.to<f8e5m2>(), i < n);
    store(e4 + n + i, y.to<f8e4m3>(), i < n), store(e5 + n + i, y.to<f8e5m2>(), i < n);
    store(e4 + 2 * n + i, z.to<f8e4m3>(), i < n), store(e5 + 2 * n + i, z.to<f8e5m2>(), i < n);
  });
  using namespace examples::host;
  // Floats: each code's value, the midpoints between neighbours (ties) and just off them, saturation and NaN, then
  // random floats over the formats' range and past it.
  std::vector<float> floats;
  for (const float8::Format *format : {&float8::e4m3fn, &float8::e5m2})
    for (int code = 0; code < 256; ++code) {
      double value = float8::decode(*format, uint8_t(code)), next = float8::decode(*format, uint8_t(code + 1));
      floats.push_back(float(value));
      if (std::isfinite(value) && std::isfinite(next) && (code & 0x7f) < 0x7f) {
        float midpoint = float((value + next) / 2);
        floats.insert(floats.end(), {midpoint, std::nextafter(midpoint, INFINITY), std::nextafter(midpoint, -INFINITY)});
      }
    }
  floats.insert(floats.end(), {INFINITY, -INFINITY, NAN, -NAN, 1e30f, -1e30f, 464.0f, 465.0f, 61440.0f, 1e-30f, -0.0f});
  std::mt19937 rng(80);
  std::uniform_real_distribution<double> exponent(-26, 20), mantissa(1, 2);
  while (floats.size() < (onGpu(device()) ? 1000000u : 60000u))
    floats.push_back(float(std::ldexp(mantissa(rng), int(exponent(rng))) * (rng() & 1 ? -1 : 1)));
  const int n = int(floats.size());
  std::vector<uint16_t> halves(n), bf16s(n);
  for (int i = 0; i < n; ++i)
    halves[i] = floatToHalf(floats[i]), bf16s[i] = floatToBf16(floats[i]);
  std::vector<uint8_t> codes(256);
  for (int code = 0; code < 256; ++code)
    codes[code] = uint8_t(code);

  std::vector<unsigned> targets{0};
  if (onGpu(device()))
    targets.push_back(80);
  for (unsigned target : targets) {
    SCOPED_TRACE(target ? "sm_80 code" : "the device's code");
    LaunchOptions options{.device = &device()};
    options.targetCapability = target;
    auto dCodes = upload(device(), codes.data(), 256), f = poisoned(device(), 512 * 4), h = poisoned(device(), 512 * 2),
         b = poisoned(device(), 512 * 2);
    ASSERT_TRUE(dCodes && f && h && b);
    ASSERT_FALSE(decode.launch(Grid{1}, options, *dCodes, *dCodes, *f, *h, *b));
    std::string failure;
    auto gotF = download<float>(*f, 512, failure);
    auto gotH = download<uint16_t>(*h, 512, failure), gotB = download<uint16_t>(*b, 512, failure);
    ASSERT_TRUE(failure.empty()) << failure;
    for (int k = 0; k < 512; ++k) {
      double expected = float8::decode(k < 256 ? float8::e4m3fn : float8::e5m2, uint8_t(k % 256));
      if (std::isnan(expected)) {
        EXPECT_TRUE(std::isnan(gotF[k]) && std::isnan(halfToFloat(gotH[k])) && std::isnan(bf16ToFloat(gotB[k]))) << k;
        continue;
      }
      EXPECT_EQ(gotF[k], float(expected)) << (k < 256 ? "e4m3 " : "e5m2 ") << k % 256;
      EXPECT_EQ(halfToFloat(gotH[k]), float(expected)) << k;
      EXPECT_EQ(bf16ToFloat(gotB[k]), float(expected)) << k;
      EXPECT_EQ(std::signbit(gotF[k]), std::signbit(expected)) << k;
    }

    auto dF = upload(device(), floats), dH = upload(device(), halves.data(), n * 2),
         dB = upload(device(), bf16s.data(), n * 2), e4 = poisoned(device(), 3 * n), e5 = poisoned(device(), 3 * n);
    ASSERT_TRUE(dF && dH && dB && e4 && e5);
    ASSERT_FALSE(encode.launch(Grid{unsigned((n + 1023) / 1024)}, options, *dF, *dH, *dB, *e4, *e5, n, 1024));
    auto gotE4 = download<uint8_t>(*e4, 3 * n, failure), gotE5 = download<uint8_t>(*e5, 3 * n, failure);
    ASSERT_TRUE(failure.empty()) << failure;
    int mismatches = 0;
    for (int i = 0; i < 3 * n && mismatches < 10; ++i) {
      float source = i < n ? floats[i] : i < 2 * n ? halfToFloat(halves[i - n]) : bf16ToFloat(bf16s[i - 2 * n]);
      uint8_t wantE4 = floatToE4M3(source), wantE5 = floatToE5M2(source);
      if (gotE4[i] != wantE4 || gotE5[i] != wantE5) {
        ++mismatches;
        ADD_FAILURE() << "from " << (i < n ? "f32 " : i < 2 * n ? "f16 " : "bf16 ") << source << ": e4m3 0x" << std::hex
                      << int(gotE4[i]) << " (want 0x" << int(wantE4) << "), e5m2 0x" << int(gotE5[i]) << " (want 0x"
                      << int(wantE5) << ")";
      }
    }
  }
}

// Constants of 8-bit floats: 1.5 exactly (the compiler folds it to an e4m3 constant), 1000 saturating to 448 and
// 0.3 rounding to 0.3125 (converted at run time, as from any f32), and a `where` choosing between codes.
TEST_P(Examples, Float8ConstantsAreTheirCodes) {
  auto kernel = brick::kernel("fp8_constants", [](Ptr<f8e4m3> out, Ptr<f32> values) {
    Tensor i = arange(0, 16);
    Tensor chosen = where(i < 8, full<f8e4m3>({16}, 1.5), full<f8e4m3>({16}, 1000.0));
    store(out + i, chosen);
    store(out + 16 + i, full<f8e4m3>({16}, 0.3));
    store(values + i, chosen.to<f32>());
  });
  using namespace examples::host;
  auto out = poisoned(device(), 32), values = poisoned(device(), 64);
  ASSERT_TRUE(out && values);
  ASSERT_FALSE(kernel.launch(Grid{1}, LaunchOptions{.device = &device()}, *out, *values));
  std::string failure;
  auto codes = download<uint8_t>(*out, 32, failure);
  auto floats = download<float>(*values, 16, failure);
  ASSERT_TRUE(failure.empty()) << failure;
  for (int i = 0; i < 16; ++i) {
    EXPECT_EQ(codes[i], i < 8 ? 0x3c : 0x7e) << i;
    EXPECT_EQ(floats[i], i < 8 ? 1.5f : 448.0f) << i;
    EXPECT_EQ(codes[16 + i], floatToE4M3(0.3f)) << i;
  }
  EXPECT_EQ(e4m3ToFloat(floatToE4M3(0.3f)), 0.3125f);
}

// Dots of 8-bit floats, e4m3 x e4m3 and e4m3 x e5m2, against float64 of the decoded codes: B stored N x K (a
// weight; wgmma on sm_90a, which reads 8-bit operands only along K) through descriptors, and B stored K x N
// through pointers (f16 copies of the operands on mma.sync), at a ragged M.
TEST_P(Examples, Float8DotsMatchFloat64) {
  auto weights = brick::kernel("fp8_dot_nk", [](TensorDescriptor<f8e4m3, 2> a, TensorDescriptor<f8e5m2, 2> b, Ptr<f32> c,
                                               Int M, Int N, Int K, Const<int> BM, Const<int> BN, Const<int> BK) {
    Int m0 = program_id(0) * BM, n0 = program_id(1) * BN;
    Tensor acc = zeros<f32>({BM, BN});
    for_range(0, K, BK, carry(acc), [&](Int k) { acc = dot(a.load({m0, k}), b.load({n0, k}).trans(), acc); });
    Tensor rows = m0 + arange(0, BM), columns = n0 + arange(0, BN);
    store(c + rows.column() * N + columns.row(), acc, (rows.column() < M) & (columns.row() < N));
  });
  auto pointers = brick::kernel("fp8_dot_kn", [](Ptr<f8e4m3> a, Ptr<f8e4m3> b, Ptr<f32> c, Int M, Int N, Int K,
                                                Const<int> BM, Const<int> BN, Const<int> BK) {
    Tensor rows = program_id(0) * BM + arange(0, BM), columns = program_id(1) * BN + arange(0, BN);
    Tensor acc = zeros<f32>({BM, BN});
    for_range(0, K, BK, carry(acc), [&](Int k) {
      Tensor ks = k + arange(0, BK);
      Tensor x = load(a + rows.column() * K + ks.row(), rows.column() < M, 0.0f);
      Tensor y = load(b + ks.column() * N + columns.row());
      acc = dot(x, y, acc);
    });
    store(c + rows.column() * N + columns.row(), acc, rows.column() < M);
  });
  using namespace examples::host;
  const int M = 200, N = 128, K = 512;
  std::mt19937 rng(89);
  // Codes of moderate values (no NaN, magnitudes 2^-4 to 2^4) so that the sums stay well inside f32.
  auto codes = [&](size_t count, bool e4m3) {
    std::vector<uint8_t> out(count);
    for (uint8_t &code : out) {
      double value = std::ldexp(1.0 + double(rng() % 8) / 8, int(rng() % 9) - 4) * (rng() & 1 ? -1 : 1);
      code = e4m3 ? floatToE4M3(float(value)) : floatToE5M2(float(value));
    }
    return out;
  };
  std::vector<uint8_t> a = codes(M * K, true), bNK = codes(N * K, false), bKN = codes(K * N, true);
  auto reference = [&](bool nk) {
    std::vector<double> out(M * N);
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) {
        double sum = 0;
        for (int p = 0; p < K; ++p)
          sum += double(e4m3ToFloat(a[i * K + p])) *
                 (nk ? double(e5m2ToFloat(bNK[j * K + p])) : double(e4m3ToFloat(bKN[p * N + j])));
        out[i * N + j] = sum;
      }
    return out;
  };
  auto dA = upload(device(), a.data(), a.size()), dBNK = upload(device(), bNK.data(), bNK.size()),
       dBKN = upload(device(), bKN.data(), bKN.size()), dC = poisoned(device(), M * N * 4);
  ASSERT_TRUE(dA && dBNK && dBKN && dC);
  LaunchOptions options{.numWarps = 8, .numStages = 3, .device = &device()};
  for (bool nk : {true, false}) {
    SCOPED_TRACE(nk ? "B stored N x K, through descriptors" : "B stored K x N, through pointers");
    runtime::Error error =
        nk ? weights.launch(Grid{unsigned((M + 127) / 128), 1}, options,
                            TensorDescriptorArg::of(*dA, {M, K}, {K, 1}, {128, 128}),
                            TensorDescriptorArg::of(*dBNK, {N, K}, {K, 1}, {128, 128}), *dC, M, N, K, 128, 128, 128)
           : pointers.launch(Grid{unsigned((M + 127) / 128), 1}, options, *dA, *dBKN, *dC, M, N, K, 128, 128, 64);
    ASSERT_FALSE(error) << error.message();
    std::string failure;
    std::vector<float> got = download<float>(*dC, M * N, failure);
    ASSERT_TRUE(failure.empty()) << failure;
    std::vector<double> want = reference(nk);
    double relative = relativeError(std::vector<double>(got.begin(), got.end()), want);
    std::printf("fp8 dot, %s: relative error %.2e\n", nk ? "N x K" : "K x N", relative);
    // wgmma adds 8-bit products in a narrower accumulator than f32 (4.9e-4 here on an H200, against 1.6e-7 on
    // mma.sync): the bound until partial sums are promoted to f32 registers every 128 of K.
    EXPECT_LE(relative, 1e-3);
  }
  // Blocks of 16 rows (decode's), under wgmma's 64: mma.sync m16n8k32 on the 8-bit floats from sm_89, f16 copies
  // before it and on the interpreter.
  ASSERT_FALSE(weights.launch(Grid{unsigned((M + 15) / 16), unsigned(N / 64)},
                              LaunchOptions{.numWarps = 4, .numStages = 4, .device = &device()},
                              TensorDescriptorArg::of(*dA, {M, K}, {K, 1}, {16, 128}),
                              TensorDescriptorArg::of(*dBNK, {N, K}, {K, 1}, {64, 128}), *dC, M, N, K, 16, 64, 128));
  std::string failure;
  std::vector<float> got = download<float>(*dC, M * N, failure);
  ASSERT_TRUE(failure.empty()) << failure;
  double relative = relativeError(std::vector<double>(got.begin(), got.end()), reference(true));
  std::printf("fp8 dot, N x K, 16-row blocks: relative error %.2e\n", relative);
  EXPECT_LE(relative, 1e-3);
}

TEST_P(Examples, SplitKMatmulAddsEverySplitOnce) {
  // Decode's shape: 5 rows, K of 9 steps of 128 and a ragged tenth of 16 (1168), so that 4 splits of 3 steps leave the
  // last split one step and 6 splits leave the last one none (its partial must be zeros, not poison).
  auto splitK = examples::matmulSplitK<f8e4m3>();
  auto reduce = examples::matmulSplitKReduce<bf16>();
  using namespace examples::host;
  const int M = 5, N = 192, K = 1168;
  std::mt19937 rng(4);
  auto codes = [&](size_t count) {
    std::vector<uint8_t> out(count);
    for (uint8_t &code : out)
      code = floatToE4M3(std::ldexp(1.0f + float(rng() % 8) / 8, int(rng() % 7) - 3) * (rng() & 1 ? -1 : 1));
    return out;
  };
  std::vector<uint8_t> a = codes(M * K), b = codes(N * K);
  std::vector<double> want(M * N);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j)
      for (int p = 0; p < K; ++p)
        want[i * N + j] += double(e4m3ToFloat(a[i * K + p])) * double(e4m3ToFloat(b[j * K + p]));
  auto dA = upload(device(), a.data(), a.size()), dB = upload(device(), b.data(), b.size());
  ASSERT_TRUE(dA && dB);
  for (int splits : {1, 4, 6}) {
    SCOPED_TRACE("splits " + std::to_string(splits));
    auto partial = poisoned(device(), size_t(splits) * M * N * 4), out = poisoned(device(), M * N * 2);
    ASSERT_TRUE(partial && out);
    runtime::Error error = splitK.launch(Grid{unsigned(N / 64), unsigned(splits)},
                                         LaunchOptions{.numWarps = 4, .numStages = 3, .device = &device()},
                                         TensorDescriptorArg::of(*dA, {M, K}, {K, 1}, {16, 128}),
                                         TensorDescriptorArg::of(*dB, {N, K}, {K, 1}, {64, 128}), *partial, M, N, K,
                                         16, 64, 128, splits);
    ASSERT_FALSE(error) << error.message();
    error = reduce.launch(Grid{unsigned((M * N + 255) / 256)}, LaunchOptions{.device = &device()}, *partial, *out,
                          M * N, splits, 256);
    ASSERT_FALSE(error) << error.message();
    std::string failure;
    std::vector<uint16_t> got = download<uint16_t>(*out, M * N, failure);
    ASSERT_TRUE(failure.empty()) << failure;
    std::vector<double> values(got.size());
    for (size_t i = 0; i < got.size(); ++i)
      values[i] = double(bf16ToFloat(got[i]));
    double relative = relativeError(values, want);
    std::printf("split-K fp8 matmul, %d splits: relative error %.2e\n", splits, relative);
    // One rounding to bf16 (2^-9 relative at most) over f32 sums of exact products.
    EXPECT_LE(relative, 3e-3);
  }
}

// e4m3 codes of magnitude 2^-4 to 2^4 (eight mantissas, either sign: no NaN, no saturation), and f32 scales
// (sixteen mantissas) with exponents within +-`spread`, for the FP8 GEMM tests.
std::vector<uint8_t> float8Codes(std::mt19937 &rng, size_t count) {
  std::vector<uint8_t> out(count);
  for (uint8_t &code : out)
    code = floatToE4M3(std::ldexp(1.0f + float(rng() % 8) / 8, int(rng() % 9) - 4) * (rng() & 1 ? -1 : 1));
  return out;
}
std::vector<float> float8Scales(std::mt19937 &rng, size_t count, int spread) {
  std::vector<float> out(count);
  for (float &scale : out)
    scale = std::ldexp(1.0f + float(rng() % 16) / 16, int(rng() % unsigned(2 * spread + 1)) - spread);
  return out;
}

// The FP8 GEMM with DeepSeek-V3's block scales (1 x 128 of A, 128 x 128 of B), against float64 of the scaled codes,
// at ragged M and N, K of three scale blocks; bf16 out.
TEST_P(Examples, Float8BlockScaledMatmulMatchesFloat64) {
  auto kernel = examples::matmulFp8BlockScaled();
  using namespace examples::host;
  const int M = 200, N = 320, K = 384, blocksK = K / 128;
  std::mt19937 rng(90);
  std::vector<uint8_t> a = float8Codes(rng, size_t(M) * K), b = float8Codes(rng, size_t(N) * K);
  std::vector<float> scaleA = float8Scales(rng, size_t(blocksK) * M, 2),
                     scaleB = float8Scales(rng, size_t((N + 127) / 128) * blocksK, 2);
  std::vector<double> want(size_t(M) * N);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j)
      for (int p = 0; p < K; ++p)
        want[size_t(i) * N + j] += double(e4m3ToFloat(a[size_t(i) * K + p])) * e4m3ToFloat(b[size_t(j) * K + p]) *
                                   scaleA[size_t(p / 128) * M + i] * scaleB[size_t(j / 128) * blocksK + p / 128];
  auto dA = upload(device(), a.data(), a.size()), dB = upload(device(), b.data(), b.size()),
       dScaleA = upload(device(), scaleA), dScaleB = upload(device(), scaleB), dC = poisoned(device(), size_t(M) * N * 2);
  ASSERT_TRUE(dA && dB && dScaleA && dScaleB && dC);
  // One weight scale a tile (BLOCK_N 128 or 64, warp-specialized or not) and a row of them (BLOCK_N 256).
  struct Config {
    int blockM, blockN;
    unsigned warps;
    bool warpSpecialize;
  };
  for (auto [blockM, blockN, warps, warpSpecialize] :
       {Config{128, 128, 8, false}, {128, 128, 8, true}, {64, 64, 4, false}, {128, 256, 8, false}}) {
    LaunchOptions options{.numWarps = warps, .numStages = 3, .warpSpecialize = warpSpecialize, .device = &device()};
    unsigned programs = unsigned((M + blockM - 1) / blockM) * unsigned((N + blockN - 1) / blockN);
    runtime::Error error = kernel.launch(Grid{programs}, options, TensorDescriptorArg::of(*dA, {M, K}, {K, 1}, {blockM, 128}),
                                         TensorDescriptorArg::of(*dB, {N, K}, {K, 1}, {blockN, 128}),
                                         TensorDescriptorArg::of(*dC, {M, N}, {N, 1}, {blockM, blockN}), *dScaleA,
                                         *dScaleB, M, N, K, blockM, blockN, 8);
    ASSERT_FALSE(error) << error.message();
    std::string failure;
    std::vector<uint16_t> got = download<uint16_t>(*dC, size_t(M) * N, failure);
    ASSERT_TRUE(failure.empty()) << failure;
    std::vector<double> values(got.size());
    for (size_t i = 0; i < got.size(); ++i)
      values[i] = bf16ToFloat(got[i]);
    double relative = relativeError(values, want);
    std::printf("fp8 block-scaled matmul, %dx%d tiles%s: relative error %.2e\n", blockM, blockN,
                warpSpecialize ? ", warp-specialized" : "", relative);
    EXPECT_LE(relative, 1e-2) << blockM << "x" << blockN << (warpSpecialize ? " ws" : ""); // bf16 out
  }
}

// The FP8 GEMM with one scale per row of A and per row of B (rowwise, as torch._scaled_mm), against float64 of the
// scaled codes, at ragged M and N and a K tail; bf16 out.
TEST_P(Examples, Float8RowwiseScaledMatmulMatchesFloat64) {
  auto kernel = examples::matmulFp8RowwiseScaled();
  using namespace examples::host;
  const int M = 200, N = 136, K = 320;
  std::mt19937 rng(92);
  std::vector<uint8_t> a = float8Codes(rng, size_t(M) * K), b = float8Codes(rng, size_t(N) * K);
  std::vector<float> scaleA = float8Scales(rng, M, 4), scaleB = float8Scales(rng, N, 4);
  std::vector<double> want(size_t(M) * N);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double sum = 0;
      for (int p = 0; p < K; ++p)
        sum += double(e4m3ToFloat(a[size_t(i) * K + p])) * e4m3ToFloat(b[size_t(j) * K + p]);
      want[size_t(i) * N + j] = sum * scaleA[i] * scaleB[j];
    }
  auto dA = upload(device(), a.data(), a.size()), dB = upload(device(), b.data(), b.size()),
       dScaleA = upload(device(), scaleA), dScaleB = upload(device(), scaleB), dC = poisoned(device(), size_t(M) * N * 2);
  ASSERT_TRUE(dA && dB && dScaleA && dScaleB && dC);
  const int blockM = 128, blockN = 128, blockK = 128;
  LaunchOptions options{.numWarps = 8, .numStages = 3, .device = &device()};
  unsigned programs = unsigned((M + blockM - 1) / blockM) * unsigned((N + blockN - 1) / blockN);
  runtime::Error error = kernel.launch(Grid{programs}, options, TensorDescriptorArg::of(*dA, {M, K}, {K, 1}, {blockM, blockK}),
                                       TensorDescriptorArg::of(*dB, {N, K}, {K, 1}, {blockN, blockK}),
                                       TensorDescriptorArg::of(*dC, {M, N}, {N, 1}, {blockM, blockN}), *dScaleA,
                                       *dScaleB, M, N, K, blockM, blockN, blockK, 8);
  ASSERT_FALSE(error) << error.message();
  std::string failure;
  std::vector<uint16_t> got = download<uint16_t>(*dC, size_t(M) * N, failure);
  ASSERT_TRUE(failure.empty()) << failure;
  std::vector<double> values(got.size());
  for (size_t i = 0; i < got.size(); ++i)
    values[i] = bf16ToFloat(got[i]);
  double relative = relativeError(values, want);
  std::printf("fp8 rowwise-scaled matmul: relative error %.2e\n", relative);
  EXPECT_LE(relative, 1e-2); // bf16 out
}

// Activations quantized to e4m3 per 1 x 128 group (examples::quantizeFp8): every scale is the group's largest
// magnitude over 448 (within the GPU division's 2 ulp), every code the nearest to x times 448 over that (a code
// off by one step only where x sits that close to a rounding boundary), each group's largest magnitude 448, a
// group of zeros zero codes under the clamped scale; ragged M, K of three groups, one and two groups a program.
TEST_P(Examples, QuantizeFp8GroupsMatchTheReference) {
  auto kernel = examples::quantizeFp8();
  using namespace examples::host;
  const int M = 100, K = 384, groups = K / 128;
  std::mt19937 rng(91);
  std::vector<uint16_t> x(size_t(M) * K);
  for (size_t i = 0; i < x.size(); ++i) // magnitudes from 2^-12 to 2^12, so groups differ in scale
    x[i] = floatToBf16(std::ldexp(float(rng() % 1000) / 1000, int(rng() % 25) - 12) * (rng() & 1 ? -1 : 1));
  for (int p = 128; p < 256; ++p)
    x[size_t(7) * K + p] = 0; // row 7's second group: zeros
  auto dX = upload(device(), x.data(), x.size() * 2);
  ASSERT_TRUE(dX);
  for (int blockK : {128, 256}) {
    auto dCodes = poisoned(device(), size_t(M) * K), dScales = poisoned(device(), size_t(groups) * M * 4);
    ASSERT_TRUE(dCodes && dScales);
    const int blockM = 64;
    Grid grid{unsigned((M + blockM - 1) / blockM), unsigned((K + blockK - 1) / blockK)};
    ASSERT_FALSE(kernel.launch(grid, LaunchOptions{.device = &device()}, *dX, *dCodes, *dScales, M, K, blockM, blockK));
    std::string failure;
    std::vector<uint8_t> codes = download<uint8_t>(*dCodes, size_t(M) * K, failure);
    std::vector<float> scales = download<float>(*dScales, size_t(groups) * M, failure);
    ASSERT_TRUE(failure.empty()) << failure;
    int nearBoundary = 0;
    for (int i = 0; i < M; ++i)
      for (int g = 0; g < groups; ++g) {
        float amax = 0;
        for (int p = g * 128; p < (g + 1) * 128; ++p)
          amax = std::max(amax, std::fabs(bf16ToFloat(x[size_t(i) * K + p])));
        amax = std::max(amax, 1e-4f);
        float scale = scales[size_t(g) * M + i];
        ASSERT_NEAR(scale, amax / 448.0f, 2.5e-7 * (amax / 448.0f)) << "row " << i << " group " << g;
        uint8_t largest = 0;
        for (int p = g * 128; p < (g + 1) * 128; ++p) {
          float value = bf16ToFloat(x[size_t(i) * K + p]) * (448.0f / amax);
          uint8_t code = codes[size_t(i) * K + p], want = floatToE4M3(value);
          largest = std::max<uint8_t>(largest, code & 0x7f);
          if (code == want)
            continue;
          // Off by one step, where value is within 1e-6 of the midpoint between the two codes.
          float mid = (e4m3ToFloat(code) + e4m3ToFloat(want)) / 2;
          ASSERT_TRUE((code & 0x80) == (want & 0x80) && std::abs(int(code & 0x7f) - int(want & 0x7f)) == 1)
              << "row " << i << " column " << p;
          ASSERT_LE(std::fabs(value - mid), 1e-6f * std::fabs(value)) << "row " << i << " column " << p;
          ++nearBoundary;
        }
        EXPECT_EQ(largest, i == 7 && g == 1 ? 0 : 0x7e) << "row " << i << " group " << g; // 0x7e is 448
      }
    EXPECT_LE(nearBoundary, M * K / 1000) << "BLOCK_K " << blockK;
  }
}

TEST_P(Examples, HintedGatherReadsWhatItShould) {
  // Pages of 4 consecutive indices (what multiple_of / max_contiguous state), in a scrambled order, ragged n.
  auto kernel = brick::kernel("hinted_gather", [](Ptr<f32> out, Ptr<f32> table, Ptr<i32> indices, Int n,
                                                  Const<int> BLOCK) {
    Tensor i = program_id(0) * BLOCK + arange(0, BLOCK);
    // Masked-off lanes read i, which keeps the hint true there too (the interpreter checks every element).
    Tensor index = max_contiguous(multiple_of(load(indices + i, i < n, i), {4}), {4});
    store(out + i, load(table + index, i < n), i < n);
  });
  const int n = 1000; // 250 pages; the last program masked
  std::vector<float> table = examples::host::randomFloats(n);
  std::vector<int32_t> indices(n);
  for (int i = 0; i < n; ++i)
    indices[i] = (i / 4 * 101 % (n / 4)) * 4 + i % 4;
  auto dTable = examples::host::upload(device(), table);
  auto dIndices = examples::host::upload(device(), indices.data(), indices.size() * 4);
  auto out = examples::host::poisoned(device(), n * 4);
  ASSERT_TRUE(dTable && dIndices && out);
  ASSERT_FALSE(kernel.launch(Grid{4}, LaunchOptions{.device = &device()}, *out, *dTable, *dIndices, n, 256));
  std::string failure;
  auto got = examples::host::download<float>(*out, n, failure);
  ASSERT_TRUE(failure.empty()) << failure;
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(got[i], table[indices[i]]) << i;
}

TEST_P(Examples, JoinSplitCatFlipMoveEveryElement) {
  auto kernel = brick::kernel("movements", [](Ptr<i32> out, Ptr<i32> in) {
    Tensor rows = arange(0, 8).column(), columns = arange(0, 64).row();
    Tensor x = load(in + rows * 64 + columns); // [8, 64]
    auto [even, odd] = split(x.reshape({8, 32, 2}));
    Tensor swapped = join(odd, even).reshape({8, 64});
    store(out + rows * 64 + columns, swapped);
    store(out + 512 + arange(0, 16).column() * 64 + columns, cat(x, flip(x, 1)));
    store(out + 1536 + rows * 64 + columns, flip(flip(x, 0), 1));
    Tensor all = arange(0, 1024);
    store(out + 2048 + all, flip(load(in + all), 0));
  });
  std::vector<int32_t> in(1024);
  for (int i = 0; i < 1024; ++i)
    in[i] = int32_t(uint32_t(i) * 2654435761u);
  auto dIn = examples::host::upload(device(), in.data(), in.size() * 4);
  auto out = examples::host::poisoned(device(), 3072 * 4);
  ASSERT_TRUE(dIn && out);
  ASSERT_FALSE(kernel.launch(Grid{1}, LaunchOptions{.device = &device()}, *out, *dIn));
  std::string failure;
  auto got = examples::host::download<int32_t>(*out, 3072, failure);
  ASSERT_TRUE(failure.empty()) << failure;
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 64; ++c) {
      ASSERT_EQ(got[r * 64 + c], in[r * 64 + (c ^ 1)]) << "split/join " << r << "," << c;
      ASSERT_EQ(got[512 + r * 64 + c], in[r * 64 + c]) << "cat " << r << "," << c;
      ASSERT_EQ(got[512 + (8 + r) * 64 + c], in[r * 64 + 63 - c]) << "cat/flip " << r << "," << c;
      ASSERT_EQ(got[1536 + r * 64 + c], in[(7 - r) * 64 + 63 - c]) << "flip both " << r << "," << c;
    }
  for (int i = 0; i < 1024; ++i)
    ASSERT_EQ(got[2048 + i], in[1023 - i]) << "flip 1024 " << i;
}

TEST_P(Examples, SortAndTopkMatchStdSort) {
  // Rows of 64 scores (an MoE router's shape: experts per token), sorted and their top 8; 256 in one row too.
  auto kernel = brick::kernel("sorting", [](Ptr<f32> out, Ptr<f32> in, Int tokens, Const<int> ROWS) {
    Tensor rows = program_id(0) * ROWS + arange(0, ROWS).column(), columns = arange(0, 64).row();
    Tensor x = load(in + rows * 64 + columns, rows < tokens, 0.0f);
    store(out + rows * 64 + columns, sort(x), rows < tokens);
    store(out + tokens * 64 + rows * 8 + arange(0, 8).row(), topk(x, 8), rows < tokens);
  });
  const int tokens = 37; // ragged: 3 programs of 16 rows
  std::vector<float> in = examples::host::randomFloats(size_t(tokens) * 64);
  auto dIn = examples::host::upload(device(), in);
  auto out = examples::host::poisoned(device(), size_t(tokens) * 72 * 4);
  ASSERT_TRUE(dIn && out);
  ASSERT_FALSE(kernel.launch(Grid{3}, LaunchOptions{.device = &device()}, *out, *dIn, tokens, 16));
  std::string failure;
  auto got = examples::host::download<float>(*out, size_t(tokens) * 72, failure);
  ASSERT_TRUE(failure.empty()) << failure;
  for (int r = 0; r < tokens; ++r) {
    std::vector<float> row(in.begin() + r * 64, in.begin() + r * 64 + 64);
    std::sort(row.begin(), row.end());
    for (int c = 0; c < 64; ++c)
      ASSERT_EQ(got[r * 64 + c], row[c]) << "sort row " << r << ", " << c;
    for (int c = 0; c < 8; ++c)
      ASSERT_EQ(got[tokens * 64 + r * 8 + c], row[63 - c]) << "topk row " << r << ", " << c;
  }
}

TEST_P(Examples, CumsumAndRunningMaxAtRaggedSizes) {
  // Row-wise cumulative sums of ragged rows (masked columns read 0) and a running max down the columns.
  auto kernel = brick::kernel("scans", [](Ptr<i32> sums, Ptr<f32> maxima, Ptr<i32> ints, Ptr<f32> in, Int rows,
                                          Int cols, Const<int> BLOCK) {
    Tensor r = program_id(0) * 4 + arange(0, 4).column(), c = arange(0, BLOCK).row();
    Tensor mask = (r < rows) & (c < cols);
    store(sums + r * cols + c, cumsum(load(ints + r * cols + c, mask, 0), 1), mask);
    Tensor x = load(in + r * cols + c, mask, -INFINITY);
    store(maxima + r * cols + c, associative_scan(x, 0, [](Tensor a, Tensor b) { return maximum(a, b); }), mask);
  });
  const int rows = 10, cols = 300; // 3 programs of 4 rows; BLOCK 512
  std::vector<int32_t> ints(rows * cols);
  for (int i = 0; i < rows * cols; ++i)
    ints[i] = int32_t((uint32_t(i) * 2654435761u) % 2001) - 1000;
  std::vector<float> in = examples::host::randomFloats(size_t(rows) * cols);
  auto dInts = examples::host::upload(device(), ints.data(), ints.size() * 4);
  auto dIn = examples::host::upload(device(), in);
  auto sums = examples::host::poisoned(device(), rows * cols * 4), maxima = examples::host::poisoned(device(), rows * cols * 4);
  ASSERT_TRUE(dInts && dIn && sums && maxima);
  ASSERT_FALSE(kernel.launch(Grid{3}, LaunchOptions{.device = &device()}, *sums, *maxima, *dInts, *dIn, rows, cols, 512));
  std::string failure;
  auto gotSums = examples::host::download<int32_t>(*sums, rows * cols, failure);
  auto gotMaxima = examples::host::download<float>(*maxima, rows * cols, failure);
  ASSERT_TRUE(failure.empty()) << failure;
  for (int r = 0; r < rows; ++r) {
    int32_t running = 0;
    for (int c = 0; c < cols; ++c) {
      running += ints[r * cols + c];
      ASSERT_EQ(gotSums[r * cols + c], running) << r << "," << c;
      float best = in[(r / 4 * 4) * cols + c]; // the scan runs down each program's 4 rows
      for (int k = r / 4 * 4; k <= r; ++k)
        best = std::max(best, in[k * cols + c]);
      ASSERT_EQ(gotMaxima[r * cols + c], best) << r << "," << c;
    }
  }
}

TEST_P(Examples, ScansKeepTheCombinersOrderOnEveryLayout) {
  // Composing affine maps x -> a*x + b is associative but not commutative: any element combined out of order,
  // or twice, or not at all, changes the result. Two operands (a, b) scan together, over 1-D and 2-D blocks whose
  // layouts put the axis in registers only, in lanes, in warps and in registers again above the warps, forwards
  // and in reverse.
  auto kernel = brick::kernel("affine_scan", [](Ptr<i32> outA, Ptr<i32> outB, Ptr<i32> inA, Ptr<i32> inB,
                                                Const<int> ROWS, Const<int> COLS, Const<int> AXIS, Const<bool> REVERSE) {
    Tensor offsets = ROWS == 1 ? arange(0, COLS) : arange(0, ROWS).column() * COLS + arange(0, COLS).row();
    std::vector<Tensor> scanned = associative_scan(
        {load(inA + offsets), load(inB + offsets)}, AXIS,
        [](std::vector<Tensor> first, std::vector<Tensor> then) {
          return std::vector<Tensor>{first[0] * then[0], first[1] * then[0] + then[1]};
        },
        REVERSE);
    store(outA + offsets, scanned[0]);
    store(outB + offsets, scanned[1]);
  });
  struct Case {
    int rows, cols, axis;
    unsigned warps;
  };
  std::vector<Case> cases = {{1, 8, 0, 1},    {1, 32, 0, 1},   {1, 128, 0, 4}, {1, 1024, 0, 4}, {1, 4096, 0, 4},
                             {1, 4096, 0, 8}, {1, 2048, 0, 1}, {4, 512, 1, 4}, {64, 32, 0, 4}, {16, 64, 0, 8},
                             {16, 64, 1, 8},  {128, 8, 0, 4},  {8, 256, 0, 2}};
  for (const Case &c : cases)
    for (bool reverse : {false, true}) {
      SCOPED_TRACE(std::to_string(c.rows) + "x" + std::to_string(c.cols) + " axis " + std::to_string(c.axis) +
                   ", " + std::to_string(c.warps) + " warps" + (reverse ? ", reverse" : ""));
      int count = c.rows * c.cols;
      std::vector<int32_t> a(count), b(count);
      for (int i = 0; i < count; ++i) {
        a[i] = int32_t((uint32_t(i) * 2654435761u) >> 28) | 1; // odd: no product collapses to 0
        b[i] = int32_t((uint32_t(i) * 40503u + 7u) % 1000u);
      }
      auto dA = examples::host::upload(device(), a.data(), a.size() * 4);
      auto dB = examples::host::upload(device(), b.data(), b.size() * 4);
      auto outA = examples::host::poisoned(device(), count * 4), outB = examples::host::poisoned(device(), count * 4);
      ASSERT_TRUE(dA && dB && outA && outB);
      ASSERT_FALSE(kernel.launch(Grid{1}, LaunchOptions{.numWarps = c.warps, .device = &device()}, *outA, *outB, *dA,
                                 *dB, c.rows, c.cols, c.axis, reverse));
      std::string failure;
      auto gotA = examples::host::download<int32_t>(*outA, count, failure);
      auto gotB = examples::host::download<int32_t>(*outB, count, failure);
      ASSERT_TRUE(failure.empty()) << failure;
      int lines = c.axis == 0 ? c.cols : c.rows, length = c.axis == 0 ? c.rows : c.cols;
      if (c.rows == 1)
        lines = 1, length = c.cols;
      for (int line = 0; line < lines; ++line) {
        uint32_t accA = 1, accB = 0;
        for (int step = 0; step < length; ++step) {
          int along = reverse ? length - 1 - step : step;
          int at = c.rows == 1 ? along : c.axis == 0 ? along * c.cols + line : line * c.cols + along;
          accB = accB * uint32_t(a[at]) + uint32_t(b[at]);
          accA = accA * uint32_t(a[at]);
          ASSERT_EQ(uint32_t(gotA[at]), accA) << "line " << line << ", element " << along;
          ASSERT_EQ(uint32_t(gotB[at]), accB) << "line " << line << ", element " << along;
        }
      }
    }
}

TEST_P(Examples, FmaRoundsOnce) {
  // (1 + 2^-20)(1 - 2^-20) - 1 is -2^-40 exactly: fma gives it; a * b + c rounds the product to 1 first and gives
  // 0. Literals take the blocks' type, and the three operands broadcast ([64, 1] x [1, 64] + scalar).
  auto kernel = brick::kernel("fma_once", [](Ptr<f32> fused, Ptr<f32> twice, Ptr<f32> outer, Ptr<f32> x, Ptr<f32> y) {
    Tensor i = arange(0, 64);
    Tensor a = load(x + i), b = load(y + i);
    store(fused + i, fma(a, b, -1.0));
    store(twice + i, a * b - 1.0);
    store(outer + i.column() * 64 + i.row(), fma(a.column(), b.row(), 0.5));
  });
  std::vector<float> x(64), y(64);
  for (int i = 0; i < 64; ++i)
    x[i] = 1.0f + std::ldexp(float(i + 1), -20), y[i] = 1.0f - std::ldexp(1.0f, -20);
  auto dX = examples::host::upload(device(), x), dY = examples::host::upload(device(), y);
  auto fused = examples::host::poisoned(device(), 64 * 4), twice = examples::host::poisoned(device(), 64 * 4),
       outer = examples::host::poisoned(device(), 64 * 64 * 4);
  ASSERT_TRUE(dX && dY && fused && twice && outer);
  ASSERT_FALSE(kernel.launch(Grid{1}, LaunchOptions{.device = &device()}, *fused, *twice, *outer, *dX, *dY));
  std::string failure;
  auto gotFused = examples::host::download<float>(*fused, 64, failure);
  auto gotTwice = examples::host::download<float>(*twice, 64, failure);
  auto gotOuter = examples::host::download<float>(*outer, 64 * 64, failure);
  ASSERT_TRUE(failure.empty()) << failure;
  for (int i = 0; i < 64; ++i) {
    ASSERT_EQ(gotFused[i], std::fma(x[i], y[i], -1.0f)) << i;
    ASSERT_EQ(gotTwice[i], x[i] * y[i] - 1.0f) << i;
    for (int j = 0; j < 64; ++j)
      ASSERT_EQ(gotOuter[i * 64 + j], std::fma(x[i], y[j], 0.5f)) << i << "," << j;
  }
  ASSERT_EQ(gotFused[0], -std::ldexp(1.0f, -40));
  ASSERT_EQ(gotTwice[0], 0.0f); // the product rounded to 1 first
}

TEST_P(Examples, GatherTakesAlongEitherAxis) {
  // A [16, 64] block: each row permuted and subsampled by its own indices (axis 1, 32 per row), and 8 of its rows
  // picked per column (axis 0), with i8 and i64 indices.
  auto kernel = brick::kernel("gathers", [](Ptr<f32> alongRows, Ptr<f32> alongColumns, Ptr<f32> in, Ptr<i8> rowIdx,
                                            Ptr<i64> colIdx) {
    Tensor r = arange(0, 16).column(), c = arange(0, 64).row();
    Tensor x = load(in + r * 64 + c);
    Tensor c32 = arange(0, 32).row();
    store(alongRows + r * 32 + c32, gather(x, load(rowIdx + r * 32 + c32), 1));
    Tensor r8 = arange(0, 8).column();
    store(alongColumns + r8 * 64 + c, gather(x, load(colIdx + r8 * 64 + c), 0));
  });
  std::vector<float> in = examples::host::randomFloats(16 * 64);
  std::vector<int8_t> rowIdx(16 * 32);
  std::vector<int64_t> colIdx(8 * 64);
  for (int i = 0; i < 16 * 32; ++i)
    rowIdx[i] = int8_t((i * 37 + i / 32) % 64);
  for (int i = 0; i < 8 * 64; ++i)
    colIdx[i] = (i * 5 + 3) % 16;
  auto dIn = examples::host::upload(device(), in);
  auto dRow = examples::host::upload(device(), rowIdx.data(), rowIdx.size());
  auto dCol = examples::host::upload(device(), colIdx.data(), colIdx.size() * 8);
  auto rows = examples::host::poisoned(device(), 16 * 32 * 4), columns = examples::host::poisoned(device(), 8 * 64 * 4);
  ASSERT_TRUE(dIn && dRow && dCol && rows && columns);
  ASSERT_FALSE(kernel.launch(Grid{1}, LaunchOptions{.device = &device()}, *rows, *columns, *dIn, *dRow, *dCol));
  std::string failure;
  auto gotRows = examples::host::download<float>(*rows, 16 * 32, failure);
  auto gotColumns = examples::host::download<float>(*columns, 8 * 64, failure);
  ASSERT_TRUE(failure.empty()) << failure;
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 32; ++c)
      ASSERT_EQ(gotRows[r * 32 + c], in[r * 64 + rowIdx[r * 32 + c]]) << r << "," << c;
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 64; ++c)
      ASSERT_EQ(gotColumns[r * 64 + c], in[colIdx[r * 64 + c] * 64 + c]) << r << "," << c;
}

TEST_P(Examples, BatchedDotMultipliesEachBatchOnItsOwn) {
  // c[q] = a[q] * b[q] + 1 for 4 batches of 32x16 times 16x32 (f16 in, f32 out), and of i8 (i32 out).
  auto kernel = brick::kernel("batched_dot", [](Ptr<f32> c, Ptr<i32> ci, Ptr<f16> a, Ptr<f16> b, Ptr<i8> ai, Ptr<i8> bi) {
    Tensor q = arange(0, 4).reshape({4, 1, 1});
    Tensor rows = arange(0, 32).reshape({1, 32, 1}), ks = arange(0, 16).reshape({1, 1, 16});
    Tensor kRows = arange(0, 16).reshape({1, 16, 1}), columns = arange(0, 32).reshape({1, 1, 32});
    Tensor aOffsets = q * 512 + rows * 16 + ks, bOffsets = q * 512 + kRows * 32 + columns;
    Tensor cOffsets = q * 1024 + rows * 32 + columns;
    store(c + cOffsets, dot(load(a + aOffsets), load(b + bOffsets), full<f32>({4, 32, 32}, 1.0)));
    store(ci + cOffsets, dot(load(ai + aOffsets), load(bi + bOffsets)));
  });
  std::vector<float> a = examples::host::randomFloats(4 * 512), b = examples::host::randomFloats(4 * 512);
  std::vector<uint16_t> a16, b16;
  for (float &v : a)
    a16.push_back(examples::host::Memory<brick::f16>::from(v)), v = examples::host::Memory<brick::f16>::to(a16.back());
  for (float &v : b)
    b16.push_back(examples::host::Memory<brick::f16>::from(v)), v = examples::host::Memory<brick::f16>::to(b16.back());
  std::vector<int8_t> ai(4 * 512), bi(4 * 512);
  for (int i = 0; i < 4 * 512; ++i)
    ai[i] = int8_t((i * 37) % 255 - 127), bi[i] = int8_t((i * 91 + 5) % 255 - 127);
  auto dA = examples::host::upload(device(), a16.data(), a16.size() * 2);
  auto dB = examples::host::upload(device(), b16.data(), b16.size() * 2);
  auto dAi = examples::host::upload(device(), ai.data(), ai.size()), dBi = examples::host::upload(device(), bi.data(), bi.size());
  auto c = examples::host::poisoned(device(), 4 * 1024 * 4), ci = examples::host::poisoned(device(), 4 * 1024 * 4);
  ASSERT_TRUE(dA && dB && dAi && dBi && c && ci);
  ASSERT_FALSE(kernel.launch(Grid{1}, LaunchOptions{.device = &device()}, *c, *ci, *dA, *dB, *dAi, *dBi));
  std::string failure;
  auto got = examples::host::download<float>(*c, 4 * 1024, failure);
  auto gotInts = examples::host::download<int32_t>(*ci, 4 * 1024, failure);
  ASSERT_TRUE(failure.empty()) << failure;
  for (int q = 0; q < 4; ++q)
    for (int i = 0; i < 32; ++i)
      for (int j = 0; j < 32; ++j) {
        double expected = 1;
        int64_t exact = 0;
        for (int p = 0; p < 16; ++p) {
          expected += double(a[q * 512 + i * 16 + p]) * double(b[q * 512 + p * 32 + j]);
          exact += int64_t(ai[q * 512 + i * 16 + p]) * bi[q * 512 + p * 32 + j];
        }
        ASSERT_NEAR(got[q * 1024 + i * 32 + j], expected, 1e-4 * (1 + std::abs(expected))) << q << ": " << i << "," << j;
        ASSERT_EQ(gotInts[q * 1024 + i * 32 + j], exact) << q << ": " << i << "," << j;
      }
}

/// c[q] = a[q] (32 x K) * b[q] (K x 32) for `batches` batches, BATCH of them per program, K in steps of BLOCK_K
/// (the last one masked): a batched dot carried through a loop, on tensor cores for f16, bf16 and f32 (tf32).
template <ElementTag T> auto batchedMatmul() {
  return brick::kernel("batched_matmul", [](Ptr<f32> c, Ptr<T> a, Ptr<T> b, Int batches, Int K, Const<int> BATCH,
                                            Const<int> BLOCK_K) {
    Tensor q = (program_id(0) * BATCH + arange(0, BATCH)).reshape({BATCH, 1, 1});
    Tensor wrapped = q % batches; // loads stay in bounds; the store masks the batches past the end
    Tensor rows = arange(0, 32).reshape({1, 32, 1}), ks = arange(0, BLOCK_K).reshape({1, 1, BLOCK_K});
    Tensor kRows = arange(0, BLOCK_K).reshape({1, BLOCK_K, 1}), columns = arange(0, 32).reshape({1, 1, 32});
    Tensor aTile = a + wrapped * (32 * K) + rows * K + ks;
    Tensor bTile = b + wrapped * (32 * K) + kRows * 32 + columns;
    Tensor acc = zeros<f32>({BATCH, 32, 32});
    for_range(0, cdiv(K, BLOCK_K), 1, carry(acc, aTile, bTile), [&](Int k) {
      Tensor kLeft = K - k * BLOCK_K;
      acc = dot(load(aTile, ks < kLeft, 0), load(bTile, kRows < kLeft, 0), acc);
      aTile = aTile + BLOCK_K;
      bTile = bTile + BLOCK_K * 32;
    });
    store(c + q * 1024 + rows * 32 + columns, acc, q < batches);
  });
}

template <ElementTag T> void checkBatchedMatmul(const runtime::Device &device, double tolerance) {
  const int batches = 5, K = 40;
  using Memory = examples::host::Memory<T>;
  std::vector<float> a = examples::host::randomFloats(batches * 32 * K), b = examples::host::randomFloats(batches * 32 * K);
  std::vector<typename Memory::Stored> aStored, bStored;
  for (float &v : a)
    aStored.push_back(Memory::from(v)), v = Memory::to(aStored.back());
  for (float &v : b)
    bStored.push_back(Memory::from(v)), v = Memory::to(bStored.back());
  auto dA = examples::host::upload(device, aStored), dB = examples::host::upload(device, bStored);
  auto c = examples::host::poisoned(device, batches * 1024 * 4);
  ASSERT_TRUE(dA && dB && c);
  ASSERT_FALSE(batchedMatmul<T>().launch(Grid{3}, LaunchOptions{.device = &device}, *c, *dA, *dB, batches, K, 2, 16));
  std::string failure;
  auto got = examples::host::download<float>(*c, batches * 1024, failure);
  ASSERT_TRUE(failure.empty()) << failure;
  for (int q = 0; q < batches; ++q)
    for (int i = 0; i < 32; ++i)
      for (int j = 0; j < 32; ++j) {
        double expected = 0, magnitude = 0;
        for (int p = 0; p < K; ++p) {
          double product = double(a[q * 32 * K + i * K + p]) * double(b[q * 32 * K + p * 32 + j]);
          expected += product, magnitude += std::abs(product);
        }
        ASSERT_NEAR(got[q * 1024 + i * 32 + j], expected, tolerance * (1 + magnitude)) << q << ": " << i << "," << j;
      }
}

TEST_P(Examples, BatchedMatmulLoopsOverKOnTensorCores) {
  checkBatchedMatmul<f16>(device(), 1e-5);
  checkBatchedMatmul<bf16>(device(), 1e-5);
  checkBatchedMatmul<f32>(device(), 2e-3); // tf32 operands: 10 mantissa bits
}

// Named by where they run: Gpu/Examples.VectorAdd/Gpu, Interpreter/Examples.VectorAdd/Interpreter.
std::string whereName(const ::testing::TestParamInfo<Where> &info) {
  return info.param == Where::Gpu ? "Gpu" : "Interpreter";
}
void PrintTo(Where where, std::ostream *os) { *os << (where == Where::Gpu ? "Gpu" : "Interpreter"); }
INSTANTIATE_TEST_SUITE_P(Gpu, Examples, ::testing::Values(Where::Gpu), whereName);
INSTANTIATE_TEST_SUITE_P(Interpreter, Examples, ::testing::Values(Where::Interpreter), whereName);

TEST(ExamplesOnGpu, InlineAsmRunsThePtxPerElement) {
  std::string why;
  const runtime::Device *gpu = deviceFor(Where::Gpu, &why);
  if (!gpu)
    GTEST_SKIP() << why;
  auto kernel = brick::kernel("rotate_add", [](Ptr<i32> out, Ptr<i32> in, Int n, Const<int> BLOCK) {
    Tensor i = program_id(0) * BLOCK + arange(0, BLOCK);
    Tensor x = load(in + i, i < n);
    Tensor rotated = inline_asm_elementwise("shf.l.wrap.b32 $0, $1, $1, $2;", "=r,r,r", {x, 8}, DType::I32);
    std::vector<Tensor> sumAndCarry = inline_asm_elementwise(
        "add.cc.u32 $0, $2, $3;\n\taddc.u32 $1, 0, 0;", "=r,=r,r,r", {rotated, x}, {DType::I32, DType::I32});
    store(out + i, sumAndCarry[0] ^ (sumAndCarry[1] << 31), i < n);
  });
  const int n = 1000;
  std::vector<int32_t> in(n);
  for (int i = 0; i < n; ++i)
    in[i] = int32_t(uint32_t(i) * 2654435761u);
  auto dIn = examples::host::upload(*gpu, in.data(), in.size() * 4);
  auto out = examples::host::poisoned(*gpu, n * 4);
  ASSERT_TRUE(dIn && out);
  ASSERT_FALSE(kernel.launch(Grid{4}, LaunchOptions{}, *out, *dIn, n, 256));
  std::string failure;
  auto got = examples::host::download<int32_t>(*out, n, failure);
  ASSERT_TRUE(failure.empty()) << failure;
  for (int i = 0; i < n; ++i) {
    uint32_t x = uint32_t(in[i]), rotated = (x << 8) | (x >> 24);
    uint64_t sum = uint64_t(rotated) + x;
    ASSERT_EQ(uint32_t(got[i]), uint32_t(sum) ^ (uint32_t(sum >> 32) << 31)) << i;
  }
}

// One thread drives two GPUs: buffers, streams and launches land on the device they name, not on whichever was
// opened or used last, and one kernel object keeps a loaded kernel for each device. (Without peer access a
// kernel reading another GPU's memory faults, so a buffer on the wrong device fails the launch.) Results are
// read back at the end, from either device's context.
TEST(ExamplesOnGpu, OneThreadDrivesEachOfTwoGpus) {
  if (runtime::Device::interpretRequested() || runtime::Device::count() < 2)
    GTEST_SKIP() << "needs two GPUs; the driver sees " << runtime::Device::count();
  auto first = runtime::Device::get(0), second = runtime::Device::get(1); // device 1's context is now current
  ASSERT_TRUE(first.ok() && second.ok());
  auto kernel = examples::vectorAdd();
  const int n = 1 << 20;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i)
    x[i] = float(i % 1000), y[i] = float(i % 7) * 0.5f;
  struct Run {
    const runtime::Device *gpu;
    runtime::DeviceBuffer out;
  };
  std::vector<Run> runs;
  std::vector<runtime::DeviceBuffer> inputs;
  for (int round = 0; round < 2; ++round)
    for (const runtime::Device *gpu : {&*first, &*second}) {
      auto dx = examples::host::upload(*gpu, x), dy = examples::host::upload(*gpu, y);
      auto out = examples::host::poisoned(*gpu, size_t(n) * 4);
      auto stream = runtime::Stream::create(*gpu);
      ASSERT_TRUE(dx && dy && out && stream.ok());
      LaunchOptions options;
      options.device = gpu;
      options.stream = &*stream;
      runtime::Error error = kernel.launch(Grid{unsigned(n / 1024)}, options, *dx, *dy, *out, n, 1024);
      ASSERT_FALSE(error) << "device " << gpu->ordinal() << ", round " << round << ": " << error.message();
      ASSERT_FALSE(stream->synchronize());
      runs.push_back({gpu, std::move(*out)});
      inputs.push_back(std::move(*dx));
      inputs.push_back(std::move(*dy));
    }
  for (const Run &run : runs) {
    std::string failure;
    auto got = examples::host::download<float>(run.out, size_t(n), failure);
    ASSERT_TRUE(failure.empty()) << "device " << run.gpu->ordinal() << ": " << failure;
    for (int i = 0; i < n; ++i)
      ASSERT_EQ(got[i], x[i] + y[i]) << "device " << run.gpu->ordinal() << ", element " << i;
  }
}

// Grid::persistent through the JIT: the programs it launches (whole clusters) are all resident at once. Each adds
// itself to a counter and then watches it; a program that never sees the final count ran in a later wave.
TEST(ExamplesOnGpu, APersistentGridIsResidentAtOnce) {
  std::string why;
  const runtime::Device *gpu = deviceFor(Where::Gpu, &why);
  if (!gpu)
    GTEST_SKIP() << why;
  auto kernel = brick::kernel("rendezvous", [](Ptr<i32> counter, Ptr<i32> seen, Ptr<i32> programs, Int spins) {
    Tensor one = arange(0, 1) * 0;
    atomic_add(counter + one, 1);
    Tensor most = zeros<i32>({1});
    for_range(0, spins, 1, carry(most), [&](Int) { most = maximum(most, atomic_add(counter + one, 0)); });
    store(seen + program_id(0) + one, most);
    store(programs + one, zeros<i32>({1}) + num_programs(0));
  });
  const int capacity = 1 << 16;
  std::vector<unsigned> clusters = {1u};
  if (gpu->computeCapability() >= 90)
    clusters.push_back(4u);
  for (unsigned cluster : clusters) {
    std::vector<int32_t> zero = {0};
    auto counter = examples::host::upload(*gpu, zero), programs = examples::host::upload(*gpu, zero);
    auto seen = examples::host::poisoned(*gpu, capacity * 4);
    ASSERT_TRUE(counter && programs && seen);
    LaunchOptions options{.numWarps = 1};
    options.clusterSize = cluster;
    ASSERT_FALSE(kernel.launch(Grid::persistent(1u << 30), options, *counter, *seen, *programs, 4000));
    std::string failure;
    int32_t launched = examples::host::download<int32_t>(*programs, 1, failure)[0];
    int32_t total = examples::host::download<int32_t>(*counter, 1, failure)[0];
    ASSERT_TRUE(failure.empty()) << failure;
    ASSERT_GT(launched, 0);
    ASSERT_LE(launched, capacity);
    EXPECT_EQ(launched % int32_t(cluster), 0) << "clusters of " << cluster;
    EXPECT_GE(launched, gpu->multiprocessors() / 2) << "clusters of " << cluster << ": a small kernel fills the GPU";
    auto values = examples::host::download<int32_t>(*seen, size_t(launched), failure);
    ASSERT_TRUE(failure.empty()) << failure;
    int late = int(std::count_if(values.begin(), values.end(), [&](int32_t v) { return v != total; }));
    EXPECT_EQ(late, 0) << "clusters of " << cluster << ": of " << launched << " programs " << late
                       << " did not see all of them arrive";
  }
}

TEST(ExamplesOnGpu, ZeroRowsFromSkipsWholeWarpgroupTilesOnWgmma) {
  std::string why;
  const runtime::Device *gpu = deviceFor(Where::Gpu, &why);
  if (!gpu)
    GTEST_SKIP() << why;
  if (gpu->computeCapability() != 90)
    GTEST_SKIP() << "wgmma (sm_90a) skips; other paths compute every row";
  // a's row r is all r + 1 and b all ones, so the promise is broken on purpose: computing row r gives 64 (r + 1).
  // A row of a tile that skipped its wgmmas is unspecified but not that: it is the accumulator, 0, or whatever
  // the registers held (on an H200 with 4 warps and a all ones, 1792 of the skipped tile's 4096 elements held 64,
  // what the live tile's rows held, so rows of one value could not tell them apart). So each row shows whether
  // its tile issued wgmmas: rows of tiles with a row below `rows` are their product, the others not.
  auto kernel = brick::kernel("zero_rows", [](Ptr<f16> a, Ptr<f16> b, Ptr<f32> out, Int rows) {
    Tensor m = arange(0, 128), n = arange(0, 64), k = arange(0, 64);
    Tensor x = load(a + m.column() * 64 + k.row()), y = load(b + k.column() * 64 + n.row());
    store(out + m.column() * 64 + n.row(), dot(x, y, zeros<f32>({128, 64}), ZeroRowsFrom{rows}));
  });
  std::vector<uint16_t> rowValues(128 * 64), ones(64 * 64, brick::floatToHalf(1.0f));
  for (int i = 0; i < 128 * 64; ++i)
    rowValues[i] = brick::floatToHalf(float(i / 64 + 1)); // integers up to 2048 are exact in f16
  auto a = examples::host::upload(*gpu, rowValues.data(), rowValues.size() * 2);
  auto b = examples::host::upload(*gpu, ones.data(), ones.size() * 2);
  auto out = examples::host::poisoned(*gpu, 128 * 64 * 4);
  ASSERT_TRUE(a && b && out);
  // 4 warps: one warpgroup over two M tiles (rows 0-63, 64-127); 8: two warpgroups, a tile each.
  for (unsigned warps : {8u, 4u})
    for (int rows : {0, 1, 64, 65, 128}) {
      ASSERT_FALSE(kernel.launch(Grid{1}, LaunchOptions{.numWarps = warps}, *a, *b, *out, rows));
      std::string failure;
      auto got = examples::host::download<float>(*out, 128 * 64, failure);
      ASSERT_TRUE(failure.empty()) << failure;
      int wrong = 0, first = -1;
      for (int i = 0; i < 128 * 64; ++i)
        if ((got[i] == 64.0f * float(i / 64 + 1)) != (i / 64 / 64 * 64 < rows) && wrong++ == 0)
          first = i;
      EXPECT_EQ(wrong, 0) << warps << " warps, rows " << rows << ": first wrong element " << first << " = "
                          << (first >= 0 ? got[first] : 0.0f);
    }
}

TEST(ExamplesOnGpu, PackedInlineAsmKeepsEveryElementsPlace) {
  std::string why;
  const runtime::Device *gpu = deviceFor(Where::Gpu, &why);
  if (!gpu)
    GTEST_SKIP() << why;
  // Two f32 in and one register of two f16 out (element 0 in the low half); four i8 in one register each way.
  auto kernel = brick::kernel("packed", [](Ptr<f16> half, Ptr<i8> bytes, Ptr<f32> in, Int n, Const<int> BLOCK) {
    Tensor i = program_id(0) * BLOCK + arange(0, BLOCK);
    Tensor x = load(in + i, i < n);
    store(half + i, inline_asm_elementwise("cvt.rn.f16x2.f32 $0, $2, $1;", "=r,r,r", {x}, DType::F16, true, 2), i < n);
    Tensor b = load(bytes + i, i < n);
    store(bytes + i, inline_asm_elementwise("and.b32 $0, $1, 0x7f7f7f7f;", "=r,r", {b}, DType::I8, true, 4), i < n);
  });
  const int n = 1001;
  std::vector<float> in(n);
  std::vector<int8_t> bytes(n);
  for (int i = 0; i < n; ++i)
    in[i] = (i - 500) * 0.3719f, bytes[i] = int8_t(i * 37);
  // 1024: 8 elements a thread, whole invocations; 32: one element a thread (the block repeated over 4 warps), so
  // every invocation is padded.
  for (int block : {1024, 32}) {
    auto dIn = examples::host::upload(*gpu, in);
    auto dBytes = examples::host::upload(*gpu, bytes.data(), bytes.size());
    auto dHalf = examples::host::poisoned(*gpu, n * 2);
    ASSERT_TRUE(dIn && dBytes && dHalf);
    ASSERT_FALSE(kernel.launch(Grid{unsigned((n + block - 1) / block)}, LaunchOptions{}, *dHalf, *dBytes, *dIn, n,
                               block));
    std::string failure;
    auto half = examples::host::download<uint16_t>(*dHalf, n, failure);
    auto masked = examples::host::download<int8_t>(*dBytes, n, failure);
    ASSERT_TRUE(failure.empty()) << failure;
    for (int i = 0; i < n; ++i) {
      ASSERT_EQ(half[i], brick::floatToHalf(in[i])) << "block " << block << ", element " << i;
      ASSERT_EQ(masked[i], int8_t(bytes[i] & 0x7f)) << "block " << block << ", element " << i;
    }
  }
}

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

/// Random f16 operands of C = A * B (A m x k, B k x n, row-major) on `gpu`, and C poisoned.
struct F16Product {
  std::vector<float> a, b;
  runtime::Expected<runtime::DeviceBuffer> da, db, dc;
  F16Product(const runtime::Device &gpu, int m, int n, int k)
      : a(examples::host::randomFloats(size_t(m) * k)), b(examples::host::randomFloats(size_t(k) * n)),
        da(examples::host::upload(gpu, examples::host::toMemory<f16>(a))),
        db(examples::host::upload(gpu, examples::host::toMemory<f16>(b))),
        dc(examples::host::poisoned(gpu, size_t(m) * n * 2)) {}
  bool uploaded() const { return da && db && dc; }
};

/// The relative error of 256 sampled elements of an f16 C = A * B (A m x k, B k x n, row-major, rounded to f16
/// as uploaded) against float64.
double sampledMatmulError(const std::vector<float> &a, const std::vector<float> &b, const runtime::DeviceBuffer &dc,
                          int m, int n, int k) {
  std::vector<uint16_t> c(size_t(m) * n);
  if (dc.copyToHost(c.data(), c.size() * 2))
    return INFINITY;
  double diff = 0, norm = 0;
  for (int s = 0; s < 256; ++s) {
    int i = (s * 37) % m, j = (s * 101) % n;
    double ref = 0;
    for (int p = 0; p < k; ++p)
      ref += double(halfToFloat(floatToHalf(a[size_t(i) * k + p]))) * halfToFloat(floatToHalf(b[size_t(p) * n + j]));
    double got = halfToFloat(c[size_t(i) * n + j]);
    diff += (got - ref) * (got - ref);
    norm += ref * ref;
  }
  return std::sqrt(diff / norm);
}

TEST(ExamplesOnGpu, AutotunerTimesOnTheDeviceSkipsWhatCannotRunAndRemembers) {
  std::string why;
  const runtime::Device *gpu = deviceFor(Where::Gpu, &why);
  if (!gpu)
    GTEST_SKIP() << why;
  // 512^3 f16: a 128x128x32 tile runs anywhere; 256x256x128 tiles over 4 stages need about 512 KB of shared memory;
  // 64 warps are no launch.
  std::vector<TuningConfig> configs = {{{128, 128, 32, 8}, 4, 3}, {{64, 64, 32, 8}, 4, 3},
                                       {{256, 256, 128, 8}, 16, 4}, {{64, 64, 32, 8}, 64, 2}};
  const int m = 512, n = 512, k = 512;
  F16Product product(*gpu, m, n, k);
  ASSERT_TRUE(product.uploaded());
  auto &[a, b, da, db, dc] = product;
  auto grid = [&](const TuningConfig &c) {
    return Grid{unsigned(((m + c.get(0) - 1) / c.get(0)) * ((n + c.get(1) - 1) / c.get(1)))};
  };
  auto tuneOnce = [&] {
    auto tuned = autotune(examples::matmul<f16>(), configs, TuningKey{{3, 4, 5}});
    EXPECT_FALSE(tuned.launch(grid, LaunchOptions{}, *da, *db, *dc, m, n, k, k, 1, n, 1, n, 1, fromConfig, fromConfig,
                              fromConfig, fromConfig));
    return tuned.tunings().at(0);
  };
  Tuning first = tuneOnce();
  ASSERT_EQ(first.how, "tuned");
  EXPECT_GT(first.trials[0].milliseconds, 0) << first.str();
  EXPECT_GT(first.trials[1].milliseconds, 0) << first.str();
  EXPECT_THAT_SKIPPED(first.trials[2], "shared memory");
  EXPECT_THAT_SKIPPED(first.trials[3], "power of two");
  EXPECT_LT(first.chosen, 2u);
  // The result is the chosen config's, on the buffers as given.
  EXPECT_LT(sampledMatmulError(a, b, *dc, m, n, k), 2e-3);
  Tuning second = tuneOnce(); // a new tuner: the choice comes from the disk entry
  EXPECT_EQ(second.how, "reused");
  EXPECT_EQ(second.chosen, first.chosen);
}

// matmulPersistent's candidates on an H100 include warp-specialized tiles, alone and in clusters of 2: every one of
// them compiles, launches and is timed (none skipped), and the chosen one's result is right.
TEST(ExamplesOnGpu, PersistentMatmulTunesOverWarpSpecializedAndClusteredConfigs) {
  std::string why;
  const runtime::Device *gpu = deviceFor(Where::Gpu, &why);
  if (!gpu)
    GTEST_SKIP() << why;
  if (gpu->computeCapability() != 90)
    GTEST_SKIP() << "warp-specialized and clustered candidates are sm_90a's";
  std::vector<TuningConfig> configs;
  for (const examples::MatmulConfig &config : examples::matmulPersistentCandidates(2, 90))
    if (config.blockM != 16)
      configs.push_back(examples::tuningConfig(config));
  ASSERT_GE(std::count_if(configs.begin(), configs.end(), [](const TuningConfig &c) { return c.clusterSize == 2; }), 2);
  const int m = 1000, n = 1000, k = 1000;
  F16Product product(*gpu, m, n, k);
  ASSERT_TRUE(product.uploaded());
  auto &[a, b, da, db, dc] = product;
  auto programs = [&](const TuningConfig &c) { return examples::persistentGrid(c, m, n); };
  AutotuneOptions options;
  options.persist = false;
  auto tuned = autotune(examples::matmulPersistent<f16>(), configs, TuningKey{{3, 4, 5}}, options);
  ASSERT_FALSE(tuned.launch(programs, LaunchOptions{},
                            TensorDescriptorArg::of(*da, {m, k}, {k, 1}, {}).blocksFromConfig({0, 2}),
                            TensorDescriptorArg::of(*db, {k, n}, {n, 1}, {}).blocksFromConfig({2, 1}),
                            TensorDescriptorArg::of(*dc, {m, n}, {n, 1}, {}).blocksFromConfig({0, 1}), m, n, k,
                            fromConfig, fromConfig, fromConfig, fromConfig));
  Tuning tuning = tuned.tunings().at(0);
  for (const TuningTrial &trial : tuning.trials)
    EXPECT_GT(trial.milliseconds, 0) << trial.config.str() << ": " << trial.skipped;
  EXPECT_LT(sampledMatmulError(a, b, *dc, m, n, k), 2e-3) << "chosen: " << tuning.trials[tuning.chosen].config.str();
}

// The examples' host-side random numbers (inputs, weights, MoE router logits) follow BRICK_SEED, so that two runs
// of the bench compute the same MoE routing; a value that is not a 32-bit unsigned integer is not taken.
TEST(ExamplesHost, RandomSeedComesFromBrickSeed) {
  const char *saved = std::getenv("BRICK_SEED");
  std::string restore = saved ? saved : "";
  ::setenv("BRICK_SEED", "42", 1);
  EXPECT_EQ(examples::host::randomSeed(), 42u);
  ::setenv("BRICK_SEED", "4294967295", 1);
  EXPECT_EQ(examples::host::randomSeed(), 4294967295u);
  // Not taken: each of these would otherwise be read as some number (strtoull gives 0, 12, wraps -1, skips the
  // blank and the sign).
  for (const char *bad : {"abc", "12x", "-1", "4294967296", " 42", "+42"}) {
    ::setenv("BRICK_SEED", bad, 1);
    std::set<std::mt19937::result_type> seeds;
    for (int i = 0; i < 4; ++i)
      seeds.insert(examples::host::randomSeed());
    EXPECT_GT(seeds.size(), 1u) << "BRICK_SEED=" << bad << " gave the same seed four times";
  }
  if (saved)
    ::setenv("BRICK_SEED", restore.c_str(), 1);
  else
    ::unsetenv("BRICK_SEED");
}

} // namespace
