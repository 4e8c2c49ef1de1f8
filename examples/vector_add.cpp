//===- vector_add.cpp - Builds vector_add and prints its brick IR -------------===//
#include "vector_add.h"

#include <iostream>

int main() {
  using brick::Arg;
  using brick::dyn;
  // What the runtime knows at a typical launch: cudaMalloc'ed buffers are 16-byte aligned, and n is a
  // multiple of 16 (so the mask is constant over 16 elements and accesses can be 16 bytes wide).
  Arg aligned = Arg::divisibleBy(16);
  brick::BuildResult result = examples::vectorAdd().build({aligned, aligned, aligned, aligned, 1024});
  if (!result) {
    std::cerr << result.errors();
    return 1;
  }
  std::cout << "// vector_add (BLOCK = 1024): brick IR\n" << result.ir();
  return 0;
}
