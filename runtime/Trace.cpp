//===- Trace.cpp - NVTX ranges, when the build found NVTX3 -------------------------------===//

#include "brick/Runtime/Trace.h"

#include <cstdlib>

#ifdef BRICK_HAVE_NVTX
#include <nvtx3/nvToolsExt.h>
#endif

namespace brick::runtime::trace {

bool enabled() {
#ifdef BRICK_HAVE_NVTX
  // A profiler that collects NVTX (Nsight Systems, Nsight Compute) sets this before the program starts.
  static const bool listening = [] {
    const char *injection = std::getenv("NVTX_INJECTION64_PATH");
    return injection && *injection;
  }();
  return listening;
#else
  return false;
#endif
}

void push(const std::string &name) {
#ifdef BRICK_HAVE_NVTX
  nvtxRangePushA(name.c_str());
#else
  (void)name;
#endif
}

void pop() {
#ifdef BRICK_HAVE_NVTX
  nvtxRangePop();
#endif
}

} // namespace brick::runtime::trace
