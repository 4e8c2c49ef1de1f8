//===- AutotuneTest.cpp - The autotuner's mechanics on the CPU interpreter (no GPU needed) ---===//
//
// Selection, pruning (by the user and by resources), persistence across tuner instances and processes, damaged
// entries, buffers reset between trials, and the errors of a wrong launch. Timing is host time here; the GPU
// tests and bench/run time the same code with device events.
//
//===----------------------------------------------------------------------===//

#include "brick/JIT/Autotune.h"
#include "matmul.h"
#include "TemporaryCache.h"
#include "vector_add.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sys/wait.h>
#include <unistd.h>

using namespace brick;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

namespace {

const runtime::Device &interpreter() {
  static runtime::Device device = runtime::Device::interpreter();
  return device;
}

/// Host-timed trials kept short: the tests check what is chosen and why, not how fast.
AutotuneOptions quick() {
  AutotuneOptions options;
  options.warmupMs = 0;
  options.measureMs = 0;
  options.minRepetitions = 2;
  options.finalists = 0; // the medians decide (FinalistsSettleNearTies tests the final bursts)
  return options;
}

std::vector<TuningConfig> blockConfigs() { return {{{64}, 1, 1}, {{128}, 2, 1}, {{256}, 4, 1}}; }

struct VectorAddRun {
  int n;
  runtime::DeviceBuffer x, y, out;
  explicit VectorAddRun(int n)
      : n(n), x(std::move(*runtime::DeviceBuffer::allocate(interpreter(), n * 4))),
        y(std::move(*runtime::DeviceBuffer::allocate(interpreter(), n * 4))),
        out(std::move(*runtime::DeviceBuffer::allocate(interpreter(), n * 4))) {
    std::vector<float> hx(n), hy(n);
    for (int i = 0; i < n; ++i) {
      hx[i] = float(i);
      hy[i] = 0.5f * float(i);
    }
    EXPECT_FALSE(x.copyFromHost(hx.data(), n * 4));
    EXPECT_FALSE(y.copyFromHost(hy.data(), n * 4));
    EXPECT_FALSE(out.fill(0xFF));
  }
  template <class T> runtime::Error launch(const T &tuned) {
    auto grid = [this](const TuningConfig &config) { return Grid{unsigned((n + config.get(0) - 1) / config.get(0))}; };
    return tuned.launch(grid, LaunchOptions{.device = &interpreter()}, x, y, out, n, fromConfig);
  }
  void expectSum() {
    std::vector<float> result(n);
    ASSERT_FALSE(out.copyToHost(result.data(), n * 4));
    for (int i = 0; i < n; ++i)
      ASSERT_EQ(result[i], 1.5f * float(i)) << "element " << i;
  }
};

// The leading configs are timed again in bursts and the bursts decide: here every timed config is within the
// margin, so the two fastest medians are the finalists; the others keep their medians alone.
TEST(Autotune, FinalistsSettleNearTies) {
  TemporaryCache cache("finalists");
  AutotuneOptions options = quick();
  options.finalists = 2;
  options.finalMargin = 1e9;
  auto tuned = autotune(examples::vectorAdd(), blockConfigs(), TuningKey{{3}}, options);
  VectorAddRun run(1000);
  ASSERT_FALSE(run.launch(tuned));
  run.expectSum();

  Tuning tuning = tuned.tunings().at(0);
  std::vector<size_t> byMedian = {0, 1, 2};
  std::sort(byMedian.begin(), byMedian.end(),
            [&](size_t a, size_t b) { return tuning.trials[a].milliseconds < tuning.trials[b].milliseconds; });
  const TuningTrial &first = tuning.trials[byMedian[0]], &second = tuning.trials[byMedian[1]];
  EXPECT_GE(first.finalMilliseconds, 0);
  EXPECT_GE(second.finalMilliseconds, 0);
  EXPECT_EQ(tuning.trials[byMedian[2]].finalMilliseconds, -1);
  EXPECT_EQ(tuning.chosen, first.finalMilliseconds <= second.finalMilliseconds ? byMedian[0] : byMedian[1]);
  EXPECT_THAT(tuned.tuningReport(), HasSubstr("finalist: "));

  // No margin: no config is within 0% of the best but the best itself, so there is no final and the medians decide.
  TemporaryCache again("finalists-none");
  options.finalMargin = 0;
  options.persist = false;
  auto strict = autotune(examples::vectorAdd(), blockConfigs(), TuningKey{{3}}, options);
  ASSERT_FALSE(run.launch(strict));
  Tuning alone = strict.tunings().at(0);
  for (const TuningTrial &trial : alone.trials) {
    EXPECT_EQ(trial.finalMilliseconds, -1);
    EXPECT_LE(alone.trials[alone.chosen].milliseconds, trial.milliseconds);
  }
}

TEST(Autotune, TimesEveryConfigAndLaunchesTheFastest) {
  TemporaryCache cache("fastest");
  auto tuned = autotune(examples::vectorAdd(), blockConfigs(), TuningKey{{3}}, quick());
  VectorAddRun run(1000);
  ASSERT_FALSE(run.launch(tuned));
  run.expectSum();

  std::vector<Tuning> tunings = tuned.tunings();
  ASSERT_EQ(tunings.size(), 1u);
  EXPECT_EQ(tunings[0].how, "tuned");
  EXPECT_EQ(tunings[0].key, std::vector<int64_t>{1000});
  ASSERT_EQ(tunings[0].trials.size(), 3u);
  for (const TuningTrial &trial : tunings[0].trials) {
    EXPECT_GE(trial.milliseconds, 0) << trial.config.str() << ": " << trial.skipped;
    EXPECT_LE(tunings[0].trials[tunings[0].chosen].milliseconds, trial.milliseconds);
  }
  EXPECT_THAT(tuned.tuningReport(), HasSubstr("<- chosen"));
  // The kernel's log says which launch was tuned; only the winner stays compiled (built, here) in memory.
  std::vector<std::string> log = tuned.kernel().specializations();
  EXPECT_THAT(log.back(), HasSubstr("autotune key [1000]: tuned 3 configs"));
  EXPECT_EQ(tuned.kernel().jitState().compiled.size(), 1u);
  EXPECT_EQ(cache.entries("autotune").size(), 1u);
}

TEST(Autotune, AKeySeenBeforeIsNotTunedAgain) {
  TemporaryCache cache("memory");
  auto tuned = autotune(examples::vectorAdd(), blockConfigs(), TuningKey{{3}}, quick());
  VectorAddRun first(1000), again(1000), other(3000);
  ASSERT_FALSE(first.launch(tuned));
  ASSERT_FALSE(again.launch(tuned));
  again.expectSum();
  EXPECT_EQ(tuned.tunings().size(), 1u);
  ASSERT_FALSE(other.launch(tuned)); // a new key: tuned
  other.expectSum();
  ASSERT_EQ(tuned.tunings().size(), 2u);
  EXPECT_EQ(tuned.tunings()[1].key, std::vector<int64_t>{3000});
}

TEST(Autotune, BucketedKeysShareATuning) {
  TemporaryCache cache("bucket");
  TuningKey key{{3}, [](std::vector<int64_t> values) {
                  int64_t power = 1;
                  while (power < values[0])
                    power *= 2;
                  return std::vector<int64_t>{power};
                }};
  auto tuned = autotune(examples::vectorAdd(), blockConfigs(), key, quick());
  VectorAddRun a(900), b(1000), c(1100);
  ASSERT_FALSE(a.launch(tuned));
  ASSERT_FALSE(b.launch(tuned));
  b.expectSum();
  EXPECT_EQ(tuned.tunings().size(), 1u);
  EXPECT_EQ(tuned.tunings()[0].key, std::vector<int64_t>{1024});
  ASSERT_FALSE(c.launch(tuned)); // 2048
  EXPECT_EQ(tuned.tunings().size(), 2u);
}

TEST(Autotune, AnotherTunerReusesTheStoredChoiceWithoutTiming) {
  TemporaryCache cache("reuse");
  VectorAddRun run(1000);
  size_t chosen = 0;
  {
    auto tuned = autotune(examples::vectorAdd(), blockConfigs(), TuningKey{{3}}, quick());
    ASSERT_FALSE(run.launch(tuned));
    chosen = tuned.tunings()[0].chosen;
  }
  auto later = autotune(examples::vectorAdd(), blockConfigs(), TuningKey{{3}}, quick());
  VectorAddRun again(1000);
  ASSERT_FALSE(again.launch(later));
  again.expectSum();
  std::vector<Tuning> tunings = later.tunings();
  ASSERT_EQ(tunings.size(), 1u);
  EXPECT_EQ(tunings[0].how, "reused");
  EXPECT_TRUE(tunings[0].trials.empty()); // nothing timed
  EXPECT_EQ(tunings[0].chosen, chosen);
  EXPECT_THAT(later.tuningReport(), HasSubstr("reused #" + std::to_string(chosen)));
  EXPECT_THAT(later.kernel().specializations(), ::testing::Contains(HasSubstr("reused the stored choice")));
}

TEST(Autotune, ASecondProcessReusesTheStoredChoice) {
  TemporaryCache cache("process");
  auto runOnce = [] {
    auto tuned = autotune(examples::vectorAdd(), blockConfigs(), TuningKey{{3}}, quick());
    VectorAddRun run(777);
    if (run.launch(tuned))
      return std::string("launch failed");
    return tuned.tunings().at(0).how;
  };
  // Each process starts with empty memory; only the disk entry carries the choice from the first to the second.
  for (const char *expected : {"tuned", "reused"}) {
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0)
      _exit(runOnce() == expected ? 0 : 1);
    int status = 0;
    waitpid(child, &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << "the process that should have " << expected;
  }
}

TEST(Autotune, DamagedEntriesAreTunedAgain) {
  TemporaryCache cache("damage");
  {
    auto tuned = autotune(examples::vectorAdd(), blockConfigs(), TuningKey{{3}}, quick());
    VectorAddRun run(1000);
    ASSERT_FALSE(run.launch(tuned));
  }
  ASSERT_EQ(cache.entries("autotune").size(), 1u);
  fs::path entry = cache.entries("autotune")[0];
  std::string text;
  {
    std::ifstream in(entry);
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  std::string flipped = text;
  flipped[flipped.find("chosen #") + 8] ^= 1; // another index, the checksum left as it was
  for (const std::string &damage : {text.substr(0, text.size() / 2), flipped, std::string("garbage")}) {
    {
      std::ofstream out(entry, std::ios::trunc);
      out << damage;
    }
    auto tuned = autotune(examples::vectorAdd(), blockConfigs(), TuningKey{{3}}, quick());
    VectorAddRun run(1000);
    ASSERT_FALSE(run.launch(tuned));
    run.expectSum();
    ASSERT_EQ(tuned.tunings().size(), 1u);
    EXPECT_EQ(tuned.tunings()[0].how, "tuned");
    EXPECT_THAT(tuned.tunings()[0].note, HasSubstr("was unusable"));
    // ... and the entry is whole again: the next tuner reuses it.
    auto next = autotune(examples::vectorAdd(), blockConfigs(), TuningKey{{3}}, quick());
    VectorAddRun again(1000);
    ASSERT_FALSE(again.launch(next));
    EXPECT_EQ(next.tunings()[0].how, "reused");
  }
}

TEST(Autotune, NotPersistedWhenAskedNotTo) {
  TemporaryCache cache("memory-only");
  AutotuneOptions options = quick();
  options.persist = false;
  auto tuned = autotune(examples::vectorAdd(), blockConfigs(), TuningKey{{3}}, options);
  VectorAddRun run(1000);
  ASSERT_FALSE(run.launch(tuned));
  EXPECT_TRUE(cache.entries("autotune").empty());
}

TEST(Autotune, ConfigsOverTheSharedMemoryLimitAreSkippedBeforeTiming) {
  TemporaryCache cache("shared");
  // 64^3 f16 matmul: a 64x64x32 tile fits any GPU; 256x256x128 tiles with 4 stages need about 512 KB of shared
  // memory on sm_90a (the interpreter's stand-in), more than the 227 KB a block may have; over 8 warps their
  // accumulator alone needs 256 registers per thread. 64 warps is no launch.
  std::vector<TuningConfig> configs = {{{64, 64, 32, 8}, 4, 2},
                                       {{256, 256, 128, 8}, 16, 4},
                                       {{64, 64, 32, 8}, 64, 2},
                                       {{256, 256, 32, 8}, 8, 2}};
  auto tuned = autotune(examples::matmul<f16>(), configs, TuningKey{{3, 4, 5}}, quick());
  int M = 64, N = 64, K = 64;
  auto a = std::move(*runtime::DeviceBuffer::allocate(interpreter(), M * K * 2));
  auto b = std::move(*runtime::DeviceBuffer::allocate(interpreter(), K * N * 2));
  auto c = std::move(*runtime::DeviceBuffer::allocate(interpreter(), M * N * 2));
  ASSERT_FALSE(a.fill(0));
  ASSERT_FALSE(b.fill(0));
  auto grid = [&](const TuningConfig &config) {
    return Grid{unsigned(((M + config.get(0) - 1) / config.get(0)) * ((N + config.get(1) - 1) / config.get(1)))};
  };
  ASSERT_FALSE(tuned.launch(grid, LaunchOptions{.device = &interpreter()}, a, b, c, M, N, K, K, 1, N, 1, N, 1,
                            fromConfig, fromConfig, fromConfig, fromConfig));
  Tuning tuning = tuned.tunings().at(0);
  EXPECT_GE(tuning.trials[0].milliseconds, 0);
  EXPECT_EQ(tuning.trials[1].milliseconds, -1);
  EXPECT_THAT(tuning.trials[1].skipped, HasSubstr("bytes of shared memory, more than the 232448"));
  EXPECT_THAT(tuning.trials[1].skipped, HasSubstr("sm_90a"));
  EXPECT_EQ(tuning.trials[2].milliseconds, -1);
  EXPECT_THAT(tuning.trials[2].skipped, HasSubstr("power of two from 1 to 32"));
  EXPECT_EQ(tuning.trials[3].milliseconds, -1);
  EXPECT_THAT(tuning.trials[3].skipped, HasSubstr("registers per thread"));
  EXPECT_EQ(tuning.chosen, 0u);
  EXPECT_THAT(tuned.tuningReport(), HasSubstr("skipped: "));
}

TEST(Autotune, ThePruneFunctionNarrowsTheConfigs) {
  TemporaryCache cache("prune");
  AutotuneOptions options = quick();
  std::vector<int64_t> seenKey;
  options.prune = [&](const std::vector<TuningConfig> &configs, const std::vector<int64_t> &key) {
    seenKey = key;
    return std::vector<TuningConfig>{configs[1]};
  };
  auto tuned = autotune(examples::vectorAdd(), blockConfigs(), TuningKey{{3}}, options);
  VectorAddRun run(1000);
  ASSERT_FALSE(run.launch(tuned));
  run.expectSum();
  EXPECT_EQ(seenKey, std::vector<int64_t>{1000});
  Tuning tuning = tuned.tunings().at(0);
  EXPECT_EQ(tuning.chosen, 1u);
  EXPECT_THAT(tuning.trials[0].skipped, HasSubstr("pruned"));
  EXPECT_THAT(tuning.trials[2].skipped, HasSubstr("pruned"));
}

TEST(Autotune, ParallelCompilationChoosesAmongTheSameConfigs) {
  TemporaryCache cache("parallel");
  std::vector<TuningConfig> configs;
  for (int block : {32, 64, 128, 256, 512, 1024})
    for (unsigned warps : {1u, 4u})
      configs.push_back({{block}, warps, 1});
  AutotuneOptions options = quick();
  options.compileThreads = 4;
  auto tuned = autotune(examples::vectorAdd(), configs, TuningKey{{3}}, options);
  VectorAddRun run(1500);
  ASSERT_FALSE(run.launch(tuned));
  run.expectSum();
  Tuning tuning = tuned.tunings().at(0);
  EXPECT_EQ(tuning.compileThreads, 4u);
  for (const TuningTrial &trial : tuning.trials)
    EXPECT_GE(trial.milliseconds, 0) << trial.config.str() << ": " << trial.skipped;
}

TEST(Autotune, BuffersAreResetAndRestoredBetweenTrials) {
  TemporaryCache cache("reset");
  // out += x and x *= 2: each trial would change what the next one sees.
  auto accumulate = kernel("accumulate", [](Ptr<f32> out, Ptr<f32> x, Int n, Const<int> BLOCK) {
    Tensor offsets = program_id(0) * BLOCK + arange(0, BLOCK);
    Tensor inBounds = offsets < n;
    Tensor value = load(x + offsets, inBounds);
    store(out + offsets, load(out + offsets, inBounds) + value, inBounds);
    store(x + offsets, value * 2.0f, inBounds);
  });
  AutotuneOptions options = quick();
  options.resetToZero = {0};
  options.restoreValue = {1};
  auto tuned = autotune(accumulate, blockConfigs(), TuningKey{{2}}, options);
  int n = 300;
  auto out = std::move(*runtime::DeviceBuffer::allocate(interpreter(), n * 4));
  auto x = std::move(*runtime::DeviceBuffer::allocate(interpreter(), n * 4));
  std::vector<float> hx(n), ones(n, 1.0f);
  for (int i = 0; i < n; ++i)
    hx[i] = float(i);
  ASSERT_FALSE(x.copyFromHost(hx.data(), n * 4));
  ASSERT_FALSE(out.copyFromHost(ones.data(), n * 4));
  auto grid = [n](const TuningConfig &config) { return Grid{unsigned((n + config.get(0) - 1) / config.get(0))}; };
  ASSERT_FALSE(tuned.launch(grid, LaunchOptions{.device = &interpreter()}, out, x, n, fromConfig));
  EXPECT_GE(tuned.tunings().at(0).trials.size(), 3u);
  // Dozens of launches ran; the result is that of one launch on zeroed `out` and the original `x`.
  std::vector<float> hout(n), hx2(n);
  ASSERT_FALSE(out.copyToHost(hout.data(), n * 4));
  ASSERT_FALSE(x.copyToHost(hx2.data(), n * 4));
  for (int i = 0; i < n; ++i) {
    ASSERT_EQ(hout[i], float(i)) << i;
    ASSERT_EQ(hx2[i], 2.0f * float(i)) << i;
  }
}

TEST(Autotune, AConfigThatFailsToLaunchIsSkippedWithTheReason) {
  TemporaryCache cache("launch-failure");
  auto tuned = autotune(examples::vectorAdd(), blockConfigs(), TuningKey{{3}}, quick());
  VectorAddRun run(1000);
  auto grid = [&](const TuningConfig &config) { // no programs at all for BLOCK = 128: not launchable
    return Grid{config.get(0) == 128 ? 0u : unsigned((1000 + config.get(0) - 1) / config.get(0))};
  };
  ASSERT_FALSE(tuned.launch(grid, LaunchOptions{.device = &interpreter()}, run.x, run.y, run.out, 1000, fromConfig));
  run.expectSum();
  Tuning tuning = tuned.tunings().at(0);
  EXPECT_EQ(tuning.trials[1].milliseconds, -1);
  EXPECT_THAT(tuning.trials[1].skipped, HasSubstr("failed at launch: "));
  EXPECT_THAT(tuning.trials[1].skipped, HasSubstr("is not launchable"));
  EXPECT_GE(tuning.trials[0].milliseconds, 0);
  EXPECT_GE(tuning.trials[2].milliseconds, 0);
  EXPECT_NE(tuning.chosen, 1u);
}

TEST(Autotune, WrongLaunchesAreErrors) {
  TemporaryCache cache("errors");
  VectorAddRun run(100);
  auto grid = [](const TuningConfig &) { return Grid{1}; };
  LaunchOptions options{.device = &interpreter()};

  auto tooMany = autotune(examples::vectorAdd(), {{{64, 1}, 1, 1}}, TuningKey{{3}}, quick());
  runtime::Error error = tooMany.launch(grid, options, run.x, run.y, run.out, 100, fromConfig);
  ASSERT_TRUE(error);
  EXPECT_THAT(error.message(), HasSubstr("config #0 [64, 1] warps=1 stages=1 gives 2 constants, but the launch leaves 1"));

  auto pointerKey = autotune(examples::vectorAdd(), blockConfigs(), TuningKey{{0}}, quick());
  error = pointerKey.launch(grid, options, run.x, run.y, run.out, 100, fromConfig);
  ASSERT_TRUE(error);
  EXPECT_THAT(error.message(), HasSubstr("the tuning key's parameter 0 is a pointer"));

  auto configKey = autotune(examples::vectorAdd(), blockConfigs(), TuningKey{{4}}, quick());
  error = configKey.launch(grid, options, run.x, run.y, run.out, 100, fromConfig);
  ASSERT_TRUE(error);
  EXPECT_THAT(error.message(), HasSubstr("cannot also choose the config"));

  AutotuneOptions unsized = quick();
  unsized.resetToZero = {2};
  auto unknownSize = autotune(examples::vectorAdd(), blockConfigs(), TuningKey{{3}}, unsized);
  error = unknownSize.launch(grid, options, run.x, run.y, DevicePointer{run.out.address()}, 100, fromConfig);
  ASSERT_TRUE(error);
  EXPECT_THAT(error.message(), HasSubstr("pass it a runtime::DeviceBuffer"));

  // A plain launch has no config to take the value from.
  error = examples::vectorAdd().launch(Grid{1}, options, run.x, run.y, run.out, 100, fromConfig);
  ASSERT_TRUE(error);
  EXPECT_THAT(error.message(), HasSubstr("only a launch through the autotuner fills"));
}

TEST(Autotune, NoConfigThatRunsIsAnErrorWithEveryReason) {
  TemporaryCache cache("none");
  auto tuned = autotune(examples::vectorAdd(), {{{64}, 64, 1}, {{64}, 1, 9}}, TuningKey{{3}}, quick());
  VectorAddRun run(100);
  runtime::Error error = run.launch(tuned);
  ASSERT_TRUE(error);
  EXPECT_THAT(error.message(), HasSubstr("no config could run for key [100]"));
  EXPECT_THAT(error.message(), HasSubstr("#0 [64] warps=64 stages=1: numWarps must be a power of two"));
  EXPECT_THAT(error.message(), HasSubstr("#1 [64] warps=1 stages=9: numStages must be from 1 to 8"));
  EXPECT_TRUE(cache.entries("autotune").empty());
}

// A config's clusterSize reaches the launch (cluster_size() and cluster_rank() see it); sizes that are not 1, 2,
// 4 or 8, and grids that are not whole clusters, are skipped with the reason before anything is compiled.
TEST(Autotune, ClusterSizesReachTheLaunchAndBadOnesAreSkipped) {
  TemporaryCache cache("clusters");
  auto place = kernel("cluster_place", [](Ptr<i32> out, Int n, Const<int> BLOCK) {
    Tensor offsets = program_id(0) * BLOCK + arange(0, BLOCK);
    store(out + offsets, zeros<i32>({BLOCK}) + cluster_size() * 100 + cluster_rank(), offsets < n);
  });
  std::vector<TuningConfig> configs = {{{32}, 1, 1, false, 3}, {{32}, 1, 1, false, 4}, {{16}, 1, 1, false, 4}};
  EXPECT_EQ(configs[1].str(), "[32] warps=1 stages=1 cluster=4");
  auto tuned = autotune(place, configs, TuningKey{{1}}, quick());
  const int n = 256;
  auto out = std::move(*runtime::DeviceBuffer::allocate(interpreter(), n * 4));
  // BLOCK 32: 8 programs, whole clusters of 4 but not of 3. BLOCK 16 would make 16; this grid gives it 6.
  auto grid = [](const TuningConfig &config) { return Grid{config.get(0) == 16 ? 6u : unsigned(n / config.get(0))}; };
  ASSERT_FALSE(tuned.launch(grid, LaunchOptions{.device = &interpreter()}, out, n, fromConfig));
  Tuning tuning = tuned.tunings().at(0);
  EXPECT_THAT(tuning.trials[0].skipped, HasSubstr("clusterSize must be 1, 2, 4 or 8"));
  EXPECT_THAT(tuning.trials[2].skipped, HasSubstr("the grid's x (6) is not a whole number of clusters of 4"));
  EXPECT_EQ(tuning.chosen, 1u);
  std::vector<int32_t> result(n);
  ASSERT_FALSE(out.copyToHost(result.data(), n * 4));
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(result[i], 400 + (i / 32) % 4) << "element " << i;
}

// A persistent grid (Grid::persistent) names the work, not the programs: it is not skipped for being no whole
// number of clusters, and each config's launch gets one wave of its clusters (4 on the interpreter; 8 for 8).
TEST(Autotune, PersistentGridsOfAnyWorkSuitEveryClusterSize) {
  TemporaryCache cache("persistent");
  auto wave = kernel("wave", [](Ptr<i32> out, Int work, Const<int> BLOCK) {
    store(out + program_id(0) * BLOCK + arange(0, BLOCK), zeros<i32>({BLOCK}) + num_programs(0));
  });
  std::vector<TuningConfig> configs = {{{8}, 1, 1, false, 2}, {{8}, 1, 1, false, 8}};
  auto tuned = autotune(wave, configs, TuningKey{{1}}, quick());
  auto out = std::move(*runtime::DeviceBuffer::allocate(interpreter(), 8 * 8 * 4));
  auto grid = [](const TuningConfig &) { return Grid::persistent(7); };
  runtime::Error error = tuned.launch(grid, LaunchOptions{.device = &interpreter()}, out, 7, fromConfig);
  ASSERT_FALSE(error) << error.message();
  Tuning tuning = tuned.tunings().at(0);
  for (const auto &trial : tuning.trials)
    EXPECT_EQ(trial.skipped, "");
  std::vector<int32_t> result(64, -1);
  ASSERT_FALSE(out.copyToHost(result.data(), 64 * 4));
  int32_t programs = tuning.chosen == 0 ? 4 : 8; // 7 rounded up to clusters of 2, at most 4; or one cluster of 8
  for (int i = 0; i < programs * 8; ++i)
    ASSERT_EQ(result[i], programs) << "element " << i << ", config " << tuning.chosen;
}

} // namespace
