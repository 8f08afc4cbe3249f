//===- FloatFormatsTest.cpp - Tests for the float encoders ----------------===//
//
// Expected codes are computed by hand from the format definitions (PTX ISA
// 5.2.3 "Alternate floating point data formats" and IEEE 754 binary16 /
// bfloat16): sign, biased exponent and mantissa fields written out in the
// comments.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Emulator/FloatFormats.h"

#include "gtest/gtest.h"

#include <cmath>
#include <limits>

using namespace nvfp4::emu::fp;

namespace {

uint64_t enc(const Format &f, double x, Round r = Round::NearestEven,
             bool sat = false, bool relu = false) {
  EncodeOptions o;
  o.round = r;
  o.satFinite = sat;
  o.relu = relu;
  return encode(f, unpackDouble(x), o);
}

uint64_t encF32(const Format &f, uint32_t bits, Round r = Round::NearestEven,
                bool sat = false) {
  EncodeOptions o;
  o.round = r;
  o.satFinite = sat;
  return encode(f, unpack(kF32, bits), o);
}

TEST(FloatFormatsTest, Bf16RoundsToNearestEven) {
  // 1 + 2^-8 = 0x3F808000 is halfway between bf16 0x3F80 and 0x3F81: even.
  EXPECT_EQ(encF32(kBF16, 0x3F808000u), 0x3F80u);
  // 1 + 3 * 2^-8 = 0x3F818000 is halfway between 0x3F81 and 0x3F82: even.
  EXPECT_EQ(encF32(kBF16, 0x3F818000u), 0x3F82u);
  // Just above halfway rounds up.
  EXPECT_EQ(encF32(kBF16, 0x3F808001u), 0x3F81u);
  EXPECT_EQ(encF32(kBF16, 0x3F81FFFFu, Round::TowardZero), 0x3F81u);
  EXPECT_EQ(encF32(kBF16, 0xBF808001u, Round::Down), 0xBF81u);
  EXPECT_EQ(encF32(kBF16, 0xBF808001u, Round::Up), 0xBF80u);
  // FLT_MAX is above the midpoint between bf16's max 0x7F7F and 2^128.
  EXPECT_EQ(encF32(kBF16, 0x7F7FFFFFu), 0x7F80u);
  EXPECT_EQ(encF32(kBF16, 0x7F7FFFFFu, Round::TowardZero), 0x7F7Fu);
  EXPECT_EQ(encF32(kBF16, 0x7F7FFFFFu, Round::NearestEven, true), 0x7F7Fu);
  EXPECT_EQ(encF32(kBF16, 0x7F800000u), 0x7F80u); // +Inf
  EXPECT_EQ(encF32(kBF16, 0xFF800000u, Round::NearestEven, true),
            0xFF7Fu);                             // -Inf sat
  EXPECT_EQ(encF32(kBF16, 0x7FC00001u), 0x7FFFu); // canonical NaN
  // bf16's smallest subnormal is 2^-133 = f32 0x00010000.
  EXPECT_EQ(encF32(kBF16, 0x00010000u), 0x0001u);
  EXPECT_EQ(encF32(kBF16, 0x80008000u), 0x8000u); // -2^-134: tie -> -0
  EXPECT_EQ(encF32(kBF16, 0x80008001u), 0x8001u);
}

TEST(FloatFormatsTest, F16RangeAndSubnormals) {
  EXPECT_EQ(enc(kF16, 1.0), 0x3C00u);
  EXPECT_EQ(enc(kF16, 65504.0), 0x7BFFu);
  EXPECT_EQ(enc(kF16, 65519.0), 0x7BFFu);
  EXPECT_EQ(enc(kF16, 65520.0), 0x7C00u); // midpoint to 2^16: even -> Inf
  EXPECT_EQ(enc(kF16, 65520.0, Round::TowardZero), 0x7BFFu);
  EXPECT_EQ(enc(kF16, 1e6, Round::NearestEven, true), 0x7BFFu);
  EXPECT_EQ(enc(kF16, std::ldexp(1.0, -24)), 0x0001u);
  EXPECT_EQ(enc(kF16, std::ldexp(1.0, -25)), 0x0000u);     // tie -> 0
  EXPECT_EQ(enc(kF16, 3 * std::ldexp(1.0, -26)), 0x0001u); // 0.75 ulp
  EXPECT_EQ(enc(kF16, std::ldexp(1.0, -25), Round::Up), 0x0001u);
  EXPECT_EQ(enc(kF16, -2.0, Round::NearestEven, false, true), 0x0000u);
  EXPECT_DOUBLE_EQ(toDouble(kF16, 0x3555u), 0.333251953125);
}

TEST(FloatFormatsTest, E4M3SaturatesTo448) {
  // e4m3: bias 7, no Inf, NaN = S.1111.111, max 0.1111.110 = 1.75 * 2^8.
  EXPECT_EQ(enc(kE4M3, 1.0, Round::NearestEven, true), 0x38u);
  EXPECT_EQ(enc(kE4M3, 448.0, Round::NearestEven, true), 0x7Eu);
  EXPECT_EQ(enc(kE4M3, 464.0, Round::NearestEven, true), 0x7Eu);
  EXPECT_EQ(enc(kE4M3, 1e9, Round::NearestEven, true), 0x7Eu);
  EXPECT_EQ(enc(kE4M3, -1000.0, Round::NearestEven, true), 0xFEu);
  EXPECT_EQ(enc(kE4M3, HUGE_VAL, Round::NearestEven, true), 0x7Eu);
  EXPECT_EQ(enc(kE4M3, std::nan(""), Round::NearestEven, true), 0x7Fu);
  // Ties: 1.0625 between 1.0 (0x38) and 1.125 (0x39) -> 0x38; 1.1875
  // between 1.125 and 1.25 (0x3A) -> 0x3A.
  EXPECT_EQ(enc(kE4M3, 1.0625, Round::NearestEven, true), 0x38u);
  EXPECT_EQ(enc(kE4M3, 1.1875, Round::NearestEven, true), 0x3Au);
  // Smallest subnormal 2^-9 = 0x01; 2^-10 ties to 0.
  EXPECT_EQ(enc(kE4M3, std::ldexp(1.0, -9), Round::NearestEven, true), 0x01u);
  EXPECT_EQ(enc(kE4M3, std::ldexp(1.0, -10), Round::NearestEven, true), 0x00u);
  EXPECT_DOUBLE_EQ(toDouble(kE4M3, 0x7E), 448.0);
  EXPECT_TRUE(std::isnan(toDouble(kE4M3, 0x7F)));
  EXPECT_DOUBLE_EQ(toDouble(kE4M3, 0x01), std::ldexp(1.0, -9));
}

TEST(FloatFormatsTest, E5M2) {
  // e5m2: bias 15, IEEE-like, max 0.11110.11 = 1.75 * 2^15 = 57344.
  EXPECT_EQ(enc(kE5M2, 1.0, Round::NearestEven, true), 0x3Cu);
  EXPECT_EQ(enc(kE5M2, 57344.0, Round::NearestEven, true), 0x7Bu);
  EXPECT_EQ(enc(kE5M2, 1e6, Round::NearestEven, true), 0x7Bu);
  EXPECT_EQ(enc(kE5M2, 61440.0), 0x7Cu); // midpoint to 2^16: even -> Inf
  EXPECT_EQ(enc(kE5M2, 60000.0), 0x7Bu);
  EXPECT_EQ(enc(kE5M2, std::nan(""), Round::NearestEven, true), 0x7Fu);
}

TEST(FloatFormatsTest, E2M1Codes) {
  // e2m1: codes 0..7 are 0, 0.5, 1, 1.5, 2, 3, 4, 6; sign in bit 3.
  const double values[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
  for (unsigned c = 0; c < 8; ++c) {
    EXPECT_EQ(enc(kE2M1, values[c], Round::NearestEven, true), c) << c;
    EXPECT_DOUBLE_EQ(toDouble(kE2M1, c), values[c]) << c;
    EXPECT_DOUBLE_EQ(toDouble(kE2M1, c | 8), -values[c]) << c;
  }
  // Ties to even code: 0.25 -> 0, 0.75 -> 1.0 (2), 2.5 -> 2 (4), 5 -> 4 (6).
  EXPECT_EQ(enc(kE2M1, 0.25, Round::NearestEven, true), 0u);
  EXPECT_EQ(enc(kE2M1, 0.75, Round::NearestEven, true), 2u);
  EXPECT_EQ(enc(kE2M1, 2.5, Round::NearestEven, true), 4u);
  EXPECT_EQ(enc(kE2M1, 5.0, Round::NearestEven, true), 6u);
  EXPECT_EQ(enc(kE2M1, 3.5, Round::NearestEven, true), 6u); // tie 3|4 -> 4
  // Saturation, NaN -> +MAX_NORM (no NaN in e2m1), negative values.
  EXPECT_EQ(enc(kE2M1, 100.0, Round::NearestEven, true), 7u);
  EXPECT_EQ(enc(kE2M1, -100.0, Round::NearestEven, true), 15u);
  EXPECT_EQ(enc(kE2M1, std::nan(""), Round::NearestEven, true), 7u);
  EXPECT_EQ(enc(kE2M1, -1.25, Round::NearestEven, true), 0xAu); // -1 (tie)
}

TEST(FloatFormatsTest, Ue8m0AndTf32) {
  // ue8m0: 2^(e - 127), 0xFF is NaN.
  EXPECT_EQ(enc(kUE8M0, 1.0, Round::TowardZero), 127u);
  EXPECT_EQ(enc(kUE8M0, 3.0, Round::TowardZero), 128u);
  EXPECT_EQ(enc(kUE8M0, 3.0, Round::Up), 129u);
  EXPECT_EQ(enc(kUE8M0, std::nan(""), Round::Up), 0xFFu);
  EXPECT_DOUBLE_EQ(toDouble(kUE8M0, 0), std::ldexp(1.0, -127));
  // tf32 (10-bit mantissa): 1 + 2^-11 is a tie; .rna rounds away.
  EXPECT_EQ(encF32(kTF32, 0x3F801000u, Round::NearestAway) << 13, 0x3F802000u);
  EXPECT_EQ(encF32(kTF32, 0x3F801000u, Round::NearestEven) << 13, 0x3F800000u);
  EXPECT_EQ(encF32(kTF32, 0x3F800FFFu, Round::NearestAway) << 13, 0x3F800000u);
}

TEST(FloatFormatsTest, IntegersToFloat) {
  EncodeOptions rn;
  // 2^24 + 1 is a tie between 2^24 and 2^24 + 2.
  EXPECT_EQ(encode(kF32, unpackInteger(16777217, true), rn), 0x4B800000u);
  EncodeOptions rz;
  rz.round = Round::TowardZero;
  EncodeOptions rp;
  rp.round = Round::Up;
  EXPECT_EQ(encode(kF32, unpackInteger(0xffffffffu, false), rz), 0x4F7FFFFFu);
  EXPECT_EQ(encode(kF32, unpackInteger(0xffffffffu, false), rp), 0x4F800000u);
  EXPECT_EQ(encode(kF32, unpackInteger(uint64_t(INT64_MIN), true), rn),
            0xDF000000u);
}

TEST(FloatFormatsTest, DirectedF32Arithmetic) {
  const uint32_t one = 0x3F800000u, tiny = 0x30800000u; // 1, 2^-30
  EXPECT_EQ(addF32(one, tiny, Round::NearestEven), one);
  EXPECT_EQ(addF32(one, tiny, Round::TowardZero), one);
  EXPECT_EQ(addF32(one, tiny, Round::Up), 0x3F800001u);
  EXPECT_EQ(addF32(one, tiny | 0x80000000u, Round::Down), 0x3F7FFFFFu);
  EXPECT_EQ(addF32(one, tiny | 0x80000000u, Round::TowardZero), 0x3F7FFFFFu);
  // Exact zero sums: +0 except in .rm.
  EXPECT_EQ(addF32(one, 0xBF800000u, Round::NearestEven), 0u);
  EXPECT_EQ(addF32(one, 0xBF800000u, Round::Down), 0x80000000u);
  // 1/3.
  EXPECT_EQ(divF32(one, 0x40400000u, Round::NearestEven), 0x3EAAAAABu);
  EXPECT_EQ(divF32(one, 0x40400000u, Round::TowardZero), 0x3EAAAAAAu);
  EXPECT_EQ(divF32(one, 0x40400000u, Round::Up), 0x3EAAAAABu);
  // sqrt(2) = 1.41421356...: 0x3FB504F3 (RN), 0x3FB504F3 (RZ), 0x3FB504F4 (RP)
  EXPECT_EQ(sqrtF32(0x40000000u, Round::NearestEven), 0x3FB504F3u);
  EXPECT_EQ(sqrtF32(0x40000000u, Round::TowardZero), 0x3FB504F3u);
  EXPECT_EQ(sqrtF32(0x40000000u, Round::Up), 0x3FB504F4u);
  // fma keeps the product exact: (1+2^-23)^2 - (1+2^-22) = 2^-46.
  EXPECT_EQ(fmaF32(0x3F800001u, 0x3F800001u, 0xBF800002u, Round::NearestEven),
            0x28800000u);
  // Overflow: .rz gives the largest finite value.
  EXPECT_EQ(mulF32(0x7F000000u, 0x40400000u, Round::TowardZero), 0x7F7FFFFFu);
  EXPECT_EQ(mulF32(0x7F000000u, 0x40400000u, Round::NearestEven), 0x7F800000u);
  // NaN results are canonical.
  EXPECT_EQ(mulF32(0x7F800000u, 0u, Round::NearestEven), 0x7FFFFFFFu);
}

TEST(FloatFormatsTest, DirectedF64Arithmetic) {
  uint64_t one = bitsOf(1.0), three = bitsOf(3.0);
  EXPECT_EQ(divF64(one, three, Round::NearestEven), 0x3FD5555555555555ull);
  EXPECT_EQ(divF64(one, three, Round::Up), 0x3FD5555555555556ull);
  EXPECT_EQ(divF64(one, three, Round::TowardZero), 0x3FD5555555555555ull);
  EXPECT_EQ(addF64(one, bitsOf(std::ldexp(1.0, -60)), Round::Up),
            0x3FF0000000000001ull);
  EXPECT_EQ(addF64(one, bitsOf(std::ldexp(1.0, -60)), Round::Down), one);
}

} // namespace
