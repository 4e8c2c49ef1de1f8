//===- run.cpp - Each example at the shapes its program runs -----------------------------===//

#include "host.h"

namespace examples {

std::vector<Check> runExample(const std::string &name, const brick::runtime::Device &device) {
  if (name == "vector_add")
    return {runVectorAdd(device, 1000), runVectorAdd(device, 98432)};
  if (name == "softmax")
    return {runSoftmax<brick::f32>(device, 64, 1000), runSoftmax<brick::bf16>(device, 5, 3000)};
  if (name == "matmul") {
    // On an H100 (sm_90a code) 16-bit products go through tensor descriptors, which the compiler turns into TMA
    // copies; elsewhere, and for any strides, the pointer kernel.
    bool hopper = !device.isInterpreter() && device.computeCapability() == 90;
    return {runMatmul<brick::f16>(device, {.m = 100, .n = 70, .k = 56, .descriptors = hopper}),
            runMatmul<brick::bf16>(device, {.m = 256, .n = 256, .k = 256, .descriptors = hopper}),
            runMatmul<brick::f16>(device, {.m = 100, .n = 70, .k = 50, .transposeB = true}),
            runMatmul<brick::f32>(device, {17, 33, 65}), runMatmul<brick::i8>(device, {64, 96, 128})};
  }
  if (name == "attention") {
    // A packed batch of ragged lengths over grouped-query heads, causal, with the log-sum-exp; fewer queries than
    // keys under a sliding window and a softcap; head dims 192 for Q.K and 128 for V (read in pieces of 64 and
    // 128); a batch of equal lengths in the default tiles.
    AttentionConfig small{.blockM = 64, .blockN = 32, .warps = 4, .stages = 2};
    return {runAttention<brick::f16>(device, {.cuSeqlensQ = {0, 1, 18, 118}, .cuSeqlensK = {0, 1, 18, 118}, .qHeads = 4,
                                              .kvHeads = 2, .headDim = 64, .causal = true, .logSumExp = true},
                                     small),
            runAttention<brick::bf16>(device, {.batch = 2, .seqLenQ = 40, .seqLenK = 100, .qHeads = 2, .kvHeads = 1,
                                               .headDim = 32, .causal = true, .windowLeft = 30, .softcap = 20,
                                               .logSumExp = true},
                                      small),
            runAttention<brick::bf16>(device, {.batch = 1, .seqLenQ = 50, .seqLenK = 80, .qHeads = 2, .kvHeads = 1,
                                               .headDim = 192, .valueDim = 128, .causal = true},
                                      small),
            runAttention<brick::f16>(device, {.batch = 2, .seqLenQ = 128, .seqLenK = 128, .qHeads = 2, .kvHeads = 2,
                                              .headDim = 64})};
  }
  if (name == "moe")
    // Ragged sizes (H and I not multiples of the tiles), experts no token picks, softmax and sigmoid + bias.
    return {runMoe<brick::bf16>(device, {.tokens = 7, .experts = 8, .topk = 2, .hidden = 80, .intermediate = 96}),
            runMoe<brick::f16>(device, {.tokens = 100, .experts = 16, .topk = 4, .hidden = 128, .intermediate = 64,
                                        .sigmoid = true, .bias = true, .renormalize = false, .silentExperts = 3})};
  return {Check{name, 0, 0, "there is no example called '" + name + "'", 0}};
}

} // namespace examples
