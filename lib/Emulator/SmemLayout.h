//===- SmemLayout.h - Canonical shared-memory operand layouts ---*- C++ -*-===//
//
// Internal to lib/Emulator: the addressing of matrix operands that the
// tensor cores read from shared memory through a matrix descriptor, shared
// by tcgen05.mma (Mma.cpp, SM100 UMMA descriptors) and wgmma.mma_async
// (Wgmma.cpp, SM90 GMMA descriptors). Both use the same canonical layouts
// (PTX ISA "Shared memory matrix layout" / "canonical layouts", in units of
// T = 16 bytes / element bytes, w = swizzle width / 16 bytes):
//
//   K-major,  no swizzle: ((8,m),(T,2k)):((1T,SBO),(1,LBO))
//   K-major,  swizzled:   ((8,m),(T,2k)):((wT,SBO),(1,T))
//   MN-major, no swizzle: ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO))
//   MN-major, swizzled:   ((T,w,m),(8,k)):((1,T,LBO),(wT,SBO))
//
// followed by the swizzle XOR on the absolute shared address: bits [4, 4+B)
// ^= bits [7, 7+B), B = 1, 2, 3 for 32-, 64- and 128-byte swizzles.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_LIB_EMULATOR_SMEMLAYOUT_H
#define NVFP4_LIB_EMULATOR_SMEMLAYOUT_H

#include <cstdint>

namespace nvfp4::emu::smem {

/// A decoded matrix descriptor, independent of its encoding.
struct Canonical {
  uint32_t start = 0;       ///< byte address of the matrix in shared memory
  uint32_t lbo = 0;         ///< leading-dimension byte offset
  uint32_t sbo = 0;         ///< stride-dimension byte offset
  unsigned swizzleBits = 0; ///< B: 0 none, 1 32B, 2 64B, 3 128B
  bool kMajor = true;
};

/// Width in bytes of one swizzle row (16 without swizzle).
inline uint32_t swizzleWidth(unsigned swizzleBits) {
  return 16u << swizzleBits;
}

/// Byte offset from the start address (before the swizzle) of element
/// (mn, k) of elements of `eb` bytes.
inline uint64_t canonicalOffset(const Canonical &d, unsigned eb, uint32_t mn,
                                uint32_t k) {
  const uint32_t T = 16 / eb;
  const unsigned B = d.swizzleBits;
  const uint32_t W = swizzleWidth(B);
  if (d.kMajor) {
    if (B == 0)
      return (mn % 8) * 16 + (mn / 8) * uint64_t(d.sbo) + (k % T) * eb +
             (k / T) * uint64_t(d.lbo);
    return (mn % 8) * W + (mn / 8) * uint64_t(d.sbo) + k * eb;
  }
  if (B == 0)
    return (mn % T) * eb + (mn / T) * uint64_t(d.sbo) + (k % 8) * 16 +
           (k / 8) * uint64_t(d.lbo);
  const uint32_t rowElems = W / eb; // T * w
  return (mn % rowElems) * eb + (mn / rowElems) * uint64_t(d.lbo) +
         (k % 8) * W + (k / 8) * uint64_t(d.sbo);
}

/// The LBO repeat that element (mn, k) lies in (0 for a layout without an
/// LBO stride). Within one repeat the canonical layouts are contiguous up
/// to their SBO strides, so the bytes an operand reads are one range per
/// repeat; repeats LBO apart may have anything between them.
inline uint32_t lboRepeat(const Canonical &d, unsigned eb, uint32_t mn,
                          uint32_t k) {
  const uint32_t T = 16 / eb;
  if (d.kMajor)
    return d.swizzleBits == 0 ? k / T : 0;
  if (d.swizzleBits == 0)
    return k / 8;
  return mn / (swizzleWidth(d.swizzleBits) / eb);
}

/// The swizzle XOR on an absolute shared address.
inline uint64_t swizzle(uint64_t a, unsigned bits) {
  if (bits == 0)
    return a;
  return a ^ (((a >> 7) & ((uint64_t(1) << bits) - 1)) << 4);
}

/// Shared address of element (mn, k).
inline uint64_t elementAddress(const Canonical &d, unsigned eb, uint32_t mn,
                               uint32_t k) {
  return swizzle(d.start + canonicalOffset(d, eb, mn, k), d.swizzleBits);
}

} // namespace nvfp4::emu::smem

#endif // NVFP4_LIB_EMULATOR_SMEMLAYOUT_H
