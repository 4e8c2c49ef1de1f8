//===- BrickBench.cpp - Brick's side of the benchmarks: bandwidth, cold compile, launch cost ---===//
//
// Prints one JSON object; bench/run.py runs this, measures torch and Triton in the same run on the same GPU,
// and prints the ratios. GPU times: CUDA events around each launch, the L2 flushed (a 256 MB memset) before
// each, median of 50. Results are checked before they are timed.
//
//===----------------------------------------------------------------------===//

#include "brick/JIT/JIT.h"
#include "brick/Support/HalfFloat.h"
#include "softmax.h"
#include "vector_add.h"

#include <algorithm>
#include <cstring>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

using namespace brick;
using runtime::DeviceBuffer;

namespace {
const runtime::Device *device;
DeviceBuffer *flushBuffer;

void fail(const std::string &what) {
  std::fprintf(stderr, "brick-bench: %s\n", what.c_str());
  std::exit(1);
}
void check(const runtime::Error &error) {
  if (error)
    fail(error.message());
}

DeviceBuffer allocate(size_t bytes) {
  auto buffer = DeviceBuffer::allocate(*device, bytes);
  if (!buffer)
    fail(buffer.error().message());
  return std::move(*buffer);
}

template <class Launch> double medianMilliseconds(Launch launch, int reps = 50) {
  launch(); // warm
  auto start = runtime::Event::create(*device), end = runtime::Event::create(*device);
  std::vector<double> times;
  for (int i = 0; i < reps; ++i) {
    check(flushBuffer->fill(static_cast<unsigned char>(i)));
    check(start->record());
    launch();
    check(end->record());
    auto ms = end->millisecondsSince(*start);
    if (!ms)
      fail(ms.error().message());
    times.push_back(*ms);
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

std::vector<float> randomFloats(size_t n) {
  std::mt19937 rng(1234);
  std::normal_distribution<float> normal;
  std::vector<float> v(n);
  for (float &x : v)
    x = normal(rng);
  return v;
}

} // namespace

int main() {
  auto dev = runtime::Device::get(0);
  if (!dev)
    fail(dev.error().message());
  device = &*dev;
  std::string cache = std::filesystem::temp_directory_path().string() + "/brick-bench-cache";
  std::filesystem::remove_all(cache);
  setenv("BRICK_CACHE_DIR", cache.c_str(), 1);
  DeviceBuffer flush = allocate(256 << 20);
  flushBuffer = &flush;
  std::printf("{\n  \"device\": \"%s\"", device->name().c_str());

  // vector_add, 2^26 f32: 3 x 4 bytes per element move.
  {
    auto kernel = examples::vectorAdd();
    const int n = 1 << 26;
    std::vector<float> hx = randomFloats(n);
    DeviceBuffer x = allocate(n * 4ull), y = allocate(n * 4ull), out = allocate(n * 4ull);
    check(x.copyFromHost(hx.data(), n * 4ull));
    check(y.copyFromHost(hx.data(), n * 4ull));
    auto run = [&] { check(kernel.launch(Grid{unsigned(n / 1024)}, LaunchOptions{}, x, y, out, n, 1024)); };
    run();
    std::vector<float> back(1024);
    check(out.copyToHost(back.data(), 4096));
    for (int i = 0; i < 1024; ++i)
      if (back[i] != 2 * hx[i])
        fail("vector_add computed a wrong result");
    double ms = medianMilliseconds(run);
    std::printf(",\n  \"vector_add_GBps\": %.0f", 12.0 * n / ms / 1e6);
  }

  // Softmax 8192 x N, f32 and bf16, one row per program; warps as the Triton tutorial picks them.
  for (bool bf16 : {false, true}) {
    for (int cols : {256, 1024, 3000, 4096, 16384}) {
      const int rows = 8192;
      int block = 1;
      while (block < cols)
        block *= 2;
      unsigned warps = examples::softmaxWarps(block, bf16 ? 2 : 4);
      // BRICK_BENCH_SOFTMAX_WARPS=<n> replaces the tutorial's choice (bench/run.py --sweep tries several).
      if (const char *forced = std::getenv("BRICK_BENCH_SOFTMAX_WARPS"); forced && *forced)
        warps = static_cast<unsigned>(std::atoi(forced));
      size_t bytes = size_t(rows) * cols * (bf16 ? 2 : 4);
      std::vector<float> hx = randomFloats(size_t(rows) * cols);
      DeviceBuffer in = allocate(bytes), out = allocate(bytes);
      if (bf16) {
        std::vector<uint16_t> h(hx.size());
        for (size_t i = 0; i < h.size(); ++i)
          h[i] = brick::floatToBf16(hx[i]);
        check(in.copyFromHost(h.data(), bytes));
      } else {
        check(in.copyFromHost(hx.data(), bytes));
      }
      double ms;
      if (bf16) {
        auto kernel = examples::softmax<brick::bf16>();
        ms = medianMilliseconds([&] {
          check(kernel.launch(Grid{unsigned(rows)}, LaunchOptions{.numWarps = warps}, out, in, cols, cols, cols, block));
        });
      } else {
        auto kernel = examples::softmax<brick::f32>();
        auto run = [&] {
          check(kernel.launch(Grid{unsigned(rows)}, LaunchOptions{.numWarps = warps}, out, in, cols, cols, cols, block));
        };
        run();
        std::vector<float> row(cols);
        check(out.copyToHost(row.data(), cols * 4ull));
        double sum = 0;
        for (float v : row)
          sum += v;
        if (std::fabs(sum - 1.0) > 1e-4)
          fail("softmax rows do not sum to 1");
        ms = medianMilliseconds(run);
      }
      std::printf(",\n  \"softmax_%s_8192x%d_GBps\": %.0f", bf16 ? "bf16" : "fp32", cols, 2.0 * bytes / ms / 1e6);
    }
  }

  // Cold compile: the first launch of a softmax specialization nothing has compiled (empty disk cache).
  {
    std::filesystem::remove_all(cache);
    auto kernel = examples::softmax<brick::f32>();
    DeviceBuffer in = allocate(1024 * 4 * 64), out = allocate(1024 * 4 * 64);
    auto start = std::chrono::steady_clock::now();
    check(kernel.launch(Grid{64}, LaunchOptions{}, out, in, 1024, 1024, 1024, 1024));
    double cold = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    auto warmKernel = examples::softmax<brick::f32>(); // a fresh kernel object: empty memory cache, warm disk cache
    start = std::chrono::steady_clock::now();
    check(warmKernel.launch(Grid{64}, LaunchOptions{}, out, in, 1024, 1024, 1024, 1024));
    double warm = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::printf(",\n  \"softmax_cold_first_launch_ms\": %.1f,\n  \"softmax_disk_cached_first_launch_ms\": %.1f", cold, warm);
  }

  // Cached launch: host time of one launch call, median of 10,000 (synchronizing every 256 so the queue never
  // fills), for a small vector_add.
  {
    auto kernel = examples::vectorAdd();
    DeviceBuffer x = allocate(4096), y = allocate(4096), out = allocate(4096);
    check(kernel.launch(Grid{1}, LaunchOptions{}, x, y, out, 1024, 1024));
    std::vector<double> times;
    for (int i = 0; i < 10000; ++i) {
      auto start = std::chrono::steady_clock::now();
      check(kernel.launch(Grid{1}, LaunchOptions{}, x, y, out, 1024, 1024));
      times.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
      if (i % 256 == 255)
        check(device->driver().check(device->driver().cuCtxSynchronize(), "synchronizing"));
    }
    std::sort(times.begin(), times.end());
    std::printf(",\n  \"cached_launch_us\": %.2f", times[times.size() / 2]);

    // The floors under it: the runtime's launch of the same loaded kernel (limit checks included), and the bare
    // driver call.
    std::string why;
    auto bundle = detail::compileSpecialization(
        detail::JitKernel{kernel.name(), kernel.params(),
                          [&](mlir::MLIRContext *c, const Specialization &s, const std::function<void(mlir::Operation *)> &r) {
                            return kernel.build(c, s, r);
                          },
                          &kernel.jitState()},
        detail::specializationFor(kernel.params(), {{detail::LaunchArg::Kind::Pointer, x.address()},
                                                    {detail::LaunchArg::Kind::Pointer, y.address()},
                                                    {detail::LaunchArg::Kind::Pointer, out.address()},
                                                    {detail::LaunchArg::Kind::Integer, 0, 1024},
                                                    {detail::LaunchArg::Kind::Integer, 0, 1024}}),
        LaunchOptions{}, "sm_" + std::to_string(device->computeCapability()) + "a", &why);
    if (!bundle)
      fail(bundle.error().message());
    auto loaded = runtime::LoadedKernel::load(*device, *bundle);
    if (!loaded)
      fail(loaded.error().message());
    runtime::CUdeviceptr px = x.address(), py = y.address(), pout = out.address();
    int32_t n = 1024;
    void *args[] = {&px, &py, &pout, &n};
    auto medianOf = [&](auto launch) {
      std::vector<double> t;
      for (int i = 0; i < 10000; ++i) {
        auto start = std::chrono::steady_clock::now();
        launch();
        t.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
        if (i % 256 == 255)
          check(device->driver().check(device->driver().cuCtxSynchronize(), "synchronizing"));
      }
      std::sort(t.begin(), t.end());
      return t[t.size() / 2];
    };
    double runtimeLaunch = medianOf([&] { check(loaded->launch({1, 1, 1}, nullptr, args)); });
    double driverLaunch = medianOf([&] {
      check(device->driver().check(device->driver().cuLaunchKernel(
                                       loaded->function().handle(), 1, 1, 1, 128, 1,
                                       1, 0, nullptr, args, nullptr),
                                   "launching"));
    });
    std::printf(",\n  \"runtime_launch_us\": %.2f,\n  \"driver_launch_us\": %.2f", runtimeLaunch, driverLaunch);
  }
  std::printf("\n}\n");
  std::filesystem::remove_all(cache);
  return 0;
}
