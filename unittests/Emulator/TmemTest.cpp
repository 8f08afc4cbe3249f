//===- TmemTest.cpp - tcgen05 tensor memory tests -------------------------===//
//
// Allocation bookkeeping and errors, st/ld round trips for every shape
// against expectations written by hand from the PTX ISA data-movement
// tables (as documented in nvfp4/Support/TensorMemory.h; the test does not
// call threadRegisterToTmem), pack/unpack, and the access errors.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "gtest/gtest.h"

#include <string>
#include <vector>

using namespace nvfp4::emu;
using namespace nvfp4::emu::test;

namespace {

// A kernel k(.param .u64 out) with %r0 = %tid.x, %rd3 = out + 128 * tid,
// 32-bit register files %s (values), %v (loaded), %z (zeros), and the TMEM
// slot `slot`.
std::string tk(const std::string &body) {
  return ".version 8.8\n.target sm_100a\n.address_size 64\n"
         ".visible .entry k(.param .u64 out)\n{\n"
         "  .reg .pred %p<8>;\n  .reg .b32 %r<32>;\n  .reg .b64 %rd<16>;\n"
         "  .reg .b32 %s<64>;\n  .reg .b32 %v<64>;\n  .reg .b32 %z<32>;\n"
         "  .shared .align 4 .b32 slot;\n"
         "  ld.param.u64 %rd1, [out];\n  mov.u32 %r0, %tid.x;\n"
         "  mul.wide.u32 %rd2, %r0, 128;\n  add.s64 %rd3, %rd1, %rd2;\n" +
         body + "\n  ret;\n}\n";
}

std::string regs(const char *p, unsigned n) {
  std::string s = "{";
  for (unsigned i = 0; i < n; ++i)
    s += (i ? ", %" : "%") + std::string(p) + std::to_string(i);
  return s + "}";
}

// Runs with `threads` threads; out has 32 words per thread.
std::string run(const std::string &text, unsigned threads,
                std::vector<uint32_t> &out, Fault *f = nullptr,
                bool sanitize = true) {
  Machine m;
  auto mod = m.loadPTX(text, "tmem.ptx");
  if (!mod)
    return mod.message();
  auto k = (*mod)->kernel("k");
  if (!k)
    return k.message();
  out.assign(size_t(threads) * 32, 0);
  uint64_t d = *m.allocate(out.size() * 4);
  (void)m.write(d, out.data(), out.size() * 4);
  ParamBuilder pb(**k);
  (void)pb.addU64(d);
  LaunchConfig cfg;
  cfg.grid = Dim3(1);
  cfg.block = Dim3(threads);
  cfg.cluster = Dim3(1);
  cfg.params = *pb.take();
  cfg.sanitize = sanitize;
  Error e = m.launch(**k, cfg);
  if (f)
    *f = m.lastFault();
  if (e)
    return e.message();
  (void)m.read(d, out.data(), out.size() * 4);
  return "";
}

const char *kAlloc =
    "  mov.b32 %r1, 32;\n"
    "  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], %r1;\n"
    "  tcgen05.fence::after_thread_sync;\n"
    "  ld.shared.b32 %r2, [slot];\n";
const char *kDealloc =
    "  tcgen05.fence::before_thread_sync;\n"
    "  tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n"
    "  tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r2, 32;\n";

// Zero-fills lanes 0-31, columns 0-31 of the allocation, stores %s0.. with
// `st`, then loads the 32 x 32 block with 32x32b.x32 into out[t][j] (lane
// t, column j).
std::string roundTrip(const std::string &st, unsigned nregs) {
  std::string b = kAlloc;
  for (unsigned i = 0; i < 32; ++i)
    b += "  mov.b32 %z" + std::to_string(i) + ", 0;\n";
  for (unsigned i = 0; i < nregs; ++i)
    b += "  mad.lo.u32 %s" + std::to_string(i) + ", %r0, 256, " +
         std::to_string(i + 1) + ";\n";
  b += "  tcgen05.st.sync.aligned.32x32b.x32.b32 [%r2], " + regs("z", 32) +
       ";\n";
  b += "  " + st + "\n";
  b += "  tcgen05.wait::st.sync.aligned;\n";
  b += "  tcgen05.ld.sync.aligned.32x32b.x32.b32 " + regs("v", 32) +
       ", [%r2];\n  tcgen05.wait::ld.sync.aligned;\n";
  for (unsigned i = 0; i < 32; ++i)
    b += "  st.global.u32 [%rd3+" + std::to_string(4 * i) + "], %v" +
         std::to_string(i) + ";\n";
  return tk(b + kDealloc);
}

uint32_t val(unsigned t, unsigned r) { return t * 256 + r + 1; }

TEST(TmemTest, LoadResultsAppearAtWaitLd) {
  // Before tcgen05.wait::ld the destination registers hold the pending-load
  // NaN 0x7FA11D1D; after it, the loaded values. A register the program
  // overwrites meanwhile keeps its new value.
  std::string b = std::string(kAlloc) +
                  "  mov.b32 %s0, 11;\n  mov.b32 %s1, 22;\n"
                  "  tcgen05.st.sync.aligned.32x32b.x2.b32 [%r2], {%s0, %s1};\n"
                  "  tcgen05.wait::st.sync.aligned;\n"
                  "  tcgen05.ld.sync.aligned.32x32b.x2.b32 {%v0, %v1}, [%r2];\n"
                  "  st.global.u32 [%rd3], %v0;\n"
                  "  mov.b32 %v1, 5;\n"
                  "  tcgen05.wait::ld.sync.aligned;\n"
                  "  st.global.u32 [%rd3+4], %v0;\n"
                  "  st.global.u32 [%rd3+8], %v1;\n" +
                  std::string(kDealloc);
  std::vector<uint32_t> out;
  ASSERT_EQ(run(tk(b), 32, out), "");
  EXPECT_EQ(out[0], 0x7FA11D1Du);
  EXPECT_EQ(out[1], 11u);
  EXPECT_EQ(out[2], 5u);
}

TEST(TmemTest, RoundTrip32x32b) {
  std::vector<uint32_t> out;
  ASSERT_EQ(run(roundTrip("tcgen05.st.sync.aligned.32x32b.x4.b32 [%r2], " +
                              regs("s", 4) + ";",
                          4),
                32, out),
            "");
  // Thread t, register j -> lane t, column j.
  EXPECT_EQ(out[7 * 32 + 3], val(7, 3));
  EXPECT_EQ(out[0 * 32 + 0], val(0, 0));
  EXPECT_EQ(out[31 * 32 + 1], val(31, 1));
  EXPECT_EQ(out[5 * 32 + 4], 0u); // column 4 not stored
}

TEST(TmemTest, RoundTrip16x64b) {
  std::vector<uint32_t> out;
  ASSERT_EQ(run(roundTrip("tcgen05.st.sync.aligned.16x64b.x4.b32 [%r2], " +
                              regs("s", 4) + ";",
                          4),
                32, out),
            "");
  // r = j -> lane 8*(t%2) + t/4, column (t/2)%2 + 2j.
  EXPECT_EQ(out[9 * 32 + 6], val(5, 3));   // t=5: lane 9, col 0+6
  EXPECT_EQ(out[0 * 32 + 1], val(2, 0));   // t=2: lane 0, col 1
  EXPECT_EQ(out[15 * 32 + 3], val(31, 1)); // t=31: lane 15, col 1+2
  EXPECT_EQ(out[16 * 32 + 0], 0u);         // lanes 16-31 untouched
}

TEST(TmemTest, RoundTrip16x128b) {
  std::vector<uint32_t> out;
  ASSERT_EQ(run(roundTrip("tcgen05.st.sync.aligned.16x128b.x2.b32 [%r2], " +
                              regs("s", 4) + ";",
                          4),
                32, out),
            "");
  // r = 2j + h -> lane t/4 + 8h, column t%4 + 4j.
  EXPECT_EQ(out[9 * 32 + 6], val(6, 3)); // t=6 j=1 h=1
  EXPECT_EQ(out[0 * 32 + 0], val(0, 0));
  EXPECT_EQ(out[7 * 32 + 7], val(31, 2)); // t=31 j=1 h=0
}

TEST(TmemTest, RoundTrip16x256b) {
  std::vector<uint32_t> out;
  ASSERT_EQ(run(roundTrip("tcgen05.st.sync.aligned.16x256b.x1.b32 [%r2], " +
                              regs("s", 4) + ";",
                          4),
                32, out),
            "");
  // r = 4j + 2h + c -> lane t/4 + 8h, column 2*(t%4) + c + 8j.
  EXPECT_EQ(out[9 * 32 + 3], val(5, 3));   // t=5 h=1 c=1
  EXPECT_EQ(out[0 * 32 + 6], val(3, 0));   // t=3
  EXPECT_EQ(out[15 * 32 + 4], val(30, 2)); // t=30 h=1 c=0
}

TEST(TmemTest, RoundTrip16x32bx2) {
  std::vector<uint32_t> out;
  ASSERT_EQ(run(roundTrip("tcgen05.st.sync.aligned.16x32bx2.x4.b32 [%r2], "
                          "16, " +
                              regs("s", 4) + ";",
                          4),
                32, out),
            "");
  // r = j -> lane t%16, column j + (t/16) * immHalfSplitoff.
  EXPECT_EQ(out[1 * 32 + 18], val(17, 2));
  EXPECT_EQ(out[3 * 32 + 1], val(3, 1));
  EXPECT_EQ(out[15 * 32 + 19], val(31, 3));
}

TEST(TmemTest, SameShapeLoadRoundTrip) {
  // Each shape loads back what it stored (registers in the same order).
  for (const char *shape :
       {"32x32b.x4", "16x64b.x4", "16x128b.x2", "16x256b.x1", "16x32bx2.x4"}) {
    SCOPED_TRACE(shape);
    bool split = std::string(shape).find("x2.") != std::string::npos;
    std::string b = kAlloc;
    for (unsigned i = 0; i < 4; ++i)
      b += "  mad.lo.u32 %s" + std::to_string(i) + ", %r0, 256, " +
           std::to_string(i + 1) + ";\n";
    b += std::string("  tcgen05.st.sync.aligned.") + shape + ".b32 [%r2], " +
         (split ? "8, " : "") + regs("s", 4) + ";\n";
    // st and ld are not pipelined: the store completes first.
    b += "  tcgen05.wait::st.sync.aligned;\n";
    b += std::string("  tcgen05.ld.sync.aligned.") + shape + ".b32 " +
         regs("v", 4) + ", [%r2]" + (split ? ", 8" : "") +
         ";\n  tcgen05.wait::ld.sync.aligned;\n";
    for (unsigned i = 0; i < 4; ++i)
      b += "  st.global.u32 [%rd3+" + std::to_string(4 * i) + "], %v" +
           std::to_string(i) + ";\n";
    std::vector<uint32_t> out;
    ASSERT_EQ(run(tk(b + kDealloc), 32, out), "");
    for (unsigned t = 0; t < 32; ++t)
      for (unsigned r = 0; r < 4; ++r)
        EXPECT_EQ(out[t * 32 + r], val(t, r)) << t << " " << r;
  }
}

TEST(TmemTest, LoadAfterStoreNeedsWaitSt) {
  // tcgen05.st then tcgen05.ld of the same cells by one warp, no
  // tcgen05.wait::st between them: not pipelined (PTX ISA 9.7.16.6.4.2).
  std::string b = std::string(kAlloc) +
                  "  mov.b32 %s0, 7;\n"
                  "  tcgen05.st.sync.aligned.32x32b.x1.b32 [%r2], {%s0};\n"
                  "  tcgen05.ld.sync.aligned.32x32b.x1.b32 {%v0}, [%r2];\n"
                  "  tcgen05.wait::ld.sync.aligned;\n";
  std::vector<uint32_t> out;
  std::string e = run(tk(b + kDealloc), 32, out);
  EXPECT_NE(e.find("this warp stored with tcgen05.st and has not waited"),
            std::string::npos)
      << e;
}

TEST(TmemTest, PackUnpack16b) {
  std::string b = kAlloc;
  b += "  mov.b32 %s0, 0xAAAABBBB;\n"
       "  tcgen05.st.sync.aligned.32x32b.x1.unpack::16b.b32 [%r2], {%s0};\n"
       "  tcgen05.wait::st.sync.aligned;\n"
       "  tcgen05.ld.sync.aligned.32x32b.x2.b32 {%v0, %v1}, [%r2];\n"
       "  tcgen05.ld.sync.aligned.32x32b.x1.pack::16b.b32 {%v2}, [%r2];\n"
       "  tcgen05.wait::ld.sync.aligned;\n"
       "  st.global.u32 [%rd3], %v0;\n  st.global.u32 [%rd3+4], %v1;\n"
       "  st.global.u32 [%rd3+8], %v2;\n";
  std::vector<uint32_t> out;
  ASSERT_EQ(run(tk(b + kDealloc), 32, out), "");
  // The low half goes to the first column, the high half to the next.
  EXPECT_EQ(out[4 * 32 + 0], 0xBBBBu);
  EXPECT_EQ(out[4 * 32 + 1], 0xAAAAu);
  EXPECT_EQ(out[4 * 32 + 2], 0xAAAABBBBu);
}

TEST(TmemTest, AllocBookkeeping) {
  std::string b =
      "  mov.b32 %r1, 32;\n  mov.b32 %r3, 64;\n"
      "  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], "
      "%r1;\n  ld.shared.b32 %r4, [slot];\n"
      "  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], "
      "%r3;\n  ld.shared.b32 %r5, [slot];\n"
      "  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], "
      "%r1;\n  ld.shared.b32 %r6, [slot];\n"
      "  tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r4, 32;\n"
      "  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], "
      "%r1;\n  ld.shared.b32 %r7, [slot];\n"
      "  st.global.u32 [%rd3], %r4;\n  st.global.u32 [%rd3+4], %r5;\n"
      "  st.global.u32 [%rd3+8], %r6;\n  st.global.u32 [%rd3+12], %r7;\n"
      "  tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r5, 64;\n"
      "  tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r6, 32;\n"
      "  tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r7, 32;\n";
  std::vector<uint32_t> out;
  ASSERT_EQ(run(tk(b), 32, out), "");
  // First fit: 0, 32 (64 columns), 96; after freeing column 0, 0 again.
  EXPECT_EQ(out[0], 0u);
  EXPECT_EQ(out[1], 32u);
  EXPECT_EQ(out[2], 96u);
  EXPECT_EQ(out[3], 0u);
}

TEST(TmemTest, AllocErrors) {
  std::vector<uint32_t> out;
  Fault f;
  // Not a power of two.
  std::string e = run(
      tk("  mov.b32 %r1, 48;\n"
         "  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], "
         "%r1;\n"),
      32, out, &f);
  EXPECT_NE(e.find("tcgen05.alloc of 48 columns"), std::string::npos) << e;
  EXPECT_EQ(f.kind, Fault::Kind::Invalid);
  EXPECT_EQ(f.line, 18u);
  // Double dealloc.
  e = run(tk(std::string(kAlloc) + kDealloc +
             "  tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r2, 32;\n"),
          32, out, &f);
  EXPECT_NE(e.find("does not match a live allocation"), std::string::npos) << e;
  // Leak at exit.
  e = run(tk(kAlloc), 32, out, &f);
  EXPECT_NE(e.find("tensor memory still allocated at kernel exit in CTA "
                   "(0,0,0): 32 columns at column 0 (line 18)"),
            std::string::npos)
      << e;
  EXPECT_EQ(f.kind, Fault::Kind::Invalid);
  // Alloc after relinquish.
  e = run(tk("  tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n" +
             std::string(kAlloc)),
          32, out, &f);
  EXPECT_NE(e.find("tcgen05.alloc after tcgen05.relinquish_alloc_permit"),
            std::string::npos)
      << e;
  // Cannot be satisfied.
  e = run(tk("  mov.b32 %r1, 512;\n"
             "  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 "
             "[slot], %r1;\n"
             "  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 "
             "[slot], %r1;\n"),
          32, out, &f);
  EXPECT_NE(e.find("cannot be satisfied"), std::string::npos) << e;
  EXPECT_EQ(f.line, 19u);
}

TEST(TmemTest, AccessErrors) {
  std::vector<uint32_t> out;
  Fault f;
  // Warp 1 may only access lanes 32-63. (Both warps allocate into one
  // slot here, a race the sanitizer would report first; this case is about
  // the lane rule.)
  std::string e =
      run(tk(std::string(kAlloc) + "  mov.b32 %s0, 1;\n"
                                   "  tcgen05.st.sync.aligned.32x32b.x1.b32 "
                                   "[%r2], {%s0};\n"),
          64, out, &f, /*sanitize=*/false);
  EXPECT_NE(e.find("warp 1 may only access lanes 32..63"), std::string::npos)
      << e;
  EXPECT_EQ(f.warp, 1u);
  // Never written: not an error (the cells read as the poison NaN, which
  // SameShapeLoadRoundTrip-style checks would see in the output).
  e = run(tk(std::string(kAlloc) +
             "  tcgen05.ld.sync.aligned.32x32b.x2.b32 {%v0, %v1}, [%r2];\n" +
             kDealloc),
          32, out, &f);
  EXPECT_EQ(e, "");
  // A single-thread predicate on an .aligned tcgen05.ld.
  e = run(tk(std::string(kAlloc) +
             "  setp.eq.u32 %p1, %r0, 0;\n"
             "  @%p1 tcgen05.ld.sync.aligned.32x32b.x1.b32 {%v0}, [%r2];\n" +
             kDealloc),
          32, out, &f);
  EXPECT_EQ(f.kind, Fault::Kind::Divergence) << e;
}

} // namespace
