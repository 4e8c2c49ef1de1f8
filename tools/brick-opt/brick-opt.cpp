//===- brick-opt.cpp - Runs Brick passes over .mlir files (lit tests, debugging) ===//

#include "brick/Registration.h"

#include "mlir/Tools/mlir-opt/MlirOptMain.h"

namespace brick::test {
void registerTestPasses();
} // namespace brick::test

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  brick::registerDialects(registry);
  brick::registerPasses();
  brick::test::registerTestPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(argc, argv, "Brick optimizer driver\n", registry));
}
