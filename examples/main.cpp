//===- main.cpp - An example program: run one example on the GPU, or on the CPU interpreter ---===//
//
// Built once per example (EXAMPLE names it): `build/bin/softmax` runs softmax at a few shapes on GPU 0, or on
// the CPU interpreter when there is no GPU or BRICK_INTERPRET=1, and checks each result against the CPU
// reference. The kernel is in <name>.h, its host program in <name>_host.cpp.
//
//===----------------------------------------------------------------------===//

#include "host.h"

#include <cstdio>

int main() {
  std::string why;
  brick::runtime::Device device = examples::pickDevice(&why);
  std::printf("%s on %s (%s)\n", EXAMPLE, device.name().c_str(), why.c_str());
  bool ok = true;
  for (const examples::Check &check : examples::runExample(EXAMPLE, device)) {
    std::printf("  %s\n", check.str().c_str());
    ok = ok && check.ok();
  }
  return ok ? 0 : 1;
}
