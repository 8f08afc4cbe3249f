//===- MbarrierTest.cpp - mbarrier objects --------------------------------===//
//
// Kernels written out in PTX; expected values and diagnostics computed by
// hand from the encoding documented in Executor.cpp ("mbarrier objects").
// Line numbers in expected messages count from the kernel header that kern()
// writes (the body starts on line 11 plus one per line of globals).
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cstring>

using namespace nvfp4::emu;
using namespace nvfp4::emu::test;

namespace {



struct RunResult {
  std::string error;
  Fault fault;
  LaunchStats stats;
};

RunResult launch(const std::string &text, std::vector<uint64_t> &out,
                 Dim3 block, uint32_t quantum = 64, Dim3 grid = Dim3(1),
                 Dim3 cluster = Dim3(1)) {
  RunResult r;
  Machine m;
  auto mod = m.loadPTX(text, "k.ptx");
  if (!mod) {
    r.error = mod.message();
    return r;
  }
  auto k = (*mod)->kernel("k");
  if (!k) {
    r.error = k.message();
    return r;
  }
  EXPECT_TRUE((*k)->unsupported().empty()) << (*k)->unsupported().front();
  uint64_t dout = *m.allocate(out.size() * 8, "out");
  ParamBuilder pb(**k);
  (void)pb.addU64(dout);
  LaunchConfig cfg;
  cfg.grid = grid;
  cfg.block = block;
  cfg.cluster = cluster;
  cfg.quantum = quantum;
  cfg.params = *pb.take();
  Error e = m.launch(**k, cfg);
  r.fault = m.lastFault();
  r.stats = m.lastStats();
  if (e)
    r.error = e.message();
  else
    (void)m.read(dout, out.data(), out.size() * 8);
  return r;
}

// Producer warp 0 and consumer warp 1 pass 6 items through a 2-stage ring:
// full[s] (32 arrivals: the producer's lanes) and empty[s] (32 arrivals: the
// consumer's lanes), parities tracked as the GEMM kernels do (the producer
// starts waiting on the "previous" parity, which passes at once).
const char *kRing =
    "  mov.u32 %r1, bars;\n"       // full0 +0, full1 +8, empty0 +16, +24
    "  mov.u32 %r2, data;\n"       // data[2][32] u32
    "  shr.u32 %r3, %r0, 5;\n"     // warp
    "  and.b32 %r4, %r0, 31;\n"    // lane
    "  setp.ne.u32 %p1, %r0, 0;\n" //
    "  @%p1 bra INITDONE;\n"       //
    "  mbarrier.init.shared.b64 [%r1], 32;\n"
    "  mbarrier.init.shared.b64 [%r1+8], 32;\n"
    "  mbarrier.init.shared::cta.b64 [%r1+16], 32;\n"
    "  mbarrier.init.shared.b64 [bars+24], 32;\n"
    "INITDONE:\n"
    "  fence.mbarrier_init.release.cluster;\n"
    "  bar.sync 0;\n"
    "  mov.u32 %r5, 0;\n" // i
    "  mov.u32 %r6, 0;\n" // sum
    "  setp.ne.u32 %p2, %r3, 0;\n"
    "LOOP:\n"
    "  and.b32 %r7, %r5, 1;\n" // stage
    "  shr.u32 %r8, %r5, 1;\n"
    "  and.b32 %r8, %r8, 1;\n" // phase parity of this round
    "  xor.b32 %r9, %r8, 1;\n"
    "  shl.b32 %r10, %r7, 3;\n"
    "  add.u32 %r11, %r1, %r10;\n" // full[stage]
    "  add.u32 %r12, %r11, 16;\n"  // empty[stage]
    "  shl.b32 %r13, %r7, 7;\n"
    "  shl.b32 %r14, %r4, 2;\n"
    "  add.u32 %r13, %r13, %r14;\n"
    "  add.u32 %r13, %r13, %r2;\n" // &data[stage][lane]
    "  @%p2 bra CONSUME;\n"
    "PWAIT:\n"
    "  mbarrier.try_wait.parity.shared.b64 %p3, [%r12], %r9;\n"
    "  @!%p3 bra PWAIT;\n"
    "  mul.lo.u32 %r15, %r5, 100;\n"
    "  add.u32 %r15, %r15, %r4;\n"
    "  st.shared.u32 [%r13], %r15;\n"
    "  mbarrier.arrive.release.cta.shared::cta.b64 %rd5, [%r11];\n"
    "  bra NEXT;\n"
    "CONSUME:\n"
    "  mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 %p3, [%r11], "
    "%r8, 10000000;\n"
    "  @!%p3 bra CONSUME;\n"
    "  ld.shared.u32 %r15, [%r13];\n"
    "  add.u32 %r6, %r6, %r15;\n"
    "  mbarrier.arrive.shared.b64 %rd5, [%r12];\n"
    "NEXT:\n"
    "  add.u32 %r5, %r5, 1;\n"
    "  setp.lt.u32 %p4, %r5, 6;\n"
    "  @%p4 bra LOOP;\n"
    "  cvt.u64.u32 %rd4, %r6;\n"
    "  st.global.u64 [%rd3], %rd4;\n"
    "  ret;";

TEST(MbarrierTest, ProducerConsumerRingWithParityWaits) {
  std::string text =
      kern(std::string(kAddr) + kRing,
           ".shared .align 8 .b8 bars[32];\n.shared .align 4 .b8 data[256];\n");
  // The result must not depend on how the warps are interleaved.
  for (uint32_t quantum : {1u, 3u, 7u, 64u}) {
    SCOPED_TRACE(quantum);
    std::vector<uint64_t> out(64, 99);
    RunResult r = launch(text, out, Dim3(64), quantum);
    ASSERT_EQ(r.error, "");
    for (uint32_t t = 0; t < 32; ++t)
      EXPECT_EQ(out[t], 0u) << t;
    for (uint32_t t = 32; t < 64; ++t)
      EXPECT_EQ(out[t], 1500u + 6 * (t - 32)) << t;
    // Six phases of each full and empty barrier.
    EXPECT_EQ(r.stats.mbarrierPhases, 12u);
    // The waits block instead of spinning: each try_wait executes once per
    // round for each warp, so the instruction count does not depend on the
    // interleaving.
    EXPECT_LT(r.stats.warpInstructions, 400u);
  }
}

TEST(MbarrierTest, ExpectTxCompleteTxAndNegativeTxCount) {
  // One thread. complete_tx before expect_tx makes the tx-count negative;
  // the phase completes only when both the arrivals and the tx-count reach
  // zero. out[0] = test_wait results (bit i after step i), out[1] = object
  // after step 0, out[2] = final object, out[3] = pending_count(state).
  std::string body =
      "  mov.u32 %r1, bar;\n"
      "  mbarrier.init.shared::cta.b64 [%r1], 1;\n"
      "  mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%r1], 64;\n"
      "  mbarrier.test_wait.parity.shared.b64 %p1, [%r1], 0;\n"
      "  ld.shared.b64 %rd6, [%r1];\n"
      "  mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 %rd5, [%r1], "
      "32;\n"
      "  mbarrier.test_wait.parity.shared.b64 %p2, [%r1], 0;\n"
      "  mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r1], 32;\n"
      "  mbarrier.test_wait.parity.shared.b64 %p3, [%r1], 0;\n"
      "  mbarrier.test_wait.shared.b64 %p4, [%r1], %rd5;\n"
      "  mbarrier.try_wait.shared::cta.b64 %p5, [%r1], %rd5;\n"
      "  mbarrier.test_wait.parity.shared.b64 %p6, [%r1], 1;\n"
      "  selp.u32 %r2, 1, 0, %p1;\n"
      "  selp.u32 %r3, 2, 0, %p2;\n"
      "  or.b32 %r2, %r2, %r3;\n"
      "  selp.u32 %r3, 4, 0, %p3;\n"
      "  or.b32 %r2, %r2, %r3;\n"
      "  selp.u32 %r3, 8, 0, %p4;\n"
      "  or.b32 %r2, %r2, %r3;\n"
      "  selp.u32 %r3, 16, 0, %p5;\n"
      "  or.b32 %r2, %r2, %r3;\n"
      "  selp.u32 %r3, 32, 0, %p6;\n"
      "  or.b32 %r2, %r2, %r3;\n"
      "  cvt.u64.u32 %rd7, %r2;\n"
      "  st.global.u64 [%rd1], %rd7;\n"
      "  st.global.u64 [%rd1+8], %rd6;\n"
      "  ld.shared.b64 %rd8, [%r1];\n"
      "  st.global.u64 [%rd1+16], %rd8;\n"
      "  mbarrier.pending_count.b64 %r4, %rd5;\n"
      "  cvt.u64.u32 %rd9, %r4;\n"
      "  st.global.u64 [%rd1+24], %rd9;\n"
      "  mbarrier.inval.shared.b64 [%r1];\n"
      "  ld.shared.b64 %rd10, [%r1];\n"
      "  st.global.u64 [%rd1+32], %rd10;\n"
      "  ret;";
  std::vector<uint64_t> out(5, 99);
  RunResult r =
      launch(kern(body, ".shared .align 8 .b8 bar[8];\n"), out, Dim3(1));
  ASSERT_EQ(r.error, "");
  // Not complete after steps 0 and 1; complete after 2; the state's phase
  // is complete (test_wait and try_wait); the phase with parity 1 is not.
  EXPECT_EQ(out[0], 4u | 8u | 16u);
  // valid, tx-count -64 (21 bits: 0x1fffc0), expected 1, pending 1.
  EXPECT_EQ(out[1], 0x9fffc00000100001ull);
  // valid, parity 1, tx-count 0, expected 1, pending 1.
  EXPECT_EQ(out[2], 0xc000000000100001ull);
  // The state is the object before the arrive: 1 arrival pending.
  EXPECT_EQ(out[3], 1u);
  // mbarrier.inval clears the object.
  EXPECT_EQ(out[4], 0u);
  EXPECT_EQ(r.stats.mbarrierPhases, 1u);
}

TEST(MbarrierTest, TxFromAnotherWarpReleasesTheWaiter) {
  // Warp 0 arrives expecting 128 bytes and waits; warp 1 completes them in
  // two halves, then arrives on a second barrier that warp 0 also waits for.
  std::string body =
      std::string(kAddr) +
      "  mov.u32 %r1, bar;\n"
      "  shr.u32 %r3, %r0, 5;\n"
      "  setp.ne.u32 %p1, %r0, 0;\n"
      "  @%p1 bra INIT;\n"
      "  mbarrier.init.shared.b64 [%r1], 1;\n"
      "  mbarrier.init.shared.b64 [%r1+8], 32;\n"
      "INIT:\n"
      "  bar.sync 0;\n"
      "  setp.ne.u32 %p2, %r3, 0;\n"
      "  @%p2 bra W1;\n"
      "  @!%p1 mbarrier.arrive.expect_tx.shared.b64 %rd5, [%r1], 128;\n"
      "  mbarrier.try_wait.parity.shared.b64 %p3, [%r1], 0;\n"
      "  mbarrier.try_wait.parity.shared.b64 %p4, [%r1+8], 0;\n"
      "  selp.u64 %rd4, 1, 0, %p3;\n"
      "  selp.u64 %rd6, 2, 0, %p4;\n"
      "  or.b64 %rd4, %rd4, %rd6;\n"
      "  ld.shared.u32 %r5, [val];\n"
      "  cvt.u64.u32 %rd6, %r5;\n"
      "  shl.b64 %rd6, %rd6, 8;\n"
      "  or.b64 %rd4, %rd4, %rd6;\n"
      "  st.global.u64 [%rd3], %rd4;\n"
      "  ret;\n"
      "W1:\n"
      "  and.b32 %r4, %r0, 31;\n"
      "  setp.ne.u32 %p5, %r4, 0;\n"
      "  @!%p5 st.shared.u32 [val], 42;\n"
      "  @!%p5 mbarrier.complete_tx.shared::cta.b64 [%r1], 64;\n"
      "  @!%p5 mbarrier.complete_tx.shared::cta.b64 [%r1], 64;\n"
      "  mbarrier.arrive.shared.b64 %rd5, [%r1+8];\n"
      "  ret;";
  for (uint32_t quantum : {1u, 64u}) {
    SCOPED_TRACE(quantum);
    std::vector<uint64_t> out(64, 99);
    RunResult r = launch(kern(body, ".shared .align 8 .b8 bar[16];\n"
                                    ".shared .align 4 .b8 val[4];\n"),
                         out, Dim3(64), quantum);
    ASSERT_EQ(r.error, "");
    for (uint32_t t = 0; t < 32; ++t)
      EXPECT_EQ(out[t], (42u << 8) | 3u) << t;
    EXPECT_EQ(r.stats.mbarrierPhases, 2u);
  }
}

TEST(MbarrierTest, LanesOfOneWarpWaitOnDifferentPhases) {
  // Even lanes wait for phase 0, which is not complete: they block. Odd
  // lanes wait for "phase 1", which passes at once, and their 16 arrivals
  // complete phase 0, which releases the even lanes of the same warp.
  std::string body = std::string(kAddr) +
                     "  mov.u32 %r1, bar;\n"
                     "  setp.ne.u32 %p1, %r0, 0;\n"
                     "  @!%p1 mbarrier.init.shared.b64 [%r1], 16;\n"
                     "  bar.warp.sync -1;\n"
                     "  and.b32 %r2, %r0, 1;\n"
                     "  mbarrier.try_wait.parity.shared.b64 %p2, [%r1], %r2;\n"
                     "  setp.eq.u32 %p3, %r2, 1;\n"
                     "  @%p3 mbarrier.arrive.shared.b64 %rd5, [%r1];\n"
                     "  selp.u64 %rd4, 5, 0, %p2;\n"
                     "  st.global.u64 [%rd3], %rd4;\n"
                     "  ret;";
  std::vector<uint64_t> out(32, 99);
  RunResult r =
      launch(kern(body, ".shared .align 8 .b8 bar[8];\n"), out, Dim3(32));
  ASSERT_EQ(r.error, "");
  for (uint32_t t = 0; t < 32; ++t)
    EXPECT_EQ(out[t], 5u) << t;
  EXPECT_EQ(r.stats.mbarrierPhases, 1u);
}

TEST(MbarrierTest, RemoteArriveThroughSharedCluster) {
  // Two CTAs of a cluster; CTA 1 arrives on CTA 0's barrier (count 2) with
  // a shared::cluster address of rank 0 (mapa), CTA 0 arrives locally and
  // waits.
  std::string body =
      std::string(kAddr) +
      "  mov.u32 %r1, bar;\n"
      "  mov.u32 %r2, %cluster_ctarank;\n"
      "  setp.ne.u32 %p1, %r2, 0;\n"
      "  @%p1 bra SKIP;\n"
      "  mbarrier.init.shared.b64 [%r1], 2;\n"
      "  fence.mbarrier_init.release.cluster;\n"
      "SKIP:\n"
      "  barrier.cluster.arrive.release.aligned;\n"
      "  barrier.cluster.wait.acquire.aligned;\n"
      "  @%p1 bra REMOTE;\n"
      "  mbarrier.arrive.shared.b64 %rd5, [%r1];\n"
      "  mbarrier.try_wait.parity.shared.b64 %p2, [%r1], 0;\n"
      "  selp.u64 %rd4, 7, 0, %p2;\n"
      "  st.global.u64 [%rd3], %rd4;\n"
      "  ret;\n"
      "REMOTE:\n"
      "  mapa.shared::cluster.u32 %r3, %r1, 0;\n"
      "  mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r3];\n"
      "  ret;";
  for (uint32_t quantum : {1u, 64u}) {
    SCOPED_TRACE(quantum);
    std::vector<uint64_t> out(1, 99);
    RunResult r = launch(kern(body, ".shared .align 8 .b8 bar[8];\n"), out,
                         Dim3(1), quantum, Dim3(2), Dim3(2));
    ASSERT_EQ(r.error, "");
    EXPECT_EQ(out[0], 7u);
    EXPECT_EQ(r.stats.mbarrierPhases, 1u);
  }
}

TEST(MbarrierTest, DeadlockNamesTheBarrier) {
  // Warp 0 waits for a phase of 2 arrivals; warp 1 arrives once and exits.
  std::string body =
      "  mov.u32 %r1, bar;\n"                                  // 13
      "  shr.u32 %r3, %r0, 5;\n"                               // 14
      "  setp.ne.u32 %p1, %r0, 0;\n"                           // 15
      "  @%p1 bra INIT;\n"                                     // 16
      "  mbarrier.init.shared.b64 [%r1], 2;\n"                 // 17
      "INIT:\n"                                                // 18
      "  bar.sync 0;\n"                                        // 19
      "  setp.ne.u32 %p2, %r3, 0;\n"                           // 20
      "  @%p2 bra W1;\n"                                       // 21
      "WAIT:\n"                                                // 22
      "  mbarrier.try_wait.parity.shared.b64 %p3, [%r1], 0;\n" // 23
      "  @!%p3 bra WAIT;\n"                                    // 24
      "  ret;\n"                                               // 25
      "W1:\n"                                                  // 26
      "  and.b32 %r4, %r0, 31;\n"                              // 27
      "  setp.eq.u32 %p4, %r4, 0;\n"                           // 28
      "  @%p4 mbarrier.arrive.shared.b64 %rd5, [%r1];\n"
      "  ret;";
  std::vector<uint64_t> out(1);
  RunResult r = launch(kern(body, ".shared .align 8 .b8 pad[16];\n"
                                  ".shared .align 8 .b8 bar[8];\n"),
                       out, Dim3(64));
  EXPECT_EQ(r.error,
            "deadlock: no warp of cluster (0,0,0) can make progress\n"
            "  CTA (0,0,0) warp 0: lanes 0xffffffff wait in mbarrier.try_wait "
            "(line 23) for the phase with parity 0 of the mbarrier at shared "
            "0x10 of CTA (0,0,0) (current phase parity 0, 1 of 2 arrivals "
            "pending, tx-count 0)");
  EXPECT_EQ(r.fault.kind, Fault::Kind::Deadlock);
  EXPECT_EQ(r.fault.warp, 0u);
  EXPECT_EQ(r.fault.line, 23u);
}

struct ErrCase {
  const char *body; ///< the last instruction faults
  const char *message;
};

TEST(MbarrierTest, Errors) {
  const ErrCase cases[] = {
      {"  mov.u32 %r1, bar;\n"
       "  mbarrier.arrive.shared.b64 %rd5, [%r1];\n",
       "mbarrier operation on the mbarrier at shared 0x0 of CTA (0,0,0) "
       "(not initialized): it was never initialized with mbarrier.init (or "
       "was invalidated)"},
      {"  mbarrier.init.shared.b64 [bar], 2;\n"
       "  mbarrier.arrive.shared.b64 %rd5, [bar], 3;\n",
       "3 arrivals on the mbarrier at shared 0x0 of CTA (0,0,0) (current "
       "phase parity 0, 2 of 2 arrivals pending, tx-count 0): more arrivals "
       "than the current phase expects"},
      // All arrivals are in, the phase waits for its bytes: one more arrival
      // is beyond the expected count.
      {"  mbarrier.init.shared.b64 [bar], 1;\n"
       "  mbarrier.arrive.expect_tx.shared.b64 %rd5, [bar], 16;\n"
       "  mbarrier.arrive.shared.b64 %rd5, [bar];\n",
       "1 arrival on the mbarrier at shared 0x0 of CTA (0,0,0) (current "
       "phase parity 0, 0 of 1 arrivals pending, tx-count 16): more "
       "arrivals than the current phase expects"},
      {"  mov.u32 %r1, bar;\n"
       "  mbarrier.try_wait.parity.shared.b64 %p1, [%r1], 0;\n",
       "wait on the mbarrier at shared 0x0 of CTA (0,0,0) (not initialized), "
       "which was never initialized with mbarrier.init (or was invalidated)"},
      {"  mov.u32 %r1, 0;\n"
       "  mbarrier.init.shared.b64 [bar], %r1;\n",
       "mbarrier.init count 0 is outside [1, 2^20-1]"},
      {"  mov.u32 %r1, bar;\n"
       "  mbarrier.init.shared.b64 [%r1+4], 1;\n",
       "misaligned mbarrier object at shared address 0x4 (needs 8-byte "
       "alignment)"},
      {"  mbarrier.init.shared.b64 [bar], 1;\n"
       "  mbarrier.expect_tx.shared.b64 [bar], 1048576;\n",
       "mbarrier tx-count 1048576 is outside [0, 2^20-1]"},
      {"  mbarrier.inval.shared.b64 [bar];\n"
       "  mbarrier.complete_tx.shared.b64 [bar], 8;\n",
       "mbarrier operation on the mbarrier at shared 0x0 of CTA (0,0,0) "
       "(not initialized): it was never initialized with mbarrier.init (or "
       "was invalidated)"},
      {"  mov.u64 %rd5, 0;\n"
       "  mbarrier.init.shared.b64 [bar], 1;\n"
       "  mbarrier.test_wait.shared.b64 %p1, [bar], %rd5;\n",
       "the state operand 0x0 was not returned by mbarrier.arrive"},
      {"  mov.u64 %rd5, 0;\n"
       "  mbarrier.init.shared.b64 [bar], 2;\n"
       "  mbarrier.arrive.noComplete.shared.b64 %rd5, [bar], 2;\n",
       "mbarrier.arrive.noComplete would complete the current phase of the "
       "mbarrier at shared 0x0 of CTA (0,0,0) (current phase parity 0, 2 of "
       "2 arrivals pending, tx-count 0)"},
  };
  for (const ErrCase &c : cases) {
    SCOPED_TRACE(c.body);
    std::string body = std::string(c.body) + "  ret;";
    std::vector<uint64_t> out(1);
    RunResult r =
        launch(kern(body, ".shared .align 8 .b8 bar[16];\n"), out, Dim3(1));
    EXPECT_EQ(r.error.substr(0, r.error.find(" in CTA (0,0,0) warp 0 lane 0")),
              c.message)
        << r.error;
    EXPECT_NE(r.error.find(" in CTA (0,0,0) warp 0 lane 0 (thread (0,0,0)) "
                           "at line "),
              std::string::npos)
        << r.error;
    EXPECT_TRUE(r.fault.kind == Fault::Kind::Invalid ||
                r.fault.kind == Fault::Kind::Memory);
    // The body starts on line 12 (one line of globals).
    uint32_t lines = static_cast<uint32_t>(
        std::count(c.body, c.body + std::strlen(c.body), '\n'));
    EXPECT_EQ(r.fault.line, 11u + lines);
  }
}

TEST(MbarrierTest, DecoderRejectsMalformedForms) {
  Machine m;
  std::string text =
      kern("  mov.u32 %r1, bar;\n"
           "  mbarrier.init.shared.b32 [%r1], 1;\n"
           "  mbarrier.arrive.shared::cluster.b64 %rd5, [%r1];\n"
           "  mbarrier.try_wait.parity.shared::cluster.b64 %p1, "
           "[%r1], 0;\n"
           "  mbarrier.arrive.expect_tx.shared.b64 %rd5, [%r1];\n"
           "  ret;",
           ".shared .align 8 .b8 bar[8];\n");
  auto mod = m.loadPTX(text, "k.ptx");
  ASSERT_TRUE(static_cast<bool>(mod)) << mod.message();
  auto k = (*mod)->kernel("k");
  ASSERT_TRUE(static_cast<bool>(k));
  const auto &u = (*k)->unsupported();
  ASSERT_EQ(u.size(), 4u);
  EXPECT_EQ(u[0], "k.ptx:13: 'mbarrier.init.shared.b32' needs the type .b64");
  EXPECT_EQ(u[1], "k.ptx:14: 'mbarrier.arrive.shared::cluster.b64' on a "
                  ".shared::cluster address must write its state to the sink "
                  "'_'");
  EXPECT_EQ(u[2], "k.ptx:15: modifier '.shared::cluster' is not valid on "
                  "'mbarrier.try_wait' (in "
                  "'mbarrier.try_wait.parity.shared::cluster.b64')");
  EXPECT_EQ(u[3], "k.ptx:16: 'mbarrier.arrive.expect_tx.shared.b64' needs a "
                  "tx-count operand");
}

} // namespace
