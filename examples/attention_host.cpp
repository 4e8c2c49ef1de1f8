//===- attention_host.cpp - The host program of attention --------------------------------===//

#include "attention.h"
#include "host.h"

#include <cmath>

namespace examples {

template <brick::ElementTag T>
Check runAttention(const brick::runtime::Device &device, const AttentionProblem &problem,
                   std::optional<AttentionConfig> given) {
  using namespace host;
  const int heads = problem.batchHeads, seqLen = problem.seqLen, d = problem.headDim;
  AttentionConfig config = given.value_or(attentionConfig(d));
  std::string what = std::string("attention ") + (std::is_same_v<T, brick::f16> ? "f16" : "bf16") + " " +
                     std::to_string(heads) + " heads x " + std::to_string(seqLen) + " x " + std::to_string(d) +
                     ", " + std::to_string(config.blockM) + "x" + std::to_string(config.blockN) + " blocks";
  Check check{what, 0, std::is_same_v<T, brick::f16> ? 2e-3 : 1e-2, {}, 0};
  if (seqLen % config.blockM != 0 || seqLen % config.blockN != 0)
    return check.failure = "attention needs seqLen a multiple of BLOCK_M and BLOCK_N", check;

  // Q, K and V: [heads * seqLen, d], row-major.
  size_t elements = size_t(heads) * seqLen * d;
  std::vector<float> q = randomFloats(elements), k = randomFloats(elements), v = randomFloats(elements);
  auto dq = upload(device, toMemory<T>(q)), dk = upload(device, toMemory<T>(k)), dv = upload(device, toMemory<T>(v));
  auto dout = poisoned(device, elements * sizeof(typename Memory<T>::Stored));
  for (auto *buffer : {&dq, &dk, &dv, &dout})
    if (!*buffer)
      return check.failure = buffer->error().message(), check;
  const float scale = 1.0f / std::sqrt(float(d));

  static auto kernel = attention<T>();
  brick::LaunchOptions options{.numWarps = config.warps, .numStages = config.stages, .device = &device};
  options.targetCapability = problem.targetCapability;
  if (problem.targetCapability)
    check.what += ", sm_" + std::to_string(problem.targetCapability) + " code";
  using brick::TensorDescriptorArg;
  const int64_t rows = int64_t(heads) * seqLen;
  brick::runtime::Error error = timed(check, [&] {
    return kernel.launch(brick::Grid{unsigned(seqLen / config.blockM), unsigned(heads)}, options,
                         TensorDescriptorArg::of(*dq, {rows, d}, {d, 1}, {config.blockM, d}),
                         TensorDescriptorArg::of(*dk, {rows, d}, {d, 1}, {config.blockN, d}),
                         TensorDescriptorArg::of(*dv, {rows, d}, {d, 1}, {config.blockN, d}),
                         TensorDescriptorArg::of(*dout, {rows, d}, {d, 1}, {config.blockM, d}), seqLen, scale,
                         config.blockM, config.blockN, d);
  });
  if (error)
    return check.failure = error.message(), check;
  auto out = download<typename Memory<T>::Stored>(*dout, elements, check.failure);

  // float64 reference: softmax(q k^T * scale) v, row by row.
  std::vector<double> got, ref, scores(seqLen);
  for (int h = 0; h < heads; ++h)
    for (int i = 0; i < seqLen; ++i) {
      size_t row = size_t(h) * seqLen + i;
      double top = -INFINITY;
      for (int j = 0; j < seqLen; ++j) {
        double s = 0;
        for (int c = 0; c < d; ++c)
          s += double(q[row * d + c]) * k[(size_t(h) * seqLen + j) * d + c];
        scores[j] = s * scale;
        top = std::max(top, scores[j]);
      }
      double total = 0;
      for (double &s : scores)
        total += (s = std::exp(s - top));
      for (int c = 0; c < d; ++c) {
        double o = 0;
        for (int j = 0; j < seqLen; ++j)
          o += scores[j] * v[(size_t(h) * seqLen + j) * d + c];
        ref.push_back(o / total);
        got.push_back(double(Memory<T>::to(out[row * d + c])));
      }
    }
  check.error = relativeError(got, ref);
  return check;
}

template Check runAttention<brick::f16>(const brick::runtime::Device &, const AttentionProblem &,
                                        std::optional<AttentionConfig>);
template Check runAttention<brick::bf16>(const brick::runtime::Device &, const AttentionProblem &,
                                         std::optional<AttentionConfig>);

} // namespace examples
