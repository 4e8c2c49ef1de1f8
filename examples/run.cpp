//===- run.cpp - Each example at the shapes its program runs -----------------------------===//

#include "host.h"

namespace examples {

std::vector<Check> runExample(const std::string &name, const brick::runtime::Device &device) {
  if (name == "vector_add")
    return {runVectorAdd(device, 1000), runVectorAdd(device, 98432)};
  if (name == "softmax")
    return {runSoftmax<brick::f32>(device, 64, 1000), runSoftmax<brick::bf16>(device, 5, 3000)};
  if (name == "matmul")
    return {runMatmul<brick::f16>(device, {100, 70, 50}), runMatmul<brick::bf16>(device, {256, 256, 256}),
            runMatmul<brick::f32>(device, {17, 33, 65}), runMatmul<brick::i8>(device, {64, 96, 128})};
  if (name == "moe")
    return {runMoe(device, 7), runMoe(device, 100)};
  return {Check{name, 0, 0, "there is no example called '" + name + "'", 0}};
}

} // namespace examples
