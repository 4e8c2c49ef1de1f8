//===- matmul_host.cpp - The host program of matmul --------------------------------------===//

#include "host.h"
#include "matmul.h"

namespace examples {

Check runMatmul(const brick::runtime::Device &device, int m, int n, int k) {
  using namespace host;
  static auto kernel = matmul<brick::f16>();
  Check check{"matmul f16 " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k), 0, 1e-2, {}, 0};
  std::vector<float> a = randomFloats(size_t(m) * k), b = randomFloats(size_t(k) * n);
  auto da = upload(device, toMemory<brick::f16>(a)), db = upload(device, toMemory<brick::f16>(b));
  auto dc = poisoned(device, size_t(m) * n * sizeof(uint16_t));
  for (auto *buffer : {&da, &db, &dc})
    if (!*buffer)
      return check.failure = buffer->error().message(), check;
  const int blockM = 128, blockN = 128, blockK = 64, groupM = 8;
  unsigned programs = unsigned((m + blockM - 1) / blockM * ((n + blockN - 1) / blockN));
  brick::runtime::Error error = timed(check, [&] {
    return kernel.launch(brick::Grid{programs}, brick::LaunchOptions{.device = &device}, *da, *db, *dc, m, n, k, k, 1,
                         n, 1, n, 1, blockM, blockN, blockK, groupM);
  });
  if (error)
    return check.failure = error.message(), check;
  std::vector<uint16_t> c = download<uint16_t>(*dc, size_t(m) * n, check.failure);
  std::vector<double> got, ref;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double sum = 0;
      for (int p = 0; p < k; ++p)
        sum += double(a[size_t(i) * k + p]) * b[size_t(p) * n + j];
      ref.push_back(sum);
      got.push_back(brick::halfToFloat(c[size_t(i) * n + j]));
    }
  check.error = relativeError(got, ref);
  return check;
}

} // namespace examples
