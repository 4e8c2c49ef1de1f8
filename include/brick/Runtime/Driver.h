//===- Driver.h - The CUDA driver API, opened at run time --------------------------===//
//
// libcuda.so.1 is opened with dlopen and its entry points go into a table, so that Brick builds and its CPU
// tests run where there is no driver and no CUDA toolkit. Types are the driver's, spelled here.
//
//===----------------------------------------------------------------------===//
#ifndef BRICK_RUNTIME_DRIVER_H
#define BRICK_RUNTIME_DRIVER_H

#include "brick/Runtime/Expected.h"

#include <cstddef>
#include <cstdint>

namespace brick::runtime {

using CUresult = int;
using CUdevice = int;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUdeviceptr = unsigned long long;
using CUevent = struct CUevent_st *;
using CUgraph = struct CUgraph_st *;
using CUgraphExec = struct CUgraphExec_st *;

/// cuLaunchKernelEx's configuration, as cuda.h lays it out (CUlaunchConfig, CUlaunchAttribute); Brick sets one
/// attribute, the cluster dimension.
struct CUlaunchAttribute {
  int id; // CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4
  char pad[4];
  union {
    char bytes[64];
    struct {
      unsigned x, y, z;
    } clusterDim;
  } value;
};
struct CUlaunchConfig {
  unsigned gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes;
  CUstream hStream;
  CUlaunchAttribute *attrs;
  unsigned numAttrs;
};
constexpr int kLaunchAttributeClusterDimension = 4;

/// The driver entry points Brick uses (names as in cuda.h, versioned where cuda.h versions them).
struct Driver {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuGetErrorName)(CUresult, const char **);
  CUresult (*cuGetErrorString)(CUresult, const char **);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetName)(char *, int, CUdevice);
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxGetCurrent)(CUcontext *);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuStreamCreate)(CUstream *, unsigned);
  CUresult (*cuStreamDestroy)(CUstream);
  CUresult (*cuStreamSynchronize)(CUstream);
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*cuMemsetD8)(CUdeviceptr, unsigned char, size_t);
  CUresult (*cuModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *, void **);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuFuncGetAttribute)(int *, int, CUfunction);
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int);
  CUresult (*cuEventCreate)(CUevent *, unsigned);
  CUresult (*cuEventDestroy)(CUevent);
  CUresult (*cuEventRecord)(CUevent, CUstream);
  CUresult (*cuEventSynchronize)(CUevent);
  CUresult (*cuEventElapsedTime)(float *, CUevent, CUevent);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream,
                             void **, void **);
  CUresult (*cuStreamBeginCapture)(CUstream, int mode);
  CUresult (*cuStreamEndCapture)(CUstream, CUgraph *);
  CUresult (*cuGraphInstantiateWithFlags)(CUgraphExec *, CUgraph, unsigned long long);
  CUresult (*cuGraphLaunch)(CUgraphExec, CUstream);
  CUresult (*cuGraphExecDestroy)(CUgraphExec);
  CUresult (*cuGraphDestroy)(CUgraph);
  /// Optional (CUDA 12 and newer have it): null when missing; only launches in clusters need it.
  CUresult (*cuLaunchKernelEx)(const CUlaunchConfig *, CUfunction, void **, void **);
  /// Optional (a driver for CUDA 12 or newer has it): null when missing, and only TMA launches need it.
  CUresult (*cuTensorMapEncodeTiled)(void *tensorMap, int dataType, unsigned rank, void *globalAddress,
                                     const uint64_t *globalDim, const uint64_t *globalStrides, const unsigned *boxDim,
                                     const unsigned *elementStrides, int interleave, int swizzle, int l2Promotion,
                                     int oobFill);
  /// Optional: null when missing; only persistent grids (brick::Grid::persistent) need them.
  CUresult (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(int *blocks, CUfunction, int blockSize,
                                                          size_t dynamicSharedBytes);
  CUresult (*cuOccupancyMaxActiveClusters)(int *clusters, CUfunction, const CUlaunchConfig *);

  /// The driver of this process, opened on first use from libcuda.so.1 (or $BRICK_CUDA_DRIVER) and
  /// initialized; the error says what was missing.
  static Expected<const Driver *> get();
  /// Opens a driver library at `path` (tests use this for the failure paths).
  static Expected<Driver> open(const char *path);

  /// Success, or an error naming `what` Brick was doing and the driver's code and message.
  Error check(CUresult result, const std::string &what) const;
};

} // namespace brick::runtime

#endif // BRICK_RUNTIME_DRIVER_H
