//===- wgmma_numerics_gen.h - inputs of the wgmma accumulation probe ------===//
//
// The inputs of scripts/device/wgmma_numerics.cu (run on the H200) and of
// the emulator's replay of its outputs (unittests/Emulator/
// WgmmaNumericsTest.cpp): both include this header, so the inputs are never
// stored, only the H200's D (docs/Emulator.md, "MMA accumulation").
//
// One probe set is NCTA problems of one format; problem c is
//   D[64][8] = C[64][8] + sum over steps s < S of A_s[64][K] B_s[8][K]^T
// computed by S chained wgmma.mma_async.m64n8kK instructions (K = 16 for
// bf16/f16, 32 for e4m3/e5m2) of one warpgroup. Plain C++, no CUDA.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_WGMMA_NUMERICS_GEN_H
#define NVFP4_WGMMA_NUMERICS_GEN_H

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace wgmma_numerics {

enum class Format { BF16, F16, E4M3, E5M2 };

inline const char *formatName(Format f) {
  switch (f) {
  case Format::BF16: return "bf16";
  case Format::F16: return "f16";
  case Format::E4M3: return "e4m3";
  case Format::E5M2: return "e5m2";
  }
  return "?";
}
inline unsigned elemBytes(Format f) {
  return f == Format::BF16 || f == Format::F16 ? 2 : 1;
}
inline unsigned instrK(Format f) { return elemBytes(f) == 2 ? 16 : 32; }

// Bit layout of each format: mantissa bits, exponent bits, bias.
struct Layout {
  unsigned man, exp;
  int bias;
};
inline Layout layoutOf(Format f) {
  switch (f) {
  case Format::BF16: return {7, 8, 127};
  case Format::F16: return {10, 5, 15};
  case Format::E4M3: return {3, 4, 7};
  case Format::E5M2: return {2, 5, 15};
  }
  return {0, 0, 0};
}

struct SplitMix64 {
  uint64_t s;
  explicit SplitMix64(uint64_t seed) : s(seed) {}
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  int range(int lo, int hi) { // inclusive
    return lo + static_cast<int>(next() % uint64_t(hi - lo + 1));
  }
};

// The bits of sign * 1.m * 2^e in format F (e within its normal range).
inline uint32_t encodeNormal(Format f, unsigned sign, int e, uint32_t m) {
  Layout l = layoutOf(f);
  uint32_t bits = (uint32_t(e + l.bias) << l.man) | (m & ((1u << l.man) - 1));
  return bits | (sign << (l.man + l.exp));
}

// A random value of F: exponent uniform in [elo, ehi] clamped to the normal
// range (E4M3 never produces its NaN 0x7f/0xff), full random mantissa, random
// sign; with probability 1/zeroOdds a zero, 1/subOdds a subnormal.
inline uint32_t randomValue(Format f, SplitMix64 &r, int elo, int ehi,
                            unsigned zeroOdds = 16, unsigned subOdds = 32) {
  Layout l = layoutOf(f);
  unsigned sign = r.next() & 1;
  uint32_t m = uint32_t(r.next()) & ((1u << l.man) - 1);
  uint32_t signBit = sign << (l.man + l.exp);
  if (zeroOdds && r.next() % zeroOdds == 0)
    return signBit;
  if (subOdds && r.next() % subOdds == 0)
    return signBit | (m ? m : 1);
  int emin = 1 - l.bias, emax = int((1u << l.exp) - 2) - l.bias;
  if (f == Format::E4M3)
    emax = 8; // 0x7f is NaN: exponent field 15 with m = 7 only
  int e = r.range(elo, ehi);
  e = e < emin ? emin : e > emax ? emax : e;
  uint32_t v = encodeNormal(f, sign, e, m);
  if (f == Format::E4M3 && (v & 0x7f) == 0x7f)
    v &= ~1u;
  return v;
}

inline uint32_t f32Bits(float x) {
  uint32_t b;
  std::memcpy(&b, &x, 4);
  return b;
}
inline uint32_t randomF32(SplitMix64 &r, int elo, int ehi) {
  unsigned sign = r.next() & 1;
  if (r.next() % 16 == 0)
    return sign << 31;
  int e = r.range(elo, ehi);
  uint32_t m = uint32_t(r.next()) & 0x7fffff;
  return (sign << 31) | (uint32_t(e + 127) << 23) | m;
}

// One probe set: NCTA problems of S steps. Element bits: A[c][s][m][k],
// B[c][s][n][k] (bits of format F, one element each), C[c][m][n] (f32).
struct Set {
  std::string name;
  Format format;
  unsigned ncta, steps;
  std::vector<uint32_t> a, b, c;
  unsigned k() const { return instrK(format); }
  size_t aIndex(unsigned cta, unsigned s, unsigned m, unsigned kk) const {
    return ((size_t(cta) * steps + s) * 64 + m) * k() + kk;
  }
  size_t bIndex(unsigned cta, unsigned s, unsigned n, unsigned kk) const {
    return ((size_t(cta) * steps + s) * 8 + n) * k() + kk;
  }
  size_t cIndex(unsigned cta, unsigned m, unsigned n) const {
    return (size_t(cta) * 64 + m) * 8 + n;
  }
};

inline uint32_t one(Format f) { return encodeNormal(f, 0, 0, 0); }

// Random problems: operand exponents in [elo, ehi], C's in [clo, chi].
inline Set randomSet(const std::string &name, Format f, unsigned ncta,
                     unsigned steps, int elo, int ehi, int clo, int chi,
                     uint64_t seed) {
  Set st{name, f, ncta, steps, {}, {}, {}};
  SplitMix64 r(seed);
  st.a.resize(size_t(ncta) * steps * 64 * st.k());
  st.b.resize(size_t(ncta) * steps * 8 * st.k());
  st.c.resize(size_t(ncta) * 64 * 8);
  // CTA by CTA, so that the first CTAs of a set do not depend on NCTA.
  for (unsigned cta = 0; cta < ncta; ++cta) {
    for (unsigned s = 0; s < steps; ++s)
      for (unsigned m = 0; m < 64; ++m)
        for (unsigned kk = 0; kk < st.k(); ++kk)
          st.a[st.aIndex(cta, s, m, kk)] = randomValue(f, r, elo, ehi);
    for (unsigned s = 0; s < steps; ++s)
      for (unsigned n = 0; n < 8; ++n)
        for (unsigned kk = 0; kk < st.k(); ++kk)
          st.b[st.bIndex(cta, s, n, kk)] = randomValue(f, r, elo, ehi);
    for (unsigned m = 0; m < 64; ++m)
      for (unsigned n = 0; n < 8; ++n)
        st.c[st.cIndex(cta, m, n)] = randomF32(r, clo, chi);
  }
  return st;
}

// Designed problems, one step: a big term (the product at k = 0, or C) and
// small terms whose distance below it grows along the row's column n and
// the CTA index, in eight patterns (row m % 8): one small +, one small -,
// one small with mantissa bits, every k small, every k small negative with
// full mantissa, alternating signs, one small in the upper half of K, one
// small at the last k. Rows with (m / 8) odd take the big term from C.
inline Set designedSet(const std::string &name, Format f, unsigned ncta) {
  Set st{name, f, ncta, 1, {}, {}, {}};
  const unsigned K = st.k();
  Layout l = layoutOf(f);
  const int emin = 1 - l.bias;
  st.a.assign(size_t(ncta) * 64 * K, 0);
  st.b.assign(size_t(ncta) * 8 * K, 0);
  st.c.assign(size_t(ncta) * 64 * 8, 0);
  const uint32_t fullMan = (1u << l.man) - 1;
  for (unsigned cta = 0; cta < ncta; ++cta) {
    for (unsigned n = 0; n < 8; ++n) {
      // B[n][0] = 1; B[n][k >= 1] = 2^-(shift), shift = 8 * cta + n, as far
      // as the format reaches (then the rest of the distance comes from C).
      int shift = int(8 * cta + n);
      int e = -shift < emin ? emin : -shift;
      for (unsigned kk = 0; kk < K; ++kk)
        st.b[st.bIndex(cta, 0, n, kk)] = kk == 0 ? one(f) : encodeNormal(f, 0, e, 0);
    }
    for (unsigned m = 0; m < 64; ++m) {
      const unsigned pat = m % 8, grp = m / 8;
      const bool fromC = grp % 2 == 1;
      // The small terms' A values.
      auto set = [&](unsigned kk, unsigned sign, uint32_t man) {
        st.a[st.aIndex(cta, 0, m, kk)] = encodeNormal(f, sign, -int(grp / 2), man);
      };
      switch (pat) {
      case 0: set(1, 0, 0); break;
      case 1: set(1, 1, 0); break;
      case 2: set(1, 0, 1u << (l.man - 1)); break;
      case 3: for (unsigned kk = 1; kk < K; ++kk) set(kk, 0, 0); break;
      case 4: for (unsigned kk = 1; kk < K; ++kk) set(kk, 1, fullMan); break;
      case 5: for (unsigned kk = 1; kk < K; ++kk) set(kk, kk % 2, 0); break;
      case 6: set(K / 2 + 1, 0, 0); break;
      case 7: set(K - 1, 1, 1); break;
      }
      for (unsigned n = 0; n < 8; ++n) {
        if (fromC) {
          // C = 2^(extra) * 1.5: the small terms sit shift + extra below.
          int extra = int(2 * cta + n % 4);
          st.c[st.cIndex(cta, m, n)] = (uint32_t(127 + extra) << 23) | 0x400000u;
        } else {
          st.c[st.cIndex(cta, m, n)] = 0;
        }
      }
      if (!fromC)
        st.a[st.aIndex(cta, 0, m, 0)] = one(f);
    }
  }
  return st;
}

// The probe: for every format a designed set and random sets (wide and
// narrow exponent ranges, one step and eight chained steps).
inline std::vector<Set> probeSets(unsigned scale = 1) {
  std::vector<Set> out;
  const Format fs[] = {Format::BF16, Format::F16, Format::E4M3, Format::E5M2};
  uint64_t seed = 1000;
  for (Format f : fs) {
    std::string p = formatName(f);
    const bool fp8 = elemBytes(f) == 1;
    out.push_back(designedSet(p + "_designed", f, 6));
    out.push_back(randomSet(p + "_wide", f, 16 * scale, 1, fp8 ? -6 : -10,
                            fp8 ? 6 : 10, -8, 12, ++seed));
    out.push_back(randomSet(p + "_narrow", f, 16 * scale, 1, -1, 1, -2, 4,
                            ++seed));
    out.push_back(randomSet(p + "_chain", f, 16 * scale, 8, fp8 ? -4 : -6,
                            fp8 ? 4 : 6, -4, 8, ++seed));
  }
  return out;
}

// Results in the f32 subnormal range (WGMMA_TINY=1 wgmma_numerics): bf16
// operands with exponents in [-75, -62], so that products and sums lie
// around 2^-150 .. 2^-124, and C = +0: whether the tensor core keeps a
// subnormal result and which sign a result that rounds to zero takes.
inline std::vector<Set> tinySets() {
  Set st = randomSet("bf16_tiny", Format::BF16, 16, 1, -75, -62, 0, 1, 4242);
  for (uint32_t &c : st.c)
    c = 0;
  return {st};
}

} // namespace wgmma_numerics

#endif
