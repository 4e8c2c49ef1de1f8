//===- DSLTestUtils.h - Helpers for tests that build kernels with the DSL -----===//
#ifndef BRICK_TEST_UNIT_DSLTESTUTILS_H
#define BRICK_TEST_UNIT_DSLTESTUTILS_H

#include "brick/brick.h"
#include "brick/Runtime/Device.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace brick::testing {

/// The CPU interpreter, one per test program: the device the unit tests launch on.
inline runtime::Device &cpu() {
  static runtime::Device device = runtime::Device::interpreter();
  return device;
}

/// How many ops of each name the built module holds ("brick.load" -> 2, ...); fails the test on errors.
template <class K> std::map<std::string, int> countOps(const K &kernel, const Specialization &spec = {}) {
  std::map<std::string, int> counts;
  mlir::MLIRContext context;
  BuildResult result = kernel.build(&context, spec, [&](mlir::Operation *module) {
    module->walk([&](mlir::Operation *op) { ++counts[op->getName().getStringRef().str()]; });
  });
  EXPECT_TRUE(result.ok()) << result.errors();
  return counts;
}

} // namespace brick::testing

#endif // BRICK_TEST_UNIT_DSLTESTUTILS_H
