//===- Sfu.h - ex2.approx as the H200 computes it ---------------*- C++ -*-===//
//
// ex2.approx.ftz.f32 as measured on an H200 (scripts/device/ex2_lg2_probe.sh;
// docs/Emulator.md, "ex2.approx as the H200"): 2^x is 2^i times a table entry
// for the first 23 fraction bits of |x|, one table for x >= 0 and one for
// x < 0, each the float nearest exp2 plus a difference of -2 .. +1 ulp that
// the H200 measured entry by entry (lib/Emulator/data/ex2_h200.tar.xz).
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_LIB_EMULATOR_SFU_H
#define NVFP4_LIB_EMULATOR_SFU_H

#include <cstdint>

namespace nvfp4::emu {

/// ex2.approx.ftz.f32 of the f32 bits `x`, as the H200 computes it: NaN
/// gives 0x7fffffff, -inf +0, +inf and x >= 128 +inf, a subnormal or zero
/// x 1; otherwise, with |x| truncated to 23 fraction bits in fixed point
/// (|x| = i + m 2^-23), 2^i T+[m] for x >= 0 and 2^-i T-[m] for x < 0, a
/// result below 2^-126 flushed to +0.
uint32_t ex2ApproxFtzH200(uint32_t x);

/// The difference (hardware minus the float nearest exp2, in ulps) of the
/// table entry m (0 <= m < 2^23) of x = m 2^-23 (negative: of x = -m
/// 2^-23).
int ex2TableDiff(bool negative, uint32_t m);

/// The f32 bits `u` in signed ordered ulps (the bits for x >= 0, minus
/// the magnitude's bits below; +0 and -0 are both 0), the unit in which
/// the probes record their differences; and back.
inline int64_t orderedUlps(uint32_t u) {
  return u & 0x80000000u ? -int64_t(u & 0x7fffffffu) : int64_t(u);
}
inline uint32_t fromOrderedUlps(int64_t o) {
  return o < 0 ? uint32_t(-o) | 0x80000000u : uint32_t(o);
}

/// lg2.approx.ftz.f32 of the f32 bits `x` as sm_90 computes it (measured on
/// an H100 80GB HBM3; docs/Emulator.md, "lg2.approx as measured"): NaN and
/// x < 0 give 0x7fffffff, +-0 and subnormals (flushed) -inf, +inf +inf;
/// otherwise, for x = 2^e (1 + m 2^-23), e + F[m] rounded toward zero, F
/// the measured lg2 of the mantissa (a multiple of 2^-36). Equal to the
/// hardware for every x >= 1 (e >= 0, checked over whole binades); for x <
/// 1 the hardware's F has bits below the float's that the table lacks, and
/// 27-99% of results match (docs/Emulator.md).
uint32_t lg2ApproxFtzSm90(uint32_t x);

/// The difference (hardware minus the float nearest log2, in ulps) of
/// lg2(1 + m 2^-23), 0 <= m < 2^23.
int lg2TableDiff(uint32_t m);

} // namespace nvfp4::emu

#endif // NVFP4_LIB_EMULATOR_SFU_H
