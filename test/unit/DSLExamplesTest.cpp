//===- DSLExamplesTest.cpp - Every example kernel builds and verifies ----------===//

#include "DSLTestUtils.h"
#include "matmul.h"
#include "moe.h"
#include "softmax.h"
#include "vector_add.h"

using namespace brick;
using brick::testing::countOps;

namespace {

TEST(Examples, VectorAddBuildsForSeveralBlockSizes) {
  for (int block : {128, 1024, 4096}) {
    BuildResult result = examples::vectorAdd().build({dyn, dyn, dyn, dyn, block});
    ASSERT_TRUE(result.ok()) << result.errors();
    EXPECT_NE(result.ir().find("tensor<" + std::to_string(block) + "xf32>"), std::string::npos);
  }
  auto ops = countOps(examples::vectorAdd(), {dyn, dyn, dyn, dyn, 1024});
  EXPECT_EQ(ops["brick.load"], 2);
  EXPECT_EQ(ops["brick.store"], 1);
  EXPECT_EQ(ops["arith.addf"], 1);
}

TEST(Examples, SoftmaxBuildsForEachElementType) {
  for (const BuildResult &result :
       {examples::softmax<f32>().build({dyn, dyn, dyn, dyn, dyn, dyn, 1024, 1}),
        examples::softmax<bf16>().build({dyn, dyn, dyn, dyn, dyn, dyn, 4096, 2}),
        examples::softmax<f16>().build({dyn, dyn, dyn, dyn, dyn, dyn, 256, 4})})
    ASSERT_TRUE(result.ok()) << result.errors();
  auto ops = countOps(examples::softmax<bf16>(), {dyn, dyn, dyn, dyn, dyn, dyn, 4096, 2});
  EXPECT_EQ(ops["brick.reduce"], 2); // max, then sum
  EXPECT_EQ(ops["math.exp"], 1);
  EXPECT_EQ(ops["arith.extf"], 1);   // bf16 -> f32 after the load
  EXPECT_EQ(ops["arith.truncf"], 1); // f32 -> bf16 before the store
}

TEST(Examples, SoftmaxConfigGivesEachWarpAbout2KB) {
  auto config = [](int cols, int bytes) {
    examples::SoftmaxConfig c = examples::softmaxConfig(cols, bytes);
    return std::tuple{c.block, c.rows, c.warps};
  };
  EXPECT_EQ(config(1024, 4), std::tuple(1024, 1, 2u));
  EXPECT_EQ(config(4096, 4), std::tuple(4096, 1, 8u));
  EXPECT_EQ(config(3000, 2), std::tuple(4096, 1, 4u));
  EXPECT_EQ(config(16384, 4), std::tuple(16384, 1, 16u)); // at most 16 warps
  EXPECT_EQ(config(256, 4), std::tuple(256, 2, 2u));      // short rows share a program, a warp each
  EXPECT_EQ(config(256, 2), std::tuple(256, 4, 4u));
  EXPECT_EQ(config(1, 2), std::tuple(1, 4, 4u));
  EXPECT_EQ(examples::softmaxConfig(1000, 4).programs(8192), 8192u);
  EXPECT_EQ(examples::softmaxConfig(256, 2).programs(8193), 2049u);
  EXPECT_EQ(examples::softmaxConfig(256, 2).programs(8192, 132), 132u);
}

TEST(Examples, MatmulBuildsForEachInputType) {
  Specialization tiles = {dyn, dyn, dyn, dyn, dyn, dyn, dyn, dyn, dyn, dyn, dyn, dyn, 128, 128, 64, 8};
  ASSERT_TRUE(examples::matmul<f16>().build(tiles).ok());
  ASSERT_TRUE(examples::matmul<bf16>().build(tiles).ok());
  BuildResult fp32 = examples::matmul<f32>().build(tiles);
  ASSERT_TRUE(fp32.ok()) << fp32.errors();
  EXPECT_NE(fp32.ir().find("inputPrecision = tf32"), std::string::npos);
  auto ops = countOps(examples::matmul<f16>(), tiles);
  EXPECT_EQ(ops["scf.for"], 1);
  EXPECT_EQ(ops["brick.dot"], 1);
  EXPECT_EQ(ops["brick.load"], 2);
  EXPECT_EQ(ops["brick.store"], 1);
}

// Tiles of many rows wrap A's rows around (% M, as B's columns % N); decode tiles (16 rows) mask them instead.
TEST(Examples, MatmulDecodeTilesMaskRowsOfA) {
  Specialization tiles = {dyn, dyn, dyn, dyn, dyn, dyn, dyn, dyn, dyn, dyn, dyn, dyn, 128, 128, 64, 8};
  Specialization decode = tiles;
  decode[12] = 16, decode[13] = 64, decode[14] = 128, decode[15] = 1;
  auto wrapped = countOps(examples::matmul<f16>(), tiles), masked = countOps(examples::matmul<f16>(), decode);
  EXPECT_EQ(masked["arith.remsi"], wrapped["arith.remsi"] - 1);
  EXPECT_EQ(masked["arith.andi"], wrapped["arith.andi"] + 1); // A's row mask and its K mask
}

// The persistent matmul's candidates: on sm_90a with 16-bit inputs its two-warpgroup tiles (256x128 and 128x256
// over 4 stages) again warp-specialized, alone and in clusters of 2, and the 128x256 ones with GROUP_M = 16 too;
// elsewhere the other kernels' list. Its clusters share the larger block: A's where BLOCK_M >= BLOCK_N, B's
// otherwise.
TEST(Examples, PersistentMatmulCandidatesAndTheBlockItsClustersShare) {
  std::vector<examples::MatmulConfig> hopper = examples::matmulPersistentCandidates(2, 90);
  ASSERT_EQ(hopper.size(), examples::matmulCandidates(2, 90).size() + 6);
  int specialized = 0, clustered = 0, wideGroups = 0;
  for (const examples::MatmulConfig &config : hopper) {
    specialized += config.warpSpecialize;
    clustered += config.clusterSize == 2;
    wideGroups += config.groupM == 16;
    if (config.clusterSize != 1)
      EXPECT_TRUE(config.warpSpecialize && config.warps == 8 && config.blockM * config.blockN == 256 * 128);
    if (config.groupM == 16)
      EXPECT_TRUE(config.warpSpecialize && config.blockM == 128 && config.blockN == 256);
  }
  EXPECT_EQ(specialized, 6);
  EXPECT_EQ(clustered, 3);
  EXPECT_EQ(wideGroups, 2);
  EXPECT_EQ(examples::matmulPersistentCandidates(2, 80).size(), examples::matmulCandidates(2, 80).size());
  EXPECT_EQ(examples::matmulPersistentCandidates(4, 90).size(), examples::matmulCandidates(4, 90).size());
  auto sharedOperand = [](int blockM, int blockN) {
    Specialization tiles = {Arg::descriptor({blockM, 64}), Arg::descriptor({64, blockN}),
                            Arg::descriptor({blockM, blockN}), dyn, dyn, dyn, blockM, blockN, 64, 8};
    BuildResult built = examples::matmulPersistent<f16>().build(tiles);
    EXPECT_TRUE(built.ok()) << built.errors();
    std::string ir = built.ir();
    size_t shared = ir.find("shared_by_cluster");
    EXPECT_EQ(ir.find("shared_by_cluster", shared + 1), std::string::npos) << ir;
    size_t line = ir.rfind('\n', shared), end = ir.find('\n', shared);
    return shared == std::string::npos ? std::string() : ir.substr(line + 1, end - line - 1);
  };
  // The shared load's block: A's is BLOCK_M x 64, B's 64 x BLOCK_N.
  EXPECT_NE(sharedOperand(256, 128).find("-> tensor<256x64xf16>"), std::string::npos) << sharedOperand(256, 128);
  EXPECT_NE(sharedOperand(128, 256).find("-> tensor<64x256xf16>"), std::string::npos) << sharedOperand(128, 256);
}

TEST(Examples, MoeLayerBuilds) {
  Specialization gemm(22, dyn);
  gemm[18] = 16, gemm[19] = 64, gemm[20] = 128, gemm[21] = 1; // BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M
  auto gateUp = countOps(examples::moeGateUp<bf16>(), gemm);
  EXPECT_EQ(gateUp["brick.dot"], 2);  // gate and up share A's block
  EXPECT_EQ(gateUp["brick.load"], 8); // the block's run (2), total, pair ids, block expert, A, gate, up
  EXPECT_EQ(gateUp["brick.store"], 1);
  Specialization downGemm(23, dyn);
  downGemm[19] = 16, downGemm[20] = 64, downGemm[21] = 128, downGemm[22] = 1; // after hSortedRows
  auto down = countOps(examples::moeDown<bf16>(), downGemm);
  EXPECT_EQ(down["brick.dot"], 1);
  EXPECT_EQ(down["brick.load"], 8); // the block's run (2), total, pair ids, block expert, h, w2, routing weights
  Specialization route(14, dyn);
  route[8] = 8, route[9] = 2, route[10] = 16, route[11] = 0, route[12] = 0, route[13] = 1; // E, TOPK, BLOCK_T, SIGMOID, HAS_BIAS, RENORMALIZE
  auto routing = countOps(examples::moeRoute<bf16>(), route);
  EXPECT_GT(routing["brick.reduce"], 0);
  EXPECT_EQ(routing["brick.store"], 3 * 2 + 1); // ids, weights and ranks per choice, and the block's counts
  Specialization align(16, dyn);
  align[11] = 8, align[12] = 2, align[13] = 16, align[14] = 64, align[15] = 32;
  auto aligning = countOps(examples::moeAlign(), align);
  EXPECT_EQ(aligning["scf.if"], 2);  // the last program's padding; program 0's block experts, runs and total
  EXPECT_EQ(aligning["scf.for"], 3); // counts over routing programs, padding slots, blocks
  EXPECT_EQ(aligning["brick.gather"], 4); // each pair's expert start; each block's run's first and end, its real rows
}

TEST(Examples, SpecializationHintsReachTheIR) {
  Arg aligned = Arg::divisibleBy(16);
  BuildResult result = examples::vectorAdd().build({aligned, dyn, dyn, Arg::equalToOne(), 256});
  ASSERT_TRUE(result.ok()) << result.errors();
  EXPECT_NE(result.ir().find("%arg0: !brick.ptr<f32> {brick.divisibility = 16 : i32}"), std::string::npos);
  EXPECT_EQ(result.ir().find("%arg1: !brick.ptr<f32> {"), std::string::npos);
  // n == 1: the comparison uses the constant, not the argument.
  EXPECT_EQ(result.ir().find("brick.splat %arg3"), std::string::npos);
}

} // namespace
