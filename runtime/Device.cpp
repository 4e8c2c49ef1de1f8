//===- Device.cpp - Devices, streams, buffers, modules, launches ----------------===//

#include "brick/Runtime/Device.h"

#include "brick/Runtime/HostMemory.h"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace brick::runtime {

namespace {
// Driver enum values used here (from cuda.h).
constexpr int kAttributeMaxRegistersPerBlock = 12;
constexpr int kAttributeMultiprocessorCount = 16;
constexpr int kAttributeClockRate = 13;
constexpr int kAttributeMemoryClockRate = 36;
constexpr int kAttributeGlobalMemoryBusWidth = 37;
constexpr int kAttributeL2CacheSize = 38;
constexpr int kAttributeComputeCapabilityMajor = 75;
constexpr int kAttributeComputeCapabilityMinor = 76;
constexpr int kAttributeMaxSharedMemoryPerBlockOptin = 97;
constexpr int kFunctionMaxThreadsPerBlock = 0;
constexpr int kFunctionSharedSizeBytes = 1;
constexpr int kFunctionLocalSizeBytes = 3;
constexpr int kFunctionNumRegs = 4;
constexpr int kFunctionMaxDynamicSharedSizeBytes = 8;
constexpr int kJitInfoLogBuffer = 3, kJitInfoLogBufferSize = 4, kJitErrorLogBuffer = 5, kJitErrorLogBufferSize = 6;
constexpr int kDefaultSharedLimit = 48 * 1024;
} // namespace

struct Device::Context {
  const Driver *driver;
  CUdevice device;
  CUcontext context; // the primary context, retained while this lives
  ~Context() { driver->cuDevicePrimaryCtxRelease(device); }
};

int Device::count() {
  auto driver = Driver::get();
  int count = 0;
  if (!driver || (*driver)->cuDeviceGetCount(&count) != 0)
    return 0;
  return count;
}

bool Device::interpretRequested() {
  const char *value = std::getenv("BRICK_INTERPRET");
  return value && *value && std::strcmp(value, "0") != 0;
}

Device Device::interpreter() {
  Device device;
  device.name_ = "the CPU interpreter";
  return device;
}

Expected<Device> Device::get(int ordinal) {
  if (interpretRequested())
    return interpreter();
  auto driver = Driver::get();
  if (!driver)
    return driver.error();
  const Driver &d = **driver;
  Device device;
  device.driver_ = *driver;
  device.ordinal_ = ordinal;
  int count = 0;
  if (Error e = d.check(d.cuDeviceGetCount(&count), "counting CUDA devices"))
    return e;
  if (ordinal < 0 || ordinal >= count)
    return Error("there is no CUDA device " + std::to_string(ordinal) + " (the driver sees " + std::to_string(count) + ")");
  if (Error e = d.check(d.cuDeviceGet(&device.handle_, ordinal), "opening CUDA device " + std::to_string(ordinal)))
    return e;
  CUcontext context = nullptr;
  if (Error e = d.check(d.cuDevicePrimaryCtxRetain(&context, device.handle_), "retaining the device's primary context"))
    return e;
  // Constructed in place: a temporary Context would release the context as it dies.
  device.context_.reset(new Context{*driver, device.handle_, context});
  if (Error e = d.check(d.cuCtxSetCurrent(context), "making the primary context current"))
    return e;
  char name[256] = {};
  d.cuDeviceGetName(name, sizeof(name), device.handle_);
  device.name_ = name;
  int major = 0, minor = 0;
  auto attribute = [&](int which, int &into, const char *what) {
    return d.check(d.cuDeviceGetAttribute(&into, which, device.handle_), std::string("reading the device's ") + what);
  };
  for (Error e : {attribute(kAttributeComputeCapabilityMajor, major, "compute capability"),
                  attribute(kAttributeComputeCapabilityMinor, minor, "compute capability"),
                  attribute(kAttributeMultiprocessorCount, device.multiprocessors_, "multiprocessor count"),
                  attribute(kAttributeMaxSharedMemoryPerBlockOptin, device.maxSharedOptIn_, "shared memory limit"),
                  attribute(kAttributeMaxRegistersPerBlock, device.maxRegisters_, "register limit"),
                  attribute(kAttributeL2CacheSize, device.l2CacheBytes_, "L2 cache size"),
                  attribute(kAttributeClockRate, device.clockKHz_, "clock rate"),
                  attribute(kAttributeMemoryClockRate, device.memoryClockKHz_, "memory clock rate"),
                  attribute(kAttributeGlobalMemoryBusWidth, device.memoryBusWidthBits_, "memory bus width")})
    if (e)
      return e;
  device.computeCapability_ = 10 * major + minor;
  return device;
}

Error Device::makeCurrent() const {
  if (isInterpreter())
    return Error();
  if (!context_)
    return Error("a moved-from Device has no context");
  return makeCurrent(*driver_, *context_);
}

Error Device::makeCurrent(const Driver &driver, const Context &context) {
  // Asked each time rather than remembered: other code on the thread (a CUDA runtime, another library) may have
  // made another context current since.
  CUcontext current = nullptr;
  if (driver.cuCtxGetCurrent(&current) == 0 && current == context.context)
    return Error();
  return driver.check(driver.cuCtxSetCurrent(context.context), "making a device's primary context current");
}

//===--- Stream ----------------------------------------------------------------===//

Expected<Stream> Stream::create(const Device &device) {
  if (device.isInterpreter())
    return Stream(nullptr, nullptr);
  CUstream handle = nullptr;
  if (Error e = device.makeCurrent())
    return e;
  if (Error e = device.driver().check(device.driver().cuStreamCreate(&handle, 0), "creating a stream"))
    return e;
  return Stream(&device.driver(), handle);
}
Stream::Stream(Stream &&other) noexcept : driver_(other.driver_), handle_(std::exchange(other.handle_, nullptr)) {}
Stream &Stream::operator=(Stream &&other) noexcept {
  std::swap(driver_, other.driver_);
  std::swap(handle_, other.handle_);
  return *this;
}
Stream::~Stream() {
  if (handle_)
    driver_->cuStreamDestroy(handle_);
}
Error Stream::synchronize() const {
  if (!driver_)
    return Error();
  return driver_->check(driver_->cuStreamSynchronize(handle_), "waiting for a stream");
}

//===--- Event -----------------------------------------------------------------===//

Expected<Event> Event::create(const Device &device) {
  if (device.isInterpreter())
    return Event(nullptr, nullptr);
  CUevent handle = nullptr;
  if (Error e = device.makeCurrent())
    return e;
  if (Error e = device.driver().check(device.driver().cuEventCreate(&handle, 0), "creating an event"))
    return e;
  return Event(&device.driver(), handle, device.context_);
}
Event::Event(Event &&other) noexcept
    : driver_(other.driver_), handle_(std::exchange(other.handle_, nullptr)), context_(other.context_),
      hostMilliseconds_(other.hostMilliseconds_) {}
Event &Event::operator=(Event &&other) noexcept {
  std::swap(driver_, other.driver_);
  std::swap(handle_, other.handle_);
  std::swap(context_, other.context_);
  std::swap(hostMilliseconds_, other.hostMilliseconds_);
  return *this;
}
Event::~Event() {
  if (handle_)
    driver_->cuEventDestroy(handle_);
}
Error Event::record(const Stream *stream) {
  if (!driver_) {
    auto now = std::chrono::steady_clock::now().time_since_epoch();
    hostMilliseconds_ = std::chrono::duration<double, std::milli>(now).count();
    return Error();
  }
  if (!stream && context_) // the default stream is the current context's
    if (Error e = Device::makeCurrent(*driver_, *context_))
      return e;
  return driver_->check(driver_->cuEventRecord(handle_, stream ? stream->handle() : nullptr), "recording an event");
}
Expected<float> Event::millisecondsSince(const Event &start) const {
  if (!driver_ || !start.driver_) {
    if (driver_ || start.driver_)
      return Error("timing between an interpreter event and a GPU event");
    return float(hostMilliseconds_ - start.hostMilliseconds_);
  }
  if (Error e = driver_->check(driver_->cuEventSynchronize(handle_), "waiting for an event"))
    return e;
  float ms = 0;
  if (Error e = driver_->check(driver_->cuEventElapsedTime(&ms, start.handle_, handle_), "timing between events"))
    return e;
  return ms;
}

//===--- DeviceBuffer ---------------------------------------------------------===//

Expected<DeviceBuffer> DeviceBuffer::allocate(const Device &device, size_t bytes) {
  if (device.isInterpreter()) {
    void *memory = bytes ? allocateHost(bytes) : nullptr;
    if (bytes && !memory)
      return Error("allocating " + std::to_string(bytes) + " bytes of host memory for the interpreter");
    return DeviceBuffer(nullptr, reinterpret_cast<CUdeviceptr>(memory), bytes);
  }
  CUdeviceptr address = 0;
  if (bytes == 0)
    return DeviceBuffer(&device.driver(), 0, 0);
  if (Error e = device.makeCurrent()) // cuMemAlloc allocates on the current context's device
    return e;
  if (Error e = device.driver().check(device.driver().cuMemAlloc(&address, bytes),
                                      "allocating " + std::to_string(bytes) + " bytes of device memory"))
    return e;
  return DeviceBuffer(&device.driver(), address, bytes, device.context_);
}
DeviceBuffer::DeviceBuffer(DeviceBuffer &&other) noexcept
    : driver_(other.driver_), address_(std::exchange(other.address_, 0)), size_(std::exchange(other.size_, 0)),
      context_(other.context_) {}
DeviceBuffer &DeviceBuffer::operator=(DeviceBuffer &&other) noexcept {
  std::swap(driver_, other.driver_);
  std::swap(address_, other.address_);
  std::swap(size_, other.size_);
  std::swap(context_, other.context_);
  return *this;
}
Error DeviceBuffer::makeCurrent() const {
  return context_ ? Device::makeCurrent(*driver_, *context_) : Error();
}
DeviceBuffer::~DeviceBuffer() {
  if (address_ && !driver_)
    freeHost(reinterpret_cast<void *>(address_));
  else if (address_)
    driver_->cuMemFree(address_);
}
Error DeviceBuffer::copyFromHost(const void *source, size_t bytes) {
  if (bytes > size_)
    return Error("copying " + std::to_string(bytes) + " bytes into a buffer of " + std::to_string(size_));
  if (!driver_) {
    if (bytes)
      std::memcpy(reinterpret_cast<void *>(address_), source, bytes);
    return Error();
  }
  if (Error e = makeCurrent())
    return e;
  return driver_->check(driver_->cuMemcpyHtoD(address_, source, bytes), "copying to the device");
}
Error DeviceBuffer::copyToHost(void *destination, size_t bytes, size_t offset) const {
  if (offset > size_ || bytes > size_ - offset)
    return Error("copying " + std::to_string(bytes) + " bytes at offset " + std::to_string(offset) +
                 " out of a buffer of " + std::to_string(size_));
  if (!driver_) {
    if (bytes)
      std::memcpy(destination, reinterpret_cast<const char *>(address_) + offset, bytes);
    return Error();
  }
  if (Error e = makeCurrent())
    return e;
  return driver_->check(driver_->cuMemcpyDtoH(destination, address_ + offset, bytes), "copying from the device");
}
Error DeviceBuffer::fill(unsigned char byte) {
  if (!driver_) {
    if (size_)
      std::memset(reinterpret_cast<void *>(address_), byte, size_);
    return Error();
  }
  if (Error e = makeCurrent())
    return e;
  return driver_->check(driver_->cuMemsetD8(address_, byte, size_), "filling device memory");
}

//===--- Module and Function ------------------------------------------------------===//

Expected<Module> Module::load(const Device &device, const void *image, const char *what) {
  if (device.isInterpreter())
    return Error(std::string("loading ") + what + ": the CPU interpreter runs brick IR, not compiled kernels (launch "
                 "DSL kernels with Kernel::launch, or unset BRICK_INTERPRET to use the GPU)");
  const Driver &d = device.driver();
  if (Error e = device.makeCurrent())
    return e;
  static constexpr unsigned kLogSize = 1 << 14;
  std::string info(kLogSize, '\0'), errors(kLogSize, '\0');
  int options[] = {kJitInfoLogBuffer, kJitInfoLogBufferSize, kJitErrorLogBuffer, kJitErrorLogBufferSize};
  void *values[] = {info.data(), reinterpret_cast<void *>(uintptr_t(kLogSize)), errors.data(),
                    reinterpret_cast<void *>(uintptr_t(kLogSize))};
  CUmodule handle = nullptr;
  if (Error e = d.check(d.cuModuleLoadDataEx(&handle, image, 4, options, values), std::string("loading ") + what)) {
    errors.resize(errors.find('\0'));
    return Error(e.message() + (errors.empty() ? "" : "\nthe driver's JIT said:\n" + errors));
  }
  return Module(&device, handle);
}

Expected<Module> Module::loadPTX(const Device &device, std::string_view ptx) {
  std::string terminated(ptx); // the driver reads PTX up to a NUL
  return load(device, terminated.c_str(), "PTX");
}

Expected<Module> Module::loadCubin(const Device &device, const std::vector<char> &cubin) {
  return load(device, cubin.data(), "a cubin");
}

Module::Module(Module &&other) noexcept
    : device_(other.device_), driver_(other.driver_), context_(other.context_),
      handle_(std::exchange(other.handle_, nullptr)) {}
Module &Module::operator=(Module &&other) noexcept {
  std::swap(device_, other.device_);
  std::swap(driver_, other.driver_);
  std::swap(context_, other.context_);
  std::swap(handle_, other.handle_);
  return *this;
}
Module::~Module() {
  if (!handle_)
    return;
  (void)Device::makeCurrent(*driver_, *context_); // cuModuleUnload unloads from the current context
  driver_->cuModuleUnload(handle_);
}

Expected<Function> Module::function(const std::string &name) const {
  Function function;
  function.device_ = device_;
  function.name_ = name;
  const Driver &d = device_->driver();
  if (Error e = d.check(d.cuModuleGetFunction(&function.handle_, handle_, name.c_str()),
                        "finding kernel '" + name + "' in its module"))
    return e;
  FunctionAttributes &a = function.attributes_;
  for (auto [attribute, into] : {std::pair{kFunctionNumRegs, &a.registers}, {kFunctionSharedSizeBytes, &a.staticSharedMemory},
                                 {kFunctionLocalSizeBytes, &a.localMemory}, {kFunctionMaxThreadsPerBlock, &a.maxThreadsPerBlock}})
    if (Error e = d.check(d.cuFuncGetAttribute(into, attribute, function.handle_), "reading kernel '" + name + "'s attributes"))
      return e;
  return function;
}

Error Function::prepare(unsigned threads, unsigned sharedBytes) const {
  const Driver &d = device_->driver();
  // Launches and occupancy queries both act on the device: a stream-less launch runs on the current context.
  if (Error e = device_->makeCurrent())
    return e;
  const FunctionAttributes &a = attributes_;
  if (static_cast<int>(threads) > a.maxThreadsPerBlock)
    return Error("kernel '" + name_ + "': " + std::to_string(threads) + " threads per block, but with " +
                 std::to_string(a.registers) + " registers per thread it can have at most " +
                 std::to_string(a.maxThreadsPerBlock));
  int totalShared = a.staticSharedMemory + static_cast<int>(sharedBytes);
  if (totalShared > device_->maxSharedMemoryPerBlock())
    return Error("kernel '" + name_ + "' needs " + std::to_string(totalShared) + " bytes of shared memory, more than the " +
                 std::to_string(device_->maxSharedMemoryPerBlock()) + " a block can have on " + device_->name());
  if (static_cast<int>(sharedBytes) > optedInShared_->load()) {
    if (Error e = d.check(d.cuFuncSetAttribute(handle_, kFunctionMaxDynamicSharedSizeBytes, sharedBytes),
                          "kernel '" + name_ + "': allowing " + std::to_string(sharedBytes) + " bytes of dynamic shared memory"))
      return e;
    optedInShared_->store(int(sharedBytes)); // racing threads opt in to the same bytes
  }
  (void)kDefaultSharedLimit;
  return Error();
}

Error Function::launch(std::array<unsigned, 3> grid, unsigned threads, unsigned sharedBytes, const Stream *stream,
                       void **arguments, unsigned clusterSize) const {
  const Driver &d = device_->driver();
  if (Error e = prepare(threads, sharedBytes))
    return e;
  if (clusterSize > 1) {
    if (grid[0] % clusterSize != 0)
      return Error("kernel '" + name_ + "' runs in clusters of " + std::to_string(clusterSize) +
                   " programs, but the grid's " + std::to_string(grid[0]) +
                   " programs along x are not a whole number of clusters");
    if (!d.cuLaunchKernelEx)
      return Error("kernel '" + name_ + "' runs in clusters, and this CUDA driver has no cuLaunchKernelEx");
    CUlaunchAttribute cluster{};
    cluster.id = kLaunchAttributeClusterDimension;
    cluster.value.clusterDim = {clusterSize, 1, 1};
    CUlaunchConfig config{grid[0], grid[1], grid[2], threads, 1, 1, sharedBytes,
                          stream ? stream->handle() : nullptr, &cluster, 1};
    return d.check(d.cuLaunchKernelEx(&config, handle_, arguments, nullptr),
                   "launching kernel '" + name_ + "' in clusters of " + std::to_string(clusterSize));
  }
  return d.check(d.cuLaunchKernel(handle_, grid[0], grid[1], grid[2], threads, 1, 1, sharedBytes,
                                  stream ? stream->handle() : nullptr, arguments, nullptr),
                 "launching kernel '" + name_ + "'");
}

Expected<unsigned> Function::maxResidentBlocks(unsigned threads, unsigned sharedBytes, unsigned clusterSize) const {
  const Driver &d = device_->driver();
  if (Error e = prepare(threads, sharedBytes)) // the occupancy calls assume the launch's shared memory is allowed
    return e;
  if (clusterSize > 1) {
    if (!d.cuOccupancyMaxActiveClusters)
      return Error("kernel '" + name_ + "': this CUDA driver has no cuOccupancyMaxActiveClusters");
    CUlaunchAttribute cluster{};
    cluster.id = kLaunchAttributeClusterDimension;
    cluster.value.clusterDim = {clusterSize, 1, 1};
    CUlaunchConfig config{clusterSize, 1, 1, threads, 1, 1, sharedBytes, nullptr, &cluster, 1};
    int clusters = 0;
    if (Error e = d.check(d.cuOccupancyMaxActiveClusters(&clusters, handle_, &config),
                          "kernel '" + name_ + "': counting the clusters of " + std::to_string(clusterSize) +
                              " that fit the device at once"))
      return e;
    return unsigned(clusters) * clusterSize;
  }
  if (!d.cuOccupancyMaxActiveBlocksPerMultiprocessor)
    return Error("kernel '" + name_ + "': this CUDA driver has no cuOccupancyMaxActiveBlocksPerMultiprocessor");
  int blocks = 0;
  if (Error e = d.check(d.cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, handle_, int(threads), sharedBytes),
                        "kernel '" + name_ + "': counting the blocks that fit an SM at once"))
    return e;
  return unsigned(blocks) * unsigned(device_->multiprocessors());
}

} // namespace brick::runtime
