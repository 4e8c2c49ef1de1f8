//===- Device.h - Devices, streams, buffers, modules, launches (no MLIR, no LLVM) ---===//
//
//   auto device = Device::get(0);                       // primary context, made current
//   auto x = DeviceBuffer::allocate(*device, bytes);    // freed when it goes out of scope
//   auto module = Module::loadPTX(*device, ptx);        // the JIT's error log in the error
//   auto kernel = module->function("softmax");
//   kernel->launch({rows}, 32 * warps, sharedBytes, nullptr, args);
//
// Device::interpreter() is the CPU interpreter as a device: its buffers are host memory, its streams and events
// run on the host, and DSL kernels launched on it are run by lib/Interpreter instead of being compiled. With
// BRICK_INTERPRET=1 in the environment, Device::get returns it, so a host program runs unchanged on the CPU.
//
//===----------------------------------------------------------------------===//
#ifndef BRICK_RUNTIME_DEVICE_H
#define BRICK_RUNTIME_DEVICE_H

#include "brick/Runtime/Driver.h"

#include <array>
#include <atomic>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace brick::runtime {

/// One GPU and its primary context.
class Device {
public:
  /// Device `ordinal`, its primary context retained and made current on this thread; the interpreter when
  /// BRICK_INTERPRET is set (and not "0").
  static Expected<Device> get(int ordinal = 0);
  /// The CPU interpreter (needs no driver).
  static Device interpreter();
  /// Whether BRICK_INTERPRET asks for the interpreter.
  static bool interpretRequested();
  bool isInterpreter() const { return driver_ == nullptr; }
  /// How many devices the driver sees (0 when there is no driver).
  static int count();

  /// The CUDA driver (not for the interpreter).
  const Driver &driver() const { return *driver_; }
  int ordinal() const { return ordinal_; }
  const std::string &name() const { return name_; }
  /// 90 for sm_90.
  int computeCapability() const { return computeCapability_; }
  int multiprocessors() const { return multiprocessors_; }
  /// The most shared memory one block may have after opting in.
  int maxSharedMemoryPerBlock() const { return maxSharedOptIn_; }
  int maxRegistersPerBlock() const { return maxRegisters_; }
  /// Bytes of L2 cache (0 on the interpreter).
  int l2CacheBytes() const { return l2CacheBytes_; }
  /// The SMs' clock and the memory's peak clock in kHz, and the memory bus width in bits, as the driver reports
  /// them (0 on the interpreter): what the profiler's peaks are computed from.
  int clockKHz() const { return clockKHz_; }
  int memoryClockKHz() const { return memoryClockKHz_; }
  int memoryBusWidthBits() const { return memoryBusWidthBits_; }
  /// Makes the primary context current on the calling thread (where another is). Every runtime call that makes
  /// something on a device (buffers, streams, events, modules), launches on it, or queues work on its default
  /// stream (a buffer's copies and fills, an event recorded on no stream) does this first, so one thread may use
  /// several devices.
  Error makeCurrent() const;

private:
  friend class Module;
  friend class DeviceBuffer;
  friend class Event;
  struct Context; // releases the primary context with the last Device copy (or the last Module loaded in it)
  /// Makes `context` current on the calling thread where another is.
  static Error makeCurrent(const Driver &driver, const Context &context);
  const Driver *driver_ = nullptr;
  int ordinal_ = 0;
  CUdevice handle_ = 0;
  std::shared_ptr<Context> context_;
  std::string name_;
  int computeCapability_ = 0, multiprocessors_ = 0, maxSharedOptIn_ = 0, maxRegisters_ = 0, l2CacheBytes_ = 0;
  int clockKHz_ = 0, memoryClockKHz_ = 0, memoryBusWidthBits_ = 0;
};

class Stream {
public:
  static Expected<Stream> create(const Device &device);
  Stream(Stream &&other) noexcept;
  Stream &operator=(Stream &&other) noexcept;
  ~Stream();
  Error synchronize() const;
  CUstream handle() const { return handle_; }

private:
  friend class Graph;
  Stream(const Driver *driver, CUstream handle) : driver_(driver), handle_(handle) {}
  const Driver *driver_; // null: the interpreter's (work runs at once, on the host)
  CUstream handle_;
};

/// A point in a stream's work, for timing it on the GPU.
class Event {
public:
  static Expected<Event> create(const Device &device);
  Event(Event &&other) noexcept;
  Event &operator=(Event &&other) noexcept;
  ~Event();
  /// Records on `stream`, or with none on the event's device's default stream.
  Error record(const Stream *stream = nullptr);
  /// Milliseconds of GPU time from `start` to this event (waits for this event).
  Expected<float> millisecondsSince(const Event &start) const;

private:
  Event(const Driver *driver, CUevent handle, std::shared_ptr<Device::Context> context = nullptr)
      : driver_(driver), handle_(handle), context_(std::move(context)) {}
  const Driver *driver_; // null: the interpreter's (host time)
  CUevent handle_;
  std::shared_ptr<Device::Context> context_; // its device's: a recording on no stream uses that device's
  double hostMilliseconds_ = 0;
};

/// Device memory (host memory on the interpreter), freed with the object.
class DeviceBuffer {
public:
  static Expected<DeviceBuffer> allocate(const Device &device, size_t bytes);
  DeviceBuffer(DeviceBuffer &&other) noexcept;
  DeviceBuffer &operator=(DeviceBuffer &&other) noexcept;
  ~DeviceBuffer();

  CUdeviceptr address() const { return address_; }
  /// Whether the buffer is host memory (the interpreter's).
  bool isHost() const { return driver_ == nullptr; }
  size_t size() const { return size_; }
  Error copyFromHost(const void *source, size_t bytes);
  /// `bytes` from `offset` bytes into the buffer.
  Error copyToHost(void *destination, size_t bytes, size_t offset = 0) const;
  /// Sets every byte (0xFF poisons floats with NaN).
  Error fill(unsigned char byte);

private:
  DeviceBuffer(const Driver *driver, CUdeviceptr address, size_t size,
               std::shared_ptr<Device::Context> context = nullptr)
      : driver_(driver), address_(address), size_(size), context_(std::move(context)) {}
  /// Makes the buffer's device current: copies and fills run on the current context's default stream, which
  /// must be the one the buffer's device runs its work on, for them to follow that work.
  Error makeCurrent() const;
  const Driver *driver_; // null: host memory of the interpreter (runtime/HostMemory.h)
  CUdeviceptr address_;
  size_t size_;
  std::shared_ptr<Device::Context> context_; // its device's (kept alive: the memory lives in it)
};

/// What the driver says about a loaded kernel.
struct FunctionAttributes {
  int registers = 0;
  int staticSharedMemory = 0;
  int localMemory = 0; // per thread: spills and stack
  int maxThreadsPerBlock = 0;
};

class Function {
public:
  const std::string &name() const { return name_; }
  CUfunction handle() const { return handle_; }
  /// Read from the driver when the function is found; launches check against them without asking again.
  const FunctionAttributes &attributes() const { return attributes_; }
  /// Launches a grid of `grid` blocks of `threads` threads with `sharedBytes` of dynamic shared memory, on
  /// `stream` (null: the default stream). `arguments` point at each kernel argument's value. Shared memory over
  /// the device's limit and too many threads are errors naming the kernel and the limit; above 48 KB the
  /// kernel is opted in first. With `clusterSize` > 1 (sm_90) the blocks run in thread block clusters of that
  /// many consecutive blocks along x, which must divide grid[0].
  Error launch(std::array<unsigned, 3> grid, unsigned threads, unsigned sharedBytes, const Stream *stream,
               void **arguments, unsigned clusterSize = 1) const;
  /// How many blocks of `threads` threads with `sharedBytes` of dynamic shared memory can be resident on the
  /// device at once, as the driver counts them for this kernel's registers and shared memory: whole clusters of
  /// `clusterSize` (cuOccupancyMaxActiveClusters, which knows how clusters fit the GPU's GPCs; fewer than the SMs
  /// over the cluster size), or with no clusters blocks per SM times the SMs. A grid of at most that many runs in
  /// one wave, as a persistent kernel's must. 0 where not even one fits.
  Expected<unsigned> maxResidentBlocks(unsigned threads, unsigned sharedBytes, unsigned clusterSize = 1) const;

  /// The cluster sizes a launch may ask for (LaunchOptions::clusterSize): 1, 2, 4 or 8.
  static bool isClusterSize(unsigned size) { return size == 1 || size == 2 || size == 4 || size == 8; }

private:
  friend class Module;
  /// Makes the device's context current, checks `threads` and the shared memory against the limits, and opts the
  /// kernel in to `sharedBytes` of dynamic shared memory where that is over what it is allowed yet.
  Error prepare(unsigned threads, unsigned sharedBytes) const;
  const Device *device_ = nullptr;
  CUfunction handle_ = nullptr;
  std::string name_;
  FunctionAttributes attributes_;
  /// The dynamic shared memory the kernel is allowed (48 KB until opted in), shared by copies and read by
  /// concurrent launches and occupancy queries.
  std::shared_ptr<std::atomic<int>> optedInShared_ = std::make_shared<std::atomic<int>>(48 * 1024);
};

/// A loaded module (PTX, which the driver compiles, or a cubin), unloaded with the object.
class Module {
public:
  static Expected<Module> loadPTX(const Device &device, std::string_view ptx);
  static Expected<Module> loadCubin(const Device &device, const std::vector<char> &cubin);
  Module(Module &&other) noexcept;
  Module &operator=(Module &&other) noexcept;
  ~Module();
  /// The kernel called `name`; the Device must outlive the Function.
  Expected<Function> function(const std::string &name) const;

private:
  Module(const Device *device, CUmodule handle)
      : device_(device), driver_(device->driver_), context_(device->context_), handle_(handle) {}
  static Expected<Module> load(const Device &device, const void *image, const char *what);
  const Device *device_;
  // A module may outlive its Device object (a function-local static kernel and a Device in main(), say): it
  // unloads through the driver and keeps the primary context retained until then.
  const Driver *driver_;
  std::shared_ptr<Device::Context> context_;
  CUmodule handle_;
};

} // namespace brick::runtime

#endif // BRICK_RUNTIME_DEVICE_H
