//===- FillTest.cpp - Tests for seeded buffer contents --------------------===//

#include "nvfp4/Runtime/Fill.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <vector>

using namespace nvfp4::rt;

namespace {

std::vector<uint8_t> fill(size_t bytes, uint64_t seed, FillType t) {
  std::vector<uint8_t> data(bytes);
  Error e = fillRandom(data.data(), bytes, seed, t);
  EXPECT_FALSE(e) << e.message();
  return data;
}

float f32At(const std::vector<uint8_t> &d, size_t i) {
  float f;
  std::memcpy(&f, d.data() + 4 * i, 4);
  return f;
}

uint16_t u16At(const std::vector<uint8_t> &d, size_t i) {
  uint16_t v;
  std::memcpy(&v, d.data() + 2 * i, 2);
  return v;
}

TEST(FillTest, SameSeedSameBytesOtherSeedOtherBytes) {
  EXPECT_EQ(fill(4096, 1, FillType::F32), fill(4096, 1, FillType::F32));
  EXPECT_NE(fill(4096, 1, FillType::F32), fill(4096, 2, FillType::F32));
}

TEST(FillTest, SplitMix64FirstValue) {
  // SplitMix64 from state 0: the first output is 0xE220A8397B1DCDAF
  // (the reference implementation's well-known first value). As i32 the
  // fill keeps the high half.
  auto data = fill(4, 0, FillType::I32);
  uint32_t v;
  std::memcpy(&v, data.data(), 4);
  EXPECT_EQ(v, 0xE220A839u);
}

TEST(FillTest, FloatsAreNeverZeroAndBounded) {
  auto data = fill(4 * 100000, 7, FillType::F32);
  size_t negative = 0;
  for (size_t i = 0; i < 100000; ++i) {
    float f = f32At(data, i);
    ASSERT_TRUE(std::isfinite(f));
    ASSERT_GE(std::fabs(f), 1.0f / 1024);
    ASSERT_LT(std::fabs(f), 1.0f);
    negative += f < 0;
  }
  // Both signs, roughly half each.
  EXPECT_GT(negative, 45000u);
  EXPECT_LT(negative, 55000u);
}

TEST(FillTest, HalfTypesAreNeverZero) {
  for (FillType t : {FillType::BF16, FillType::F16}) {
    auto data = fill(2 * 50000, 3, t);
    for (size_t i = 0; i < 50000; ++i) {
      uint16_t bits = u16At(data, i);
      ASSERT_NE(bits & 0x7FFF, 0) << stringify(t) << " element " << i;
      // No infinities or NaNs: exponent field not all ones.
      uint16_t expMask = t == FillType::BF16 ? 0x7F80 : 0x7C00;
      ASSERT_NE(bits & expMask, expMask);
    }
  }
}

TEST(FillTest, IntegersAreNeverZero) {
  auto i32 = fill(4 * 10000, 5, FillType::I32);
  for (size_t i = 0; i < 10000; ++i) {
    uint32_t v;
    std::memcpy(&v, i32.data() + 4 * i, 4);
    ASSERT_NE(v, 0u);
  }
  auto u8 = fill(100000, 5, FillType::U8);
  for (uint8_t v : u8)
    ASSERT_NE(v, 0);
}

TEST(FillTest, RejectsPartialElements) {
  std::vector<uint8_t> data(10);
  EXPECT_EQ(fillRandom(data.data(), 10, 1, FillType::F32).message(),
            "10 bytes is not a whole number of f32 elements (4 bytes each)");
}

TEST(FillTest, HalfConversionsRoundToNearestEven) {
  EXPECT_EQ(floatToBF16(1.0f), 0x3F80);
  EXPECT_EQ(floatToBF16(-2.0f), 0xC000);
  // 1 + 2^-8 is halfway between bf16 1.0 and 1 + 2^-7: ties to even (1.0).
  EXPECT_EQ(floatToBF16(1.0f + 1.0f / 256), 0x3F80);
  EXPECT_EQ(floatToBF16(1.0f + 3.0f / 256), 0x3F82);
  EXPECT_EQ(floatToF16(1.0f), 0x3C00);
  EXPECT_EQ(floatToF16(-0.5f), 0xB800);
  EXPECT_EQ(floatToF16(65504.0f), 0x7BFF);
  EXPECT_EQ(floatToF16(1e6f), 0x7C00);
  EXPECT_EQ(floatToF16(5.9604645e-08f), 0x0001); // smallest subnormal
  // 1 + 2^-11 is halfway between f16 1.0 and 1 + 2^-10: ties to even.
  EXPECT_EQ(floatToF16(1.0f + 1.0f / 2048), 0x3C00);
  EXPECT_EQ(floatToF16(1.0f + 3.0f / 2048), 0x3C02);
  EXPECT_EQ(floatToF16(std::nanf("")) & 0x7E00, 0x7E00);
}

TEST(FillTest, TypeNames) {
  for (FillType t : {FillType::F32, FillType::BF16, FillType::F16,
                     FillType::I32, FillType::U8})
    EXPECT_EQ(*parseFillType(stringify(t)), t);
  EXPECT_EQ(parseFillType("f64").takeError().message(),
            "unknown fill type 'f64' (expected f32, bf16, f16, i32 or u8)");
}

} // namespace
