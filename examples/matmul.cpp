//===- matmul.cpp - Builds the tiled matmul and prints its brick IR -----------===//
#include "matmul.h"

#include <iostream>

int main() {
  using brick::Arg;
  using brick::dyn;
  Arg aligned = Arg::divisibleBy(16), one = Arg::equalToOne();
  // Row-major A[M, K], B[K, N], C[M, N]: the inner strides are 1.
  brick::BuildResult result = examples::matmul<brick::f16>().build(
      {aligned, aligned, aligned, dyn, dyn, dyn, aligned, one, aligned, one, aligned, one, 128, 128, 64, 8});
  if (!result) {
    std::cerr << result.errors();
    return 1;
  }
  std::cout << "// matmul (f16, 128x128x64 tiles, GROUP_M = 8): brick IR\n" << result.ir();
  return 0;
}
