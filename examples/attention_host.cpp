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
  std::vector<double> got, ref(elements);
  for (int64_t row = 0; row < rows; ++row) {
    attentionReferenceRow(q.data(), k.data(), v.data(), row, seqLen, d, scale, &ref[size_t(row) * d]);
    for (int c = 0; c < d; ++c)
      got.push_back(double(Memory<T>::to(out[size_t(row) * d + c])));
  }
  check.error = relativeError(got, ref);
  return check;
}

template Check runAttention<brick::f16>(const brick::runtime::Device &, const AttentionProblem &,
                                        std::optional<AttentionConfig>);
template Check runAttention<brick::bf16>(const brick::runtime::Device &, const AttentionProblem &,
                                         std::optional<AttentionConfig>);

} // namespace examples
