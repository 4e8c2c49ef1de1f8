#ifndef BRICK_TRANSFORMS_PASSES_TD
#define BRICK_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def BrickCombine : Pass<"brick-combine", "::mlir::ModuleOp"> {
  let summary = "Fuse brick op sequences into cheaper forms";
  let description = [{
    Rewrites `arith.addf(brick.dot(a, b, 0), d)` into `brick.dot(a, b, d)` so that the tensor-core
    accumulator starts from `d` instead of zero and the addition disappears. Runs with the canonicalization
    patterns of the brick dialect.
  }];
  let dependentDialects = ["::mlir::brick::BrickDialect", "::mlir::arith::ArithDialect"];
}

def BrickGPUCoalesce : Pass<"brickgpu-coalesce", "::mlir::ModuleOp"> {
  let summary = "Give each global load and store a layout that makes 16-byte, coalesced accesses";
  let description = [{
    For each memory op on a block of pointers, the axis-info analysis says along which dimension the
    addresses are contiguous and how aligned they are (kernel arguments carry `brick.divisibility`), and how
    far the mask stays constant. The op gets a blocked layout whose order puts that dimension first, with as
    many elements per thread as one access may cover (at most 16 bytes), and consecutive threads on
    consecutive vectors. Operands and results are converted; `remove-layout-conversions` cleans up.
  }];
  let dependentDialects = ["::mlir::brickgpu::BrickGPUDialect"];
}

def BrickGPURemoveLayoutConversions : Pass<"brickgpu-remove-layout-conversions", "::mlir::ModuleOp"> {
  let summary = "Remove layout conversions by computing values in the layout their users want";
  let description = [{
    Two rewrites, to a fixed point: a conversion of a value that is cheap to recompute (constants, splats,
    ranges, and elementwise arithmetic, pointer arithmetic, expand_dims and broadcast over them) is replaced
    by recomputing the value in the target layout; and an elementwise op or reduction whose operands all come
    converted from one layout is moved into that layout, its result converted instead (conversions then meet
    and cancel). What remains goes through shared memory.
  }];
  let dependentDialects = ["::mlir::brickgpu::BrickGPUDialect"];
}

def BrickGPUAllocateSharedMemory : Pass<"brickgpu-allocate-shared-memory", "::mlir::ModuleOp"> {
  let summary = "Place every shared-memory buffer and scratch area; record the total on the module";
  let description = [{
    Layout conversions, reductions across warps and `local_alloc` need shared memory. Each gets an offset
    (`brickgpu.offset`, bytes) such that buffers live at the same time do not overlap, while buffers that
    are never live together reuse the same bytes; liveness follows program order, with a buffer used inside
    a loop live through the whole loop. The module records the total as `brickgpu.shared`.
  }];
}

#endif // BRICK_TRANSFORMS_PASSES_TD
