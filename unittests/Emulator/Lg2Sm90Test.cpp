//===- Lg2Sm90Test.cpp - lg2.approx as sm_90 computes it ------------------===//
//
// The emulator's model of lg2.approx.ftz.f32 (lib/Emulator/Sfu.h: the
// measured lg2 of the mantissa, F[m], and e + F[m] rounded toward zero)
// against what an H100 80GB HBM3 printed in scripts/device/lg2_table_probe.sh's
// run of 2026-12-05 (docs/Emulator.md, "lg2.approx as measured"). The
// table is the binade x in [1, 2); the other binades are separate
// measurements that the table does not contain, so their counts test how
// the model adds the exponent.
//
//===----------------------------------------------------------------------===//

#include "SfuProbeCounts.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace nvfp4::emu;
using namespace nvfp4::emu::test;

namespace {

/// The probe's counts for x = 2^e (1 + m 2^-23), every m: the model's
/// result against the float nearest log2, in ordered ulps.
Counts binade(int e) {
  Counts c;
  for (uint32_t m = 0; m < (1u << 23); ++m) {
    float x = std::ldexp(1.0f + std::ldexp(float(m), -23), e);
    c.add(
        ulps(lg2ApproxFtzSm90(bitsOf(x)), bitsOf(float(std::log2(double(x))))));
  }
  return c;
}

// The table itself, read entry for entry (the probe's e = 0 line).
TEST(Lg2Sm90, MantissaTableAsMeasured) {
  EXPECT_EQ(binade(0), (Counts{2878730, 2556795, 414634, 2538449}));
}

// x >= 2: the binades the table does not hold, as the H100 printed them.
TEST(Lg2Sm90, ExponentAddedAsMeasured) {
  EXPECT_EQ(binade(1), (Counts{6309867, 1070111, 1008630, 0}));
  EXPECT_EQ(binade(2), (Counts{6293024, 14682, 2080902, 0}));
  EXPECT_EQ(binade(3), (Counts{6293024, 14682, 2080902, 0}));
  EXPECT_EQ(binade(20), (Counts{4459532, 0, 3929076, 0}));
  EXPECT_EQ(binade(100), (Counts{4260739, 0, 4127869, 0}));
  EXPECT_EQ(binade(126), (Counts{4260739, 0, 4127869, 0}));
}

TEST(Lg2Sm90, SpecialInputs) {
  EXPECT_EQ(lg2ApproxFtzSm90(0x00000000u), 0xff800000u); // +0: -inf
  EXPECT_EQ(lg2ApproxFtzSm90(0x80000000u), 0xff800000u); // -0: -inf
  EXPECT_EQ(lg2ApproxFtzSm90(0x00000001u), 0xff800000u); // subnormal, flushed
  EXPECT_EQ(lg2ApproxFtzSm90(0x7f800000u), 0x7f800000u); // +inf
  EXPECT_EQ(lg2ApproxFtzSm90(0xbf800000u), 0x7fffffffu); // -1: NaN
  EXPECT_EQ(lg2ApproxFtzSm90(0x7fc00000u), 0x7fffffffu); // NaN
  EXPECT_EQ(lg2ApproxFtzSm90(0x3f800000u), 0x00000000u); // 1: +0
  EXPECT_EQ(lg2ApproxFtzSm90(0x40000000u), 0x3f800000u); // 2: 1
}

} // namespace
