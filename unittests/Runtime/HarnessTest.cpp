//===- HarnessTest.cpp - The harness pieces attention needs ---------------===//
//
// The registry entry "attention" (operands, options, the same numbers as
// attentionReference), i32 tensors, the kv_lens fill rule, f32 scalars
// computed from options, tensor views, per-output thresholds, and the
// comparison's rule for infinities (an lse of -inf where the reference has
// -inf matches).
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Runtime/Check.h"
#include "nvfp4/Runtime/Fill.h"
#include "nvfp4/Runtime/Harness.h"
#include "nvfp4/Support/Nvfp4Format.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <set>

using namespace nvfp4::rt;

namespace {

std::vector<uint8_t> bf16Bytes(const std::vector<double> &values) {
  std::vector<uint8_t> bytes(values.size() * 2);
  for (size_t i = 0; i < values.size(); ++i) {
    uint16_t h = floatToBF16(float(values[i]));
    std::memcpy(&bytes[2 * i], &h, 2);
  }
  return bytes;
}

TEST(HarnessTest, AttentionEntryMatchesAttentionReference) {
  auto ref = findReference("attention");
  ASSERT_TRUE(ref);
  const Reference &r = **ref;
  std::vector<std::string> names;
  for (const ReferenceOperand &o : r.operands)
    names.push_back(o.name + (o.output ? "(out)" : ""));
  EXPECT_EQ(names, (std::vector<std::string>{"q", "k", "v", "sink", "kv_lens",
                                             "o(out)", "lse(out)"}));
  EXPECT_EQ(r.operands[4].lengthsOf, "skv");
  ASSERT_TRUE(r.operands[5].tolerance);
  EXPECT_EQ(r.operands[5].tolerance->relL2, 5e-3);
  EXPECT_EQ(r.operands[5].tolerance->minCos, 0.99999);
  ASSERT_TRUE(r.operands[6].tolerance);
  EXPECT_EQ(r.operands[6].tolerance->relL2, 1e-4);
  EXPECT_EQ(r.operands[6].tolerance->maxAbs, 1e-3);
  ASSERT_EQ(r.options.size(), 3u);
  EXPECT_TRUE(r.options[0].required);
  EXPECT_EQ(r.options[0].name, "softmax_scale");

  // B = 2, Sq = 2, Hq = 2, Hkv = 1, Skv = 3, D = Dv = 2; kv_lens {3, 1}.
  std::map<std::string, uint64_t> sizes = {{"b", 2},  {"sq", 2}, {"hq", 2},
                                           {"skv", 3}, {"hkv", 1}, {"d", 2},
                                           {"dv", 2}};
  std::vector<double> q = {0.5, -1, 0.25, 2, 1, 1, -0.5, 0.75,
                           1.5, 0.5, -2, 0.125, 0.5, 0.5, 1, -1};
  std::vector<double> k = {1, 0.5, -0.25, 1, 2, -1, 0.5, 0.5, 1, 1, -1, 2};
  std::vector<double> v = {0.5, 1, 2, -1, 0.25, 4, 1, 1, 3, -2, 0.5, 0.5};
  std::vector<double> sink = {0.5, -1};
  std::vector<int32_t> lens = {3, 1};
  for (bool causal : {false, true}) {
    ReferenceOptions options = {{"softmax_scale", 0.7},
                                {"causal", causal ? 1 : 0},
                                {"window", 2}};
    std::vector<std::vector<double>> ops = {
        q, k, v, sink, {3, 1}, std::vector<double>(16), std::vector<double>(8)};
    ASSERT_FALSE(r.compute(sizes, options, ops));

    AttentionProblem p;
    p.batch = 2;
    p.seqQ = 2;
    p.seqKv = 3;
    p.headsQ = 2;
    p.headsKv = 1;
    p.headDim = p.headDimV = 2;
    std::vector<uint8_t> qb = bf16Bytes(q), kb = bf16Bytes(k),
                         vb = bf16Bytes(v);
    std::vector<float> sinkF(sink.begin(), sink.end());
    p.q = qb.data();
    p.k = kb.data();
    p.v = vb.data();
    p.sink = sinkF.data();
    p.kvLens = lens.data();
    p.softmaxScale = 0.7;
    p.causal = causal;
    p.window = 2;
    auto want = attentionReference(p);
    ASSERT_TRUE(want);
    EXPECT_EQ(ops[5], want->o);
    EXPECT_EQ(ops[6], want->lse);
  }

  // The options the computation refuses, named.
  std::vector<std::vector<double>> ops = {
      q, k, v, sink, {3, 1}, std::vector<double>(16), std::vector<double>(8)};
  EXPECT_EQ(r.compute(sizes, {}, ops).message(),
            "attention: option softmax_scale is required");
  EXPECT_EQ(r.compute(sizes, {{"softmax_scale", 1}, {"window", 0.5}}, ops)
                .message(),
            "attention: expected window to be an integer >= 1, got 0.5");
  EXPECT_EQ(r.compute(sizes, {{"softmax_scale", -1}}, ops).message(),
            "attention: expected softmax_scale to be finite and positive, "
            "got -1");
  ops[4] = {4, 1};
  EXPECT_EQ(r.compute(sizes, {{"softmax_scale", 1}}, ops).message(),
            "attention: expected kv_lens[0] in [0, Skv = 3], got 4");
}

TEST(HarnessTest, I32Elements) {
  EXPECT_EQ(*parseElemType("i32"), ElemType::I32);
  EXPECT_STREQ(stringify(ElemType::I32), "i32");
  EXPECT_EQ(elemBytes(ElemType::I32), 4u);
  int32_t v[2] = {-7, 512};
  uint8_t bytes[8];
  std::memcpy(bytes, v, 8);
  EXPECT_EQ(decode(bytes, 2, ElemType::I32), (std::vector<double>{-7, 512}));
}

TEST(HarnessTest, EqualInfinitiesMatchOthersFail) {
  const double inf = INFINITY;
  // A row with no visible key: lse = -inf in both.
  Metrics m = compare({-inf, 1, 2}, {-inf, 1, 2});
  EXPECT_EQ(m.nonFinite, 0u);
  EXPECT_EQ(m.equalInfinities, 1u);
  EXPECT_EQ(m.relL2, 0);
  EXPECT_TRUE(passes(m, 1e-4));
  EXPECT_EQ(verdictLine(m, 1e-4),
            "PASS cos=1.00000000 rel_l2=0 max_abs=0 nan=0");
  // The other infinity, a finite value, or NaN where the reference is -inf.
  EXPECT_EQ(compare({inf, 1}, {-inf, 1}).nonFinite, 1u);
  EXPECT_EQ(compare({0, 1}, {-inf, 1}).nonFinite, 1u);
  EXPECT_EQ(compare({std::nan(""), 1}, {-inf, 1}).nonFinite, 1u);
  // An infinity where the reference is finite, and NaN against NaN.
  EXPECT_EQ(compare({-inf, 1}, {0, 1}).nonFinite, 1u);
  Metrics n = compare({std::nan(""), 1}, {std::nan(""), 1});
  EXPECT_EQ(n.nonFinite, 1u);
  EXPECT_FALSE(passes(n, 1e9));
}

TEST(HarnessTest, Tolerances) {
  Metrics m = compare({1, 2, 3.01}, {1, 2, 3});
  Tolerance t;
  t.relL2 = 5e-3;
  EXPECT_TRUE(passes(m, t));
  t.minCos = 0.99999999;
  EXPECT_FALSE(passes(m, t));
  EXPECT_EQ(verdictLine(m, t).substr(0, 5), "FAIL ");
  t.minCos = 0.99999;
  EXPECT_TRUE(passes(m, t));
  t.maxAbs = 1e-3;
  EXPECT_FALSE(passes(m, t));
  EXPECT_EQ(describe(t), "cos >= 0.99999, rel_l2 <= 0.005, max_abs <= 0.001");
  Tolerance plain;
  EXPECT_EQ(describe(plain), "rel_l2 <= 0.0001");

  // An output's own thresholds, else the spec's rel_l2; the command line
  // replaces rel_l2 in both.
  HarnessSpec s;
  s.relL2Tolerance = 2e-4;
  HarnessTensor own, plainOut;
  own.tolerance = t;
  EXPECT_EQ(toleranceOf(s, plainOut, std::nullopt).relL2, 2e-4);
  EXPECT_FALSE(toleranceOf(s, plainOut, std::nullopt).minCos);
  EXPECT_EQ(toleranceOf(s, own, std::nullopt).relL2, 5e-3);
  EXPECT_EQ(toleranceOf(s, own, 0.5).relL2, 0.5);
  EXPECT_EQ(toleranceOf(s, own, 0.5).minCos, 0.99999);
}

TEST(HarnessTest, SparseIndicesSpanTheCacheWithMissingAndRepeatedKeys) {
  const uint64_t row = 200, rows = 6, slots = 5000;
  std::vector<int32_t> x = fillIndices(row * rows, row, slots, 7);
  EXPECT_EQ(x, fillIndices(row * rows, row, slots, 7)); // deterministic
  EXPECT_NE(x, fillIndices(row * rows, row, slots, 8));
  uint64_t missing = 0, repeats = 0;
  int32_t lo = INT32_MAX, hi = -1;
  for (uint64_t r = 0; r < rows; ++r) {
    std::set<int32_t> seen;
    for (uint64_t t = 0; t < row; ++t) {
      int32_t e = x[r * row + t];
      ASSERT_GE(e, -1);
      ASSERT_LT(e, int32_t(slots));
      if (e == -1) {
        ++missing;
        continue;
      }
      repeats += !seen.insert(e).second;
      lo = std::min(lo, e);
      hi = std::max(hi, e);
    }
    if (r % 2 == 1) {
      EXPECT_EQ(x[r * row + row - 1], -1) << "row " << r;
    }
  }
  // Row 1 sees no key; about 1 in 8 missing and 1 in 8 repeated.
  for (uint64_t t = 0; t < row; ++t)
    EXPECT_EQ(x[row + t], -1);
  EXPECT_GT(missing, row + 50);
  EXPECT_GT(repeats, 50u);
  // Spread over the whole cache (many pages of any size).
  EXPECT_LT(lo, int32_t(slots / 10));
  EXPECT_GT(hi, int32_t(slots - slots / 10));
}

TEST(HarnessTest, KvLengthsCoverFullPartialAndSingle) {
  for (uint64_t seed = 1; seed < 200; ++seed) {
    std::vector<int32_t> l = fillLengths(4, 512, seed);
    ASSERT_EQ(l.size(), 4u);
    EXPECT_EQ(l[0], 512);
    EXPECT_EQ(l[3], 1);
    // Several tiles of 128 and a partial one.
    EXPECT_GT(l[1], 256);
    EXPECT_LT(l[1], 512);
    EXPECT_EQ(l[1] % 2, 1);
    EXPECT_GE(l[2], 1);
    EXPECT_LE(l[2], 512);
    EXPECT_EQ(l, fillLengths(4, 512, seed)); // deterministic
  }
  EXPECT_NE(fillLengths(8, 512, 1), fillLengths(8, 512, 2));
  std::vector<int32_t> many = fillLengths(64, 100, 3);
  for (int32_t x : many) {
    EXPECT_GE(x, 1);
    EXPECT_LE(x, 100);
  }
  // Small cases: one sequence, two, and tiny bounds.
  std::vector<int32_t> one = fillLengths(1, 9, 5);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_GE(one[0], 1);
  EXPECT_LE(one[0], 9);
  EXPECT_EQ(fillLengths(2, 9, 5), (std::vector<int32_t>{9, 1}));
  EXPECT_EQ(fillLengths(3, 1, 5), (std::vector<int32_t>{1, 1, 1}));
  std::vector<int32_t> four = fillLengths(3, 4, 5);
  EXPECT_EQ(four[1], 3);
}

TEST(HarnessTest, FloatScalars) {
  std::map<std::string, uint64_t> sizes = {{"d", 128}, {"k", 64}};
  ReferenceOptions options = {{"softmax_scale", 0.125}};
  EXPECT_DOUBLE_EQ(*evalFloat("softmax_scale*log2e", sizes, options),
                   0.125 * 1.4426950408889634);
  EXPECT_DOUBLE_EQ(*evalFloat("1/d", sizes, options), 1.0 / 128);
  EXPECT_DOUBLE_EQ(*evalFloat("0.5*k/2", sizes, options), 16);
  EXPECT_DOUBLE_EQ(*evalFloat("ln2", sizes, options), std::log(2.0));
  EXPECT_DOUBLE_EQ(*evalFloat("1e-3", sizes, options), 1e-3);
  EXPECT_EQ(evalFloat("scale*log2e", sizes, options).takeError().message(),
            "scalar value 'scale*log2e': 'scale' is not a number, an option, "
            "a size, log2e or ln2");
  EXPECT_EQ(evalFloat("d**2", sizes, options).takeError().message(),
            "scalar value 'd**2': expected factors joined by '*' or '/'");
  EXPECT_EQ(evalFloat("1/0", sizes, options).takeError().message(),
            "scalar value '1/0' = inf is not finite");
}

TEST(HarnessTest, Views) {
  HarnessTensor q{"q", ElemType::BF16, {"b", "sq", "hq", "d"}, false, "", {}};
  std::map<std::string, uint64_t> sizes = {
      {"b", 4}, {"sq", 1}, {"hq", 128}, {"d", 64}};
  EXPECT_EQ(*viewDims(q, {}, sizes), (std::vector<uint64_t>{4, 1, 128, 64}));
  EXPECT_EQ(*viewDims(q, {"b*sq*hq", "d"}, sizes),
            (std::vector<uint64_t>{512, 64}));
  EXPECT_EQ(*viewDims(q, {"b", "sq*hq*d"}, sizes),
            (std::vector<uint64_t>{4, 8192}));
  EXPECT_EQ(viewDims(q, {"b*hq*sq", "d"}, sizes).takeError().message(),
            "view [b*hq*sq,d] of tensor 'q' must group its dimensions "
            "[b,sq,hq,d] in order");
  EXPECT_EQ(viewDims(q, {"b*sq*hq"}, sizes).takeError().message(),
            "view [b*sq*hq] of tensor 'q' must group its dimensions "
            "[b,sq,hq,d] in order");
}

/// The nvfp4.harness of examples/attention_decode.mlir, as a spec.
HarnessSpec attentionSpec() {
  HarnessSpec s;
  s.kernel = "attention_decode_h128_d128";
  s.reference = "attention";
  s.sizes = {{"b", 4},   {"sq", 1}, {"hq", 128}, {"skv", 512},
             {"hkv", 1}, {"d", 128}, {"dv", 128}};
  s.options = {{"softmax_scale", 0.0883883476}, {"causal", 0}};
  const Reference *r = *findReference("attention");
  std::map<std::string, ElemType> types = {
      {"q", ElemType::BF16},  {"k", ElemType::BF16},
      {"v", ElemType::BF16},  {"sink", ElemType::F32},
      {"kv_lens", ElemType::I32}, {"o", ElemType::BF16},
      {"lse", ElemType::F32}};
  for (const ReferenceOperand &o : r->operands)
    s.tensors.push_back({o.name, types.at(o.name), o.shape, o.output,
                         o.lengthsOf, o.tolerance});
  HarnessArg tq;
  tq.kind = HarnessArg::Kind::TensorMap;
  tq.tensor = "q";
  tq.view = {"b*sq*hq", "d"};
  tq.box = {64, 128};
  HarnessArg o;
  o.kind = HarnessArg::Kind::Buffer;
  o.tensor = "o";
  o.view = {"b", "sq*hq", "dv"};
  HarnessArg seq;
  seq.value = "skv";
  HarnessArg scale;
  scale.scalarType = KernelArg::Kind::F32;
  scale.value = "softmax_scale*log2e";
  s.args = {tq, o, seq, scale};
  return s;
}

TEST(HarnessTest, VerifyAttentionSpec) {
  HarnessSpec s = attentionSpec();
  EXPECT_FALSE(verify(s));

  s.options["softcap"] = 30;
  EXPECT_EQ(verify(s).message(),
            "reference 'attention' has no option 'softcap' (options: "
            "softmax_scale, causal, window)");
  s = attentionSpec();
  s.options.erase("softmax_scale");
  EXPECT_EQ(verify(s).message(),
            "reference 'attention' needs option 'softmax_scale' (finite and "
            "> 0)");
  s = attentionSpec();
  s.tensors[4].type = ElemType::F32;
  EXPECT_EQ(verify(s).message(),
            "tensor 'kv_lens' holds lengths: its type must be i32, found f32");
  s = attentionSpec();
  s.args[0].view = {};
  EXPECT_EQ(verify(s).message(),
            "argument 0: the tensor map of 'q' (rank 4) needs 4 box sizes, "
            "found 2");
  s = attentionSpec();
  s.args[1].view = {"b", "hq*sq", "dv"};
  EXPECT_EQ(verify(s).message(),
            "argument 1: view [b,hq*sq,dv] of tensor 'o' must group its "
            "dimensions [b,sq,hq,dv] in order");
  s = attentionSpec();
  s.args[3].value = "scale*log2e";
  EXPECT_EQ(verify(s).message(),
            "argument 3: scalar value 'scale*log2e': 'scale' is not a "
            "number, an option, a size, log2e or ln2");

  // Gemm has no options.
  s = attentionSpec();
  s.reference = "gemm_abt";
  s.tensors = {{"a", ElemType::BF16, {"m", "k"}, false, "", {}},
               {"b", ElemType::BF16, {"n", "k"}, false, "", {}},
               {"d", ElemType::F32, {"m", "n"}, true, "", {}}};
  s.sizes = {{"m", 1}, {"n", 1}, {"k", 1}};
  s.options = {{"x", 1}};
  s.args = {};
  EXPECT_EQ(verify(s).message(),
            "reference 'gemm_abt' has no option 'x' (options: none)");
}

/// `absent` (an optional operand the kernel lacks) and `same` (an input
/// that copies another): what nvfp4-lower-attention emits for an op
/// without a sink or kv_lens, and with K and V as one value.
TEST(HarnessTest, VerifyAbsentAndSame) {
  HarnessSpec s = attentionSpec();
  s.tensors[3].absent = true; // sink
  s.tensors[4].absent = true; // kv_lens
  s.tensors[2].sameAs = "k";  // v
  EXPECT_FALSE(verify(s));

  s = attentionSpec();
  s.tensors[0].absent = true;
  EXPECT_EQ(verify(s).message(),
            "tensor 'q' cannot be absent: reference 'attention' needs it");
  s = attentionSpec();
  s.tensors[6].absent = true;
  EXPECT_EQ(verify(s).message(),
            "tensor 'lse' cannot be absent: reference 'attention' needs it");
  s = attentionSpec();
  s.tensors[1].sameAs = "v"; // a later tensor
  EXPECT_EQ(verify(s).message(),
            "tensor 'k' can copy only an earlier input, found 'v'");
  s = attentionSpec();
  s.tensors[2].sameAs = "nothing";
  EXPECT_EQ(verify(s).message(),
            "tensor 'v' can copy only an earlier input, found 'nothing'");
  s = attentionSpec();
  s.sizes["dv"] = 64;
  s.tensors[2].sameAs = "k";
  EXPECT_EQ(verify(s).message(),
            "tensor 'v' copies 'k': expected the same type and element count");
  s = attentionSpec();
  s.tensors[3].absent = true;
  HarnessArg sink;
  sink.kind = HarnessArg::Kind::Buffer;
  sink.tensor = "sink";
  s.args.push_back(sink);
  EXPECT_EQ(verify(s).message(), "argument 4: tensor 'sink' is absent");
}

} // namespace

namespace {

/// The NVFP4-output entry on a small dense problem: its own quantized
/// outputs pass every check, and a wrong scale factor, a wrong code or a
/// poisoned (NaN) scale factor fails the check that owns it.
TEST(HarnessTest, Nvfp4OutputCheckCanFail) {
  auto ref = findReference("attention_nvfp4_out");
  ASSERT_TRUE(ref);
  const Reference &r = **ref;
  std::vector<std::string> names;
  for (const ReferenceOperand &o : r.operands)
    names.push_back(o.name + (o.output ? "(out)" : ""));
  EXPECT_EQ(names,
            (std::vector<std::string>{"q", "k", "v", "sink", "kv_lens",
                                      "o_scale", "o(out)", "lse(out)",
                                      "o_sf(out)"}));
  EXPECT_EQ(r.operands[5].fill, "attention_o_scale");
  EXPECT_EQ(r.operands[5].fillOf, "v");
  ASSERT_TRUE(r.check);

  // B = 2, Sq = 1, Hq = 2, Hkv = 1, Skv = 7, D = 8, Dv = 32: 2 tokens, 64
  // columns (4 blocks) per token.
  const uint64_t B = 2, Hq = 2, Skv = 7, D = 8, Dv = 32;
  std::map<std::string, uint64_t> sizes = {
      {"b", B},     {"sq", 1},     {"hq", Hq},    {"skv", Skv},
      {"hkv", 1},   {"d", D},      {"dv", Dv},    {"dvh", Dv / 2},
      {"one", 1},   {"sfn", 128 * 4}};
  auto random = [](size_t n, uint64_t seed) {
    std::vector<uint8_t> bytes(n * 2);
    (void)fillRandom(bytes.data(), bytes.size(), seed, FillType::BF16);
    return decode(bytes.data(), n, ElemType::BF16);
  };
  std::vector<std::vector<double>> ops = {
      random(B * Hq * D, 1), random(B * Skv * D, 2), random(B * Skv * Dv, 3),
      {}, {}, {2688.0},
      std::vector<double>(B * Hq * Dv / 2), std::vector<double>(B * Hq),
      std::vector<double>(128 * 4)};
  ReferenceOptions options = {{"softmax_scale", 0.35}};
  ASSERT_FALSE(r.compute(sizes, options, ops));
  // The "kernel" outputs: the reference's own.
  std::vector<std::vector<double>> kernel(ops.size());
  for (size_t i = 6; i < 9; ++i)
    kernel[i] = ops[i];
  auto verdicts = [&](const std::vector<std::vector<double>> &k) {
    auto checks = r.check(sizes, options, ops, k);
    EXPECT_TRUE(bool(checks));
    std::map<std::string, bool> pass;
    if (checks)
      for (const OutputCheck &c : *checks)
        pass[c.name] = c.pass;
    return pass;
  };
  std::map<std::string, bool> allPass = {
      {"o", true}, {"o_sf", true}, {"o codes", true}, {"lse", true}};
  EXPECT_EQ(verdicts(kernel), allPass);

  // Every scale factor one e4m3 step up (token t's block kb is at byte 16
  // t + kb; a block within rounding distance of a boundary is not
  // compared, so all eight are changed).
  std::vector<std::vector<double>> bad = kernel;
  for (int t = 0; t < 2; ++t)
    for (int kb = 0; kb < 4; ++kb)
      bad[8][16 * t + kb] += 1;
  EXPECT_FALSE(verdicts(bad)["o_sf"]);
  // A byte of codes with its nibbles swapped (unless they are equal).
  bad = kernel;
  for (double &byte : bad[6]) {
    uint8_t b = uint8_t(byte);
    if ((b & 0xF) != (b >> 4) && nvfp4::fp4::decodeE2M1(b & 0xF) !=
                                     nvfp4::fp4::decodeE2M1(b >> 4)) {
      byte = double(uint8_t((b << 4) | (b >> 4)));
      break;
    }
  }
  EXPECT_FALSE(verdicts(bad)["o codes"]);
  // A poisoned scale factor (0xFF: e4m3 NaN) dequantizes to NaN.
  bad = kernel;
  bad[8][0] = 255;
  EXPECT_FALSE(verdicts(bad)["o"]);
}

} // namespace
