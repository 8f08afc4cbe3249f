//===- Nvfp4Reference.cpp - the NVFP4 references of nvfp4-run -------------===//
//
// nvfp4_quantize (tensor scale given), nvfp4_quantize_amax (computed from
// the amax and returned) and nvfp4_dequantize, computed block by block
// with nvfp4/Support/Nvfp4Format.h (the independent reference quantizer,
// docs/NVFP4.md). The outputs are bytes (u8) or values rounded to the
// output type, compared exactly: PASS needs every byte equal.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Runtime/Check.h"
#include "nvfp4/Runtime/Fill.h"
#include "nvfp4/Support/Nvfp4Format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

using namespace nvfp4;
using namespace nvfp4::rt;

namespace {

/// The thresholds of a dequantized NVFP4 attention output against float64
/// (docs/NVFP4.md, "NVFP4 attention output"): NVFP4 alone has rel-RMSE
/// about 0.095 on N(0, 1)-like data (shared/reference/nvfp4.md, section 4).
constexpr double kNvfp4OutRelL2 = 0.15;
constexpr double kNvfp4OutMinCos = 0.99;

/// Every element equal (the outputs are bytes, or values rounded to the
/// output type by the reference itself).
Tolerance exact() {
  Tolerance t;
  t.relL2 = 0;
  t.maxAbs = 0;
  return t;
}

struct Layout {
  fp4::SfLayout layout;
  uint64_t batch, m, k, sfRows, sfCols;
  uint64_t sfIndex(uint64_t b, uint64_t r, uint64_t kb) const {
    return b * sfRows * sfCols +
           uint64_t(fp4::sfOffset(layout, int64_t(r), int64_t(kb), int64_t(k)));
  }
};

Expected<Layout> layoutOf(const std::map<std::string, uint64_t> &sizes,
                          const ReferenceOptions &options) {
  Layout l;
  double opt = options.count("sf_layout") ? options.at("sf_layout") : 0;
  if (opt != 0 && opt != 1)
    return makeError("option sf_layout: expected 0 (swizzled) or 1 "
                     "(row_major), found ",
                     opt);
  l.layout = opt == 0 ? fp4::SfLayout::Swizzled : fp4::SfLayout::RowMajor;
  l.batch = sizes.at("b");
  l.m = sizes.at("m");
  l.k = sizes.at("k");
  if (l.k % 16 != 0 || sizes.at("kh") * 2 != l.k)
    return makeError("sizes: expected k a multiple of 16 and kh = k / 2, "
                     "found k = ",
                     l.k, ", kh = ", sizes.at("kh"));
  l.sfRows = uint64_t(fp4::sfRows(l.layout, int64_t(l.m)));
  l.sfCols = uint64_t(fp4::sfCols(l.layout, int64_t(l.k)));
  if (sizes.at("sfn") != l.batch * l.sfRows * l.sfCols)
    return makeError("size sfn: expected ", l.batch * l.sfRows * l.sfCols,
                     " scale factors for this layout, found ",
                     sizes.at("sfn"));
  return l;
}

/// Operands x, gs, data, sf. `computeScale`: gs is an output, computed
/// from the amax of the finite and infinite values (NaN left out).
Error quantizeCompute(const std::map<std::string, uint64_t> &sizes,
                      const ReferenceOptions &options,
                      std::vector<std::vector<double>> &ops,
                      bool computeScale) {
  Expected<Layout> l = layoutOf(sizes, options);
  if (!l)
    return l.takeError();
  auto flag = [&](const char *name) -> Expected<bool> {
    double v = options.count(name) ? options.at(name) : 0;
    if (v != 0 && v != 1)
      return makeError("option ", name, ": expected 0 or 1, found ", v);
    return v == 1;
  };
  Expected<bool> exactRecipe = flag("recipe"), ignoreNan = flag("nan");
  if (!exactRecipe)
    return exactRecipe.takeError();
  if (!ignoreNan)
    return ignoreNan.takeError();
  const std::vector<double> &x = ops[0];
  float gs;
  if (computeScale) {
    float amax = 0;
    for (double v : x)
      if (!std::isnan(v))
        amax = std::fmax(amax, float(std::fabs(v)));
    gs = fp4::encodeScaleFromAmax(amax);
    ops[1][0] = gs;
  } else {
    gs = float(ops[1][0]);
  }
  std::vector<double> &data = ops[2], &sf = ops[3];
  const uint64_t blocks = l->k / 16;
  for (uint64_t b = 0; b < l->batch; ++b)
    for (uint64_t r = 0; r < l->m; ++r)
      for (uint64_t kb = 0; kb < blocks; ++kb) {
        float xs[16];
        const double *src = &x[((b * l->m + r) * l->k) + kb * 16];
        for (int i = 0; i < 16; ++i)
          xs[i] = float(src[i]);
        fp4::Block blk = fp4::quantizeBlock(
            xs, gs, *exactRecipe ? fp4::Recipe::Exact : fp4::Recipe::Fast,
            *ignoreNan ? fp4::NanPolicy::Ignore : fp4::NanPolicy::Propagate);
        double *dst = &data[(b * l->m + r) * (l->k / 2) + kb * 8];
        for (int i = 0; i < 8; ++i)
          dst[i] = double(blk.codes[2 * i] | (blk.codes[2 * i + 1] << 4));
        sf[l->sfIndex(b, r, kb)] = blk.sf;
      }
  return Error::success();
}

/// Rounds v to the output type: 0 f32, 1 bf16, 2 f16.
double roundTo(float v, int type) {
  if (type == 0)
    return v;
  std::vector<uint8_t> bytes(2);
  uint16_t h = type == 1 ? floatToBF16(v) : floatToF16(v);
  std::memcpy(bytes.data(), &h, 2);
  return decode(bytes.data(), 1, type == 1 ? ElemType::BF16 : ElemType::F16)[0];
}

/// Operands data, sf, gs, y.
Error dequantizeCompute(const std::map<std::string, uint64_t> &sizes,
                        const ReferenceOptions &options,
                        std::vector<std::vector<double>> &ops) {
  Expected<Layout> l = layoutOf(sizes, options);
  if (!l)
    return l.takeError();
  double type = options.count("round_to") ? options.at("round_to") : 0;
  if (type != 0 && type != 1 && type != 2)
    return makeError("option round_to: expected 0 (f32), 1 (bf16) or 2 "
                     "(f16), found ",
                     type);
  const std::vector<double> &data = ops[0], &sf = ops[1];
  float gs = float(ops[2][0]);
  std::vector<double> &y = ops[3];
  for (uint64_t b = 0; b < l->batch; ++b)
    for (uint64_t r = 0; r < l->m; ++r)
      for (uint64_t c = 0; c < l->k; ++c) {
        uint8_t byte = uint8_t(data[(b * l->m + r) * (l->k / 2) + c / 2]);
        uint8_t code = (c % 2) ? byte >> 4 : byte & 0xf;
        uint8_t scale = uint8_t(sf[l->sfIndex(b, r, c / 16)]);
        y[(b * l->m + r) * l->k + c] =
            roundTo(fp4::dequantize(code, scale, gs), int(type));
      }
  return Error::success();
}

/// The dequantized rows [row0, row0 + rows) of an NVFP4 operand: `data`
/// bytes at `dataOff` (rows of k / 2), swizzled scale factors at `sfOff`
/// (the row index r counts from the start of that scale-factor tensor).
std::vector<double> dequantRows(const std::vector<double> &data,
                                uint64_t dataOff, const std::vector<double> &sf,
                                uint64_t sfOff, double gs, uint64_t row0,
                                uint64_t rows, uint64_t k) {
  std::vector<double> out(rows * k);
  for (uint64_t r = 0; r < rows; ++r)
    for (uint64_t c = 0; c < k; ++c) {
      uint8_t byte = uint8_t(data[dataOff + (row0 + r) * (k / 2) + c / 2]);
      uint8_t code = (c % 2) ? byte >> 4 : byte & 0xf;
      uint8_t scale = uint8_t(sf[sfOff + uint64_t(fp4::sfOffset(
                                             fp4::SfLayout::Swizzled,
                                             int64_t(row0 + r), int64_t(c / 16),
                                             int64_t(k)))]);
      out[r * k + c] = double(fp4::decodeE2M1(code)) *
                       double(fp4::decodeE4M3(scale)) / gs;
    }
  return out;
}

Expected<int> roundToOption(const ReferenceOptions &options) {
  double type = options.count("round_to") ? options.at("round_to") : 0;
  if (type != 0 && type != 1)
    return makeError("option round_to: expected 0 (f32) or 1 (bf16), found ",
                     type);
  return int(type);
}

/// D rows = A rows x B^T (both dequantized, [rows x k] and [n x k]),
/// rounded to the output type, stored from `dOff` (rows of n).
void gemmRows(const std::vector<double> &a, const std::vector<double> &b,
              uint64_t rows, uint64_t n, uint64_t k, int type,
              std::vector<double> &d, uint64_t dOff) {
  for (uint64_t i = 0; i < rows; ++i)
    for (uint64_t j = 0; j < n; ++j) {
      double acc = 0;
      for (uint64_t c = 0; c < k; ++c)
        acc += a[i * k + c] * b[j * k + c];
      // bf16: rounded through f32, as the kernel's f32 result is.
      d[dOff + i * n + j] = type == 0 ? acc : roundTo(float(acc), 1);
    }
}

Error checkK(const std::map<std::string, uint64_t> &sizes) {
  const uint64_t k = sizes.at("k");
  if (k % 16 != 0 || sizes.at("kh") * 2 != k)
    return makeError("sizes: expected k a multiple of 16 and kh = k / 2, "
                     "found k = ",
                     k, ", kh = ", sizes.at("kh"));
  return Error::success();
}

/// Operands a, sfa, gsa, b, sfb, gsb, d: D = deq(A) deq(B)^T in float64,
/// the scale factors in the swizzled layout (viewed as [tiles, 4 Kt, 128]).
Error matmulCompute(const std::map<std::string, uint64_t> &sizes,
                    const ReferenceOptions &options,
                    std::vector<std::vector<double>> &ops) {
  if (Error e = checkK(sizes))
    return e;
  Expected<int> type = roundToOption(options);
  if (!type)
    return type.takeError();
  const uint64_t m = sizes.at("m"), n = sizes.at("n"), k = sizes.at("k");
  std::vector<double> a = dequantRows(ops[0], 0, ops[1], 0, ops[2][0], 0, m, k);
  std::vector<double> b = dequantRows(ops[3], 0, ops[4], 0, ops[5][0], 0, n, k);
  gemmRows(a, b, m, n, k, *type, ops[6], 0);
  return Error::success();
}

/// Grouped: operands a, sfa, gsa [e], b [e, n, kh], sfb [e, nt, kq, 128],
/// gsb [e], sizes [e], d (inout). Contiguous: group g's rows start at the
/// sum of the earlier groups' rows rounded up to 128 each; masked: A, its
/// scale factors and D have a leading group dimension.
Error groupedValidate(bool masked, const std::map<std::string, uint64_t> &sizes,
                      const std::vector<std::vector<double>> &ops) {
  const uint64_t e = sizes.at("e"), m = sizes.at("m");
  uint64_t start = 0;
  for (uint64_t g = 0; g < e; ++g) {
    double rows = ops[6][g];
    if (rows < 0 || (masked && rows > double(m)))
      return makeError("sizes[", g, "] = ", rows, ": group ", g,
                       masked ? " must have between 0 and max_m = "
                              : " must have at least 0 rows",
                       masked ? std::to_string(m) : std::string(), " rows");
    if (!masked) {
      if (start + uint64_t(rows) > m)
        return makeError("sizes[", g, "] = ", rows, ": group ", g,
                         " starts at row ", start, " (every group starts on "
                         "a 128-row boundary) and overruns M = ",
                         m);
      start += (uint64_t(rows) + 127) / 128 * 128;
    }
  }
  return Error::success();
}

Error groupedCompute(bool masked, const std::map<std::string, uint64_t> &sizes,
                     const ReferenceOptions &options,
                     std::vector<std::vector<double>> &ops) {
  if (Error e = checkK(sizes))
    return e;
  if (Error e = groupedValidate(masked, sizes, ops))
    return e;
  Expected<int> type = roundToOption(options);
  if (!type)
    return type.takeError();
  const uint64_t e = sizes.at("e"), m = sizes.at("m"), n = sizes.at("n"),
                 k = sizes.at("k");
  const uint64_t aSfPerGroup = sizes.at("mt") * sizes.at("kq") * 128;
  const uint64_t bSfPerGroup = sizes.at("nt") * sizes.at("kq") * 128;
  uint64_t start = 0;
  for (uint64_t g = 0; g < e; ++g) {
    const uint64_t rows = uint64_t(ops[6][g]);
    std::vector<double> a =
        masked ? dequantRows(ops[0], g * m * (k / 2), ops[1], g * aSfPerGroup,
                             ops[2][g], 0, rows, k)
               : dequantRows(ops[0], 0, ops[1], 0, ops[2][g], start, rows, k);
    std::vector<double> b = dequantRows(ops[3], g * n * (k / 2), ops[4],
                                        g * bSfPerGroup, ops[5][g], 0, n, k);
    gemmRows(a, b, rows, n, k, *type, ops[7],
             masked ? g * m * n : start * n);
    start += (rows + 127) / 128 * 128;
  }
  return Error::success();
}

/// The matmul's f32 output against float64: the bound.
Tolerance matmulTolerance() {
  Tolerance t;
  t.relL2 = 1e-5;
  return t;
}

/// A tensor scale filled with a random positive value.
ReferenceOperand gsRandom0(const char *name = "gsa") {
  ReferenceOperand gs{name, {"one"}, false};
  gs.fill = "encode_scale";
  return gs;
}

std::vector<ReferenceOption> layoutOptions() {
  return {{"sf_layout", false, "0 (swizzled 128x4, default) or 1 (row_major)"}};
}

//===----------------------------------------------------------------------===//
// Attention with an NVFP4 output (docs/NVFP4.md, "NVFP4 attention output")
//===----------------------------------------------------------------------===//

/// The float64 attention of `base` on the wrapper's inputs: O, the LSE and
/// AttentionResult::oRms.
struct AttentionF64 {
  std::vector<double> o, lse, oRms;
};
Expected<AttentionF64>
baseAttention(const Reference &base, size_t inputs,
              const std::map<std::string, uint64_t> &sizes,
              const ReferenceOptions &options,
              const std::vector<std::vector<double>> &ops) {
  uint64_t B = sizes.at("b"), Sq = sizes.at("sq"), Hq = sizes.at("hq"),
           Dv = sizes.at("dv");
  // The base's inputs are the wrapper's first `inputs` operands; then O,
  // the LSE and the oRms slot.
  std::vector<std::vector<double>> baseOps(ops.begin(), ops.begin() + inputs);
  baseOps.emplace_back(B * Sq * Hq * Dv, 0.0);
  baseOps.emplace_back(B * Hq * Sq, 0.0);
  baseOps.emplace_back();
  if (Error e = base.compute(sizes, options, baseOps))
    return std::move(e);
  AttentionF64 r;
  r.o = std::move(baseOps[inputs]);
  r.lse = std::move(baseOps[inputs + 1]);
  r.oRms = std::move(baseOps[inputs + 2]);
  return r;
}

/// O's geometry: tokens b * Sq + i as rows, Hq * Dv columns in blocks of 16.
struct OutGeometry {
  uint64_t tokens, cols, blocks, sfCols;
  explicit OutGeometry(const std::map<std::string, uint64_t> &sizes)
      : tokens(sizes.at("b") * sizes.at("sq")),
        cols(sizes.at("hq") * sizes.at("dv")), blocks(cols / 16),
        sfCols(uint64_t(fp4::sfCols(fp4::SfLayout::Swizzled, int64_t(cols)))) {
  }
  uint64_t sfIndex(uint64_t token, uint64_t block) const {
    return uint64_t(fp4::sfOffset(fp4::SfLayout::Swizzled, int64_t(token),
                                  int64_t(block), int64_t(cols)));
  }
};

/// The fast recipe's multiplier for scale-factor code `sf` (0 for a zero
/// or NaN scale factor: the codes then carry nothing).
float multiplierOf(uint8_t sf, float gs) {
  float v = fp4::decodeE4M3(sf);
  if (!(v > 0))
    return 0;
  return fp4::rcpApproxFtz(v * fp4::rcpApproxFtz(gs));
}

/// The kernel's rounding distance of one value of O (docs/NVFP4.md): the
/// kernel rounds each p_j to bf16 before P V, an independent relative
/// error of at most 2^-9 (standard deviation 2^-9 / sqrt(3)), so its O
/// differs from float64 by about N(0, sigma) with sigma = 2^-9 / sqrt(3) *
/// oRms; the distance is 4 * 2^-9 * oRms (about 7 sigma) plus a relative
/// 2^-20 for the f32 arithmetic.
double roundingDistance(double o, double oRms) {
  return 4 * 0x1p-9 * oRms + 0x1p-20 * std::fabs(o);
}

Error nvfp4OutCompute(const Reference &base, size_t inputs,
                      const std::map<std::string, uint64_t> &sizes,
                      const ReferenceOptions &options,
                      std::vector<std::vector<double>> &ops) {
  Expected<AttentionF64> r = baseAttention(base, inputs, sizes, options, ops);
  if (!r)
    return r.takeError();
  OutGeometry g(sizes);
  float gs = float(ops[inputs][0]);
  std::vector<double> &data = ops[inputs + 1], &sf = ops[inputs + 3];
  ops[inputs + 2] = r->lse;
  for (uint64_t t = 0; t < g.tokens; ++t)
    for (uint64_t kb = 0; kb < g.blocks; ++kb) {
      float xs[16];
      for (int i = 0; i < 16; ++i)
        xs[i] = float(r->o[t * g.cols + kb * 16 + i]);
      fp4::Block blk = fp4::quantizeBlock(xs, gs, fp4::Recipe::Fast,
                                          fp4::NanPolicy::Propagate);
      for (int i = 0; i < 8; ++i)
        data[t * g.cols / 2 + kb * 8 + i] =
            double(blk.codes[2 * i] | (blk.codes[2 * i + 1] << 4));
      sf[g.sfIndex(t, kb)] = blk.sf;
    }
  return Error::success();
}

/// The checks of an NVFP4 O (docs/NVFP4.md, "NVFP4 attention output"):
/// the dequantized O against float64 O; each block's scale factor against
/// the reference quantizer's on float64 O, except where the kernel's
/// rounding distance straddles an e4m3 rounding boundary; each code against
/// e2m1(o * multiplier of the kernel's scale factor), except where it
/// straddles an e2m1 one; and the LSE as the bf16 attention's.
Expected<std::vector<OutputCheck>>
nvfp4OutCheck(const Reference &base, size_t inputs,
              const std::map<std::string, uint64_t> &sizes,
              const ReferenceOptions &options,
              const std::vector<std::vector<double>> &ops,
              const std::vector<std::vector<double>> &kernel) {
  Expected<AttentionF64> r = baseAttention(base, inputs, sizes, options, ops);
  if (!r)
    return r.takeError();
  OutGeometry g(sizes);
  float gs = float(ops[inputs][0]);
  const std::vector<double> &data = kernel[inputs + 1],
                            &lse = kernel[inputs + 2],
                            &sf = kernel[inputs + 3];
  float r6 = fp4::rcpApproxFtz(fp4::kE2M1Max);
  auto sfCode = [&](double amax) {
    return fp4::encodeE4M3(gs * (float(amax) * r6));
  };
  std::vector<double> deq(g.tokens * g.cols);
  uint64_t sfNear = 0, sfDiffer = 0, codeNear = 0, codeDiffer = 0;
  for (uint64_t t = 0; t < g.tokens; ++t)
    for (uint64_t kb = 0; kb < g.blocks; ++kb) {
      const uint64_t c0 = t * g.cols + kb * 16;
      uint8_t ksf = uint8_t(sf[g.sfIndex(t, kb)]);
      // Scale factor: the reference's on float64 O, or undecidable when
      // the amax's rounding distance straddles an e4m3 boundary.
      double amax = 0, dist = 0;
      for (int i = 0; i < 16; ++i) {
        amax = std::max(amax, std::fabs(r->o[c0 + i]));
        dist = std::max(dist, roundingDistance(r->o[c0 + i], r->oRms[c0 + i]));
      }
      uint8_t lo = sfCode(std::max(0.0, amax - dist)), hi = sfCode(amax + dist);
      if (lo != hi)
        ++sfNear;
      else if (ksf != lo)
        ++sfDiffer;
      // Codes under the kernel's own scale factor.
      float mult = multiplierOf(ksf, gs);
      for (int i = 0; i < 16; ++i) {
        uint64_t c = c0 + uint64_t(i);
        uint8_t byte = uint8_t(data[c / 2]);
        uint8_t code = i % 2 ? byte >> 4 : byte & 0xF;
        deq[c] = fp4::dequantize(code, ksf, gs);
        double x = r->o[c], d = roundingDistance(x, r->oRms[c]);
        uint8_t cLo = fp4::encodeE2M1(float(x - d) * mult),
                cHi = fp4::encodeE2M1(float(x + d) * mult);
        // -0 and +0 are one value.
        auto value = [](uint8_t cd) { return fp4::decodeE2M1(cd); };
        if (value(cLo) != value(cHi))
          ++codeNear;
        else if (value(code) != value(cLo))
          ++codeDiffer;
      }
    }
  std::vector<OutputCheck> checks;
  auto add = [&](std::string name, std::string detail, bool pass,
                 std::string verdict, double score) {
    checks.push_back({std::move(name), std::move(detail), pass,
                      std::move(verdict), score});
  };
  Tolerance deqTol;
  deqTol.relL2 = kNvfp4OutRelL2;
  deqTol.minCos = kNvfp4OutMinCos;
  Metrics m = compare(deq, r->o);
  add("o", std::to_string(m.count) +
               " values dequantized (e2m1 * e4m3 / o_scale) vs float64 O",
      passes(m, deqTol), verdictLine(m, deqTol),
      passes(m, deqTol) ? m.relL2 / deqTol.relL2 : 0);
  auto counted = [&](const char *name, uint64_t n, uint64_t near,
                     const char *what, uint64_t differ) {
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "%llu %s, %llu within rounding distance of an %s boundary "
                  "(not compared)",
                  (unsigned long long)n, name, (unsigned long long)near, what);
    char v[128];
    std::snprintf(v, sizeof v, "%s differ=%llu of %llu", differ ? "FAIL" : "PASS",
                  (unsigned long long)differ,
                  (unsigned long long)(n - near));
    return std::pair<std::string, std::string>(buf, v);
  };
  auto [sfDetail, sfVerdict] = counted("blocks", g.tokens * g.blocks, sfNear,
                                       "e4m3", sfDiffer);
  add("o_sf", sfDetail, sfDiffer == 0, sfVerdict, 0);
  auto [cDetail, cVerdict] = counted("codes", g.tokens * g.cols, codeNear,
                                     "e2m1", codeDiffer);
  add("o codes", cDetail, codeDiffer == 0, cVerdict, 0);
  Tolerance lseTol = *base.operands[inputs + 1].tolerance;
  Metrics ml = compare(lse, r->lse);
  add("lse", std::to_string(ml.count) + " elements", passes(ml, lseTol),
      verdictLine(ml, lseTol),
      passes(ml, lseTol) ? ml.relL2 / lseTol.relL2 : 0);
  return checks;
}

/// NAME_nvfp4_out for the attention reference `base`: its inputs, the
/// encode scale o_scale, then o (e2m1 bytes), lse and o_sf (swizzled).
Reference nvfp4OutReference(const Reference &base) {
  Reference r;
  r.name = base.name + "_nvfp4_out";
  r.description = base.description + ", O as NVFP4 (o_scale, docs/NVFP4.md)";
  size_t inputs = 0;
  std::string vName;
  for (const ReferenceOperand &o : base.operands) {
    if (o.output)
      continue;
    r.operands.push_back(o);
    ++inputs;
    if (o.name == "v" || o.name == "kv")
      vName = o.name;
  }
  ReferenceOperand gs{"o_scale", {"one"}, false};
  gs.fill = "attention_o_scale";
  gs.fillOf = vName;
  r.operands.push_back(gs);
  r.operands.push_back({"o", {"b", "sq", "hq", "dvh"}, true});
  r.operands.push_back(base.operands[inputs + 1]); // lse
  r.operands.push_back({"o_sf", {"sfn"}, true});
  r.options = base.options;
  r.validate = base.validate;
  // Sizes of the base and the wrapper: the base reads its operands by
  // index, which the wrapper keeps (its inputs first).
  r.compute = [base, inputs](const std::map<std::string, uint64_t> &sizes,
                             const ReferenceOptions &options,
                             std::vector<std::vector<double>> &ops) {
    return nvfp4OutCompute(base, inputs, sizes, options, ops);
  };
  r.check = [base, inputs](const std::map<std::string, uint64_t> &sizes,
                           const ReferenceOptions &options,
                           const std::vector<std::vector<double>> &ops,
                           const std::vector<std::vector<double>> &kernel) {
    return nvfp4OutCheck(base, inputs, sizes, options, ops, kernel);
  };
  return r;
}

} // namespace

void nvfp4::rt::appendNvfp4References(std::vector<Reference> &refs) {
  // Attention with an NVFP4 O, one per attention reference so far.
  std::vector<Reference> outs;
  for (const Reference &r : refs)
    if (r.name.rfind("attention", 0) == 0 && r.name != "attention_merge")
      outs.push_back(nvfp4OutReference(r));
  refs.insert(refs.end(), outs.begin(), outs.end());

  ReferenceOperand x{"x", {"b", "m", "k"}, false};
  x.fill = "nvfp4_input";
  ReferenceOperand gsIn{"gs", {"one"}, false};
  gsIn.fill = "encode_scale";
  gsIn.fillOf = "x";
  ReferenceOperand data{"data", {"b", "m", "kh"}, true, "", exact()};
  ReferenceOperand sf{"sf", {"sfn"}, true, "", exact()};
  std::vector<ReferenceOption> quantOptions = layoutOptions();
  quantOptions.push_back({"recipe", false, "0 (fast, default) or 1 (exact)"});
  quantOptions.push_back({"nan", false, "0 (propagate, default) or 1 (ignore)"});
  refs.push_back(Reference{
      "nvfp4_quantize",
      "nvfp4.quantize with a given tensor scale, bit for bit, docs/NVFP4.md",
      {x, gsIn, data, sf},
      [](const std::map<std::string, uint64_t> &sizes,
         const ReferenceOptions &options,
         std::vector<std::vector<double>> &ops) {
        return quantizeCompute(sizes, options, ops, false);
      },
      quantOptions});
  ReferenceOperand gsOut{"gs", {"one"}, true, "", exact()};
  refs.push_back(Reference{
      "nvfp4_quantize_amax",
      "nvfp4.quantize with the tensor scale computed from the amax, bit for "
      "bit, docs/NVFP4.md",
      {x, gsOut, data, sf},
      [](const std::map<std::string, uint64_t> &sizes,
         const ReferenceOptions &options,
         std::vector<std::vector<double>> &ops) {
        return quantizeCompute(sizes, options, ops, true);
      },
      quantOptions});
  ReferenceOperand dataIn{"data", {"b", "m", "kh"}, false};
  ReferenceOperand sfIn{"sf", {"sfn"}, false};
  sfIn.fill = "e4m3_scales";
  ReferenceOperand gsRandom{"gs", {"one"}, false};
  gsRandom.fill = "encode_scale";
  std::vector<ReferenceOption> dequantOptions = layoutOptions();
  dequantOptions.push_back(
      {"round_to", false, "the output type: 0 f32 (default), 1 bf16, 2 f16"});
  ReferenceOperand sfa{"sfa", {"mt", "kq", "c128"}, false};
  sfa.fill = "e4m3_scales";
  ReferenceOperand sfb{"sfb", {"nt", "kq", "c128"}, false};
  sfb.fill = "e4m3_scales";
  refs.push_back(Reference{
      "nvfp4_scaled_matmul",
      "nvfp4.scaled_matmul: D = deq(A) deq(B)^T in float64, docs/NVFP4.md",
      {{"a", {"m", "kh"}, false},
       sfa,
       gsRandom0(),
       {"b", {"n", "kh"}, false},
       sfb,
       gsRandom0("gsb"),
       {"d", {"m", "n"}, true, "", matmulTolerance()}},
      matmulCompute,
      {{"round_to", false,
        "0: f32 output (default); 1: the reference rounded to bf16"}}});
  for (bool masked : {false, true}) {
    ReferenceOperand ga = gsRandom0("gsa"), gb = gsRandom0("gsb");
    ga.shape = gb.shape = {"e"};
    ReferenceOperand gsfa{"sfa",
                          masked ? std::vector<std::string>{"e", "mt", "kq",
                                                            "c128"}
                                 : std::vector<std::string>{"mt", "kq", "c128"},
                          false};
    gsfa.fill = "e4m3_scales";
    ReferenceOperand gsfb{"sfb", {"e", "nt", "kq", "c128"}, false};
    gsfb.fill = "e4m3_scales";
    ReferenceOperand groupSizes{"sizes", {"e"}, false};
    groupSizes.fill = masked ? "group_sizes_masked" : "group_sizes_contiguous";
    groupSizes.fillOf = "m";
    ReferenceOperand d{"d",
                       masked ? std::vector<std::string>{"e", "m", "n"}
                              : std::vector<std::string>{"m", "n"},
                       true, "", matmulTolerance()};
    d.inout = true;
    refs.push_back(Reference{
        masked ? "nvfp4_grouped_matmul_masked"
               : "nvfp4_grouped_matmul_contiguous",
        std::string("nvfp4.grouped_scaled_matmul, layout ") +
            (masked ? "masked" : "contiguous") +
            ": each group's D = deq(A_g) deq(B_g)^T in float64, docs/NVFP4.md",
        {{"a",
          masked ? std::vector<std::string>{"e", "m", "kh"}
                 : std::vector<std::string>{"m", "kh"},
          false},
         gsfa,
         ga,
         {"b", {"e", "n", "kh"}, false},
         gsfb,
         gb,
         groupSizes,
         d},
        [masked](const std::map<std::string, uint64_t> &sizes,
                 const ReferenceOptions &options,
                 std::vector<std::vector<double>> &ops) {
          return groupedCompute(masked, sizes, options, ops);
        },
        {{"round_to", false,
          "0: f32 output (default); 1: the reference rounded to bf16"},
         {"layout", false, "0 contiguous, 1 masked (as the reference's name)"}},
        [masked](const std::map<std::string, uint64_t> &sizes,
                 const std::vector<std::vector<double>> &ops) {
          return groupedValidate(masked, sizes, ops);
        }});
  }
  refs.push_back(Reference{
      "nvfp4_dequantize",
      "nvfp4.dequantize: e2m1 * e4m3 / gs rounded to the output type, "
      "docs/NVFP4.md",
      {dataIn, sfIn, gsRandom, {"y", {"b", "m", "k"}, true, "", exact()}},
      dequantizeCompute,
      dequantOptions});
}
