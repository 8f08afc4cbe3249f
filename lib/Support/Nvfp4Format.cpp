//===- Nvfp4Format.cpp - the NVFP4 format and quantization recipes --------===//

#include "nvfp4/Support/Nvfp4Format.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>

namespace nvfp4::fp4 {
namespace {

/// The non-negative magnitudes of a format with `codes` magnitude codes,
/// ascending (code i = magnitude i, as in both formats).
template <int N> struct Magnitudes {
  double v[N];
};

Magnitudes<8> e2m1Magnitudes() {
  return {{0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0}};
}

/// e4m3: codes 0..126 (0x7F is NaN). Exponent field e, mantissa m:
/// e = 0: m * 2^-9; else (1 + m / 8) * 2^(e - 7).
Magnitudes<127> e4m3Magnitudes() {
  Magnitudes<127> t{};
  for (int c = 0; c < 127; ++c) {
    int e = c >> 3, m = c & 7;
    t.v[c] = e == 0 ? std::ldexp(double(m), -9)
                    : std::ldexp(1.0 + m / 8.0, e - 7);
  }
  return t;
}

/// The code of the magnitude nearest to a (a >= 0, finite, not above the
/// largest), ties to the even code.
template <int N> int nearest(const Magnitudes<N> &t, double a) {
  int hi = int(std::lower_bound(t.v, t.v + N, a) - t.v);
  if (hi == N)
    return N - 1;
  if (t.v[hi] == a || hi == 0)
    return hi;
  double below = a - t.v[hi - 1], above = t.v[hi] - a;
  if (below < above)
    return hi - 1;
  if (above < below)
    return hi;
  return (hi & 1) ? hi - 1 : hi;
}

float flushSubnormal(float x) {
  return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0f, x) : x;
}

/// The code of the magnitude of `t` nearest to x (ties to even, anything
/// at or beyond the largest magnitude saturating to it), with `signBit`
/// set for a negative x (-0 included); NaN gives `nanCode`.
template <int N>
uint8_t encodeSatfinite(const Magnitudes<N> &t, float x, uint8_t signBit,
                        uint8_t nanCode) {
  if (std::isnan(x))
    return nanCode;
  double a = std::fabs(double(x));
  int code = a >= t.v[N - 1] ? N - 1 : nearest(t, a);
  return uint8_t(code | (std::signbit(x) ? signBit : 0));
}

/// The value of `code`: magnitude code & (signBit - 1), negated by signBit.
template <int N>
float decodeSigned(const Magnitudes<N> &t, uint8_t code, uint8_t signBit) {
  float v = float(t.v[code & (signBit - 1)]);
  return (code & signBit) ? -v : v;
}

const Magnitudes<8> &e2m1Table() {
  static const Magnitudes<8> t = e2m1Magnitudes();
  return t;
}

const Magnitudes<127> &e4m3Table() {
  static const Magnitudes<127> t = e4m3Magnitudes();
  return t;
}

} // namespace

uint8_t encodeE2M1(float x) { return encodeSatfinite(e2m1Table(), x, 0x8, 0x7); }

float decodeE2M1(uint8_t code) { return decodeSigned(e2m1Table(), code, 0x8); }

uint8_t encodeE4M3(float x) {
  return encodeSatfinite(e4m3Table(), x, 0x80, 0x7F);
}

float decodeE4M3(uint8_t code) {
  if ((code & 0x7F) == 0x7F)
    return std::numeric_limits<float>::quiet_NaN();
  return decodeSigned(e4m3Table(), code, 0x80);
}

float rcpApproxFtz(float x) {
  if (std::isnan(x))
    return x;
  x = flushSubnormal(x);
  return flushSubnormal(1.0f / x);
}

float encodeScaleFromAmax(float amax) {
  float gs = std::fmin(kE4M3Max * kE2M1Max / amax, FLT_MAX);
  if (amax == 0.0f || gs == 0.0f)
    return 1.0f;
  return gs;
}

Block quantizeBlock(const float *x, float gs, Recipe recipe, NanPolicy nan) {
  float amax = std::fabs(x[0]);
  for (int i = 1; i < kBlock; ++i) {
    float a = std::fabs(x[i]);
    if (nan == NanPolicy::Propagate && (std::isnan(a) || std::isnan(amax)))
      amax = std::numeric_limits<float>::quiet_NaN();
    else
      amax = std::fmax(amax, a); // the non-NaN one, as max.f32
  }
  Block b;
  float multiplier;
  if (recipe == Recipe::Fast) {
    b.sf = encodeE4M3(gs * (amax * rcpApproxFtz(kE2M1Max)));
    float sf = decodeE4M3(b.sf);
    multiplier = sf != 0.0f ? rcpApproxFtz(sf * rcpApproxFtz(gs)) : 0.0f;
  } else {
    const float sixth = 1.0f / kE2M1Max;
    b.sf = encodeE4M3(amax * (gs * sixth));
    float sf = decodeE4M3(b.sf);
    multiplier = std::fmin(1.0f / (sf * (1.0f / gs)), FLT_MAX);
  }
  for (int i = 0; i < kBlock; ++i)
    b.codes[i] = encodeE2M1(x[i] * multiplier);
  return b;
}

float dequantize(uint8_t code, uint8_t sf, float gs) {
  return decodeE2M1(code) * decodeE4M3(sf) / gs;
}

int64_t sfRows(SfLayout layout, int64_t m) {
  return layout == SfLayout::Swizzled ? (m + 127) / 128 * 128 : m;
}

int64_t sfCols(SfLayout layout, int64_t k) {
  int64_t blocks = k / kBlock;
  return layout == SfLayout::Swizzled ? (blocks + 3) / 4 * 4 : blocks;
}

int64_t sfOffset(SfLayout layout, int64_t m, int64_t kb, int64_t k) {
  if (layout == SfLayout::RowMajor)
    return m * (k / kBlock) + kb;
  int64_t kTiles = (k / kBlock + 3) / 4;
  return (m / 128) * kTiles * 512 + (kb / 4) * 512 + (m % 32) * 16 +
         ((m / 32) % 4) * 4 + kb % 4;
}

} // namespace nvfp4::fp4
