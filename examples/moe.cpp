//===- moe.cpp - Builds the MoE grouped GEMM and prints its brick IR ----------===//
#include "moe.h"

#include <iostream>

int main() {
  using brick::Arg;
  using brick::dyn;
  Arg aligned = Arg::divisibleBy(16), one = Arg::equalToOne();
  brick::BuildResult result = examples::moe<brick::bf16>().build({aligned, aligned, aligned, aligned, aligned, dyn,
                                                                  dyn, dyn, dyn, dyn, aligned, one, aligned, aligned,
                                                                  one, aligned, one, 64, 128, 64, 8});
  if (!result) {
    std::cerr << result.errors();
    return 1;
  }
  std::cout << "// moe (bf16, 64x128x64 tiles, GROUP_M = 8): brick IR\n" << result.ir();
  return 0;
}
