// Runs the user's saxpy on the CPU interpreter (or the GPU when BRICK_INTERPRET=0 and there is one); with
// options (--emit=ptx --arch=sm_90a, --aot=DIR, --help, ...) it is brickc for its own kernel.
#include "saxpy.h"

#include "brick/JIT/Compile.h"
#include "brick/JIT/JIT.h"
#include "brick/JIT/Profile.h"

#include <cmath>
#include <cstdio>
#include <vector>

int main(int argc, char **argv) {
  if (argc > 1)
    return brick::tool::main(argc, argv, consumer::toolKernels());

  using namespace brick::runtime;
  Device device = Device::interpreter();
  const int n = 4096;
  std::vector<float> x(n), y(n), expected(n);
  for (int i = 0; i < n; ++i) {
    x[i] = float(i % 97) * 0.25f;
    y[i] = float(i % 13) - 6.0f;
    expected[i] = 3.0f * x[i] + y[i];
  }
  auto xs = DeviceBuffer::allocate(device, n * sizeof(float));
  auto ys = DeviceBuffer::allocate(device, n * sizeof(float));
  if (!xs || !ys || xs->copyFromHost(x.data(), n * sizeof(float)) || ys->copyFromHost(y.data(), n * sizeof(float)))
    return std::fprintf(stderr, "FAIL: buffers\n"), 1;
  auto saxpy = consumer::saxpy();
  // What a launch with these arguments compiles, without launching.
  std::string spec = brick::describeSpecialization(brick::specializationOf(saxpy, *ys, *xs, 3.0f, n, 1024));
  if (spec != "(%16, %16, _, %16, 1024)")
    return std::fprintf(stderr, "FAIL: specialization %s\n", spec.c_str()), 1;
  brick::profile::enable(); // the installed profiler: this launch's bytes, counted from its IR
  Error error = saxpy.launch(brick::Grid{n / 1024}, brick::LaunchOptions{.device = &device}, *ys, *xs, 3.0f, n, 1024);
  if (error)
    return std::fprintf(stderr, "FAIL: %s\n", error.message().c_str()), 1;
  if (ys->copyToHost(y.data(), n * sizeof(float)))
    return std::fprintf(stderr, "FAIL: copy back\n"), 1;
  for (int i = 0; i < n; ++i)
    if (std::fabs(y[i] - expected[i]) > 1e-5f * std::fabs(expected[i]) + 1e-6f)
      return std::fprintf(stderr, "FAIL: y[%d] = %g, expected %g\n", i, y[i], expected[i]), 1;
  std::vector<brick::profile::Record> records = brick::profile::records();
  // saxpy reads x and y and writes y: 3 x 4 bytes per element, with n a multiple of the block.
  if (records.size() != 1 || records[0].dramBytes != 12.0 * n || !records[0].exact)
    return std::fprintf(stderr, "FAIL: profile %s", brick::profile::table(records).c_str()), 1;
  std::printf("saxpy %s on the interpreter: OK\n", spec.c_str());
  return 0;
}
