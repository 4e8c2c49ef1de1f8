//===- ReplayMain.cpp - Runs the fuzz target over files, without libFuzzer ---------===//

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    auto buffer = llvm::MemoryBuffer::getFile(argv[i]);
    if (!buffer) {
      llvm::errs() << argv[i] << ": " << buffer.getError().message() << "\n";
      return 1;
    }
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>((*buffer)->getBufferStart()), (*buffer)->getBufferSize());
  }
  llvm::outs() << "replayed " << (argc - 1) << " inputs without a crash\n";
  return 0;
}
