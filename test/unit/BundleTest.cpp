//===- BundleTest.cpp - Kernel bundles: round trips, and damage is detected -------===//

#include "brick/Runtime/Bundle.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sys/stat.h>

using namespace brick::runtime;
using ::testing::HasSubstr;

namespace {

KernelBundle sample() {
  KernelBundle bundle;
  bundle.name = "softmax";
  bundle.target = "sm_90a";
  bundle.numWarps = 8;
  bundle.sharedMemory = 64;
  bundle.clusterSize = 2;
  bundle.params = {{BundleParam::Kind::Pointer, "f32"}, {BundleParam::Kind::Pointer, "f32"},
                   {BundleParam::Kind::Scalar, "i32"}};
  bundle.ptx = ".version 8.0\n.target sm_90a\n// ...\n";
  bundle.cubin = {'\x7f', 'E', 'L', 'F', '\0', '\x01', '\xff'};
  return bundle;
}

TEST(Bundle, RoundTrips) {
  KernelBundle bundle = sample();
  auto back = KernelBundle::deserialize(bundle.serialize());
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ(*back, bundle);
}

// Whole but unusable bundles (forged, or written by something else) are refused with the reason.
TEST(Bundle, BundlesNoGpuCanRunAreRefused) {
  auto refused = [](auto change) {
    KernelBundle bundle = sample();
    change(bundle);
    auto back = KernelBundle::deserialize(bundle.serialize());
    return back.ok() ? std::string("(accepted)") : back.error().message();
  };
  EXPECT_THAT(refused([](KernelBundle &b) { b.numWarps = 0; }), HasSubstr("0 warps (a power of two from 1 to 32"));
  EXPECT_THAT(refused([](KernelBundle &b) { b.numWarps = 1u << 27; }), HasSubstr("134217728 warps"));
  EXPECT_THAT(refused([](KernelBundle &b) { b.numWarps = 13; }), HasSubstr("13 warps"));
  EXPECT_THAT(refused([](KernelBundle &b) { b.numWarps = 6; }), HasSubstr("6 warps"));
  // A warp-specialized kernel runs its 4 producer warps beside a power of two of at least 4 consumers.
  for (unsigned warps : {8u, 12u, 20u})
    EXPECT_EQ(refused([&](KernelBundle &b) { b.numWarps = warps; }), "(accepted)") << warps;
  for (unsigned cluster : {0u, 3u, 16u})
    EXPECT_THAT(refused([&](KernelBundle &b) { b.clusterSize = cluster; }),
                HasSubstr("clusters of " + std::to_string(cluster) + " programs (1, 2, 4 or 8"));
  EXPECT_THAT(refused([](KernelBundle &b) { b.sharedMemory = 0xFFFFFFFFu; }),
              HasSubstr("4294967295 bytes of shared memory, more than any GPU gives a program"));
  EXPECT_THAT(refused([](KernelBundle &b) { b.target = "sm_50"; }), HasSubstr("target 'sm_50'"));
  EXPECT_THAT(refused([](KernelBundle &b) { b.target = "gfx90a"; }), HasSubstr("target 'gfx90a'"));
  EXPECT_THAT(refused([](KernelBundle &b) { b.target = "sm_a"; }), HasSubstr("target 'sm_a'"));
  EXPECT_THAT(refused([](KernelBundle &b) { b.name.clear(); }), HasSubstr("the kernel has no name"));
  for (const char *target : {"sm_80", "sm_90", "sm_90a", "sm_100a"})
    EXPECT_EQ(refused([&](KernelBundle &b) { b.target = target; }), "(accepted)") << target;
}

TEST(Bundle, EveryCorruptByteIsDetected) {
  std::string bytes = sample().serialize();
  // Flipping any byte after the magic breaks the version, the size or the checksum.
  for (size_t i = 11; i < bytes.size(); ++i) {
    std::string damaged = bytes;
    damaged[i] ^= 0x40;
    EXPECT_FALSE(KernelBundle::deserialize(damaged).ok()) << "byte " << i;
  }
  std::string damaged = bytes;
  damaged.back() ^= 1;
  EXPECT_THAT(KernelBundle::deserialize(damaged).error().message(), HasSubstr("checksum mismatch"));
}

TEST(Bundle, TruncationIsDetected) {
  std::string bytes = sample().serialize();
  for (size_t length : {size_t(0), size_t(5), size_t(20), bytes.size() / 2, bytes.size() - 1})
    EXPECT_FALSE(KernelBundle::deserialize(bytes.substr(0, length)).ok()) << length << " bytes";
  EXPECT_THAT(KernelBundle::deserialize(bytes.substr(0, bytes.size() - 1)).error().message(), HasSubstr("truncated"));
  EXPECT_THAT(KernelBundle::deserialize("hello").error().message(), HasSubstr("not a Brick kernel bundle"));
}

TEST(Bundle, OtherFormatVersionsAreRefused) {
  std::string bytes = sample().serialize();
  bytes[11] = 7; // the version's low byte
  EXPECT_THAT(KernelBundle::deserialize(bytes).error().message(), HasSubstr("kernel bundle format 7"));
}

TEST(Bundle, FilesAreWrittenWhole) {
  std::string dir = ::testing::TempDir() + "/brick-bundle-test";
  std::filesystem::create_directories(dir);
  std::string path = dir + "/softmax.brick";
  ASSERT_FALSE(sample().writeFile(path));
  auto back = KernelBundle::readFile(path);
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ(*back, sample());
  // No temporary file is left behind.
  int files = 0;
  for (auto &entry : std::filesystem::directory_iterator(dir))
    files += entry.is_regular_file();
  EXPECT_EQ(files, 1);
  // A damaged file is refused, naming the file.
  { std::ofstream(path, std::ios::binary | std::ios::app) << "junk"; }
  EXPECT_THAT(KernelBundle::readFile(path).error().message(), HasSubstr(path + ": kernel bundle truncated or padded"));
  EXPECT_THAT(KernelBundle::readFile(dir + "/missing").error().message(), HasSubstr("cannot read kernel bundle"));
  std::filesystem::remove_all(dir);
}

// What a damaged or hostile disk cache may hold at a bundle's name: a device (directly, or through a symbolic
// link), a FIFO with no writer, a directory, a file far larger than a bundle. Each is an error naming what it is,
// at once: no unbounded read (/dev/zero aborted on allocation) and no wait for a writer (a FIFO hung).
TEST(Bundle, OnlyRegularFilesOfBoundedSizeAreRead) {
  std::string dir = ::testing::TempDir() + "/brick-bundle-regular";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  EXPECT_THAT(KernelBundle::readFile("/dev/zero").error().message(), HasSubstr("it is a character device"));
  std::filesystem::create_symlink("/dev/zero", dir + "/link.brick");
  EXPECT_THAT(KernelBundle::readFile(dir + "/link.brick").error().message(), HasSubstr("it is a character device"));
  ASSERT_EQ(::mkfifo((dir + "/fifo.brick").c_str(), 0600), 0);
  EXPECT_THAT(KernelBundle::readFile(dir + "/fifo.brick").error().message(), HasSubstr("it is a FIFO"));
  EXPECT_THAT(KernelBundle::readFile(dir).error().message(), HasSubstr("it is a directory"));
  { std::ofstream(dir + "/huge.brick"); }
  std::filesystem::resize_file(dir + "/huge.brick", (size_t(256) << 20) + 1); // sparse: no disk taken
  EXPECT_THAT(KernelBundle::readFile(dir + "/huge.brick").error().message(), HasSubstr("expected at most"));
  auto small = readRegularFile(dir + "/huge.brick", 16);
  ASSERT_FALSE(small.ok());
  EXPECT_THAT(small.error().message(), HasSubstr("268435457 bytes, more than the 16 expected at most"));
  std::filesystem::remove_all(dir);
}

} // namespace
