//===- MmaNumerics.cpp - how an MMA accumulates its products --------------===//

#include "MmaNumerics.h"

#include <cmath>
#include <cstdint>
#include <sstream>

namespace nvfp4::emu::numerics {

std::string Model::describe() const {
  if (kind == Kind::Exact)
    return "exact";
  std::ostringstream os;
  os << "aligned(group=" << group << ", frac=" << fracBits
     << (floorCut ? ", cut=floor" : ", cut=zero")
     << (nearest ? ", norm=rne" : ", norm=rz")
     << (accInGroup ? ", acc=aligned" : ", acc=separate")
     << (expFromSum ? ", exp=ea+eb" : ", exp=exact");
  if (inner > 1)
    os << ", inner=" << inner;
  if (normBits != 23)
    os << ", keep=" << normBits;
  os << ")";
  return os.str();
}

Model hopperModel(unsigned operandBits) {
  Model m;
  m.kind = Model::Kind::Aligned;
  m.group = operandBits == 8 ? 32 : 16;
  m.fracBits = operandBits == 8 ? 13 : 25;
  m.normBits = operandBits == 8 ? 13 : 23;
  m.expFromSum = true;
  return m;
}

namespace {

// V (an exact value) rounded to f32, toward zero or to nearest even, then
// (toward zero) to BITS fraction bits.
double toF32(double v, bool nearest, int bits = 23) {
  float f = static_cast<float>(v); // nearest even
  if (!nearest && std::isfinite(f) && std::fabs(double(f)) > std::fabs(v))
    f = std::nextafter(f, 0.0f);
  if (bits < 23 && f != 0 && std::isfinite(f)) {
    int q = std::ilogb(f) - bits;
    return std::ldexp(std::trunc(std::ldexp(double(f), -q)), q);
  }
  return double(f);
}

int exponentOf(double x) { return std::ilogb(x); }

} // namespace

double accumulate(const Model &m, double c, const double *a, const double *b,
                  unsigned K) {
  if (m.kind == Model::Kind::Exact) {
    double s = c;
    for (unsigned k = 0; k < K; ++k)
      s += a[k] * b[k];
    return double(static_cast<float>(s));
  }
  const unsigned G = m.group ? m.group : K;
  for (unsigned k0 = 0; k0 < K; k0 += G) {
    const unsigned k1 = k0 + G < K ? k0 + G : K;
    // Non-finite operands or accumulator: IEEE arithmetic decides.
    bool finite = std::isfinite(c);
    for (unsigned k = k0; k < k1 && finite; ++k)
      finite = std::isfinite(a[k]) && std::isfinite(b[k]);
    if (!finite) {
      double s = c;
      for (unsigned k = k0; k < k1; ++k)
        s += a[k] * b[k];
      c = double(static_cast<float>(s));
      continue;
    }
    // The terms: runs of `inner` products summed exactly.
    double terms[64];
    int texp[64];
    unsigned nt = 0;
    const unsigned in = m.inner ? m.inner : 1;
    for (unsigned k = k0; k < k1; k += in) {
      double t = 0;
      for (unsigned j = k; j < k + in && j < k1; ++j)
        t += a[j] * b[j];
      terms[nt] = t;
      texp[nt] = in == 1 && m.expFromSum && t != 0
                     ? exponentOf(a[k]) + exponentOf(b[k])
                     : (t != 0 ? exponentOf(t) : 0);
      ++nt;
    }
    bool any = false;
    int emax = 0;
    auto see = [&](int e) {
      emax = any ? (e > emax ? e : emax) : e;
      any = true;
    };
    if (m.accInGroup && c != 0)
      see(exponentOf(c));
    for (unsigned i = 0; i < nt; ++i)
      if (terms[i] != 0)
        see(texp[i]);
    if (!any) {
      // Every term zero: C, but a zero C becomes +0, the sign of an exact
      // zero sum (each term's exact sum starts at +0; the H100 gives +0
      // for -0 plus zero products: the fp8 attention kernels' O,
      // docs/Emulator.md "MMA accumulation").
      if (c == 0)
        c = 0.0;
      continue;
    }
    const int q = emax - m.fracBits; // the unit of the cut
    auto cut = [&](double t) {
      double u = std::ldexp(t, -q);
      return m.floorCut ? std::floor(u) : std::trunc(u);
    };
    double s = 0; // exact: |terms| < 2^(fracBits + 2), fewer than 2^6 terms
    if (m.accInGroup)
      s += cut(c);
    for (unsigned i = 0; i < nt; ++i)
      s += cut(terms[i]);
    double v = std::ldexp(s, q);
    if (m.accInGroup) {
      c = toF32(v, m.nearest, m.normBits);
    } else {
      c = toF32(c + toF32(v, m.nearest), true, m.normBits);
    }
  }
  return c;
}

} // namespace nvfp4::emu::numerics
