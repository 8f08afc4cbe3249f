//===- WarpMemoryTest.cpp - Warp collectives, memory spaces, atomics ------===//
//
// Expected values are computed by hand from the PTX ISA's semantics for
// shfl.sync (source lane j from b, c and the mode), vote.sync, elect.sync,
// match.sync, redux.sync, and from the address arithmetic of each kernel.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "gtest/gtest.h"

using namespace nvfp4::emu;
using namespace nvfp4::emu::test;

namespace {

/// The body starts on line 14 (one line later per line of `globals`).
std::string addrKern(const std::string &body, const std::string &globals = "") {
  return ".version 8.8\n.target sm_100a\n.address_size 64\n" + globals +
         ".visible .entry k(.param .u64 out)\n{\n"
         "  .reg .pred %p<8>;\n  .reg .b32 %r<32>;\n  .reg .b64 %rd<16>;\n"
         "  .reg .b16 %h<4>;\n"
         "  ld.param.u64 %rd1, [out];\n"
         "  mov.u32 %r0, %tid.x;\n"
         "  mul.wide.u32 %rd2, %r0, 8;\n  add.s64 %rd3, %rd1, %rd2;\n" +
         body + "\n}\n";
}

/// Stores %r20 (low word) and %r21 (high word) to out[tid].
const char *kStore =
    "\n  mov.b64 %rd4, {%r20, %r21};\n  st.global.u64 [%rd3], %rd4;\n  ret;";

std::vector<uint64_t> run(const std::string &body, uint32_t threads = 32,
                          const std::string &globals = "") {
  std::vector<uint64_t> out(threads);
  KernelOptions o;
  o.block = Dim3(threads);
  std::string err = runKernel(addrKern(body, globals), "k", o, out);
  EXPECT_EQ(err, "");
  return out;
}

//===----------------------------------------------------------------------===//
// Warp-level
//===----------------------------------------------------------------------===//

TEST(WarpTest, ShflModes) {
  // down by 2 with clamp 31: lane l reads l + 2 while l + 2 <= 31.
  auto out = run("  mul.lo.u32 %r1, %r0, 10;\n"
                 "  shfl.sync.down.b32 %r20|%p1, %r1, 2, 31, -1;\n"
                 "  selp.u32 %r21, 1, 0, %p1;" +
                 std::string(kStore));
  for (uint32_t l = 0; l < 32; ++l) {
    uint32_t j = l + 2 <= 31 ? l + 2 : l;
    EXPECT_EQ(out[l], (uint64_t(l + 2 <= 31) << 32) | (10 * j)) << l;
  }
  // up by 1 with c = 0: maxLane = 0, so lane 0 keeps its own value.
  out = run("  mul.lo.u32 %r1, %r0, 10;\n"
            "  shfl.sync.up.b32 %r20|%p1, %r1, 1, 0, -1;\n"
            "  selp.u32 %r21, 1, 0, %p1;" +
            std::string(kStore));
  for (uint32_t l = 0; l < 32; ++l)
    EXPECT_EQ(out[l], (uint64_t(l >= 1) << 32) | (10 * (l ? l - 1 : 0))) << l;
  out = run("  shfl.sync.bfly.b32 %r20, %r0, 5, 31, -1;\n  mov.u32 %r21, 0;" +
            std::string(kStore));
  for (uint32_t l = 0; l < 32; ++l)
    EXPECT_EQ(out[l], l ^ 5u) << l;
  // idx in segments of 8 lanes: c = (24 << 8) | 31 -> lane 3 of each segment.
  out =
      run("  shfl.sync.idx.b32 %r20, %r0, 3, 0x181f, -1;\n  mov.u32 %r21, 0;" +
          std::string(kStore));
  for (uint32_t l = 0; l < 32; ++l)
    EXPECT_EQ(out[l], (l & 24u) | 3u) << l;
}

TEST(WarpTest, VoteElectMatchRedux) {
  // ballot of (tid % 3 == 0) = lanes 0, 3, 6, ..., 30.
  auto out = run("  rem.u32 %r1, %r0, 3;\n  setp.eq.u32 %p1, %r1, 0;\n"
                 "  vote.sync.ballot.b32 %r20, %p1, -1;\n"
                 "  vote.sync.any.pred %p2, %p1, -1;\n"
                 "  vote.sync.all.pred %p3, %p1, -1;\n"
                 "  vote.sync.uni.pred %p4, %p1, 0xffff;\n"
                 "  selp.u32 %r2, 1, 0, %p2;\n  selp.u32 %r3, 2, 0, %p3;\n"
                 "  selp.u32 %r4, 4, 0, %p4;\n  or.b32 %r21, %r2, %r3;\n"
                 "  or.b32 %r21, %r21, %r4;" +
                 std::string(kStore));
  for (uint32_t l = 0; l < 32; ++l)
    EXPECT_EQ(out[l], (1ull << 32) | 0x49249249u) << l;
  out = run("  elect.sync %r20|%p1, 0xfffffff0;\n  selp.u32 %r21, 1, 0, %p1;" +
            std::string(kStore));
  // Every lane executes it, so the lowest executing lane (0) is elected,
  // not the lowest lane of the mask (H200, differential corpus warp_full).
  for (uint32_t l = 0; l < 32; ++l)
    EXPECT_EQ(out[l], (uint64_t(l == 0) << 32) | 0) << l;
  out = run("  and.b32 %r1, %r0, 3;\n  match.any.sync.b32 %r20, %r1, -1;\n"
            "  redux.sync.add.u32 %r21, %r0, -1;" +
            std::string(kStore));
  for (uint32_t l = 0; l < 32; ++l)
    EXPECT_EQ(out[l], (496ull << 32) | (0x11111111u << (l % 4))) << l;
  out = run("  sub.s32 %r1, 16, %r0;\n  redux.sync.max.s32 %r20, %r1, -1;\n"
            "  redux.sync.min.s32 %r21, %r1, -1;" +
            std::string(kStore));
  EXPECT_EQ(out[7], (uint64_t(uint32_t(-15)) << 32) | 16);
}

TEST(WarpTest, CollectivesInsideDivergentCode) {
  // A shfl over a half-warp member mask inside a branch taken by that half,
  // and one after the branches reconverge.
  auto out = run("  setp.lt.u32 %p1, %r0, 16;\n"
                 "  mov.u32 %r20, 0;\n"
                 "  @!%p1 bra HI;\n"
                 "  shfl.sync.bfly.b32 %r20, %r0, 1, 31, 0xffff;\n"
                 "  bra JOIN;\n"
                 "HI:\n"
                 "  add.u32 %r20, %r0, 100;\n"
                 "JOIN:\n"
                 "  shfl.sync.idx.b32 %r21, %r20, 31, 31, -1;" +
                 std::string(kStore));
  for (uint32_t l = 0; l < 32; ++l) {
    uint64_t lo = l < 16 ? (l ^ 1) : l + 100;
    EXPECT_EQ(out[l], (131ull << 32) | lo) << l;
  }
}

TEST(WarpTest, CollectiveWaitsForLanesThatArriveLater) {
  // Lanes 16..31 reach the shfl first (the lowest pc); lanes 0..15 are
  // parked at LATER, a higher pc, and come back to SHFL afterwards. The
  // shfl must wait for them and then run with all 32 lanes. Lanes 28..31
  // exit before the second shfl, which must not wait for them.
  auto out = run("  setp.lt.u32 %p1, %r0, 16;\n"
                 "  @%p1 bra LATER;\n"
                 "SHFL:\n"
                 "  shfl.sync.bfly.b32 %r20, %r0, 16, 31, -1;\n"
                 "  bra OUT;\n"
                 "LATER:\n"
                 "  bra SHFL;\n"
                 "OUT:\n"
                 "  setp.ge.u32 %p2, %r0, 28;\n"
                 "  @%p2 bra EXIT;\n"
                 "  vote.sync.ballot.b32 %r21, %p1, -1;" +
                 std::string(kStore) + "\nEXIT:\n  exit;");
  for (uint32_t l = 0; l < 28; ++l)
    EXPECT_EQ(out[l], (0xffffull << 32) | (l ^ 16u)) << l;
  for (uint32_t l = 28; l < 32; ++l)
    EXPECT_EQ(out[l], 0u) << l;
}

//===----------------------------------------------------------------------===//
// Memory spaces
//===----------------------------------------------------------------------===//

TEST(MemoryTest, VectorsLocalConstAndGlobalVariables) {
  std::string globals = ".const .align 4 .u32 tbl[4] = {10, 20, 30, 40};\n"
                        ".global .align 8 .u64 gv[2] = {7, 9};\n";
  auto out = run("  .local .align 16 .b8 buf[32];\n"
                 // local: store a v4, read it back as v2.u64 and through a
                 // generic pointer.
                 "  add.u32 %r1, %r0, 1;\n  add.u32 %r2, %r0, 2;\n"
                 "  st.local.v4.u32 [buf], {%r0, %r1, %r2, %r0};\n"
                 "  ld.local.v2.u64 {%rd5, %rd6}, [buf];\n"
                 "  mov.u64 %rd7, buf;\n  cvta.local.u64 %rd8, %rd7;\n"
                 "  ld.u32 %r3, [%rd8+4];\n"
                 // const table and global variable
                 "  and.b32 %r4, %r0, 3;\n  shl.b32 %r4, %r4, 2;\n"
                 "  mov.u32 %r5, tbl;\n  add.u32 %r5, %r5, %r4;\n"
                 "  ld.const.u32 %r6, [%r5];\n"
                 "  mov.u64 %rd9, gv;\n  ld.global.u64 %rd10, [%rd9+8];\n"
                 "  cvt.u32.u64 %r7, %rd10;\n"
                 "  cvt.u32.u64 %r8, %rd6;\n"
                 "  add.u32 %r20, %r3, %r8;\n" // (t + 1) + (t + 2)
                 "  add.u32 %r21, %r6, %r7;" + // tbl[t % 4] + 9
                     std::string(kStore),
                 32, globals);
  for (uint32_t l = 0; l < 32; ++l)
    EXPECT_EQ(out[l], (uint64_t(10 * (l % 4 + 1) + 9) << 32) | (2 * l + 3))
        << l;
}

TEST(MemoryTest, DynamicSharedAndGenericShared) {
  std::string text =
      addrKern("  shl.b32 %r1, %r0, 2;\n"
           "  mov.u32 %r2, dyn;\n"
           "  add.u32 %r3, %r2, %r1;\n"
           "  st.shared.u32 [%r3], %r0;\n"
           "  bar.sync 0;\n"
           "  xor.b32 %r4, %r0, 1;\n  shl.b32 %r4, %r4, 2;\n"
           "  mov.u64 %rd5, dyn;\n  cvta.shared.u64 %rd6, %rd5;\n"
           "  cvt.u64.u32 %rd7, %r4;\n  add.s64 %rd6, %rd6, %rd7;\n"
           "  ld.u32 %r20, [%rd6];\n"
           "  isspacep.shared %p1, %rd6;\n  selp.u32 %r21, 1, 0, %p1;" +
               std::string(kStore),
           ".extern .shared .align 16 .b8 dyn[];\n");
  std::vector<uint64_t> out(64);
  KernelOptions o;
  o.block = Dim3(64);
  o.dynamicShared = 256;
  ASSERT_EQ(runKernel(text, "k", o, out), "");
  for (uint32_t l = 0; l < 64; ++l)
    EXPECT_EQ(out[l], (1ull << 32) | (l ^ 1)) << l;
}

TEST(MemoryTest, SignExtendingLoads) {
  auto out = run("  mov.u32 %r1, 0xf0e0;\n"
                 "  mov.u32 %r2, s;\n  st.shared.u16 [%r2], %r1;\n"
                 "  ld.shared.s8 %r20, [%r2];\n"   // 0xe0 -> -32
                 "  ld.shared.u8 %r21, [%r2+1];" + // 0xf0
                     std::string(kStore),
                 32, ".shared .align 4 .b8 s[4];\n");
  EXPECT_EQ(out[0], (0xf0ull << 32) | 0xffffffe0u);
}

TEST(MemoryTest, Atomics) {
  // 64 threads: atom.add returns distinct old values 0..63 in some order;
  // the sum ends at 2016 = 0 + 1 + ... + 63.
  std::string text =
      addrKern("  mov.u32 %r1, s;\n"
           "  setp.eq.u32 %p1, %r0, 0;\n"
           "  @%p1 st.shared.u32 [%r1], 0;\n"
           "  @%p1 st.shared.u32 [%r1+4], 0;\n"
           "  @%p1 st.shared.u32 [%r1+8], 0;\n"
           "  @%p1 st.shared.u32 [%r1+12], 0;\n"
           "  bar.sync 0;\n"
           "  atom.shared.add.u32 %r20, [%r1], %r0;\n"
           "  atom.shared.inc.u32 %r2, [%r1+4], 3;\n"
           "  red.shared.max.s32 [%r1+8], %r0;\n"
           "  atom.shared.cas.b32 %r3, [%r1+12], 0, 5;\n"
           "  bar.sync 0;\n"
           "  ld.shared.u32 %r4, [%r1];\n"
           "  ld.shared.u32 %r5, [%r1+4];\n"
           "  ld.shared.u32 %r6, [%r1+8];\n"
           "  ld.shared.u32 %r7, [%r1+12];\n"
           "  mul.lo.u32 %r5, %r5, 100;\n  mul.lo.u32 %r6, %r6, 1000;\n"
           "  mul.lo.u32 %r7, %r7, 100000;\n"
           "  add.u32 %r21, %r4, %r5;\n  add.u32 %r21, %r21, %r6;\n"
           "  add.u32 %r21, %r21, %r7;" +
               std::string(kStore),
           ".shared .align 4 .b8 s[16];\n");
  std::vector<uint64_t> out(64);
  KernelOptions o;
  o.block = Dim3(64);
  ASSERT_EQ(runKernel(text, "k", o, out), "");
  // inc wraps at 3: 64 increments from 0 -> 64 % 4 = 0. max = 63. cas sets 5.
  uint64_t seen = 0;
  for (uint32_t l = 0; l < 64; ++l) {
    EXPECT_EQ(out[l] >> 32, 2016u + 0 * 100 + 63 * 1000 + 5 * 100000u) << l;
    uint32_t old = uint32_t(out[l]);
    EXPECT_LE(old, 2016u);
    seen += old;
  }
  EXPECT_GT(seen, 0u);
  // Global float and 64-bit atomics.
  auto g = run("  setp.eq.u32 %p1, %r0, 0;\n"
               "  @%p1 st.global.u64 [%rd1], 0;\n"
               "  bar.sync 0;\n"
               "  atom.global.add.f32 %r20, [%rd1], 0f3F000000;\n" // +0.5
               "  atom.global.exch.b64 %rd9, [%rd1+8], %rd3;\n"
               "  bar.sync 0;\n"
               "  ld.global.u32 %r21, [%rd1];\n"
               "  mov.u32 %r20, 0;" +
                   std::string(kStore),
               32);
  // Thread t overwrote out[t] after the atomics; out[1] was the exchange
  // target, so look at lane 5: 32 * 0.5 = 16.0 = 0x41800000.
  EXPECT_EQ(g[5] >> 32, 0x41800000u);
}

TEST(MemoryTest, PrefetchAddressIsChecked) {
  // prefetch.global.L2 changes no data, but a prefetch inside the buffer
  // runs and one past its end is reported like a load (the gather's L2
  // prefetch of a row's lines and its scale record; docs/Emulator.md).
  std::vector<uint64_t> out(8);
  std::string inside = "  prefetch.global.L2 [%rd1+56];\n"
                       "  prefetch.global.L2::evict_last [%rd1];\n  ret;";
  EXPECT_EQ(runKernel(addrKern(inside), "k", {}, out), "");
  std::string past = "  setp.ne.u32 %p1, %r0, 3;\n"      // 14
                     "  @%p1 bra DONE;\n"                // 15
                     "  prefetch.global.L2 [%rd1+64];\n" // 16
                     "DONE:\n  ret;";
  Fault f;
  EXPECT_EQ(runKernel(addrKern(past), "k", {}, out, &f),
            "out-of-bounds global prefetch of 1 bytes at 0x100000040 (0 "
            "bytes past the end of allocation [0x100000000, 0x100000040) (64 "
            "bytes, 'out')) in CTA (0,0,0) warp 0 lane 3 (thread (3,0,0)) at "
            "line 16: prefetch.global.L2 [%rd1+64];");
  EXPECT_EQ(f.kind, Fault::Kind::Memory);
}

TEST(MemoryTest, BulkPrefetchRangeIsChecked) {
  // cp.async.bulk.prefetch.L2 of `size` bytes: the whole range must lie in
  // the allocation (64 bytes here), from a 16-byte aligned address, size a
  // positive multiple of 16.
  std::vector<uint64_t> out(8);
  std::string inside =
      "  mov.u32 %r1, 64;\n"
      "  cp.async.bulk.prefetch.L2.global [%rd1], %r1;\n"
      "  cp.async.bulk.prefetch.L2.global [%rd1+48], 16;\n  ret;";
  EXPECT_EQ(runKernel(addrKern(inside), "k", {}, out), "");
  // One bulk prefetch `operands` and the fault it must raise.
  auto faults = [&](const std::string &operands, const std::string &what,
                    Fault::Kind kind) {
    Fault f;
    std::string msg = runKernel(addrKern("  cp.async.bulk.prefetch.L2.global " +
                                         operands + ";\n  ret;"),
                                "k", {}, out, &f);
    EXPECT_NE(msg.find(what), std::string::npos) << msg;
    EXPECT_EQ(f.kind, kind) << msg;
  };
  faults("[%rd1+32], 48",
         "out-of-bounds global prefetch of 48 bytes at 0x100000020",
         Fault::Kind::Memory);
  faults("[%rd1+8], 16", "misaligned global prefetch of 16 bytes",
         Fault::Kind::Memory);
  faults("[%rd1], 24", "size 24 is not a positive multiple of 16",
         Fault::Kind::Invalid);
}

TEST(MemoryTest, OutOfBoundsStoreIsReported) {
  // The out buffer has 8 words (64 bytes); lane 5 stores just past its end.
  std::string body = "  setp.ne.u32 %p1, %r0, 5;\n"      // 14
                     "  @%p1 bra DONE;\n"                // 15
                     "  st.global.u32 [%rd1+64], %r0;\n" // 16
                     "DONE:\n  ret;";
  std::vector<uint64_t> out(8);
  Fault f;
  EXPECT_EQ(runKernel(addrKern(body), "k", {}, out, &f),
            "out-of-bounds global store of 4 bytes at 0x100000040 (0 bytes "
            "past the end of allocation [0x100000000, 0x100000040) (64 "
            "bytes, 'out')) in CTA (0,0,0) warp 0 lane 5 (thread (5,0,0)) at "
            "line 16: st.global.u32 [%rd1+64], %r0;");
  EXPECT_EQ(f.kind, Fault::Kind::Memory);
  EXPECT_EQ(f.warp, 0u);
  EXPECT_EQ(f.lane, 5u);
  EXPECT_EQ(f.line, 16u);
  EXPECT_EQ(f.cta.x, 0u);
}

TEST(MemoryTest, MisalignedAndSharedOutOfBounds) {
  std::vector<uint64_t> out(8);
  KernelOptions o;
  o.grid = Dim3(2);
  EXPECT_EQ(
      runKernel(addrKern("  ld.global.u32 %r1, [%rd1+2];\n  ret;"), "k", o, out),
      "misaligned global load of 4 bytes at 0x100000002 (needs 4-byte "
      "alignment) in CTA (0,0,0) warp 0 lane 0 (thread (0,0,0)) at line "
      "14: ld.global.u32 %r1, [%rd1+2];");
  EXPECT_EQ(runKernel(addrKern("  mov.u32 %r1, s;\n"
                           "  st.shared.v2.u32 [%r1+8], {%r0, %r0};\n  ret;",
                           ".shared .align 8 .b8 s[12];\n"),
                      "k", o, out),
            "out-of-bounds shared store of 8 bytes at shared address 0x8 (the "
            "CTA has 12 bytes of shared memory: 12 static, 0 dynamic) in CTA "
            "(0,0,0) warp 0 lane 0 (thread (0,0,0)) at line 16: "
            "st.shared.v2.u32 [%r1+8], {%r0, %r0};");
  EXPECT_EQ(
      runKernel(addrKern("  cvta.to.shared.u64 %rd5, %rd1;\n  ret;"), "k", o, out),
      "cvta.to.shared of generic address 0x100000000, which is not in "
      "the shared window in CTA (0,0,0) warp 0 lane 0 (thread (0,0,0)) "
      "at line 14: cvta.to.shared.u64 %rd5, %rd1;");
}

} // namespace
