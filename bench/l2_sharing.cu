// l2_sharing: how a Hopper GPU serves one block of global memory to several programs at once, and what TMA
// multicast adds (bench/run --l2-sharing builds it with nvcc on the GPU machine and runs it, then ncu).
//
// Every program (one warp; 192 KB of shared memory, so one per SM) pulls CHUNK bytes per step with bulk copies
// (cp.async.bulk, the engine behind TMA) into a ring of SLOTS shared-memory buffers, ITERS steps, in clusters
// of C programs; a cluster barrier every step keeps a cluster's programs in step (and lets a peer's multicast
// refill a slot). Which chunk a program pulls at step i:
//   distinct   every program its own chunk (no two programs read one chunk within a step; a 16 MB source of 512
//              chunks does come back to a chunk within the ring's 6 steps in flight: program p at step i reads
//              what p - 16 reads at step i + 4);
//   cluster    the C programs of a cluster the same chunk, each pulling it itself;
//   multicast  the same, but program r of the cluster pulls 1/C of it with .multicast::cluster into all C;
//   pairs      (clusters of 1) programs 2j and 2j + 1 the same chunk: two SMs anywhere, not kept in step;
//   drifting   (clusters of 2 or more) as cluster, without the barrier every step: each program at its own pace.
// It prints each mode's time and the bytes delivered into shared memory per second. Under ncu the L2 request
// coalescer's counters (lrc__lrc2xbar_sectors_op_read_coalescing_achieved_type_hardware / _programmatic) and the
// L2's sectors (lts__t_sectors_srcunit_tex) say what reached the L2: `l2_sharing BYTES C MODE 1` runs one.
//
// What it showed on an H200 (session 32; L2 sectors read, lts__t_sectors_srcunit_tex, 16 MB source):
// - a cluster's programs reading the same sectors have them merged before the L2 ("hardware" coalescing), in
//   step or not: in clusters of 2, 140.0M sectors (cluster) and 140.1M (drifting) against 265.9M for distinct
//   chunks, as multicast's 135.2M ("programmatic"); in clusters of 4 partly, 92.3M against multicast's 61.4M;
// - two programs of different clusters are not merged (pairs: 266.0M);
// - multicast delivered less than the merged plain copies: 8.67 against 10.06 TB/s (clusters of 2), 7.86
//   against 9.12 (4); distinct chunks 8.96-9.17, drifting 10.4-11.6 (no barrier at all);
// - from DRAM (4 GB source, distinct) bulk copies read 4.45-4.69 TB/s.
// (A first version, whose cluster barrier released every step, was bound by that barrier at about 1 us a step.)

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {
constexpr int CHUNK = 32768, SLOTS = 6, ITERS = 2000;
enum Mode { Distinct, Cluster, Multicast, Pairs, Drifting };
const char *const modeNames[] = {"distinct", "cluster", "multicast", "pairs", "drifting"};

__device__ __forceinline__ unsigned sharedAddress(const void *p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__global__ void __launch_bounds__(32) pull(const char *source, long long chunks, int mode, unsigned *sink) {
  extern __shared__ __align__(128) char ring[];
  __shared__ __align__(8) unsigned long long full[SLOTS];
  unsigned rank, size;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(size));
  const long long program = blockIdx.x, programs = gridDim.x, cluster = program / size, clusters = programs / size;
  const bool leader = threadIdx.x == 0;
  if (leader)
    for (int s = 0; s < SLOTS; ++s)
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(sharedAddress(&full[s])));
  asm volatile("fence.mbarrier_init.release.cluster;");
  asm volatile("barrier.cluster.arrive.release.aligned; barrier.cluster.wait.acquire.aligned;");

  auto issue = [&](int i) {
    const int slot = i % SLOTS;
    const unsigned barrier = sharedAddress(&full[slot]), buffer = sharedAddress(ring + slot * CHUNK);
    // (Drifting reads as Cluster does.)
    long long chunk = mode == Distinct ? program + i * programs
                      : mode == Pairs  ? program / 2 + i * (programs / 2)
                                       : cluster + i * clusters;
    const char *from = source + (chunk % chunks) * CHUNK;
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(barrier), "r"(CHUNK) : "memory");
    if (mode == Multicast) {
      const unsigned part = CHUNK / size;
      const unsigned short everyone = static_cast<unsigned short>((1u << size) - 1);
      asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
                   " [%0], [%1], %2, [%3], %4;" ::"r"(buffer + rank * part),
                   "l"(from + rank * part), "r"(part), "r"(barrier), "h"(everyone)
                   : "memory");
    } else {
      asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                       buffer),
                   "l"(from), "r"(CHUNK), "r"(barrier)
                   : "memory");
    }
  };
  if (leader)
    for (int i = 0; i < SLOTS - 1; ++i)
      issue(i);
  __syncwarp(); // the barrier.cluster below is .aligned: the warp arrives converged
  unsigned seen = 0;
  for (int i = 0; i < ITERS; ++i) {
    const int slot = i % SLOTS;
    if (leader) {
      asm volatile("{\n .reg .pred done;\n WAIT_%=:\n mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
                   " @!done bra WAIT_%=;\n}" ::"r"(sharedAddress(&full[slot])),
                   "r"((i / SLOTS) & 1)
                   : "memory");
      seen += *reinterpret_cast<volatile unsigned *>(ring + slot * CHUNK + (i & 127) * 4);
    }
    __syncwarp();
    // The slot refilled next was last read at step i - 1: once every program of the cluster has arrived after
    // that step (the wait completes the phase of the previous arrive), its peers may write it by multicast. The
    // arrive is relaxed: what must come first, the wait on the slot's mbarrier, does in program order (the read
    // of its word is only there to keep the copies; the data is not checked), and a release arrive costs about
    // half a microsecond a step, which bounded every mode but drifting.
    if (mode != Drifting) {
      if (i > 0)
        asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
      asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
    }
    if (leader && i + SLOTS - 1 < ITERS)
      issue(i + SLOTS - 1);
  }
  if (mode != Drifting)
    asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
  if (leader && seen == 0x9e3779b9u) // keeps the reads; never true for the bytes main writes
    *sink = seen;
}

void check(cudaError_t error, const char *what) {
  if (error != cudaSuccess) {
    std::fprintf(stderr, "l2_sharing: %s: %s\n", what, cudaGetErrorString(error));
    std::exit(1);
  }
}
} // namespace

// l2_sharing [BYTES [C [MODE [REPS]]]]: BYTES of source (default 16 MB: held in L2), clusters of C (0: 1, 2 and
// 4), MODE a name above (default: all), median of REPS launches (default 5).
int main(int argc, char **argv) {
  const long long bytes = argc > 1 ? std::atoll(argv[1]) : 16ll << 20;
  const int onlyC = argc > 2 ? std::atoi(argv[2]) : 0;
  const char *onlyMode = argc > 3 && argv[3][0] ? argv[3] : nullptr; // "": every mode
  const int reps = argc > 4 ? std::max(1, std::atoi(argv[4])) : 5;
  if (bytes < CHUNK) {
    std::fprintf(stderr, "l2_sharing: BYTES must be at least %d\n", CHUNK);
    return 2;
  }
  char *source;
  unsigned *sink;
  check(cudaMalloc(&source, bytes), "cudaMalloc");
  check(cudaMemset(source, 1, bytes), "cudaMemset");
  check(cudaMalloc(&sink, sizeof(unsigned)), "cudaMalloc");
  const int sharedBytes = SLOTS * CHUNK;
  check(cudaFuncSetAttribute(pull, cudaFuncAttributeMaxDynamicSharedMemorySize, sharedBytes), "shared memory");
  check(cudaFuncSetAttribute(pull, cudaFuncAttributeNonPortableClusterSizeAllowed, 1), "cluster size");
  cudaEvent_t start, end;
  check(cudaEventCreate(&start), "event");
  check(cudaEventCreate(&end), "event");
  for (int C : {1, 2, 4}) {
    if (onlyC && C != onlyC)
      continue;
    cudaLaunchAttribute cluster[1];
    cluster[0].id = cudaLaunchAttributeClusterDimension;
    cluster[0].val.clusterDim.x = C, cluster[0].val.clusterDim.y = 1, cluster[0].val.clusterDim.z = 1;
    cudaLaunchConfig_t config = {};
    config.blockDim = dim3(32), config.dynamicSmemBytes = sharedBytes, config.attrs = cluster, config.numAttrs = 1;
    config.gridDim = dim3(C);
    int clusters = 0; // one wave: every program resident at once
    check(cudaOccupancyMaxActiveClusters(&clusters, pull, &config), "occupancy");
    config.gridDim = dim3(clusters * C);
    for (int mode = Distinct; mode <= Drifting; ++mode) {
      // Multicast and drifting need a cluster; pairs in clusters of C > 1 would be the cluster mode (or half).
      const bool needsCluster = mode == Multicast || mode == Drifting;
      if ((onlyMode && std::strcmp(onlyMode, modeNames[mode]) != 0) || (needsCluster && C == 1) ||
          (mode == Pairs && C > 1))
        continue;
      std::vector<float> ms;
      for (int r = 0; r < reps; ++r) {
        check(cudaEventRecord(start), "record");
        check(cudaLaunchKernelEx(&config, pull, static_cast<const char *>(source), bytes / CHUNK, mode, sink),
              "launch");
        check(cudaEventRecord(end), "record");
        check(cudaEventSynchronize(end), "synchronize");
        float t;
        check(cudaEventElapsedTime(&t, start, end), "elapsed");
        ms.push_back(t);
      }
      std::sort(ms.begin(), ms.end());
      const double seconds = ms[ms.size() / 2] * 1e-3, delivered = double(clusters) * C * ITERS * CHUNK;
      std::printf("source %6.0f MB  clusters of %d  %-9s  %3d programs  %7.3f ms  delivered %5.2f TB/s\n",
                  bytes / 1e6, C, modeNames[mode], clusters * C, seconds * 1e3, delivered / seconds / 1e12);
    }
  }
  return 0;
}
