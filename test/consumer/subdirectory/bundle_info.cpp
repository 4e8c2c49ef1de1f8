// Links Brick::runtime from an add_subdirectory'd checkout: reads a bundle and names its kernel.
#include "brick/Runtime/Bundle.h"

#include <cstdio>

int main(int argc, char **argv) {
  if (argc != 2)
    return std::fprintf(stderr, "usage: bundle_info <file.brick>\n"), 2;
  auto bundle = brick::runtime::KernelBundle::readFile(argv[1]);
  if (!bundle)
    return std::fprintf(stderr, "error: %s\n", bundle.error().message().c_str()), 1;
  std::printf("%s for %s\n", bundle->name.c_str(), bundle->target.c_str());
  return 0;
}
