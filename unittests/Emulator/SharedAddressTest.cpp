//===- SharedAddressTest.cpp - Shared addresses and NaNs as on an H200 ----===//
//
// Expected values come from scripts/device/cluster_addresses.sh run on an
// H200 (2026-12-02; output in docs/Emulator.md, "Grounded on hardware"):
// a shared address of CTA rank r is (r << 24) | offset for symbols, cvta
// and mapa; a shared::cta access with another rank's address faults; a
// generic address keeps the rank; f32 arithmetic returns the canonical
// NaN 0x7fffffff while mov keeps the payload.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include <gtest/gtest.h>

using namespace nvfp4::emu;
using namespace nvfp4::emu::test;

namespace {

const char *kVar = ".shared .align 8 .b32 var[4];\n";

// Thread 0 of each CTA of a cluster of 2 stores 12 words at out[16 * rank].
const char *kProbe =
    "  mov.u32 %r1, %cluster_ctarank;\n"
    "  mov.u32 %r2, var;\n"                     // symbol
    "  add.u32 %r3, %r1, 1000;\n"
    "  st.shared.u32 [%r2], %r3;\n"             // var[0] = 1000 + rank
    "  barrier.cluster.arrive.aligned;\n  barrier.cluster.wait.aligned;\n"
    "  setp.ne.u32 %p1, %r0, 0;\n  @%p1 bra END;\n"
    "  mul.wide.u32 %rd2, %r1, 128;\n  add.s64 %rd3, %rd1, %rd2;\n"
    "  cvt.u64.u32 %rd4, %r2;\n  st.global.u64 [%rd3], %rd4;\n"
    "  mov.u64 %rd5, var;\n  cvta.shared.u64 %rd6, %rd5;\n"  // generic
    "  cvta.to.shared.u64 %rd7, %rd6;\n  st.global.u64 [%rd3+8], %rd7;\n"
    "  mapa.shared::cluster.u32 %r4, %r2, 0;\n"
    "  cvt.u64.u32 %rd4, %r4;\n  st.global.u64 [%rd3+16], %rd4;\n"
    "  mapa.shared::cluster.u32 %r5, %r2, 1;\n"
    "  cvt.u64.u32 %rd4, %r5;\n  st.global.u64 [%rd3+24], %rd4;\n"
    "  ld.shared::cluster.u32 %r6, [%r4];\n"
    "  cvt.u64.u32 %rd4, %r6;\n  st.global.u64 [%rd3+32], %rd4;\n"
    "  ld.shared::cluster.u32 %r6, [%r5];\n"
    "  cvt.u64.u32 %rd4, %r6;\n  st.global.u64 [%rd3+40], %rd4;\n"
    "  xor.b32 %r7, %r2, 0x1000000;\n"
    "  ld.shared::cluster.u32 %r6, [%r7];\n"
    "  cvt.u64.u32 %rd4, %r6;\n  st.global.u64 [%rd3+48], %rd4;\n"
    "  ld.shared.u32 %r6, [%r2];\n"
    "  cvt.u64.u32 %rd4, %r6;\n  st.global.u64 [%rd3+56], %rd4;\n"
    // generic mapa of the peer, then a generic load through it
    "  xor.b32 %r8, %r1, 1;\n  mapa.u64 %rd8, %rd6, %r8;\n"
    "  sub.s64 %rd9, %rd8, %rd6;\n  st.global.u64 [%rd3+64], %rd9;\n"
    "  ld.u32 %r6, [%rd8];\n"
    "  cvt.u64.u32 %rd4, %r6;\n  st.global.u64 [%rd3+72], %rd4;\n"
    // cvta.shared of the rank-less offset: a generic address of rank 0
    "  and.b32 %r9, %r2, 0xffffff;\n  cvt.u64.u32 %rd10, %r9;\n"
    "  cvta.shared.u64 %rd11, %rd10;\n  ld.u32 %r6, [%rd11];\n"
    "  cvt.u64.u32 %rd4, %r6;\n  st.global.u64 [%rd3+80], %rd4;\n"
    "END:\n  barrier.cluster.arrive.aligned;\n  barrier.cluster.wait.aligned;\n"
    "  ret;";

TEST(SharedAddressTest, RankInEveryFormAsOnH200) {
  std::vector<uint64_t> out(32);
  KernelOptions o;
  o.grid = Dim3(2);
  o.cluster = Dim3(2);
  ASSERT_EQ(runKernel(kern(kProbe, kVar), "k", o, out), "");
  uint64_t off0 = out[0];
  EXPECT_LT(off0, 1u << 24);
  for (uint64_t r = 0; r < 2; ++r) {
    const uint64_t *o = &out[16 * r];
    SCOPED_TRACE(r);
    EXPECT_EQ(o[0], (r << 24) | off0);        // mov.u32 symbol
    EXPECT_EQ(o[1], (r << 24) | off0);        // cvta.to.shared
    EXPECT_EQ(o[2], off0);                    // mapa(var, 0)
    EXPECT_EQ(o[3], (1u << 24) | off0);       // mapa(var, 1)
    EXPECT_EQ(o[4], 1000u);                   // ld.shared::cluster mapa 0
    EXPECT_EQ(o[5], 1001u);                   // ld.shared::cluster mapa 1
    EXPECT_EQ(o[6], 1000u + (r ^ 1));         // own ^ bit 24
    EXPECT_EQ(o[7], 1000u + r);               // ld.shared own
    EXPECT_EQ(o[8], r == 0 ? (1ull << 24) : -(1ull << 24)); // mapa.u64 peer
    EXPECT_EQ(o[9], 1000u + (r ^ 1));         // generic load of the peer
    EXPECT_EQ(o[10], 1000u);                  // cvta.shared(offset): rank 0
  }
}

TEST(SharedAddressTest, SharedCtaAccessOfAnotherRankFaults) {
  // On the H200, ld.shared with CTA 0's address in CTA 1 raises an
  // illegal-instruction error.
  std::string body = "  mov.u32 %r1, %cluster_ctarank;\n"
                     "  mov.u32 %r2, var;\n"
                     "  and.b32 %r3, %r2, 0xffffff;\n"
                     "  setp.eq.u32 %p1, %r1, 0;\n"
                     "  @%p1 bra END;\n"
                     "  ld.shared.u32 %r4, [%r3];\n"
                     "END:\n  ret;";
  std::vector<uint64_t> out(1);
  KernelOptions o;
  o.grid = Dim3(2);
  o.cluster = Dim3(2);
  Fault f;
  std::string err = runKernel(kern(body, kVar), "k", o, out, &f);
  EXPECT_EQ(f.kind, Fault::Kind::Memory);
  EXPECT_NE(err.find("shared::cta load of 4 bytes at 0x0, an address of CTA "
                     "rank 0 while the executing CTA has rank 1"),
            std::string::npos)
      << err;
}

TEST(SharedAddressTest, MapaToAMissingRankIsAnError) {
  std::string body = "  mov.u32 %r2, var;\n"
                     "  mapa.shared::cluster.u32 %r3, %r2, 2;\n  ret;";
  std::vector<uint64_t> out(1);
  KernelOptions o;
  o.grid = Dim3(2);
  o.cluster = Dim3(2);
  std::string err = runKernel(kern(body, kVar), "k", o, out);
  EXPECT_NE(err.find("mapa to CTA rank 2, but the cluster has 2 CTAs"),
            std::string::npos)
      << err;
}

TEST(NanTest, ResultsAsOnH200) {
  // Inputs 0x7fa00001 (signalling, payload) and 0xffc12345 (quiet,
  // negative, payload); the expected words are the H200's.
  struct Case {
    const char *inst;
    uint32_t a, want;
  };
  const Case cases[] = {
      {"add.rn.f32 %f3, %f1, %f2;", 0x7fa00001u, 0x7fffffffu},
      {"add.rn.f32 %f3, %f1, %f2;", 0xffc12345u, 0x7fffffffu},
      {"mul.rn.f32 %f3, %f1, %f2;", 0xffc12345u, 0x7fffffffu},
      {"fma.rn.f32 %f3, %f1, %f2, %f2;", 0x7fa00001u, 0x7fffffffu},
      {"min.f32 %f3, %f1, %f2;", 0x7fa00001u, 0x3f800000u},
      {"max.f32 %f3, %f1, %f2;", 0xffc12345u, 0x3f800000u},
      {"min.NaN.f32 %f3, %f1, %f2;", 0x7fa00001u, 0x7fffffffu},
      {"abs.f32 %f3, %f1;", 0xffc12345u, 0x7fffffffu},
      {"neg.f32 %f3, %f1;", 0x7fa00001u, 0x7fffffffu},
      {"mov.f32 %f3, %f1;", 0x7fa00001u, 0x7fa00001u},
      {"mov.f32 %f3, %f1;", 0xffc12345u, 0xffc12345u},
      {"ex2.approx.f32 %f3, %f1;", 0x7fa00001u, 0x7fffffffu},
      {"rcp.approx.f32 %f3, %f1;", 0xffc12345u, 0x7fffffffu},
      {"sqrt.rn.f32 %f3, %f1;", 0x7fa00001u, 0x7fffffffu},
      {"div.rn.f32 %f3, %f1, %f2;", 0xffc12345u, 0x7fffffffu},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.inst);
    std::string body = std::string("  .reg .f32 %f<4>;\n") +
                       "  mov.b32 %f1, " + std::to_string(c.a) + ";\n" +
                       "  mov.b32 %f2, 0x3f800000;\n  " + c.inst +
                       "\n  mov.b32 %r1, %f3;\n"
                       "  cvt.u64.u32 %rd2, %r1;\n  st.global.u64 [%rd1], %rd2;\n"
                       "  ret;";
    std::vector<uint64_t> out(1);
    KernelOptions o;
    o.block = Dim3(1);
    ASSERT_EQ(runKernel(kern(body), "k", o, out), "");
    EXPECT_EQ(out[0], c.want);
  }
  struct Cvt {
    const char *inst;
    uint32_t a, want;
  };
  const Cvt cvts[] = {
      {"cvt.rn.bf16.f32 %h1, %f1;", 0x7fa00001u, 0x7fffu},
      {"cvt.rn.bf16.f32 %h1, %f1;", 0xffc12345u, 0x7fffu},
      {"cvt.rn.f16.f32 %h1, %f1;", 0x7fa00001u, 0x7fffu},
      {"cvt.rn.f16.f32 %h1, %f1;", 0xffc12345u, 0x7fffu},
  };
  for (const Cvt &c : cvts) {
    SCOPED_TRACE(c.inst);
    std::string body = std::string("  .reg .f32 %f<4>;\n  .reg .b16 %h<4>;\n") +
                       "  mov.b32 %f1, " + std::to_string(c.a) + ";\n  " +
                       c.inst +
                       "\n  cvt.u64.u16 %rd2, %h1;\n  st.global.u64 [%rd1], "
                       "%rd2;\n  ret;";
    std::vector<uint64_t> out(1);
    KernelOptions o;
    o.block = Dim3(1);
    ASSERT_EQ(runKernel(kern(body), "k", o, out), "");
    EXPECT_EQ(out[0], c.want);
  }
}

} // namespace
