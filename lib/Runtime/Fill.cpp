//===- Fill.cpp - Seeded, zero and poison buffer contents -----------------===//

#include "nvfp4/Runtime/Fill.h"

#include <algorithm>
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

//===----------------------------------------------------------------------===//
// NVFP4 quantizer inputs
//===----------------------------------------------------------------------===//

namespace {

/// Stores v (exactly representable, or rounded to nearest even) as the
/// i-th element of type t.
void storeAs(uint8_t *data, uint64_t i, FillType t, double v) {
  float f = float(v);
  if (t == FillType::F32) {
    std::memcpy(data + 4 * i, &f, 4);
  } else {
    uint16_t h = t == FillType::BF16 ? floatToBF16(f) : floatToF16(f);
    std::memcpy(data + 2 * i, &h, 2);
  }
}

/// Exponent range of normal values of t, kept inside f16's for f16.
void exponentRange(FillType t, int &lo, int &hi) {
  lo = t == FillType::F16 ? -14 : -126;
  hi = t == FillType::F16 ? 15 : 127;
}

int uniformInt(SplitMix64 &rng, int lo, int hi) {
  return lo + int(rng.next() % uint64_t(hi - lo + 1));
}

} // namespace

bool nvfp4::rt::encodeScaleIsPowerOfTwo(uint64_t seed, int &p) {
  if (seed % 3 == 0)
    return false;
  p = int((seed / 3) % 9) - 4; // 2^-4 .. 2^4
  return true;
}

Error nvfp4::rt::fillNvfp4Input(uint8_t *data, uint64_t rows, uint64_t k,
                                uint64_t seed, FillType t) {
  if (t != FillType::F32 && t != FillType::BF16 && t != FillType::F16)
    return makeError("an NVFP4 input must be f32, bf16 or f16, found ",
                     stringify(t));
  if (k % 16 != 0)
    return makeError("an NVFP4 input's rows must hold whole blocks of 16, "
                     "found ",
                     k, " elements");
  SplitMix64 rng{seed};
  int p = 0;
  encodeScaleIsPowerOfTwo(seed, p); // p = 0 for the engines' scale
  int expLo, expHi;
  exponentRange(t, expLo, expHi);
  const double ties[] = {0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0,
                         0.5,  1.0,  1.5,  2.0,  3.0, 4.0, 6.0};
  const double largest = t == FillType::F32    ? 3.4028234663852886e38
                         : t == FillType::BF16 ? 3.3895313892515355e38
                                               : 65504.0;
  const double tiny = t == FillType::F32    ? std::ldexp(1.0, -149)
                      : t == FillType::BF16 ? std::ldexp(1.0, -133)
                                            : std::ldexp(1.0, -24);
  double x[16];
  for (uint64_t blk = 0; blk < rows * k / 16; ++blk) {
    uint64_t kind = rng.next() % 16;
    auto sign = [&] { return (rng.next() & 1) ? -1.0 : 1.0; };
    auto mantissa = [&] { // [1, 2), 24 random bits
      return 1.0 + double(rng.next() >> 40) / 16777216.0;
    };
    if (kind <= 6 || kind >= 14) {
      // Random values; the block magnitude puts the scale factor anywhere
      // from underflow (2^-20 amax with gs ~ 1) to saturation.
      int e = uniformInt(rng, std::max(expLo + 6, -24), std::min(expHi - 4, 9));
      for (double &v : x)
        v = sign() * std::ldexp(mantissa(), e - uniformInt(rng, 0, 5));
    } else if (kind <= 8) {
      // Every e2m1 tie and value at an exact scale s: with gs = 2^p the
      // scale factor is 2^p s and the multiplier 1 / s exactly.
      int q = uniformInt(rng, -6, 8);
      double s = std::ldexp(1.0, q - p);
      for (int i = 0; i < 16; ++i)
        x[i] = sign() * ties[uniformInt(rng, 0, 13)] * s;
      x[uniformInt(rng, 0, 15)] = sign() * 6.0 * s; // the amax
    } else if (kind == 9) {
      // The amax on an e4m3 tie: gs * amax / 6 is the midpoint of two
      // adjacent e4m3 values (codes 1..125).
      int c = uniformInt(rng, 1, 125);
      auto e4m3 = [](int code) {
        int ex = code >> 3, m = code & 7;
        return ex == 0 ? std::ldexp(double(m), -9)
                       : std::ldexp(1.0 + m / 8.0, ex - 7);
      };
      double mid = (e4m3(c) + e4m3(c + 1)) / 2;
      double amax = 6.0 * mid * std::ldexp(1.0, -p);
      for (double &v : x)
        v = sign() * amax * mantissa() / 2.0;
      x[uniformInt(rng, 0, 15)] = sign() * amax;
    } else if (kind == 10) {
      for (double &v : x)
        v = sign() * 0.0;
    } else if (kind == 11) {
      // One special among random values.
      for (double &v : x)
        v = sign() * std::ldexp(mantissa(), uniformInt(rng, -8, 2));
      uint64_t which = rng.next() % 4;
      x[uniformInt(rng, 0, 15)] =
          which == 0   ? std::nan("")
          : which == 1 ? sign() * HUGE_VAL
                       : sign() * largest;
    } else if (kind == 12) {
      // Tiny values: the type's subnormals.
      for (double &v : x)
        v = sign() * tiny * uniformInt(rng, 0, 7);
    } else {
      // Values just beside the e2m1 ties (one ulp of the type away).
      int q = uniformInt(rng, -6, 8);
      double s = std::ldexp(1.0, q - p);
      double ulp = t == FillType::F32 ? 0x1p-23 : t == FillType::BF16 ? 0x1p-7 : 0x1p-10;
      for (double &v : x)
        v = sign() * ties[uniformInt(rng, 0, 6)] * s *
            (1.0 + ((rng.next() & 1) ? ulp : -ulp / 2));
      x[0] = 6.0 * s;
    }
    for (int i = 0; i < 16; ++i)
      storeAs(data, blk * 16 + uint64_t(i), t, x[i]);
  }
  return Error::success();
}

float nvfp4::rt::fillEncodeScale(const uint8_t *x, uint64_t n, uint64_t seed,
                                 FillType t) {
  int p;
  if (encodeScaleIsPowerOfTwo(seed, p))
    return std::ldexp(1.0f, p);
  float amax = 0;
  for (uint64_t i = 0; i < n; ++i) {
    float v;
    if (t == FillType::F32) {
      std::memcpy(&v, x + 4 * i, 4);
    } else {
      uint16_t h;
      std::memcpy(&h, x + 2 * i, 2);
      if (t == FillType::BF16) {
        uint32_t bits = uint32_t(h) << 16;
        std::memcpy(&v, &bits, 4);
      } else {
        int e = (h >> 10) & 0x1f, m = h & 0x3ff;
        v = e == 31 ? (m ? NAN : INFINITY)
            : e == 0 ? std::ldexp(float(m), -24)
                     : std::ldexp(1.0f + m / 1024.0f, e - 15);
      }
    }
    if (std::isfinite(v))
      amax = std::fmax(amax, std::fabs(v));
  }
  return amax > 0 ? 448.0f * 6.0f / amax : 1.0f;
}
