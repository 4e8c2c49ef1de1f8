// A kernel of the user's own: y = a * x + y, BLOCK elements per program.
#pragma once

#include "brick/brick.h"
#include "brick/Tool/Tool.h"

namespace consumer {
using namespace brick;

inline auto saxpy() {
  return kernel("saxpy", [](Ptr<f32> y, Ptr<f32> x, Float a, Int n, Const<int> BLOCK) {
    Tensor offsets = program_id(0) * BLOCK + arange(0, BLOCK);
    Tensor inBounds = offsets < n;
    store(y + offsets, a * load(x + offsets, inBounds) + load(y + offsets, inBounds), inBounds);
  });
}

/// What the command line offers: saxpy, compiled ahead of time for aligned buffers and n % 16 == 0, and for
/// anything else.
inline std::vector<tool::Entry> toolKernels() {
  Arg aligned = Arg::divisibleBy(16);
  return {tool::entry(saxpy(), {"y", "x", "a", "n", "BLOCK"},
                      {{{aligned, aligned, dyn, Arg::divisibleBy(16), 1024}}, {{dyn, dyn, dyn, dyn, 1024}}})};
}
} // namespace consumer
