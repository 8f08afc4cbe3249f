//===- KvCacheFormatTest.cpp - the quantized KV-cache layouts -------------===//
//
// Worked bytes of each layout in shared/reference/dsv4-kv-cache.md, written
// here by hand: page sizes and padding, where a token's values and scales
// sit, e4m3 values, and that the fill produces only finite tokens.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Support/KvCacheFormat.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <vector>

using namespace nvfp4;

TEST(KvCacheFormatTest, E4m3Values) {
  EXPECT_EQ(e4m3ToDouble(0x38), 1.0);
  EXPECT_EQ(e4m3ToDouble(0xb0), -0.5);
  EXPECT_EQ(e4m3ToDouble(0x7e), 448.0);
  EXPECT_EQ(e4m3ToDouble(0x01), std::ldexp(1.0, -9));
  EXPECT_EQ(e4m3ToDouble(0x08), std::ldexp(1.0, -6));
  EXPECT_TRUE(std::isnan(e4m3ToDouble(0x7f)));
  EXPECT_TRUE(std::isnan(e4m3ToDouble(0xff)));
}

TEST(KvCacheFormatTest, TableAndPageBytes) {
  EXPECT_EQ(kvCacheFormatNames(), "deepseek_v4_fp8, deepseek_v32_fp8");
  const KvCacheFormat *v4 = findKvCacheFormat("deepseek_v4_fp8");
  const KvCacheFormat *v32 = findKvCacheFormat("deepseek_v32_fp8");
  ASSERT_TRUE(v4 && v32);
  EXPECT_EQ(findKvCacheFormat("fp8"), nullptr);
  // 584 bytes per token, pages padded to 576: 64 tokens = 37,376 -> 37,440
  // (65 rows); 256 tokens = 149,504 -> 149,760 (260 rows).
  EXPECT_EQ(v4->pageBytes(64), 37440);
  EXPECT_EQ(v4->rowsPerPage(64), 65);
  EXPECT_EQ(v4->pageBytes(256), 149760);
  EXPECT_EQ(v4->scalesPerToken(), 7);
  // 656 bytes per token, no padding.
  EXPECT_EQ(v32->pageBytes(64), 64 * 656);
  EXPECT_EQ(v32->scalesPerToken(), 4);
  for (const KvCacheFormat &f : kvCacheFormats()) {
    EXPECT_EQ(f.quantDims + f.ropeDims, f.headDim) << f.name;
    EXPECT_EQ(f.quantDims % 64, 0) << f.name;
    EXPECT_EQ(f.ropeOffset % 16, 0) << f.name;
    EXPECT_EQ(f.rowBytes % 16, 0) << f.name;
    EXPECT_EQ(f.pageAlign % f.rowBytes, 0) << f.name;
  }
}

TEST(KvCacheFormatTest, DeepSeekV4Token) {
  const KvCacheFormat &f = *findKvCacheFormat("deepseek_v4_fp8");
  // Two tokens per page: rows at 0 and 576, scale records at 1152 and
  // 1160, padded to 1728.
  std::vector<uint8_t> page(size_t(f.pageBytes(2)), 0);
  ASSERT_EQ(page.size(), 1728u);
  page[576 + 70] = 0x38;         // token 1, value 70: 1.0 ...
  page[1160 + 1] = 129;          // ... x its group-1 scale 2^2
  page[576 + 447] = 0xb0;        // value 447: -0.5 x group 6's scale
  page[1160 + 6] = 125;          // 2^-2
  page[576 + 448 + 6] = 0xc0;    // RoPE value 3 (448 + 3): bf16 0x3fc0 = 1.5
  page[576 + 448 + 7] = 0x3f;
  for (int s : {0, 2, 3, 4, 5})
    page[1160 + s] = 127;
  std::vector<double> v(512);
  f.decodeToken(page.data(), 2, 1, v.data());
  EXPECT_EQ(v[70], 4.0);
  EXPECT_EQ(v[447], -0.125);
  EXPECT_EQ(v[451], 1.5);
  EXPECT_EQ(v[0], 0.0);
}

TEST(KvCacheFormatTest, DeepSeekV32Token) {
  const KvCacheFormat &f = *findKvCacheFormat("deepseek_v32_fp8");
  std::vector<uint8_t> page(size_t(f.pageBytes(3)), 0);
  ASSERT_EQ(page.size(), 1968u);
  uint8_t *row = page.data() + 2 * 656; // token 2
  row[130] = 0xb0;                      // -0.5 ...
  float quarter = 0.25f;                // ... x the f32 scale of 128-255
  std::memcpy(row + 512 + 4, &quarter, 4);
  row[528 + 2 * 63] = 0x00;             // RoPE value 63 (576 - 1): bf16 0xc000 = -2
  row[528 + 2 * 63 + 1] = 0xc0;
  std::vector<double> v(576);
  f.decodeToken(page.data(), 3, 2, v.data());
  EXPECT_EQ(v[130], -0.125);
  EXPECT_EQ(v[575], -2.0);
}

TEST(KvCacheFormatTest, FillMakesFiniteTokensAndPoisonsPadding) {
  for (const KvCacheFormat &f : kvCacheFormats()) {
    SCOPED_TRACE(f.name);
    const int64_t ps = 5, pages = 3, pb = f.pageBytes(ps);
    std::vector<uint8_t> cache(size_t(pages * pb));
    f.fill(cache.data(), pages, ps, 11);
    std::vector<double> v(size_t(f.headDim));
    bool someNegative = false, someSubnormal = false;
    for (int64_t p = 0; p < pages; ++p)
      for (int64_t t = 0; t < ps; ++t) {
        f.decodeToken(cache.data() + p * pb, ps, t, v.data());
        for (int64_t d = 0; d < f.headDim; ++d) {
          ASSERT_TRUE(std::isfinite(v[size_t(d)])) << p << " " << t << " " << d;
          someNegative |= v[size_t(d)] < 0;
        }
        for (int64_t d = 0; d < f.quantDims; ++d)
          someSubnormal |= (cache[size_t(p * pb + t * f.rowBytes + d)] & 0x78) == 0;
      }
    EXPECT_TRUE(someNegative);
    EXPECT_TRUE(someSubnormal);
    if (!f.scalesInRow) { // the pad byte of a scale record
      EXPECT_EQ(cache[size_t(f.scalesOffset(ps, 0) + 7)], 0xff);
    }
    if (pb > ps * (f.rowBytes + (f.scalesInRow ? 0 : f.scaleStride))) {
      EXPECT_EQ(cache[size_t(pb - 1)], 0xff); // padding
    }
  }
}
