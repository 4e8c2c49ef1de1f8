//===- catalog.h - The example kernels with a typical specialization each ------===//
//
// One list that the example programs, brickc --example and the tests share.
//
//===----------------------------------------------------------------------===//
#ifndef BRICK_EXAMPLES_CATALOG_H
#define BRICK_EXAMPLES_CATALOG_H

#include "brick/brick.h"

#include <functional>
#include <string>
#include <vector>

namespace examples {

struct Example {
  std::string name;
  std::string summary;
  /// Builds the kernel's brick IR for a specialization (into `context`, a fresh one when null); `run` sees the
  /// module.
  std::function<brick::BuildResult(mlir::MLIRContext *context, const brick::Specialization &spec,
                                   const std::function<void(mlir::Operation *)> &run)>
      buildSpecialization;
  /// The typical specialization.
  brick::Specialization spec;
  brick::BuildResult build(mlir::MLIRContext *context, const std::function<void(mlir::Operation *)> &run) const {
    return buildSpecialization(context, spec, run);
  }
  /// How the example's program launches it (what brickc uses unless told otherwise).
  unsigned numWarps = 4, numStages = 3;
  /// The specialization for other values of the Const parameters (brickc --constants), where other arguments
  /// depend on them (a descriptor's block shape is the kernel's tile); null: only the constants change.
  std::function<brick::Specialization(const std::vector<int64_t> &constants)> withConstants;
};

const std::vector<Example> &catalog();
/// The example called `name`, or null.
const Example *findExample(const std::string &name);

} // namespace examples

#endif // BRICK_EXAMPLES_CATALOG_H
