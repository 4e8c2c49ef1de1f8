//===- host.h - What the examples' host programs share ---------------------------------===//
//
// Each example's host program (<name>.cpp) makes fresh random inputs, poisons its outputs with NaN, launches
// the kernel through the JIT on a device (a GPU, or the CPU interpreter) and checks the result against a
// float64 reference computed here on the CPU. The example programs print what they find; the tests assert it.
//
//===----------------------------------------------------------------------===//
#ifndef BRICK_EXAMPLES_HOST_H
#define BRICK_EXAMPLES_HOST_H

#include "brick/JIT/Autotune.h"
#include "brick/JIT/JIT.h"
#include "attention.h"
#include "brick/Support/HalfFloat.h"
#include "matmul.h"
#include "moe_layer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace examples {

/// What one run of an example found.
struct Check {
  std::string what;      // "softmax bf16 5x3000"
  double error = 0;      // relative error (L2 norm) against the float64 reference
  double tolerance = 0;  // the most `error` may be for the element type
  std::string failure;   // why the run failed (a launch error, a write out of bounds), or empty
  double milliseconds = 0; // the launch, as the host saw it (compilation included on a first launch)
  bool ok() const { return failure.empty() && error <= tolerance; }
  std::string str() const;
};

Check runVectorAdd(const brick::runtime::Device &device, int n);
/// Softmax of a rows x cols matrix whose rows are `cols + 3` elements apart (so they are not 16-byte aligned),
/// with at most `maxPrograms` programs when given (each then loops over several tiles of rows).
template <brick::ElementTag T>
Check runSoftmax(const brick::runtime::Device &device, int rows, int cols, unsigned maxPrograms = 0);
/// One matmul to run and check: its shape, how its operands are stored, and how to launch it.
struct MatmulProblem {
  int m, n, k;
  bool transposeA = false, transposeB = false;            // A stored K x M, B stored N x K
  int padding = 0;                                         // unused elements at the end of each stored row
  brick::Precision precision = brick::Precision::TF32;     // for f32 inputs
  std::optional<MatmulConfig> config;                      // default: matmulConfig(m, n, k, ...)
  unsigned targetCapability = 0;                           // LaunchOptions::targetCapability
  bool descriptors = false; // matmulDescriptors (16-byte row strides; transposeB: matmulDescriptorsTransposedB)
  bool persistent = false;                                 // matmulPersistent (as descriptors), one wave of programs
};
/// C = A * B with A and B of T (f16, bf16, f32: C the same; i8: C is i32), checked against float64: every
/// element, or for large problems 4096 random ones and the last row and column.
template <brick::ElementTag T> Check runMatmul(const brick::runtime::Device &device, const MatmulProblem &problem);
/// The whole MoE layer at `shape` (examples/moe.h), checked: routing against float64, the sorted rows exactly,
/// the output against a float64 layer over the kernels' routing. `config`: moeConfig(shape) unless given.
template <brick::ElementTag T>
Check runMoe(const brick::runtime::Device &device, const MoeShape &shape, MoeWeights weights = MoeWeights::Host,
             std::optional<MoeConfig> config = std::nullopt);

/// Fused attention (examples/attention.h) at `shape` on fresh random inputs, checked against float64 (every row of
/// a small problem, else a sample with each sequence's first and last rows), the log-sum-exp too where the shape
/// asks for it; through the autotuner (launchAttentionTuned) unless `config` is given; `targetCapability` as
/// LaunchOptions'.
template <brick::ElementTag T>
Check runAttention(const brick::runtime::Device &device, const AttentionShape &shape,
                   std::optional<AttentionConfig> config = std::nullopt, unsigned targetCapability = 0);

/// How the example programs autotune: short trials on a GPU (the examples run as tests too; the default is
/// 25 + 100 ms), as few host-timed launches as possible on the interpreter, and a prune that keeps the candidates
/// `suits(config, key)` accepts (on the interpreter only the first two: its times say little about a GPU's; the
/// tests check the choice machinery on their own).
brick::AutotuneOptions exampleTuning(bool interpreter,
                                     std::function<bool(const brick::TuningConfig &, const std::vector<int64_t> &)> suits);

/// Runs the example called `name` at the shapes its program uses (a few, small enough for the interpreter).
std::vector<Check> runExample(const std::string &name, const brick::runtime::Device &device);

/// GPU 0, or the CPU interpreter when there is no GPU (or BRICK_INTERPRET=1); `why` says which and why.
brick::runtime::Device pickDevice(std::string *why);

namespace host {
/// BRICK_SEED where it is set to a 32-bit unsigned integer (so that runs draw the same inputs and the same MoE
/// routing, and compare), else one from std::random_device (with a warning where BRICK_SEED is not such a number).
std::mt19937::result_type randomSeed();
/// The seed rng() starts from (drawn once with randomSeed()): printed by brick-bench, so that BRICK_SEED can
/// repeat a run.
std::mt19937::result_type rngSeed();
/// The examples' random numbers, seeded with rngSeed().
std::mt19937 &rng();
std::vector<float> randomFloats(size_t n, float scale = 1.0f);

/// Elements of type T as they sit in memory, converted from and to float.
template <brick::ElementTag T> struct Memory;
template <> struct Memory<brick::f32> {
  using Stored = float;
  static Stored from(float v) { return v; }
  static float to(Stored v) { return v; }
};
template <> struct Memory<brick::f16> {
  using Stored = uint16_t;
  static Stored from(float v) { return brick::floatToHalf(v); }
  static float to(Stored v) { return brick::halfToFloat(v); }
};
template <> struct Memory<brick::i8> {
  using Stored = int8_t;
  static Stored from(float v) { return Stored(v); }
  static float to(Stored v) { return v; }
};
template <> struct Memory<brick::i32> {
  using Stored = int32_t;
  static Stored from(float v) { return Stored(v); }
  static double to(Stored v) { return v; }
};
template <> struct Memory<brick::bf16> {
  using Stored = uint16_t;
  static Stored from(float v) { return brick::floatToBf16(v); }
  static float to(Stored v) { return brick::bf16ToFloat(v); }
};
/// Rounds `values` to T in place and returns them as stored in memory.
template <brick::ElementTag T> std::vector<typename Memory<T>::Stored> toMemory(std::vector<float> &values) {
  std::vector<typename Memory<T>::Stored> stored(values.size());
  for (size_t i = 0; i < values.size(); ++i)
    stored[i] = Memory<T>::from(values[i]), values[i] = Memory<T>::to(stored[i]);
  return stored;
}

/// A buffer on `device` holding `values` (NaN bytes after them when `extraBytes`).
brick::runtime::Expected<brick::runtime::DeviceBuffer> upload(const brick::runtime::Device &device, const void *values,
                                                               size_t bytes, size_t extraBytes = 0);
template <class T>
brick::runtime::Expected<brick::runtime::DeviceBuffer> upload(const brick::runtime::Device &device,
                                                               const std::vector<T> &values) {
  return upload(device, values.data(), values.size() * sizeof(T));
}
/// A buffer of `bytes` filled with 0xFF: NaN in every float format, so an element never written shows.
brick::runtime::Expected<brick::runtime::DeviceBuffer> poisoned(const brick::runtime::Device &device, size_t bytes);
template <class T> std::vector<T> download(const brick::runtime::DeviceBuffer &buffer, size_t count, std::string &failure) {
  std::vector<T> values(count);
  if (brick::runtime::Error e = buffer.copyToHost(values.data(), count * sizeof(T)))
    failure = e.message();
  return values;
}

/// sqrt(sum (out - ref)^2 / sum ref^2); infinite when `out` has a NaN or an infinity.
double relativeError(const std::vector<double> &out, const std::vector<double> &ref);
/// Runs `launch` (a runtime::Error()) and times it.
template <class F> brick::runtime::Error timed(Check &check, F launch) {
  auto start = std::chrono::steady_clock::now();
  brick::runtime::Error error = launch();
  check.milliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return error;
}
} // namespace host

} // namespace examples

#endif // BRICK_EXAMPLES_HOST_H
