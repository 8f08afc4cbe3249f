//===- FloatFormats.cpp - Bit-exact float formats and rounding ------------===//
//
// See FloatFormats.h. Directed-rounding f64 arithmetic switches the host
// FPU's rounding mode (<cfenv>) around single operations on volatile
// operands; this file is compiled with -frounding-math so that the compiler
// neither folds nor moves those operations. Everything else is integer
// arithmetic on exact significands and does not depend on the host mode.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Emulator/FloatFormats.h"

#include <cfenv>
#include <cmath>
#include <cstring>
#include <limits>

using namespace nvfp4::emu::fp;

namespace nvfp4::emu::fp {
const Format kF64 = {11, 52, 1023, true, true, NanStyle::IEEE, true, "f64"};
const Format kF32 = {8, 23, 127, true, true, NanStyle::IEEE, true, "f32"};
const Format kTF32 = {8, 10, 127, true, true, NanStyle::IEEE, true, "tf32"};
const Format kF16 = {5, 10, 15, true, true, NanStyle::IEEE, true, "f16"};
const Format kBF16 = {8, 7, 127, true, true, NanStyle::IEEE, true, "bf16"};
const Format kE4M3 = {4, 3, 7, true, false, NanStyle::AllOnes, true, "e4m3"};
const Format kE5M2 = {5, 2, 15, true, true, NanStyle::IEEE, true, "e5m2"};
const Format kE2M3 = {2, 3, 1, true, false, NanStyle::None, true, "e2m3"};
const Format kE3M2 = {3, 2, 3, true, false, NanStyle::None, true, "e3m2"};
const Format kE2M1 = {2, 1, 1, true, false, NanStyle::None, true, "e2m1"};
const Format kUE8M0 = {8,     0,      127, false, false, NanStyle::AllOnes,
                       false, "ue8m0"};
} // namespace nvfp4::emu::fp

namespace {

inline int bitLength(uint64_t v) { return v ? 64 - __builtin_clzll(v) : 0; }

uint64_t lowMask(unsigned bits) {
  return bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
}

struct Limits {
  uint64_t expMax;  ///< largest exponent field of a finite value
  uint64_t mantMax; ///< largest mantissa field at expMax
};

Limits finiteLimits(const Format &f) {
  uint64_t allExp = lowMask(f.expBits), allMant = lowMask(f.mantBits);
  switch (f.nan) {
  case NanStyle::IEEE:
    return {allExp - 1, allMant};
  case NanStyle::AllOnes:
    if (f.mantBits == 0)
      return {allExp - 1, 0};
    return {allExp, allMant - 1};
  case NanStyle::None:
    return {allExp, allMant};
  }
  return {allExp, allMant};
}

uint64_t signBit(const Format &f) {
  return f.hasSign ? uint64_t(1) << (f.expBits + f.mantBits) : 0;
}

uint64_t infBits(const Format &f, bool negative) {
  return (negative ? signBit(f) : 0) | (lowMask(f.expBits) << f.mantBits);
}

uint64_t zeroBits(const Format &f, bool negative) {
  return negative ? signBit(f) : 0;
}

} // namespace

uint64_t nvfp4::emu::fp::canonicalNaN(const Format &f) {
  if (f.nan == NanStyle::None)
    return maxFinite(f, false);
  return lowMask(f.expBits + f.mantBits);
}

uint64_t nvfp4::emu::fp::maxFinite(const Format &f, bool negative) {
  Limits l = finiteLimits(f);
  return (negative ? signBit(f) : 0) | (l.expMax << f.mantBits) | l.mantMax;
}

Unpacked nvfp4::emu::fp::unpack(const Format &f, uint64_t bits) {
  Unpacked u;
  u.sign = f.hasSign && ((bits >> (f.expBits + f.mantBits)) & 1);
  uint64_t e = (bits >> f.mantBits) & lowMask(f.expBits);
  uint64_t m = bits & lowMask(f.mantBits);
  uint64_t allExp = lowMask(f.expBits);
  if (f.nan == NanStyle::IEEE && e == allExp) {
    u.kind = m ? Unpacked::NaN : Unpacked::Inf;
    return u;
  }
  if (f.nan == NanStyle::AllOnes && e == allExp && m == lowMask(f.mantBits)) {
    u.kind = Unpacked::NaN;
    return u;
  }
  if (!f.hasZero) {
    u.kind = Unpacked::Finite;
    u.mant = m | (uint64_t(1) << f.mantBits);
    u.exp = static_cast<int32_t>(e) - f.bias - f.mantBits;
    return u;
  }
  if (e == 0) {
    if (m == 0) {
      u.kind = Unpacked::Zero;
      return u;
    }
    u.kind = Unpacked::Finite;
    u.mant = m;
    u.exp = 1 - f.bias - f.mantBits;
    return u;
  }
  u.kind = Unpacked::Finite;
  u.mant = m | (uint64_t(1) << f.mantBits);
  u.exp = static_cast<int32_t>(e) - f.bias - f.mantBits;
  return u;
}

Unpacked nvfp4::emu::fp::unpackDouble(double d) {
  return unpack(kF64, bitsOf(d));
}

Unpacked nvfp4::emu::fp::unpackInteger(uint64_t v, bool isSigned) {
  Unpacked u;
  if (isSigned && static_cast<int64_t>(v) < 0) {
    u.sign = true;
    v = 0 - v;
  }
  if (v == 0) {
    u.kind = Unpacked::Zero;
    return u;
  }
  u.kind = Unpacked::Finite;
  u.mant = v;
  u.exp = 0;
  return u;
}

uint64_t nvfp4::emu::fp::encode(const Format &f, const Unpacked &vin,
                                const EncodeOptions &o) {
  Unpacked v = vin;
  if (!f.hasSign)
    v.sign = false; // unsigned formats (ue8m0) keep the magnitude
  if (v.kind == Unpacked::NaN)
    return canonicalNaN(f);
  if (o.relu && v.sign)
    return zeroBits(f, false);
  if (v.kind == Unpacked::Inf) {
    if (o.satFinite || !f.hasInf)
      return maxFinite(f, v.sign);
    return infBits(f, v.sign);
  }
  if (v.kind == Unpacked::Zero || v.mant == 0)
    return zeroBits(f, v.sign);

  // Fold the sticky part into the significand: m*4 +- 1 lies strictly
  // between the same representable neighbours as the exact value.
  uint64_t m = v.mant;
  int64_t e = v.exp;
  int sticky = v.stickySign;
  if (bitLength(m) > 60) {
    int k = bitLength(m) - 60;
    uint64_t dropped = m & lowMask(static_cast<unsigned>(k));
    m >>= k;
    e += k;
    if (dropped)
      sticky = 1;
  }
  if (sticky) {
    m = m * 4 + (sticky > 0 ? 1 : uint64_t(-1));
    e -= 2;
  }

  int p = bitLength(m) - 1;
  int64_t E = e + p; // value in [2^E, 2^(E+1))
  int64_t emin = (f.hasZero ? 1 : 0) - static_cast<int64_t>(f.bias);
  int64_t lsbExp = (E > emin ? E : emin) - f.mantBits;
  int64_t shift = lsbExp - e;
  uint64_t q;
  if (shift <= 0) {
    q = m << (-shift); // exact: q < 2^(mantBits+1)
  } else {
    uint64_t rem, half;
    bool belowHalfAlways = false;
    if (shift >= 64) {
      q = 0;
      rem = m;
      half = 0;
      belowHalfAlways = true; // m < 2^62 <= 2^(shift-1)
    } else {
      q = m >> shift;
      rem = m & lowMask(static_cast<unsigned>(shift));
      half = uint64_t(1) << (shift - 1);
    }
    bool up = false;
    switch (o.round) {
    case Round::NearestEven:
      up = !belowHalfAlways && (rem > half || (rem == half && (q & 1)));
      break;
    case Round::NearestAway:
      up = !belowHalfAlways && rem >= half;
      break;
    case Round::TowardZero:
      break;
    case Round::Down:
      up = v.sign && rem != 0;
      break;
    case Round::Up:
      up = !v.sign && rem != 0;
      break;
    }
    if (up)
      ++q;
  }
  if (q >> (f.mantBits + 1)) {
    q >>= 1;
    ++lsbExp;
  }
  uint64_t one = uint64_t(1) << f.mantBits;
  uint64_t expField, mantField;
  if (q == 0) {
    if (!f.hasZero)
      return 0; // below ue8m0's smallest value 2^-127
    return zeroBits(f, v.sign);
  }
  if (q >= one) {
    int64_t ef = lsbExp + f.mantBits + f.bias;
    expField = ef < 0 ? 0 : static_cast<uint64_t>(ef);
    mantField = q - one;
  } else {
    expField = 0;
    mantField = q;
  }
  Limits l = finiteLimits(f);
  if (expField > l.expMax || (expField == l.expMax && mantField > l.mantMax) ||
      (lsbExp + f.mantBits + f.bias) > static_cast<int64_t>(l.expMax)) {
    if (o.satFinite || !f.hasInf)
      return maxFinite(f, v.sign);
    bool toInf = true;
    switch (o.round) {
    case Round::NearestEven:
    case Round::NearestAway:
      break;
    case Round::TowardZero:
      toInf = false;
      break;
    case Round::Down:
      toInf = v.sign;
      break;
    case Round::Up:
      toInf = !v.sign;
      break;
    }
    return toInf ? infBits(f, v.sign) : maxFinite(f, v.sign);
  }
  if (o.flushSubnormal && expField == 0 && f.hasZero)
    return zeroBits(f, v.sign);
  return (v.sign ? signBit(f) : 0) | (expField << f.mantBits) | mantField;
}

double nvfp4::emu::fp::toDouble(const Format &f, uint64_t bits) {
  Unpacked u = unpack(f, bits);
  switch (u.kind) {
  case Unpacked::NaN:
    return std::numeric_limits<double>::quiet_NaN();
  case Unpacked::Inf:
    return u.sign ? -HUGE_VAL : HUGE_VAL;
  case Unpacked::Zero:
    return u.sign ? -0.0 : 0.0;
  case Unpacked::Finite:
    break;
  }
  double d = std::ldexp(static_cast<double>(u.mant), u.exp);
  return u.sign ? -d : d;
}

bool nvfp4::emu::fp::isSubnormal(const Format &f, uint64_t bits) {
  if (!f.hasZero)
    return false;
  uint64_t e = (bits >> f.mantBits) & lowMask(f.expBits);
  uint64_t m = bits & lowMask(f.mantBits);
  return e == 0 && m != 0;
}

uint32_t nvfp4::emu::fp::bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
uint64_t nvfp4::emu::fp::bitsOf(double d) {
  uint64_t u;
  std::memcpy(&u, &d, 8);
  return u;
}
float nvfp4::emu::fp::f32FromBits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
double nvfp4::emu::fp::f64FromBits(uint64_t b) {
  double d;
  std::memcpy(&d, &b, 8);
  return d;
}

//===----------------------------------------------------------------------===//
// Correctly rounded arithmetic on narrow formats via exact double sums
//===----------------------------------------------------------------------===//

namespace {

/// Unpacked for the exact value hi + lo (|lo| <= ulp(hi) / 2).
Unpacked unpackSum(double hi, double lo) {
  if (hi == 0)
    return unpackDouble(lo);
  Unpacked u = unpackDouble(hi);
  if (lo != 0 && u.kind == Unpacked::Finite)
    u.stickySign = (std::signbit(lo) == std::signbit(hi)) ? 1 : -1;
  return u;
}

/// Knuth's TwoSum: s + err == a + b exactly.
void twoSum(double a, double b, double &s, double &err) {
  s = a + b;
  double bb = s - a;
  err = (a - (s - bb)) + (b - bb);
}

uint64_t roundSumTo(const Format &f, double hi, double lo, Round r) {
  EncodeOptions o;
  o.round = r;
  return encode(f, unpackSum(hi, lo), o);
}

uint64_t signedZero(const Format &f, bool negative) {
  return zeroBits(f, negative);
}

/// Sign of an exact zero sum x + y (IEEE 754 6.3).
bool zeroSumSign(double x, double y, Round r) {
  if (x == 0 && y == 0 && std::signbit(x) == std::signbit(y))
    return std::signbit(x);
  return r == Round::Down;
}

uint64_t addFmtImpl(const Format &f, uint64_t a, uint64_t b, Round r) {
  double x = toDouble(f, a), y = toDouble(f, b);
  if (std::isnan(x) || std::isnan(y))
    return canonicalNaN(f);
  if (std::isinf(x) || std::isinf(y)) {
    if (std::isinf(x) && std::isinf(y) && std::signbit(x) != std::signbit(y))
      return canonicalNaN(f);
    return infBits(f, std::signbit(std::isinf(x) ? x : y));
  }
  double s, err;
  twoSum(x, y, s, err);
  if (s == 0 && err == 0)
    return signedZero(f, zeroSumSign(x, y, r));
  return roundSumTo(f, s, err, r);
}

uint64_t mulFmtImpl(const Format &f, uint64_t a, uint64_t b, Round r) {
  double x = toDouble(f, a), y = toDouble(f, b);
  if (std::isnan(x) || std::isnan(y))
    return canonicalNaN(f);
  bool neg = std::signbit(x) != std::signbit(y);
  if (std::isinf(x) || std::isinf(y)) {
    if (x == 0 || y == 0)
      return canonicalNaN(f);
    return infBits(f, neg);
  }
  double p = x * y; // exact for f32 and narrower
  if (p == 0)
    return signedZero(f, neg);
  return roundSumTo(f, p, 0, r);
}

uint64_t fmaFmtImpl(const Format &f, uint64_t a, uint64_t b, uint64_t c,
                    Round r) {
  double x = toDouble(f, a), y = toDouble(f, b), z = toDouble(f, c);
  if (std::isnan(x) || std::isnan(y) || std::isnan(z))
    return canonicalNaN(f);
  bool pneg = std::signbit(x) != std::signbit(y);
  if (std::isinf(x) || std::isinf(y)) {
    if (x == 0 || y == 0)
      return canonicalNaN(f);
    if (std::isinf(z) && std::signbit(z) != pneg)
      return canonicalNaN(f);
    return infBits(f, pneg);
  }
  if (std::isinf(z))
    return infBits(f, std::signbit(z));
  double p = x * y; // exact for f32 and narrower
  double s, err;
  twoSum(p, z, s, err);
  if (s == 0 && err == 0) {
    double ps = p == 0 ? (pneg ? -0.0 : 0.0) : p;
    return signedZero(f, zeroSumSign(ps, z, r));
  }
  return roundSumTo(f, s, err, r);
}

uint64_t divFmtImpl(const Format &f, uint64_t a, uint64_t b, Round r) {
  double x = toDouble(f, a), y = toDouble(f, b);
  if (std::isnan(x) || std::isnan(y))
    return canonicalNaN(f);
  bool neg = std::signbit(x) != std::signbit(y);
  if (std::isinf(x)) {
    if (std::isinf(y))
      return canonicalNaN(f);
    return infBits(f, neg);
  }
  if (std::isinf(y))
    return signedZero(f, neg);
  if (y == 0) {
    if (x == 0)
      return canonicalNaN(f);
    return infBits(f, neg);
  }
  if (x == 0)
    return signedZero(f, neg);
  double q = x / y;
  double rem = std::fma(-q, y, x); // exact remainder
  Unpacked u = unpackDouble(q);
  if (rem != 0) {
    bool residualPositive = (rem > 0) != (y < 0);
    u.stickySign = residualPositive == !std::signbit(q) ? 1 : -1;
  }
  EncodeOptions o;
  o.round = r;
  return encode(f, u, o);
}

uint64_t sqrtFmtImpl(const Format &f, uint64_t a, Round r) {
  double x = toDouble(f, a);
  if (std::isnan(x) || (x < 0))
    return canonicalNaN(f);
  if (x == 0)
    return a; // +-0
  if (std::isinf(x))
    return a;
  double s = std::sqrt(x);
  double rem = std::fma(-s, s, x);
  Unpacked u = unpackDouble(s);
  if (rem != 0)
    u.stickySign = rem > 0 ? 1 : -1;
  EncodeOptions o;
  o.round = r;
  return encode(f, u, o);
}

} // namespace

uint32_t nvfp4::emu::fp::roundToF32(double hi, double lo,
                                    const EncodeOptions &o) {
  return static_cast<uint32_t>(encode(kF32, unpackSum(hi, lo), o));
}

uint32_t nvfp4::emu::fp::addF32(uint32_t a, uint32_t b, Round r) {
  return static_cast<uint32_t>(addFmtImpl(kF32, a, b, r));
}
uint32_t nvfp4::emu::fp::mulF32(uint32_t a, uint32_t b, Round r) {
  return static_cast<uint32_t>(mulFmtImpl(kF32, a, b, r));
}
uint32_t nvfp4::emu::fp::fmaF32(uint32_t a, uint32_t b, uint32_t c, Round r) {
  return static_cast<uint32_t>(fmaFmtImpl(kF32, a, b, c, r));
}
uint32_t nvfp4::emu::fp::divF32(uint32_t a, uint32_t b, Round r) {
  return static_cast<uint32_t>(divFmtImpl(kF32, a, b, r));
}
uint32_t nvfp4::emu::fp::sqrtF32(uint32_t a, Round r) {
  return static_cast<uint32_t>(sqrtFmtImpl(kF32, a, r));
}

//===----------------------------------------------------------------------===//
// f64 arithmetic in a directed mode: the host FPU does the rounding.
//===----------------------------------------------------------------------===//

namespace {

int hostMode(Round r) {
  switch (r) {
  case Round::NearestEven:
  case Round::NearestAway:
    return FE_TONEAREST;
  case Round::TowardZero:
    return FE_TOWARDZERO;
  case Round::Down:
    return FE_DOWNWARD;
  case Round::Up:
    return FE_UPWARD;
  }
  return FE_TONEAREST;
}

uint64_t canonF64(double d) {
  return std::isnan(d) ? canonicalNaN(kF64) : bitsOf(d);
}

template <typename Fn> uint64_t inMode(Round r, Fn fn) {
  int old = std::fegetround();
  std::fesetround(hostMode(r));
  volatile double result = fn();
  std::fesetround(old);
  return canonF64(result);
}

} // namespace

uint64_t nvfp4::emu::fp::addF64(uint64_t a, uint64_t b, Round r) {
  volatile double x = f64FromBits(a), y = f64FromBits(b);
  return inMode(r, [&] { return x + y; });
}
uint64_t nvfp4::emu::fp::mulF64(uint64_t a, uint64_t b, Round r) {
  volatile double x = f64FromBits(a), y = f64FromBits(b);
  return inMode(r, [&] { return x * y; });
}
uint64_t nvfp4::emu::fp::fmaF64(uint64_t a, uint64_t b, uint64_t c, Round r) {
  volatile double x = f64FromBits(a), y = f64FromBits(b), z = f64FromBits(c);
  return inMode(r, [&] { return std::fma(x, y, z); });
}
uint64_t nvfp4::emu::fp::divF64(uint64_t a, uint64_t b, Round r) {
  volatile double x = f64FromBits(a), y = f64FromBits(b);
  return inMode(r, [&] { return x / y; });
}
uint64_t nvfp4::emu::fp::sqrtF64(uint64_t a, Round r) {
  volatile double x = f64FromBits(a);
  return inMode(r, [&] { return std::sqrt(static_cast<double>(x)); });
}

uint64_t nvfp4::emu::fp::addFormat(const Format &f, uint64_t a, uint64_t b,
                                   Round r) {
  return addFmtImpl(f, a, b, r);
}
uint64_t nvfp4::emu::fp::mulFormat(const Format &f, uint64_t a, uint64_t b,
                                   Round r) {
  return mulFmtImpl(f, a, b, r);
}
uint64_t nvfp4::emu::fp::fmaFormat(const Format &f, uint64_t a, uint64_t b,
                                   uint64_t c, Round r) {
  return fmaFmtImpl(f, a, b, c, r);
}
