//===- Memory.h - Global memory of the emulated device ----------*- C++ -*-===//
//
// Global memory is a set of allocations at distinct device addresses. Every
// allocation is followed by an unmapped gap so that running off its end is
// reported instead of silently touching the next buffer, and freed
// addresses are never reused, so a use after free is reported too.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_LIB_EMULATOR_MEMORY_H
#define NVFP4_LIB_EMULATOR_MEMORY_H

#include "nvfp4/Emulator/Machine.h"

#include <cstdlib>
#include <map>
#include <string>

namespace nvfp4::emu {

class Machine::GlobalMemory {
public:
  struct Allocation {
    uint64_t base = 0;
    uint64_t size = 0;
    uint8_t *data = nullptr;
    std::string label;
  };

  GlobalMemory() = default;
  ~GlobalMemory() {
    for (auto &kv : allocs_)
      std::free(kv.second.data);
  }
  GlobalMemory(const GlobalMemory &) = delete;
  GlobalMemory &operator=(const GlobalMemory &) = delete;

  /// Allocates `bytes` zeroed bytes aligned to `align` (a power of two).
  Expected<uint64_t> allocate(uint64_t bytes, std::string label,
                              uint64_t align = 256);
  /// Frees the allocation that starts at `addr`.
  Error free(uint64_t addr);

  /// Host pointer for [addr, addr + size) if it lies inside one allocation;
  /// null otherwise.
  uint8_t *translate(uint64_t addr, uint64_t size) {
    if (last_ && addr >= last_->base && addr - last_->base <= last_->size &&
        size <= last_->size - (addr - last_->base))
      return last_->data + (addr - last_->base);
    return translateSlow(addr, size);
  }

  /// Describes where [addr, addr + size) falls (for diagnostics).
  std::string describe(uint64_t addr, uint64_t size) const;

  uint64_t allocatedBytes() const { return allocated_; }

private:
  uint8_t *translateSlow(uint64_t addr, uint64_t size);

  std::map<uint64_t, Allocation> allocs_;
  Allocation *last_ = nullptr;
  uint64_t next_ = addrspace::kGlobalBase;
  uint64_t allocated_ = 0;
};

} // namespace nvfp4::emu

#endif // NVFP4_LIB_EMULATOR_MEMORY_H
