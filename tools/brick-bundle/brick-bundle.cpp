//===- brick-bundle.cpp - Check and describe kernel bundles (no compiler needed) -----===//
//
//   brick-bundle softmax.brick            what it holds; exit 1 if it is damaged
//   brick-bundle softmax.brick --ptx      its PTX
//
//===----------------------------------------------------------------------===//

#include "brick/Runtime/Bundle.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

/// Exit status 0 only if what was printed reached stdout (a full disk or a closed pipe is an error).
static int flushed() {
  if (std::fflush(stdout) == 0 && !std::ferror(stdout))
    return 0;
  std::fprintf(stderr, "brick-bundle: error: cannot write the output: %s\n", std::strerror(errno));
  return 1;
}

int main(int argc, char **argv) {
  if (argc < 2 || std::strcmp(argv[1], "--help") == 0) {
    std::fprintf(stderr, "usage: brick-bundle <file> [--ptx]\n");
    return argc < 2 ? 1 : 0;
  }
  auto bundle = brick::runtime::KernelBundle::readFile(argv[1]);
  if (!bundle) {
    std::fprintf(stderr, "brick-bundle: error: %s\n", bundle.error().message().c_str());
    return 1;
  }
  if (argc > 2 && std::strcmp(argv[2], "--ptx") == 0) {
    std::fwrite(bundle->ptx.data(), 1, bundle->ptx.size(), stdout);
    return flushed();
  }
  std::printf("kernel %s\ntarget %s\nwarps %u\nshared memory %u bytes\nparameters", bundle->name.c_str(),
              bundle->target.c_str(), bundle->numWarps, bundle->sharedMemory);
  for (const auto &param : bundle->params)
    std::printf(" %s%s", param.kind == brick::runtime::BundleParam::Kind::Pointer ? "*" : "", param.dtype.c_str());
  std::printf("\nptx %zu bytes\ncubin %zu bytes\n", bundle->ptx.size(), bundle->cubin.size());
  return flushed();
}
