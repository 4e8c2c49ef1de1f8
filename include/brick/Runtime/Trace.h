//===- Trace.h - NVTX ranges: where Brick spends time, on an Nsight Systems timeline ---------===//
//
//   nsys run --trace=cuda,nvtx ./my_program        # ranges "brick compile softmax (%16, ...)", "brick load ...",
//                                                  # "brick launch softmax"
//
// Ranges go through NVTX3 (header-only, from the CUDA toolkit, found at build time; compiled out without it).
// NVTX does nothing unless a profiler injects itself (NVTX_INJECTION64_PATH), and a Range then does not even
// build its name: the name is a callable, called only when a profiler listens.
//
//===----------------------------------------------------------------------===//
#ifndef BRICK_RUNTIME_TRACE_H
#define BRICK_RUNTIME_TRACE_H

#include <string>
#include <utility>

namespace brick::runtime::trace {

/// Whether this build has NVTX and a profiler listens (checked once).
bool enabled();
void push(const std::string &name);
void pop();

/// A range from construction to destruction, named by `name()` (called only when enabled()).
class Range {
public:
  template <class F> explicit Range(F &&name) {
    if (enabled()) {
      push(std::forward<F>(name)());
      open_ = true;
    }
  }
  Range(const Range &) = delete;
  Range &operator=(const Range &) = delete;
  ~Range() {
    if (open_)
      pop();
  }

private:
  bool open_ = false;
};

} // namespace brick::runtime::trace

#endif // BRICK_RUNTIME_TRACE_H
