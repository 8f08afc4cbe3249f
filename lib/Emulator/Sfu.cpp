//===- Sfu.cpp - special-function results as the H200 computes them -------===//

#include "Sfu.h"

#include <cmath>
#include <cstring>

// The two tables, 2^23 entries of 2 bits each (Ex2Tables.cpp).
extern "C" {
__attribute__((
    visibility("hidden"))) extern const unsigned char nvfp4_emu_ex2_pos[];
__attribute__((
    visibility("hidden"))) extern const unsigned char nvfp4_emu_ex2_neg[];
// lg2's mantissa table: int32 below m = 2^17, int8 above.
__attribute__((
    visibility("hidden"))) extern const unsigned char nvfp4_emu_lg2_lo[];
__attribute__((
    visibility("hidden"))) extern const unsigned char nvfp4_emu_lg2_hi[];
}

namespace {

uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

/// The float nearest exp2(x) as the probe computed it (in double, then
/// rounded), as bits.
uint32_t nearestExp2(double x) { return bitsOf(float(std::exp2(x))); }

} // namespace

int nvfp4::emu::ex2TableDiff(bool negative, uint32_t m) {
  const unsigned char *t = negative ? nvfp4_emu_ex2_neg : nvfp4_emu_ex2_pos;
  return int((t[m >> 2] >> (2 * (m & 3))) & 3) - 2;
}

uint32_t nvfp4::emu::ex2ApproxFtzH200(uint32_t x) {
  const bool negative = x >> 31;
  const uint32_t exponent = (x >> 23) & 0xff;
  if (exponent == 0xff) {
    if (x & 0x7fffff)
      return 0x7fffffff;
    return negative ? 0 : 0x7f800000;
  }
  if (exponent == 0) // +-0 and subnormals (flushed): 2^0
    return 0x3f800000;
  float xf;
  std::memcpy(&xf, &x, 4);
  double a = std::fabs(double(xf));
  if (!negative && a >= 128)
    return 0x7f800000;
  if (negative && a >= 127) // below 2^-126 whatever the table says
    return 0;
  // |x| in fixed point with 23 fraction bits, truncated (exact in double:
  // |x| < 128).
  const int64_t fixed = int64_t(std::floor(a * 8388608.0));
  const int64_t i = fixed >> 23;
  const uint32_t m = uint32_t(fixed & 0x7fffff);
  const double f = std::ldexp(double(m), -23);
  if (!negative) // T+[m] in [1, 2): add i to its exponent
    return uint32_t(int64_t(nearestExp2(f)) + ex2TableDiff(false, m)) +
           uint32_t(i << 23);
  // T-[m] in (1/2, 1]: subtract i from its exponent, flush below 2^-126.
  uint32_t t = uint32_t(int64_t(nearestExp2(-f)) + ex2TableDiff(true, m));
  int64_t e = int64_t((t >> 23) & 0xff) - i;
  if (e <= 0)
    return 0;
  return (t & 0x807fffff) | uint32_t(e << 23);
}

int nvfp4::emu::lg2TableDiff(uint32_t m) {
  if (m < (1u << 17)) {
    int32_t d;
    std::memcpy(&d, nvfp4_emu_lg2_lo + 4 * m, 4);
    return d;
  }
  return int(int8_t(nvfp4_emu_lg2_hi[m]));
}

uint32_t nvfp4::emu::lg2ApproxFtzSm90(uint32_t x) {
  const uint32_t exponent = (x >> 23) & 0xff;
  if ((x & 0x7fffffff) > 0x7f800000) // NaN
    return 0x7fffffff;
  if (exponent == 0) // +-0 and subnormals (flushed)
    return 0xff800000;
  if (x >> 31)
    return 0x7fffffff;
  if (exponent == 0xff)
    return 0x7f800000;
  const uint32_t m = x & 0x7fffff;
  // F[m]: the float nearest log2(1 + m 2^-23), as the probe computed it,
  // plus the measured difference.
  const double mant = 1.0 + std::ldexp(double(m), -23);
  const uint32_t f = fromOrderedUlps(
      orderedUlps(bitsOf(float(std::log2(mant)))) + lg2TableDiff(m));
  const int e = int(exponent) - 127;
  if (e == 0)
    return f;
  float ff;
  std::memcpy(&ff, &f, 4);
  // e + F exactly (F's bits span at most 2^-1 .. 2^-47 and |e| <= 126:
  // within double's 53), then toward zero.
  const double sum = double(e) + double(ff);
  float r = float(sum);
  if (std::fabs(double(r)) > std::fabs(sum))
    r = std::nextafter(r, 0.0f);
  return bitsOf(r);
}
