//===- ExamplesOnGpuTest.cpp - Every example, launched through the JIT, against a CPU reference ---===//
//
// Fresh random inputs (never all zeros), outputs poisoned with NaN before each launch, several shapes including
// ragged ones. Errors: f32 within 1e-5 relative norm of a float64 reference; f16/bf16 results within 1e-2.
// Skips, saying why, where there is no GPU.
//
//===----------------------------------------------------------------------===//

#include "brick/JIT/JIT.h"
#include "matmul.h"
#include "moe.h"
#include "softmax.h"
#include "vector_add.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <algorithm>
#include <numeric>
#include <random>

using namespace brick;
using runtime::DeviceBuffer;

namespace {

const runtime::Device *gpu() {
  static runtime::Expected<runtime::Device> device = runtime::Device::get(0);
  return device ? &*device : nullptr;
}

#define REQUIRE_GPU()                                                                                          \
  if (!gpu())                                                                                                  \
    GTEST_SKIP() << "no GPU: " << runtime::Device::get(0).error().message();

std::mt19937 &rng() {
  static std::mt19937 generator(std::random_device{}());
  return generator;
}

std::vector<float> randomFloats(size_t n, float scale = 1.0f) {
  std::normal_distribution<float> normal(0.0f, scale);
  std::vector<float> values(n);
  for (float &v : values)
    v = normal(rng());
  return values;
}

/// IEEE binary16 / bfloat16 <-> float, round to nearest even.
uint16_t toHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000;
  int exponent = int((x >> 23) & 0xff) - 127 + 15;
  uint32_t mantissa = x & 0x7fffff;
  if (exponent <= 0) {
    if (exponent < -10)
      return sign;
    mantissa |= 0x800000;
    uint32_t shift = 14 - exponent;
    uint32_t half = mantissa >> shift, rest = mantissa & ((1u << shift) - 1), midpoint = 1u << (shift - 1);
    if (rest > midpoint || (rest == midpoint && (half & 1)))
      ++half;
    return sign | half;
  }
  if (exponent >= 31)
    return sign | 0x7c00;
  uint32_t half = (exponent << 10) | (mantissa >> 13), rest = mantissa & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1)))
    ++half;
  return sign | half;
}
float fromHalf(uint16_t h) {
  uint32_t sign = (h & 0x8000u) << 16, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff, x;
  if (exponent == 0) {
    float value = std::ldexp(float(mantissa), -24);
    return sign ? -value : value;
  }
  x = exponent == 31 ? sign | 0x7f800000 | (mantissa << 13) : sign | ((exponent + 112) << 23) | (mantissa << 13);
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}
uint16_t toBf16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  x += 0x7fff + ((x >> 16) & 1);
  return x >> 16;
}
float fromBf16(uint16_t b) {
  uint32_t x = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

double relativeError(const std::vector<double> &out, const std::vector<double> &ref) {
  double num = 0, den = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    if (!std::isfinite(out[i]))
      return INFINITY;
    num += (out[i] - ref[i]) * (out[i] - ref[i]);
    den += ref[i] * ref[i];
  }
  return std::sqrt(num / den);
}

template <class T> DeviceBuffer upload(const std::vector<T> &host, size_t extraBytes = 0) {
  auto buffer = DeviceBuffer::allocate(*gpu(), host.size() * sizeof(T) + extraBytes);
  EXPECT_TRUE(buffer.ok()) << buffer.error().message();
  EXPECT_FALSE(buffer->fill(0xFF));
  EXPECT_FALSE(buffer->copyFromHost(host.data(), host.size() * sizeof(T)));
  return std::move(*buffer);
}

template <class T> std::vector<T> download(const DeviceBuffer &buffer, size_t count) {
  std::vector<T> host(count);
  EXPECT_FALSE(buffer.copyToHost(host.data(), count * sizeof(T)));
  return host;
}

DeviceBuffer poisoned(size_t bytes) {
  auto buffer = DeviceBuffer::allocate(*gpu(), bytes);
  EXPECT_TRUE(buffer.ok()) << buffer.error().message();
  EXPECT_FALSE(buffer->fill(0xFF)); // NaN in every float format
  return std::move(*buffer);
}

TEST(ExamplesOnGpu, VectorAdd) {
  REQUIRE_GPU();
  auto kernel = examples::vectorAdd();
  for (int n : {1, 1000, 1024, 98432, 1 << 20, 3000017}) {
    std::vector<float> x = randomFloats(n), y = randomFloats(n);
    DeviceBuffer dx = upload(x), dy = upload(y), out = poisoned(n * 4);
    runtime::Error error = kernel.launch(Grid{unsigned((n + 1023) / 1024)}, LaunchOptions{}, dx, dy, out, n, 1024);
    ASSERT_FALSE(error) << error.message();
    std::vector<float> result = download<float>(out, n);
    for (int i = 0; i < n; ++i)
      ASSERT_EQ(result[i], x[i] + y[i]) << "n = " << n << ", element " << i;
  }
  for (const std::string &line : kernel.specializations())
    std::printf("  %s\n", line.c_str());
}

template <class T, class ToMemory, class FromMemory>
void checkSoftmax(ToMemory toMemory, FromMemory fromMemory, double tolerance) {
  auto kernel = examples::softmax<T>();
  using Stored = std::conditional_t<std::is_same_v<T, f32>, float, uint16_t>;
  for (auto [rows, cols] : {std::pair{1, 1}, {5, 3000}, {64, 1000}, {33, 1024}, {8, 4096}, {4, 16384}, {128, 256}}) {
    int stride = cols + 3; // rows that do not start 16-byte aligned unless cols is
    std::vector<float> x = randomFloats(size_t(rows) * stride, 3.0f);
    std::vector<Stored> memory(x.size());
    for (size_t i = 0; i < x.size(); ++i)
      memory[i] = toMemory(x[i]), x[i] = fromMemory(memory[i]);
    DeviceBuffer in = upload(memory), out = poisoned(memory.size() * sizeof(Stored));
    int block = 1;
    while (block < cols)
      block *= 2;
    LaunchOptions options{.numWarps = examples::softmaxWarps(block, int(sizeof(Stored)))};
    runtime::Error error = kernel.launch(Grid{unsigned(rows)}, options, out, in, stride, stride, cols, block);
    ASSERT_FALSE(error) << error.message();
    std::vector<Stored> result = download<Stored>(out, memory.size());
    std::vector<double> got, ref;
    for (int r = 0; r < rows; ++r) {
      double max = -INFINITY, sum = 0;
      for (int c = 0; c < cols; ++c)
        max = std::max(max, double(x[r * stride + c]));
      for (int c = 0; c < cols; ++c)
        sum += std::exp(double(x[r * stride + c]) - max);
      for (int c = 0; c < cols; ++c) {
        ref.push_back(std::exp(double(x[r * stride + c]) - max) / sum);
        got.push_back(fromMemory(result[r * stride + c]));
      }
      for (int c = cols; c < stride && r + 1 < rows; ++c)
        ASSERT_TRUE(std::isnan(fromMemory(result[r * stride + c]))) << "wrote past column " << cols;
    }
    EXPECT_LE(relativeError(got, ref), tolerance) << rows << "x" << cols;
  }
  for (const std::string &line : kernel.specializations())
    std::printf("  %s\n", line.c_str());
}

TEST(ExamplesOnGpu, SoftmaxF32) {
  REQUIRE_GPU();
  checkSoftmax<f32>([](float v) { return v; }, [](float v) { return v; }, 1e-5);
}

TEST(ExamplesOnGpu, SoftmaxBf16) {
  REQUIRE_GPU();
  checkSoftmax<bf16>(toBf16, fromBf16, 1e-2);
}

TEST(ExamplesOnGpu, MatmulF16) {
  REQUIRE_GPU();
  auto kernel = examples::matmul<f16>();
  for (auto [m, n, k] : {std::tuple{128, 128, 64}, {256, 384, 512}, {100, 70, 50}, {1, 300, 33}, {513, 129, 257}}) {
    std::vector<float> a = randomFloats(size_t(m) * k), b = randomFloats(size_t(k) * n);
    std::vector<uint16_t> ah(a.size()), bh(b.size());
    for (size_t i = 0; i < a.size(); ++i)
      ah[i] = toHalf(a[i]), a[i] = fromHalf(ah[i]);
    for (size_t i = 0; i < b.size(); ++i)
      bh[i] = toHalf(b[i]), b[i] = fromHalf(bh[i]);
    DeviceBuffer da = upload(ah), db = upload(bh), dc = poisoned(size_t(m) * n * 2);
    unsigned programs = unsigned((m + 127) / 128 * ((n + 127) / 128));
    runtime::Error error = kernel.launch(Grid{programs}, LaunchOptions{}, da, db, dc, m, n, k, k, 1, n, 1, n, 1, 128,
                                         128, 64, 8);
    ASSERT_FALSE(error) << error.message();
    std::vector<uint16_t> c = download<uint16_t>(dc, size_t(m) * n);
    std::vector<double> got, ref;
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        double sum = 0;
        for (int p = 0; p < k; ++p)
          sum += double(a[size_t(i) * k + p]) * b[size_t(p) * n + j];
        ref.push_back(sum);
        got.push_back(fromHalf(c[size_t(i) * n + j]));
      }
    EXPECT_LE(relativeError(got, ref), 1e-2) << m << "x" << n << "x" << k;
  }
}

TEST(ExamplesOnGpu, MoeBf16) {
  REQUIRE_GPU();
  auto kernel = examples::moe<bf16>();
  const int E = 8, topk = 2, K = 192, N = 320, BM = 64;
  for (int T : {1, 7, 100}) {
    std::vector<float> a = randomFloats(size_t(T) * K), w = randomFloats(size_t(E) * N * K, 0.1f);
    std::vector<uint16_t> ab(a.size()), wb(w.size());
    for (size_t i = 0; i < a.size(); ++i)
      ab[i] = toBf16(a[i]), a[i] = fromBf16(ab[i]);
    for (size_t i = 0; i < w.size(); ++i)
      wb[i] = toBf16(w[i]), w[i] = fromBf16(wb[i]);
    // Route each token to `topk` distinct experts; sort the pairs by expert, padding each run to BM.
    std::vector<int> expertOf(T * topk);
    for (int t = 0; t < T; ++t) {
      std::vector<int> experts(E);
      std::iota(experts.begin(), experts.end(), 0);
      std::shuffle(experts.begin(), experts.end(), rng());
      for (int j = 0; j < topk; ++j)
        expertOf[t * topk + j] = experts[j];
    }
    std::vector<int32_t> sorted, blockExpert;
    for (int e = 0; e < E; ++e) {
      size_t start = sorted.size();
      for (int p = 0; p < T * topk; ++p)
        if (expertOf[p] == e)
          sorted.push_back(p);
      if (sorted.size() == start)
        continue;
      while ((sorted.size() - start) % BM)
        sorted.push_back(T * topk);
      for (size_t b = start; b < sorted.size(); b += BM)
        blockExpert.push_back(e);
    }
    DeviceBuffer da = upload(ab), dw = upload(wb), ds = upload(sorted), dbe = upload(blockExpert),
                 dc = poisoned(size_t(T) * topk * N * 2);
    unsigned programs = unsigned(sorted.size() / BM * ((N + 127) / 128));
    runtime::Error error = kernel.launch(Grid{programs}, LaunchOptions{}, da, dw, dc, ds, dbe, int(sorted.size()), N, K, topk,
                                         T * topk, K, 1, N * K, K, 1, N, 1, 64, 128, 64, 8);
    ASSERT_FALSE(error) << error.message();
    std::vector<uint16_t> c = download<uint16_t>(dc, size_t(T) * topk * N);
    std::vector<double> got, ref;
    for (int p = 0; p < T * topk; ++p)
      for (int j = 0; j < N; ++j) {
        double sum = 0;
        for (int q = 0; q < K; ++q)
          sum += double(a[size_t(p / topk) * K + q]) * w[(size_t(expertOf[p]) * N + j) * K + q];
        ref.push_back(sum);
        got.push_back(fromBf16(c[size_t(p) * N + j]));
      }
    EXPECT_LE(relativeError(got, ref), 1e-2) << "T = " << T;
  }
}

TEST(ExamplesOnGpu, SecondLaunchReusesTheCompiledKernel) {
  REQUIRE_GPU();
  auto kernel = examples::vectorAdd();
  std::vector<float> x = randomFloats(4096), y = randomFloats(4096);
  DeviceBuffer dx = upload(x), dy = upload(y), out = poisoned(4096 * 4);
  for (int i = 0; i < 3; ++i)
    ASSERT_FALSE(kernel.launch(Grid{4}, LaunchOptions{}, dx, dy, out, 4096, 1024));
  EXPECT_EQ(kernel.specializations().size(), 1u);
  ASSERT_FALSE(kernel.launch(Grid{4}, LaunchOptions{}, dx, dy, out, 4095, 1024)); // n no longer divisible by 16
  EXPECT_EQ(kernel.specializations().size(), 2u);
}

} // namespace
