//===- vector_add.cpp - Builds vector_add and prints its brick IR -------------===//
#include "vector_add.h"

#include <iostream>

int main() {
  using brick::Arg;
  using brick::dyn;
  Arg aligned = Arg::divisibleBy(16); // what the runtime will know about cudaMalloc'ed buffers
  brick::BuildResult result = examples::vectorAdd().build({aligned, aligned, aligned, dyn, 1024});
  if (!result) {
    std::cerr << result.errors();
    return 1;
  }
  std::cout << "// vector_add (BLOCK = 1024): brick IR\n" << result.ir();
  return 0;
}
