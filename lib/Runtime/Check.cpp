//===- Check.cpp - float64 references and output metrics ------------------===//

#include "nvfp4/Runtime/Check.h"

#include <cmath>
#include <cstdio>
#include <cstring>

using namespace nvfp4::rt;

const char *nvfp4::rt::stringify(ElemType t) {
  switch (t) {
  case ElemType::F32:
    return "f32";
  case ElemType::BF16:
    return "bf16";
  case ElemType::F16:
    return "f16";
  }
  return "?";
}

Expected<ElemType> nvfp4::rt::parseElemType(const std::string &s) {
  if (s == "f32")
    return ElemType::F32;
  if (s == "bf16")
    return ElemType::BF16;
  if (s == "f16")
    return ElemType::F16;
  return makeError("unknown element type '", s, "' (expected f32, bf16 or f16)");
}

unsigned nvfp4::rt::elemBytes(ElemType t) { return t == ElemType::F32 ? 4 : 2; }

namespace {

double halfToDouble(uint16_t h) {
  int exp = (h >> 10) & 0x1f;
  int mant = h & 0x3ff;
  double sign = (h & 0x8000) ? -1.0 : 1.0;
  if (exp == 0x1f)
    return mant ? std::nan("") : sign * INFINITY;
  if (exp == 0)
    return sign * std::ldexp(double(mant), -24);
  return sign * std::ldexp(double(mant | 0x400), exp - 25);
}

} // namespace

std::vector<double> nvfp4::rt::decode(const uint8_t *data, size_t count,
                                      ElemType t) {
  std::vector<double> out(count);
  for (size_t i = 0; i < count; ++i) {
    switch (t) {
    case ElemType::F32: {
      float f;
      std::memcpy(&f, data + 4 * i, 4);
      out[i] = f;
      break;
    }
    case ElemType::BF16: {
      uint16_t h;
      std::memcpy(&h, data + 2 * i, 2);
      uint32_t bits = uint32_t(h) << 16;
      float f;
      std::memcpy(&f, &bits, 4);
      out[i] = f;
      break;
    }
    case ElemType::F16: {
      uint16_t h;
      std::memcpy(&h, data + 2 * i, 2);
      out[i] = halfToDouble(h);
      break;
    }
    }
  }
  return out;
}

Metrics nvfp4::rt::compare(const std::vector<double> &out,
                           const std::vector<double> &ref) {
  Metrics m;
  m.count = out.size();
  double dot = 0, nOut = 0, nRef = 0, nDiff = 0;
  for (size_t i = 0; i < out.size() && i < ref.size(); ++i) {
    if (!std::isfinite(out[i])) {
      ++m.nonFinite;
      continue;
    }
    double d = out[i] - ref[i];
    dot += out[i] * ref[i];
    nOut += out[i] * out[i];
    nRef += ref[i] * ref[i];
    nDiff += d * d;
    m.maxAbs = std::max(m.maxAbs, std::fabs(d));
  }
  if (nOut == 0 && nRef == 0)
    m.cos = 1;
  else if (nOut == 0 || nRef == 0)
    m.cos = 0;
  else
    m.cos = dot / (std::sqrt(nOut) * std::sqrt(nRef));
  m.relL2 = nRef > 0 ? std::sqrt(nDiff) / std::sqrt(nRef) : std::sqrt(nDiff);
  if (m.nonFinite) {
    // A NaN anywhere poisons the norms' meaning: report them as NaN.
    m.cos = std::nan("");
    m.relL2 = std::nan("");
  }
  return m;
}

bool nvfp4::rt::passes(const Metrics &m, double relL2Tolerance) {
  return m.nonFinite == 0 && m.relL2 <= relL2Tolerance;
}

std::string nvfp4::rt::verdictLine(const Metrics &m, double relL2Tolerance) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%s cos=%.8f rel_l2=%.3g max_abs=%.3g nan=%llu",
                passes(m, relL2Tolerance) ? "PASS" : "FAIL", m.cos, m.relL2,
                m.maxAbs, static_cast<unsigned long long>(m.nonFinite));
  return buf;
}

//===----------------------------------------------------------------------===//
// References
//===----------------------------------------------------------------------===//

namespace {

/// D[m, n] = sum_k A[m, k] * B[n, k] (D = A B^T; A and B K-contiguous).
void gemmABt(const std::map<std::string, uint64_t> &sizes,
             std::vector<std::vector<double>> &ops) {
  uint64_t M = sizes.at("m"), N = sizes.at("n"), K = sizes.at("k");
  const std::vector<double> &a = ops[0], &b = ops[1];
  std::vector<double> &d = ops[2];
  for (uint64_t i = 0; i < M; ++i)
    for (uint64_t j = 0; j < N; ++j) {
      double s = 0;
      const double *ar = &a[i * K], *br = &b[j * K];
      for (uint64_t k = 0; k < K; ++k)
        s += ar[k] * br[k];
      d[i * N + j] = s;
    }
}

} // namespace

const std::vector<Reference> &nvfp4::rt::references() {
  static const std::vector<Reference> refs = {
      {"gemm_abt",
       "D[m,n] = A[m,k] * B[n,k]^T",
       {{"a", {"m", "k"}, false}, {"b", {"n", "k"}, false},
        {"d", {"m", "n"}, true}},
       gemmABt},
  };
  return refs;
}

Expected<const Reference *> nvfp4::rt::findReference(const std::string &name) {
  std::string known;
  for (const Reference &r : references()) {
    if (r.name == name)
      return &r;
    known += (known.empty() ? "" : ", ") + r.name;
  }
  return makeError("unknown reference '", name, "' (known: ", known, ")");
}
