//===- moe_host.cpp - The host program of the MoE grouped GEMM: routing, sorting, padding ---===//

#include "host.h"
#include "moe.h"

#include <algorithm>
#include <numeric>

namespace examples {

Check runMoe(const brick::runtime::Device &device, int tokens) {
  using namespace host;
  static auto kernel = moe<brick::bf16>();
  const int E = 8, topk = 2, K = 192, N = 320, BM = 64, T = tokens;
  Check check{"moe bf16 T=" + std::to_string(T) + " E=8 top-2 N=320 K=192", 0, 1e-2, {}, 0};
  std::vector<float> a = randomFloats(size_t(T) * K), w = randomFloats(size_t(E) * N * K, 0.1f);
  auto da = upload(device, toMemory<brick::bf16>(a)), dw = upload(device, toMemory<brick::bf16>(w));
  // Route each token to `topk` distinct experts; sort the (token, expert) pairs by expert, padding each
  // expert's run to a multiple of BM with the invalid pair id T * topk.
  std::vector<int> expertOf(size_t(T) * topk);
  for (int t = 0; t < T; ++t) {
    std::vector<int> experts(E);
    std::iota(experts.begin(), experts.end(), 0);
    std::shuffle(experts.begin(), experts.end(), rng());
    for (int j = 0; j < topk; ++j)
      expertOf[size_t(t) * topk + j] = experts[j];
  }
  std::vector<int32_t> sorted, blockExpert;
  for (int e = 0; e < E; ++e) {
    size_t start = sorted.size();
    for (int p = 0; p < T * topk; ++p)
      if (expertOf[p] == e)
        sorted.push_back(p);
    if (sorted.size() == start)
      continue;
    while ((sorted.size() - start) % BM)
      sorted.push_back(T * topk);
    for (size_t b = start; b < sorted.size(); b += BM)
      blockExpert.push_back(e);
  }
  auto ds = upload(device, sorted), dbe = upload(device, blockExpert);
  auto dc = poisoned(device, size_t(T) * topk * N * sizeof(uint16_t));
  for (auto *buffer : {&da, &dw, &ds, &dbe, &dc})
    if (!*buffer)
      return check.failure = buffer->error().message(), check;
  unsigned programs = unsigned(sorted.size() / BM * ((N + 127) / 128));
  brick::runtime::Error error = timed(check, [&] {
    return kernel.launch(brick::Grid{programs}, brick::LaunchOptions{.device = &device}, *da, *dw, *dc, *ds, *dbe,
                         int(sorted.size()), N, K, topk, T * topk, K, 1, N * K, K, 1, N, 1, BM, 128, 64, 8);
  });
  if (error)
    return check.failure = error.message(), check;
  std::vector<uint16_t> c = download<uint16_t>(*dc, size_t(T) * topk * N, check.failure);
  std::vector<double> got, ref;
  for (int p = 0; p < T * topk; ++p)
    for (int j = 0; j < N; ++j) {
      double sum = 0;
      for (int q = 0; q < K; ++q)
        sum += double(a[size_t(p / topk) * K + q]) * w[(size_t(expertOf[p]) * N + j) * K + q];
      ref.push_back(sum);
      got.push_back(brick::bf16ToFloat(c[size_t(p) * N + j]));
    }
  check.error = relativeError(got, ref);
  return check;
}

} // namespace examples
