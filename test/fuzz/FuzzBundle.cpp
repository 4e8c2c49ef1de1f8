//===- FuzzBundle.cpp - libFuzzer target: the bundle reader on any bytes -----------------------------===//
//
// Bundles come from disk (the JIT's cache, AOT files) and from generated launchers: any bytes must give a bundle
// or an error, never a crash, a hang or a huge allocation; what parses must satisfy every rule the reader
// promises (a name, 1 to 32 warps in a power of two, a target Brick emits, shared memory a GPU has) and must
// survive serializing again unchanged.
//
//===----------------------------------------------------------------------===//

#include "brick/Runtime/Bundle.h"

#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char *>(data), size);
  auto bundle = brick::runtime::KernelBundle::deserialize(bytes);
  if (!bundle) {
    if (bundle.error().message().empty())
      std::abort(); // a failure must say why
    return 0;
  }
  if (bundle->name.empty() || bundle->numWarps < 1 || bundle->numWarps > 32 ||
      (bundle->numWarps & (bundle->numWarps - 1)) || bundle->target.rfind("sm_", 0) != 0)
    std::abort();
  std::string again = bundle->serialize();
  auto reread = brick::runtime::KernelBundle::deserialize(again);
  if (!reread || !(*reread == *bundle))
    std::abort();
  return 0;
}
