//===- AttentionTest.cpp - examples/attention_decode.mlir on the emulator -===//
//
// The hand-written MQA decode kernel (128 query heads x 1 KV head, head dim
// 128, KV tiles of 128, per-head sink, per-sequence KV lengths), compiled
// by our pipeline at build time, on random bf16 inputs; O (bf16) and LSE
// are compared with a float64 reference of docs/Attention.md's semantics.
// The KV lengths span several tiles, end mid-tile and include a single key.
//
//===----------------------------------------------------------------------===//

#include "GemmRunner.h"
#include "TestUtil.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdio>
#include <random>

using namespace nvfp4::emu;
using namespace nvfp4::emu::test;
namespace rt = nvfp4::rt;

namespace {

struct AttnRun {
  std::string error;
  std::vector<double> o, oRef, lse, lseRef;
  LaunchStats stats;
};

AttnRun runAttention(const std::vector<int32_t> &lens, uint32_t seqCap,
                     uint32_t seed, const std::string &patchOld = "",
                     const std::string &patchNew = "") {
  const uint32_t B = 4, H = 128, D = 128;
  AttnRun r;
  std::string text = readInput("attention_decode_sm100a.ptx");
  if (!patchOld.empty()) {
    size_t at = text.find(patchOld);
    if (at == std::string::npos)
      return {"patch not found"};
    text.replace(at, patchOld.size(), patchNew);
  }
  Machine m;
  auto mod = m.loadPTX(text, "attention_decode_sm100a.ptx");
  if (!mod)
    return {mod.message()};
  auto k = (*mod)->kernel("attention_decode_h128_d128");
  if (!k)
    return {k.message()};
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  auto fill = [&](std::vector<uint16_t> &v, float scale) {
    for (auto &x : v) {
      do
        x = bf16Bits(dist(rng) * scale);
      while ((x & 0x7fff) == 0);
    }
  };
  std::vector<uint16_t> Q(size_t(B) * H * D), K(size_t(B) * seqCap * D),
      V(size_t(B) * seqCap * D);
  fill(Q, 2.0f);
  fill(K, 2.0f);
  fill(V, 1.0f);
  std::vector<float> sink(H);
  for (auto &s : sink)
    s = dist(rng) * 3.0f;
  const float scale = 1.0f / std::sqrt(float(D));
  auto upload = [&](const void *p, size_t bytes) {
    uint64_t d = *m.allocate(bytes);
    (void)m.write(d, p, bytes);
    return d;
  };
  uint64_t dQ = upload(Q.data(), Q.size() * 2);
  uint64_t dK = upload(K.data(), K.size() * 2);
  uint64_t dV = upload(V.data(), V.size() * 2);
  std::vector<uint16_t> oPoison(size_t(B) * H * D, 0x7fc1);
  uint64_t dO = upload(oPoison.data(), oPoison.size() * 2);
  std::vector<uint32_t> lsePoison(size_t(B) * H, 0x7fc0deadu);
  uint64_t dL = upload(lsePoison.data(), lsePoison.size() * 4);
  uint64_t dLens = upload(lens.data(), lens.size() * 4);
  uint64_t dSink = upload(sink.data(), sink.size() * 4);
  auto tmap = [&](uint64_t base, uint64_t rows) {
    rt::TensorMapDesc d;
    d.dataType = rt::TmaDataType::BF16;
    d.rank = 2;
    d.globalAddress = base;
    d.globalDims = {D, rows, 1, 1, 1};
    d.globalStrides = {uint64_t(D) * 2, 0, 0, 0};
    d.boxDims = {64, 128, 0, 0, 0};
    d.swizzle = rt::TmaSwizzle::B128;
    rt::TensorMapBlob blob = rt::encodePortable(d);
    return upload(blob.bytes.data(), 128);
  };
  ParamBuilder p(**k);
  (void)p.addU64(tmap(dQ, uint64_t(B) * H));
  (void)p.addU64(tmap(dK, uint64_t(B) * seqCap));
  (void)p.addU64(tmap(dV, uint64_t(B) * seqCap));
  (void)p.addU64(dO);
  (void)p.addU64(dL);
  (void)p.addU64(dLens);
  (void)p.addU64(dSink);
  (void)p.addU64(seqCap);
  (void)p.addF32(scale * 1.4426950408889634f);
  LaunchConfig cfg;
  cfg.grid = Dim3(B);
  cfg.block = Dim3(256);
  cfg.dynamicSharedBytes = 99328;
  cfg.params = *p.take();
  if (Error e = m.launch(**k, cfg))
    return {e.message()};
  r.stats = m.lastStats();
  std::vector<uint16_t> O(oPoison.size());
  std::vector<float> L(lsePoison.size());
  (void)m.read(dO, O.data(), O.size() * 2);
  (void)m.read(dL, L.data(), L.size() * 4);
  for (uint16_t x : O)
    r.o.push_back(bf16Value(x));
  for (float x : L)
    r.lse.push_back(x);
  // float64 reference (docs/Attention.md): natural-log LSE, sink in the
  // denominator.
  for (uint32_t b = 0; b < B; ++b)
    for (uint32_t h = 0; h < H; ++h) {
      const uint32_t n = static_cast<uint32_t>(lens[b]);
      std::vector<double> s(n);
      double mx = sink[h];
      for (uint32_t j = 0; j < n; ++j) {
        double acc = 0;
        for (uint32_t d = 0; d < D; ++d)
          acc += bf16Value(Q[(size_t(b) * H + h) * D + d]) *
                 bf16Value(K[(size_t(b) * seqCap + j) * D + d]);
        s[j] = acc * double(scale);
        mx = std::max(mx, s[j]);
      }
      double z = std::exp(double(sink[h]) - mx);
      std::vector<double> o(D, 0.0);
      for (uint32_t j = 0; j < n; ++j) {
        double w = std::exp(s[j] - mx);
        z += w;
        for (uint32_t d = 0; d < D; ++d)
          o[d] += w * bf16Value(V[(size_t(b) * seqCap + j) * D + d]);
      }
      for (uint32_t d = 0; d < D; ++d)
        r.oRef.push_back(o[d] / z);
      r.lseRef.push_back(mx + std::log(z));
    }
  return r;
}

struct Cmp {
  double cos = 0, relL2 = 0;
  size_t nonFinite = 0;
};
Cmp compare(const std::vector<double> &a, const std::vector<double> &b) {
  Cmp c;
  double dot = 0, na = 0, nb = 0, ne = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!std::isfinite(a[i])) {
      ++c.nonFinite;
      continue;
    }
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
    ne += (a[i] - b[i]) * (a[i] - b[i]);
  }
  c.cos = dot / std::sqrt(na * nb);
  c.relL2 = std::sqrt(ne / nb);
  return c;
}

TEST(AttentionDecodeTest, MatchesFloat64AcrossTilesAndLengths) {
  // 4 sequences: 4 full tiles; 2 tiles + a partial third; just over one
  // tile; a single key.
  AttnRun r = runAttention({512, 300, 129, 1}, 512, 42);
  ASSERT_EQ(r.error, "");
  Cmp o = compare(r.o, r.oRef), l = compare(r.lse, r.lseRef);
  EXPECT_EQ(o.nonFinite, 0u);
  EXPECT_EQ(l.nonFinite, 0u);
  EXPECT_GE(o.cos, 0.99999) << "rel_l2 " << o.relL2;
  EXPECT_LE(o.relL2, 5e-3);
  EXPECT_LE(l.relL2, 1e-4);
  // 24 MMAs per KV tile (8 for S, 16 for O): 4 + 3 + 2 + 1 tiles.
  EXPECT_EQ(r.stats.mmas, 24u * 10u);
  std::printf("attention decode: O cos=%.8f rel_l2=%.3g, LSE rel_l2=%.3g\n",
              o.cos, o.relL2, l.relL2);
}

} // namespace
