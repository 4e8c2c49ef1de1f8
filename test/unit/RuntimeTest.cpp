//===- RuntimeTest.cpp - The runtime: driver errors everywhere, the GPU where there is one ---===//
//
// This binary links the runtime alone (no MLIR, no LLVM), so it runs on a GPU machine that has only the CUDA
// driver. Tests that need a GPU skip, saying why, where there is none.
//
//===----------------------------------------------------------------------===//

#include "brick/Runtime/Device.h"
#include "brick/Runtime/TensorMap.h"

#include "vector_add_ptx.h" // kVectorAddPtx: brickc --example=vector_add --emit=ptx (sm_90a, 4 warps, BLOCK 1024)

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>

using namespace brick::runtime;
using ::testing::HasSubstr;

namespace {

#define REQUIRE_DEVICE(device)                                                                                 \
  auto device = Device::get(0);                                                                                \
  if (!device)                                                                                                 \
    GTEST_SKIP() << "no GPU: " << device.error().message();

// The boxes a tensor map copies a block in (the compiler lays out shared memory by the same rules): one swizzle
// span of the row wide, and all its rows up to 128, else the largest power of two to 128 that divides them.
TEST(Runtime, TmaBoxesAreASwizzleSpanWideAndAtMost128RowsTall) {
  EXPECT_EQ(tmaBlockLayout(128, 2).boxInner, 64);
  EXPECT_EQ(tmaBlockLayout(128, 2).swizzleBytes, 128u);
  EXPECT_EQ(tmaBlockLayout(16, 2).swizzleBytes, 32u);
  EXPECT_EQ(tmaBoxRows(64), 64);
  EXPECT_EQ(tmaBoxRows(128), 128);
  EXPECT_EQ(tmaBoxRows(256), 128);
  EXPECT_EQ(tmaBoxRows(192), 64);
  EXPECT_EQ(tmaBoxRows(200), 8);
}

TEST(Runtime, MissingDriverIsAClearError) {
  Expected<Driver> driver = Driver::open("/nonexistent/libcuda.so.1");
  ASSERT_FALSE(driver.ok());
  EXPECT_THAT(driver.error().message(), HasSubstr("cannot open the CUDA driver /nonexistent/libcuda.so.1"));
  EXPECT_THAT(driver.error().message(), ::testing::EndsWith("(is an NVIDIA driver installed?)"));
}

TEST(Runtime, LibraryWithoutTheDriverApiIsAClearError) {
  // Any shared library that is not the driver: its missing entry points are named.
  Expected<Driver> driver = Driver::open("libm.so.6");
  ASSERT_FALSE(driver.ok());
  EXPECT_THAT(driver.error().message(), HasSubstr("lacks cuInit"));
}

TEST(Runtime, DriverErrorsNameCodeMessageAndAction) {
  REQUIRE_DEVICE(device);
  Error error = device->driver().check(1, "doing something");
  EXPECT_EQ(error.message(), "doing something: CUDA_ERROR_INVALID_VALUE (1): invalid argument");
  EXPECT_FALSE(device->driver().check(0, "fine"));
}

TEST(Runtime, DeviceProperties) {
  REQUIRE_DEVICE(device);
  EXPECT_FALSE(device->name().empty());
  EXPECT_GE(device->computeCapability(), 50);
  EXPECT_GT(device->multiprocessors(), 0);
  EXPECT_GE(device->maxSharedMemoryPerBlock(), 48 * 1024);
  EXPECT_FALSE(Device::get(1000).ok());
  EXPECT_THAT(Device::get(1000).error().message(), HasSubstr("there is no CUDA device 1000"));
}

/// copyToHost from an offset reads the bytes there, and refuses a range past the end.
void expectCopiesFromAnOffset(const Device &device) {
  std::vector<int32_t> host(1000);
  for (size_t i = 0; i < host.size(); ++i)
    host[i] = int32_t(i * 7);
  auto buffer = DeviceBuffer::allocate(device, host.size() * 4);
  ASSERT_TRUE(buffer.ok()) << buffer.error().message();
  ASSERT_FALSE(buffer->copyFromHost(host.data(), host.size() * 4));
  std::vector<int32_t> part(3, -1);
  ASSERT_FALSE(buffer->copyToHost(part.data(), 12, 400));
  EXPECT_EQ(part, (std::vector<int32_t>{700, 707, 714}));
  EXPECT_THAT(buffer->copyToHost(part.data(), 12, 3992).message(), HasSubstr("12 bytes at offset 3992 out of a buffer of 4000"));
  EXPECT_THAT(buffer->copyToHost(part.data(), 4, size_t(1) << 62).message(), HasSubstr("out of a buffer of 4000"));
}

TEST(Runtime, BufferRoundTrip) {
  REQUIRE_DEVICE(device);
  std::vector<float> host(4096);
  for (size_t i = 0; i < host.size(); ++i)
    host[i] = static_cast<float>(i) * 0.5f - 7.0f;
  auto buffer = DeviceBuffer::allocate(*device, host.size() * sizeof(float));
  ASSERT_TRUE(buffer.ok()) << buffer.error().message();
  ASSERT_FALSE(buffer->copyFromHost(host.data(), host.size() * sizeof(float)));
  std::vector<float> back(host.size(), NAN);
  ASSERT_FALSE(buffer->copyToHost(back.data(), back.size() * sizeof(float)));
  EXPECT_EQ(back, host);
  ASSERT_FALSE(buffer->fill(0xFF));
  ASSERT_FALSE(buffer->copyToHost(back.data(), back.size() * sizeof(float)));
  EXPECT_TRUE(std::isnan(back[0]) && std::isnan(back.back()));
  EXPECT_THAT(buffer->copyToHost(back.data(), 1 << 20).message(), HasSubstr("out of a buffer of 16384"));
  expectCopiesFromAnOffset(*device);
}

TEST(Runtime, InterpreterBufferCopiesFromAnOffset) { expectCopiesFromAnOffset(Device::interpreter()); }

TEST(Runtime, BadPtxShowsTheJitLog) {
  REQUIRE_DEVICE(device);
  auto module = Module::loadPTX(*device, ".version 8.0\n.target sm_90a\n.address_size 64\n.visible .entry k() { bogus; }\n");
  ASSERT_FALSE(module.ok());
  EXPECT_THAT(module.error().message(), HasSubstr("loading PTX: CUDA_ERROR_INVALID_PTX"));
  EXPECT_THAT(module.error().message(), HasSubstr("the driver's JIT said"));
}

// Each block adds itself to a counter, then watches it (up to `spins` reads) and writes the most it saw: every
// block sees all of the grid only where all of it is resident at once.
constexpr const char *kRendezvousPtx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry rendezvous(.param .u64 counter, .param .u64 seen, .param .u32 spins) {
  .reg .pred %p<4>;
  .reg .b32 %r<10>;
  .reg .b64 %rd<6>;
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra DONE;
  ld.param.u64 %rd1, [counter];
  ld.param.u64 %rd2, [seen];
  ld.param.u32 %r2, [spins];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r8, %nctaid.x;
  atom.global.add.u32 %r3, [%rd1], 1;
  mov.u32 %r4, 0;
  mov.u32 %r5, 0;
WATCH:
  ld.relaxed.gpu.global.u32 %r6, [%rd1];
  max.u32 %r4, %r4, %r6;
  setp.ge.u32 %p3, %r4, %r8;
  @%p3 bra STORE;
  add.u32 %r5, %r5, 1;
  setp.lt.u32 %p2, %r5, %r2;
  @%p2 bra WATCH;
STORE:
  mov.u32 %r7, %ctaid.x;
  mul.wide.u32 %rd3, %r7, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r4;
DONE:
  ret;
}
)";

// Function::maxResidentBlocks (what Grid::persistent launches): that many blocks, in whole clusters, are all
// resident at once, and one cluster more is not. With 200 KB of shared memory a block has an SM to itself, and
// clusters fit the GPCs whole: on an H200, 30 clusters of 4 (120 blocks), not 132 / 4.
TEST(Runtime, MaxResidentBlocksAreAllResidentAtOnceAndNoMore) {
  REQUIRE_DEVICE(device);
  if (device->computeCapability() < 90)
    GTEST_SKIP() << "thread block clusters need sm_90; this is sm_" << device->computeCapability();
  auto module = Module::loadPTX(*device, kRendezvousPtx);
  ASSERT_TRUE(module.ok()) << module.error().message();
  auto kernel = module->function("rendezvous");
  ASSERT_TRUE(kernel.ok()) << kernel.error().message();
  const unsigned shared = 200 * 1024, sms = unsigned(device->multiprocessors());
  auto counter = DeviceBuffer::allocate(*device, 4), seen = DeviceBuffer::allocate(*device, 4 * (sms + 8));
  // (a launch of more blocks than `seen` holds is never made: the count is checked first)
  auto stream = Stream::create(*device);
  ASSERT_TRUE(counter.ok() && seen.ok() && stream.ok());
  // The fewest blocks that saw all `blocks` of a launch of that many in clusters of `cluster`.
  auto fewestSeen = [&](unsigned blocks, unsigned cluster) {
    EXPECT_FALSE(counter->fill(0));
    EXPECT_FALSE(seen->fill(0xFF));
    CUdeviceptr c = counter->address(), s = seen->address();
    uint32_t spins = 1 << 18; // a few hundred ms of reads: enough for every resident block to arrive
    void *args[] = {&c, &s, &spins};
    Error launched = kernel->launch({blocks, 1, 1}, 128, shared, &*stream, args, cluster);
    EXPECT_FALSE(launched) << launched.message();
    EXPECT_FALSE(stream->synchronize());
    std::vector<uint32_t> values(blocks);
    EXPECT_FALSE(seen->copyToHost(values.data(), 4 * blocks));
    return *std::min_element(values.begin(), values.end());
  };
  for (unsigned cluster : {1u, 2u, 4u, 8u}) {
    auto resident = kernel->maxResidentBlocks(128, shared, cluster);
    ASSERT_TRUE(resident.ok()) << resident.error().message();
    ASSERT_GT(*resident, 0u) << "clusters of " << cluster;
    ASSERT_LE(*resident, sms / cluster * cluster) << "clusters of " << cluster; // one block per SM at most
    std::printf("clusters of %u: %u blocks of 200 KB resident at once (%u SMs)\n", cluster, *resident, sms);
    EXPECT_EQ(fewestSeen(*resident, cluster), *resident) << "clusters of " << cluster << ": not all resident";
    EXPECT_LT(fewestSeen(*resident + cluster, cluster), *resident + cluster)
        << "clusters of " << cluster << ": one cluster more than " << *resident << " blocks was resident too";
  }
}

// Each call that makes something on a device or queues work on it makes the device's context current itself:
// before each, this thread has no current context (as after another library's switch), and each still works.
TEST(Runtime, EveryDeviceCallMakesItsDevicesContextCurrent) {
  REQUIRE_DEVICE(device);
  const Driver &d = device->driver();
  auto detach = [&] { ASSERT_EQ(d.cuCtxSetCurrent(nullptr), 0); };
  detach();
  auto buffer = DeviceBuffer::allocate(*device, 4096);
  ASSERT_TRUE(buffer.ok()) << buffer.error().message();
  std::vector<float> values(1024, 2.5f), back(1024);
  detach();
  EXPECT_FALSE(buffer->fill(0)) << "fill";
  detach();
  Error copied = buffer->copyFromHost(values.data(), 4096);
  EXPECT_FALSE(copied) << copied.message();
  detach();
  copied = buffer->copyToHost(back.data(), 4096);
  EXPECT_FALSE(copied) << copied.message();
  EXPECT_EQ(back, values);
  detach();
  auto stream = Stream::create(*device);
  ASSERT_TRUE(stream.ok()) << stream.error().message();
  detach();
  auto start = Event::create(*device), end = Event::create(*device);
  ASSERT_TRUE(start.ok() && end.ok());
  detach();
  Error recorded = start->record(); // on the device's default stream
  EXPECT_FALSE(recorded) << recorded.message();
  if (device->computeCapability() == 90) { // the embedded PTX is sm_90a
    auto module = Module::loadPTX(*device, kVectorAddPtx);
    ASSERT_TRUE(module.ok()) << module.error().message();
    auto kernel = module->function("vector_add");
    ASSERT_TRUE(kernel.ok());
    CUdeviceptr p = buffer->address();
    int32_t count = 1024;
    void *args[] = {&p, &p, &p, &count};
    detach();
    Error launched = kernel->launch({1, 1, 1}, 128, 0, nullptr, args); // on the default stream
    EXPECT_FALSE(launched) << launched.message();
    detach();
    EXPECT_FALSE(buffer->copyToHost(back.data(), 4096));
    EXPECT_EQ(back, std::vector<float>(1024, 5.0f)); // x + x, after the launch on the same default stream
  }
  detach();
  recorded = end->record();
  EXPECT_FALSE(recorded) << recorded.message();
  auto ms = end->millisecondsSince(*start);
  EXPECT_TRUE(ms.ok()) << ms.error().message();
}

TEST(Runtime, LaunchesBrickPtx) {
  REQUIRE_DEVICE(device);
  if (device->computeCapability() != 90)
    GTEST_SKIP() << "the embedded PTX is for sm_90a; this is sm_" << device->computeCapability();
  auto module = Module::loadPTX(*device, kVectorAddPtx);
  ASSERT_TRUE(module.ok()) << module.error().message();
  auto kernel = module->function("vector_add");
  ASSERT_TRUE(kernel.ok()) << kernel.error().message();
  EXPECT_FALSE(module->function("nope").ok());
  EXPECT_GT(kernel->attributes().registers, 0);

  // n is a multiple of 16 (the PTX's specialization) but not of the 1024-element block.
  const int n = 100000 - 100000 % 16;
  std::mt19937 random(42);
  std::normal_distribution<float> normal;
  std::vector<float> x(n), y(n), out(n, NAN);
  for (int i = 0; i < n; ++i)
    x[i] = normal(random), y[i] = normal(random);
  auto dx = DeviceBuffer::allocate(*device, n * 4), dy = DeviceBuffer::allocate(*device, n * 4),
       dout = DeviceBuffer::allocate(*device, (n + 1024) * 4);
  ASSERT_TRUE(dx.ok() && dy.ok() && dout.ok());
  ASSERT_FALSE(dx->copyFromHost(x.data(), n * 4));
  ASSERT_FALSE(dy->copyFromHost(y.data(), n * 4));
  ASSERT_FALSE(dout->fill(0xFF));
  CUdeviceptr px = dx->address(), py = dy->address(), pout = dout->address();
  int32_t count = n;
  void *args[] = {&px, &py, &pout, &count};
  auto stream = Stream::create(*device);
  ASSERT_TRUE(stream.ok());
  ASSERT_FALSE(kernel->launch({unsigned((n + 1023) / 1024), 1, 1}, 128, 0, &*stream, args));
  ASSERT_FALSE(stream->synchronize());
  std::vector<float> tail(n + 1024);
  ASSERT_FALSE(dout->copyToHost(tail.data(), tail.size() * 4));
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(tail[i], x[i] + y[i]) << "element " << i;
  for (int i = n; i < n + 1024; ++i)
    ASSERT_TRUE(std::isnan(tail[i])) << "the mask let element " << i << " through";

  // Limits are checked before the launch, naming the kernel.
  Error tooMuch = kernel->launch({1, 1, 1}, 128, device->maxSharedMemoryPerBlock() + 1, nullptr, args);
  EXPECT_THAT(tooMuch.message(), HasSubstr("kernel 'vector_add' needs"));
  EXPECT_THAT(tooMuch.message(), HasSubstr("bytes of shared memory, more than the"));
  Error tooWide = kernel->launch({1, 1, 1}, 4096, 0, nullptr, args);
  EXPECT_THAT(tooWide.message(), HasSubstr("kernel 'vector_add': 4096 threads per block"));
}

} // namespace
