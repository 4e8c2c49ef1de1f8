//===- softmax_host.cpp - The host program of softmax ------------------------------------===//

#include "host.h"
#include "softmax.h"

#include <cmath>

namespace examples {

template <brick::ElementTag T>
Check runSoftmax(const brick::runtime::Device &device, int rows, int cols, unsigned maxPrograms) {
  using namespace host;
  using Stored = typename Memory<T>::Stored;
  static auto kernel = softmax<T>();
  Check check{"softmax " + std::string(brick::name(T::dtype)) + " " + std::to_string(rows) + "x" + std::to_string(cols) +
                  (maxPrograms ? " on " + std::to_string(maxPrograms) + " programs" : ""),
              0,
              std::is_same_v<T, brick::f32> ? 1e-5 : 1e-2, {}, 0};
  int stride = cols + 3; // rows that do not start 16-byte aligned (unless cols does)
  std::vector<float> x = randomFloats(size_t(rows) * stride, 3.0f);
  std::vector<Stored> stored = toMemory<T>(x);
  auto in = upload(device, stored);
  auto out = poisoned(device, stored.size() * sizeof(Stored));
  for (auto *buffer : {&in, &out})
    if (!*buffer)
      return check.failure = buffer->error().message(), check;
  SoftmaxConfig config = softmaxConfig(cols, int(sizeof(Stored)));
  brick::LaunchOptions options{.numWarps = config.warps, .device = &device};
  unsigned programs = config.programs(rows, maxPrograms);
  brick::runtime::Error error = timed(check, [&] {
    return kernel.launch(brick::Grid{programs}, options, *out, *in, stride, stride, rows, cols, config.block,
                         config.rows);
  });
  if (error)
    return check.failure = error.message(), check;
  std::vector<Stored> result = download<Stored>(*out, stored.size(), check.failure);
  std::vector<double> got, ref;
  for (int r = 0; r < rows; ++r) {
    const float *row = &x[size_t(r) * stride];
    double max = -INFINITY, sum = 0;
    for (int c = 0; c < cols; ++c)
      max = std::max(max, double(row[c]));
    for (int c = 0; c < cols; ++c)
      sum += std::exp(double(row[c]) - max);
    for (int c = 0; c < cols; ++c) {
      ref.push_back(std::exp(double(row[c]) - max) / sum);
      got.push_back(Memory<T>::to(result[size_t(r) * stride + c]));
    }
    for (int c = cols; c < stride && check.failure.empty(); ++c)
      if (!std::isnan(Memory<T>::to(result[size_t(r) * stride + c])))
        check.failure = "row " + std::to_string(r) + ": wrote column " + std::to_string(c) + " (past " +
                        std::to_string(cols) + ")";
  }
  check.error = relativeError(got, ref);
  return check;
}

template Check runSoftmax<brick::f32>(const brick::runtime::Device &, int, int, unsigned);
template Check runSoftmax<brick::f16>(const brick::runtime::Device &, int, int, unsigned);
template Check runSoftmax<brick::bf16>(const brick::runtime::Device &, int, int, unsigned);

} // namespace examples
