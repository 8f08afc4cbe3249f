//===- Nvfp4FormatTest.cpp - the NVFP4 reference quantizer ----------------===//
//
// Worked by hand from the format definitions (e2m1: 0, 0.5, 1, 1.5, 2, 3,
// 4, 6; e4m3: bias 7, 3 mantissa bits, 448 largest, 0x7F NaN) and the two
// recipes of docs/NVFP4.md: every e2m1 tie, e4m3 ties and saturation, the
// special blocks (zero, NaN under both policies, inf, an underflowing
// scale), and the swizzled scale-factor offsets.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Support/Nvfp4Format.h"

#include "gtest/gtest.h"

#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

using namespace nvfp4::fp4;

namespace {
uint32_t bitsOf(float x) {
  uint32_t b;
  std::memcpy(&b, &x, 4);
  return b;
}
const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();
} // namespace

TEST(Nvfp4FormatTest, E2M1TiesGoToTheEvenCode) {
  // Exact values.
  const float exact[] = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6};
  for (int c = 0; c < 8; ++c) {
    EXPECT_EQ(encodeE2M1(exact[c]), c);
    EXPECT_EQ(encodeE2M1(-exact[c]), c | 8);
    EXPECT_EQ(decodeE2M1(uint8_t(c)), exact[c]);
  }
  // Every midpoint: the code with mantissa bit 0 wins.
  EXPECT_EQ(encodeE2M1(0.25f), 0);  // 0 | 0.5
  EXPECT_EQ(encodeE2M1(0.75f), 2);  // 0.5 | 1
  EXPECT_EQ(encodeE2M1(1.25f), 2);  // 1 | 1.5
  EXPECT_EQ(encodeE2M1(1.75f), 4);  // 1.5 | 2
  EXPECT_EQ(encodeE2M1(2.5f), 4);   // 2 | 3
  EXPECT_EQ(encodeE2M1(3.5f), 6);   // 3 | 4
  EXPECT_EQ(encodeE2M1(5.0f), 6);   // 4 | 6
  EXPECT_EQ(encodeE2M1(-3.5f), 14);
  // Just off the midpoints.
  EXPECT_EQ(encodeE2M1(std::nextafter(0.25f, 1.0f)), 1);
  EXPECT_EQ(encodeE2M1(std::nextafter(5.0f, 6.0f)), 7);
  EXPECT_EQ(encodeE2M1(std::nextafter(1.25f, 0.0f)), 2);
  // Saturation, NaN, signed zero.
  EXPECT_EQ(encodeE2M1(6.5f), 7);
  EXPECT_EQ(encodeE2M1(1e30f), 7);
  EXPECT_EQ(encodeE2M1(kInf), 7);
  EXPECT_EQ(encodeE2M1(-kInf), 15);
  EXPECT_EQ(encodeE2M1(kNaN), 7);
  EXPECT_EQ(encodeE2M1(-0.0f), 8);
  EXPECT_EQ(encodeE2M1(-0.2f), 8);
  EXPECT_EQ(encodeE2M1(-0.26f), 9);
}

TEST(Nvfp4FormatTest, E4M3RoundsToNearestEvenAndSaturates) {
  EXPECT_EQ(encodeE4M3(1.0f), 0x38);
  EXPECT_EQ(encodeE4M3(1.0625f), 0x38); // 1 | 1.125
  EXPECT_EQ(encodeE4M3(1.1875f), 0x3A); // 1.125 | 1.25
  EXPECT_EQ(encodeE4M3(-2.0f), 0xC0);
  EXPECT_EQ(encodeE4M3(448.0f), 0x7E);
  EXPECT_EQ(encodeE4M3(464.0f), 0x7E); // the would-be midpoint
  EXPECT_EQ(encodeE4M3(1e9f), 0x7E);
  EXPECT_EQ(encodeE4M3(kInf), 0x7E);
  EXPECT_EQ(encodeE4M3(kNaN), 0x7F);
  // Subnormals: 2^-9 is the smallest, 2^-6 the smallest normal.
  EXPECT_EQ(encodeE4M3(0x1p-9f), 0x01);
  EXPECT_EQ(encodeE4M3(0x1p-10f), 0x00); // 0 | 2^-9
  EXPECT_EQ(encodeE4M3(0x1.8p-10f), 0x01);
  EXPECT_EQ(encodeE4M3(0x1.4p-8f), 0x02); // 2^-8 | 1.5 * 2^-8, even
  EXPECT_EQ(encodeE4M3(0x1p-6f), 0x08);
  EXPECT_EQ(decodeE4M3(0x7E), 448.0f);
  EXPECT_EQ(decodeE4M3(0x01), 0x1p-9f);
  EXPECT_EQ(decodeE4M3(0x3A), 1.25f);
  EXPECT_TRUE(std::isnan(decodeE4M3(0x7F)));
  EXPECT_TRUE(std::isnan(decodeE4M3(0xFF)));
}

TEST(Nvfp4FormatTest, ReciprocalModel) {
  // The H200 gives 0x3e2aaaab for rcp.approx.ftz.f32 of 6 too
  // (scripts/device/rcp_approx_probe.sh).
  EXPECT_EQ(bitsOf(rcpApproxFtz(6.0f)), 0x3e2aaaabu);
  EXPECT_EQ(rcpApproxFtz(0x1p-127f), kInf);  // subnormal input flushed
  EXPECT_EQ(rcpApproxFtz(-0.0f), -kInf);
  EXPECT_EQ(rcpApproxFtz(0x1p127f), 0.0f);   // subnormal result flushed
  EXPECT_EQ(rcpApproxFtz(0x1p126f), 0x1p-126f);
  EXPECT_EQ(rcpApproxFtz(kInf), 0.0f);
}

TEST(Nvfp4FormatTest, EncodeScaleFromAmax) {
  EXPECT_EQ(encodeScaleFromAmax(1.0f), 2688.0f);
  EXPECT_EQ(encodeScaleFromAmax(0.0f), 1.0f);
  EXPECT_EQ(encodeScaleFromAmax(kInf), 1.0f);
  EXPECT_EQ(encodeScaleFromAmax(0x1p-149f), FLT_MAX);
}

TEST(Nvfp4FormatTest, FastBlockWithEveryTie) {
  // gs = 1 and amax = 6: 6 * rcp(6) = 1 + 2^-25 rounds to 1, SF = 1.0,
  // the multiplier rcp(1 * rcp(1)) = 1, so the elements hit the ties.
  float x[16] = {6, 5, 3.5f, 2.5f, 1.75f, 1.25f, 0.75f, 0.25f,
                 -6, -5, -3.5f, -2.5f, -1.75f, -1.25f, -0.75f, -0.25f};
  Block b = quantizeBlock(x, 1.0f, Recipe::Fast, NanPolicy::Propagate);
  EXPECT_EQ(b.sf, 0x38);
  const uint8_t want[8] = {7, 6, 6, 4, 4, 2, 2, 0};
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(b.codes[i], want[i]) << i;
    EXPECT_EQ(b.codes[8 + i], want[i] | 8) << i;
  }
  // Scaled by 2^-20 with gs = 2^20: the same codes.
  float y[16];
  for (int i = 0; i < 16; ++i)
    y[i] = x[i] * 0x1p-20f;
  Block c = quantizeBlock(y, 0x1p20f, Recipe::Fast, NanPolicy::Propagate);
  EXPECT_EQ(c.sf, 0x38);
  for (int i = 0; i < 16; ++i)
    EXPECT_EQ(c.codes[i], b.codes[i]) << i;
}

TEST(Nvfp4FormatTest, EngineScaleSaturatesTheBlockScale) {
  // A block of the tensor's amax under gs = 448 * 6 / amax: SF 448.
  float x[16];
  for (int i = 0; i < 16; ++i)
    x[i] = i % 2 ? -1.0f : 1.0f;
  for (Recipe r : {Recipe::Fast, Recipe::Exact}) {
    Block b = quantizeBlock(x, 2688.0f, r, NanPolicy::Propagate);
    EXPECT_EQ(b.sf, 0x7E);
    for (int i = 0; i < 16; ++i)
      EXPECT_EQ(b.codes[i], i % 2 ? 15 : 7);
  }
}

TEST(Nvfp4FormatTest, SpecialBlocks) {
  float zero[16] = {};
  zero[3] = -0.0f;
  Block z = quantizeBlock(zero, 2688.0f, Recipe::Fast, NanPolicy::Propagate);
  EXPECT_EQ(z.sf, 0);
  EXPECT_EQ(z.codes[0], 0);
  EXPECT_EQ(z.codes[3], 8);

  float withNaN[16];
  for (int i = 0; i < 16; ++i)
    withNaN[i] = 0.5f * i;
  withNaN[5] = kNaN;
  Block p = quantizeBlock(withNaN, 1.0f, Recipe::Fast, NanPolicy::Propagate);
  EXPECT_EQ(p.sf, 0x7F);
  for (int i = 0; i < 16; ++i)
    EXPECT_EQ(p.codes[i], 7);
  Block g = quantizeBlock(withNaN, 1.0f, Recipe::Fast, NanPolicy::Ignore);
  // amax 7.5 -> SF e4m3(1.25) = 0x3A; multiplier rcp(1.25) = 0.8.
  EXPECT_EQ(g.sf, 0x3A);
  EXPECT_EQ(g.codes[5], 7);
  EXPECT_EQ(g.codes[15], 7); // 7.5 * 0.8 = 6
  EXPECT_EQ(g.codes[1], 1);  // 0.5 * 0.8 = 0.4: nearer 0.5 than 0
  float withInf[16] = {};
  withInf[0] = kInf;
  withInf[1] = -kInf;
  withInf[2] = 1e30f;
  Block f = quantizeBlock(withInf, 1.0f, Recipe::Fast, NanPolicy::Propagate);
  EXPECT_EQ(f.sf, 0x7E);
  EXPECT_EQ(f.codes[0], 7);
  EXPECT_EQ(f.codes[1], 15);
  EXPECT_EQ(f.codes[2], 7);
  EXPECT_EQ(f.codes[3], 0);

  // An amax whose SF underflows e4m3: 2^-12 / 6 < 2^-10. Fast: multiplier
  // 0, codes 0. Exact: 1 / 0 is clamped to FLT_MAX, codes saturate.
  float tiny[16] = {};
  tiny[0] = 0x1p-12f;
  tiny[1] = -0x1p-13f;
  Block fu = quantizeBlock(tiny, 1.0f, Recipe::Fast, NanPolicy::Propagate);
  EXPECT_EQ(fu.sf, 0);
  EXPECT_EQ(fu.codes[0], 0);
  EXPECT_EQ(fu.codes[1], 8);
  Block eu = quantizeBlock(tiny, 1.0f, Recipe::Exact, NanPolicy::Propagate);
  EXPECT_EQ(eu.sf, 0);
  EXPECT_EQ(eu.codes[0], 7);
  EXPECT_EQ(eu.codes[1], 15);
  EXPECT_EQ(eu.codes[2], 0);
}

TEST(Nvfp4FormatTest, Dequantize) {
  EXPECT_EQ(dequantize(7, 0x38, 2.0f), 3.0f);
  EXPECT_EQ(dequantize(13, 0x7E, 2688.0f), -3.0f * 448.0f / 2688.0f);
  EXPECT_TRUE(std::isnan(dequantize(1, 0x7F, 1.0f)));
}

TEST(Nvfp4FormatTest, SwizzledOffsets) {
  const int64_t k = 320; // 20 blocks: Kt = 5, padded to 20 columns
  EXPECT_EQ(sfRows(SfLayout::Swizzled, 1), 128);
  EXPECT_EQ(sfRows(SfLayout::Swizzled, 129), 256);
  EXPECT_EQ(sfCols(SfLayout::Swizzled, 16), 4);
  EXPECT_EQ(sfCols(SfLayout::Swizzled, k), 20);
  EXPECT_EQ(sfCols(SfLayout::RowMajor, k), 20);
  EXPECT_EQ(sfOffset(SfLayout::Swizzled, 0, 0, k), 0);
  EXPECT_EQ(sfOffset(SfLayout::Swizzled, 0, 1, k), 1);
  EXPECT_EQ(sfOffset(SfLayout::Swizzled, 32, 0, k), 4);
  EXPECT_EQ(sfOffset(SfLayout::Swizzled, 1, 0, k), 16);
  EXPECT_EQ(sfOffset(SfLayout::Swizzled, 0, 4, k), 512);
  EXPECT_EQ(sfOffset(SfLayout::Swizzled, 33, 5, k), 512 + 16 + 4 + 1);
  EXPECT_EQ(sfOffset(SfLayout::Swizzled, 127, 3, k), 31 * 16 + 3 * 4 + 3);
  EXPECT_EQ(sfOffset(SfLayout::Swizzled, 128, 0, k), 5 * 512);
  EXPECT_EQ(sfOffset(SfLayout::RowMajor, 3, 5, k), 65);
  // The swizzled offsets of a 256 x 320 tensor are a permutation of the
  // padded array's.
  std::vector<int> seen(256 * 20, 0);
  for (int64_t m = 0; m < 256; ++m)
    for (int64_t kb = 0; kb < 20; ++kb)
      ++seen[sfOffset(SfLayout::Swizzled, m, kb, k)];
  for (int s : seen)
    EXPECT_EQ(s, 1);
}
