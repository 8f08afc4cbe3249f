//===- TensorMemory.cpp - SM100 tensor memory facts -----------------------===//
//
// Allocation rules and the tcgen05.ld/st shape tables declared in
// TensorMemory.h. Sources are cited beside each rule.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Support/TensorMemory.h"

#include <cassert>

using namespace nvfp4;
using namespace nvfp4::tmem;

namespace {

constexpr bool isPowerOfTwo(uint64_t x) { return x != 0 && (x & (x - 1)) == 0; }

/// Registers per thread for .x1 of each shape (PTX Table 49, first row).
unsigned registersPerRepetition(LdStShape shape) {
  switch (shape) {
  case LdStShape::S32x32b:
  case LdStShape::S16x64b:
  case LdStShape::S16x32bx2:
    return 1;
  case LdStShape::S16x128b:
    return 2;
  case LdStShape::S16x256b:
    return 4;
  }
  return 0;
}

/// Largest .num of each shape: the "NA" cells of PTX Table 49 cap the
/// register count at 128 per thread.
unsigned maxNum(LdStShape shape) {
  return kMaxLdStNum / registersPerRepetition(shape);
}

} // namespace

std::optional<std::string> tmem::verifyAllocColumns(int64_t columns) {
  // PTX 9.7.16.7.1: "nCols ... must be a power of 2" in [32, 512].
  if (columns < kMinAllocColumns || columns > kColumns ||
      !isPowerOfTwo(static_cast<uint64_t>(columns)))
    return "expected a power of two in [" + std::to_string(kMinAllocColumns) +
           ", " + std::to_string(kColumns) + "] columns, got " +
           std::to_string(columns);
  return std::nullopt;
}

std::optional<unsigned> tmem::roundUpAllocColumns(uint64_t columns) {
  if (columns > kColumns)
    return std::nullopt;
  unsigned result = kMinAllocColumns;
  while (result < columns)
    result *= 2;
  return result;
}

const char *tmem::stringify(LdStShape s) {
  switch (s) {
  case LdStShape::S16x64b:
    return "16x64b";
  case LdStShape::S16x128b:
    return "16x128b";
  case LdStShape::S16x256b:
    return "16x256b";
  case LdStShape::S32x32b:
    return "32x32b";
  case LdStShape::S16x32bx2:
    return "16x32bx2";
  }
  return "invalid";
}

unsigned tmem::shapeLanes(LdStShape shape) {
  // The shape's first number is the lane count (PTX 9.7.16.2.3); the two
  // 16x32b halves of 16x32bx2 cover the same 16 lanes.
  return shape == LdStShape::S32x32b ? 32 : 16;
}

unsigned tmem::shapeColumns(LdStShape shape, unsigned num) {
  // The shape's second number is the bits per lane of one repetition; a
  // column is 32 bits wide.
  switch (shape) {
  case LdStShape::S32x32b:
  case LdStShape::S16x32bx2:
    return num;
  case LdStShape::S16x64b:
    return 2 * num;
  case LdStShape::S16x128b:
    return 4 * num;
  case LdStShape::S16x256b:
    return 8 * num;
  }
  return 0;
}

std::optional<unsigned> tmem::registersPerThread(LdStShape shape,
                                                 unsigned num) {
  // PTX 9.7.16.8.3: .num in {.x1, ..., .x128}; Table 49 for the counts.
  if (!isPowerOfTwo(num) || num > maxNum(shape))
    return std::nullopt;
  return registersPerRepetition(shape) * num;
}

LaneColumn tmem::threadRegisterToTmem(LdStShape shape, unsigned num,
                                      unsigned lane, unsigned reg) {
  return threadRegisterToTmem(shape, num, lane, reg, /*halfSplitOff=*/num);
}

LaneColumn tmem::threadRegisterToTmem(LdStShape shape, unsigned num,
                                      unsigned lane, unsigned reg,
                                      unsigned halfSplitOff) {
  assert(lane < 32 && "expected a lane id in [0, 32)");
  assert(registersPerThread(shape, num) &&
         reg < *registersPerThread(shape, num) &&
         "expected a register index below the shape's register count");
  (void)num;
  const unsigned t = lane;
  // Each case restates the CUTLASS Copy_Traits<SM100_TMEM_LOAD_*> DstLayout
  // (thread, value-bit) -> TMEM bit mapping, with a lane holding
  // shapeColumns(shape, num) * 32 bits.
  switch (shape) {
  case LdStShape::S32x32b:
    // 32dp32bNx: thread t owns lane t; register j is column j.
    return {t, reg};
  case LdStShape::S16x64b: {
    // 16dp64bNx: threads (t%2, (t/2)%2, t/4) -> lane 8*(t%2) + t/4, column
    // (t/2)%2 inside each 2-column repetition; register j is repetition j.
    return {8 * (t % 2) + t / 4, (t / 2) % 2 + 2 * reg};
  }
  case LdStShape::S16x128b: {
    // 16dp128bNx: thread t -> lane t/4, column t%4 of each 4-column
    // repetition; the odd register of a pair is 8 lanes further down.
    const unsigned rep = reg / 2, half = reg % 2;
    return {t / 4 + 8 * half, t % 4 + 4 * rep};
  }
  case LdStShape::S16x256b: {
    // 16dp256bNx: thread t -> lane t/4, columns 2*(t%4) and 2*(t%4)+1 of
    // each 8-column repetition; registers 2-3 of a quad are 8 lanes down.
    const unsigned rep = reg / 4, quad = reg % 4;
    return {t / 4 + 8 * (quad / 2), 2 * (t % 4) + quad % 2 + 8 * rep};
  }
  case LdStShape::S16x32bx2:
    // PTX 9.7.16.8.3: two 16x32b accesses, the second at taddr +
    // immHalfSplitoff. Threads 0-15 take the first, 16-31 the second; each
    // thread owns lane t%16 and register j is column j of its half.
    return {t % 16, reg + (t / 16) * halfSplitOff};
  }
  return {0, 0};
}
