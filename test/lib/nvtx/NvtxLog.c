/* An NVTX injection library that writes every range push and pop to $BRICK_NVTX_LOG: what a profiler such as
 * Nsight Systems receives, checked without one (test/tools/nvtx.test). Loaded through NVTX_INJECTION64_PATH. */
#include <nvtx3/nvToolsExt.h>

#include <stdio.h>
#include <stdlib.h>

static FILE *logFile;

static int pushA(const char *message) {
  fprintf(logFile, "push %s\n", message);
  fflush(logFile);
  return 0;
}

static int pop(void) {
  fprintf(logFile, "pop\n");
  fflush(logFile);
  return 0;
}

__attribute__((visibility("default"))) int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t getExportTable) {
  const char *path = getenv("BRICK_NVTX_LOG");
  logFile = path ? fopen(path, "w") : stderr;
  if (!logFile)
    return 0;
  const NvtxExportTableCallbacks *callbacks = (const NvtxExportTableCallbacks *)getExportTable(NVTX_ETID_CALLBACKS);
  NvtxFunctionTable table = 0;
  unsigned int size = 0;
  if (!callbacks || !callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &table, &size) ||
      size <= NVTX_CBID_CORE_RangePop)
    return 0;
  *table[NVTX_CBID_CORE_RangePushA] = (NvtxFunctionPointer)pushA;
  *table[NVTX_CBID_CORE_RangePop] = (NvtxFunctionPointer)pop;
  return 1;
}
