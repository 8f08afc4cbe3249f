//===- KvCacheFormat.cpp - quantized KV-cache layouts ----------------------===//

#include "nvfp4/Support/KvCacheFormat.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace nvfp4;

const std::vector<KvCacheFormat> &nvfp4::kvCacheFormats() {
  using S = KvCacheFormat::Scale;
  static const std::vector<KvCacheFormat> formats = {
      // DeepSeek-V4 ("MODEL1", vLLM's fp8_ds_mla for V4), 584 bytes per
      // token: per page, pageSize rows of 576 bytes (448 e4m3 | 64 bf16),
      // then pageSize records of 8 bytes (7 UE8M0 scales, one per 64
      // values, and a pad byte), the page padded to a multiple of 576.
      // K = V = all 512 values (RoPE included).
      {"deepseek_v4_fp8",
       "DeepSeek-V4 MODEL1: 448 e4m3 + 64 bf16 per 576-byte row, 7 UE8M0 "
       "scales per token after the page's rows, pages padded to 576 bytes",
       512, 512, 448, 64, 576, 448, S::UE8M0, 64, false, 0, 8, 576},
      // DeepSeek-V3.2, 656 bytes per token, token-contiguous: 512 e4m3 | 4
      // f32 scales (one per 128) | 64 bf16. D = 576, V = the 512 e4m3
      // values.
      {"deepseek_v32_fp8",
       "DeepSeek-V3.2: 512 e4m3 | 4 f32 scales | 64 bf16 per 656-byte "
       "token",
       576, 512, 512, 64, 656, 528, S::F32, 128, true, 512, 0, 656},
  };
  return formats;
}

const KvCacheFormat *nvfp4::findKvCacheFormat(const std::string &name) {
  for (const KvCacheFormat &f : kvCacheFormats())
    if (name == f.name)
      return &f;
  return nullptr;
}

std::string nvfp4::kvCacheFormatNames() {
  std::string s;
  for (const KvCacheFormat &f : kvCacheFormats())
    s += (s.empty() ? "" : ", ") + std::string(f.name);
  return s;
}

double nvfp4::e4m3ToDouble(uint8_t b) {
  const double sign = (b & 0x80) ? -1.0 : 1.0;
  const int exp = (b >> 3) & 0xf, mant = b & 7;
  if (exp == 0xf && mant == 7)
    return std::numeric_limits<double>::quiet_NaN();
  if (exp == 0)
    return sign * std::ldexp(double(mant), -9); // subnormal: m / 8 * 2^-6
  return sign * std::ldexp(double(8 + mant), exp - 10);
}

int64_t KvCacheFormat::pageBytes(int64_t pageSize) const {
  int64_t raw = scalesInRow ? pageSize * rowBytes
                            : pageSize * (rowBytes + scaleStride);
  return (raw + pageAlign - 1) / pageAlign * pageAlign;
}

double KvCacheFormat::scaleOf(const uint8_t *page, int64_t pageSize,
                              int64_t t, int64_t s) const {
  const uint8_t *p = page + scalesOffset(pageSize, t) + s * scaleBytes();
  if (scale == Scale::UE8M0)
    return *p == 0xff ? std::numeric_limits<double>::quiet_NaN()
                      : std::ldexp(1.0, int(*p) - 127);
  float f;
  std::memcpy(&f, p, 4);
  return f;
}

void KvCacheFormat::decodeToken(const uint8_t *page, int64_t pageSize,
                                int64_t t, double *out) const {
  const uint8_t *row = page + rowOffset(t);
  for (int64_t d = 0; d < quantDims; ++d)
    out[d] = e4m3ToDouble(row[d]) * scaleOf(page, pageSize, t, d / scaleGroup);
  for (int64_t d = 0; d < ropeDims; ++d) {
    uint16_t h;
    std::memcpy(&h, row + ropeOffset + 2 * d, 2);
    uint32_t bits = uint32_t(h) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    out[quantDims + d] = f;
  }
}

void KvCacheFormat::fill(uint8_t *cache, int64_t pages, int64_t pageSize,
                         uint64_t seed) const {
  uint64_t state = seed;
  auto next = [&] { // SplitMix64
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  };
  const int64_t pb = pageBytes(pageSize);
  std::memset(cache, 0xff, size_t(pages * pb));
  for (int64_t p = 0; p < pages; ++p) {
    uint8_t *page = cache + p * pb;
    for (int64_t t = 0; t < pageSize; ++t) {
      uint8_t *row = page + rowOffset(t);
      for (int64_t d = 0; d < quantDims; ++d) {
        uint8_t b = uint8_t(next());
        if ((b & 0x7f) == 0x7f)
          b ^= 1; // not NaN
        row[d] = b;
      }
      for (int64_t d = 0; d < ropeDims; ++d) {
        // bf16 in [-2, 2]: the top 16 bits of such an f32.
        float f = float(int64_t(next() % 4001) - 2000) / 1000.0f;
        uint32_t bits;
        std::memcpy(&bits, &f, 4);
        uint16_t h = uint16_t(bits >> 16);
        std::memcpy(row + ropeOffset + 2 * d, &h, 2);
      }
      for (int64_t s = 0; s < scalesPerToken(); ++s) {
        int e = -6 + int(next() % 8); // 2^-6 .. 2^1
        uint8_t *at = page + scalesOffset(pageSize, t) + s * scaleBytes();
        if (scale == Scale::UE8M0) {
          *at = uint8_t(127 + e);
        } else {
          float f = std::ldexp(1.0f, e);
          std::memcpy(at, &f, 4);
        }
      }
    }
  }
}
