//===- Bundle.h - A compiled kernel, as the JIT's disk cache and AOT bundles store it ---===//
//
// One format for both: what the launch needs (the kernel's name, target, warps, dynamic shared memory, the
// kinds and types of its parameters) and the code (PTX, and a cubin when ptxas was there). Serialized with a
// magic, a format version and a checksum of everything after the header: a truncated or altered file is
// detected, never trusted.
//
//===----------------------------------------------------------------------===//
#ifndef BRICK_RUNTIME_BUNDLE_H
#define BRICK_RUNTIME_BUNDLE_H

#include "brick/Runtime/Device.h"

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace brick::runtime {

/// One runtime parameter of a compiled kernel (Const parameters are compiled in and take no argument).
struct BundleParam {
  /// A tensor map is 128 bytes (a CUtensorMap, 64-byte aligned) passed by value.
  enum class Kind : uint8_t { Pointer, Scalar, TensorMap } kind = Kind::Scalar;
  /// The element type's name: "f32", "i32", ... (for pointers, what they point to; "tensormap" for tensor maps).
  std::string dtype;
  bool operator==(const BundleParam &) const = default;
};

struct KernelBundle {
  std::string name;
  std::string target;        // "sm_90a"
  unsigned numWarps = 4;
  unsigned sharedMemory = 0; // dynamic shared memory bytes each launch must provide
  /// Programs per cluster (consecutive along x): sm_90 and newer launch them as thread block clusters.
  unsigned clusterSize = 1;
  std::vector<BundleParam> params;
  std::string ptx;
  std::vector<char> cubin; // empty: load the PTX (the driver compiles it)
  /// The kernel's brick IR (AOT bundles carry it so that the CPU interpreter can run them; empty in the JIT's
  /// disk cache).
  std::string brickIR;

  /// The bytes of the bundle file.
  std::string serialize() const;
  /// Parses bundle bytes; an error says what is wrong (not a bundle, another version, truncated, corrupt).
  static Expected<KernelBundle> deserialize(std::string_view bytes);

  /// Reads / writes a bundle file; writing goes through a temporary file and a rename, so readers never
  /// see half a bundle.
  static Expected<KernelBundle> readFile(const std::string &path);
  Error writeFile(const std::string &path) const;

  bool operator==(const KernelBundle &) const = default;
};

/// The bytes of the regular file at `path` (a symbolic link followed), if it holds at most `maxBytes`. Anything
/// else is an error that says what it is (a device such as /dev/zero, a FIFO, a directory, a larger file), never an
/// unbounded read or a wait for a writer: what a damaged or hostile disk cache may hold.
Expected<std::string> readRegularFile(const std::string &path, size_t maxBytes);

/// 64-bit FNV-1a: the bundle checksum, and the JIT's cache keys.
uint64_t fnv1a(std::string_view bytes, uint64_t seed = 0xcbf29ce484222325ull);

/// A bundle loaded on a device: its module and kernel, ready to launch.
class LoadedKernel {
public:
  static Expected<LoadedKernel> load(const Device &device, const KernelBundle &bundle);
  const KernelBundle &bundle() const { return bundle_; }
  const Function &function() const { return function_; }
  /// Whether the code reads tensor maps (TMA copies): its TensorMap arguments must then be encoded
  /// (encodeTensorMap); other code ignores them.
  bool readsTensorMaps() const { return readsTensorMaps_; }
  /// Launches with `grid` programs; `arguments` point at one value per bundle parameter.
  Error launch(std::array<unsigned, 3> grid, const Stream *stream, void **arguments) const;
  /// How many programs can be resident on the device at once (Function::maxResidentBlocks for the bundle's
  /// warps, shared memory and clusters): the most a persistent grid launches.
  Expected<unsigned> maxResidentPrograms() const;

private:
  /// The cluster size the launch asks the hardware for: code for older GPUs numbers its clusters without them.
  unsigned hardwareClusterSize() const;
  LoadedKernel(std::shared_ptr<const Device> owner, KernelBundle bundle, Module module, Function function)
      : owner_(std::move(owner)), bundle_(std::move(bundle)), module_(std::make_shared<Module>(std::move(module))),
        function_(function), readsTensorMaps_(bundle_.ptx.find("cp.async.bulk.tensor") != std::string::npos) {}
  /// The device the module and function point at: a copy of the caller's, so that a kernel kept (in the JIT's
  /// cache) does not outlive the Device object it was first loaded with.
  std::shared_ptr<const Device> owner_;
  KernelBundle bundle_;
  std::shared_ptr<Module> module_;
  Function function_;
  bool readsTensorMaps_;
  /// maxResidentPrograms' answer once asked (0: not yet), shared by copies: it is the same for every launch.
  std::shared_ptr<std::atomic<unsigned>> residentPrograms_ = std::make_shared<std::atomic<unsigned>>(0);
};

} // namespace brick::runtime

#endif // BRICK_RUNTIME_BUNDLE_H
