//===- TestPasses.cpp - Registers every test-only pass (brick-opt calls this) -------===//

namespace brick::test {
void registerTestAxisInfoPass();
void registerTestLinearLayoutsPass();

void registerTestPasses() {
  registerTestAxisInfoPass();
  registerTestLinearLayoutsPass();
}
} // namespace brick::test
