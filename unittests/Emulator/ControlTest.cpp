//===- ControlTest.cpp - Divergence, barriers, calls and errors -----------===//
//
// Kernels written out in PTX; expected outputs and diagnostics computed by
// hand. Line numbers in expected messages count from the kernel header that
// kern() writes (the body starts on line 11).
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "gtest/gtest.h"

using namespace nvfp4::emu;
using namespace nvfp4::emu::test;

namespace {



TEST(DivergenceTest, IfElseReconvergesBeforeAlignedBarrier) {
  std::string body = std::string(kAddr) + "  and.b32 %r1, %r0, 1;\n"
                                          "  setp.eq.u32 %p1, %r1, 0;\n"
                                          "  @%p1 bra EVEN;\n"
                                          "  mul.lo.u32 %r2, %r0, 3;\n"
                                          "  activemask.b32 %r4;\n"
                                          "  bra JOIN;\n"
                                          "EVEN:\n"
                                          "  mul.lo.u32 %r2, %r0, 5;\n"
                                          "  activemask.b32 %r4;\n"
                                          "JOIN:\n"
                                          "  bar.sync 0;\n"
                                          "  vote.sync.all.pred %p2, %p1, -1;\n"
                                          "  activemask.b32 %r3;\n"
                                          "  xor.b32 %r3, %r3, %r4;\n"
                                          "  mov.b64 %rd4, {%r2, %r3};\n"
                                          "  st.global.u64 [%rd3], %rd4;\n"
                                          "  ret;";
  std::vector<uint64_t> out(32);
  ASSERT_EQ(runKernel(kern(body), "k", {}, out), "");
  for (uint32_t t = 0; t < 32; ++t) {
    uint64_t lo = t % 2 ? 3 * t : 5 * t;
    // Inside the branch activemask is the odd or even lanes; after the join
    // it is all lanes, so full ^ branch-mask is the other half.
    uint64_t hi = t % 2 ? 0x55555555u : 0xaaaaaaaau;
    EXPECT_EQ(out[t], (hi << 32) | lo) << t;
  }
}

TEST(DivergenceTest, AlignedInsideBranchIsReported) {
  std::string body = "  setp.lt.u32 %p1, %r0, 16;\n" // line 11
                     "  @%p1 bra SKIP;\n"            // 12
                     "  bar.sync 0;\n"               // 13
                     "SKIP:\n"                       // 14
                     "  ret;";                       // 15
  std::vector<uint64_t> out(1);
  Fault f;
  EXPECT_EQ(runKernel(kern(body), "k", {}, out, &f),
            "'bar.sync' requires all non-exited lanes of the warp to execute "
            "it together (.aligned), but lanes 0xffff exited (line 15) while "
            "lanes 0xffff0000 waited at it in CTA (0,0,0) "
            "warp 0 lane 16 (thread (16,0,0)) at line 13: bar.sync 0;");
  EXPECT_EQ(f.kind, Fault::Kind::Divergence);
  EXPECT_EQ(f.lane, 16u);
  EXPECT_EQ(f.line, 13u);
}

TEST(DivergenceTest, SyncAlignedUnderOneThreadGuard) {
  // A .sync.aligned instruction under a one-lane guard (the bug class of a
  // tcgen05.ld issued by one thread).
  std::string body = "  setp.ne.u32 %p1, %r0, 0;\n"             // 11
                     "  @%p1 bra DONE;\n"                       // 12
                     "  setmaxnreg.inc.sync.aligned.u32 152;\n" // 13
                     "DONE:\n  ret;";
  std::vector<uint64_t> out(1);
  Fault f;
  std::string err = runKernel(kern(body), "k", {}, out, &f);
  EXPECT_EQ(f.kind, Fault::Kind::Divergence);
  EXPECT_EQ(f.line, 13u);
  EXPECT_NE(err.find("'setmaxnreg.inc.sync.aligned.u32' requires all "
                     "non-exited lanes"),
            std::string::npos)
      << err;
}

TEST(DivergenceTest, PerLaneLoopTripCounts) {
  // Lane t adds 0 + 1 + ... + (t - 1); then a warp-wide vote needs every lane
  // back together.
  std::string body = std::string(kAddr) +
                     "  mov.u32 %r1, 0;\n  mov.u32 %r2, 0;\n"
                     "LOOP:\n"
                     "  setp.ge.u32 %p1, %r1, %r0;\n"
                     "  @%p1 bra DONE;\n"
                     "  add.u32 %r2, %r2, %r1;\n"
                     "  add.u32 %r1, %r1, 1;\n"
                     "  bra LOOP;\n"
                     "DONE:\n"
                     "  vote.sync.ballot.b32 %r3, %p1, -1;\n"
                     "  mov.b64 %rd4, {%r2, %r3};\n"
                     "  st.global.u64 [%rd3], %rd4;\n  ret;";
  std::vector<uint64_t> out(32);
  ASSERT_EQ(runKernel(kern(body), "k", {}, out), "");
  for (uint64_t t = 0; t < 32; ++t)
    EXPECT_EQ(out[t], (0xffffffffull << 32) | (t * (t - (t ? 1 : 0)) / 2)) << t;
}

TEST(DivergenceTest, PartialExitAndPartialWarp) {
  // 40 threads: warp 1 has 8 lanes. Lanes >= 4 of each warp exit early; the
  // rest still pass an aligned barrier.
  std::string body = std::string(kAddr) +
                     "  and.b32 %r1, %r0, 31;\n"
                     "  setp.ge.u32 %p1, %r1, 4;\n"
                     "  @%p1 exit;\n"
                     "  bar.sync 0;\n"
                     "  activemask.b32 %r2;\n"
                     "  cvt.u64.u32 %rd4, %r2;\n"
                     "  st.global.u64 [%rd3], %rd4;\n  ret;";
  std::vector<uint64_t> out(40);
  KernelOptions o;
  o.block = Dim3(40);
  ASSERT_EQ(runKernel(kern(body), "k", o, out), "");
  for (uint32_t t = 0; t < 40; ++t)
    EXPECT_EQ(out[t], (t % 32) < 4 ? 0xfu : 0u) << t;
}

TEST(BarrierTest, SharedMemoryAcrossWarps) {
  // Thread t writes s[t] = 2t; after bar.sync it reads s[(t + 32) % 64],
  // which the other warp wrote.
  std::string body = std::string(kAddr) +
                     "  shl.b32 %r1, %r0, 2;\n"
                     "  mov.u32 %r2, s;\n"
                     "  add.u32 %r3, %r2, %r1;\n"
                     "  shl.b32 %r4, %r0, 1;\n"
                     "  st.shared.u32 [%r3], %r4;\n"
                     "  bar.sync 0;\n"
                     "  add.u32 %r5, %r0, 32;\n"
                     "  and.b32 %r5, %r5, 63;\n"
                     "  shl.b32 %r5, %r5, 2;\n"
                     "  add.u32 %r5, %r2, %r5;\n"
                     "  ld.shared.u32 %r6, [%r5];\n"
                     "  cvt.u64.u32 %rd4, %r6;\n"
                     "  st.global.u64 [%rd3], %rd4;\n  ret;";
  std::vector<uint64_t> out(64);
  KernelOptions o;
  o.block = Dim3(64);
  ASSERT_EQ(
      runKernel(kern(body, ".shared .align 4 .b8 s[256];\n"), "k", o, out), "");
  for (uint32_t t = 0; t < 64; ++t)
    EXPECT_EQ(out[t], 2 * ((t + 32) % 64)) << t;
}

TEST(BarrierTest, NamedBarriersWithCountsAndArrive) {
  // Warp 0 produces into shared memory and signals barrier 1 with
  // bar.arrive; warp 1 waits there with bar.sync and consumes. Warps 2 and 3
  // synchronize on barrier 2 among themselves.
  std::string body = std::string(kAddr) +
                     "  shr.u32 %r1, %r0, 5;\n"
                     "  and.b32 %r7, %r0, 31;\n"
                     "  shl.b32 %r8, %r7, 2;\n"
                     "  mov.u32 %r9, s;\n"
                     "  add.u32 %r9, %r9, %r8;\n"
                     "  setp.eq.u32 %p1, %r1, 0;\n"
                     "  @%p1 bra PRODUCER;\n"
                     "  setp.eq.u32 %p2, %r1, 1;\n"
                     "  @%p2 bra CONSUMER;\n"
                     "  bar.sync 2, 64;\n"
                     "  mov.u32 %r10, 77;\n"
                     "  bra OUT;\n"
                     "PRODUCER:\n"
                     "  add.u32 %r10, %r7, 1000;\n"
                     "  st.shared.u32 [%r9], %r10;\n"
                     "  bar.arrive 1, 64;\n"
                     "  bra OUT;\n"
                     "CONSUMER:\n"
                     "  bar.sync 1, 64;\n"
                     "  ld.shared.u32 %r10, [%r9];\n"
                     "OUT:\n"
                     "  cvt.u64.u32 %rd4, %r10;\n"
                     "  st.global.u64 [%rd3], %rd4;\n  ret;";
  std::vector<uint64_t> out(128);
  KernelOptions o;
  o.block = Dim3(128);
  ASSERT_EQ(
      runKernel(kern(body, ".shared .align 4 .b8 s[128];\n"), "k", o, out), "");
  for (uint32_t t = 0; t < 128; ++t) {
    uint64_t want = t < 64 ? 1000 + (t % 32) : 77;
    EXPECT_EQ(out[t], want) << t;
  }
}

TEST(BarrierTest, BarRedPopcAndOr) {
  std::string body = std::string(kAddr) +
                     "  and.b32 %r1, %r0, 3;\n"
                     "  setp.eq.u32 %p1, %r1, 0;\n"
                     "  bar.red.popc.u32 %r2, 0, %p1;\n"
                     "  bar.red.or.pred %p2, 0, %p1;\n"
                     "  selp.u32 %r3, 1, 0, %p2;\n"
                     "  mov.b64 %rd4, {%r2, %r3};\n"
                     "  st.global.u64 [%rd3], %rd4;\n  ret;";
  std::vector<uint64_t> out(64);
  KernelOptions o;
  o.block = Dim3(64);
  ASSERT_EQ(runKernel(kern(body), "k", o, out), "");
  for (uint32_t t = 0; t < 64; ++t)
    EXPECT_EQ(out[t], (1ull << 32) | 16) << t;
}

TEST(BarrierTest, DeadlockIsReported) {
  // Warp 0 waits for 64 threads at barrier 1; warp 1 exits instead.
  std::string body = "  shr.u32 %r1, %r0, 5;\n"     // 11
                     "  setp.ne.u32 %p1, %r1, 0;\n" // 12
                     "  @%p1 exit;\n"               // 13
                     "  bar.sync 1, 64;\n"          // 14
                     "  ret;";
  std::vector<uint64_t> out(1);
  KernelOptions o;
  o.block = Dim3(64);
  Fault f;
  EXPECT_EQ(runKernel(kern(body), "k", o, out, &f),
            "deadlock: no warp of cluster (0,0,0) can make progress\n"
            "  CTA (0,0,0) warp 0: lanes 0xffffffff wait at barrier 1 (line "
            "14), 1 of 2 warps arrived");
  EXPECT_EQ(f.kind, Fault::Kind::Deadlock);
  EXPECT_EQ(f.line, 14u);
}

TEST(BarrierTest, ClusterBarrierAndClusterRegisters) {
  std::string body = "  mov.u32 %r1, %ctaid.x;\n"
                     "  mov.u32 %r2, %ntid.x;\n"
                     "  mad.lo.u32 %r3, %r1, %r2, %r0;\n"
                     "  mul.wide.u32 %rd2, %r3, 8;\n"
                     "  add.s64 %rd3, %rd1, %rd2;\n"
                     "  barrier.cluster.arrive.aligned;\n"
                     "  barrier.cluster.wait.aligned;\n"
                     "  mov.u32 %r4, %cluster_ctarank;\n"
                     "  mov.u32 %r5, %clusterid.x;\n"
                     "  mov.u32 %r6, %cluster_nctarank;\n"
                     "  shl.b32 %r5, %r5, 8;\n"
                     "  shl.b32 %r6, %r6, 16;\n"
                     "  or.b32 %r4, %r4, %r5;\n"
                     "  or.b32 %r4, %r4, %r6;\n"
                     "  cvt.u64.u32 %rd4, %r4;\n"
                     "  st.global.u64 [%rd3], %rd4;\n  ret;";
  std::vector<uint64_t> out(4 * 64);
  KernelOptions o;
  o.grid = Dim3(4);
  o.block = Dim3(64);
  o.cluster = Dim3(2);
  ASSERT_EQ(runKernel(kern(body), "k", o, out), "");
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t cta = i / 64;
    EXPECT_EQ(out[i], (2u << 16) | ((cta / 2) << 8) | (cta % 2)) << i;
  }
}

TEST(CallTest, FunctionsWithParamsAndReturnValues) {
  std::string text =
      ".version 8.8\n.target sm_90a\n.address_size 64\n"
      ".func (.param .b32 r) addk(.param .b32 x, .param .b32 y)\n{\n"
      "  .reg .b32 %r<4>;\n  ld.param.b32 %r1, [x];\n"
      "  ld.param.b32 %r2, [y];\n  add.s32 %r3, %r1, %r2;\n"
      "  st.param.b32 [r], %r3;\n  ret;\n}\n"
      ".func (.param .b32 r) twice(.param .b32 x)\n{\n"
      "  .reg .b32 %r<4>;\n  ld.param.b32 %r1, [x];\n"
      "  {\n  .param .b32 a0;\n  st.param.b32 [a0], %r1;\n"
      "  .param .b32 a1;\n  st.param.b32 [a1], %r1;\n"
      "  .param .b32 rv;\n  call.uni (rv), addk, (a0, a1);\n"
      "  ld.param.b32 %r2, [rv];\n  }\n"
      "  st.param.b32 [r], %r2;\n  ret;\n}\n"
      ".visible .entry k(.param .u64 out)\n{\n"
      "  .reg .pred %p<2>;\n  .reg .b32 %r<8>;\n  .reg .b64 %rd<8>;\n"
      "  ld.param.u64 %rd1, [out];\n  mov.u32 %r0, %tid.x;\n"
      "  mul.wide.u32 %rd2, %r0, 8;\n  add.s64 %rd3, %rd1, %rd2;\n"
      "  mov.u32 %r3, 0;\n"
      "  setp.lt.u32 %p1, %r0, 10;\n  @%p1 bra SKIP;\n"
      "  {\n  .param .b32 p0;\n  st.param.b32 [p0], %r0;\n"
      "  .param .b32 ret0;\n  call (ret0), twice, (p0);\n"
      "  ld.param.b32 %r3, [ret0];\n  }\n"
      "SKIP:\n  cvt.u64.u32 %rd4, %r3;\n  st.global.u64 [%rd3], %rd4;\n"
      "  ret;\n}\n";
  std::vector<uint64_t> out(32);
  ASSERT_EQ(runKernel(text, "k", {}, out), "");
  for (uint32_t t = 0; t < 32; ++t)
    EXPECT_EQ(out[t], t < 10 ? 0 : 2 * t) << t;
}

TEST(ErrorTest, UnknownAndUnimplementedInstructions) {
  std::vector<uint64_t> out(1);
  Fault f;
  EXPECT_EQ(runKernel(kern("  frob.b32 %r1;\n  ret;"), "k", {}, out, &f),
            "unknown instruction 'frob.b32' in CTA (0,0,0) warp 0 lane 0 "
            "(thread (0,0,0)) at line 11: frob.b32 %r1;");
  EXPECT_EQ(f.kind, Fault::Kind::NotImplemented);
  EXPECT_EQ(runKernel(kern("  .shared .align 4 .b32 slot;\n"
                           "  mov.b32 %r1, 32;\n"
                           "  getctarank.shared::cluster.u32 %r2, %r1;\n"
                           "  ret;"),
                      "k", {}, out, &f),
            "not implemented yet: getctarank.shared::cluster.u32 in CTA "
            "(0,0,0) warp 0 lane 0 (thread (0,0,0)) at line 13: "
            "getctarank.shared::cluster.u32 %r2, %r1;");
  EXPECT_EQ(
      runKernel(kern("  add.s32.funky %r1, %r0, 1;\n  ret;"), "k", {}, out, &f),
      "unsupported modifier '.funky' in 'add.s32.funky' in CTA (0,0,0) "
      "warp 0 lane 0 (thread (0,0,0)) at line 11: add.s32.funky %r1, "
      "%r0, 1;");
  EXPECT_EQ(f.kind, Fault::Kind::Invalid);
  // Unexecuted unsupported instructions are fine; they are listed.
  Machine m;
  auto mod = m.loadPTX(kern("  ret;\n  frob.b32 %r1;"), "k.ptx");
  ASSERT_TRUE(static_cast<bool>(mod));
  const Kernel *k = *(*mod)->kernel("k");
  ASSERT_EQ(k->unsupported().size(), 1u);
  EXPECT_EQ(k->unsupported()[0], "k.ptx:12: unknown instruction 'frob.b32'");
  EXPECT_EQ(runKernel(kern("  ret;\n  frob.b32 %r1;"), "k", {}, out), "");
}

TEST(ErrorTest, TrapLimitAndLaunchChecks) {
  std::vector<uint64_t> out(1);
  Fault f;
  EXPECT_EQ(runKernel(kern("  trap;"), "k", {}, out, &f),
            "trap instruction executed in CTA (0,0,0) warp 0 lane 0 (thread "
            "(0,0,0)) at line 11: trap;");
  EXPECT_EQ(f.kind, Fault::Kind::Trap);
  KernelOptions o;
  o.maxWarpInstructions = 1000;
  EXPECT_EQ(runKernel(kern("SPIN:\n  bra SPIN;"), "k", o, out, &f),
            "stopped after 1000 warp instructions (maxWarpInstructions); CTA "
            "(0,0,0) warp 0 was at line 12");
  EXPECT_EQ(f.kind, Fault::Kind::Limit);
  o = KernelOptions();
  o.block = Dim3(2048);
  EXPECT_EQ(runKernel(kern("  ret;"), "k", o, out, &f),
            "launch of 'k': block (2048,1,1) exceeds 1024 threads (x, y <= "
            "1024, z <= 64)");
  EXPECT_EQ(f.kind, Fault::Kind::Launch);
  o = KernelOptions();
  o.grid = Dim3(3);
  o.cluster = Dim3(2);
  EXPECT_EQ(runKernel(kern("  ret;"), "k", o, out),
            "launch of 'k': grid (3,1,1) is not a multiple of the cluster "
            "(2,1,1)");
  o = KernelOptions();
  o.dynamicShared = 300000;
  EXPECT_EQ(runKernel(kern("  ret;"), "k", o, out),
            "launch of 'k': 0 bytes of static and 300000 bytes of dynamic "
            "shared memory exceed the 232448 bytes a CTA may use");
  EXPECT_EQ(runKernel(kern("  ret;"), "nope", o, out),
            "no kernel named 'nope' in k.ptx (kernels: k)");
}

TEST(SpecialRegisterTest, MultiDimensionalIds) {
  std::string body =
      "  mov.u32 %r1, %tid.y;\n  mov.u32 %r2, %tid.z;\n"
      "  mov.u32 %r3, %ctaid.y;\n  mov.u32 %r4, %ntid.x;\n"
      "  mov.u32 %r5, %ntid.y;\n  mov.u32 %r6, %nctaid.y;\n"
      "  mov.u32 %r7, %warpid;\n"
      // linear = ((ctaid.y * 2 + tid.z) * ntid.y + tid.y) *
      // ntid.x + tid.x  (grid (1,2), block (8,2,2))
      "  mad.lo.u32 %r8, %r3, 2, %r2;\n"
      "  mad.lo.u32 %r8, %r8, %r5, %r1;\n"
      "  mad.lo.u32 %r8, %r8, %r4, %r0;\n"
      "  mul.wide.u32 %rd2, %r8, 8;\n  add.s64 %rd3, %rd1, %rd2;\n"
      "  shl.b32 %r9, %r1, 4;\n  shl.b32 %r10, %r2, 8;\n"
      "  shl.b32 %r11, %r3, 12;\n  shl.b32 %r12, %r6, 16;\n"
      "  shl.b32 %r13, %r7, 20;\n"
      "  or.b32 %r9, %r9, %r0;\n  or.b32 %r9, %r9, %r10;\n"
      "  or.b32 %r9, %r9, %r11;\n  or.b32 %r9, %r9, %r12;\n"
      "  or.b32 %r9, %r9, %r13;\n"
      "  cvt.u64.u32 %rd4, %r9;\n  st.global.u64 [%rd3], %rd4;\n"
      "  ret;";
  std::vector<uint64_t> out(64);
  KernelOptions o;
  o.grid = Dim3(1, 2);
  o.block = Dim3(8, 2, 2);
  ASSERT_EQ(runKernel(kern(body), "k", o, out), "");
  for (uint32_t cy = 0; cy < 2; ++cy)
    for (uint32_t z = 0; z < 2; ++z)
      for (uint32_t y = 0; y < 2; ++y)
        for (uint32_t x = 0; x < 8; ++x) {
          uint32_t lin = ((cy * 2 + z) * 2 + y) * 8 + x;
          uint32_t warp = 0; // 32 threads per CTA: one warp
          uint64_t want =
              x | (y << 4) | (z << 8) | (cy << 12) | (2u << 16) | (warp << 20);
          EXPECT_EQ(out[lin], want) << lin;
        }
}

} // namespace

//===----------------------------------------------------------------------===//
// vprintf (CUDA's device printf)
//===----------------------------------------------------------------------===//

/// The PTX nvcc and MLIR's gpu.printf emit for printf: the format in
/// .global, the arguments packed in a local buffer (each aligned to its
/// size), vprintf(format, buffer).
std::string printfKernel() {
  return ".version 8.8\n.target sm_100a\n.address_size 64\n"
         ".extern .func (.param .b32 func_retval0) vprintf\n"
         "(.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);\n"
         // "lane %d: %lld %u %x %.2f %s|%%\n"
         ".global .align 1 .b8 fmt[33] = {108, 97, 110, 101, 32, 37, 100, 58, "
         "32, 37, 108, 108, 100, 32, 37, 117, 32, 37, 120, 32, 37, 46, 50, "
         "102, 32, 37, 115, 124, 37, 37, 10, 0, 0};\n"
         // "ok"
         ".global .align 1 .b8 word[3] = {111, 107, 0};\n"
         ".visible .entry k(.param .u64 out)\n{\n"
         "  .local .align 8 .b8 buf[48];\n"
         "  .reg .b32 %r<8>;\n  .reg .b64 %rd<12>;\n  .reg .f64 %fd<2>;\n"
         "  ld.param.u64 %rd1, [out];\n"
         "  mov.u32 %r0, %tid.x;\n"
         "  mov.u64 %rd2, buf;\n"
         "  cvta.local.u64 %rd3, %rd2;\n"
         "  st.local.b32 [%rd2], %r0;\n"             // %d at 0
         "  mov.b64 %rd4, -5000000000;\n"
         "  st.local.b64 [%rd2+8], %rd4;\n"          // %lld at 8
         "  st.local.b32 [%rd2+16], 4000000000;\n"   // %u at 16
         "  st.local.b32 [%rd2+20], 255;\n"          // %x at 20
         "  mov.f64 %fd1, 0d4004000000000000;\n"     // 2.5
         "  st.local.f64 [%rd2+24], %fd1;\n"         // %.2f at 24
         "  mov.u64 %rd5, word;\n"
         "  cvta.global.u64 %rd6, %rd5;\n"
         "  st.local.b64 [%rd2+32], %rd6;\n"         // %s at 32
         "  mov.u64 %rd7, fmt;\n"
         "  cvta.global.u64 %rd8, %rd7;\n"
         "  {\n  .param .b64 p0;\n  .param .b64 p1;\n  .param .b32 r;\n"
         "  st.param.b64 [p0], %rd8;\n  st.param.b64 [p1], %rd3;\n"
         "  call.uni (r), vprintf, (p0, p1);\n"
         "  ld.param.b32 %r1, [r];\n  }\n"
         "  mul.wide.u32 %rd9, %r0, 8;\n  add.s64 %rd10, %rd1, %rd9;\n"
         "  cvt.u64.u32 %rd11, %r1;\n  st.global.u64 [%rd10], %rd11;\n"
         "  ret;\n}\n";
}

TEST(VprintfTest, FormatsEachLaneInOrder) {
  Machine m;
  auto mod = m.loadPTX(printfKernel(), "printf.ptx");
  ASSERT_TRUE(mod) << mod.message();
  auto k = (*mod)->kernel("k");
  ASSERT_TRUE(k) << k.message();
  uint64_t out = *m.allocate(2 * 8, "out");
  ParamBuilder pb(**k);
  ASSERT_FALSE(pb.addU64(out));
  auto params = pb.take();
  ASSERT_TRUE(params);
  LaunchConfig cfg;
  cfg.block = Dim3(2, 1, 1);
  cfg.params = std::move(*params);
  Error e = m.launch(**k, cfg);
  ASSERT_FALSE(e) << e.message();
  EXPECT_EQ(m.lastStats().printfOutput,
            "lane 0: -5000000000 4000000000 ff 2.50 ok|%\n"
            "lane 1: -5000000000 4000000000 ff 2.50 ok|%\n");
  // vprintf returns the number of arguments it read.
  uint64_t ret[2] = {};
  ASSERT_FALSE(m.read(out, ret, sizeof ret));
  EXPECT_EQ(ret[0], 6u);
  EXPECT_EQ(ret[1], 6u);
}

TEST(VprintfTest, OtherExternFunctionsAreRefused) {
  std::string text = printfKernel();
  size_t at = 0;
  while ((at = text.find("vprintf", at)) != std::string::npos)
    text.replace(at, 7, "malloc_x"), at += 8;
  std::vector<uint64_t> out(1);
  std::string msg = runKernel(text, "k", {}, out);
  EXPECT_NE(msg.find("of the extern functions only vprintf is implemented"),
            std::string::npos)
      << msg;
}
