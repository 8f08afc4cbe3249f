//===- TmaTest.cpp - cp.async.bulk.tensor loads ---------------------------===//
//
// TMA tile loads checked against a reference written here from the formula
// in scripts/device/check_outputs.py (verified on an H200), not from the
// emulator's code: the byte at linear offset L of the dense box lands at
// shared address swizzle(base + L), swizzle(a) = a ^ (((a >> 7) & (2^B - 1))
// << 4), B = 0, 1, 2, 3 for none, 32B, 64B, 128B; out-of-bounds elements 0.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "nvfp4/Support/TensorMap.h"

#include "gtest/gtest.h"

#include <random>

using namespace nvfp4::emu;
namespace rt = nvfp4::rt;

namespace {

constexpr uint32_t kTile = 16384;

/// One kernel: thread 0 of each CTA inits its mbarrier (count 1) and
/// expects `pbytes`; after a cluster barrier, thread 0 of CTA rank 0 (every
/// CTA without multicast) issues the load; with `pwait` all threads wait on
/// the barrier; then the threads copy the first `pcopy` bytes of the tile to
/// out + rank * (kTile + 16), followed by the mbarrier word and the tile's
/// shared address.
std::string kernel(unsigned dims, bool multicast) {
  std::string coords;
  for (unsigned i = 0; i < dims; ++i)
    coords += std::string(i ? ", " : "") + "%r" + std::to_string(20 + i);
  std::string s =
      ".version 8.8\n.target sm_100a\n.address_size 64\n"
      ".shared .align 1024 .b8 tile[16384];\n"
      ".shared .align 8 .b64 bar;\n"
      ".visible .entry k(.param .u64 ptmap, .param .u64 pout, .param .u32 "
      "pbytes, .param .u32 pwait, .param .u32 pcopy, .param .u32 pc0, "
      ".param .u32 pc1, .param .u32 pc2, .param .u32 pc3, .param .u32 pc4)\n"
      "{\n  .reg .pred %p<8>;\n  .reg .b16 %h<4>;\n  .reg .b32 %r<32>;\n"
      "  .reg .b64 %rd<16>;\n"
      "  ld.param.u64 %rd1, [ptmap];\n  ld.param.u64 %rd2, [pout];\n"
      "  ld.param.u32 %r1, [pbytes];\n  ld.param.u32 %r2, [pwait];\n"
      "  ld.param.u32 %r9, [pcopy];\n"
      "  ld.param.u32 %r20, [pc0];\n  ld.param.u32 %r21, [pc1];\n"
      "  ld.param.u32 %r22, [pc2];\n  ld.param.u32 %r23, [pc3];\n"
      "  ld.param.u32 %r24, [pc4];\n"
      "  mov.u32 %r0, %tid.x;\n  mov.u32 %r3, tile;\n  mov.u32 %r4, bar;\n"
      "  mov.u32 %r5, %cluster_ctarank;\n"
      "  mul.wide.u32 %rd3, %r5, 16400;\n  add.s64 %rd2, %rd2, %rd3;\n"
      "  setp.ne.u32 %p0, %r0, 0;\n"
      "  @%p0 bra INITDONE;\n"
      "  mbarrier.init.shared.b64 [bar], 1;\n"
      "  mbarrier.arrive.expect_tx.shared.b64 %rd4, [bar], %r1;\n"
      "INITDONE:\n"
      "  barrier.cluster.arrive.aligned;\n  barrier.cluster.wait.aligned;\n";
  if (multicast)
    s += "  setp.ne.or.u32 %p4, %r5, 0, %p0;\n";
  else
    s += "  mov.pred %p4, %p0;\n";
  s += "  @%p4 bra ISSUED;\n";
  if (multicast)
    s += "  mov.u16 %h1, 3;\n"
         "  cp.async.bulk.tensor." +
         std::to_string(dims) +
         "d.shared::cluster.global.tile.mbarrier::complete_tx::bytes."
         "multicast::cluster [%r3], [%rd1, {" +
         coords + "}], [%r4], %h1;\n";
  else
    s += "  cp.async.bulk.tensor." + std::to_string(dims) +
         "d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r3], "
         "[%rd1, {" +
         coords + "}], [%r4];\n";
  s += "ISSUED:\n"
       "  setp.eq.u32 %p1, %r2, 0;\n"
       "  @%p1 bra COPY;\n"
       "WAITL:\n"
       "  mbarrier.try_wait.parity.shared.b64 %p2, [bar], 0;\n"
       "  @!%p2 bra WAITL;\n"
       "COPY:\n"
       "  shl.b32 %r6, %r0, 2;\n"
       "LOOP:\n"
       "  setp.ge.u32 %p3, %r6, %r9;\n"
       "  @%p3 bra DONE;\n"
       "  add.u32 %r7, %r3, %r6;\n"
       "  ld.shared.u32 %r8, [%r7];\n"
       "  cvt.u64.u32 %rd5, %r6;\n  add.s64 %rd6, %rd2, %rd5;\n"
       "  st.global.u32 [%rd6], %r8;\n"
       "  add.u32 %r6, %r6, 512;\n"
       "  bra LOOP;\n"
       "DONE:\n"
       "  @%p0 bra END;\n"
       "  ld.shared.b64 %rd7, [bar];\n"
       "  st.global.b64 [%rd2+16384], %rd7;\n"
       "  st.global.u32 [%rd2+16392], %r3;\n"
       "END:\n  ret;\n}\n";
  return s;
}

struct Result {
  std::string error;
  std::vector<std::vector<uint8_t>> tiles; ///< per CTA, kTile bytes
  std::vector<uint64_t> bar;
  std::vector<uint32_t> base;
};

uint64_t boxBytes(const rt::TensorMapDesc &d) {
  uint64_t n = rt::elementBits(d.dataType) / 8;
  for (unsigned i = 0; i < d.rank; ++i)
    n *= d.boxDims[i];
  return n;
}

/// Allocates the tensor (random bytes), a portable map of `d` (globalAddress
/// filled in) or `blob` when given, and runs the kernel.
Result run(rt::TensorMapDesc &d, std::vector<uint8_t> &global,
           const std::vector<int32_t> &coords, bool wait, bool multicast,
           const rt::TensorMapBlob *blob = nullptr, uint32_t copy = kTile,
           bool checkRaces = true) {
  Result r;
  Machine m;
  auto mod = m.loadPTX(kernel(d.rank, multicast), "tma.ptx");
  if (!mod) {
    r.error = mod.message();
    return r;
  }
  auto k = (*mod)->kernel("k");
  if (!k) {
    r.error = k.message();
    return r;
  }
  EXPECT_TRUE((*k)->unsupported().empty());
  uint64_t bytes = rt::footprintBytes(d);
  global.resize(bytes);
  std::mt19937 rng(42);
  for (uint8_t &b : global)
    b = static_cast<uint8_t>(rng() % 255 + 1); // never 0: OOB zeros show
  uint64_t g = *m.allocate(bytes);
  (void)m.write(g, global.data(), bytes);
  d.globalAddress = g;
  rt::TensorMapBlob map = blob ? *blob : rt::encodePortable(d);
  uint64_t tmap = *m.allocate(128);
  (void)m.write(tmap, map.bytes.data(), 128);
  unsigned ctas = multicast ? 2 : 1;
  uint64_t out = *m.allocate(ctas * (kTile + 16));
  ParamBuilder pb(**k);
  (void)pb.addU64(tmap);
  (void)pb.addU64(out);
  (void)pb.addU32(static_cast<uint32_t>(boxBytes(d)));
  (void)pb.addU32(wait ? 1 : 0);
  (void)pb.addU32(copy);
  for (unsigned i = 0; i < 5; ++i)
    (void)pb.addU32(i < coords.size() ? static_cast<uint32_t>(coords[i]) : 0);
  LaunchConfig cfg;
  cfg.grid = Dim3(ctas);
  cfg.cluster = Dim3(ctas);
  cfg.block = Dim3(128);
  cfg.params = *pb.take();
  cfg.checkTmaRaces = checkRaces;
  if (Error e = m.launch(**k, cfg)) {
    r.error = e.message();
    return r;
  }
  for (unsigned c = 0; c < ctas; ++c) {
    std::vector<uint8_t> t(kTile);
    (void)m.read(out + c * (kTile + 16), t.data(), kTile);
    r.tiles.push_back(t);
    uint64_t bw = 0;
    uint32_t base = 0;
    (void)m.read(out + c * (kTile + 16) + kTile, &bw, 8);
    (void)m.read(out + c * (kTile + 16) + kTile + 8, &base, 4);
    r.bar.push_back(bw);
    r.base.push_back(base);
  }
  return r;
}

/// The reference (check_outputs.py's check_tma, generalized to rank N).
std::vector<uint8_t> reference(const rt::TensorMapDesc &d,
                               const std::vector<uint8_t> &g,
                               const std::vector<int32_t> &c, uint32_t base) {
  unsigned bits = d.swizzle == rt::TmaSwizzle::B32    ? 1
                  : d.swizzle == rt::TmaSwizzle::B64  ? 2
                  : d.swizzle == rt::TmaSwizzle::B128 ? 3
                                                      : 0;
  auto swizzle = [&](uint64_t a) {
    return bits == 0 ? a : a ^ (((a >> 7) & ((1u << bits) - 1)) << 4);
  };
  unsigned eb = rt::elementBits(d.dataType) / 8;
  std::vector<uint8_t> expected(kTile);
  uint64_t n = boxBytes(d) / eb;
  for (uint64_t e = 0; e < n; ++e) {
    uint64_t rest = e, off = 0;
    bool inside = true;
    for (unsigned i = 0; i < d.rank; ++i) {
      int64_t x = c[i] + static_cast<int64_t>(rest % d.boxDims[i]);
      rest /= d.boxDims[i];
      inside &= x >= 0 && static_cast<uint64_t>(x) < d.globalDims[i];
      if (inside)
        off += static_cast<uint64_t>(x) * (i ? d.globalStrides[i - 1] : eb);
    }
    for (unsigned k = 0; k < eb; ++k) {
      uint64_t linear = e * eb + k;
      uint64_t physical = swizzle(base + linear) - base;
      expected[physical] = inside ? g[off + k] : 0;
    }
  }
  return expected;
}

rt::TensorMapDesc desc2d(rt::TmaSwizzle s, uint32_t box0) {
  rt::TensorMapDesc d;
  d.dataType = rt::TmaDataType::BF16;
  d.rank = 2;
  d.globalDims = {100, 70, 1, 1, 1};
  d.globalStrides = {208, 0, 0, 0};
  d.boxDims = {box0, 32, 0, 0, 0};
  d.swizzle = s;
  return d;
}

void expectTile(const rt::TensorMapDesc &d, const std::vector<uint8_t> &g,
                const std::vector<int32_t> &c, const Result &r,
                unsigned cta = 0) {
  ASSERT_EQ(r.error, "");
  ASSERT_GT(r.tiles.size(), cta);
  EXPECT_EQ(r.base[cta] % 1024, 0u);
  std::vector<uint8_t> want = reference(d, g, c, r.base[cta]);
  uint64_t n = boxBytes(d);
  unsigned bad = 0;
  for (uint64_t i = 0; i < n && bad < 8; ++i)
    if (r.tiles[cta][i] != want[i]) {
      ++bad;
      ADD_FAILURE() << "byte " << i << ": got " << unsigned(r.tiles[cta][i])
                    << ", expected " << unsigned(want[i]);
    }
  // The phase completed: parity 1, pending count reloaded (1), tx 0.
  uint64_t w = r.bar[cta];
  EXPECT_EQ(w >> 62 & 1, 1u);
  EXPECT_EQ((w >> 40) & 0x1fffff, 0u);
  EXPECT_EQ(w & 0xfffff, 1u);
}

TEST(TmaTest, TwoDimensionalEachSwizzle) {
  struct Case {
    rt::TmaSwizzle s;
    uint32_t box0;
  };
  for (Case cs :
       {Case{rt::TmaSwizzle::None, 64}, Case{rt::TmaSwizzle::B32, 16},
        Case{rt::TmaSwizzle::B64, 32}, Case{rt::TmaSwizzle::B128, 64}}) {
    SCOPED_TRACE(rt::stringify(cs.s));
    rt::TensorMapDesc d = desc2d(cs.s, cs.box0);
    std::vector<uint8_t> g;
    std::vector<int32_t> c = {8, 5};
    Result r = run(d, g, c, /*wait=*/true, /*multicast=*/false);
    expectTile(d, g, c, r);
  }
}

TEST(TmaTest, PartlyOutOfBoundsWithNegativeCoordinates) {
  for (auto c : {std::vector<int32_t>{-3, -2}, std::vector<int32_t>{90, 60},
                 std::vector<int32_t>{-70, 0}}) {
    rt::TensorMapDesc d = desc2d(rt::TmaSwizzle::B128, 64);
    std::vector<uint8_t> g;
    Result r = run(d, g, c, true, false);
    expectTile(d, g, c, r);
  }
}

TEST(TmaTest, ThreeDimensional) {
  rt::TensorMapDesc d;
  d.dataType = rt::TmaDataType::F32;
  d.rank = 3;
  d.globalDims = {40, 20, 6, 1, 1};
  d.globalStrides = {160, 160 * 20, 0, 0};
  d.boxDims = {32, 8, 3, 0, 0};
  d.swizzle = rt::TmaSwizzle::B128;
  std::vector<uint8_t> g;
  std::vector<int32_t> c = {4, -2, 4};
  Result r = run(d, g, c, true, false);
  expectTile(d, g, c, r);
}

TEST(TmaTest, MulticastToTwoCtas) {
  rt::TensorMapDesc d = desc2d(rt::TmaSwizzle::B64, 32);
  std::vector<uint8_t> g;
  std::vector<int32_t> c = {40, 30};
  Result r = run(d, g, c, true, /*multicast=*/true);
  expectTile(d, g, c, r, 0);
  expectTile(d, g, c, r, 1);
}

TEST(TmaTest, DataArrivesOnlyLater) {
  // Without the wait the tile still holds its old contents (zeros) when the
  // threads read it right after issuing; the barrier's phase is still open.
  rt::TensorMapDesc d = desc2d(rt::TmaSwizzle::None, 64);
  std::vector<uint8_t> g;
  Result r = run(d, g, {0, 0}, /*wait=*/false, false, nullptr, 512,
                 /*checkRaces=*/false);
  ASSERT_EQ(r.error, "");
  for (uint32_t i = 0; i < 512; ++i)
    ASSERT_EQ(r.tiles[0][i], 0u) << "byte " << i;
  EXPECT_EQ(r.bar[0] >> 62 & 1, 0u);
  // The expect_tx is there, the bytes are not.
  EXPECT_EQ((r.bar[0] >> 40) & 0x1fffff, boxBytes(d));
}

TEST(TmaTest, ReadingATileInFlightIsAnError) {
  rt::TensorMapDesc d = desc2d(rt::TmaSwizzle::None, 64);
  std::vector<uint8_t> g;
  Result r = run(d, g, {0, 0}, /*wait=*/false, false, nullptr, 512);
  EXPECT_NE(r.error.find("race: shared load of 4 bytes at shared address 0x0 "
                         "of CTA rank 0 touches bytes that the TMA load "
                         "issued in CTA (0,0,0) warp 0 lane 0"),
            std::string::npos)
      << r.error;
  EXPECT_NE(r.error.find("in CTA (0,0,0) warp 0 lane 0 (thread (0,0,0)) at "
                         "line "),
            std::string::npos)
      << r.error;
}

TEST(TmaTest, BadTensorMapIsAnError) {
  rt::TensorMapDesc d = desc2d(rt::TmaSwizzle::None, 64);
  rt::TensorMapDesc bad = d;
  bad.elementStrides[0] = 0;
  rt::TensorMapBlob blob = rt::encodePortable(bad);
  std::vector<uint8_t> g;
  Result r = run(d, g, {0, 0}, true, false, &blob);
  EXPECT_NE(r.error.find("bad tensor map"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("elemstrides[0]"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("at line "), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("warp 0 lane 0"), std::string::npos) << r.error;

  rt::TensorMapBlob junk; // not a tensor map at all
  Result r2 = run(d, g, {0, 0}, true, false, &junk);
  EXPECT_NE(r2.error.find("not a portable tensor map"), std::string::npos)
      << r2.error;
}

} // namespace

namespace {

TEST(TmaTest, CtaGroup2SignalsThePeerBarrier) {
  // CTA 0 loads into its own tile but signals CTA 1's barrier (the
  // shared::cluster address of rank 1: (1 + 1) << 24 | offset).
  const char *text =
      ".version 8.8\n.target sm_100a\n.address_size 64\n"
      ".shared .align 1024 .b8 tile[1024];\n.shared .align 8 .b64 bar;\n"
      ".visible .entry k(.param .u64 ptmap, .param .u64 pout)\n{\n"
      "  .reg .pred %p<8>;\n  .reg .b32 %r<16>;\n  .reg .b64 %rd<16>;\n"
      "  ld.param.u64 %rd1, [ptmap];\n  ld.param.u64 %rd2, [pout];\n"
      "  mov.u32 %r0, %tid.x;\n  mov.u32 %r5, %cluster_ctarank;\n"
      "  mov.u32 %r3, tile;\n  mov.u32 %r4, bar;\n  mov.u32 %r7, 0;\n"
      "  setp.ne.u32 %p0, %r0, 0;\n  @%p0 bra A;\n"
      "  mbarrier.init.shared.b64 [bar], 1;\n"
      "  setp.ne.u32 %p1, %r5, 1;\n  @%p1 bra A;\n"
      "  mbarrier.arrive.expect_tx.shared.b64 %rd4, [bar], 1024;\n"
      "A:\n  barrier.cluster.arrive.aligned;\n  barrier.cluster.wait.aligned;\n"
      "  setp.ne.or.u32 %p2, %r5, 0, %p0;\n  @%p2 bra B;\n"
      "  mapa.shared::cluster.u32 %r6, %r4, 1;\n"
      "  cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::"
      "complete_tx::bytes.cta_group::2 [%r3], [%rd1, {%r7, %r7}], [%r6];\n"
      "B:\n  setp.ne.u32 %p3, %r5, 1;\n  @%p3 bra C;\n"
      "W:\n  mbarrier.try_wait.parity.shared.b64 %p4, [bar], 0;\n"
      "  @!%p4 bra W;\n"
      "C:\n  barrier.cluster.arrive.aligned;\n  barrier.cluster.wait.aligned;\n"
      "  @%p0 bra END;\n"
      "  ld.shared.b64 %rd7, [bar];\n  mul.wide.u32 %rd8, %r5, 16;\n"
      "  add.s64 %rd9, %rd2, %rd8;\n  st.global.b64 [%rd9], %rd7;\n"
      "  ld.shared.u32 %r8, [tile];\n  st.global.u32 [%rd9+8], %r8;\n"
      "END:\n  ret;\n}\n";
  Machine m;
  auto mod = m.loadPTX(text, "cg2.ptx");
  ASSERT_TRUE(static_cast<bool>(mod)) << mod.message();
  auto k = (*mod)->kernel("k");
  ASSERT_TRUE(static_cast<bool>(k)) << k.message();
  EXPECT_TRUE((*k)->unsupported().empty());
  rt::TensorMapDesc d = desc2d(rt::TmaSwizzle::None, 64);
  d.boxDims = {64, 8, 0, 0, 0}; // 1024 bytes
  std::vector<uint8_t> global(rt::footprintBytes(d));
  for (size_t i = 0; i < global.size(); ++i)
    global[i] = static_cast<uint8_t>(i * 7 + 1);
  uint64_t g = *m.allocate(global.size());
  ASSERT_FALSE(static_cast<bool>(m.write(g, global.data(), global.size())));
  d.globalAddress = g;
  rt::TensorMapBlob blob = rt::encodePortable(d);
  uint64_t tmap = *m.allocate(128), out = *m.allocate(32);
  ASSERT_FALSE(static_cast<bool>(m.write(tmap, blob.bytes.data(), 128)));
  ParamBuilder pb(**k);
  (void)pb.addU64(tmap);
  (void)pb.addU64(out);
  LaunchConfig cfg;
  cfg.grid = Dim3(2);
  cfg.cluster = Dim3(2);
  cfg.block = Dim3(32);
  cfg.params = *pb.take();
  Error e = m.launch(**k, cfg);
  ASSERT_FALSE(static_cast<bool>(e)) << e.message();
  uint64_t w[4] = {};
  ASSERT_FALSE(static_cast<bool>(m.read(out, w, 32)));
  uint32_t first;
  std::memcpy(&first, global.data(), 4);
  EXPECT_EQ(w[0] >> 62 & 1, 0u);                 // CTA 0's barrier: untouched
  EXPECT_EQ(static_cast<uint32_t>(w[1]), first); // CTA 0's tile: the data
  EXPECT_EQ(w[2] >> 62 & 1, 1u);                 // CTA 1's barrier: completed
  EXPECT_EQ((w[2] >> 40) & 0x1fffff, 0u);
  EXPECT_EQ(static_cast<uint32_t>(w[3]), 0u); // CTA 1's tile: no data
}

} // namespace

namespace {

TEST(TmaTest, NanFillOutOfBounds) {
  rt::TensorMapDesc d;
  d.dataType = rt::TmaDataType::F32;
  d.rank = 2;
  d.globalDims = {40, 10, 1, 1, 1};
  d.globalStrides = {160, 0, 0, 0};
  d.boxDims = {32, 4, 0, 0, 0};
  d.oobFill = rt::TmaOobFill::NaN;
  std::vector<uint8_t> g;
  Result r = run(d, g, {-8, 2}, true, false);
  ASSERT_EQ(r.error, "");
  for (uint32_t row = 0; row < 4; ++row)
    for (uint32_t e = 0; e < 32; ++e) {
      uint32_t got, want = 0x7ff77ff7; // as on an H200 (tma_*_nan)
      std::memcpy(&got, r.tiles[0].data() + (row * 32 + e) * 4, 4);
      if (e >= 8)
        std::memcpy(&want, g.data() + (row + 2) * 160 + (e - 8) * 4, 4);
      ASSERT_EQ(got, want) << "row " << row << " element " << e;
    }
}

} // namespace

namespace {

// A 64-byte box row under the 128B swizzle occupies a whole 128-byte
// swizzle row (the other 64 bytes are untouched), and OOB fill NaN writes
// 0x7ff7 in every 16 bits, as on an H200 (corpus cases
// tma_2d_bf16_128B_b64_8_3 and tma_*_nan).
TEST(TmaTest, NarrowBoxUnderSwizzleAndNanFillAsOnH200) {
  rt::TensorMapDesc d = desc2d(rt::TmaSwizzle::B128, 32);
  d.boxDims = {32, 8, 0, 0, 0};
  d.oobFill = rt::TmaOobFill::NaN;
  std::vector<uint8_t> g;
  std::vector<int32_t> c = {90, 66};
  Result r = run(d, g, c, true, false);
  ASSERT_EQ(r.error, "");
  uint32_t base = r.base[0];
  std::vector<uint8_t> want(kTile, 0);
  for (uint32_t y = 0; y < 8; ++y)
    for (uint32_t x = 0; x < 32; ++x) {
      bool inside = c[0] + x < 100 && c[1] + y < 70;
      uint64_t off = (c[1] + y) * 208 + (c[0] + x) * 2;
      uint64_t linear = y * 128 + x * 2;
      for (unsigned k = 0; k < 2; ++k) {
        uint64_t a = base + linear + k;
        uint64_t phys = (a ^ (((a >> 7) & 7) << 4)) - base;
        want[phys] = inside ? g[off + k] : (k ? 0x7f : 0xf7);
      }
    }
  for (uint32_t i = 0; i < 8 * 128; ++i)
    ASSERT_EQ(unsigned(r.tiles[0][i]), unsigned(want[i])) << "byte " << i;
}

} // namespace
