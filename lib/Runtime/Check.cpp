//===- Check.cpp - float64 references and output metrics ------------------===//

#include "nvfp4/Runtime/Check.h"

#include "nvfp4/Support/KvCacheFormat.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>

using namespace nvfp4::rt;
using nvfp4::KvCacheFormat;
using nvfp4::kvCacheFormats;

const char *nvfp4::rt::stringify(ElemType t) {
  switch (t) {
  case ElemType::F32:
    return "f32";
  case ElemType::BF16:
    return "bf16";
  case ElemType::F16:
    return "f16";
  case ElemType::I32:
    return "i32";
  case ElemType::U8:
    return "u8";
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
  if (s == "i32")
    return ElemType::I32;
  if (s == "u8")
    return ElemType::U8;
  return makeError("unknown element type '", s,
                   "' (expected f32, bf16, f16, i32 or u8)");
}

unsigned nvfp4::rt::elemBytes(ElemType t) {
  return t == ElemType::F32 || t == ElemType::I32 ? 4
         : t == ElemType::U8                        ? 1
                                                    : 2;
}

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
    case ElemType::I32: {
      int32_t v;
      std::memcpy(&v, data + 4 * i, 4);
      out[i] = v;
      break;
    }
    case ElemType::U8:
      out[i] = data[i];
      break;
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
    if (!std::isfinite(out[i]) || !std::isfinite(ref[i])) {
      // The same infinity as the reference matches (an attention row with
      // no visible key has lse = -inf); any other non-finite value on
      // either side fails.
      if (std::isinf(ref[i]) && out[i] == ref[i])
        ++m.equalInfinities;
      else
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
  Tolerance t;
  t.relL2 = relL2Tolerance;
  return passes(m, t);
}

bool nvfp4::rt::passes(const Metrics &m, const Tolerance &t) {
  return m.nonFinite == 0 && m.relL2 <= t.relL2 &&
         (!t.minCos || m.cos >= *t.minCos) &&
         (!t.maxAbs || m.maxAbs <= *t.maxAbs);
}

std::string nvfp4::rt::verdictLine(const Metrics &m, double relL2Tolerance) {
  Tolerance t;
  t.relL2 = relL2Tolerance;
  return verdictLine(m, t);
}

std::string nvfp4::rt::verdictLine(const Metrics &m, const Tolerance &t) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%s cos=%.8f rel_l2=%.3g max_abs=%.3g nan=%llu",
                passes(m, t) ? "PASS" : "FAIL", m.cos, m.relL2, m.maxAbs,
                static_cast<unsigned long long>(m.nonFinite));
  return buf;
}

std::string nvfp4::rt::describe(const Tolerance &t) {
  char buf[160];
  std::string s;
  if (t.minCos) {
    std::snprintf(buf, sizeof buf, "cos >= %.8g, ", *t.minCos);
    s += buf;
  }
  std::snprintf(buf, sizeof buf, "rel_l2 <= %.3g", t.relL2);
  s += buf;
  if (t.maxAbs) {
    std::snprintf(buf, sizeof buf, ", max_abs <= %.3g", *t.maxAbs);
    s += buf;
  }
  return s;
}

//===----------------------------------------------------------------------===//
// References
//===----------------------------------------------------------------------===//

namespace {

/// D[m, n] = sum_k A[m, k] * B[n, k] (D = A B^T; A and B K-contiguous).
Error gemmABt(const std::map<std::string, uint64_t> &sizes,
              const ReferenceOptions &,
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
  return Error::success();
}

Error attentionCompute(const std::map<std::string, uint64_t> &sizes,
                       const ReferenceOptions &options,
                       std::vector<std::vector<double>> &ops);
Error pagedCompute(const std::map<std::string, uint64_t> &sizes,
                   const ReferenceOptions &options,
                   std::vector<std::vector<double>> &ops);
Error pagedValidate(const std::map<std::string, uint64_t> &sizes,
                    const std::vector<std::vector<double>> &ops);
Error mergeCompute(const std::map<std::string, uint64_t> &sizes,
                   const ReferenceOptions &options,
                   std::vector<std::vector<double>> &ops);
Error sparseCompute(const std::map<std::string, uint64_t> &sizes,
                    const ReferenceOptions &options,
                    std::vector<std::vector<double>> &ops);
Error sparseValidate(const std::map<std::string, uint64_t> &sizes,
                     const std::vector<std::vector<double>> &ops);
Error cacheCompute(const KvCacheFormat &f,
                   const std::map<std::string, uint64_t> &sizes,
                   const ReferenceOptions &options,
                   std::vector<std::vector<double>> &ops);
Error cacheValidate(const KvCacheFormat &f,
                    const std::map<std::string, uint64_t> &sizes,
                    const std::vector<std::vector<double>> &ops);

/// The thresholds of a bf16/f16 attention output and of its f32 LSE
/// (shared/DESIGN.md, "Numerics acceptance"; docs/Attention.md).
Tolerance attentionOTolerance() {
  Tolerance t;
  t.relL2 = 5e-3;
  t.minCos = 0.99999;
  return t;
}
Tolerance attentionLseTolerance() {
  Tolerance t;
  t.relL2 = 1e-4;
  t.maxAbs = 1e-3;
  return t;
}

} // namespace

const std::vector<Reference> &nvfp4::rt::references() {
  static const std::vector<Reference> refs = [] {
  std::vector<Reference> refs = {
      {"gemm_abt",
       "D[m,n] = A[m,k] * B[n,k]^T",
       {{"a", {"m", "k"}, false}, {"b", {"n", "k"}, false},
        {"d", {"m", "n"}, true}},
       gemmABt,
       {}},
      {"attention",
       "nvfp4.attention with sink and kv_lens, docs/Attention.md",
       {{"q", {"b", "sq", "hq", "d"}, false},
        {"k", {"b", "skv", "hkv", "d"}, false},
        {"v", {"b", "skv", "hkv", "dv"}, false},
        {"sink", {"hq"}, false, "", std::nullopt, /*optional=*/true},
        {"kv_lens", {"b"}, false, "skv", std::nullopt, /*optional=*/true},
        {"o", {"b", "sq", "hq", "dv"}, true, "", attentionOTolerance()},
        {"lse", {"b", "hq", "sq"}, true, "", attentionLseTolerance()}},
       attentionCompute,
       {{"softmax_scale", true, "finite and > 0"},
        {"causal", false, "0 or 1 (false/true), default 0"},
        {"window", false, "an integer >= 1, default none"}}},
      {"attention_paged",
       "nvfp4.attention over a paged KV cache (block_table), "
       "docs/Attention.md",
       {{"q", {"b", "sq", "hq", "d"}, false},
        {"k", {"np", "ps", "hkv", "d"}, false},
        {"v", {"np", "ps", "hkv", "dv"}, false},
        {"sink", {"hq"}, false, "", std::nullopt, /*optional=*/true},
        {"kv_lens", {"b"}, false, "skv", std::nullopt, /*optional=*/true},
        {"block_table", {"b", "mp"}, false, "", std::nullopt, false, "np"},
        {"o", {"b", "sq", "hq", "dv"}, true, "", attentionOTolerance()},
        {"lse", {"b", "hq", "sq"}, true, "", attentionLseTolerance()}},
       pagedCompute,
       {{"softmax_scale", true, "finite and > 0"},
        {"causal", false, "0 or 1 (false/true), default 0"},
        {"window", false, "an integer >= 1, default none"}},
       pagedValidate},
      {"attention_sparse",
       "nvfp4.attention with sparse top-k indices into a cache of slots, "
       "docs/Attention.md",
       {{"q", {"b", "sq", "hq", "d"}, false},
        {"k", {"np", "ps", "hkv", "d"}, false},
        {"v", {"np", "ps", "hkv", "dv"}, false},
        {"sink", {"hq"}, false, "", std::nullopt, /*optional=*/true},
        {"kv_lens", {"b"}, false, "topk", std::nullopt, /*optional=*/true},
        {"indices",
         {"b", "sq", "topk"},
         false,
         "",
         std::nullopt,
         false,
         "",
         false,
         {"np", "ps"}},
        {"o", {"b", "sq", "hq", "dv"}, true, "", attentionOTolerance()},
        {"lse", {"b", "hq", "sq"}, true, "", attentionLseTolerance()}},
       sparseCompute,
       {{"softmax_scale", true, "finite and > 0"}},
       sparseValidate},
      {"attention_merge",
       "nvfp4.attention_merge: two results merged by their LSE, "
       "docs/Attention.md",
       {{"o1", {"b", "sq", "hq", "dv"}, false},
        {"lse1", {"b", "hq", "sq"}, false, "", std::nullopt, false, "", true},
        {"o2", {"b", "sq", "hq", "dv"}, false},
        {"lse2", {"b", "hq", "sq"}, false, "", std::nullopt, false, "", true},
        {"sink", {"hq"}, false, "", std::nullopt, /*optional=*/true},
        {"o", {"b", "sq", "hq", "dv"}, true, "", attentionOTolerance()},
        {"lse", {"b", "hq", "sq"}, true, "", attentionLseTolerance()}},
       mergeCompute,
       {}},
  };
  // Sparse top-k over each quantized cache layout (one entry per table
  // entry of nvfp4/Support/KvCacheFormat.h): operands q, kv (u8 pages),
  // sink, kv_lens (top-k lengths), indices, o, lse.
  for (const KvCacheFormat &f : kvCacheFormats()) {
    // Pages of rpp rows of rb bytes (a page is a whole number of rows), so
    // that a tensor map can view the cache as rows.
    ReferenceOperand kv{"kv", {"np", "rpp", "rb"}, false};
    kv.cacheFormat = f.name;
    ReferenceOperand idx{"indices", {"b", "sq", "topk"}, false};
    idx.slotsOf = {"np", "ps"};
    // The optional second key set (extra): its own cache, top-k lengths
    // and indices.
    ReferenceOperand kv2{"kv2", {"np2", "rpp2", "rb"}, false};
    kv2.cacheFormat = f.name;
    kv2.pageSizeOf = "ps2";
    kv2.optional = true;
    ReferenceOperand lens2{"kv_lens2", {"b"}, false, "topk2"};
    lens2.optional = true;
    ReferenceOperand idx2{"indices2", {"b", "sq", "topk2"}, false};
    idx2.slotsOf = {"np2", "ps2"};
    idx2.optional = true;
    refs.push_back(Reference{
        std::string("attention_sparse_") + f.name,
        std::string("nvfp4.attention with sparse top-k indices into a ") +
            f.name + " cache, docs/Attention.md",
        {{"q", {"b", "sq", "hq", "d"}, false},
         kv,
         {"sink", {"hq"}, false, "", std::nullopt, /*optional=*/true},
         {"kv_lens", {"b"}, false, "topk", std::nullopt, /*optional=*/true},
         idx,
         kv2,
         lens2,
         idx2,
         {"o", {"b", "sq", "hq", "dv"}, true, "", attentionOTolerance()},
         {"lse", {"b", "hq", "sq"}, true, "", attentionLseTolerance()}},
        [&f](const std::map<std::string, uint64_t> &sizes,
             const ReferenceOptions &options,
             std::vector<std::vector<double>> &ops) {
          return cacheCompute(f, sizes, options, ops);
        },
        {{"softmax_scale", true, "finite and > 0"}},
        [&f](const std::map<std::string, uint64_t> &sizes,
             const std::vector<std::vector<double>> &ops) {
          return cacheValidate(f, sizes, ops);
        }});
  }
  appendNvfp4References(refs);
  return refs;
  }();
  return refs;
}

//===----------------------------------------------------------------------===//
// Attention (docs/Attention.md)
//===----------------------------------------------------------------------===//

namespace {

/// The checks of attentionReference that do not look at q, k and v.
Error checkAttention(const AttentionProblem &p) {
  if (p.headsKv == 0 || p.headsQ == 0 || p.headsQ % p.headsKv != 0)
    return makeError("expected Hq (", p.headsQ,
                     ") to be a positive multiple of Hkv (", p.headsKv, ")");
  if (p.headDim == 0 || p.headDimV == 0)
    return makeError("expected positive head dims, got D = ", p.headDim,
                     ", Dv = ", p.headDimV);
  if (!std::isfinite(p.softmaxScale) || p.softmaxScale <= 0)
    return makeError("expected softmax_scale to be finite and positive, got ",
                     p.softmaxScale);
  if (p.window && *p.window < 1)
    return makeError("expected window to be at least 1, got ", *p.window);
  if (p.seqKv > uint64_t(INT32_MAX) || p.seqQ > uint64_t(INT32_MAX))
    return makeError("expected Sq and Skv below 2^31, got Sq = ", p.seqQ,
                     ", Skv = ", p.seqKv);
  for (uint64_t b = 0; p.kvLens && b < p.batch; ++b)
    if (p.kvLens[b] < 0 || uint64_t(p.kvLens[b]) > p.seqKv)
      return makeError("expected kv_lens[", b, "] in [0, Skv = ", p.seqKv,
                       "], got ", p.kvLens[b]);
  return Error::success();
}

/// Where key j of query i of sequence b is: its row of k and v (arrays of
/// rows of Hkv x D and Hkv x Dv values), or -1 when the query does not see
/// it.
using KeyRowFn =
    std::function<int64_t(uint64_t b, uint64_t i, int64_t pos, int64_t j)>;

/// The formulas of docs/Attention.md on the exact input values (p.q, p.k
/// and p.v are not read), key j < L_b of query i at row keyRow(b, i, pos,
/// j) (pos: the query's position L_b - Sq + i).
AttentionResult attentionF64(const AttentionProblem &p,
                             const std::vector<double> &q,
                             const std::vector<double> &k,
                             const std::vector<double> &v,
                             const KeyRowFn &keyRow) {
  const uint64_t B = p.batch, Sq = p.seqQ, Skv = p.seqKv, Hq = p.headsQ,
                 Hkv = p.headsKv, D = p.headDim, Dv = p.headDimV;
  AttentionResult r;
  r.o.assign(B * Sq * Hq * Dv, 0.0);
  r.oRms.assign(B * Sq * Hq * Dv, 0.0);
  r.lse.assign(B * Hq * Sq, 0.0);
  const uint64_t group = Hq / Hkv;
  std::vector<double> s(Skv);
  std::vector<int64_t> rowOf(Skv);
  for (uint64_t b = 0; b < B; ++b) {
    // L_b: the valid keys of sequence b.
    const int64_t L = p.kvLens ? p.kvLens[b] : int64_t(Skv);
    for (uint64_t h = 0; h < Hq; ++h) {
      const uint64_t hk = h / group; // the KV head of query head h
      for (uint64_t i = 0; i < Sq; ++i) {
        // Bottom-right alignment: the last query sits at position L - 1.
        const int64_t pos = L - int64_t(Sq) + int64_t(i);
        const double *qi = &q[((b * Sq + i) * Hq + h) * D];
        // m = max(max over visible j of s_ij, sink_h).
        double m = -INFINITY;
        if (p.sink)
          m = p.sink[h];
        bool any = false;
        for (int64_t j = 0; j < L; ++j) {
          rowOf[j] = keyRow(b, i, pos, j);
          if (rowOf[j] < 0)
            continue;
          const double *kj = &k[(uint64_t(rowOf[j]) * Hkv + hk) * D];
          double dot = 0;
          for (uint64_t d = 0; d < D; ++d)
            dot += qi[d] * kj[d];
          s[j] = p.softmaxScale * dot;
          m = std::max(m, s[j]);
          any = true;
        }
        double *oi = &r.o[((b * Sq + i) * Hq + h) * Dv];
        double *ai = &r.oRms[((b * Sq + i) * Hq + h) * Dv];
        double &lse = r.lse[(b * Hq + h) * Sq + i];
        if (m == -INFINITY) {
          // No visible key and no (finite) sink: O = 0, LSE = -inf.
          lse = -INFINITY;
          continue;
        }
        // Z = sum over visible j of exp(s_ij - m) [+ exp(sink_h - m)].
        double z = p.sink ? std::exp(p.sink[h] - m) : 0.0;
        for (int64_t j = 0; any && j < L; ++j) {
          if (rowOf[j] < 0)
            continue;
          const double w = std::exp(s[j] - m);
          z += w;
          const double *vj = &v[(uint64_t(rowOf[j]) * Hkv + hk) * Dv];
          for (uint64_t d = 0; d < Dv; ++d) {
            oi[d] += w * vj[d];
            ai[d] += (w * vj[d]) * (w * vj[d]);
          }
        }
        for (uint64_t d = 0; d < Dv; ++d) {
          oi[d] /= z;
          ai[d] = std::sqrt(ai[d]) / z;
        }
        lse = m + std::log(z);
      }
    }
  }
  return r;
}

/// The dense key rows: key j of sequence b is row b * Skv + j, visible
/// under the causal and window masks.
AttentionResult attentionDenseF64(const AttentionProblem &p,
                                  const std::vector<double> &q,
                                  const std::vector<double> &k,
                                  const std::vector<double> &v) {
  return attentionF64(
      p, q, k, v, [&](uint64_t b, uint64_t, int64_t pos, int64_t j) {
        bool visible =
            (!p.causal || j <= pos) && (!p.window || pos - j < *p.window);
        return visible ? int64_t(b * p.seqKv) + j : int64_t(-1);
      });
}

} // namespace

Expected<AttentionResult>
nvfp4::rt::attentionReference(const AttentionProblem &p) {
  if (p.type != ElemType::BF16 && p.type != ElemType::F16)
    return makeError("expected bf16 or f16 attention inputs, got ",
                     stringify(p.type));
  if (!p.q || !p.k || !p.v)
    return makeError("expected q, k and v data");
  if (Error e = checkAttention(p))
    return std::move(e);
  const uint64_t B = p.batch, Sq = p.seqQ, Skv = p.seqKv, Hq = p.headsQ,
                 Hkv = p.headsKv, D = p.headDim, Dv = p.headDimV;
  return attentionDenseF64(p, decode(p.q, B * Sq * Hq * D, p.type),
                      decode(p.k, B * Skv * Hkv * D, p.type),
                      decode(p.v, B * Skv * Hkv * Dv, p.type));
}

namespace {

/// Stores O and the LSE at operands `at` and `at + 1`, and oRms at `at +
/// 2` when the caller passed that one more operand (the NVFP4-output
/// references of Nvfp4Reference.cpp do).
void storeResult(std::vector<std::vector<double>> &ops, size_t at,
                 AttentionResult &&r) {
  ops[at] = std::move(r.o);
  ops[at + 1] = std::move(r.lse);
  if (ops.size() > at + 2)
    ops[at + 2] = std::move(r.oRms);
}

/// The sizes and options of an attention registry entry; kv_lens and the
/// sink from operands `sinkOp` and `lensOp` (into `sink` and `lens`).
Error attentionProblem(const std::map<std::string, uint64_t> &sizes,
                       const ReferenceOptions &options,
                       const std::vector<std::vector<double>> &ops,
                       size_t sinkOp, size_t lensOp, AttentionProblem &p,
                       std::vector<float> &sink, std::vector<int32_t> &lens) {
  p.batch = sizes.at("b");
  p.seqQ = sizes.at("sq");
  p.seqKv = sizes.at("skv");
  p.headsQ = sizes.at("hq");
  p.headsKv = sizes.at("hkv");
  p.headDim = sizes.at("d");
  p.headDimV = sizes.at("dv");
  auto scale = options.find("softmax_scale");
  if (scale == options.end())
    return makeError("attention: option softmax_scale is required");
  p.softmaxScale = scale->second;
  auto causal = options.find("causal");
  p.causal = causal != options.end() && causal->second != 0;
  auto window = options.find("window");
  if (window != options.end()) {
    double w = window->second;
    if (!(w >= 1) || w != std::floor(w) || w > double(INT64_MAX / 2))
      return makeError("attention: expected window to be an integer >= 1, "
                       "got ",
                       w);
    p.window = int64_t(w);
  }
  sink.assign(ops[sinkOp].begin(), ops[sinkOp].end());
  lens.assign(ops[lensOp].size(), 0);
  for (size_t b = 0; b < lens.size(); ++b) {
    double l = ops[lensOp][b];
    if (!(l >= 0) || l > double(INT32_MAX) || l != std::floor(l))
      return makeError("attention: expected kv_lens[", b,
                       "] to be a length, got ", l);
    lens[b] = int32_t(l);
  }
  // An absent operand (the harness's `absent`) arrives empty.
  p.sink = ops[sinkOp].empty() ? nullptr : sink.data();
  p.kvLens = ops[lensOp].empty() ? nullptr : lens.data();
  return Error::success();
}

/// The registry entry "attention": operands q, k, v, sink, kv_lens, o, lse
/// (Check.h's shapes), options softmax_scale, causal, window.
Error attentionCompute(const std::map<std::string, uint64_t> &sizes,
                       const ReferenceOptions &options,
                       std::vector<std::vector<double>> &ops) {
  AttentionProblem p;
  std::vector<float> sink;
  std::vector<int32_t> lens;
  if (Error e = attentionProblem(sizes, options, ops, 3, 4, p, sink, lens))
    return e;
  if (Error e = checkAttention(p))
    return std::move(e).withContext("attention");
  AttentionResult r = attentionDenseF64(p, ops[0], ops[1], ops[2]);
  storeResult(ops, 5, std::move(r));
  return Error::success();
}

/// Block-table entries as int32 (a non-integer or out-of-range double
/// becomes -1, which checkPagedInputs rejects).
std::vector<int32_t> tableOf(const std::vector<double> &t) {
  std::vector<int32_t> out(t.size());
  for (size_t i = 0; i < t.size(); ++i)
    out[i] = t[i] == std::floor(t[i]) && t[i] >= INT32_MIN &&
                     t[i] <= INT32_MAX
                 ? int32_t(t[i])
                 : -1;
  return out;
}

/// kv_lens as int32 for checkPagedInputs (empty: absent).
std::vector<int32_t> lensOf(const std::vector<double> &l) {
  std::vector<int32_t> out(l.size());
  for (size_t i = 0; i < l.size(); ++i)
    out[i] = l[i] >= 0 && l[i] <= INT32_MAX ? int32_t(l[i]) : -1;
  return out;
}

/// "attention_paged" operands: q, k, v, sink, kv_lens, block_table, o, lse.
Error pagedValidate(const std::map<std::string, uint64_t> &sizes,
                    const std::vector<std::vector<double>> &ops) {
  std::vector<int32_t> lens = lensOf(ops[4]), table = tableOf(ops[5]);
  return checkPagedInputs(sizes.at("b"), sizes.at("np"), sizes.at("ps"),
                          sizes.at("mp"), lens.empty() ? nullptr : lens.data(),
                          table.data());
}

/// The paged entry: gathers each sequence's keys through the block table
/// into a contiguous [B, MaxPages x PageSize] cache, then the formulas of
/// "attention".
Error pagedCompute(const std::map<std::string, uint64_t> &sizes,
                   const ReferenceOptions &options,
                   std::vector<std::vector<double>> &ops) {
  if (Error e = pagedValidate(sizes, ops))
    return std::move(e).withContext("attention_paged");
  AttentionProblem p;
  std::vector<float> sink;
  std::vector<int32_t> lens;
  if (Error e = attentionProblem(sizes, options, ops, 3, 4, p, sink, lens))
    return std::move(e).withContext("attention_paged");
  const uint64_t ps = sizes.at("ps"), mp = sizes.at("mp");
  p.seqKv = mp * ps;
  if (Error e = checkAttention(p))
    return std::move(e).withContext("attention_paged");
  std::vector<int32_t> table = tableOf(ops[5]);
  // Rows past a sequence's length are not read by the formulas; gather
  // only the pages in use, zeros elsewhere.
  auto gather = [&](const std::vector<double> &cache, uint64_t dim) {
    const uint64_t row = p.headsKv * dim;
    std::vector<double> out(p.batch * p.seqKv * row, 0.0);
    for (uint64_t b = 0; b < p.batch; ++b) {
      uint64_t len = p.kvLens ? uint64_t(p.kvLens[b]) : p.seqKv;
      for (uint64_t j = 0; j < len; ++j) {
        uint64_t page = uint64_t(table[b * mp + j / ps]);
        std::copy_n(&cache[(page * ps + j % ps) * row], row,
                    &out[(b * p.seqKv + j) * row]);
      }
    }
    return out;
  };
  AttentionResult r = attentionDenseF64(p, ops[0], gather(ops[1], p.headDim),
                                        gather(ops[2], p.headDimV));
  storeResult(ops, 6, std::move(r));
  return Error::success();
}

/// One key set's sparse inputs: the indices (operand `ii`, named `name`)
/// integers and -1 or slots in [0, slots) wherever the top-k lengths
/// (operand `li`, empty: all of `topk`) reach (rt::checkSparseInputs).
Error checkSparseOperands(const std::map<std::string, uint64_t> &sizes,
                          const std::vector<std::vector<double>> &ops,
                          size_t li, size_t ii, uint64_t topk, uint64_t slots,
                          const std::string &name) {
  std::vector<int32_t> lens = lensOf(ops[li]), idx = tableOf(ops[ii]);
  // tableOf maps a non-integer to -1, a valid index: name it here.
  for (size_t e = 0; e < ops[ii].size(); ++e)
    if (ops[ii][e] != std::floor(ops[ii][e]))
      return makeError(name, "[", e, "] = ", ops[ii][e], " is not an integer");
  return checkSparseInputs(sizes.at("b"), sizes.at("sq"), topk, slots,
                           lens.empty() ? nullptr : lens.data(), idx.data());
}

/// "attention_sparse" operands: q, k, v, sink, kv_lens, indices, o, lse.
Error sparseValidate(const std::map<std::string, uint64_t> &sizes,
                     const std::vector<std::vector<double>> &ops) {
  return checkSparseOperands(sizes, ops, 4, 5, sizes.at("topk"),
                             sizes.at("np") * sizes.at("ps"), "indices");
}

/// The sparse entry: key t of query i of sequence b is slot
/// indices[b, i, t] of the cache (k and v as [NumPages x PageSize] rows),
/// unseen when -1 or t >= kv_lens[b].
Error sparseCompute(const std::map<std::string, uint64_t> &sizes,
                    const ReferenceOptions &options,
                    std::vector<std::vector<double>> &ops) {
  if (Error e = sparseValidate(sizes, ops))
    return std::move(e).withContext("attention_sparse");
  AttentionProblem p;
  std::vector<float> sink;
  std::vector<int32_t> lens;
  if (Error e = attentionProblem(sizes, options, ops, 3, 4, p, sink, lens))
    return std::move(e).withContext("attention_sparse");
  p.seqKv = sizes.at("topk");
  if (p.causal || p.window)
    return makeError("attention_sparse: causal and window do not apply to "
                     "sparse top-k attention");
  if (Error e = checkAttention(p))
    return std::move(e).withContext("attention_sparse");
  const std::vector<int32_t> idx = tableOf(ops[5]);
  AttentionResult r = attentionF64(
      p, ops[0], ops[1], ops[2],
      [&](uint64_t b, uint64_t i, int64_t, int64_t j) {
        return int64_t(idx[(b * p.seqQ + i) * p.seqKv + uint64_t(j)]);
      });
  storeResult(ops, 6, std::move(r));
  return Error::success();
}

/// A cache entry's second key set (operands 5-7: kv2, kv_lens2, indices2),
/// when present.
bool hasExtra(const std::vector<std::vector<double>> &ops) {
  return !ops[5].empty();
}

/// A cache entry: the pages' bytes (u8 operands 1 and 5) and the sizes
/// agree with the layout, and the indices are -1 or slots.
Error cacheValidate(const KvCacheFormat &f,
                    const std::map<std::string, uint64_t> &sizes,
                    const std::vector<std::vector<double>> &ops) {
  if (sizes.at("rb") != uint64_t(f.rowBytes) ||
      sizes.at("d") != uint64_t(f.headDim) ||
      sizes.at("dv") != uint64_t(f.headDimV) || sizes.at("hkv") != 1)
    return makeError("a ", f.name, " cache has rows of ", f.rowBytes,
                     " bytes, D = ", f.headDim, ", Dv = ", f.headDimV,
                     " and one KV head; got rows of ", sizes.at("rb"),
                     " bytes, D = ", sizes.at("d"), ", Dv = ", sizes.at("dv"),
                     ", Hkv = ", sizes.at("hkv"));
  for (const char *sfx : {"", "2"}) {
    const std::string s = sfx;
    if (s == "2" && !hasExtra(ops))
      break;
    const uint64_t ps = sizes.at("ps" + s),
                   pb = sizes.at("rpp" + s) * sizes.at("rb");
    if (ps < 1 || pb != uint64_t(f.pageBytes(int64_t(ps))))
      return makeError("a ", f.name, " cache of pages of ", ps,
                       " tokens has pages of ", f.pageBytes(int64_t(ps)),
                       " bytes; got ", pb, s.empty() ? "" : " (kv2)");
    if (Error e = checkSparseOperands(
            sizes, ops, s.empty() ? 3 : 6, s.empty() ? 4 : 7,
            sizes.at("topk" + s), sizes.at("np" + s) * ps, "indices" + s))
      return s.empty() ? std::move(e)
                       : std::move(e).withContext("extra (indices2)");
  }
  return Error::success();
}

/// A cache entry: every slot dequantized by the layout (exact), then the
/// sparse formulas over the union of the two key sets (main keys t < L_b,
/// then the extra keys t < L2_b); K is the whole row, V its first Dv
/// values.
Error cacheCompute(const KvCacheFormat &f,
                   const std::map<std::string, uint64_t> &sizes,
                   const ReferenceOptions &options,
                   std::vector<std::vector<double>> &ops) {
  const std::string where = std::string("attention_sparse_") + f.name;
  if (Error e = cacheValidate(f, sizes, ops))
    return std::move(e).withContext(where);
  AttentionProblem p;
  std::vector<float> sink;
  std::vector<int32_t> lens;
  if (Error e = attentionProblem(sizes, options, ops, 2, 3, p, sink, lens))
    return std::move(e).withContext(where);
  const bool extra = hasExtra(ops);
  const uint64_t topk = sizes.at("topk"),
                 topk2 = extra ? sizes.at("topk2") : 0;
  p.seqKv = topk + topk2;
  p.kvLens = nullptr; // the lengths are applied per key set below
  if (p.causal || p.window)
    return makeError(where, ": causal and window do not apply to sparse "
                            "top-k attention");
  if (Error e = checkAttention(p))
    return std::move(e).withContext(where);
  const uint64_t D = p.headDim, Dv = p.headDimV, rb = sizes.at("rb");
  // The slots of both caches, dequantized: the main cache's, then kv2's.
  std::vector<double> k, v;
  auto decodeCache = [&](size_t op, uint64_t np, uint64_t ps, uint64_t pb) {
    std::vector<uint8_t> bytes(ops[op].size());
    for (size_t i = 0; i < bytes.size(); ++i)
      bytes[i] = uint8_t(ops[op][i]);
    const size_t base = k.size() / D;
    k.resize((base + np * ps) * D);
    v.resize((base + np * ps) * Dv);
    for (uint64_t s = 0; s < np * ps; ++s) {
      f.decodeToken(bytes.data() + (s / ps) * pb, int64_t(ps),
                    int64_t(s % ps), &k[(base + s) * D]);
      std::copy_n(&k[(base + s) * D], Dv, &v[(base + s) * Dv]);
    }
  };
  const uint64_t slots1 = sizes.at("np") * sizes.at("ps");
  decodeCache(1, sizes.at("np"), sizes.at("ps"), sizes.at("rpp") * rb);
  if (extra)
    decodeCache(5, sizes.at("np2"), sizes.at("ps2"), sizes.at("rpp2") * rb);
  const std::vector<int32_t> idx = tableOf(ops[4]);
  const std::vector<int32_t> idx2 = extra ? tableOf(ops[7])
                                          : std::vector<int32_t>();
  const std::vector<int32_t> l2 = lensOf(ops[6]);
  AttentionResult r = attentionF64(
      p, ops[0], k, v, [&](uint64_t b, uint64_t i, int64_t, int64_t j) {
        if (uint64_t(j) < topk) {
          int64_t len = lens.empty() ? int64_t(topk) : lens[b];
          return j < len ? int64_t(idx[(b * p.seqQ + i) * topk + j])
                         : int64_t(-1);
        }
        const int64_t t = j - int64_t(topk);
        int64_t len = l2.empty() ? int64_t(topk2) : l2[b];
        if (t >= len)
          return int64_t(-1);
        int32_t s = idx2[(b * p.seqQ + i) * topk2 + uint64_t(t)];
        return s < 0 ? int64_t(-1) : int64_t(slots1) + s;
      });
  storeResult(ops, 8, std::move(r));
  return Error::success();
}

} // namespace

namespace {

/// "attention_merge": operands o1, lse1, o2, lse2, sink, o, lse. Per row:
/// m = max(lse1, lse2, sink), Z = sum e^(x - m), O = sum e^(lse_k - m) o_k
/// / Z, LSE = m + ln Z; (0, -inf) when every term is -inf.
Error mergeCompute(const std::map<std::string, uint64_t> &sizes,
                   const ReferenceOptions &,
                   std::vector<std::vector<double>> &ops) {
  const uint64_t B = sizes.at("b"), Sq = sizes.at("sq"), Hq = sizes.at("hq"),
                 Dv = sizes.at("dv");
  const std::vector<double> &sink = ops[4];
  ops[5].assign(B * Sq * Hq * Dv, 0.0);
  ops[6].assign(B * Hq * Sq, 0.0);
  for (uint64_t b = 0; b < B; ++b)
    for (uint64_t i = 0; i < Sq; ++i)
      for (uint64_t h = 0; h < Hq; ++h) {
        uint64_t l = (b * Hq + h) * Sq + i, o = ((b * Sq + i) * Hq + h) * Dv;
        double l1 = ops[1][l], l2 = ops[3][l];
        double s = sink.empty() ? -INFINITY : sink[h];
        double m = std::max({l1, l2, s});
        if (m == -INFINITY) {
          ops[6][l] = -INFINITY;
          continue;
        }
        double w1 = std::exp(l1 - m), w2 = std::exp(l2 - m);
        double z = w1 + w2 + std::exp(s - m);
        for (uint64_t d = 0; d < Dv; ++d)
          ops[5][o + d] = (w1 * ops[0][o + d] + w2 * ops[2][o + d]) / z;
        ops[6][l] = m + std::log(z);
      }
  return Error::success();
}

} // namespace

Error nvfp4::rt::checkPagedInputs(uint64_t batch, uint64_t numPages,
                                  uint64_t pageSize, uint64_t maxPages,
                                  const int32_t *kvLens,
                                  const int32_t *blockTable) {
  const uint64_t capacity = maxPages * pageSize;
  for (uint64_t b = 0; b < batch; ++b) {
    int64_t len = kvLens ? kvLens[b] : int64_t(capacity);
    if (len < 0 || uint64_t(len) > capacity)
      return makeError("sequence ", b, ": kv_lens[", b, "] = ", len,
                       " is outside [0, ", capacity,
                       "] (the block table holds ", maxPages,
                       " pages of ", pageSize, " keys per sequence)");
    uint64_t used = (uint64_t(len) + pageSize - 1) / pageSize;
    for (uint64_t j = 0; j < used; ++j) {
      int32_t e = blockTable[b * maxPages + j];
      if (e < 0 || uint64_t(e) >= numPages)
        return makeError("sequence ", b, ": block_table[", b, ", ", j,
                         "] = ", e, " is outside [0, ", numPages,
                         ") (the cache's pages)");
    }
  }
  return Error::success();
}

Error nvfp4::rt::checkSparseInputs(uint64_t batch, uint64_t seqQ,
                                   uint64_t topk, uint64_t slots,
                                   const int32_t *kvLens,
                                   const int32_t *indices) {
  for (uint64_t b = 0; b < batch; ++b) {
    int64_t len = kvLens ? kvLens[b] : int64_t(topk);
    if (len < 0 || uint64_t(len) > topk)
      return makeError("sequence ", b, ": kv_lens[", b, "] = ", len,
                       " (its top-k length) is outside [0, ", topk,
                       "] (the index rows' length)");
    for (uint64_t i = 0; i < seqQ; ++i)
      for (uint64_t t = 0; t < uint64_t(len); ++t) {
        int32_t e = indices[(b * seqQ + i) * topk + t];
        if (e < -1 || (e >= 0 && uint64_t(e) >= slots))
          return makeError("sequence ", b, ", query ", i, ": indices[", b,
                           ", ", i, ", ", t, "] = ", e,
                           " is neither -1 nor a slot in [0, ", slots,
                           ") (the cache's pages x page size)");
      }
  }
  return Error::success();
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
