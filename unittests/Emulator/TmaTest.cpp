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
std::string kernel(unsigned dims, bool multicast, bool gather4 = false) {
  std::string coords;
  for (unsigned i = 0; i < (gather4 ? 5 : dims); ++i)
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
      "  fence.mbarrier_init.release.cluster;\n"
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
         "d.shared::cluster.global.tile" + (gather4 ? "::gather4" : "") +
         ".mbarrier::complete_tx::bytes [%r3], [%rd1, {" + coords +
         "}], [%r4];\n";
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
           bool checkRaces = true, bool sanitize = true,
           bool gather4 = false) {
  Result r;
  Machine m;
  auto mod = m.loadPTX(kernel(d.rank, multicast, gather4), "tma.ptx");
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
  (void)pb.addU32(static_cast<uint32_t>(boxBytes(d) * (gather4 ? 4 : 1)));
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
  // Without the race checks the sanitizer's happens-before check would
  // still report the unsynchronized read (SanitizerTest covers that).
  cfg.sanitize = checkRaces && sanitize;
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
  // Dimension-0 starts at 16-byte multiples (bf16: 8 elements), as the
  // H200 requires (corpus cases tmaalign_*).
  for (auto c : {std::vector<int32_t>{-8, -2}, std::vector<int32_t>{88, 60},
                 std::vector<int32_t>{-72, 0}}) {
    rt::TensorMapDesc d = desc2d(rt::TmaSwizzle::B128, 64);
    std::vector<uint8_t> g;
    Result r = run(d, g, c, true, false);
    expectTile(d, g, c, r);
  }
  // Any other start faults, in bounds or not.
  for (auto c : {std::vector<int32_t>{-3, -2}, std::vector<int32_t>{90, 60},
                 std::vector<int32_t>{4, 1}}) {
    rt::TensorMapDesc d = desc2d(rt::TmaSwizzle::B128, 64);
    std::vector<uint8_t> g;
    Result r = run(d, g, c, true, false);
    EXPECT_NE(r.error.find("TMA tile load whose box starts at byte " +
                           std::to_string(c[0] * 2) + " of dimension 0"),
              std::string::npos)
        << r.error;
    EXPECT_NE(r.error.find("not a multiple of 16 bytes"), std::string::npos)
        << r.error;
  }
}

/// tile::gather4 (PTX ISA 5.5.3.4): rows r0..r3 of a 2-D map, each a box
/// of box0 x 1 from column c, stacked as a four-row box in shared memory
/// (swizzled as one), a row outside the map zero-filled.
TEST(TmaTest, Gather4StacksFourRows) {
  for (rt::TmaSwizzle sw : {rt::TmaSwizzle::None, rt::TmaSwizzle::B128}) {
    SCOPED_TRACE(rt::stringify(sw));
    rt::TensorMapDesc d = desc2d(sw, 64);
    d.globalDims = {64, 70, 1, 1, 1};
    d.globalStrides = {128, 0, 0, 0};
    d.boxDims = {64, 1, 0, 0, 0};
    std::vector<uint8_t> g;
    // Rows in any order, repeated, and outside the map (-1, 70).
    std::vector<int32_t> c = {0, 37, -1, 37, 70};
    Result r = run(d, g, c, true, false, nullptr, kTile, true, true,
                   /*gather4=*/true);
    ASSERT_EQ(r.error, "");
    std::vector<uint8_t> want(4 * 128);
    for (unsigned row = 0; row < 4; ++row) {
      rt::TensorMapDesc one = d;
      std::vector<int32_t> rc = {c[0], c[1 + row]};
      std::vector<uint8_t> part = reference(one, g, rc, r.base[0] + row * 128);
      std::copy_n(part.begin(), 128, want.begin() + row * 128);
    }
    for (unsigned i = 0; i < 4 * 128; ++i)
      ASSERT_EQ(r.tiles[0][i], want[i]) << "byte " << i;
    EXPECT_EQ(r.tiles[0][128], 0u); // row -1: zero fill
    EXPECT_EQ(std::count(r.tiles[0].begin() + 384, r.tiles[0].begin() + 512,
                         0),
              128); // row 70: zero fill
  }
  // A box taller than one row is not a gather4 map.
  rt::TensorMapDesc d = desc2d(rt::TmaSwizzle::B128, 64);
  std::vector<uint8_t> g;
  Result r = run(d, g, {0, 1, 2, 3, 4}, true, false, nullptr, kTile, true,
                 true, /*gather4=*/true);
  EXPECT_NE(r.error.find("tile::gather4 needs 1"), std::string::npos)
      << r.error;
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
  // Without the wait the tile still holds its old contents (the emulator's
  // shared-memory fill byte, 0xff) when the threads read it right after
  // issuing; the barrier's phase is still open.
  rt::TensorMapDesc d = desc2d(rt::TmaSwizzle::None, 64);
  std::vector<uint8_t> g;
  Result r = run(d, g, {0, 0}, /*wait=*/false, false, nullptr, 512,
                 /*checkRaces=*/false);
  ASSERT_EQ(r.error, "");
  for (uint32_t i = 0; i < 512; ++i)
    ASSERT_EQ(r.tiles[0][i], 0xffu) << "byte " << i;
  EXPECT_EQ(r.bar[0] >> 62 & 1, 0u);
  // The expect_tx is there, the bytes are not.
  EXPECT_EQ((r.bar[0] >> 40) & 0x1fffff, boxBytes(d));
}

TEST(TmaTest, ReadingATileInFlightIsAnError) {
  rt::TensorMapDesc d = desc2d(rt::TmaSwizzle::None, 64);
  std::vector<uint8_t> g;
  // The check at the moment of the access (the sanitizer off: it reports
  // the same kernel by happens-before, see below).
  Result r = run(d, g, {0, 0}, /*wait=*/false, false, nullptr, 512, true,
                 /*sanitize=*/false);
  EXPECT_NE(r.error.find("race: shared load of 4 bytes at shared address 0x0 "
                         "of CTA rank 0 touches bytes that the TMA load "
                         "issued in CTA (0,0,0) warp 0 lane 0"),
            std::string::npos)
      << r.error;
  EXPECT_NE(r.error.find("in CTA (0,0,0) warp 0 lane 0 (thread (0,0,0)) at "
                         "line "),
            std::string::npos)
      << r.error;
  // The sanitizer: the TMA's write and the threads' reads are not ordered,
  // whichever lands first.
  r = run(d, g, {0, 0}, /*wait=*/false, false, nullptr, 512);
  EXPECT_NE(r.error.find("race: "), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("TMA load"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("not ordered by any synchronization"),
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
      "  fence.mbarrier_init.release.cluster;\n"
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
  EXPECT_EQ(static_cast<uint32_t>(w[3]), 0xffffffffu); // CTA 1's tile: no
                                                       // data (fill bytes)
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
  std::vector<int32_t> c = {88, 66}; // a 16-byte dimension-0 start
  Result r = run(d, g, c, true, false);
  ASSERT_EQ(r.error, "");
  uint32_t base = r.base[0];
  std::vector<uint8_t> want(kTile, 0xff); // untouched: the fill byte
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

//===----------------------------------------------------------------------===//
// Tensor stores: cp.async.bulk.tensor.Nd.global.shared::cta.tile.bulk_group
//===----------------------------------------------------------------------===//
//
// The reference is written here from the PTX ISA's description and the load
// formula above (not from Tma.cpp): element x of box row r (rows numbered
// with dimension 1 fastest) is read from shared address swizzle(base + r *
// pitch + x * esize) (pitch = the row's bytes, or the swizzle span when the
// row is narrower), and written to the global element at coordinates + box
// index when that is inside the tensor; everything else in global memory
// (elements outside the tensor, row padding) keeps its contents. With the
// H200's rule (HardwareRulesTest): dimension 0 ends at its size rounded up
// to 16 bytes, as the hardware writes whole 16-byte chunks. Coordinates are
// never negative and dimension 0 starts 16-byte aligned: the H200 faults
// otherwise (HardwareRulesTest; the emulator's errors are checked there).

namespace {

/// Thread t copies 4-byte words of `psrc` (kTile bytes) into the tile, all
/// threads fence and sync, then thread 0 issues the store from `srcOperand`
/// (coordinates pc0.., the map at ptmap) and commits it. Then it writes the
/// word at `pprobe` to pout[0]; mode bit 0: no waits at all (the store lands
/// when the thread exits); else `wait_group.read 0`, and with mode bit 1 it
/// zeroes the tile (allowed after .read), then `wait_group 0`; then it
/// writes the probe again to pout[1] and the tile's address to pout[2].
std::string
storeKernel(unsigned dims, const std::string &srcOperand,
            const std::string &spaces = "global.shared::cta.tile.bulk_group") {
  std::string coords;
  for (unsigned i = 0; i < dims; ++i)
    coords += std::string(i ? ", " : "") + "%r" + std::to_string(20 + i);
  return ".version 8.8\n.target sm_90a\n.address_size 64\n"
         ".shared .align 1024 .b8 tile[16384];\n"
         ".visible .entry k(.param .u64 ptmap, .param .u64 psrc, "
         ".param .u64 pout, .param .u64 pprobe, .param .u32 pmode, "
         ".param .u32 pc0, .param .u32 pc1, .param .u32 pc2, "
         ".param .u32 pc3, .param .u32 pc4)\n"
         "{\n  .reg .pred %p<8>;\n  .reg .b32 %r<32>;\n  .reg .b64 %rd<16>;\n"
         "  ld.param.u64 %rd1, [ptmap];\n  ld.param.u64 %rd2, [psrc];\n"
         "  ld.param.u64 %rd3, [pout];\n  ld.param.u64 %rd4, [pprobe];\n"
         "  ld.param.u32 %r2, [pmode];\n"
         "  ld.param.u32 %r20, [pc0];\n  ld.param.u32 %r21, [pc1];\n"
         "  ld.param.u32 %r22, [pc2];\n  ld.param.u32 %r23, [pc3];\n"
         "  ld.param.u32 %r24, [pc4];\n"
         "  mov.u32 %r0, %tid.x;\n  mov.u32 %r3, tile;\n"
         "  shl.b32 %r6, %r0, 2;\n"
         "FILL:\n"
         "  setp.ge.u32 %p1, %r6, 16384;\n  @%p1 bra FILLED;\n"
         "  cvt.u64.u32 %rd5, %r6;\n  add.s64 %rd6, %rd2, %rd5;\n"
         "  ld.global.u32 %r8, [%rd6];\n"
         "  add.u32 %r7, %r3, %r6;\n  st.shared.u32 [%r7], %r8;\n"
         "  add.u32 %r6, %r6, 512;\n  bra FILL;\n"
         "FILLED:\n"
         "  fence.proxy.async.shared::cta;\n  bar.sync 0;\n"
         "  setp.ne.u32 %p0, %r0, 0;\n  @%p0 bra END;\n"
         "  cp.async.bulk.tensor." +
         std::to_string(dims) + "d." + spaces + " [%rd1, {" + coords + "}], " +
         srcOperand +
         ";\n"
         "  cp.async.bulk.commit_group;\n"
         "  ld.global.u32 %r9, [%rd4];\n  st.global.u32 [%rd3], %r9;\n"
         "  and.b32 %r10, %r2, 1;\n  setp.ne.u32 %p2, %r10, 0;\n"
         "  @%p2 bra PROBE;\n"
         "  cp.async.bulk.wait_group.read 0;\n"
         "  and.b32 %r10, %r2, 2;\n  setp.eq.u32 %p3, %r10, 0;\n"
         "  @%p3 bra WAIT;\n"
         "  mov.u32 %r6, 0;\n  mov.u32 %r11, 0;\n"
         "ZERO:\n"
         "  add.u32 %r7, %r3, %r6;\n"
         "  st.shared.v4.u32 [%r7], {%r11, %r11, %r11, %r11};\n"
         "  add.u32 %r6, %r6, 16;\n"
         "  setp.lt.u32 %p4, %r6, 16384;\n  @%p4 bra ZERO;\n"
         "WAIT:\n"
         "  cp.async.bulk.wait_group 0;\n"
         "PROBE:\n"
         "  ld.global.u32 %r9, [%rd4];\n  st.global.u32 [%rd3+4], %r9;\n"
         "  st.global.u32 [%rd3+8], %r3;\n"
         "END:\n  ret;\n}\n";
}

struct StoreResult {
  std::string error;
  std::vector<uint8_t> before; ///< the tensor's initial contents
  std::vector<uint8_t> after;  ///< ... after the launch
  std::vector<uint8_t> src;    ///< the tile's contents (kTile bytes)
  uint32_t probe[3] = {};      ///< pout[0..2]
};

/// Runs storeKernel on a tensor of `d` (random initial contents) with a
/// random source tile; `probe` is the byte offset in the tensor of the word
/// the kernel probes. The tensor's allocation is its footprint rounded up
/// to 16 bytes, or exactly its footprint without `roundUp`.
StoreResult
runStore(rt::TensorMapDesc &d, const std::vector<int32_t> &coords,
         uint32_t mode = 0, uint64_t probe = 0,
         const std::string &srcOperand = "[%r3]", unsigned kernelDims = 0,
         const std::string &spaces = "global.shared::cta.tile.bulk_group",
         bool roundUp = true) {
  StoreResult r;
  Machine m;
  auto mod = m.loadPTX(
      storeKernel(kernelDims ? kernelDims : d.rank, srcOperand, spaces),
      "tma_store.ptx");
  if (!mod) {
    r.error = mod.message();
    return r;
  }
  auto k = (*mod)->kernel("k");
  if (!k) {
    r.error = k.message();
    return r;
  }
  if (!(*k)->unsupported().empty()) {
    r.error = "unsupported: " + (*k)->unsupported().front();
    return r;
  }
  // Rounded up to 16 bytes: a store writes whole 16-byte chunks, also
  // past the end of dimension 0 in the last row (HardwareRulesTest).
  uint64_t bytes = rt::footprintBytes(d);
  if (roundUp)
    bytes = (bytes + 15) / 16 * 16;
  std::mt19937 rng(7);
  r.before.resize(bytes);
  for (uint8_t &b : r.before)
    b = static_cast<uint8_t>(rng());
  r.src.resize(kTile);
  for (uint8_t &b : r.src)
    b = static_cast<uint8_t>(rng());
  uint64_t g = *m.allocate(bytes);
  (void)m.write(g, r.before.data(), bytes);
  uint64_t s = *m.allocate(kTile);
  (void)m.write(s, r.src.data(), kTile);
  d.globalAddress = g;
  rt::TensorMapBlob map = rt::encodePortable(d);
  uint64_t tmap = *m.allocate(128);
  (void)m.write(tmap, map.bytes.data(), 128);
  uint64_t out = *m.allocate(16);
  ParamBuilder pb(**k);
  (void)pb.addU64(tmap);
  (void)pb.addU64(s);
  (void)pb.addU64(out);
  (void)pb.addU64(g + probe);
  (void)pb.addU32(mode);
  for (unsigned i = 0; i < 5; ++i)
    (void)pb.addU32(i < coords.size() ? static_cast<uint32_t>(coords[i]) : 0);
  LaunchConfig cfg;
  cfg.grid = Dim3(1);
  cfg.block = Dim3(128);
  cfg.params = *pb.take();
  if (Error e = m.launch(**k, cfg)) {
    r.error = e.message();
    return r;
  }
  r.after.resize(bytes);
  (void)m.read(g, r.after.data(), bytes);
  (void)m.read(out, r.probe, 12);
  return r;
}

/// The tensor after the store, from the PTX ISA's description (see above).
/// Also counts the elements written.
std::vector<uint8_t> storeReference(const rt::TensorMapDesc &d,
                                    const StoreResult &r,
                                    const std::vector<int32_t> &c,
                                    uint64_t *written = nullptr) {
  const unsigned span = d.swizzle == rt::TmaSwizzle::B32    ? 32
                        : d.swizzle == rt::TmaSwizzle::B64  ? 64
                        : d.swizzle == rt::TmaSwizzle::B128 ? 128
                                                            : 0;
  const uint64_t base = r.probe[2];
  auto swizzle = [&](uint64_t a) -> uint64_t {
    // Bits 4.. of the 16-byte chunk within a span XOR the 128-byte row
    // index within the pattern (span / 16 rows of 128 bytes).
    if (span == 0)
      return a;
    uint64_t chunk = (a >> 4) & (span / 16 - 1);
    uint64_t row = (a >> 7) & (span / 16 - 1);
    return (a & ~(uint64_t(span / 16 - 1) << 4)) | (chunk ^ row) << 4;
  };
  const unsigned eb = rt::elementBits(d.dataType) / 8;
  const uint64_t rowBytes = uint64_t(d.boxDims[0]) * eb;
  const uint64_t pitch = span && rowBytes < span ? span : rowBytes;
  const int64_t end0 =
      static_cast<int64_t>((d.globalDims[0] * eb + 15) / 16 * 16 / eb);
  std::vector<uint8_t> want = r.before;
  uint64_t rows = 1;
  for (unsigned i = 1; i < d.rank; ++i)
    rows *= d.boxDims[i];
  uint64_t count = 0;
  for (uint64_t row = 0; row < rows; ++row) {
    // The outer box indices of this row, dimension 1 fastest.
    uint64_t rest = row, outer = 0;
    bool inside = true;
    for (unsigned i = 1; i < d.rank; ++i) {
      int64_t x = c[i] + static_cast<int64_t>(rest % d.boxDims[i]);
      rest /= d.boxDims[i];
      if (x < 0 || x >= static_cast<int64_t>(d.globalDims[i]))
        inside = false;
      else
        outer += static_cast<uint64_t>(x) * d.globalStrides[i - 1];
    }
    for (uint32_t x = 0; x < d.boxDims[0]; ++x) {
      int64_t gx = c[0] + static_cast<int64_t>(x);
      if (!inside || gx < 0 || gx >= end0)
        continue;
      ++count;
      for (unsigned k = 0; k < eb; ++k) {
        uint64_t sh = swizzle(base + row * pitch + x * eb + k) - base;
        want[outer + static_cast<uint64_t>(gx) * eb + k] = r.src[sh];
      }
    }
  }
  if (written)
    *written = count;
  return want;
}

void expectStore(const rt::TensorMapDesc &d, const std::vector<int32_t> &c,
                 const StoreResult &r, uint64_t expectWritten = ~0ull) {
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.probe[2] % 1024, 0u);
  uint64_t written = 0;
  std::vector<uint8_t> want = storeReference(d, r, c, &written);
  if (expectWritten != ~0ull) {
    EXPECT_EQ(written, expectWritten);
  }
  ASSERT_EQ(r.after.size(), want.size());
  unsigned bad = 0;
  for (size_t i = 0; i < want.size() && bad < 8; ++i)
    if (r.after[i] != want[i]) {
      ++bad;
      ADD_FAILURE() << "tensor byte " << i << ": got " << unsigned(r.after[i])
                    << ", expected " << unsigned(want[i]) << " (initially "
                    << unsigned(r.before[i]) << ")";
    }
}

/// A rank-N tensor with padded rows (272-byte row pitch for 256 bytes of
/// elements) and padded planes, and a box whose inner extent is
/// `innerBytes`.
rt::TensorMapDesc storeDesc(unsigned rank, rt::TmaDataType t, rt::TmaSwizzle s,
                            uint32_t innerBytes) {
  rt::TensorMapDesc d;
  d.dataType = t;
  d.rank = rank;
  const unsigned eb = rt::elementBits(t) / 8;
  const uint64_t dims[5] = {256 / eb, 9, 5, 3, 3};
  const uint32_t box[5] = {innerBytes / eb, 4, 3, 2, 2};
  uint64_t stride = 272;
  for (unsigned i = 0; i < rank; ++i) {
    d.globalDims[i] = dims[i];
    d.boxDims[i] = box[i];
    if (i + 1 < rank) {
      d.globalStrides[i] = stride;
      stride = stride * dims[i + 1] + 32;
    }
  }
  d.swizzle = s;
  return d;
}

uint32_t spanOf(rt::TmaSwizzle s) {
  return s == rt::TmaSwizzle::B32    ? 32
         : s == rt::TmaSwizzle::B64  ? 64
         : s == rt::TmaSwizzle::B128 ? 128
                                     : 64;
}

const rt::TmaSwizzle kSwizzles[] = {rt::TmaSwizzle::None, rt::TmaSwizzle::B32,
                                    rt::TmaSwizzle::B64, rt::TmaSwizzle::B128};

TEST(TmaStoreTest, TwoDimensionalEachSwizzle) {
  for (rt::TmaSwizzle s : kSwizzles) {
    SCOPED_TRACE(rt::stringify(s));
    rt::TensorMapDesc d = desc2d(s, spanOf(s) / 2);
    std::vector<int32_t> c = {8, 5};
    StoreResult r = runStore(d, c);
    expectStore(d, c, r, uint64_t(d.boxDims[0]) * 32);
  }
}

TEST(TmaStoreTest, OneToFiveDimensionsEachSwizzleAndType) {
  const rt::TmaDataType types[] = {rt::TmaDataType::U8, rt::TmaDataType::BF16,
                                   rt::TmaDataType::F32, rt::TmaDataType::F64};
  unsigned n = 0;
  for (unsigned rank = 1; rank <= 5; ++rank)
    for (rt::TmaSwizzle s : kSwizzles) {
      if (rank == 1 && s != rt::TmaSwizzle::None)
        continue;
      rt::TmaDataType t = types[(rank + n++) % 4];
      SCOPED_TRACE("rank " + std::to_string(rank) + " " + rt::stringify(s) +
                   " " + rt::stringify(t));
      rt::TensorMapDesc d = storeDesc(rank, t, s, spanOf(s));
      std::vector<int32_t> c = {16 / int32_t(rt::elementBits(t) / 8), 1, 1, 0,
                                1};
      c.resize(rank);
      uint64_t all = 1;
      for (unsigned i = 0; i < rank; ++i)
        all *= d.boxDims[i];
      StoreResult r = runStore(d, c);
      expectStore(d, c, r, all);
    }
}

TEST(TmaStoreTest, PartlyOutOfBoundsIsNotWritten) {
  struct Case {
    unsigned rank;
    rt::TmaSwizzle s;
    std::vector<int32_t> c;
    uint64_t written;
  };
  // 2-D bf16 box 64 (32 under 64B) x 32 in a 100 x 70 tensor (dimension 0
  // of 200 bytes: 16-byte chunks reach element 103); 5-D f32 box 32 (8
  // under 32B) x 4 x 3 x 2 x 2 in 64 x 9 x 5 x 3 x 3. The last field counts
  // the elements written, e.g. for {40, 7, 3, 2, 2}: x 40..71 of 64 (24),
  // y 7..10 of 9 (2), z 3..5 of 5 (2), w 2..3 of 3 (1), v 2..3 of 3 (1).
  // (Negative coordinates fault on the H200: HardwareRulesTest.)
  for (const Case &cs : {
           Case{2, rt::TmaSwizzle::B128, {88, 60}, 16 * 10},
           Case{2, rt::TmaSwizzle::B128, {0, 40}, 64 * 30},
           Case{2, rt::TmaSwizzle::B64, {104, 0}, 0},
           Case{2, rt::TmaSwizzle::None, {200, 50}, 0},
           Case{5, rt::TmaSwizzle::B128, {40, 7, 3, 2, 2}, 24 * 2 * 2 * 1 * 1},
           Case{5, rt::TmaSwizzle::B32, {60, 8, 4, 1, 1}, 4 * 1 * 1 * 2 * 2},
           Case{3, rt::TmaSwizzle::None, {0, 9, 0}, 0},
       }) {
    SCOPED_TRACE(std::to_string(cs.rank) + "d " + rt::stringify(cs.s) + " " +
                 std::to_string(cs.c[0]) + "," + std::to_string(cs.c[1]));
    rt::TensorMapDesc d =
        cs.rank == 2 ? desc2d(cs.s, cs.s == rt::TmaSwizzle::B64 ? 32 : 64)
                     : storeDesc(cs.rank, rt::TmaDataType::F32, cs.s,
                                 cs.s == rt::TmaSwizzle::B32 ? 32 : 128);
    StoreResult r = runStore(d, cs.c);
    expectStore(d, cs.c, r, cs.written);
    if (cs.written == 0) {
      EXPECT_EQ(r.after, r.before);
    }
  }
}

TEST(TmaStoreTest, NarrowRowUnderSwizzleTakesAWholeSpan) {
  // 64-byte rows under the 128B swizzle, 32-byte rows under 64B, 16-byte
  // rows under 32B: row r is read from r * span.
  for (auto sb : {std::pair<rt::TmaSwizzle, uint32_t>{rt::TmaSwizzle::B128, 32},
                  {rt::TmaSwizzle::B64, 16},
                  {rt::TmaSwizzle::B32, 8}}) {
    SCOPED_TRACE(rt::stringify(sb.first));
    rt::TensorMapDesc d = desc2d(sb.first, sb.second);
    std::vector<int32_t> c = {8, 2};
    StoreResult r = runStore(d, c);
    expectStore(d, c, r, sb.second * 32);
  }
}

TEST(TmaStoreTest, SymbolSourceOperand) {
  rt::TensorMapDesc d = desc2d(rt::TmaSwizzle::B128, 64);
  std::vector<int32_t> c = {8, 1};
  StoreResult r = runStore(d, c, 0, 0, "[tile]");
  expectStore(d, c, r);
}

TEST(TmaStoreTest, LandsWhenTheBulkGroupCompletes) {
  // The probe is the first word of the box (element (0, 0) of the tensor):
  // before the wait the issuing thread still reads the old word.
  rt::TensorMapDesc d = desc2d(rt::TmaSwizzle::B64, 32);
  std::vector<int32_t> c = {0, 0};
  uint32_t old = 0, now = 0;
  StoreResult r = runStore(d, c, /*mode=*/0, /*probe=*/0);
  expectStore(d, c, r);
  std::memcpy(&old, r.before.data(), 4);
  std::memcpy(&now, r.after.data(), 4);
  ASSERT_NE(old, now);
  EXPECT_EQ(r.probe[0], old);
  EXPECT_EQ(r.probe[1], now);

  // wait_group.read, then the tile is zeroed: the store already read it.
  StoreResult r2 = runStore(d, c, /*mode=*/2, 0);
  expectStore(d, c, r2);
  EXPECT_EQ(r2.probe[0], old);
  EXPECT_EQ(r2.probe[1], now);

  // No wait at all: not visible to the thread, but written when it exits.
  StoreResult r3 = runStore(d, c, /*mode=*/1, 0);
  expectStore(d, c, r3);
  EXPECT_EQ(r3.probe[0], old);
  EXPECT_EQ(r3.probe[1], old);
}

TEST(TmaStoreTest, Errors) {
  rt::TensorMapDesc d = desc2d(rt::TmaSwizzle::None, 64);
  StoreResult r = runStore(d, {0, 0}, 0, 0, "[%r3+16]");
  EXPECT_NE(r.error.find("the shared source 0x10 of "
                         "'cp.async.bulk.tensor.2d.global.shared::cta.tile."
                         "bulk_group' is not 128-byte aligned"),
            std::string::npos)
      << r.error;
  EXPECT_NE(r.error.find("warp 0 lane 0"), std::string::npos) << r.error;

  // A box that runs past the end of shared memory (64 x 32 bf16 = 4 KiB
  // from offset 14336 of 16384).
  r = runStore(d, {0, 0}, 0, 0, "[%r3+14336]");
  EXPECT_NE(r.error.find("out-of-bounds shared load of 4096 bytes"),
            std::string::npos)
      << r.error;

  // Dimension 0 of 100 bf16 (200 bytes): the last row's last 16-byte chunk
  // runs 8 bytes past the tensor's footprint, where its allocation ends;
  // the store writes the whole chunk (as the H200 does): out of bounds.
  rt::TensorMapDesc d2 = desc2d(rt::TmaSwizzle::None, 32);
  r = runStore(d2, {88, 60}, 0, 0, "[%r3]", 0,
               "global.shared::cta.tile.bulk_group", /*roundUp=*/false);
  EXPECT_NE(r.error.find("runs past the end of allocation"), std::string::npos)
      << r.error;
  r = runStore(d2, {88, 30}, 0, 0, "[%r3]", 0,
               "global.shared::cta.tile.bulk_group", /*roundUp=*/false);
  EXPECT_EQ(r.error, "");

  // The map's rank differs from the instruction's.
  r = runStore(d, {0, 0, 0}, 0, 0, "[%r3]", /*kernelDims=*/3);
  EXPECT_NE(r.error.find("has rank 2 but "
                         "'cp.async.bulk.tensor.3d.global.shared::cta.tile."
                         "bulk_group' is .3d"),
            std::string::npos)
      << r.error;

  // Malformed forms are rejected when the module loads.
  r = runStore(d, {0, 0}, 0, 0, "[%r3]", 0, "global.shared::cta.tile");
  EXPECT_NE(r.error.find("needs the source space .shared::cta and "
                         ".bulk_group"),
            std::string::npos)
      << r.error;
  r = runStore(d, {0, 0}, 0, 0, "[%r3]", 0,
               "global.shared::cluster.tile.bulk_group");
  EXPECT_NE(r.error.find("unsupported: "), std::string::npos) << r.error;
  r = runStore(d, {0, 0}, 0, 0, "[%r3]", 0,
               "global.shared::cta.tile::scatter4.bulk_group");
  EXPECT_NE(r.error.find("not implemented yet"), std::string::npos) << r.error;
}

TEST(TmaStoreTest, StoringATileATmaLoadStillWritesIsARace) {
  // A load into the tile, then at once a store from it (no wait on the
  // load's mbarrier): the store reads bytes the load is still writing.
  const char *text =
      ".version 8.8\n.target sm_90a\n.address_size 64\n"
      ".shared .align 1024 .b8 tile[4096];\n.shared .align 8 .b64 bar;\n"
      ".visible .entry k(.param .u64 ptmap)\n{\n"
      "  .reg .pred %p<4>;\n  .reg .b32 %r<8>;\n  .reg .b64 %rd<4>;\n"
      "  ld.param.u64 %rd1, [ptmap];\n  mov.u32 %r0, %tid.x;\n"
      "  mov.u32 %r1, 0;\n  mov.u32 %r3, tile;\n  mov.u32 %r4, bar;\n"
      "  setp.ne.u32 %p0, %r0, 0;\n  @%p0 bra END;\n"
      "  mbarrier.init.shared.b64 [bar], 1;\n"
      "  mbarrier.arrive.expect_tx.shared.b64 %rd2, [bar], 4096;\n"
      "  cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::"
      "complete_tx::bytes [%r3], [%rd1, {%r1, %r1}], [%r4];\n"
      "  cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group "
      "[%rd1, {%r1, %r1}], [%r3];\n"
      "  cp.async.bulk.commit_group;\n  cp.async.bulk.wait_group 0;\n"
      "END:\n  ret;\n}\n";
  Machine m;
  auto mod = m.loadPTX(text, "race.ptx");
  ASSERT_TRUE(static_cast<bool>(mod)) << mod.message();
  auto k = (*mod)->kernel("k");
  ASSERT_TRUE(static_cast<bool>(k)) << k.message();
  EXPECT_TRUE((*k)->unsupported().empty());
  rt::TensorMapDesc d = desc2d(rt::TmaSwizzle::B128, 64);
  std::vector<uint8_t> global(rt::footprintBytes(d), 1);
  uint64_t g = *m.allocate(global.size());
  ASSERT_FALSE(static_cast<bool>(m.write(g, global.data(), global.size())));
  d.globalAddress = g;
  rt::TensorMapBlob blob = rt::encodePortable(d);
  uint64_t tmap = *m.allocate(128);
  ASSERT_FALSE(static_cast<bool>(m.write(tmap, blob.bytes.data(), 128)));
  ParamBuilder pb(**k);
  (void)pb.addU64(tmap);
  LaunchConfig cfg;
  cfg.grid = Dim3(1);
  cfg.block = Dim3(32);
  cfg.params = *pb.take();
  Error e = m.launch(**k, cfg);
  ASSERT_TRUE(static_cast<bool>(e));
  EXPECT_NE(e.message().find("race: shared load of 4096 bytes at shared "
                             "address 0x0 of CTA rank 0 touches bytes that "
                             "the TMA load issued in"),
            std::string::npos)
      << e.message();
  EXPECT_NE(e.message().find("at line 21: cp.async.bulk.tensor.2d.global"),
            std::string::npos)
      << e.message();
}

} // namespace
