//===- matmul_split_k.h - Decode GEMM split along K: more programs streaming the weights ------===//
//
// At decode (a few rows of activations) a GEMM reads its N x K weight once and does almost no arithmetic, so its
// speed is the number of bytes in flight. N / BLOCK_N programs (64 to 128 for N of 8192) leave SMs idle or each
// with too little in flight; splitting K across SPLITS programs per tile multiplies them. Each program writes its
// f32 partial block; matmulSplitKReduce adds the SPLITS partials of each element in order (deterministic) and
// rounds once to the output type.
//
//===----------------------------------------------------------------------===//
#ifndef BRICK_EXAMPLES_MATMUL_SPLIT_K_H
#define BRICK_EXAMPLES_MATMUL_SPLIT_K_H

#include "brick/brick.h"

namespace examples {
using namespace brick;

/// C = A B^T (A M x K, B N x K, both along K, through descriptors of BLOCK_M x BLOCK_K and BLOCK_N x BLOCK_K
/// blocks), split along K: program (tile, split) multiplies K steps [split * per, (split + 1) * per) of its tile,
/// per = cdiv(cdiv(K, BLOCK_K), SPLITS), and stores the f32 product in partial[split] (SPLITS x M x N, row-major).
/// Launch Grid{cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N), SPLITS}; then matmulSplitKReduce.
template <ElementTag T = f8e4m3> auto matmulSplitK() {
  return kernel("matmul_split_k", [](TensorDescriptor<T, 2> a, TensorDescriptor<T, 2> b, Ptr<f32> partial, Int M,
                                     Int N, Int K, Const<int> BLOCK_M, Const<int> BLOCK_N, Const<int> BLOCK_K,
                                     Const<int> SPLITS) {
    Tensor tiles = cdiv(N, BLOCK_N);
    Tensor row = program_id(0) / tiles * BLOCK_M, column = program_id(0) % tiles * BLOCK_N, split = program_id(1);
    Tensor steps = cdiv(K, BLOCK_K), per = cdiv(steps, SPLITS);
    Tensor first = minimum(split * per, steps), last = minimum(first + per, steps);
    Tensor acc = zeros<f32>({BLOCK_M, BLOCK_N});
    for_range(first, last, 1, carry(acc), [&](Tensor k) {
      acc = dot(a.load({row, k * BLOCK_K}), b.load({column, k * BLOCK_K}).trans(), acc);
    });
    Tensor rows = row + arange(0, BLOCK_M), columns = column + arange(0, BLOCK_N);
    store(partial + split * M * N + rows.column() * N + columns.row(), acc,
          (rows.column() < M) & (columns.row() < N));
  });
}

/// out[i] = sum over s of partial[s * count + i], in order of s, rounded once to Out; BLOCK elements a program.
/// Launch Grid{cdiv(count, BLOCK)}.
template <ElementTag Out = bf16> auto matmulSplitKReduce() {
  return kernel("matmul_split_k_reduce", [](Ptr<f32> partial, Ptr<Out> out, Int count, Const<int> SPLITS,
                                            Const<int> BLOCK) {
    Tensor offsets = program_id(0) * BLOCK + arange(0, BLOCK);
    Tensor inside = offsets < count;
    Tensor sum = load(partial + offsets, inside, 0.0f);
    for (int s = 1; s < SPLITS.value(); ++s)
      sum = sum + load(partial + s * count + offsets, inside, 0.0f);
    store(out + offsets, sum, inside);
  });
}

} // namespace examples

#endif // BRICK_EXAMPLES_MATMUL_SPLIT_K_H
