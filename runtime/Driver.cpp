//===- Driver.cpp - Opening libcuda.so.1 and naming its errors ---------------------===//

#include "brick/Runtime/Driver.h"

#include <cstdlib>
#include <dlfcn.h>
#include <mutex>

namespace brick::runtime {

namespace {
template <class F> bool resolve(void *library, const char *name, F &slot, std::string &missing) {
  slot = reinterpret_cast<F>(dlsym(library, name));
  if (!slot)
    missing += std::string(missing.empty() ? "" : ", ") + name;
  return slot != nullptr;
}
} // namespace

Expected<Driver> Driver::open(const char *path) {
  void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *why = dlerror();
    return Error(std::string("cannot open the CUDA driver ") + path + ": " + (why ? why : "unknown reason") +
                 " (is an NVIDIA driver installed?)");
  }
  Driver d{};
  std::string missing;
  resolve(library, "cuInit", d.cuInit, missing);
  resolve(library, "cuGetErrorName", d.cuGetErrorName, missing);
  resolve(library, "cuGetErrorString", d.cuGetErrorString, missing);
  resolve(library, "cuDeviceGetCount", d.cuDeviceGetCount, missing);
  resolve(library, "cuDeviceGet", d.cuDeviceGet, missing);
  resolve(library, "cuDeviceGetName", d.cuDeviceGetName, missing);
  resolve(library, "cuDeviceGetAttribute", d.cuDeviceGetAttribute, missing);
  resolve(library, "cuDevicePrimaryCtxRetain", d.cuDevicePrimaryCtxRetain, missing);
  resolve(library, "cuDevicePrimaryCtxRelease_v2", d.cuDevicePrimaryCtxRelease, missing);
  resolve(library, "cuCtxSetCurrent", d.cuCtxSetCurrent, missing);
  resolve(library, "cuCtxGetCurrent", d.cuCtxGetCurrent, missing);
  resolve(library, "cuCtxSynchronize", d.cuCtxSynchronize, missing);
  resolve(library, "cuStreamCreate", d.cuStreamCreate, missing);
  resolve(library, "cuStreamDestroy_v2", d.cuStreamDestroy, missing);
  resolve(library, "cuStreamSynchronize", d.cuStreamSynchronize, missing);
  resolve(library, "cuMemAlloc_v2", d.cuMemAlloc, missing);
  resolve(library, "cuMemFree_v2", d.cuMemFree, missing);
  resolve(library, "cuMemcpyHtoD_v2", d.cuMemcpyHtoD, missing);
  resolve(library, "cuMemcpyDtoH_v2", d.cuMemcpyDtoH, missing);
  resolve(library, "cuMemsetD8_v2", d.cuMemsetD8, missing);
  resolve(library, "cuModuleLoadDataEx", d.cuModuleLoadDataEx, missing);
  resolve(library, "cuModuleUnload", d.cuModuleUnload, missing);
  resolve(library, "cuModuleGetFunction", d.cuModuleGetFunction, missing);
  resolve(library, "cuFuncGetAttribute", d.cuFuncGetAttribute, missing);
  resolve(library, "cuFuncSetAttribute", d.cuFuncSetAttribute, missing);
  resolve(library, "cuEventCreate", d.cuEventCreate, missing);
  resolve(library, "cuEventDestroy_v2", d.cuEventDestroy, missing);
  resolve(library, "cuEventRecord", d.cuEventRecord, missing);
  resolve(library, "cuEventSynchronize", d.cuEventSynchronize, missing);
  resolve(library, "cuEventElapsedTime", d.cuEventElapsedTime, missing);
  resolve(library, "cuLaunchKernel", d.cuLaunchKernel, missing);
  resolve(library, "cuStreamBeginCapture_v2", d.cuStreamBeginCapture, missing);
  resolve(library, "cuStreamEndCapture", d.cuStreamEndCapture, missing);
  resolve(library, "cuGraphInstantiateWithFlags", d.cuGraphInstantiateWithFlags, missing);
  resolve(library, "cuGraphLaunch", d.cuGraphLaunch, missing);
  resolve(library, "cuGraphExecDestroy", d.cuGraphExecDestroy, missing);
  resolve(library, "cuGraphDestroy", d.cuGraphDestroy, missing);
  std::string optional;
  resolve(library, "cuTensorMapEncodeTiled", d.cuTensorMapEncodeTiled, optional);
  resolve(library, "cuLaunchKernelEx", d.cuLaunchKernelEx, optional);
  resolve(library, "cuOccupancyMaxActiveBlocksPerMultiprocessor", d.cuOccupancyMaxActiveBlocksPerMultiprocessor,
          optional);
  resolve(library, "cuOccupancyMaxActiveClusters", d.cuOccupancyMaxActiveClusters, optional);
  if (!missing.empty())
    return Error(std::string("the CUDA driver ") + path + " lacks " + missing + " (Brick needs a driver for CUDA 12 or newer)");
  return d;
}

Expected<const Driver *> Driver::get() {
  static Expected<Driver> driver = [] {
    const char *path = std::getenv("BRICK_CUDA_DRIVER");
    Expected<Driver> opened = Driver::open(path && *path ? path : "libcuda.so.1");
    if (!opened)
      return opened;
    if (Error error = opened->check(opened->cuInit(0), "initializing the CUDA driver (cuInit)"))
      return Expected<Driver>(error);
    return opened;
  }();
  if (!driver)
    return driver.error();
  return &*driver;
}

Error Driver::check(CUresult result, const std::string &what) const {
  if (result == 0)
    return Error();
  const char *name = nullptr, *text = nullptr;
  if (cuGetErrorName)
    cuGetErrorName(result, &name);
  if (cuGetErrorString)
    cuGetErrorString(result, &text);
  return Error(what + ": " + (name ? name : "CUDA error") + " (" + std::to_string(result) + "): " +
               (text ? text : "no description"));
}

} // namespace brick::runtime
