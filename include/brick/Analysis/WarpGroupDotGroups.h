//===- WarpGroupDotGroups.h - Which warpgroup_dots share a wgmma commit group ---------------===//
#ifndef BRICK_ANALYSIS_WARPGROUPDOTGROUPS_H
#define BRICK_ANALYSIS_WARPGROUPDOTGROUPS_H

#include "brick/Dialect/BrickGPU/BrickGPUDialect.h"

namespace mlir::brick {

/// Whether `dot`'s wgmmas join the next dot's commit group instead of committing and waiting on their own: its
/// result's only use is the accumulator of a later warpgroup_dot of the same block (a head dimension read in
/// pieces: Q K^T as a sum of dots), neither skips rows (zero_rows_from branches), and nothing between them writes
/// memory (the buffers `dot` still reads) or holds regions. wgmma orders the instructions on one accumulator, so
/// the next dot's commit and wait cover both.
bool joinsNextDotGroup(brickgpu::WarpGroupDotOp dot);

} // namespace mlir::brick

#endif // BRICK_ANALYSIS_WARPGROUPDOTGROUPS_H
