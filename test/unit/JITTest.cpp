//===- JITTest.cpp - Specialization, the disk cache and its damage, dumps (no GPU needed) ---===//

#include "brick/JIT/JIT.h"
#include "softmax.h"
#include "TemporaryCache.h"
#include "vector_add.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

using namespace brick;
using ::testing::HasSubstr;
using ::testing::StartsWith;
namespace fs = std::filesystem;

namespace {

template <class K> detail::JitKernel jitKernel(const K &kernel) {
  return detail::JitKernel{kernel.name(), kernel.params(),
                           [&kernel](mlir::MLIRContext *c, const Specialization &s,
                                     const std::function<void(mlir::Operation *)> &r) { return kernel.build(c, s, r); },
                           &kernel.jitState()};
}

detail::LaunchArg pointer(uint64_t address) { return {detail::LaunchArg::Kind::Pointer, address}; }
detail::LaunchArg integer(int64_t value) { return {detail::LaunchArg::Kind::Integer, 0, value}; }

TEST(JIT, SpecializationFollowsTheArguments) {
  auto kernel = examples::vectorAdd();
  // Aligned, misaligned and aligned pointers; n a multiple of 16; BLOCK = 1024.
  Specialization spec = detail::specializationFor(
      kernel.params(), {pointer(0x7f0000000000), pointer(0x7f0000000004), pointer(0x7f0000000100), integer(4096),
                        integer(1024)});
  ASSERT_EQ(spec.size(), 5u);
  EXPECT_EQ(spec[0].divisibility(), 16);
  EXPECT_EQ(spec[1].divisibility(), 1);
  EXPECT_EQ(spec[3].divisibility(), 16);
  EXPECT_TRUE(spec[4].isConstant());
  std::string key = detail::specializationKey(jitKernel(kernel), spec, LaunchOptions{}, "sm_90a");
  EXPECT_EQ(key, "(%16, _, %16, %16, 1024) warps=4 stages=3 sm_90a");
  // n == 1 and n odd specialize differently.
  Specialization one = detail::specializationFor(kernel.params(), {pointer(0), pointer(0), pointer(0), integer(1), integer(256)});
  EXPECT_TRUE(one[3].equalsOne());
  Specialization odd = detail::specializationFor(kernel.params(), {pointer(0), pointer(0), pointer(0), integer(1001), integer(256)});
  EXPECT_FALSE(odd[3].equalsOne());
  EXPECT_EQ(odd[3].divisibility(), 1);
  // Sizes that are multiples of 8 (3000 bf16 columns: 16-byte rows) keep that fact; at most 16 is recorded.
  for (auto [n, divisor] : {std::pair{3000, 8}, {1002, 2}, {1004, 4}, {4096 * 3, 16}})
    EXPECT_EQ(detail::specializationFor(kernel.params(), {pointer(0), pointer(0), pointer(0), integer(n), integer(256)})[3]
                  .divisibility(),
              divisor)
        << n;
}

TEST(JIT, CompilesOnceThenUsesTheDiskCache) {
  TemporaryCache cache("reuse");
  auto kernel = examples::softmax<f32>();
  auto jit = jitKernel(kernel);
  Specialization spec = detail::specializationFor(
      kernel.params(), {pointer(0), pointer(0), integer(1024), integer(1024), integer(4096), integer(1024), integer(1024), integer(1)});
  std::string why;
  auto first = detail::compileSpecialization(jit, spec, LaunchOptions{}, "sm_90a", &why);
  ASSERT_TRUE(first.ok()) << first.error().message();
  EXPECT_THAT(why, StartsWith("compiled; IR "));
  EXPECT_EQ(first->name, "softmax");
  EXPECT_THAT(first->ptx, HasSubstr("shfl.sync.bfly"));
  ASSERT_EQ(cache.entries().size(), 1u);
  EXPECT_THAT(cache.entries()[0].filename().string(), StartsWith("softmax-"));

  auto second = detail::compileSpecialization(jit, spec, LaunchOptions{}, "sm_90a", &why);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(why, "disk cache");
  EXPECT_EQ(*second, *first);

  // Another specialization, another entry; other options, another entry.
  Specialization other = detail::specializationFor(
      kernel.params(), {pointer(0), pointer(0), integer(1000), integer(1000), integer(4096), integer(1000), integer(1024), integer(1)});
  ASSERT_TRUE(detail::compileSpecialization(jit, other, LaunchOptions{}, "sm_90a", &why).ok());
  EXPECT_THAT(why, StartsWith("compiled; IR "));
  ASSERT_TRUE(detail::compileSpecialization(jit, spec, LaunchOptions{.numWarps = 8}, "sm_90a", &why).ok());
  EXPECT_THAT(why, StartsWith("compiled; IR "));
  EXPECT_EQ(cache.entries().size(), 3u);
}

/// vector_add compiled once into an empty cache: its one disk entry, and how to compile it again.
struct CachedVectorAdd {
  explicit CachedVectorAdd(const std::string &name) : cache(name) {
    spec = detail::specializationFor(kernel.params(), {pointer(0), pointer(0), pointer(0), integer(4096), integer(1024)});
    first = compile();
  }
  runtime::Expected<runtime::KernelBundle> compile() {
    return detail::compileSpecialization(jit, spec, LaunchOptions{}, "sm_90a", &why);
  }
  TemporaryCache cache;
  decltype(examples::vectorAdd()) kernel = examples::vectorAdd();
  detail::JitKernel jit = jitKernel(kernel);
  Specialization spec;
  std::string why;
  runtime::Expected<runtime::KernelBundle> first = runtime::Error("not compiled");
};

TEST(JIT, DamagedCacheEntriesAreRebuilt) {
  CachedVectorAdd vectorAdd("damage");
  auto &[cache, kernel, jit, spec, why, first] = vectorAdd;
  ASSERT_TRUE(first.ok()) << first.error().message();
  ASSERT_EQ(cache.entries().size(), 1u);
  fs::path entry = cache.entries()[0];

  // Truncated (a crash mid-write by something that did not write atomically).
  fs::resize_file(entry, fs::file_size(entry) / 2);
  auto rebuilt = detail::compileSpecialization(jit, spec, LaunchOptions{}, "sm_90a", &why);
  ASSERT_TRUE(rebuilt.ok());
  EXPECT_THAT(why, StartsWith("compiled (the disk cache entry was unusable and is rebuilt"));
  EXPECT_THAT(why, HasSubstr("truncated"));
  EXPECT_EQ(*rebuilt, *first);

  // One flipped byte.
  {
    std::fstream file(entry, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(static_cast<std::streamoff>(fs::file_size(entry) - 3));
    file.put('\x5a');
  }
  ASSERT_TRUE(detail::compileSpecialization(jit, spec, LaunchOptions{}, "sm_90a", &why).ok());
  EXPECT_THAT(why, HasSubstr("checksum mismatch"));
  // The rebuilt entry is whole again.
  ASSERT_TRUE(detail::compileSpecialization(jit, spec, LaunchOptions{}, "sm_90a", &why).ok());
  EXPECT_EQ(why, "disk cache");
}

// A whole cache entry that is not the kernel asked for (another kernel's bundle at its name, another target or
// warp count, another signature) is rebuilt, never launched.
TEST(JIT, CacheEntriesOfAnotherKernelAreRebuilt) {
  CachedVectorAdd vectorAdd("identity");
  auto &[cache, kernel, jit, spec, why, first] = vectorAdd;
  ASSERT_TRUE(first.ok()) << first.error().message();
  ASSERT_EQ(cache.entries().size(), 1u);
  fs::path entry = cache.entries()[0];
  auto rewrite = [&](auto change) {
    runtime::KernelBundle forged = *first;
    change(forged);
    ASSERT_FALSE(forged.writeFile(entry.string()));
  };
  rewrite([](runtime::KernelBundle &b) { b.name = "softmax"; });
  ASSERT_TRUE(detail::compileSpecialization(jit, spec, LaunchOptions{}, "sm_90a", &why).ok());
  EXPECT_THAT(why, HasSubstr("the disk cache entry was unusable and is rebuilt: it holds kernel 'softmax'"));
  rewrite([](runtime::KernelBundle &b) { b.target = "sm_80"; });
  ASSERT_TRUE(detail::compileSpecialization(jit, spec, LaunchOptions{}, "sm_90a", &why).ok());
  EXPECT_THAT(why, HasSubstr("it was assembled for sm_80, not sm_90a"));
  rewrite([](runtime::KernelBundle &b) { b.numWarps = 8; });
  ASSERT_TRUE(detail::compileSpecialization(jit, spec, LaunchOptions{}, "sm_90a", &why).ok());
  EXPECT_THAT(why, HasSubstr("it runs 8 warps, not 4"));
  rewrite([](runtime::KernelBundle &b) { b.params.pop_back(); });
  ASSERT_TRUE(detail::compileSpecialization(jit, spec, LaunchOptions{}, "sm_90a", &why).ok());
  EXPECT_THAT(why, HasSubstr("its parameters are not the kernel's"));
  // The rebuilt entry is the kernel's own again.
  ASSERT_TRUE(detail::compileSpecialization(jit, spec, LaunchOptions{}, "sm_90a", &why).ok());
  EXPECT_EQ(why, "disk cache");
}

TEST(JIT, DumpDirectoryHoldsEveryStage) {
  TemporaryCache cache("dump");
  std::string dump = cache.path + "-stages";
  setenv("BRICK_DUMP_DIR", dump.c_str(), 1);
  auto kernel = examples::vectorAdd();
  std::string why;
  Specialization spec =
      detail::specializationFor(kernel.params(), {pointer(0), pointer(0), pointer(0), integer(4096), integer(1024)});
  ASSERT_TRUE(detail::compileSpecialization(jitKernel(kernel), spec, LaunchOptions{}, "sm_90a", &why).ok());
  unsetenv("BRICK_DUMP_DIR");
  std::vector<std::string> files;
  for (auto &entry : fs::recursive_directory_iterator(dump))
    files.push_back(entry.path().filename().string());
  EXPECT_THAT(files, ::testing::Contains("00_input.mlir"));
  EXPECT_THAT(files, ::testing::Contains("05_convert-brick-to-brickgpu.mlir"));
  EXPECT_THAT(files, ::testing::Contains("09_brickgpu-pipeline.mlir"));
  EXPECT_THAT(files, ::testing::Contains("24_ptx.ptx"));
  fs::remove_all(dump);
}

// Code for an older GPU than the device: only the architectures Brick's PTX can name, else an error (not the
// back end's abort).
TEST(JIT, TargetCapabilityMustBeAnArchitectureBrickEmits) {
  TemporaryCache cache("target");
  auto kernel = examples::vectorAdd();
  Specialization spec =
      detail::specializationFor(kernel.params(), {pointer(0), pointer(0), pointer(0), integer(4096), integer(1024)});
  for (unsigned capability : {85u, 70u}) {
    LaunchOptions options;
    options.targetCapability = capability;
    std::string why;
    auto compiled = detail::compileSpecialization(jitKernel(kernel), spec, options, "sm_90a", &why);
    ASSERT_FALSE(compiled.ok()) << capability;
    EXPECT_THAT(compiled.error().message(), HasSubstr("targetCapability")) << capability;
  }
  LaunchOptions sm85;
  sm85.targetCapability = 85;
  std::string why;
  EXPECT_THAT(detail::compileSpecialization(jitKernel(kernel), spec, sm85, "sm_90a", &why).error().message(),
              HasSubstr("unsupported GPU architecture 'sm_85'"));
  LaunchOptions sm80;
  sm80.targetCapability = 80;
  EXPECT_TRUE(detail::compileSpecialization(jitKernel(kernel), spec, sm80, "sm_90a", &why).ok()) << why;
}

TEST(JIT, KernelThatDoesNotBuildIsAnError) {
  TemporaryCache cache("bad");
  auto bad = kernel("bad", [](Ptr<f32> p, Const<int> N) { store(p + arange(0, N), 0.0); });
  std::string why;
  auto result = detail::compileSpecialization(jitKernel(bad), detail::specializationFor(bad.params(), {pointer(0), integer(100)}),
                                              LaunchOptions{}, "sm_90a", &why);
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.error().message(), HasSubstr("kernel 'bad' does not build"));
  EXPECT_THAT(result.error().message(), HasSubstr("arange(0, 100): the length 100 is not a power of two"));
  EXPECT_TRUE(cache.entries().empty());
}

TEST(JIT, LaunchWithoutAGpuIsAClearError) {
  if (runtime::Device::count() > 0)
    GTEST_SKIP() << "a GPU is present: the GPU tests launch";
  TemporaryCache cache("nogpu");
  auto kernel = examples::vectorAdd();
  runtime::Error error = kernel.launch(Grid{1}, LaunchOptions{}, DevicePointer{0}, DevicePointer{0}, DevicePointer{0}, 16, 1024);
  ASSERT_TRUE(static_cast<bool>(error));
  EXPECT_THAT(error.message(), HasSubstr("kernel 'vector_add': cannot open the CUDA driver"));
}

} // namespace
