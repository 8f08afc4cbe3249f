//===- Fill.cpp - Seeded, zero and poison buffer contents -----------------===//

#include "nvfp4/Runtime/Fill.h"

#include <cmath>
#include <cstring>

using namespace nvfp4::rt;

namespace {

/// SplitMix64: the state advances by the golden-ratio increment and each
/// output is a mix of it.
struct SplitMix64 {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
};

/// A float of magnitude in [2^-10, 1) and a random sign from one draw.
float randomFloat(uint64_t r) {
  constexpr float kMin = 1.0f / 1024.0f;
  // 24 random bits -> [0, 1), exactly representable.
  float u = static_cast<float>(r >> 40) * (1.0f / 16777216.0f);
  float magnitude = kMin + u * (1.0f - kMin);
  if (magnitude >= 1.0f)
    magnitude = std::nextafter(1.0f, 0.0f);
  return (r & 1) ? -magnitude : magnitude;
}

} // namespace

const char *nvfp4::rt::stringify(FillType t) {
  switch (t) {
  case FillType::F32:
    return "f32";
  case FillType::BF16:
    return "bf16";
  case FillType::F16:
    return "f16";
  case FillType::I32:
    return "i32";
  case FillType::U8:
    return "u8";
  }
  return "?";
}

Expected<FillType> nvfp4::rt::parseFillType(const std::string &s) {
  for (FillType t : {FillType::F32, FillType::BF16, FillType::F16,
                     FillType::I32, FillType::U8})
    if (s == stringify(t))
      return t;
  return makeError("unknown fill type '", s,
                   "' (expected f32, bf16, f16, i32 or u8)");
}

unsigned nvfp4::rt::fillTypeBytes(FillType t) {
  switch (t) {
  case FillType::F32:
  case FillType::I32:
    return 4;
  case FillType::BF16:
  case FillType::F16:
    return 2;
  case FillType::U8:
    return 1;
  }
  return 1;
}

uint16_t nvfp4::rt::floatToBF16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  if (std::isnan(f))
    return static_cast<uint16_t>((bits >> 16) | 0x40);
  uint32_t rounding = 0x7FFF + ((bits >> 16) & 1);
  return static_cast<uint16_t>((bits + rounding) >> 16);
}

uint16_t nvfp4::rt::floatToF16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000);
  uint32_t absBits = bits & 0x7FFFFFFF;
  if (absBits > 0x7F800000) // NaN
    return sign | 0x7E00;
  if (absBits >= 0x477FF000) // rounds to >= 65536: infinity
    return sign | 0x7C00;
  float a;
  std::memcpy(&a, &absBits, 4);
  if (a < 6.103515625e-05f) { // subnormal half: units of 2^-24
    float scaled = a * 16777216.0f;
    return sign | static_cast<uint16_t>(std::nearbyint(scaled));
  }
  // Normal: rebias the exponent and round the mantissa to 10 bits (RNE).
  uint32_t mantissa = absBits & 0x7FFFFF;
  int32_t exponent = int32_t(absBits >> 23) - 127 + 15;
  uint32_t half = (uint32_t(exponent) << 10) | (mantissa >> 13);
  uint32_t rest = mantissa & 0x1FFF;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1)))
    ++half; // may carry into the exponent, which is correct rounding
  return sign | static_cast<uint16_t>(half);
}

Error nvfp4::rt::fillRandom(uint8_t *data, size_t bytes, uint64_t seed,
                            FillType t) {
  unsigned width = fillTypeBytes(t);
  if (bytes % width != 0)
    return makeError(bytes, " bytes is not a whole number of ", stringify(t),
                     " elements (", width, " bytes each)");
  SplitMix64 rng{seed};
  for (size_t i = 0; i < bytes; i += width) {
    uint64_t r = rng.next();
    switch (t) {
    case FillType::F32: {
      float v = randomFloat(r);
      std::memcpy(data + i, &v, 4);
      break;
    }
    case FillType::BF16: {
      uint16_t v = floatToBF16(randomFloat(r));
      std::memcpy(data + i, &v, 2);
      break;
    }
    case FillType::F16: {
      uint16_t v = floatToF16(randomFloat(r));
      std::memcpy(data + i, &v, 2);
      break;
    }
    case FillType::I32: {
      uint32_t v = static_cast<uint32_t>(r >> 32);
      if (v == 0)
        v = 1;
      std::memcpy(data + i, &v, 4);
      break;
    }
    case FillType::U8:
      data[i] = static_cast<uint8_t>(1 + (r >> 32) % 255);
      break;
    }
  }
  return Error::success();
}
