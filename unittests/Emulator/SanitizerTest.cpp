//===- SanitizerTest.cpp - Happens-before and tcgen05 fence checks --------===//
//
// Each rule of lib/Emulator/Sanitizer.h on a small kernel: the correctly
// synchronized version runs, and deleting one synchronization (a barrier,
// an mbarrier wait, a tcgen05 fence) is reported with both instructions
// named, whatever order the warps happen to run in (the deterministic
// schedule runs warp 0 first, so the unsynchronized versions would give
// the right answer here without the sanitizer). Also: schedule
// exploration keeps correct kernels correct and finds a missing wait that
// the fixed order hides.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Emulator/Machine.h"

#include "gtest/gtest.h"

#include <string>

using namespace nvfp4::emu;

namespace {

// k(.param .u64 out): %r0 = %tid.x, %r1 = warp index, shared words `buf`
// (32 of them) and `slot`, an mbarrier `bar`.
std::string kernel(const std::string &body) {
  return ".version 8.8\n.target sm_100a\n.address_size 64\n"
         ".visible .entry k(.param .u64 out)\n{\n"
         "  .reg .pred %p<8>;\n  .reg .b32 %r<32>;\n  .reg .b64 %rd<16>;\n"
         "  .reg .b32 %v<32>;\n"
         "  .shared .align 8 .b64 bar;\n"
         "  .shared .align 4 .b32 slot;\n"
         "  .shared .align 16 .b32 buf[32];\n"
         "  ld.param.u64 %rd1, [out];\n  mov.u32 %r0, %tid.x;\n"
         "  shr.u32 %r1, %r0, 5;\n"
         "  setp.eq.u32 %p1, %r0, 0;\n" // thread 0
         "  setp.eq.u32 %p2, %r1, 0;\n" // warp 0
         "  setp.eq.u32 %p3, %r1, 4;\n" // warp 4: lanes 0..31 as warp 0
         + body + "\n  ret;\n}\n";
}

std::string run(const std::string &text, unsigned threads,
                uint64_t seed = 0) {
  Machine m;
  auto mod = m.loadPTX(text, "sanitizer.ptx");
  if (!mod)
    return "load: " + mod.message();
  auto k = (*mod)->kernel("k");
  if (!k)
    return k.message();
  uint64_t out = *m.allocate(4096);
  ParamBuilder pb(**k);
  (void)pb.addU64(out);
  LaunchConfig cfg;
  cfg.grid = Dim3(1);
  cfg.block = Dim3(threads);
  cfg.params = *pb.take();
  cfg.scheduleSeed = seed;
  Error e = m.launch(**k, cfg);
  return e ? e.message() : "";
}

bool has(const std::string &s, const std::string &what) {
  return s.find(what) != std::string::npos;
}

// Thread 0 stores, a thread of warp 1 loads the word.
const char *kStore = "  @%p1 st.shared.u32 [buf], 7;\n";
const char *kLoad = "  setp.eq.u32 %p4, %r0, 32;\n"
                    "  @%p4 ld.shared.u32 %r5, [buf];\n"
                    "  @%p4 st.global.u32 [%rd1], %r5;\n";

TEST(SanitizerTest, SharedMemoryNeedsABarrier) {
  EXPECT_EQ(run(kernel(std::string(kStore) + "  bar.sync 0;\n" + kLoad), 64),
            "");
  std::string e = run(kernel(std::string(kStore) + kLoad), 64);
  EXPECT_TRUE(has(e, "race: ld of shared 0x")) << e;
  EXPECT_TRUE(has(e, "st.shared.u32 [buf], 7")) << e;
  EXPECT_TRUE(has(e, "ld.shared.u32 %r5, [buf]")) << e;
  EXPECT_TRUE(has(e, "not ordered by any synchronization")) << e;
}

TEST(SanitizerTest, GlobalMemoryNeedsASynchronizationToo) {
  // Thread 0 stores out[1]; thread 32 (warp 1) loads it and stores it to
  // out[0]. Ordered by bar.sync, or not at all.
  const std::string st = "  @%p1 st.global.u32 [%rd1+4], 7;\n";
  const std::string ld = "  setp.eq.u32 %p4, %r0, 32;\n"
                         "  @%p4 ld.global.u32 %r5, [%rd1+4];\n"
                         "  @%p4 st.global.u32 [%rd1], %r5;\n";
  EXPECT_EQ(run(kernel(st + "  bar.sync 0;\n" + ld), 64), "");
  std::string e = run(kernel(st + ld), 64);
  EXPECT_TRUE(has(e, "race: ld of global 0x")) << e;
  EXPECT_TRUE(has(e, "st.global.u32 [%rd1+4], 7")) << e;
  // Two warps' stores to different 16-bit halves of one word do not race;
  // atomics do not race with each other.
  EXPECT_EQ(run(kernel("  @%p1 st.global.u16 [%rd1], 1;\n"
                       "  setp.eq.u32 %p4, %r0, 32;\n"
                       "  @%p4 st.global.u16 [%rd1+2], 2;\n"),
                64),
            "");
  EXPECT_EQ(run(kernel("  red.global.add.u32 [%rd1], 1;\n"), 64), "");
  e = run(kernel("  @%p1 st.global.u32 [%rd1], 1;\n"
                 "  setp.eq.u32 %p4, %r0, 32;\n"
                 "  @%p4 red.global.add.u32 [%rd1], 1;\n"),
          64);
  EXPECT_TRUE(has(e, "race: atom of global")) << e;
}

TEST(SanitizerTest, StoresToDifferentBytesOfOneWordDoNotRace) {
  // Thread 0 (warp 0) stores byte 0 of buf, thread 32 (warp 1) byte 1 (or
  // byte 0 too), with no synchronization between them.
  const std::string w0 = "  @%p1 st.shared.u8 [buf], 7;\n";
  auto w1 = [](int byte) {
    return "  setp.eq.u32 %p4, %r0, 32;\n  @%p4 st.shared.u8 [buf+" +
           std::to_string(byte) + "], 9;\n";
  };
  EXPECT_EQ(run(kernel(w0 + w1(1)), 64), "");
  std::string e = run(kernel(w0 + w1(0)), 64);
  EXPECT_TRUE(has(e, "race: st of shared 0x")) << e;
  // A whole-word read after a barrier is ordered after both bytes; one
  // that only warp 1 ordered itself after (no barrier) races with byte 0.
  EXPECT_EQ(run(kernel(w0 + w1(1) + "  bar.sync 0;\n" +
                       "  ld.shared.u32 %r5, [buf];\n"),
                64),
            "");
  e = run(kernel(w0 + w1(1) +
                 "  @%p4 ld.shared.u32 %r5, [buf];\n"),
          64);
  EXPECT_TRUE(has(e, "race: ld of shared 0x")) << e;
  EXPECT_TRUE(has(e, "st.shared.u8 [buf], 7")) << e;
}

TEST(SanitizerTest, AnMbarrierPhaseOrdersProducerAndConsumer) {
  // Thread 0 initializes the barrier for one arrival; after a bar.sync,
  // thread 0 stores and arrives, warp 1 waits and loads.
  const std::string init = "  mov.u32 %r6, bar;\n"
                           "  @%p1 mbarrier.init.shared.b64 [%r6], 1;\n"
                           "  bar.sync 0;\n";
  const std::string produce = std::string(kStore) +
                              "  @%p1 mbarrier.arrive.shared.b64 %rd5, [%r6];\n";
  const std::string wait = "  setp.eq.u32 %p5, %r1, 1;\n"
                           "  @!%p5 bra SKIP;\n"
                           "WAIT:\n"
                           "  mbarrier.try_wait.parity.shared.b64 %p6, [%r6], "
                           "0;\n"
                           "  @!%p6 bra WAIT;\n"
                           "SKIP:\n";
  EXPECT_EQ(run(kernel(init + produce + wait + kLoad), 64), "");
  std::string e = run(kernel(init + produce + kLoad), 64);
  EXPECT_TRUE(has(e, "race: ld of shared")) << e;
}

TEST(SanitizerTest, AtomicsDoNotRaceEachOther) {
  std::string k = kernel("  mov.u32 %r6, buf;\n"
                         "  atom.shared.add.u32 %r5, [%r6], 1;\n"
                         "  bar.sync 0;\n"
                         "  @%p1 ld.shared.u32 %r7, [buf];\n"
                         "  @%p1 st.global.u32 [%rd1], %r7;\n");
  EXPECT_EQ(run(k, 128), "");
  // A plain store racing the atomics is still a race.
  std::string e = run(kernel("  mov.u32 %r6, buf;\n"
                             "  atom.shared.add.u32 %r5, [%r6], 1;\n"
                             "  setp.eq.u32 %p4, %r0, 64;\n"
                             "  @%p4 st.shared.u32 [buf], 0;\n"),
                      128);
  // (Reported at whichever of the two runs second.)
  EXPECT_TRUE(has(e, "race: ")) << e;
  EXPECT_TRUE(has(e, "st.shared.u32 [buf], 0")) << e;
  EXPECT_TRUE(has(e, "atom.shared.add.u32")) << e;
}

// Warp 0 allocates 32 columns; warp 0 stores TMEM lanes 0..31, warp 4
// (the same lane quadrant) loads them; then warp 0 frees them.
std::string tmemKernel(bool fenceBefore, bool barrier, bool fenceAfter,
                       bool barrierBeforeDealloc = true) {
  std::string b =
      "  @!%p2 bra A1;\n"
      "  mov.b32 %r8, 32;\n"
      "  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], %r8;\n"
      "A1:\n"
      "  bar.sync 0;\n"
      "  ld.shared.b32 %r2, [slot];\n"
      "  @!%p2 bra S1;\n"
      "  mov.b32 %v0, 5;\n"
      "  tcgen05.st.sync.aligned.32x32b.x1.b32 [%r2], {%v0};\n"
      "  tcgen05.wait::st.sync.aligned;\n";
  if (fenceBefore)
    b += "  tcgen05.fence::before_thread_sync;\n";
  b += "S1:\n";
  if (barrier)
    b += "  bar.sync 1;\n";
  b += "  @!%p3 bra L1;\n";
  if (fenceAfter)
    b += "  tcgen05.fence::after_thread_sync;\n";
  b += "  tcgen05.ld.sync.aligned.32x32b.x1.b32 {%v1}, [%r2];\n"
       "  tcgen05.wait::ld.sync.aligned;\n"
       "  st.global.u32 [%rd1], %v1;\n"
       "  tcgen05.fence::before_thread_sync;\n"
       "L1:\n";
  if (barrierBeforeDealloc)
    b += "  bar.sync 2;\n";
  b += "  @!%p2 bra E1;\n"
       "  tcgen05.fence::after_thread_sync;\n"
       "  tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n"
       "  tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r2, 32;\n"
       "E1:\n";
  return kernel(b);
}

TEST(SanitizerTest, TcgenFencesAroundAThreadSync) {
  EXPECT_EQ(run(tmemKernel(true, true, true), 160), "");
  std::string e = run(tmemKernel(false, true, true), 160);
  EXPECT_TRUE(has(e, "missing tcgen05.fence::before_thread_sync")) << e;
  EXPECT_TRUE(has(e, "tcgen05.st.sync.aligned.32x32b.x1.b32 [%r2], {%v0}"))
      << e;
  EXPECT_TRUE(has(e, "bar.sync 1")) << e;
  EXPECT_TRUE(has(e, "PTX ISA 9.7.16.6")) << e;
  e = run(tmemKernel(true, true, false), 160);
  EXPECT_TRUE(has(e, "missing tcgen05.fence::after_thread_sync")) << e;
  EXPECT_TRUE(has(e, "tcgen05.ld.sync.aligned.32x32b.x1.b32 {%v1}, [%r2]"))
      << e;
}

TEST(SanitizerTest, TensorMemoryNeedsASynchronization) {
  // No bar.sync 1 at all: the ld is not ordered after the st.
  std::string e = run(tmemKernel(true, false, true), 160);
  EXPECT_TRUE(has(e, "race: tcgen05.ld of TMEM lanes 0..31, column 0")) << e;
  EXPECT_TRUE(has(e, "tcgen05.st.sync.aligned")) << e;
  // No barrier before the dealloc: warp 4's ld is not ordered before it.
  e = run(tmemKernel(true, true, true, false), 160);
  EXPECT_TRUE(has(e, "race: tcgen05.")) << e;
  EXPECT_TRUE(has(e, "tcgen05.dealloc.cta_group::1")) << e;
  EXPECT_TRUE(has(e, "tcgen05.ld.sync.aligned.32x32b.x1.b32 {%v1}")) << e;
}

TEST(SanitizerTest, TheAllocatedAddressNeedsABarrier) {
  // Warp 1 reads the TMEM address slot with nothing ordering it after the
  // alloc that wrote it.
  std::string e = run(
      kernel("  @!%p2 bra A1;\n"
             "  mov.b32 %r8, 32;\n"
             "  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 "
             "[slot], %r8;\n"
             "A1:\n"
             "  setp.eq.u32 %p4, %r0, 32;\n"
             "  @%p4 ld.shared.b32 %r2, [slot];\n"
             "  bar.sync 0;\n"
             "  @!%p2 bra E1;\n"
             "  ld.shared.b32 %r2, [slot];\n"
             "  tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n"
             "  tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r2, 32;\n"
             "E1:\n"),
      64);
  EXPECT_TRUE(has(e, "race: ld of shared")) << e;
  EXPECT_TRUE(has(e, "tcgen05.alloc")) << e;
}

TEST(SanitizerTest, ExploredSchedulesKeepCorrectKernelsCorrect) {
  for (uint64_t seed = 1; seed <= 16; ++seed) {
    EXPECT_EQ(run(tmemKernel(true, true, true), 160, seed), "") << seed;
    EXPECT_EQ(run(kernel(std::string(kStore) + "  bar.sync 0;\n" + kLoad), 64,
                      seed),
              "")
        << seed;
  }
}

// Runs kernel `k` of `text` on a cluster of two CTAs of one thread each.
std::string runPair(const std::string &text, uint64_t seed = 0) {
  Machine m;
  auto mod = m.loadPTX(text, "pair.ptx");
  if (!mod)
    return mod.message();
  const Kernel *k = *(*mod)->kernel("k");
  uint64_t out = *m.allocate(64);
  ParamBuilder pb(*k);
  (void)pb.addU64(out);
  LaunchConfig cfg;
  cfg.grid = Dim3(2);
  cfg.block = Dim3(1);
  cfg.cluster = Dim3(2);
  cfg.params = *pb.take();
  cfg.scheduleSeed = seed;
  Error e = m.launch(*k, cfg);
  return e ? e.message() : std::string();
}

TEST(SanitizerTest, AnMbarrierOtherCtasUseNeedsTheInitFence) {
  // CTA 0 initializes its barrier; CTA 1 arrives on it remotely after a
  // cluster barrier. Without fence.mbarrier_init the init is not released
  // to the cluster.
  auto text = [](bool fence) {
    return std::string(
               ".version 8.8\n.target sm_100a\n.address_size 64\n"
               ".visible .entry k(.param .u64 out)\n{\n"
               "  .reg .pred %p<4>;\n  .reg .b32 %r<8>;\n"
               "  .reg .b64 %rd<8>;\n"
               "  .shared .align 8 .b64 bar;\n"
               "  mov.u32 %r1, bar;\n"
               "  mov.u32 %r2, %cluster_ctarank;\n"
               "  setp.ne.u32 %p1, %r2, 0;\n"
               "  @%p1 bra SKIP;\n"
               "  mbarrier.init.shared.b64 [%r1], 1;\n") +
           (fence ? "  fence.mbarrier_init.release.cluster;\n" : "") +
           "SKIP:\n"
           "  barrier.cluster.arrive.release.aligned;\n"
           "  barrier.cluster.wait.acquire.aligned;\n"
           "  @!%p1 bra WAIT;\n"
           "  mapa.shared::cluster.u32 %r3, %r1, 0;\n"
           "  mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r3];\n"
           "  ret;\n"
           "WAIT:\n"
           "  mbarrier.try_wait.parity.shared.b64 %p2, [%r1], 0;\n"
           "  @!%p2 bra WAIT;\n"
           "  ret;\n}\n";
  };
  EXPECT_EQ(runPair(text(true)), "");
  std::string e = runPair(text(false));
  EXPECT_TRUE(has(e, "missing fence.mbarrier_init")) << e;
  EXPECT_TRUE(has(e, "mbarrier.init.shared.b64 [%r1], 1")) << e;
  EXPECT_TRUE(has(e, "mbarrier.arrive.release.cluster")) << e;
}

TEST(SanitizerTest, StarvedSchedulesShowAnExitBeforeThePeersLastArrive) {
  // Each CTA of a pair signals the peer's `full`, waits for its own, then
  // signals the peer's `empty` (which nobody waits for) and works on for
  // 600 instructions. Without a cluster barrier before the exit a CTA may
  // be gone when the peer's `empty` arrive reaches it: the peer must lag
  // by 600 instructions at that point, which slices of at most 128 never
  // produce and a starved CTA does.
  auto text = [](bool clusterBarrier) {
    return std::string(
               ".version 8.8\n.target sm_100a\n.address_size 64\n"
               ".visible .entry k(.param .u64 out)\n{\n"
               "  .reg .pred %p<4>;\n  .reg .b32 %r<8>;\n"
               "  .shared .align 8 .b64 bar[2];\n"
               "  mov.u32 %r1, bar;\n  add.u32 %r4, %r1, 8;\n"
               "  mbarrier.init.shared.b64 [%r1], 1;\n"
               "  mbarrier.init.shared.b64 [%r4], 1;\n"
               "  fence.mbarrier_init.release.cluster;\n"
               "  barrier.cluster.arrive.release.aligned;\n"
               "  barrier.cluster.wait.acquire.aligned;\n"
               "  mov.u32 %r2, %cluster_ctarank;\n  xor.b32 %r3, %r2, 1;\n"
               "  mapa.shared::cluster.u32 %r5, %r1, %r3;\n"
               "  mbarrier.arrive.release.cluster.shared::cluster.b64 _, "
               "[%r5];\n"
               "WAIT:\n"
               "  mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 "
               "%p2, [%r1], 0;\n"
               "  @!%p2 bra WAIT;\n"
               "  mapa.shared::cluster.u32 %r6, %r4, %r3;\n"
               "  mbarrier.arrive.release.cluster.shared::cluster.b64 _, "
               "[%r6];\n"
               "  mov.u32 %r7, 0;\n"
               "LOOP:\n  add.u32 %r7, %r7, 1;\n"
               "  setp.lt.u32 %p3, %r7, 200;\n  @%p3 bra LOOP;\n") +
           (clusterBarrier ? "  barrier.cluster.arrive.release.aligned;\n"
                             "  barrier.cluster.wait.acquire.aligned;\n"
                           : "") +
           "  ret;\n}\n";
  };
  EXPECT_EQ(runPair(text(false), 0), ""); // the fixed order hides it
  unsigned caught = 0;
  for (uint64_t seed = 1; seed <= 32; ++seed) {
    EXPECT_EQ(runPair(text(true), seed), "") << seed;
    std::string e = runPair(text(false), seed);
    if (e.empty())
      continue;
    ++caught;
    EXPECT_TRUE(has(e, "which has exited")) << e;
  }
  EXPECT_GT(caught, 0u);
}

// Warp 1 writes 16 bytes of buf through the generic proxy; thread 0 copies
// them to global memory with a bulk copy (the async proxy reads them).
std::string proxyKernel(const std::string &writerFence,
                        const std::string &consumerFenceBefore,
                        const std::string &consumerFenceAfter) {
  return kernel("  setp.eq.u32 %p4, %r0, 32;\n"
                "  @%p4 st.shared.v4.u32 [buf], {%r0, %r0, %r0, %r0};\n" +
                writerFence + consumerFenceBefore + "  bar.sync 0;\n" +
                consumerFenceAfter +
                "  @!%p1 bra DONE;\n"
                "  mov.u32 %r6, buf;\n"
                "  cp.async.bulk.global.shared::cta.bulk_group [%rd1], [%r6], "
                "16;\n"
                "  cp.async.bulk.commit_group;\n"
                "  cp.async.bulk.wait_group 0;\n"
                "DONE:\n");
}

TEST(SanitizerTest, GenericWritesNeedAProxyFenceBeforeTheAsyncProxy) {
  const std::string fence = "  fence.proxy.async.shared::cta;\n";
  const std::string consumer = "  @!%p1 bra SKIPC;\n" + fence + "SKIPC:\n";
  // The writer fences after its write, before the barrier.
  EXPECT_EQ(run(proxyKernel("  @!%p4 bra SKIPF;\n" + fence + "SKIPF:\n", "",
                            ""),
                64),
            "");
  // The consumer fences after the barrier (the fence is cumulative).
  EXPECT_EQ(run(proxyKernel("", "", consumer), 64), "");
  // No fence.
  std::string e = run(proxyKernel("", "", ""), 64);
  EXPECT_TRUE(has(e, "missing fence.proxy.async")) << e;
  EXPECT_TRUE(has(e, "st.shared.v4.u32 [buf]")) << e;
  EXPECT_TRUE(has(e, "cp.async.bulk.global.shared::cta.bulk_group")) << e;
  EXPECT_TRUE(has(e, "PTX ISA 9.7.13.4")) << e;
  // The consumer's fence before the barrier does not cover the write.
  e = run(proxyKernel("", consumer, ""), 64);
  EXPECT_TRUE(has(e, "missing fence.proxy.async")) << e;
  // A fence of global memory only does not cover shared memory.
  e = run(proxyKernel("  fence.proxy.async.global;\n", "", ""), 64);
  EXPECT_TRUE(has(e, "missing fence.proxy.async")) << e;
}

TEST(SanitizerTest, TheCheckCanBeTurnedOff) {
  Machine m;
  auto mod = m.loadPTX(kernel(std::string(kStore) + kLoad), "s.ptx");
  ASSERT_TRUE(static_cast<bool>(mod)) << mod.message();
  const Kernel *k = *(*mod)->kernel("k");
  uint64_t out = *m.allocate(4096);
  ParamBuilder pb(*k);
  (void)pb.addU64(out);
  LaunchConfig cfg;
  cfg.grid = Dim3(1);
  cfg.block = Dim3(64);
  cfg.params = *pb.take();
  cfg.sanitize = false;
  Error e = m.launch(*k, cfg);
  EXPECT_FALSE(static_cast<bool>(e)) << e.message();
}

} // namespace
