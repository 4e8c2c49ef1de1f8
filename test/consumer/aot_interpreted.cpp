// The same generated launcher on the CPU interpreter, which Brick::brick supplies.
#include "aot_checks.h"

#include "brick/JIT/JIT.h"

int main() {
  // Without this call the launcher says the interpreter is missing: check that first.
  brick::runtime::Device interpreter = brick::runtime::Device::interpreter();
  float dummy[16] = {};
  brick::runtime::Error missing = consumer_kernels::saxpy(nullptr, {1}, dummy, dummy, 1.0f, 16, 1024, &interpreter);
  if (!missing || missing.message().find("enableBundleInterpreter") == std::string::npos)
    return std::fprintf(stderr, "FAIL: expected the missing-interpreter error, got '%s'\n", missing.message().c_str()), 1;
  brick::enableBundleInterpreter();
  return checkLauncher(interpreter);
}
