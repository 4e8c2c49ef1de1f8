//===- matmul.h - C = A * B, tiled, with dot over a K loop and grouped program order ---===//
#ifndef BRICK_EXAMPLES_MATMUL_H
#define BRICK_EXAMPLES_MATMUL_H

#include "brick/brick.h"
#include "brick/JIT/Autotune.h"

#include <algorithm>
#include <vector>

#include <type_traits>

namespace examples {
using namespace brick;

/// C (M x N, elements Out) = A (M x K) * B (K x N), elements T: f16, bf16, f32 or i8. Any strides: a transposed
/// operand is only other strides. The product accumulates in f32 (i32 for i8); f32 inputs multiply as
/// `precision` says (tf32 tensor cores by default, as in Triton; tf32x3; or exact FMAs with IEEE).
///
/// Launch with cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N) programs. Programs run in groups of GROUP_M rows of tiles, so
/// consecutive programs share tiles of B in L2. The compiler puts the dot on tensor cores and prefetches the
/// tiles of A and B num_stages - 1 iterations ahead.
template <ElementTag T = f16, ElementTag Out = T> auto matmul(Precision precision = Precision::TF32) {
  using Accumulator = std::conditional_t<std::is_same_v<T, i8>, i32, f32>;
  return kernel("matmul", [precision](Ptr<T> a, Ptr<T> b, Ptr<Out> c, Int M, Int N, Int K, Int strideAM, Int strideAK,
                                      Int strideBK, Int strideBN, Int strideCM, Int strideCN, Const<int> BLOCK_M,
                                      Const<int> BLOCK_N, Const<int> BLOCK_K, Const<int> GROUP_M) {
    auto [tileM, tileN] = grouped_tile(program_id(0), cdiv(M, BLOCK_M), cdiv(N, BLOCK_N), GROUP_M);

    // Columns of B wrap around (% N) so that its loads stay in bounds with no mask; the store masks them instead.
    // Rows of A wrap too (% M) in tiles of many rows, where a row mask costs an instruction per copy in the K loop.
    // Decode tiles (16 rows, matmulConfig's for at most 16 rows) mask them: wrapped, a one-row A is read 16 times
    // over by every program, at the same addresses at once. Both measured: docs/performance.md, "Matmul in f16 and
    // bf16".
    const bool maskRowsA = BLOCK_M <= 16;
    Tensor rowsA = tileM * BLOCK_M + arange(0, BLOCK_M);
    if (!maskRowsA)
      rowsA = rowsA % M;
    Tensor colsB = (tileN * BLOCK_N + arange(0, BLOCK_N)) % N;
    Tensor ks = arange(0, BLOCK_K);
    Tensor aTile = a + rowsA.column() * strideAM + ks.row() * strideAK;
    Tensor bTile = b + ks.column() * strideBK + colsB.row() * strideBN;
    Tensor acc = zeros<Accumulator>({BLOCK_M, BLOCK_N});
    for_range(0, cdiv(K, BLOCK_K), 1, carry(acc, aTile, bTile), [&](Int k) {
      Tensor kLeft = K - k * BLOCK_K;
      Tensor inK = ks.row() < kLeft;
      acc = dot(load(aTile, maskRowsA ? (rowsA.column() < M) & inK : inK, 0), load(bTile, ks.column() < kLeft, 0),
                acc, precision);
      aTile = aTile + BLOCK_K * strideAK;
      bTile = bTile + BLOCK_K * strideBK;
    });

    Tensor rowsC = tileM * BLOCK_M + arange(0, BLOCK_M);
    Tensor colsC = tileN * BLOCK_N + arange(0, BLOCK_N);
    store(c + rowsC.column() * strideCM + colsC.row() * strideCN, acc, (rowsC.column() < M) & (colsC.row() < N));
  });
}

/// The same product through tensor descriptors: A (M x K), B (K x N) and C (M x N), each contiguous along its
/// rows with row strides of whole 16-byte units; the descriptors' blocks are BLOCK_M x BLOCK_K, BLOCK_K x
/// BLOCK_N and BLOCK_M x BLOCK_N. Blocks reaching past an edge read zeros and write nothing there, so the K tail
/// and ragged M and N need no masks. Launch with cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N) programs.
template <ElementTag T = f16, ElementTag Out = T> auto matmulDescriptors(Precision precision = Precision::TF32) {
  using Accumulator = std::conditional_t<std::is_same_v<T, i8>, i32, f32>;
  return kernel("matmul_descriptors", [precision](TensorDescriptor<T, 2> a, TensorDescriptor<T, 2> b,
                                                  TensorDescriptor<Out, 2> c, Int M, Int N, Int K, Const<int> BLOCK_M,
                                                  Const<int> BLOCK_N, Const<int> BLOCK_K, Const<int> GROUP_M) {
    auto [tileM, tileN] = grouped_tile(program_id(0), cdiv(M, BLOCK_M), cdiv(N, BLOCK_N), GROUP_M);
    Int row = tileM * BLOCK_M, column = tileN * BLOCK_N;
    Tensor acc = zeros<Accumulator>({BLOCK_M, BLOCK_N});
    for_range(0, cdiv(K, BLOCK_K), 1, carry(acc), [&](Int k) {
      acc = dot(a.load({row, k * BLOCK_K}), b.load({k * BLOCK_K, column}), acc, precision);
    });
    c.store({row, column}, acc);
  });
}

/// The same product with B stored N x K (a weight as nn.Linear keeps it: y = x * W^T, rows contiguous along K),
/// through a descriptor of BLOCK_N x BLOCK_K blocks; the dot takes each block transposed. On sm_90a wgmma reads
/// that block in place, from the buffer TMA fills. Launch as matmulDescriptors.
template <ElementTag T = f16, ElementTag Out = T> auto matmulDescriptorsTransposedB(Precision precision = Precision::TF32) {
  using Accumulator = std::conditional_t<std::is_same_v<T, i8>, i32, f32>;
  return kernel("matmul_descriptors_transposed_b", [precision](TensorDescriptor<T, 2> a, TensorDescriptor<T, 2> b,
                                                               TensorDescriptor<Out, 2> c, Int M, Int N, Int K,
                                                               Const<int> BLOCK_M, Const<int> BLOCK_N,
                                                               Const<int> BLOCK_K, Const<int> GROUP_M) {
    auto [tileM, tileN] = grouped_tile(program_id(0), cdiv(M, BLOCK_M), cdiv(N, BLOCK_N), GROUP_M);
    Int row = tileM * BLOCK_M, column = tileN * BLOCK_N;
    Tensor acc = zeros<Accumulator>({BLOCK_M, BLOCK_N});
    for_range(0, cdiv(K, BLOCK_K), 1, carry(acc), [&](Int k) {
      acc = dot(a.load({row, k * BLOCK_K}), b.load({column, k * BLOCK_K}).trans(), acc, precision);
    });
    c.store({row, column}, acc);
  });
}

/// The same product as a persistent kernel: launch as many programs as the GPU runs at once (Grid::persistent); each
/// takes tiles program_id, program_id + num_programs, ... in the grouped order. With warp specialization (sm_90a)
/// the producer warpgroup fills the next tile's slots while the consumers store this one. Launched in clusters
/// (LaunchOptions::clusterSize), a cluster takes C tiles at a time, one per program, that read the same blocks of
/// the larger operand block, which the cluster then loads once (sharedByCluster: TMA multicast in a
/// warp-specialized loop): C tiles side by side in a row of tiles, sharing A's blocks, where BLOCK_M >= BLOCK_N
/// (as cuBLAS's 256x128 tiles in clusters of 1x2); else C consecutive tiles of the grouped order, sharing B's
/// blocks where they lie in one column (a group of GROUP_M rows holds whole clusters).
template <ElementTag T = f16, ElementTag Out = T> auto matmulPersistent(Precision precision = Precision::TF32) {
  using Accumulator = std::conditional_t<std::is_same_v<T, i8>, i32, f32>;
  return kernel("matmul_persistent", [precision](TensorDescriptor<T, 2> a, TensorDescriptor<T, 2> b,
                                                 TensorDescriptor<Out, 2> c, Int M, Int N, Int K, Const<int> BLOCK_M,
                                                 Const<int> BLOCK_N, Const<int> BLOCK_K, Const<int> GROUP_M) {
    Int tilesM = cdiv(M, BLOCK_M), tilesN = cdiv(N, BLOCK_N), tiles = tilesM * tilesN;
    Int C = cluster_size();
    bool shareA = BLOCK_M.value() >= BLOCK_N.value();
    // Every program of the cluster runs as many tiles and K steps, in step: a tile past the last one reads zeros
    // and stores nothing.
    auto product = [&](Int row, Int column, Bool shared) {
      Tensor acc = zeros<Accumulator>({BLOCK_M, BLOCK_N});
      for_range(0, cdiv(K, BLOCK_K), 1, carry(acc), [&](Int k) {
        Tensor aBlock = shareA ? a.load({row, k * BLOCK_K}, sharedByCluster(shared)) : a.load({row, k * BLOCK_K});
        Tensor bBlock = shareA ? b.load({k * BLOCK_K, column}) : b.load({k * BLOCK_K, column}, sharedByCluster(shared));
        acc = dot(aBlock, bBlock, acc, precision);
      });
      c.store({row, column}, acc);
    };
    if (shareA) {
      // The grouped order over runs of C tiles in a row; a run reaching past the last column has dead tiles.
      Int runsN = cdiv(tilesN, C);
      for_range(program_id(0) / C, tilesM * runsN, num_programs(0) / C, [&](Int run) {
        auto [tileM, runN] = grouped_tile(run, tilesM, runsN, GROUP_M);
        Int tileN = runN * C + cluster_rank();
        product(tileM * BLOCK_M, tileN * BLOCK_N, runN * C + C - 1 < tilesN);
      });
      return;
    }
    for_range(program_id(0) / C, cdiv(tiles, C), num_programs(0) / C, [&](Int clusterTile) {
      Int tile = clusterTile * C + cluster_rank();
      Bool real = tile < tiles;
      auto [tileM, tileN] = grouped_tile(minimum(tile, tiles - 1), tilesM, tilesN, GROUP_M);
      Int first = clusterTile * C, last = first + C - 1;
      Bool sameColumn = (last < tiles) & (grouped_tile(first, tilesM, tilesN, GROUP_M).n ==
                                          grouped_tile(last, tilesM, tilesN, GROUP_M).n);
      product(where(real, tileM * BLOCK_M, M), tileN * BLOCK_N, sameColumn);
    });
  });
}

/// How to launch matmul: tile sizes (the kernel's Const parameters), warps and pipeline stages.
struct MatmulConfig {
  int blockM = 128, blockN = 128, blockK = 32, groupM = 8;
  unsigned warps = 4, stages = 4;
  /// LaunchOptions::warpSpecialize: on sm_90a a producer warpgroup issues the TMA copies of matmulDescriptors.
  bool warpSpecialize = false;
  /// LaunchOptions::clusterSize: matmulPersistent's clusters share B's blocks (TMA multicast when warp-specialized).
  unsigned clusterSize = 1;
  unsigned programs(int m, int n) const {
    return unsigned((m + blockM - 1) / blockM) * unsigned((n + blockN - 1) / blockN);
  }
};

/// Hand rules until the autotuner chooses, from `bench/run --matmul-sweep` on an H100. For the code an A100 gets
/// (mma.sync; `capability` 80, or 0 for the interpreter): 128x128 tiles over 4 warps (a 64x64 accumulator per warp),
/// K steps of 32 (64 for i8), 4 stages. With wgmma (sm_90a, `capability` 90), 16-bit inputs: 256x128 tiles over two
/// warpgroups (each a 128x128 accumulator), K steps of 64, 4 stages (192 KB of shared memory). For a few rows
/// (decode), 16 rows and 64 columns per program, so that many programs stream the weights, with K steps of 256
/// bytes over 4 stages (faster than 512 bytes over 3: docs/performance.md, "Matmul in f16 and bf16").
inline MatmulConfig matmulConfig(int m, int n, int k, int elementBytes, unsigned capability = 0) {
  MatmulConfig config;
  if (elementBytes == 1)
    config.blockK = 64;
  if (m <= 16) {
    config.blockM = 16;
    config.blockN = 64;
    config.blockK = 256 / elementBytes;
    config.groupM = 1;
  } else if (capability == 90 && elementBytes == 2) {
    config.blockM = 256;
    config.blockK = 64;
    config.warps = 8;
  }
  (void)n;
  (void)k;
  return config;
}

/// What the matmul examples autotune over (brick/JIT/Autotune.h), for operands of `elementBytes` and code for
/// `capability`: matmulConfig's choices first, then the alternatives the sweeps on an H100 found within a few
/// percent of them (wider N, fewer warps, fewer stages), for decode (16-row tiles) and for the rest.
/// matmulCandidateFits says which suit a problem of `m` rows.
inline std::vector<MatmulConfig> matmulCandidates(int elementBytes, unsigned capability) {
  MatmulConfig decode = matmulConfig(1, 4096, 4096, elementBytes, capability);
  MatmulConfig tiles = matmulConfig(4096, 4096, 4096, elementBytes, capability);
  auto with = [](MatmulConfig config, int blockM, int blockN, int blockK, unsigned warps, unsigned stages) {
    config.blockM = blockM, config.blockN = blockN, config.blockK = blockK, config.warps = warps;
    config.stages = stages;
    return config;
  };
  int k = tiles.blockK;
  std::vector<MatmulConfig> configs = {decode, tiles};
  configs.push_back(with(decode, 16, 128, decode.blockK, 4, 4));
  configs.push_back(with(decode, 16, 32, decode.blockK, 4, 4));
  if (tiles.blockM == 256) { // wgmma: two warpgroups
    configs.push_back(with(tiles, 128, 256, k, 8, 4));
    configs.push_back(with(tiles, 128, 128, k, 8, 4));
    configs.push_back(with(tiles, 256, 128, k, 8, 3));
    configs.push_back(with(tiles, 128, 128, k, 4, 4));
  } else {
    configs.push_back(with(tiles, 128, 128, k, 8, 3));
    configs.push_back(with(tiles, 128, 64, k, 4, 4));
    configs.push_back(with(tiles, 64, 128, k, 4, 4));
    configs.push_back(with(tiles, 64, 64, k, 4, 3));
  }
  return configs;
}
/// What matmulPersistent autotunes over: matmulCandidates, and where wgmma tiles span two warpgroups (sm_90a,
/// 16-bit inputs), 256x128 and 128x256 tiles warp-specialized, alone and in clusters of 2 that share B's blocks; the
/// 128x256 ones also in groups of 16 rows of tiles. Each won at some shapes and not others, so the autotuner picks
/// (docs/performance.md, "Matmul in f16 and bf16").
inline std::vector<MatmulConfig> matmulPersistentCandidates(int elementBytes, unsigned capability) {
  std::vector<MatmulConfig> configs = matmulCandidates(elementBytes, capability);
  size_t plain = configs.size();
  for (size_t i = 0; i < plain; ++i) {
    MatmulConfig config = configs[i];
    if (config.warps != 8 || config.stages != 4 || (config.blockM != 256 && config.blockN != 256))
      continue;
    config.warpSpecialize = true;
    std::vector<int> groups{config.groupM};
    if (config.blockN == 256 && config.groupM != 16)
      groups.push_back(16);
    for (int groupM : groups)
      for (unsigned cluster : {1u, 2u}) {
        config.groupM = groupM, config.clusterSize = cluster;
        configs.push_back(config);
      }
  }
  return configs;
}
/// `config` as the autotuner's TuningConfig: the kernels' Const parameters BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M, then
/// warps, stages, warp specialization and cluster size.
inline TuningConfig tuningConfig(const MatmulConfig &config) {
  return {{config.blockM, config.blockN, config.blockK, config.groupM}, config.warps, config.stages,
          config.warpSpecialize, config.clusterSize};
}
/// matmulPersistent's grid for an M x N product and a config the autotuner tries (BLOCK_M and BLOCK_N its
/// constants 0, 1): one wave (Grid::persistent) over its tiles.
inline Grid persistentGrid(const TuningConfig &config, int64_t m, int64_t n) {
  int64_t tilesM = (m + config.get(0) - 1) / config.get(0), tilesN = (n + config.get(1) - 1) / config.get(1);
  return Grid::persistent(unsigned(tilesM * tilesN));
}
inline bool matmulCandidateFits(const MatmulConfig &config, int m) { return (config.blockM == 16) == (m <= 16); }

} // namespace examples

#endif // BRICK_EXAMPLES_MATMUL_H
