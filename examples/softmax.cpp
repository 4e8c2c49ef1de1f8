//===- softmax.cpp - Builds the fused softmax and prints its brick IR ---------===//
#include "softmax.h"

#include <iostream>

int main() {
  using brick::Arg;
  using brick::dyn;
  // What the runtime knows at a typical launch: aligned buffers, and row strides and a column count that
  // are multiples of 16 (1024 columns).
  Arg aligned = Arg::divisibleBy(16);
  brick::BuildResult result = examples::softmax<brick::f32>().build({aligned, aligned, aligned, aligned, aligned, 1024});
  if (!result) {
    std::cerr << result.errors();
    return 1;
  }
  std::cout << "// softmax (f32, BLOCK = 1024): brick IR\n" << result.ir();
  return 0;
}
