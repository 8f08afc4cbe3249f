//===- Memory.cpp - Global memory of the emulated device ------------------===//

#include "Memory.h"

#include <cstdio>

using namespace nvfp4::emu;

namespace {
/// Unmapped bytes left after every allocation.
constexpr uint64_t kGuardGap = 1 << 16;
/// Largest single allocation (host memory is allocated for real).
constexpr uint64_t kMaxAllocation = uint64_t(64) << 30;

std::string hex(uint64_t v) {
  char buf[32];
  snprintf(buf, sizeof(buf), "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}
} // namespace

Expected<uint64_t> Machine::GlobalMemory::allocate(uint64_t bytes,
                                                   std::string label,
                                                   uint64_t align) {
  if (bytes == 0)
    bytes = 1;
  if (bytes > kMaxAllocation)
    return Error::failure("cannot allocate " + std::to_string(bytes) +
                          " bytes of global memory (limit " +
                          std::to_string(kMaxAllocation) + ")");
  if (align < 256)
    align = 256;
  uint64_t base = (next_ + align - 1) & ~(align - 1);
  if (base + bytes + kGuardGap > addrspace::kGlobalEnd)
    return Error::failure("global address space exhausted");
  void *data = std::calloc(bytes, 1);
  if (!data)
    return Error::failure("out of host memory allocating " +
                          std::to_string(bytes) + " bytes of global memory");
  Allocation a;
  a.base = base;
  a.size = bytes;
  a.data = static_cast<uint8_t *>(data);
  a.label = std::move(label);
  allocs_.emplace(base, std::move(a));
  next_ = base + bytes + kGuardGap;
  allocated_ += bytes;
  last_ = nullptr;
  return base;
}

Error Machine::GlobalMemory::free(uint64_t addr) {
  auto it = allocs_.find(addr);
  if (it == allocs_.end())
    return Error::failure("free of " + hex(addr) +
                          ", which is not the start of an allocation");
  allocated_ -= it->second.size;
  std::free(it->second.data);
  allocs_.erase(it);
  last_ = nullptr;
  return Error::success();
}

uint8_t *Machine::GlobalMemory::translateSlow(uint64_t addr, uint64_t size) {
  auto it = allocs_.upper_bound(addr);
  if (it == allocs_.begin())
    return nullptr;
  --it;
  Allocation &a = it->second;
  if (addr - a.base > a.size || size > a.size - (addr - a.base))
    return nullptr;
  last_ = &a;
  return a.data + (addr - a.base);
}

std::string Machine::GlobalMemory::describe(uint64_t addr,
                                            uint64_t size) const {
  auto it = allocs_.upper_bound(addr);
  const Allocation *below = nullptr, *above = nullptr;
  if (it != allocs_.end())
    above = &it->second;
  if (it != allocs_.begin())
    below = &std::prev(it)->second;
  auto name = [](const Allocation &a) {
    std::string s = "[" + hex(a.base) + ", " + hex(a.base + a.size) + ") (" +
                    std::to_string(a.size) + " bytes";
    if (!a.label.empty())
      s += ", '" + a.label + "'";
    return s + ")";
  };
  if (below && addr >= below->base && addr < below->base + below->size)
    return "runs past the end of allocation " + name(*below) + " by " +
           std::to_string(addr + size - (below->base + below->size)) + " bytes";
  if (below && addr >= below->base + below->size &&
      addr - (below->base + below->size) < kGuardGap)
    return std::to_string(addr - (below->base + below->size)) +
           " bytes past the end of allocation " + name(*below);
  if (above && above->base > addr && above->base - addr <= kGuardGap)
    return std::to_string(above->base - addr) + " bytes before allocation " +
           name(*above);
  return "no allocation contains it";
}
