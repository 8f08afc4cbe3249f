//===- AttentionReferenceTest.cpp - nvfp4.attention's float64 reference ---===//
//
// Hand-computed tiny cases of the semantics in docs/Attention.md: the sink
// in the denominator, causal masking with bottom-right alignment, the
// sliding window with and without causal, kv_lens, rows that see no key
// (with and without a sink), the GQA head mapping, the output layouts, and
// the problems the reference refuses.
//
// Most cases use D = 1 and q = 0, so every visible key gets the same weight,
// and v_j = 2^j: then O = (sum of 2^j over the visible j) / n and
// LSE = ln n, which pins the visible set exactly.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Runtime/Check.h"
#include "nvfp4/Runtime/Fill.h"
#include "nvfp4/Support/KvCacheFormat.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace nvfp4::rt;

namespace {

/// Encodes values (all exact in the type) as bf16 or f16 bytes.
std::vector<uint8_t> encode(const std::vector<float> &values, ElemType t) {
  std::vector<uint8_t> bytes(values.size() * 2);
  for (size_t i = 0; i < values.size(); ++i) {
    uint16_t h =
        t == ElemType::F16 ? floatToF16(values[i]) : floatToBF16(values[i]);
    std::memcpy(&bytes[2 * i], &h, 2);
  }
  return bytes;
}

/// Inputs that outlive the problem pointing at them.
struct Inputs {
  std::vector<uint8_t> q, k, v;
};

/// B x Sq queries of one head, D = 1, all zero; Skv keys with k = 0 and
/// v_j = 2^j (the same for every sequence).
AttentionProblem uniformProblem(Inputs &in, uint64_t batch, uint64_t seqQ,
                                uint64_t seqKv) {
  AttentionProblem p;
  p.batch = batch;
  p.seqQ = seqQ;
  p.seqKv = seqKv;
  p.headDim = p.headDimV = 1;
  in.q = encode(std::vector<float>(batch * seqQ, 0.0f), ElemType::BF16);
  in.k = encode(std::vector<float>(batch * seqKv, 0.0f), ElemType::BF16);
  std::vector<float> v;
  for (uint64_t b = 0; b < batch; ++b)
    for (uint64_t j = 0; j < seqKv; ++j)
      v.push_back(std::ldexp(1.0f, int(j)));
  in.v = encode(v, ElemType::BF16);
  p.q = in.q.data();
  p.k = in.k.data();
  p.v = in.v.data();
  return p;
}

AttentionResult run(const AttentionProblem &p) {
  Expected<AttentionResult> r = attentionReference(p);
  EXPECT_TRUE(r) << r.takeError().message();
  return r ? std::move(*r) : AttentionResult{};
}

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(AttentionReferenceTest, SinkJoinsTheDenominatorOnly) {
  // One query, two keys: s = scale * q.k = (0, ln 2), so the unnormalised
  // weights are (1, 2); v = (1, 4).
  AttentionProblem p;
  p.seqKv = 2;
  p.headDim = p.headDimV = 1;
  std::vector<uint8_t> q = encode({1}, ElemType::BF16),
                       k = encode({0, 1}, ElemType::BF16),
                       v = encode({1, 4}, ElemType::BF16);
  p.q = q.data();
  p.k = k.data();
  p.v = v.data();
  p.softmaxScale = std::log(2.0);

  // No sink: Z = 3, O = (1 + 8) / 3 = 3, LSE = ln 3.
  AttentionResult r = run(p);
  EXPECT_NEAR(r.o[0], 3.0, 1e-14);
  EXPECT_NEAR(r.lse[0], std::log(3.0), 1e-14);

  // sink = 0 adds e^0 = 1 to Z only: O = 9 / 4, LSE = ln 4.
  float sink0 = 0.0f;
  p.sink = &sink0;
  r = run(p);
  EXPECT_NEAR(r.o[0], 2.25, 1e-14);
  EXPECT_NEAR(r.lse[0], std::log(4.0), 1e-14);

  // sink = 1 adds e: O = 9 / (3 + e), LSE = ln(3 + e).
  float sink1 = 1.0f;
  p.sink = &sink1;
  r = run(p);
  EXPECT_NEAR(r.o[0], 9.0 / (3.0 + std::exp(1.0)), 1e-14);
  EXPECT_NEAR(r.lse[0], std::log(3.0 + std::exp(1.0)), 1e-14);

  // A sink far above the logits takes the mass but not the value: O -> 0,
  // LSE -> sink (and m = sink keeps it finite).
  float big = 80.0f;
  p.sink = &big;
  r = run(p);
  EXPECT_NEAR(r.o[0], 9.0 * std::exp(-80.0), 1e-40);
  EXPECT_NEAR(r.lse[0], 80.0, 1e-14);
}

TEST(AttentionReferenceTest, CausalIsBottomRightAligned) {
  // Sq = 2 queries over L = Skv = 4 keys: the queries sit at positions 2
  // and 3 (the last two tokens), not 0 and 1.
  Inputs in;
  AttentionProblem p = uniformProblem(in, 1, 2, 4);
  p.causal = true;
  AttentionResult r = run(p);
  // Query 0 (position 2) sees keys 0..2: (1 + 2 + 4) / 3.
  EXPECT_NEAR(r.o[0], 7.0 / 3.0, 1e-14);
  EXPECT_NEAR(r.lse[0], std::log(3.0), 1e-14);
  // Query 1 (position 3) sees keys 0..3.
  EXPECT_NEAR(r.o[1], 15.0 / 4.0, 1e-14);
  EXPECT_NEAR(r.lse[1], std::log(4.0), 1e-14);

  // Without causal every query sees every key.
  p.causal = false;
  r = run(p);
  EXPECT_NEAR(r.o[0], 15.0 / 4.0, 1e-14);
  EXPECT_NEAR(r.o[1], 15.0 / 4.0, 1e-14);

  // Decode (Sq = 1): the query is the newest token and sees all L keys.
  Inputs in1;
  AttentionProblem d = uniformProblem(in1, 1, 1, 4);
  d.causal = true;
  r = run(d);
  EXPECT_NEAR(r.o[0], 15.0 / 4.0, 1e-14);
}

TEST(AttentionReferenceTest, WindowCountsTheQueryItself) {
  Inputs in;
  AttentionProblem p = uniformProblem(in, 1, 2, 4);
  p.causal = true;
  p.window = 2;
  AttentionResult r = run(p);
  // Position 2 sees keys 1, 2; position 3 sees keys 2, 3.
  EXPECT_NEAR(r.o[0], 6.0 / 2.0, 1e-14);
  EXPECT_NEAR(r.lse[0], std::log(2.0), 1e-14);
  EXPECT_NEAR(r.o[1], 12.0 / 2.0, 1e-14);
  EXPECT_NEAR(r.lse[1], std::log(2.0), 1e-14);

  // window = 1: each query sees only its own key.
  p.window = 1;
  r = run(p);
  EXPECT_EQ(r.o[0], 4.0);
  EXPECT_EQ(r.o[1], 8.0);
  EXPECT_EQ(r.lse[0], 0.0);

  // Without causal the window bounds only the past: position 2 sees keys
  // j with 2 - j < 2, i.e. 1, 2, 3; position 3 sees 2, 3.
  p.causal = false;
  p.window = 2;
  r = run(p);
  EXPECT_NEAR(r.o[0], 14.0 / 3.0, 1e-14);
  EXPECT_NEAR(r.lse[0], std::log(3.0), 1e-14);
  EXPECT_NEAR(r.o[1], 12.0 / 2.0, 1e-14);
}

TEST(AttentionReferenceTest, KvLensBoundTheKeysAndMoveThePositions) {
  // Two sequences over a capacity of Skv = 4 keys, one query each, causal.
  Inputs in;
  AttentionProblem p = uniformProblem(in, 2, 1, 4);
  p.causal = true;
  int32_t lens[2] = {4, 2};
  p.kvLens = lens;
  AttentionResult r = run(p);
  // Sequence 0: L = 4, position 3, keys 0..3.
  EXPECT_NEAR(r.o[0], 15.0 / 4.0, 1e-14);
  EXPECT_NEAR(r.lse[0], std::log(4.0), 1e-14);
  // Sequence 1: L = 2, position 1, keys 0..1 (keys 2, 3 are past L).
  EXPECT_NEAR(r.o[1], 3.0 / 2.0, 1e-14);
  EXPECT_NEAR(r.lse[1], std::log(2.0), 1e-14);

  // Without causal kv_lens still hides the keys past L.
  p.causal = false;
  r = run(p);
  EXPECT_NEAR(r.o[1], 3.0 / 2.0, 1e-14);

  // kv_lens with a window: L = 4, position 3, window 3 -> keys 1..3.
  p.causal = true;
  p.window = 3;
  r = run(p);
  EXPECT_NEAR(r.o[0], 14.0 / 3.0, 1e-14);
}

TEST(AttentionReferenceTest, RowsThatSeeNoKey) {
  // Sq = 2 queries, L = 1 < Sq: query 0 sits at position -1 and, causal,
  // sees nothing: O = 0, LSE = -inf. Query 1 (position 0) sees key 0.
  Inputs in;
  AttentionProblem p = uniformProblem(in, 2, 2, 4);
  p.causal = true;
  int32_t lens[2] = {1, 0};
  p.kvLens = lens;
  AttentionResult r = run(p);
  EXPECT_EQ(r.o[0], 0.0);
  EXPECT_EQ(r.lse[0], -kInf);
  EXPECT_EQ(r.o[1], 1.0);
  EXPECT_EQ(r.lse[1], 0.0);
  // Sequence 1 has L = 0: both rows are empty, with or without causal.
  EXPECT_EQ(r.o[2], 0.0);
  EXPECT_EQ(r.o[3], 0.0);
  EXPECT_EQ(r.lse[2], -kInf);
  EXPECT_EQ(r.lse[3], -kInf);
  p.causal = false;
  r = run(p);
  EXPECT_EQ(r.lse[2], -kInf);
  EXPECT_EQ(r.lse[3], -kInf);
  EXPECT_EQ(r.o[3], 0.0);
  EXPECT_FALSE(std::isnan(r.o[2]));

  // With a sink an empty row has O = 0 and LSE = sink_h.
  p.causal = true;
  float sink = -1.5f;
  p.sink = &sink;
  r = run(p);
  EXPECT_EQ(r.o[0], 0.0);
  EXPECT_EQ(r.lse[0], -1.5);
  EXPECT_EQ(r.o[2], 0.0);
  EXPECT_EQ(r.lse[2], -1.5);
  // A sink of -inf is no sink.
  float noSink = -INFINITY;
  p.sink = &noSink;
  r = run(p);
  EXPECT_EQ(r.o[0], 0.0);
  EXPECT_EQ(r.lse[0], -kInf);
  EXPECT_EQ(r.o[1], 1.0);
  EXPECT_EQ(r.lse[1], 0.0);
}

TEST(AttentionReferenceTest, GQAHeadMappingAndLayouts) {
  // Hq = 4 query heads over Hkv = 2 KV heads: heads 0, 1 read KV head 0 and
  // heads 2, 3 read KV head 1 (h / (Hq / Hkv), not h % Hkv). One key, so
  // each row's softmax is 1 and O is that head's v; LSE = s = q.k.
  // f16 inputs, Sq = 2, D = 1, Dv = 2 check the layouts:
  // o [B, Sq, Hq, Dv], lse [B, Hq, Sq].
  AttentionProblem p;
  p.seqQ = 2;
  p.seqKv = 1;
  p.headsQ = 4;
  p.headsKv = 2;
  p.headDim = 1;
  p.headDimV = 2;
  p.type = ElemType::F16;
  // q[0, i, h, 0] = 10 i + h + 1.
  std::vector<uint8_t> q = encode({1, 2, 3, 4, 11, 12, 13, 14}, ElemType::F16);
  std::vector<uint8_t> k = encode({1, 2}, ElemType::F16); // k[0, 0, hk, 0]
  std::vector<uint8_t> v = encode({5, 6, 7, 8}, ElemType::F16);
  p.q = q.data();
  p.k = k.data();
  p.v = v.data();
  AttentionResult r = run(p);
  ASSERT_EQ(r.o.size(), 16u);
  ASSERT_EQ(r.lse.size(), 8u);
  const double vOf[4][2] = {{5, 6}, {5, 6}, {7, 8}, {7, 8}};
  const double kOf[4] = {1, 1, 2, 2};
  for (int i = 0; i < 2; ++i)
    for (int h = 0; h < 4; ++h) {
      for (int d = 0; d < 2; ++d)
        EXPECT_EQ(r.o[(i * 4 + h) * 2 + d], vOf[h][d])
            << "i = " << i << ", h = " << h << ", d = " << d;
      EXPECT_EQ(r.lse[h * 2 + i], (10.0 * i + h + 1) * kOf[h])
          << "i = " << i << ", h = " << h;
    }

  // MQA: Hkv = 1, every head reads KV head 0.
  p.headsKv = 1;
  r = run(p);
  for (int h = 0; h < 4; ++h)
    EXPECT_EQ(r.o[h * 2], 5.0) << "h = " << h;
}

TEST(AttentionReferenceTest, KAndVMayBeOneBuffer) {
  // K = V = [[1, 0], [0, 1]] (Skv = 2, D = Dv = 2), q = [ln 3, 0], scale 1:
  // s = (ln 3, 0), weights (3, 1) / 4, O = (3/4, 1/4), LSE = ln 4.
  AttentionProblem p;
  p.seqKv = 2;
  p.headDim = p.headDimV = 2;
  std::vector<uint8_t> kv = encode({1, 0, 0, 1}, ElemType::BF16);
  // ln 3 is not a bf16; pick the bf16 nearest to it and use its exact value.
  std::vector<uint8_t> q = encode({float(std::log(3.0)), 0}, ElemType::BF16);
  double q0 = decode(q.data(), 1, ElemType::BF16)[0];
  p.q = q.data();
  p.k = p.v = kv.data();
  AttentionResult r = run(p);
  double z = std::exp(q0) + 1;
  EXPECT_NEAR(r.o[0], std::exp(q0) / z, 1e-15);
  EXPECT_NEAR(r.o[1], 1 / z, 1e-15);
  EXPECT_NEAR(r.lse[0], std::log(z), 1e-15);
}

TEST(AttentionReferenceTest, RefusesWhatTheOpRejects) {
  Inputs in;
  AttentionProblem p = uniformProblem(in, 2, 1, 4);
  int32_t lens[2] = {4, 5};
  p.kvLens = lens;
  EXPECT_EQ(attentionReference(p).takeError().message(),
            "expected kv_lens[1] in [0, Skv = 4], got 5");
  lens[1] = -1;
  EXPECT_EQ(attentionReference(p).takeError().message(),
            "expected kv_lens[1] in [0, Skv = 4], got -1");
  p.kvLens = nullptr;
  p.headsQ = 3;
  p.headsKv = 2;
  EXPECT_EQ(attentionReference(p).takeError().message(),
            "expected Hq (3) to be a positive multiple of Hkv (2)");
  p.headsQ = p.headsKv = 1;
  p.softmaxScale = 0;
  EXPECT_EQ(attentionReference(p).takeError().message(),
            "expected softmax_scale to be finite and positive, got 0");
  p.softmaxScale = 1;
  p.window = 0;
  EXPECT_EQ(attentionReference(p).takeError().message(),
            "expected window to be at least 1, got 0");
  p.window.reset();
  p.type = ElemType::F32;
  EXPECT_EQ(attentionReference(p).takeError().message(),
            "expected bf16 or f16 attention inputs, got f32");
}

} // namespace

// Sparse top-k (docs/Attention.md, "Sparse top-k"), through the harness
// entry: slot s is row s of the cache (pages x page size), key t of query
// i is indices[b, i, t]; -1 and positions t >= kv_lens[b] are not seen, a
// repeated slot counts twice, each query has its own row. D = 1, q = 0
// (equal weights), v of slot s = 2^s.
TEST(AttentionReferenceTest, SparseTopKGathersEachQuerysRow) {
  Expected<const Reference *> ref = findReference("attention_sparse");
  ASSERT_TRUE(ref) << ref.takeError().message();
  const std::map<std::string, uint64_t> sizes = {
      {"b", 2},  {"sq", 2}, {"hq", 1}, {"hkv", 1},  {"d", 1},
      {"dv", 1}, {"np", 2}, {"ps", 4}, {"topk", 4}, {"skv", 4}};
  std::vector<std::vector<double>> ops(8);
  ops[0].assign(4, 0.0);            // q
  ops[1].assign(8, 0.0);            // k: 2 pages x 4 slots
  for (int s = 0; s < 8; ++s)       // v
    ops[2].push_back(std::ldexp(1.0, s));
  ops[4] = {3, 4};                  // top-k lengths
  ops[5] = {1, 5, -1, 7,            // b0 q0: 7 is past the length
            6, 6, 2, 0,             // b0 q1: 6 twice, 0 past the length
            -1, -1, -1, -1,         // b1 q0: no key
            3, -1, 0, 3};           // b1 q1: 3 twice
  ops[6].assign(4, 0.0);
  ops[7].assign(4, 0.0);
  ASSERT_FALSE((*ref)->compute(sizes, {{"softmax_scale", 1.0}}, ops));
  EXPECT_DOUBLE_EQ(ops[6][0], (2.0 + 32.0) / 2);
  EXPECT_DOUBLE_EQ(ops[6][1], (64.0 + 64.0 + 4.0) / 3);
  EXPECT_DOUBLE_EQ(ops[6][2], 0.0);
  EXPECT_DOUBLE_EQ(ops[6][3], (8.0 + 1.0 + 8.0) / 3);
  // LSE [B, Hq, Sq]: ln of the number of seen keys; -inf without one.
  EXPECT_DOUBLE_EQ(ops[7][0], std::log(2.0));
  EXPECT_DOUBLE_EQ(ops[7][1], std::log(3.0));
  EXPECT_EQ(ops[7][2], -kInf);
  EXPECT_DOUBLE_EQ(ops[7][3], std::log(3.0));
  // An index that is neither -1 nor a slot, below the length: refused,
  // named.
  ops[5][13] = 8;
  Error e = (*ref)->compute(sizes, {{"softmax_scale", 1.0}}, ops);
  ASSERT_TRUE(bool(e));
  EXPECT_EQ(e.message(), "attention_sparse: sequence 1, query 1: indices[1, "
                         "1, 1] = 8 is neither -1 nor a slot in [0, 8) (the "
                         "cache's pages x page size)");
}

// A quantized cache entry (docs/Attention.md, "Quantized caches"): keys
// are the tokens dequantized by the layout; V is the first Dv values (for
// DeepSeek-V3.2 the 512 e4m3 values, not the RoPE ones). With one visible
// key, O is that key's V exactly.
TEST(AttentionReferenceTest, QuantizedCacheKeysAreDequantizedTokens) {
  const nvfp4::KvCacheFormat &f = *nvfp4::findKvCacheFormat("deepseek_v32_fp8");
  Expected<const Reference *> ref =
      findReference("attention_sparse_deepseek_v32_fp8");
  ASSERT_TRUE(ref) << ref.takeError().message();
  const uint64_t ps = 2, np = 2, pb = uint64_t(f.pageBytes(int64_t(ps)));
  const std::map<std::string, uint64_t> sizes = {
      {"b", 1},    {"sq", 1},  {"hq", 1},        {"hkv", 1},
      {"d", 576},  {"dv", 512}, {"np", np},      {"ps", ps},
      {"rb", 656}, {"rpp", pb / 656}, {"topk", 2}, {"skv", 2}};
  std::vector<uint8_t> cache(np * pb);
  f.fill(cache.data(), int64_t(np), int64_t(ps), 3);
  std::vector<std::vector<double>> ops(10); // kv2, kv_lens2, indices2 absent
  ops[0].assign(576, 0.0);                       // q
  ops[1].assign(cache.begin(), cache.end());     // the cache's bytes
  ops[4] = {3, -1};                              // slot 3: page 1, token 1
  ops[8].assign(512, 0.0);
  ops[9].assign(1, 0.0);
  ASSERT_FALSE((*ref)->compute(sizes, {{"softmax_scale", 1.0}}, ops));
  std::vector<double> token(576);
  f.decodeToken(cache.data() + pb, int64_t(ps), 1, token.data());
  for (size_t d = 0; d < 512; ++d)
    ASSERT_EQ(ops[8][d], token[d]) << d;
  EXPECT_EQ(ops[9][0], 0.0); // ln 1
  // A cache of the wrong page bytes is refused.
  std::map<std::string, uint64_t> bad = sizes;
  bad["rpp"] += 1;
  Error e = (*ref)->compute(bad, {{"softmax_scale", 1.0}}, ops);
  ASSERT_TRUE(bool(e));
  EXPECT_NE(e.message().find("deepseek_v32_fp8 cache of pages of 2 tokens "
                             "has pages of 1312 bytes"),
            std::string::npos)
      << e.message();
}
