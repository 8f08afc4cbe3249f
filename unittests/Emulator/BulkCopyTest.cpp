//===- BulkCopyTest.cpp - cp.async.bulk (non-tensor) ----------------------===//

#include "TestUtil.h"

#include "gtest/gtest.h"

#include <numeric>

using namespace nvfp4::emu;
using namespace nvfp4::emu::test;

namespace {

/// Runs `body` in kernel k(.param .u64 out, .param .u64 in) where `in`
/// points to 64 words i * 3 + 1 and `out` to `out.size()` words; returns the
/// error or "".
std::string runBulk(const std::string &body, std::vector<uint64_t> &out,
                    uint32_t cluster = 1, uint32_t threads = 32,
                    uint64_t seed = 0, bool sanitize = true) {
  std::string text =
      ".version 8.8\n.target sm_100a\n.address_size 64\n"
      ".shared .align 128 .b8 buf[512];\n.shared .align 8 .b64 bar;\n"
      ".visible .entry k(.param .u64 out, .param .u64 in)\n{\n"
      "  .reg .pred %p<8>;\n  .reg .b32 %r<32>;\n  .reg .b64 %rd<32>;\n"
      "  .reg .b16 %rs<4>;\n"
      "  ld.param.u64 %rd1, [out];\n  ld.param.u64 %rd2, [in];\n"
      "  mov.u32 %r0, %tid.x;\n  mov.u32 %r30, %cluster_ctarank;\n" +
      body + "\n}\n";
  Machine m;
  auto mod = m.loadPTX(text, "bulk.ptx");
  if (!mod)
    return mod.message();
  auto k = (*mod)->kernel("k");
  if (!k)
    return k.message();
  uint64_t dOut = *m.allocate(out.size() * 8);
  std::vector<uint64_t> init(out.size(), 0xAAAAAAAAAAAAAAAAull);
  (void)m.write(dOut, init.data(), init.size() * 8);
  std::vector<uint64_t> in(64);
  for (uint64_t i = 0; i < 64; ++i)
    in[i] = i * 3 + 1;
  uint64_t dIn = *m.allocate(in.size() * 8);
  (void)m.write(dIn, in.data(), in.size() * 8);
  ParamBuilder p(**k);
  (void)p.addU64(dOut);
  (void)p.addU64(dIn);
  LaunchConfig cfg;
  cfg.grid = Dim3(cluster);
  cfg.cluster = Dim3(cluster);
  cfg.block = Dim3(threads);
  cfg.params = *p.take();
  cfg.scheduleSeed = seed;
  cfg.sanitize = sanitize;
  if (Error e = m.launch(**k, cfg))
    return e.message();
  (void)m.read(dOut, out.data(), out.size() * 8);
  return "";
}

// Thread 0 initializes the barrier; everyone syncs.
const char *kInit = "  setp.ne.u32 %p1, %r0, 0;\n  @%p1 bra I;\n"
                    "  mbarrier.init.shared.b64 [bar], 1;\n"
                    "  fence.mbarrier_init.release.cluster;\nI:\n"
                    "  barrier.cluster.arrive.aligned;\n"
                    "  barrier.cluster.wait.aligned;\n";
// All threads wait for phase 0 of `bar`.
const char *kWait = "W:\n  mbarrier.try_wait.parity.shared.b64 %p2, [bar], 0;\n"
                    "  @!%p2 bra W;\n";
// Thread t < 32 stores buf word t to out[32 * rank + t].
const char *kStoreBuf = "  shl.b32 %r5, %r0, 3;\n  mov.u32 %r6, buf;\n"
                        "  add.u32 %r6, %r6, %r5;\n  ld.shared.u64 %rd5, [%r6];\n"
                        "  mad.lo.u32 %r7, %r30, 32, %r0;\n"
                        "  mul.wide.u32 %rd6, %r7, 8;\n  add.s64 %rd7, %rd1, %rd6;\n"
                        "  st.global.u64 [%rd7], %rd5;\n";

TEST(BulkCopyTest, GlobalToShared) {
  std::string body =
      std::string(kInit) +
      "  @%p1 bra ISSUED;\n"
      "  mbarrier.arrive.expect_tx.shared.b64 %rd3, [bar], 256;\n"
      "  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes "
      "[buf], [%rd2], 256, [bar];\n"
      "ISSUED:\n" +
      kWait + kStoreBuf + "  ret;";
  std::vector<uint64_t> out(32);
  ASSERT_EQ(runBulk(body, out), "");
  for (uint64_t t = 0; t < 32; ++t)
    EXPECT_EQ(out[t], t * 3 + 1) << t;
}

// Each thread zeroes its word of buf through the generic proxy before the
// copy overwrites it through the async proxy: the zeros must be fenced for
// the async proxy first (fence.proxy.async), or the two writes are not
// ordered and a zero could land after the copied word (the sm_90a
// attention's V zeroing before its TMA loads).
TEST(BulkCopyTest, AGenericWriteUnderACopyNeedsAProxyFence) {
  auto body = [](bool fence) {
    return std::string("  shl.b32 %r5, %r0, 3;\n  mov.u32 %r6, buf;\n"
                       "  add.u32 %r6, %r6, %r5;\n"
                       "  st.shared.u64 [%r6], 0;\n") +
           (fence ? "  fence.proxy.async.shared::cta;\n" : "") + kInit +
           "  @%p1 bra ISSUED;\n"
           "  mbarrier.arrive.expect_tx.shared.b64 %rd3, [bar], 256;\n"
           "  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::"
           "bytes [buf], [%rd2], 256, [bar];\n"
           "ISSUED:\n" +
           kWait + kStoreBuf + "  ret;";
  };
  std::vector<uint64_t> out(32);
  ASSERT_EQ(runBulk(body(true), out), "");
  for (uint64_t t = 0; t < 32; ++t)
    EXPECT_EQ(out[t], t * 3 + 1) << t;
  std::string e = runBulk(body(false), out);
  EXPECT_NE(e.find("missing fence.proxy.async"), std::string::npos) << e;
  EXPECT_NE(e.find("st.shared.u64 [%r6], 0"), std::string::npos) << e;
  EXPECT_NE(e.find("writes it through the async proxy"), std::string::npos)
      << e;
}

TEST(BulkCopyTest, ReadingBeforeTheBarrierIsARace) {
  std::string body =
      std::string(kInit) +
      "  @%p1 bra ISSUED;\n"
      "  mbarrier.arrive.expect_tx.shared.b64 %rd3, [bar], 256;\n"
      "  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes "
      "[buf], [%rd2], 256, [bar];\n"
      "ISSUED:\n" +
      kStoreBuf + kWait + "  ret;";
  std::vector<uint64_t> out(32);
  EXPECT_NE(runBulk(body, out).find("race:"), std::string::npos);
}

TEST(BulkCopyTest, MulticastToTheCluster) {
  std::string body =
      std::string(kInit) +
      "  @%p1 bra ARM;\n"
      "  mbarrier.arrive.expect_tx.shared.b64 %rd3, [bar], 128;\n"
      "ARM:\n"
      "  barrier.cluster.arrive.aligned;\n  barrier.cluster.wait.aligned;\n"
      "  or.b32 %r8, %r0, %r30;\n  setp.ne.u32 %p3, %r8, 0;\n"
      "  @%p3 bra ISSUED;\n  mov.b16 %rs1, 3;\n"
      "  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
      ".multicast::cluster [buf], [%rd2+128], 128, [bar], %rs1;\n"
      "ISSUED:\n" +
      kWait +
      "  setp.ge.u32 %p4, %r0, 16;\n  @%p4 bra END;\n" + kStoreBuf +
      "END:\n  ret;";
  std::vector<uint64_t> out(64);
  ASSERT_EQ(runBulk(body, out, 2), "");
  for (uint64_t r = 0; r < 2; ++r)
    for (uint64_t t = 0; t < 16; ++t)
      EXPECT_EQ(out[32 * r + t], (16 + t) * 3 + 1) << r << " " << t;
}

TEST(BulkCopyTest, SharedToPeerShared) {
  // CTA 0 fills buf, then copies 128 bytes into CTA 1's buf, completing on
  // CTA 1's barrier (armed by CTA 1).
  std::string body =
      std::string(kInit) +
      "  setp.ne.u32 %p5, %r30, 0;\n"
      "  @%p5 bra ARMED;\n"
      "  shl.b32 %r5, %r0, 3;\n  mov.u32 %r6, buf;\n  add.u32 %r6, %r6, %r5;\n"
      "  cvt.u64.u32 %rd8, %r0;\n  add.s64 %rd8, %rd8, 500;\n"
      "  st.shared.u64 [%r6], %rd8;\n  fence.proxy.async.shared::cta;\n"
      "ARMED:\n"
      "  or.b32 %r8, %r0, 0;\n  setp.eq.u32 %p6, %r30, 1;\n"
      "  setp.eq.and.u32 %p6, %r0, 0, %p6;\n  @!%p6 bra SYNC;\n"
      "  mbarrier.arrive.expect_tx.shared.b64 %rd3, [bar], 128;\n"
      "SYNC:\n"
      "  barrier.cluster.arrive.aligned;\n  barrier.cluster.wait.aligned;\n"
      "  or.b32 %r9, %r0, %r30;\n  setp.ne.u32 %p3, %r9, 0;\n"
      "  @%p3 bra ISSUED;\n"
      "  mov.u32 %r10, buf;\n  mapa.shared::cluster.u32 %r11, %r10, 1;\n"
      "  mov.u32 %r12, bar;\n  mapa.shared::cluster.u32 %r13, %r12, 1;\n"
      "  cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes"
      " [%r11], [%r10], 128, [%r13];\n"
      "ISSUED:\n"
      "  @!%p5 bra END;\n" +
      kWait + "  setp.ge.u32 %p4, %r0, 16;\n  @%p4 bra END;\n" + kStoreBuf +
      "END:\n"
      "  barrier.cluster.arrive.aligned;\n  barrier.cluster.wait.aligned;\n"
      "  ret;";
  std::vector<uint64_t> out(64);
  ASSERT_EQ(runBulk(body, out, 2), "");
  for (uint64_t t = 0; t < 16; ++t)
    EXPECT_EQ(out[32 + t], 500 + t) << t;
}

// st.async: CTA 0's threads 0-15 store 8 bytes each into CTA 1's buf
// (`store`, with %r11 = the peer's buf + 8 t as a shared::cluster address
// and %r13 the peer's barrier), completing on CTA 1's barrier (armed by CTA
// 1 for 128 bytes); CTA 1 then reads what arrived. With `readEarly` CTA 1
// reads buf before it waits.
std::string stAsyncBody(const std::string &store, bool readEarly = false,
                        const std::string &afterWait = "") {
  return std::string(kInit) +
         "  setp.ne.u32 %p5, %r30, 0;\n"
         "  setp.eq.u32 %p6, %r30, 1;\n"
         "  setp.eq.and.u32 %p6, %r0, 0, %p6;\n  @!%p6 bra SYNC;\n"
         "  mbarrier.arrive.expect_tx.shared.b64 %rd3, [bar], 128;\n"
         "SYNC:\n"
         "  barrier.cluster.arrive.aligned;\n  barrier.cluster.wait.aligned;\n"
         "  @%p5 bra ISSUED;\n"
         "  setp.ge.u32 %p3, %r0, 16;\n  @%p3 bra ISSUED;\n"
         "  mov.u32 %r10, buf;\n  mapa.shared::cluster.u32 %r11, %r10, 1;\n"
         "  shl.b32 %r14, %r0, 3;\n  add.u32 %r11, %r11, %r14;\n"
         "  mov.u32 %r12, bar;\n  mapa.shared::cluster.u32 %r13, %r12, 1;\n"
         "  cvt.u64.u32 %rd8, %r0;\n  add.s64 %rd8, %rd8, 600;\n"
         "  add.u32 %r15, %r0, 700;\n  add.u32 %r16, %r0, 800;\n" +
         store +
         "ISSUED:\n"
         "  @!%p5 bra END;\n"
         "  setp.ge.u32 %p4, %r0, 16;\n  @%p4 bra END;\n" +
         (readEarly ? std::string(kStoreBuf) + kWait
                    : std::string(kWait) + afterWait + kStoreBuf) +
         "END:\n"
         "  barrier.cluster.arrive.aligned;\n  barrier.cluster.wait.aligned;\n"
         "  ret;";
}

TEST(BulkCopyTest, StAsyncToPeerShared) {
  std::vector<uint64_t> out(64);
  ASSERT_EQ(runBulk(stAsyncBody("  st.async.shared::cluster.mbarrier::"
                                "complete_tx::bytes.b64 [%r11], %rd8, "
                                "[%r13];\n"),
                    out, 2),
            "");
  for (uint64_t t = 0; t < 16; ++t)
    EXPECT_EQ(out[32 + t], 600 + t) << t;
  // .v2.b32 (the full form's qualifiers): the low word first.
  ASSERT_EQ(runBulk(stAsyncBody("  st.async.weak.cluster.shared::cluster."
                                "mbarrier::complete_tx::bytes.v2.b32 "
                                "[%r11], {%r15, %r16}, [%r13];\n"),
                    out, 2),
            "");
  for (uint64_t t = 0; t < 16; ++t)
    EXPECT_EQ(out[32 + t], (800 + t) << 32 | (700 + t)) << t;
}

TEST(BulkCopyTest, StAsyncReadBeforeTheBarrierIsARace) {
  std::vector<uint64_t> out(64);
  std::string r = runBulk(stAsyncBody("  st.async.shared::cluster.mbarrier::"
                                      "complete_tx::bytes.b64 [%r11], %rd8, "
                                      "[%r13];\n",
                                      /*readEarly=*/true),
                          out, 2);
  EXPECT_NE(r.find("race:"), std::string::npos) << r;
  // The message names the copy as what it is, not as a TMA load.
  EXPECT_NE(r.find("the st.async issued in"), std::string::npos) << r;
  EXPECT_EQ(r.find("TMA load"), std::string::npos) << r;
}

// A copy that lands in a CTA which exited after the copy was issued:
// CTA 0 st.asyncs into CTA 1 right after the cluster barrier while CTA 1
// spins and then exits without waiting. The deterministic schedule lands
// the copy first; under schedule exploration some copies are lazy (they
// complete only when no warp can run, after CTA 1 exited), and TmaUnit's
// check reports those with or without the sanitizer. (A peer that has
// already exited when the copy is issued is caught at the issue, with
// another message.)
TEST(BulkCopyTest, StAsyncIntoAPeerThatExitsIsAnError) {
  std::vector<uint64_t> out(64);
  const std::string body =
      std::string(kInit) +
      "  setp.eq.u32 %p5, %r30, 0;\n  @%p5 bra SEND;\n"
      "  mov.u32 %r20, 0;\n"
      "SPIN:\n  add.u32 %r20, %r20, 1;\n  setp.lt.u32 %p4, %r20, 100;\n"
      "  @%p4 bra SPIN;\n  bra.uni END;\n"
      "SEND:\n  setp.ne.u32 %p3, %r0, 0;\n  @%p3 bra END;\n"
      "  mov.u32 %r10, buf;\n  mapa.shared::cluster.u32 %r11, %r10, 1;\n"
      "  mov.u32 %r12, bar;\n  mapa.shared::cluster.u32 %r13, %r12, 1;\n"
      "  cvt.u64.u32 %rd8, %r0;\n"
      "  st.async.shared::cluster.mbarrier::complete_tx::bytes.b64 [%r11], "
      "%rd8, [%r13];\n"
      "END:\n  ret;";
  EXPECT_EQ(runBulk(body, out, 2), "");
  for (bool sanitize : {true, false}) {
    // Seeds that starve CTA 0 let CTA 1 exit before the issue (the
    // issue's message); the others land early (no error) or late.
    int landed = 0;
    for (uint64_t seed = 1; seed <= 32; ++seed) {
      std::string r = runBulk(body, out, 2, 32, seed, sanitize);
      if (r.empty())
        continue;
      EXPECT_NE(r.find("which has exited"), std::string::npos) << r;
      landed += r.find("the st.async issued in") != std::string::npos;
    }
    EXPECT_GT(landed, 0) << "sanitize " << sanitize;
  }
}

TEST(BulkCopyTest, StAsyncErrors) {
  std::vector<uint64_t> out(64);
  const std::string st = "  st.async.shared::cluster.mbarrier::complete_tx::"
                         "bytes";
  // Not aligned to the bytes stored.
  std::string r = runBulk(stAsyncBody("  add.u32 %r11, %r11, 4;\n" + st +
                                      ".b64 [%r11], %rd8, "
                                      "[%r13];\n"),
                          out, 2);
  EXPECT_NE(r.find("must be a multiple of the 8 bytes stored"),
            std::string::npos)
      << r;
  // The barrier of another CTA than the destination's.
  r = runBulk(stAsyncBody(st + ".b64 [%r11], %rd8, [%r12];\n"), out, 2);
  EXPECT_NE(r.find("the mbarrier must be in the destination's CTA"),
            std::string::npos)
      << r;
  // The peer's barrier used before its initialization is fenced
  // (fence.mbarrier_init), as for any remote barrier.
  std::string noFence = stAsyncBody(st + ".b64 [%r11], %rd8, [%r13];\n");
  noFence.replace(
      noFence.find("  fence.mbarrier_init.release.cluster;\n"),
      std::string("  fence.mbarrier_init.release.cluster;\n").size(), "");
  r = runBulk(noFence, out, 2);
  EXPECT_NE(r.find("missing fence.mbarrier_init"), std::string::npos) << r;
  // st.async writes through the generic proxy: the receiver's bulk copy of
  // the bytes (the async proxy) needs fence.proxy.async after the wait.
  const std::string bulkOut =
      "  setp.ne.u32 %p7, %r0, 0;\n  @%p7 bra SKIP;\n"
      "  cp.async.bulk.global.shared::cta.bulk_group [%rd1], [buf], 128;\n"
      "  cp.async.bulk.commit_group;\n  cp.async.bulk.wait_group 0;\nSKIP:\n";
  r = runBulk(stAsyncBody(st + ".b64 [%r11], %rd8, [%r13];\n", false, bulkOut),
              out, 2);
  EXPECT_NE(r.find("fence.proxy.async"), std::string::npos) << r;
  r = runBulk(stAsyncBody(st + ".b64 [%r11], %rd8, [%r13];\n", false,
                          "  fence.proxy.async.shared::cta;\n" + bulkOut),
              out, 2);
  EXPECT_EQ(r, "");
  // 32 bytes, and a missing completion mechanism: rejected when loaded.
  r = runBulk(stAsyncBody(st + ".v4.b64 [%r11], {%rd8, %rd8, %rd8, %rd8}, "
                               "[%r13];\n"),
              out, 2);
  EXPECT_NE(r.find("1, 2 or 4 32-bit values"), std::string::npos) << r;
  r = runBulk(stAsyncBody("  st.async.shared::cluster.b64 [%r11], %rd8, "
                          "[%r13];\n"),
              out, 2);
  EXPECT_NE(r.find("needs .shared::cluster and "
                   ".mbarrier::complete_tx::bytes"),
            std::string::npos)
      << r;
}

TEST(BulkCopyTest, SharedToGlobalLandsAtWaitGroup) {
  // Thread 0 copies 64 bytes of buf to out[8..15]; before wait_group it
  // still reads the old contents, after it the copied ones.
  std::string body =
      "  shl.b32 %r5, %r0, 3;\n  mov.u32 %r6, buf;\n  add.u32 %r6, %r6, %r5;\n"
      "  cvt.u64.u32 %rd8, %r0;\n  add.s64 %rd8, %rd8, 900;\n"
      "  st.shared.u64 [%r6], %rd8;\n  fence.proxy.async.shared::cta;\n  bar.sync 0;\n"
      "  setp.ne.u32 %p1, %r0, 0;\n  @%p1 bra END;\n"
      "  add.s64 %rd9, %rd1, 64;\n  mov.u32 %r10, buf;\n"
      "  cp.async.bulk.global.shared::cta.bulk_group [%rd9], [%r10], 64;\n"
      "  cp.async.bulk.commit_group;\n"
      "  ld.global.u64 %rd10, [%rd9];\n  st.global.u64 [%rd1], %rd10;\n"
      "  cp.async.bulk.wait_group 0;\n"
      "  ld.global.u64 %rd11, [%rd9+8];\n  st.global.u64 [%rd1+8], %rd11;\n"
      "END:\n  ret;";
  std::vector<uint64_t> out(16);
  ASSERT_EQ(runBulk(body, out), "");
  EXPECT_EQ(out[0], 0xAAAAAAAAAAAAAAAAull); // before the wait
  EXPECT_EQ(out[1], 901u);                  // after it
  for (uint64_t t = 0; t < 8; ++t)
    EXPECT_EQ(out[8 + t], 900 + t) << t;
}

TEST(BulkCopyTest, Errors) {
  std::vector<uint64_t> out(4);
  std::string r = runBulk(
      std::string(kInit) +
          "  @%p1 bra E;\n"
          "  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes "
          "[buf], [%rd2], 24, [bar];\nE:\n  ret;",
      out);
  EXPECT_NE(r.find("must be multiples of 16"), std::string::npos) << r;
  r = runBulk("  setp.ne.u32 %p1, %r0, 0;\n  @%p1 bra E;\n"
              "  cp.async.bulk.global.shared::cta.bulk_group [%rd1], [buf], "
              "1024;\nE:\n  ret;",
              out);
  EXPECT_NE(r.find("out-of-bounds"), std::string::npos) << r;
}

} // namespace

namespace {

// cp.async.bulk needs 16-byte alignment and a size that is a multiple of
// 16, not alignment to the size (the H200 copies 1040 / 3040 / 16 bytes:
// corpus case bulk_copies_odd).
TEST(BulkCopyTest, SixteenByteAlignedOddSize) {
  std::string body =
      std::string(kInit) +
      "  @%p1 bra ISSUED;\n"
      "  mbarrier.arrive.expect_tx.shared.b64 %rd3, [bar], 48;\n"
      "  add.s64 %rd4, %rd2, 16;\n  mov.u32 %r4, buf;\n  add.u32 %r4, %r4, 16;\n"
      "  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes "
      "[%r4], [%rd4], 48, [bar];\n"
      "ISSUED:\n" +
      kWait + kStoreBuf + "  ret;";
  std::vector<uint64_t> out(32);
  ASSERT_EQ(runBulk(body, out), "");
  for (uint64_t t = 2; t < 8; ++t)
    EXPECT_EQ(out[t], t * 3 + 1) << t;
  // Outside the copy: the emulator's shared-memory fill byte (0xff).
  EXPECT_EQ(out[0], ~0ull);
  EXPECT_EQ(out[8], ~0ull);
}

} // namespace

namespace {

// cp.async (non-bulk): each thread copies 16 bytes of `in` (words 2t, 2t +
// 1) to buf; the bytes land at the thread's cp.async.wait_group, which
// retires all but the N most recent groups.
const char *kAsyncCopy = "  shl.b32 %r5, %r0, 4;\n  mov.u32 %r6, buf;\n"
                         "  add.u32 %r6, %r6, %r5;\n"
                         "  mul.wide.u32 %rd6, %r0, 16;\n"
                         "  add.s64 %rd7, %rd2, %rd6;\n";

TEST(BulkCopyTest, AsyncCopyLandsAtTheWait) {
  std::vector<uint64_t> out(32);
  ASSERT_EQ(runBulk(std::string(kAsyncCopy) +
                        "  setp.lt.u32 %p3, %r0, 16;\n  @!%p3 bra D;\n"
                        "  cp.async.cg.shared.global [%r6], [%rd7], 16;\n"
                        "  cp.async.commit_group;\n"
                        "  cp.async.wait_group 0;\nD:\n"
                        "  bar.sync 0;\n" +
                        kStoreBuf + "  ret;",
                    out),
            "");
  for (uint64_t t = 0; t < 32; ++t)
    EXPECT_EQ(out[t], t * 3 + 1) << t;
}

TEST(BulkCopyTest, AsyncCopyBeforeItsWaitIsStale) {
  // Thread 0 copies 8 bytes (.ca) and reads them back before waiting: the
  // old bytes (0xff fill); after wait_all the copied ones; a group still
  // pending (wait_group 1 after a later commit) is not written either.
  std::vector<uint64_t> out(32);
  ASSERT_EQ(
      runBulk("  setp.ne.u32 %p1, %r0, 0;\n  @%p1 bra E;\n"
              "  mov.u32 %r6, buf;\n"
              "  cp.async.ca.shared.global [%r6], [%rd2], 8;\n"
              "  ld.shared.u64 %rd5, [%r6];\n  st.global.u64 [%rd1], %rd5;\n"
              "  cp.async.commit_group;\n"
              "  cp.async.ca.shared.global [%r6+8], [%rd2+8], 8;\n"
              "  cp.async.commit_group;\n  cp.async.wait_group 1;\n"
              "  ld.shared.u64 %rd5, [%r6];\n  st.global.u64 [%rd1+8], %rd5;\n"
              "  ld.shared.u64 %rd5, [%r6+8];\n"
              "  st.global.u64 [%rd1+16], %rd5;\n"
              "  cp.async.wait_all;\n"
              "  ld.shared.u64 %rd5, [%r6+8];\n"
              "  st.global.u64 [%rd1+24], %rd5;\nE:\n  ret;",
              out),
      "");
  EXPECT_EQ(out[0], ~0ull);
  EXPECT_EQ(out[1], 1u);
  EXPECT_EQ(out[2], ~0ull);
  EXPECT_EQ(out[3], 4u);
}

TEST(BulkCopyTest, AsyncCopyRejectsBadForms) {
  std::vector<uint64_t> out(4);
  // .cg copies 16 bytes only.
  std::string r = runBulk(
      "  mov.u32 %r6, buf;\n  cp.async.cg.shared.global [%r6], [%rd2], 8;\n"
      "  ret;",
      out);
  EXPECT_NE(r.find("needs a size of 4, 8 or 16 bytes"), std::string::npos) << r;
  // A 16-byte copy from an address that is not 16-byte aligned.
  r = runBulk("  mov.u32 %r6, buf;\n  add.s64 %rd4, %rd2, 8;\n"
              "  cp.async.cg.shared.global [%r6], [%rd4], 16;\n  ret;",
              out);
  EXPECT_NE(r.find("misaligned"), std::string::npos) << r;
  // wait_group needs a constant.
  r = runBulk("  cp.async.wait_group %r0;\n  ret;", out);
  EXPECT_NE(r.find("needs a constant group count"), std::string::npos) << r;
}

} // namespace
