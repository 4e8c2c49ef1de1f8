//===- vector_add.h - out = x + y, BLOCK elements per program ----------------===//
#ifndef BRICK_EXAMPLES_VECTOR_ADD_H
#define BRICK_EXAMPLES_VECTOR_ADD_H

#include "brick/brick.h"

namespace examples {
using namespace brick;

/// Launch with cdiv(n, BLOCK) programs; BLOCK is a power of two (1024 is a good start).
inline auto vectorAdd() {
  return kernel("vector_add", [](Ptr<f32> x, Ptr<f32> y, Ptr<f32> out, Int n, Const<int> BLOCK) {
    Tensor offsets = program_id(0) * BLOCK + arange(0, BLOCK);
    Tensor inBounds = offsets < n;
    store(out + offsets, load(x + offsets, inBounds) + load(y + offsets, inBounds), inBounds);
  });
}

} // namespace examples

#endif // BRICK_EXAMPLES_VECTOR_ADD_H
