//===- vector_add_host.cpp - The host program of vector_add -----------------------------===//

#include "host.h"
#include "vector_add.h"

namespace examples {

Check runVectorAdd(const brick::runtime::Device &device, int n) {
  using namespace host;
  static auto kernel = vectorAdd(); // one JIT cache for every run
  Check check{"vector_add f32 n=" + std::to_string(n), 0, 0, {}, 0};
  std::vector<float> x = randomFloats(n), y = randomFloats(n);
  auto dx = upload(device, x), dy = upload(device, y);
  auto out = poisoned(device, size_t(n) * sizeof(float));
  for (auto *buffer : {&dx, &dy, &out})
    if (!*buffer)
      return check.failure = buffer->error().message(), check;
  const int block = 1024;
  brick::runtime::Error error = timed(check, [&] {
    return kernel.launch(brick::Grid{unsigned((n + block - 1) / block)}, brick::LaunchOptions{.device = &device}, *dx,
                         *dy, *out, n, block);
  });
  if (error)
    return check.failure = error.message(), check;
  std::vector<float> result = download<float>(*out, n, check.failure);
  // f32 addition is exact to compare: the GPU and the reference round the same sum once.
  for (int i = 0; i < n && check.failure.empty(); ++i)
    if (result[i] != x[i] + y[i])
      check.failure = "element " + std::to_string(i) + " is " + std::to_string(result[i]) + ", not " +
                      std::to_string(x[i] + y[i]);
  return check;
}

} // namespace examples
