//===- Bundle.cpp - Serializing, checking and loading kernel bundles --------------===//
//
// Layout: "BRICKBUNDLE" magic, then a 32-bit format version, a 64-bit payload size and a 64-bit FNV-1a of the
// payload; then the payload: length-prefixed fields.
//
//===----------------------------------------------------------------------===//

#include "brick/Runtime/Bundle.h"

#include <cstdio>
#include <cstdlib>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace brick::runtime {

namespace {
constexpr std::string_view kMagic = "BRICKBUNDLE";
constexpr uint32_t kFormatVersion = 3; // 2: the brick IR (AOT bundles, for the interpreter); 3: cluster size

void put32(std::string &out, uint32_t v) { out.append(reinterpret_cast<const char *>(&v), 4); }
void put64(std::string &out, uint64_t v) { out.append(reinterpret_cast<const char *>(&v), 8); }
void putBytes(std::string &out, std::string_view bytes) {
  put64(out, bytes.size());
  out.append(bytes);
}

/// Reads fields back, failing (once, sticky) when the bytes run out.
struct Reader {
  std::string_view bytes;
  bool failed = false;
  template <class T> T number() {
    T v{};
    if (bytes.size() < sizeof(T)) {
      failed = true;
      return v;
    }
    std::memcpy(&v, bytes.data(), sizeof(T));
    bytes.remove_prefix(sizeof(T));
    return v;
  }
  std::string_view field() {
    uint64_t size = number<uint64_t>();
    if (failed || bytes.size() < size) {
      failed = true;
      return {};
    }
    std::string_view result = bytes.substr(0, size);
    bytes.remove_prefix(size);
    return result;
  }
};
} // namespace

uint64_t fnv1a(std::string_view bytes, uint64_t seed) {
  uint64_t hash = seed;
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= 0x100000001b3ull;
  }
  return hash;
}

std::string KernelBundle::serialize() const {
  std::string payload;
  putBytes(payload, name);
  putBytes(payload, target);
  put32(payload, numWarps);
  put32(payload, sharedMemory);
  put32(payload, clusterSize);
  put32(payload, params.size());
  for (const BundleParam &param : params) {
    payload.push_back(static_cast<char>(param.kind));
    putBytes(payload, param.dtype);
  }
  putBytes(payload, ptx);
  putBytes(payload, std::string_view(cubin.data(), cubin.size()));
  putBytes(payload, brickIR);
  std::string out(kMagic);
  put32(out, kFormatVersion);
  put64(out, payload.size());
  put64(out, fnv1a(payload));
  out += payload;
  return out;
}

Expected<KernelBundle> KernelBundle::deserialize(std::string_view bytes) {
  if (bytes.substr(0, kMagic.size()) != kMagic)
    return Error("not a Brick kernel bundle (no BRICKBUNDLE header)");
  Reader header{bytes.substr(kMagic.size())};
  uint32_t version = header.number<uint32_t>();
  uint64_t size = header.number<uint64_t>();
  uint64_t checksum = header.number<uint64_t>();
  if (header.failed)
    return Error("kernel bundle truncated inside its header");
  if (version != kFormatVersion)
    return Error("kernel bundle format " + std::to_string(version) + ", this runtime reads format " +
                 std::to_string(kFormatVersion));
  if (header.bytes.size() != size)
    return Error("kernel bundle truncated or padded: the header says " + std::to_string(size) + " bytes of payload, " +
                 "there are " + std::to_string(header.bytes.size()));
  if (fnv1a(header.bytes) != checksum)
    return Error("kernel bundle corrupt: checksum mismatch");
  Reader r{header.bytes};
  KernelBundle bundle;
  bundle.name = r.field();
  bundle.target = r.field();
  bundle.numWarps = r.number<uint32_t>();
  bundle.sharedMemory = r.number<uint32_t>();
  bundle.clusterSize = r.number<uint32_t>();
  uint32_t params = r.number<uint32_t>();
  for (uint32_t i = 0; i < params && !r.failed; ++i) {
    BundleParam param;
    uint8_t kind = r.number<uint8_t>();
    if (kind > static_cast<uint8_t>(BundleParam::Kind::TensorMap))
      return Error("kernel bundle corrupt: parameter " + std::to_string(i) + " has an unknown kind (" +
                   std::to_string(kind) + ")");
    param.kind = static_cast<BundleParam::Kind>(kind);
    param.dtype = r.field();
    bundle.params.push_back(param);
  }
  bundle.ptx = r.field();
  std::string_view cubin = r.field();
  bundle.cubin.assign(cubin.begin(), cubin.end());
  bundle.brickIR = r.field();
  if (r.failed || !r.bytes.empty())
    return Error("kernel bundle corrupt: its fields do not add up to its payload");
  // A checksum proves the bytes are whole, not that a launch can use them: what no GPU Brick targets runs is
  // refused here, before a driver sees it.
  if (bundle.name.empty())
    return Error("kernel bundle invalid: the kernel has no name");
  // A power of two, or (warp-specialized) 4 producer warps beside a power of two of at least 4 consumers.
  auto powerOfTwo = [](unsigned n) { return n >= 1 && (n & (n - 1)) == 0; };
  unsigned warps = bundle.numWarps;
  if (warps > 32 || !(powerOfTwo(warps) || (warps >= 8 && powerOfTwo(warps - 4))))
    return Error("kernel bundle invalid: " + std::to_string(bundle.numWarps) +
                 " warps (a power of two from 1 to 32 is launchable, or 4 more for a warp-specialized kernel)");
  if (!Function::isClusterSize(bundle.clusterSize))
    return Error("kernel bundle invalid: clusters of " + std::to_string(bundle.clusterSize) +
                 " programs (1, 2, 4 or 8 are launchable)");
  constexpr unsigned kMostSharedMemory = 227 * 1024; // sm_90's opt-in limit, the largest of any target
  if (bundle.sharedMemory > kMostSharedMemory)
    return Error("kernel bundle invalid: " + std::to_string(bundle.sharedMemory) +
                 " bytes of shared memory, more than any GPU gives a program (" + std::to_string(kMostSharedMemory) + ")");
  std::string_view target = bundle.target;
  unsigned capability = 0;
  bool parsed = target.substr(0, 3) == "sm_" && target.size() >= 5;
  for (size_t i = 3; parsed && i < target.size(); ++i) {
    if (i + 1 == target.size() && target[i] == 'a' && i > 3)
      break;
    parsed = target[i] >= '0' && target[i] <= '9';
    capability = capability * 10 + unsigned(target[i] - '0');
  }
  if (!parsed || capability < 80)
    return Error("kernel bundle invalid: target '" + bundle.target + "' (Brick compiles for sm_80 and newer)");
  return bundle;
}

Expected<std::string> readRegularFile(const std::string &path, size_t maxBytes) {
  // O_NONBLOCK: opening a FIFO without a writer returns at once (fstat then refuses it) instead of waiting.
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return Error("cannot read " + path + ": " + std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat info;
  if (::fstat(fd, &info) != 0)
    return Error("cannot read " + path + ": " + std::strerror(errno));
  if (!S_ISREG(info.st_mode)) {
    const char *kind = S_ISDIR(info.st_mode)    ? "a directory"
                       : S_ISFIFO(info.st_mode) ? "a FIFO"
                       : S_ISCHR(info.st_mode)  ? "a character device"
                       : S_ISBLK(info.st_mode)  ? "a block device"
                       : S_ISSOCK(info.st_mode) ? "a socket"
                                                : "not a regular file";
    return Error("cannot read " + path + ": it is " + kind + ", not a regular file");
  }
  if (size_t(info.st_size) > maxBytes)
    return Error("cannot read " + path + ": " + std::to_string(info.st_size) + " bytes, more than the " +
                 std::to_string(maxBytes) + " expected at most");
  // At most the size fstat gave (plus one byte, to see a file that grew): a bounded read whatever happens to it.
  std::string bytes(size_t(info.st_size) + 1, '\0');
  size_t got = 0;
  while (got < bytes.size()) {
    ssize_t n = ::read(fd, bytes.data() + got, bytes.size() - got);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return Error("cannot read " + path + ": " + std::strerror(errno));
    if (n == 0)
      break;
    got += size_t(n);
  }
  if (got > size_t(info.st_size))
    return Error("cannot read " + path + ": it grew while being read");
  bytes.resize(got);
  return bytes;
}

Expected<KernelBundle> KernelBundle::readFile(const std::string &path) {
  // A bundle holds a kernel's PTX, cubin and IR: megabytes, not hundreds of them.
  constexpr size_t kMaxBundleBytes = size_t(256) << 20;
  auto bytes = readRegularFile(path, kMaxBundleBytes);
  if (!bytes)
    return Error("cannot read kernel bundle: " + bytes.error().message());
  auto bundle = deserialize(*bytes);
  if (!bundle)
    return Error(path + ": " + bundle.error().message());
  return bundle;
}

Error KernelBundle::writeFile(const std::string &path) const {
  // A unique temporary name beside the target, then rename: atomic on POSIX file systems.
  std::string temporary = path + ".tmp." + std::to_string(getpid()) + "." + std::to_string(fnv1a(path + name) & 0xffff);
  {
    std::ofstream file(temporary, std::ios::binary | std::ios::trunc);
    if (!file)
      return Error("cannot write " + temporary);
    std::string bytes = serialize();
    file.write(bytes.data(), bytes.size());
    if (!file.flush())
      return Error("cannot write " + temporary);
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    std::remove(temporary.c_str());
    return Error("cannot rename " + temporary + " to " + path);
  }
  return Error();
}

Expected<LoadedKernel> LoadedKernel::load(const Device &device, const KernelBundle &bundle) {
  std::string expected = "sm_" + std::to_string(device.computeCapability());
  if (bundle.target.rfind(expected, 0) != 0)
    return Error("kernel '" + bundle.name + "' was compiled for " + bundle.target + ", but " + device.name() + " is " +
                 expected);
  auto owner = std::make_shared<const Device>(device);
  auto module = bundle.cubin.empty() ? Module::loadPTX(*owner, bundle.ptx) : Module::loadCubin(*owner, bundle.cubin);
  if (!module)
    return Error("kernel '" + bundle.name + "': " + module.error().message());
  auto function = module->function(bundle.name);
  if (!function)
    return function.error();
  return LoadedKernel(std::move(owner), bundle, std::move(*module), *function);
}

unsigned LoadedKernel::hardwareClusterSize() const {
  // A bundle's target is "sm_NN[a]"; compared as a number, so that sm_100 counts as newer than sm_90.
  bool clusters = bundle_.target.rfind("sm_", 0) == 0 && std::atoi(bundle_.target.c_str() + 3) >= 90;
  return clusters ? bundle_.clusterSize : 1;
}

Error LoadedKernel::launch(std::array<unsigned, 3> grid, const Stream *stream, void **arguments) const {
  return function_.launch(grid, 32 * bundle_.numWarps, bundle_.sharedMemory, stream, arguments, hardwareClusterSize());
}

Expected<unsigned> LoadedKernel::maxResidentPrograms() const {
  if (unsigned known = residentPrograms_->load(std::memory_order_relaxed))
    return known;
  Expected<unsigned> resident =
      function_.maxResidentBlocks(32 * bundle_.numWarps, bundle_.sharedMemory, hardwareClusterSize());
  if (resident)
    residentPrograms_->store(*resident, std::memory_order_relaxed);
  return resident;
}

} // namespace brick::runtime
