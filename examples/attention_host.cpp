//===- attention_host.cpp - Attention's shape checks, launch, float64 reference and host program ---===//

#include "attention.h"
#include "host.h"

#include "brick/JIT/Autotune.h"

#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <tuple>

namespace examples {

bool AttentionShape::sees(int64_t i, int64_t j, int64_t queries, int64_t keys) const {
  int64_t diagonal = i + keys - queries; // the masks are aligned bottom-right
  if (j < 0 || j >= keys)
    return false;
  if (causal && j > diagonal)
    return false;
  if (!causal && windowRight >= 0 && j > diagonal + windowRight)
    return false;
  return windowLeft < 0 || j >= diagonal - windowLeft;
}

double AttentionShape::flops() const {
  double pairs = 0;
  for (int b = 0; b < sequences(); ++b) {
    int64_t queries = this->queries(b), keys = this->keys(b), offset = keys - queries;
    for (int64_t i = 0; i < queries; ++i) {
      int64_t hi = keys - 1, lo = 0;
      if (causal)
        hi = std::min(hi, i + offset);
      else if (windowRight >= 0)
        hi = std::min(hi, i + offset + windowRight);
      if (windowLeft >= 0)
        lo = std::max<int64_t>(0, i + offset - windowLeft);
      pairs += double(std::max<int64_t>(0, hi - lo + 1));
    }
  }
  return 2.0 * pairs * qHeads * (headDim + vDim());
}

std::string AttentionShape::check() const {
  if (qHeads < 1 || kvHeads < 1 || qHeads % kvHeads != 0)
    return "attention: the query heads (" + std::to_string(qHeads) + ") must be a positive multiple of the K/V heads (" +
           std::to_string(kvHeads) + ")";
  if (qHeads > 65535)
    return "attention: at most 65535 query heads (a grid dimension), got " + std::to_string(qHeads);
  if (headDim < 16 || headDim > 256 || headDim % 16 != 0)
    return "attention: the head dimension of Q and K must be a multiple of 16 from 16 to 256, got " +
           std::to_string(headDim);
  if (valueDim != 0 && (valueDim < 16 || valueDim > 256 || valueDim % 16 != 0))
    return "attention: the head dimension of V must be a multiple of 16 from 16 to 256 (or 0: Q's), got " +
           std::to_string(valueDim);
  if (!(softcap >= 0) || !std::isfinite(softcap))
    return "attention: the softcap must be finite and positive (0: none), got " + std::to_string(softcap);
  if (!(scale >= 0) || !std::isfinite(scale))
    return "attention: the scale must be finite and positive (0: 1 / sqrt(headDim)), got " + std::to_string(scale);
  if (varlen()) {
    if (cuSeqlensQ.size() < 2 || cuSeqlensK.size() != cuSeqlensQ.size())
      return "attention: cuSeqlensQ and cuSeqlensK must both hold batch + 1 offsets (got " +
             std::to_string(cuSeqlensQ.size()) + " and " + std::to_string(cuSeqlensK.size()) + ")";
    for (const auto *offsets : {&cuSeqlensQ, &cuSeqlensK}) {
      const char *name = offsets == &cuSeqlensQ ? "cuSeqlensQ" : "cuSeqlensK";
      if ((*offsets)[0] != 0)
        return std::string("attention: ") + name + " must start at 0, got " + std::to_string((*offsets)[0]);
      for (size_t b = 1; b < offsets->size(); ++b)
        if ((*offsets)[b] < (*offsets)[b - 1])
          return std::string("attention: ") + name + " decreases from " + std::to_string((*offsets)[b - 1]) +
                 " to " + std::to_string((*offsets)[b]) + " at " + std::to_string(b);
    }
  } else if (batch < 1 || seqLenQ < 0 || seqLenK < 0) {
    return "attention: needs a batch of at least 1 and lengths of at least 0, got batch " + std::to_string(batch) +
           ", " + std::to_string(seqLenQ) + " queries and " + std::to_string(seqLenK) + " keys";
  }
  if (sequences() > 65535)
    return "attention: at most 65535 sequences (a grid dimension), got " + std::to_string(sequences());
  // Positions plus a window stay within int32 in the kernel: tokens below 2^29, windows clamped to the keys.
  if (totalQ() * qHeads * std::max(headDim, vDim()) >= (int64_t(1) << 40) || totalQ() >= (int64_t(1) << 29) ||
      totalK() >= (int64_t(1) << 29))
    return "attention: the batch has too many tokens (" + std::to_string(totalQ()) + " queries, " +
           std::to_string(totalK()) + " keys)";
  return "";
}

namespace {
/// What launchAttention and launchAttentionTuned check before they launch: the shape, then the buffers' sizes.
runtime::Error checkAttention(const AttentionShape &shape, const AttentionBuffers &buffers) {
  using runtime::Error;
  if (std::string why = shape.check(); !why.empty())
    return Error(why);
  const int64_t d = shape.headDim, dv = shape.vDim(), totalQ = shape.totalQ(), totalK = shape.totalK();
  const size_t element = sizeof(uint16_t);
  auto tooSmall = [](const runtime::DeviceBuffer *buffer, size_t bytes) { return !buffer || buffer->size() < bytes; };
  auto need = [&](const char *what, const runtime::DeviceBuffer *buffer, int64_t tokens, int64_t heads, int64_t dim,
                  const char *layout) {
    size_t bytes = tokens * heads * dim * element;
    return tooSmall(buffer, bytes) ? Error(std::string("attention: ") + what + " needs " + std::to_string(bytes) +
                                           " bytes (" + layout + ")")
                                   : Error();
  };
  if (Error error = need("Q", buffers.q, totalQ, shape.qHeads, d, "[totalQ, qHeads, headDim]"))
    return error;
  if (Error error = need("K", buffers.k, totalK, shape.kvHeads, d, "[totalK, kvHeads, headDim]"))
    return error;
  if (Error error = need("V", buffers.v, totalK, shape.kvHeads, dv, "[totalK, kvHeads, vDim]"))
    return error;
  if (Error error = need("O", buffers.o, totalQ, shape.qHeads, dv, "[totalQ, qHeads, vDim]"))
    return error;
  if (shape.logSumExp && tooSmall(buffers.lse, totalQ * shape.qHeads * sizeof(float)))
    return Error("attention: the log-sum-exp needs " + std::to_string(totalQ * shape.qHeads * sizeof(float)) +
                 " bytes ([qHeads, totalQ] f32)");
  const size_t offsetBytes = (shape.sequences() + 1) * sizeof(int32_t);
  if (shape.varlen() && (tooSmall(buffers.cuSeqlensQ, offsetBytes) || tooSmall(buffers.cuSeqlensK, offsetBytes)))
    return Error("attention: variable lengths need cuSeqlensQ and cuSeqlensK on the device, " +
                 std::to_string(offsetBytes) + " bytes each");
  return Error();
}

/// The autotuner's bucket of a batch's keys: the power of two at or above, from 1024.
int64_t keysBucket(int64_t keys) {
  int64_t bucket = 1024;
  while (bucket < keys)
    bucket *= 2;
  return bucket;
}

/// The grid for query blocks of `blockM` rows: (blocks of the longest sequence, query heads, sequences).
Grid attentionGrid(const AttentionShape &shape, int64_t blockM) {
  int64_t longest = 0;
  for (int b = 0; b < shape.sequences(); ++b)
    longest = std::max(longest, shape.queries(b));
  return Grid{unsigned(std::max<int64_t>(1, (longest + blockM - 1) / blockM)), unsigned(shape.qHeads),
              unsigned(shape.sequences())};
}

/// The width of the column blocks a head dimension is read in: the largest power of two that divides it (96 is
/// read as three blocks of 32, 192 as three of 64).
int headPiece(int dim) { return dim & -dim; }

/// The kernel's arguments for `shape`, `buffers` and descriptors blocks `blockM` and `blockN` (each a number, or
/// brick::fromConfig with the descriptors' blocks from the config: BLOCK_M, BLOCK_N, BLOCK_D, BLOCK_DV), passed
/// to `launch`.
template <class Launch, class M, class N>
runtime::Error withAttentionArguments(const AttentionShape &shape, const AttentionBuffers &buffers, M blockM,
                                      N blockN, Launch launch) {
  const int64_t d = shape.headDim, dv = shape.vDim(), totalQ = shape.totalQ(), totalK = shape.totalK();
  auto pointer = [](const runtime::DeviceBuffer *buffer) { return DevicePointer{buffer ? buffer->address() : 0}; };
  // A descriptor's shape may not be empty: a batch without keys (or queries) reads a one-row tensor it never uses.
  auto rows = [](int64_t n) { return std::max<int64_t>(n, 1); };
  // A window wider than the keys bounds nothing: clamped there, it cannot overflow the kernel's int32 positions.
  auto window = [&](int w) { return w < 0 ? -1 : int(std::min<int64_t>(w, totalK)); };
  constexpr bool tuned = std::is_same_v<M, FromConfig>;
  // [tokens, heads * dim] in blocks of `block` rows and the dimension's piece (config constants `rowIndex` and
  // `pieceIndex` when tuned).
  auto descriptor = [&](const runtime::DeviceBuffer &buffer, int64_t tokens, int64_t heads, int64_t dim, auto block,
                        size_t rowIndex, size_t pieceIndex) {
    const int64_t width = heads * dim;
    if constexpr (tuned)
      return TensorDescriptorArg::of(buffer, {rows(tokens), width}, {width, 1}, {}).blocksFromConfig({rowIndex, pieceIndex});
    else
      return TensorDescriptorArg::of(buffer, {rows(tokens), width}, {width, 1}, {int64_t(block), headPiece(dim)});
  };
  auto piece = [&](int dim) {
    if constexpr (tuned)
      return fromConfig;
    else
      return headPiece(dim);
  };
  return launch(descriptor(*buffers.q, totalQ, shape.qHeads, d, blockM, 0, 2),
                descriptor(*buffers.k, totalK, shape.kvHeads, d, blockN, 1, 2),
                descriptor(*buffers.v, totalK, shape.kvHeads, dv, blockN, 1, 3), pointer(buffers.o),
                pointer(shape.logSumExp ? buffers.lse : nullptr), pointer(shape.varlen() ? buffers.cuSeqlensQ : nullptr),
                pointer(shape.varlen() ? buffers.cuSeqlensK : nullptr), shape.seqLenQ, shape.seqLenK, int(totalQ),
                int(totalK), shape.qHeads, shape.softmaxScale(), shape.softcap, window(shape.windowLeft),
                window(shape.windowRight),
                blockM, blockN, piece(int(d)), piece(int(dv)), int(d), int(dv), shape.qHeads / shape.kvHeads, int(shape.varlen()), int(shape.causal),
                int(shape.windowed()), int(shape.softcap > 0), int(shape.logSumExp));
}
} // namespace

template <ElementTag T>
runtime::Error launchAttention(const AttentionShape &shape, const AttentionBuffers &buffers,
                               const AttentionConfig &config, LaunchOptions options) {
  if (runtime::Error error = checkAttention(shape, buffers))
    return error;
  options.numWarps = config.warps, options.numStages = config.stages, options.warpSpecialize = config.warpSpecialize;
  static const auto kernel = attention<T>(); // one JIT cache for every launch
  Grid grid = attentionGrid(shape, config.blockM);
  return withAttentionArguments(shape, buffers, config.blockM, config.blockN,
                                [&](auto &&...args) { return kernel.launch(grid, options, args...); });
}

std::vector<AttentionConfig> attentionCandidates(int headDim) {
  std::vector<AttentionConfig> candidates{attentionConfig(headDim)};
  for (AttentionConfig config : {AttentionConfig{128, 128, 8, 2}, AttentionConfig{128, 64, 8, 2},
                                 AttentionConfig{128, 64, 8, 2, true}, AttentionConfig{128, 128, 8, 2, true},
                                 AttentionConfig{128, 64, 8, 3, true}, AttentionConfig{64, 64, 4, 3}})
    if (std::find(candidates.begin(), candidates.end(), config) == candidates.end())
      candidates.push_back(config);
  return candidates;
}

template <ElementTag T>
runtime::Error launchAttentionTuned(const AttentionShape &shape, const AttentionBuffers &buffers,
                                    LaunchOptions options, std::string *chosen) {
  if (runtime::Error error = checkAttention(shape, buffers))
    return error;
  using Tuned = decltype(brick::autotune(attention<T>(), {}, {}));
  static const auto kernel = attention<T>();
  static std::map<std::tuple<int, int, bool>, std::unique_ptr<Tuned>> tuners;
  static std::mutex mutex;
  bool interpreter = options.device ? options.device->isInterpreter() : false;
  Tuned *tuned;
  {
    std::lock_guard<std::mutex> lock(mutex);
    std::unique_ptr<Tuned> &slot = tuners[{shape.headDim, shape.vDim(), interpreter}];
    if (!slot) {
      // The configs give BLOCK_M, BLOCK_N, BLOCK_D and BLOCK_DV (the descriptors' blocks come from them); the key
      // is the mask (CAUSAL, WINDOW), SOFTCAP and the keys' count (totalK) rounded up to a power of two.
      std::vector<TuningConfig> configs;
      for (const AttentionConfig &c : attentionCandidates(std::max(shape.headDim, shape.vDim())))
        configs.push_back(TuningConfig{{c.blockM, c.blockN, headPiece(shape.headDim), headPiece(shape.vDim())},
                                       c.warps, c.stages, c.warpSpecialize});
      TuningKey key{{24, 25, 26, 10}, [](std::vector<int64_t> values) {
                      values[3] = keysBucket(values[3]);
                      return values;
                    }};
      AutotuneOptions tuning = exampleTuning(interpreter, [](const TuningConfig &, const std::vector<int64_t> &) { return true; });
      slot = std::make_unique<Tuned>(brick::autotune(kernel, configs, key, tuning));
    }
    tuned = slot.get();
  }
  auto grid = [&](const TuningConfig &config) { return attentionGrid(shape, config.get(0)); };
  runtime::Error error = withAttentionArguments(shape, buffers, fromConfig, fromConfig, [&](auto &&...args) {
    return tuned->launch(grid, options, args...);
  });
  if (chosen)
    for (const Tuning &tuning : tuned->tunings())
      if (tuning.key == std::vector<int64_t>{shape.causal, shape.windowed(), shape.softcap > 0, keysBucket(shape.totalK())})
        *chosen = "autotuned (" + tuning.how + "): " + tuned->configs()[tuning.chosen].str();
  return error;
}

template runtime::Error launchAttention<f16>(const AttentionShape &, const AttentionBuffers &,
                                             const AttentionConfig &, LaunchOptions);
template runtime::Error launchAttention<bf16>(const AttentionShape &, const AttentionBuffers &,
                                              const AttentionConfig &, LaunchOptions);
template runtime::Error launchAttentionTuned<f16>(const AttentionShape &, const AttentionBuffers &, LaunchOptions,
                                                  std::string *);
template runtime::Error launchAttentionTuned<bf16>(const AttentionShape &, const AttentionBuffers &, LaunchOptions,
                                                   std::string *);

void attentionReferenceRow(const AttentionShape &shape, const float *q, const float *k, const float *v,
                           int64_t token, int head, double *out, double *logSumExp) {
  int b = 0;
  while (shape.queryStart(b + 1) <= token)
    ++b;
  const int d = shape.headDim, dv = shape.vDim(), kvHead = head / (shape.qHeads / shape.kvHeads);
  const int64_t i = token - shape.queryStart(b), queries = shape.queries(b), keys = shape.keys(b);
  const float *query = q + (token * shape.qHeads + head) * d;
  auto keyRow = [&](const float *base, int64_t j, int dim) {
    return base + ((shape.keyStart(b) + j) * shape.kvHeads + kvHead) * dim;
  };
  std::vector<double> p(keys, -INFINITY);
  double top = -INFINITY, total = 0;
  for (int64_t j = 0; j < keys; ++j) {
    if (!shape.sees(i, j, queries, keys))
      continue;
    double s = 0;
    for (int c = 0; c < d; ++c)
      s += double(query[c]) * keyRow(k, j, d)[c];
    s *= shape.softmaxScale();
    if (shape.softcap > 0)
      s = shape.softcap * std::tanh(s / shape.softcap);
    top = std::max(top, p[j] = s);
  }
  for (double &x : p)
    total += (x = std::isinf(x) ? 0 : std::exp(x - top));
  for (int c = 0; c < dv; ++c) {
    double o = 0;
    for (int64_t j = 0; j < keys; ++j)
      o += p[j] * keyRow(v, j, dv)[c];
    out[c] = total > 0 ? o / total : 0;
  }
  if (logSumExp)
    *logSumExp = total > 0 ? top + std::log(total) : -INFINITY;
}

template <brick::ElementTag T>
Check runAttention(const brick::runtime::Device &device, const AttentionShape &shape,
                   std::optional<AttentionConfig> given, unsigned targetCapability) {
  using namespace host;
  const int d = shape.headDim, vDim = shape.vDim();
  std::string what = std::string("attention ") + (std::is_same_v<T, brick::f16> ? "f16" : "bf16") + " ";
  if (shape.varlen()) {
    what += "lengths";
    for (int b = 0; b < shape.sequences(); ++b)
      what += (b ? "," : " ") + std::to_string(shape.queries(b)) +
              (shape.keys(b) != shape.queries(b) ? "/" + std::to_string(shape.keys(b)) : "");
  } else {
    what += std::to_string(shape.batch) + " x " + std::to_string(shape.seqLenQ) +
            (shape.seqLenK != shape.seqLenQ ? "/" + std::to_string(shape.seqLenK) : "");
  }
  what += ", heads " + std::to_string(shape.qHeads) + (shape.kvHeads != shape.qHeads ? "/" + std::to_string(shape.kvHeads) : "") +
          ", d " + std::to_string(d) + (vDim != d ? "/" + std::to_string(vDim) : "") + (shape.causal ? ", causal" : "");
  if (shape.windowed())
    what += ", window " + std::to_string(shape.windowLeft) + "," + std::to_string(shape.windowRight);
  if (shape.softcap > 0)
    what += ", softcap";
  if (shape.logSumExp)
    what += ", lse";
  if (given)
    what += ", " + std::to_string(given->blockM) + "x" + std::to_string(given->blockN) + " blocks" +
            (given->warpSpecialize ? ", warp-specialized" : "");
  if (targetCapability)
    what += ", sm_" + std::to_string(targetCapability) + " code";
  Check check{what, 0, std::is_same_v<T, brick::f16> ? 2e-3 : 1e-2, {}, 0};
  if (std::string why = shape.check(); !why.empty())
    return check.failure = why, check;

  const int64_t totalQ = shape.totalQ(), totalK = shape.totalK();
  std::vector<float> q = randomFloats(totalQ * shape.qHeads * d), k = randomFloats(totalK * shape.kvHeads * d),
                     v = randomFloats(totalK * shape.kvHeads * vDim);
  auto dq = upload(device, toMemory<T>(q)), dk = upload(device, toMemory<T>(k)), dv = upload(device, toMemory<T>(v));
  const size_t outputs = totalQ * shape.qHeads * vDim;
  auto dout = poisoned(device, std::max<size_t>(1, outputs) * sizeof(uint16_t));
  auto dlse = poisoned(device, std::max<int64_t>(1, totalQ * shape.qHeads) * sizeof(float));
  auto dcuQ = upload(device, shape.varlen() ? shape.cuSeqlensQ : std::vector<int32_t>{0});
  auto dcuK = upload(device, shape.varlen() ? shape.cuSeqlensK : std::vector<int32_t>{0});
  for (auto *buffer : {&dq, &dk, &dv, &dout, &dlse, &dcuQ, &dcuK})
    if (!*buffer)
      return check.failure = buffer->error().message(), check;

  brick::LaunchOptions options{.device = &device};
  options.targetCapability = targetCapability;
  AttentionBuffers buffers{&*dq, &*dk, &*dv, &*dout, &*dlse, &*dcuQ, &*dcuK};
  std::string chosen; // without a config, the autotuner's choice
  brick::runtime::Error error = timed(check, [&] {
    return given ? launchAttention<T>(shape, buffers, *given, options)
                 : launchAttentionTuned<T>(shape, buffers, options, &chosen);
  });
  if (!chosen.empty())
    check.what += ", " + chosen;
  if (error)
    return check.failure = error.message(), check;
  auto out = download<uint16_t>(*dout, outputs, check.failure);
  auto lse = download<float>(*dlse, totalQ * shape.qHeads, check.failure);

  // float64 reference: every row of a small problem; else each sequence's first and last rows and a sample.
  std::set<std::pair<int64_t, int>> rows;
  if (totalQ * shape.qHeads <= 8192) {
    for (int64_t t = 0; t < totalQ; ++t)
      for (int h = 0; h < shape.qHeads; ++h)
        rows.insert({t, h});
  } else {
    for (int b = 0; b < shape.sequences(); ++b)
      if (shape.queries(b) > 0)
        for (int h : {0, shape.qHeads - 1})
          rows.insert({shape.queryStart(b), h}), rows.insert({shape.queryStart(b + 1) - 1, h});
    std::uniform_int_distribution<int64_t> token(0, totalQ - 1);
    std::uniform_int_distribution<int> head(0, shape.qHeads - 1);
    while (rows.size() < 2048)
      rows.insert({token(rng()), head(rng())});
  }
  std::vector<double> got, expected, gotLse, expectedLse, ref(vDim);
  for (auto [t, h] : rows) {
    double logSumExp;
    attentionReferenceRow(shape, q.data(), k.data(), v.data(), t, h, ref.data(), &logSumExp);
    for (int c = 0; c < vDim; ++c) {
      got.push_back(double(Memory<T>::to(out[size_t((t * shape.qHeads + h) * vDim + c)])));
      expected.push_back(ref[c]);
    }
    if (shape.logSumExp) {
      float value = lse[size_t(h * totalQ + t)];
      // -inf (a row that sees no key) must be exactly that; the rest compare as the output does.
      if (std::isinf(logSumExp) != std::isinf(value) || (std::isinf(value) && value > 0))
        return check.failure = "log-sum-exp of token " + std::to_string(t) + ", head " + std::to_string(h) + " is " +
                               std::to_string(value) + ", expected " + std::to_string(logSumExp), check;
      if (!std::isinf(logSumExp))
        gotLse.push_back(value), expectedLse.push_back(logSumExp);
    }
  }
  check.error = std::max(relativeError(got, expected), gotLse.empty() ? 0.0 : relativeError(gotLse, expectedLse));
  return check;
}

template Check runAttention<brick::f16>(const brick::runtime::Device &, const AttentionShape &,
                                        std::optional<AttentionConfig>, unsigned);
template Check runAttention<brick::bf16>(const brick::runtime::Device &, const AttentionShape &,
                                         std::optional<AttentionConfig>, unsigned);

} // namespace examples
