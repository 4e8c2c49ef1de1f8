//===- HostMemory.h - Host allocations of the interpreter device, for bounds checks --===//
//
// Buffers of the CPU interpreter's device (Device::interpreter()) live in host memory. Each is registered here so
// that the interpreter can check every access a kernel makes: an unmasked load or store outside all of them is an
// error at the kernel's source line instead of a silent read of other data (or a crash).
//
//===----------------------------------------------------------------------===//
#ifndef BRICK_RUNTIME_HOSTMEMORY_H
#define BRICK_RUNTIME_HOSTMEMORY_H

#include <cstddef>
#include <cstdint>
#include <optional>

namespace brick::runtime {

struct HostAllocation {
  uintptr_t begin = 0;
  size_t size = 0;
};

/// Allocates `bytes` (256-byte aligned, like cuMemAlloc) and registers it; null when out of memory.
void *allocateHost(size_t bytes);
/// Frees and unregisters memory from allocateHost.
void freeHost(void *memory);
/// The registered allocation that holds `address`, if any.
std::optional<HostAllocation> findHostAllocation(uintptr_t address);
/// The registered allocation nearest to `address` (for error messages), if any.
std::optional<HostAllocation> nearestHostAllocation(uintptr_t address);
/// The registered allocation that starts last at or below `address`, if any.
std::optional<HostAllocation> hostAllocationBelow(uintptr_t address);

} // namespace brick::runtime

#endif // BRICK_RUNTIME_HOSTMEMORY_H
