// What both AOT programs check through the generated launcher: results, the choice of specialization by the
// arguments, and the error when no compiled specialization fits.
#pragma once

#include "consumer_kernels.h"

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

inline int checkLauncher(const brick::runtime::Device &device) {
  using namespace brick::runtime;
  const int n = 3000; // not a multiple of 16: only the generic variant fits
  for (int count : {4096, n}) {
    std::vector<float> x(count), y(count), expected(count);
    for (int i = 0; i < count; ++i) {
      x[i] = float(i % 89) * 0.5f;
      y[i] = float(i % 7) - 3.0f;
      expected[i] = -2.0f * x[i] + y[i];
    }
    auto xs = DeviceBuffer::allocate(device, count * sizeof(float));
    auto ys = DeviceBuffer::allocate(device, count * sizeof(float));
    if (!xs || !ys || xs->copyFromHost(x.data(), count * sizeof(float)) ||
        ys->copyFromHost(y.data(), count * sizeof(float)))
      return std::fprintf(stderr, "FAIL: buffers\n"), 1;
    LaunchGrid grid{unsigned((count + 1023) / 1024)};
    if (Error error = consumer_kernels::saxpy(nullptr, grid, *ys, *xs, -2.0f, count, 1024, &device))
      return std::fprintf(stderr, "FAIL: launch (n = %d): %s\n", count, error.message().c_str()), 1;
    if (ys->copyToHost(y.data(), count * sizeof(float)))
      return std::fprintf(stderr, "FAIL: copy back\n"), 1;
    for (int i = 0; i < count; ++i)
      if (std::fabs(y[i] - expected[i]) > 1e-5f * std::fabs(expected[i]) + 1e-6f)
        return std::fprintf(stderr, "FAIL: n = %d: y[%d] = %g, expected %g\n", count, i, y[i], expected[i]), 1;
    std::printf("saxpy n = %d through the generated launcher: OK\n", count);
  }
  // BLOCK = 512 was never compiled: a clear error, nothing launched.
  auto buffer = DeviceBuffer::allocate(device, 1024 * sizeof(float));
  Error error = consumer_kernels::saxpy(nullptr, {2}, *buffer, *buffer, 1.0f, 1024, 512, &device);
  if (!error || error.message().find("no compiled specialization fits") == std::string::npos)
    return std::fprintf(stderr, "FAIL: BLOCK = 512 should find no specialization, got '%s'\n",
                        error.message().c_str()), 1;
  std::printf("an uncompiled specialization is refused: OK\n");
  return 0;
}
