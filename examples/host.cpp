//===- host.cpp - What the examples' host programs share -------------------------------===//

#include "host.h"

#include <cmath>
#include <cstdio>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <limits>

namespace examples {

using brick::runtime::Device;
using brick::runtime::DeviceBuffer;
using brick::runtime::Expected;

std::string Check::str() const {
  char line[256];
  if (!failure.empty())
    return what + ": FAILED: " + failure;
  std::snprintf(line, sizeof(line), "%s: relative error %.2g (at most %.0e) %s, %.1f ms", what.c_str(), error, tolerance,
                ok() ? "ok" : "FAILED", milliseconds);
  return line;
}

Device pickDevice(std::string *why) {
  Expected<Device> gpu = Device::get(0);
  if (gpu) {
    *why = gpu->isInterpreter() ? "BRICK_INTERPRET is set" : "a GPU is present";
    return *gpu;
  }
  *why = "no GPU: " + gpu.error().message();
  return Device::interpreter();
}

namespace host {

std::mt19937::result_type randomSeed() {
  const char *seed = std::getenv("BRICK_SEED");
  if (seed && *seed) {
    char *end = nullptr; // strtoull would take leading blanks and a sign: only digits are a seed
    bool digits = std::isdigit(static_cast<unsigned char>(*seed));
    errno = 0;
    unsigned long long value = std::strtoull(seed, &end, 10);
    if (digits && *end == '\0' && errno == 0 && value <= std::numeric_limits<uint32_t>::max())
      return std::mt19937::result_type(value);
    std::fprintf(stderr, "BRICK_SEED='%s' is not a 32-bit unsigned integer; drawing a seed instead\n", seed);
  }
  return std::random_device{}();
}

std::mt19937::result_type rngSeed() {
  static const std::mt19937::result_type seed = randomSeed();
  return seed;
}

std::mt19937 &rng() {
  static std::mt19937 generator(rngSeed());
  return generator;
}

std::vector<float> randomFloats(size_t n, float scale) {
  std::normal_distribution<float> normal(0.0f, scale);
  std::vector<float> values(n);
  for (float &v : values)
    v = normal(rng());
  return values;
}

Expected<DeviceBuffer> upload(const Device &device, const void *values, size_t bytes, size_t extraBytes) {
  auto buffer = poisoned(device, bytes + extraBytes);
  if (!buffer)
    return buffer;
  if (brick::runtime::Error e = buffer->copyFromHost(values, bytes))
    return e;
  return buffer;
}

Expected<DeviceBuffer> poisoned(const Device &device, size_t bytes) {
  auto buffer = DeviceBuffer::allocate(device, bytes);
  if (!buffer)
    return buffer;
  if (brick::runtime::Error e = buffer->fill(0xFF))
    return e;
  return buffer;
}

double relativeError(const std::vector<double> &out, const std::vector<double> &ref) {
  double num = 0, den = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    if (!std::isfinite(out[i]))
      return INFINITY;
    num += (out[i] - ref[i]) * (out[i] - ref[i]);
    den += ref[i] * ref[i];
  }
  return den == 0 ? std::sqrt(num) : std::sqrt(num / den);
}

} // namespace host
brick::AutotuneOptions exampleTuning(bool interpreter,
                                     std::function<bool(const brick::TuningConfig &, const std::vector<int64_t> &)> suits) {
  brick::AutotuneOptions options;
  if (interpreter) // host times say little about a GPU's: one launch each, no final bursts
    options.warmupMs = 0, options.measureMs = 0, options.minRepetitions = 1, options.finalists = 0;
  else
    options.warmupMs = 10, options.measureMs = 40;
  options.prune = [interpreter, suits](const std::vector<brick::TuningConfig> &all, const std::vector<int64_t> &key) {
    std::vector<brick::TuningConfig> kept;
    for (const brick::TuningConfig &config : all)
      if (suits(config, key) && (!interpreter || kept.size() < 2))
        kept.push_back(config);
    return kept;
  };
  return options;
}

} // namespace examples
