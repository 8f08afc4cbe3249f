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

#include "../../lib/Emulator/Sfu.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>

using namespace nvfp4::emu;

namespace {

uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

int64_t ordered(uint32_t u) {
  return u & 0x80000000u ? -int64_t(u & 0x7fffffff) : int64_t(u);
}

struct Counts {
  long long rn = 0, up = 0, down = 0, far = 0;
};

/// The probe's counts for x = 2^e (1 + m 2^-23), every m: the model's
/// result against the float nearest log2, in ordered ulps.
Counts binade(int e) {
  Counts c;
  for (uint32_t m = 0; m < (1u << 23); ++m) {
    float x = std::ldexp(1.0f + std::ldexp(float(m), -23), e);
    int64_t v = ordered(lg2ApproxFtzSm90(bitsOf(x))) -
                ordered(bitsOf(float(std::log2(double(x)))));
    c.rn += v == 0, c.up += v == 1, c.down += v == -1;
    c.far += v > 1 || v < -1;
  }
  return c;
}

void expectCounts(int e, long long rn, long long up, long long down,
                  long long far) {
  Counts c = binade(e);
  EXPECT_EQ(c.rn, rn) << "e = " << e;
  EXPECT_EQ(c.up, up) << "e = " << e;
  EXPECT_EQ(c.down, down) << "e = " << e;
  EXPECT_EQ(c.far, far) << "e = " << e;
}

// The table itself, read entry for entry (the probe's e = 0 line).
TEST(Lg2Sm90, MantissaTableAsMeasured) {
  expectCounts(0, 2878730, 2556795, 414634, 2538449);
}

// x >= 2: the binades the table does not hold, as the H100 printed them.
TEST(Lg2Sm90, ExponentAddedAsMeasured) {
  expectCounts(1, 6309867, 1070111, 1008630, 0);
  expectCounts(2, 6293024, 14682, 2080902, 0);
  expectCounts(3, 6293024, 14682, 2080902, 0);
  expectCounts(20, 4459532, 0, 3929076, 0);
  expectCounts(100, 4260739, 0, 4127869, 0);
  expectCounts(126, 4260739, 0, 4127869, 0);
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
