//===- HostMemory.cpp - Registered host allocations --------------------------------===//

#include "brick/Runtime/HostMemory.h"

#include <cstdlib>
#include <iterator>
#include <map>
#include <mutex>

namespace brick::runtime {

namespace {
struct Registry {
  std::mutex mutex;
  std::map<uintptr_t, size_t> allocations; // begin -> size
};
Registry &registry() {
  static Registry *instance = new Registry; // never destroyed: buffers may outlive static destructors
  return *instance;
}
} // namespace

void *allocateHost(size_t bytes) {
  constexpr size_t kAlignment = 256;
  size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  void *memory = std::aligned_alloc(kAlignment, rounded ? rounded : kAlignment);
  if (!memory)
    return nullptr;
  std::lock_guard<std::mutex> lock(registry().mutex);
  registry().allocations[reinterpret_cast<uintptr_t>(memory)] = bytes;
  return memory;
}

void freeHost(void *memory) {
  if (!memory)
    return;
  {
    std::lock_guard<std::mutex> lock(registry().mutex);
    registry().allocations.erase(reinterpret_cast<uintptr_t>(memory));
  }
  std::free(memory);
}

std::optional<HostAllocation> findHostAllocation(uintptr_t address) {
  std::lock_guard<std::mutex> lock(registry().mutex);
  auto &allocations = registry().allocations;
  auto after = allocations.upper_bound(address);
  if (after == allocations.begin())
    return std::nullopt;
  auto holder = std::prev(after);
  if (address - holder->first >= holder->second)
    return std::nullopt;
  return HostAllocation{holder->first, holder->second};
}

std::optional<HostAllocation> nearestHostAllocation(uintptr_t address) {
  std::lock_guard<std::mutex> lock(registry().mutex);
  auto &allocations = registry().allocations;
  if (allocations.empty())
    return std::nullopt;
  auto after = allocations.upper_bound(address);
  auto distance = [&](std::map<uintptr_t, size_t>::iterator it) {
    return address < it->first ? it->first - address : address - (it->first + it->second);
  };
  auto best = after == allocations.end() ? std::prev(after) : after;
  if (after != allocations.begin() && distance(std::prev(after)) <= distance(best))
    best = std::prev(after);
  return HostAllocation{best->first, best->second};
}

std::optional<HostAllocation> hostAllocationBelow(uintptr_t address) {
  std::lock_guard<std::mutex> lock(registry().mutex);
  auto &allocations = registry().allocations;
  auto after = allocations.upper_bound(address);
  if (after == allocations.begin())
    return std::nullopt;
  auto below = std::prev(after);
  return HostAllocation{below->first, below->second};
}

} // namespace brick::runtime
