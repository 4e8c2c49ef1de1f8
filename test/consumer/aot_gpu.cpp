// Links Brick::runtime alone: launches saxpy's AOT bundles on GPU 0 through the generated launcher. Exit 77
// (a skip) when there is no GPU.
#include "aot_checks.h"

int main() {
  auto device = brick::runtime::Device::get(0);
  if (!device || device->isInterpreter()) {
    std::printf("SKIP: no GPU (%s)\n", device ? "BRICK_INTERPRET is set" : device.error().message().c_str());
    return 77;
  }
  std::printf("%s\n", device->name().c_str());
  return checkLauncher(*device);
}
