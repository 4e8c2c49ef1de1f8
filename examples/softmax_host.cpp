//===- softmax_host.cpp - The host program of softmax ------------------------------------===//

#include "host.h"
#include "softmax.h"

#include <cmath>

namespace examples {

namespace {
/// softmax<T> launched through the autotuner over softmaxCandidates near the hand rule, keyed by the columns
/// (one tuner per device kind).
template <brick::ElementTag T> auto &autotunedSoftmax(const brick::runtime::Device &device) {
  static auto kernel = softmax<T>();
  auto make = [](bool interpreter) {
    std::vector<brick::TuningConfig> configs;
    for (const SoftmaxConfig &config : softmaxCandidates())
      configs.push_back({{config.rows}, config.warps, 1});
    brick::AutotuneOptions options =
        exampleTuning(interpreter, [](const brick::TuningConfig &config, const std::vector<int64_t> &key) {
          return softmaxCandidateNear({0, int(config.get(0)), config.numWarps}, int(key[0]),
                                      int(sizeof(typename host::Memory<T>::Stored)));
        });
    return brick::autotune(kernel, configs, brick::TuningKey{{5}}, options);
  };
  static auto onGpu = make(false), onInterpreter = make(true);
  return device.isInterpreter() ? onInterpreter : onGpu;
}
} // namespace

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
  brick::runtime::Error error;
  if (maxPrograms) { // a persistent grid of a given size: the hand rule's launch
    brick::LaunchOptions options{.numWarps = config.warps, .device = &device};
    unsigned programs = config.programs(rows, maxPrograms);
    error = timed(check, [&] {
      return kernel.launch(brick::Grid{programs}, options, *out, *in, stride, stride, rows, cols, config.block,
                           config.rows);
    });
  } else { // the autotuner picks rows per program and warps
    auto &tuned = autotunedSoftmax<T>(device);
    auto programs = [&](const brick::TuningConfig &c) { return brick::Grid{unsigned((rows + c.get(0) - 1) / c.get(0))}; };
    error = timed(check, [&] {
      return tuned.launch(programs, brick::LaunchOptions{.device = &device}, *out, *in, stride, stride, rows, cols,
                          config.block, brick::fromConfig);
    });
    for (const brick::Tuning &tuning : tuned.tunings())
      if (tuning.key == std::vector<int64_t>{cols})
        check.what += ", autotuned (" + tuning.how + "): ROWS=" +
                      std::to_string(tuned.configs()[tuning.chosen].get(0)) + " warps=" +
                      std::to_string(tuned.configs()[tuning.chosen].numWarps);
  }
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
