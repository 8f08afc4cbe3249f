//===- HardwareRulesTest.cpp - Rules measured by the differential corpus --===//
//
// Expected values are the H200's, from the differential corpus
// (docs/Differential.md, test/Differential/h200/); each case names the
// corpus case it comes from, so the rule stays pinned without the corpus.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "nvfp4/Support/TensorMap.h"

#include <gtest/gtest.h>

using namespace nvfp4::emu;
using namespace nvfp4::emu::test;
namespace rt = nvfp4::rt;

namespace {

struct Case {
  const char *inst; ///< result in %x4 from %x1, %x2, %x3
  uint64_t a, b, c, want;
};

/// Runs `inst` in one thread with registers of PTX type `ty` (b16, b32,
/// f32, f64) loaded with a, b, c and returns the result register's bits.
/// Predicate results (testp) go through selp.
uint64_t run1(const char *ty, const Case &k) {
  std::string t = ty;
  bool wide = t == "f64" || t == "b64";
  std::string r = t == "b16" ? "%h" : wide ? "%fd" : "%f";
  std::string body = "  .reg ." + t + " " + r + "<8>;\n  .reg .f32 %g<4>;\n"
                     "  .reg .f64 %e<4>;\n  .reg .b16 %s<4>;\n";
  for (int i = 0; i < 3; ++i) {
    uint64_t v = i == 0 ? k.a : i == 1 ? k.b : k.c;
    body += "  mov.b" + std::string(t == "b16" ? "16" : wide ? "64" : "32") +
            " " + r + std::to_string(i + 1) + ", " + std::to_string(v) + ";\n";
  }
  body += std::string("  ") + k.inst + "\n";
  if (t == "b16")
    body += "  cvt.u64.u16 %rd2, %h4;\n";
  else if (wide)
    body += "  mov.b64 %rd2, %fd4;\n";
  else
    body += "  mov.b32 %r2, %f4;\n  cvt.u64.u32 %rd2, %r2;\n";
  body += "  st.global.u64 [%rd1], %rd2;\n  ret;";
  std::vector<uint64_t> out(1);
  KernelOptions o;
  o.block = Dim3(1);
  std::string err = runKernel(kern(body), "k", o, out);
  EXPECT_EQ(err, "") << k.inst;
  return out[0];
}

void check(const char *ty, std::initializer_list<Case> cases) {
  for (const Case &k : cases) {
    SCOPED_TRACE(k.inst);
    EXPECT_EQ(run1(ty, k), k.want)
        << std::hex << "a=0x" << k.a << " b=0x" << k.b << " c=0x" << k.c;
  }
}

constexpr uint64_t kInf = 0x7ff0000000000000ull, kNInf = 0xfff0000000000000ull;
constexpr uint64_t kQ = 0x7ff8000000000000ull, kS = 0x7ff4000000000001ull;
constexpr uint64_t kP = 0xfff8123456789abcull;

// f64_ops: NaN operands propagate quieted with sign and payload (the last
// NaN operand; div the first); generated NaNs are 0xfff8000000000000.
TEST(HardwareRulesTest, F64NaNs) {
  check("f64",
        {{"add.rn.f64 %fd4, %fd1, %fd2;", kInf, kNInf, 0, 0xfff8000000000000ull},
         {"add.rz.f64 %fd4, %fd1, %fd2;", kS, kQ, 0, kQ},
         {"add.rn.f64 %fd4, %fd1, %fd2;", kQ, kS, 0, 0x7ffc000000000001ull},
         {"mul.rn.f64 %fd4, %fd1, %fd2;", 0, kInf, 0, 0xfff8000000000000ull},
         {"mul.rm.f64 %fd4, %fd1, %fd2;", kP, kQ, 0, kQ},
         {"fma.rn.f64 %fd4, %fd1, %fd2, %fd3;", kNInf, kNInf, kP, kP},
         {"div.rn.f64 %fd4, %fd1, %fd2;", 0, 0, 0, 0xfff8000000000000ull},
         {"div.rn.f64 %fd4, %fd1, %fd2;", kQ, kS, 0, kQ},
         {"div.rp.f64 %fd4, %fd1, %fd2;", kS, kP, 0, 0x7ffc000000000001ull},
         {"sqrt.rn.f64 %fd4, %fd1;", 0x800fffffffffffffull, 0, 0,
          0xfff8000000000000ull},
         {"rcp.rn.f64 %fd4, %fd1;", kS, 0, 0, 0x7ffc000000000001ull},
         {"min.f64 %fd4, %fd1, %fd2;", kQ, kS, 0, 0x7ffc000000000001ull},
         {"max.f64 %fd4, %fd1, %fd2;", kS, kP, 0, kP},
         {"abs.f64 %fd4, %fd1;", kS, 0, 0, 0x7ffc000000000001ull},
         {"abs.f64 %fd4, %fd1;", kP, 0, 0, kP},
         {"neg.f64 %fd4, %fd1;", kQ, 0, 0, kQ},
         {"neg.f64 %fd4, %fd1;", 0x3ff0000000000000ull, 0, 0,
          0xbff0000000000000ull},
         {"cvt.rni.f64.f64 %fd4, %fd1;", kS, 0, 0, 0x7ffc000000000001ull}});
}

// f64_approx: .ftz flushes subnormal operands and results; every NaN
// result is 0x7fffffff00000000. Without .ftz NaNs follow the f64 rule.
TEST(HardwareRulesTest, F64ApproxFtz) {
  check("f64",
        {{"rcp.approx.ftz.f64 %fd4, %fd1;", 0x800fffffffffffffull, 0, 0, kNInf},
         {"rcp.approx.ftz.f64 %fd4, %fd1;", 0x7fefffffffffffffull, 0, 0, 0},
         {"rcp.approx.ftz.f64 %fd4, %fd1;", kP, 0, 0, 0x7fffffff00000000ull},
         {"rsqrt.approx.ftz.f64 %fd4, %fd1;", 1, 0, 0, kInf},
         {"rsqrt.approx.ftz.f64 %fd4, %fd1;", 0x80747aa226f9d633ull, 0, 0,
          0x7fffffff00000000ull},
         {"rsqrt.approx.f64 %fd4, %fd1;", 0x800fffffffffffffull, 0, 0,
          0xfff8000000000000ull},
         {"rsqrt.approx.f64 %fd4, %fd1;", kS, 0, 0, 0x7ffc000000000001ull}});
}

// f64_ops, cvt_f32, half_ops: NaN conversions.
TEST(HardwareRulesTest, NaNConversions) {
  auto cvt = [](const char *pre, const char *inst, const char *post,
                uint64_t a) {
    std::string body = std::string("  .reg .f32 %f<8>;\n  .reg .f64 %fd<8>;\n"
                                   "  .reg .b16 %h<8>;\n") +
                       pre + std::to_string(a) + ";\n  " + inst + "\n" + post +
                       "  st.global.u64 [%rd1], %rd2;\n  ret;";
    std::vector<uint64_t> out(1);
    KernelOptions o;
    o.block = Dim3(1);
    EXPECT_EQ(runKernel(kern(body), "k", o, out), "") << inst;
    return out[0];
  };
  const char *fromD = "  mov.b64 %fd1, ";
  const char *fromF = "  mov.b32 %f1, ";
  const char *fromH = "  mov.b16 %h1, ";
  const char *toF = "  mov.b32 %r2, %f4;\n  cvt.u64.u32 %rd2, %r2;\n";
  const char *toD = "  mov.b64 %rd2, %fd4;\n";
  EXPECT_EQ(cvt(fromD, "cvt.rn.f32.f64 %f4, %fd1;", toF, kP), 0xffc091a2u);
  EXPECT_EQ(cvt(fromD, "cvt.rz.f32.f64 %f4, %fd1;", toF, kS), 0x7fe00000u);
  EXPECT_EQ(cvt(fromF, "cvt.f64.f32 %fd4, %f1;", toD, 0x7fa00001u),
            0x7ffc000020000000ull);
  EXPECT_EQ(cvt(fromF, "cvt.f64.f32 %fd4, %f1;", toD, 0xffc12345u),
            0xfff82468a0000000ull);
  EXPECT_EQ(cvt(fromF, "cvt.ftz.f64.f32 %fd4, %f1;", toD, 0xffc12345u),
            0x7fffffffe0000000ull);
  EXPECT_EQ(cvt(fromH, "cvt.f32.bf16 %f4, %h1;", toF, 0x7f81), 0x7f810000u);
  const char *toR = "  cvt.u64.u32 %rd2, %r4;\n";
  EXPECT_EQ(cvt(fromF, "cvt.rna.tf32.f32 %r4, %f1;", toR, 0xffc12345u),
            0xffc12000u);
  EXPECT_EQ(cvt(fromF, "cvt.rna.tf32.f32 %r4, %f1;", toR, 0x7fa00001u),
            0x7fa00000u);
  EXPECT_EQ(cvt(fromF, "cvt.rna.satfinite.tf32.f32 %r4, %f1;", toR,
                0x7fc00000u),
            0x7fbfe000u);
  EXPECT_EQ(cvt(fromF, "cvt.rna.satfinite.tf32.f32 %r4, %f1;", toR,
                0xffc12345u),
            0xffc10000u);
}

// half_ops: .sat maps NaN to +0; neg/abs of a NaN give 0x7fff.
TEST(HardwareRulesTest, HalfNaNs) {
  check("b16", {{"add.rn.sat.f16 %h4, %h1, %h2;", 0x7e00, 0x3c00, 0, 0},
                {"fma.rn.sat.f16 %h4, %h1, %h2, %h3;", 0x7c00, 0x8000, 0x3c00,
                 0},
                {"neg.f16 %h4, %h1;", 0x7e00, 0, 0, 0x7fff},
                {"abs.f16 %h4, %h1;", 0xfe12, 0, 0, 0x7fff},
                {"neg.bf16 %h4, %h1;", 0x7fc0, 0, 0, 0x7fff},
                {"abs.bf16 %h4, %h1;", 0x7f81, 0, 0, 0x7fff},
                {"neg.f16 %h4, %h1;", 0x3c00, 0, 0, 0xbc00}});
  check("b32", {{"neg.f16x2 %f4, %f1;", 0x7d010000, 0, 0, 0x7fff8000},
                {"abs.bf16x2 %f4, %f1;", 0x3c007f81, 0, 0, 0x3c007fff},
                {"fma.rn.sat.f16x2 %f4, %f1, %f2, %f3;", 0x04000000,
                 0x7c008000, 0x687b7e80, 0x3c000000}});
}

// f32_exact / f32_approx.
TEST(HardwareRulesTest, F32FtzTestpAndDivApprox) {
  check("f32",
        {// mul.ftz flushes when the unrounded product is below 2^-126 ...
         {"mul.rn.ftz.f32 %f4, %f1, %f2;", 0x00800000, 0x3f7fffff, 0, 0},
         {"mul.rn.ftz.f32 %f4, %f1, %f2;", 0x80800000, 0x3f7fffff, 0,
          0x80000000},
         {"mul.rn.ftz.f32 %f4, %f1, %f2;", 0x00800000, 0x3f800000, 0,
          0x00800000},
         // ... fma.ftz after rounding.
         {"fma.rn.ftz.f32 %f4, %f1, %f2, %f3;", 0x00800000, 0x00800000,
          0x80800000, 0x80800000},
         // div.approx with a subnormal divisor.
         {"div.approx.f32 %f4, %f1, %f2;", 1, 1, 0, 0x3f800000},
         {"div.approx.f32 %f4, %f1, %f2;", 0x00400000, 1, 0, 0x4a800000},
         {"div.approx.f32 %f4, %f1, %f2;", 0x80000000, 1, 0, 0x80000000},
         {"div.approx.f32 %f4, %f1, %f2;", 0x33800000, 0x80000001, 0,
          0xfe000000}});
  for (uint32_t x : {0u, 0x80000000u, 0x3f800000u, 1u, 0x7f800000u}) {
    std::string body =
        "  .reg .f32 %f<4>;\n  mov.b32 %f1, " + std::to_string(x) +
        ";\n  testp.normal.f32 %p1, %f1;\n  selp.u64 %rd2, 1, 0, %p1;\n"
        "  st.global.u64 [%rd1], %rd2;\n  ret;";
    std::vector<uint64_t> out(1);
    KernelOptions o;
    o.block = Dim3(1);
    ASSERT_EQ(runKernel(kern(body), "k", o, out), "");
    EXPECT_EQ(out[0], (x & 0x7fffffffu) == 0 || x == 0x3f800000u ? 1u : 0u)
        << std::hex << x;
  }
}

// int_ops, int64_ops: the remainder by zero is all ones.
TEST(HardwareRulesTest, RemainderByZero) {
  for (const char *inst : {"rem.s32 %r4, %r1, %r2;", "rem.u32 %r4, %r1, %r2;"}) {
    std::string body = std::string("  mov.u32 %r1, 12345;\n  mov.u32 %r2, 0;\n  ") +
                       inst + "\n  cvt.u64.u32 %rd2, %r4;\n"
                       "  st.global.u64 [%rd1], %rd2;\n  ret;";
    std::vector<uint64_t> out(1);
    KernelOptions o;
    o.block = Dim3(1);
    ASSERT_EQ(runKernel(kern(body), "k", o, out), "");
    EXPECT_EQ(out[0], 0xffffffffu) << inst;
  }
  for (const char *inst :
       {"rem.s64 %rd4, %rd5, %rd6;", "rem.u64 %rd4, %rd5, %rd6;"}) {
    std::string body =
        std::string("  mov.u64 %rd5, 0x123456789abcdef0;\n  mov.u64 %rd6, 0;\n  ") +
        inst + "\n  st.global.u64 [%rd1], %rd4;\n  ret;";
    std::vector<uint64_t> out(1);
    KernelOptions o;
    o.block = Dim3(1);
    ASSERT_EQ(runKernel(kern(body), "k", o, out), "");
    EXPECT_EQ(out[0], ~uint64_t(0)) << inst;
  }
}

// warp_full: a full warp executing elect.sync with member mask 0xb9d0eaa4
// elects lane 0 (d = 0 everywhere, p only in lane 0).
TEST(HardwareRulesTest, ElectSyncElectsTheLowestExecutingLane) {
  std::string body = std::string(kAddr) +
                     "  elect.sync %r4|%p1, 0xb9d0eaa4;\n"
                     "  selp.u32 %r5, 1000, 0, %p1;\n  add.u32 %r4, %r4, %r5;\n"
                     "  cvt.u64.u32 %rd4, %r4;\n  st.global.u64 [%rd3], %rd4;\n"
                     "  ret;";
  std::vector<uint64_t> out(32);
  ASSERT_EQ(runKernel(kern(body), "k", KernelOptions(), out), "");
  for (unsigned l = 0; l < 32; ++l)
    EXPECT_EQ(out[l], l == 0 ? 1000u : 0u) << l;
}

// is_explicit_cluster: %is_explicit_cluster is a predicate source.
TEST(HardwareRulesTest, IsExplicitClusterAsPredicate) {
  std::string body =
      "  { .reg .pred q; mov.pred q, %is_explicit_cluster;\n"
      "    selp.u64 %rd2, 1, 0, q; }\n"
      // Each CTA its own word (one word from both would race).
      "  { .reg .b32 c; .reg .b64 o; mov.u32 c, %ctaid.x;\n"
      "    mul.wide.u32 o, c, 8; add.u64 %rd1, %rd1, o; }\n"
      "  st.global.u64 [%rd1], %rd2;\n  ret;";
  for (unsigned cluster : {2u}) {
    std::vector<uint64_t> out(cluster);
    KernelOptions o;
    o.block = Dim3(1);
    o.grid = Dim3(cluster);
    o.cluster = Dim3(cluster);
    ASSERT_EQ(runKernel(kern(body), "k", o, out), "");
    for (uint64_t v : out)
      EXPECT_EQ(v, 1u) << cluster;
  }
}

// TMA tile stores (the tma_store_* cases, tma_store_Nd in async.cu): one
// thread stores a box of a none-swizzled f32 / bf16 tensor with 272-byte
// rows (dims[0] elements of them used) from a tile holding bytes i % 251.
struct StoreRun {
  std::string error;
  std::vector<uint8_t> tensor; ///< after the launch; 0xff before it
};

StoreRun tmaStore(rt::TmaDataType t, std::vector<uint64_t> dims,
                  std::vector<uint32_t> box, std::vector<int32_t> coords) {
  const unsigned rank = static_cast<unsigned>(dims.size());
  std::string cs;
  for (unsigned i = 0; i < rank; ++i)
    cs += std::string(i ? ", " : "") + "%r" + std::to_string(10 + i);
  std::string text =
      ".version 8.8\n.target sm_90a\n.address_size 64\n"
      ".shared .align 1024 .b8 tile[4096];\n"
      ".visible .entry k(.param .u64 ptmap, .param .u64 psrc, "
      ".param .u32 pc0, .param .u32 pc1)\n{\n"
      "  .reg .pred %p<4>;\n  .reg .b32 %r<16>;\n  .reg .b64 %rd<8>;\n"
      "  ld.param.u64 %rd1, [ptmap];\n  ld.param.u64 %rd2, [psrc];\n"
      "  ld.param.u32 %r10, [pc0];\n  ld.param.u32 %r11, [pc1];\n"
      "  mov.u32 %r3, tile;\n  mov.u32 %r4, 0;\n"
      "FILL:\n  cvt.u64.u32 %rd3, %r4;\n  add.s64 %rd4, %rd2, %rd3;\n"
      "  ld.global.u32 %r5, [%rd4];\n  add.u32 %r6, %r3, %r4;\n"
      "  st.shared.u32 [%r6], %r5;\n  add.u32 %r4, %r4, 4;\n"
      "  setp.lt.u32 %p1, %r4, 4096;\n  @%p1 bra FILL;\n"
      "  fence.proxy.async.shared::cta;\n"
      "  cp.async.bulk.tensor." +
      std::to_string(rank) + "d.global.shared::cta.tile.bulk_group [%rd1, {" +
      cs +
      "}], [%r3];\n"
      "  cp.async.bulk.commit_group;\n  cp.async.bulk.wait_group 0;\n"
      "  ret;\n}\n";
  StoreRun r;
  Machine m;
  auto mod = m.loadPTX(text, "tma_store.ptx");
  if (!mod) {
    r.error = mod.message();
    return r;
  }
  auto k = (*mod)->kernel("k");
  if (!k) {
    r.error = k.message();
    return r;
  }
  rt::TensorMapDesc d;
  d.dataType = t;
  d.rank = rank;
  d.swizzle = rt::TmaSwizzle::None;
  for (unsigned i = 0; i < rank; ++i) {
    d.globalDims[i] = dims[i];
    d.boxDims[i] = box[i];
  }
  if (rank == 2)
    d.globalStrides[0] = 272;
  const uint64_t bytes = rank == 2 ? 272 * dims[1] : 1088;
  r.tensor.assign(bytes, 0xff);
  std::vector<uint8_t> src(4096);
  for (size_t i = 0; i < src.size(); ++i)
    src[i] = static_cast<uint8_t>(i % 251);
  uint64_t g = *m.allocate(bytes), s = *m.allocate(src.size());
  (void)m.write(g, r.tensor.data(), bytes);
  (void)m.write(s, src.data(), src.size());
  d.globalAddress = g;
  rt::TensorMapBlob map = rt::encodePortable(d);
  uint64_t tmap = *m.allocate(128);
  (void)m.write(tmap, map.bytes.data(), 128);
  ParamBuilder pb(**k);
  (void)pb.addU64(tmap);
  (void)pb.addU64(s);
  (void)pb.addU32(static_cast<uint32_t>(coords[0]));
  (void)pb.addU32(static_cast<uint32_t>(coords.size() > 1 ? coords[1] : 0));
  LaunchConfig cfg;
  cfg.block = Dim3(1);
  cfg.params = *pb.take();
  if (Error e = m.launch(**k, cfg))
    r.error = e.message();
  (void)m.read(g, r.tensor.data(), bytes);
  return r;
}

// The H200 raises CUDA_ERROR_ILLEGAL_INSTRUCTION for a TMA store with a
// negative coordinate in any dimension, whatever part of the box is inside
// (tma_store_2d_f32_none_b64_m4_1, tma_store_2d_f32_none_b64_m4_0,
// tma_store_2d_f32_none_b64_12_m4, tma_store_2d_f32_none_b64_12_m30,
// tma_store_2d_f32_none_b64_m16_1, tma_store_1d_f32_none_b128_m4; TMA loads
// take negative coordinates): the emulator reports an error and writes
// nothing.
TEST(HardwareRulesTest, TmaStoreWithANegativeCoordinateFaults) {
  const rt::TmaDataType f32 = rt::TmaDataType::F32;
  struct {
    std::vector<int32_t> c;
    const char *what;
  } cases[] = {{{-4, 1}, "(dimension 0: -4)"},
               {{-4, 0}, "(dimension 0: -4)"},
               {{12, -4}, "(dimension 1: -4)"},
               {{12, -30}, "(dimension 1: -30)"},
               {{-16, 1}, "(dimension 0: -16)"}};
  for (const auto &k : cases) {
    StoreRun r = tmaStore(f32, {64, 40}, {16, 24}, k.c);
    EXPECT_NE(r.error.find("TMA tile store with a negative tensor coordinate " +
                           std::string(k.what)),
              std::string::npos)
        << r.error;
    EXPECT_NE(r.error.find("an illegal instruction on the H200"),
              std::string::npos);
    EXPECT_EQ(r.tensor, std::vector<uint8_t>(r.tensor.size(), 0xff));
  }
  StoreRun r = tmaStore(f32, {272}, {32}, {-4});
  EXPECT_NE(r.error.find("negative tensor coordinate (dimension 0: -4)"),
            std::string::npos)
      << r.error;
}

// ... and for one whose box starts in dimension 0 at a byte offset that is
// not a multiple of 16, in bounds, partly or entirely outside
// (tma_store_2d_f32_none_b64_1_1, tma_store_2d_bf16_none_b64_4_1,
// tma_store_2d_f32_none_b64_50_1, tma_store_2d_bf16_none_b64_129_1,
// tma_store_1d_f32_none_b128_250); 16-byte multiples store, also partly
// past the end (tma_store_2d_f32_none_b64_52_1: 12 elements of each row).
TEST(HardwareRulesTest, TmaStoreStartingOffA16ByteBoundaryFaults) {
  struct {
    rt::TmaDataType t;
    std::vector<uint64_t> dims;
    std::vector<uint32_t> box;
    std::vector<int32_t> c;
    const char *what;
  } cases[] = {
      {rt::TmaDataType::F32, {64, 40}, {16, 24}, {1, 1}, "at byte 4 of"},
      {rt::TmaDataType::BF16, {128, 40}, {32, 24}, {4, 1}, "at byte 8 of"},
      {rt::TmaDataType::F32, {64, 40}, {16, 24}, {50, 1}, "at byte 200 of"},
      {rt::TmaDataType::BF16, {128, 40}, {32, 24}, {129, 1}, "at byte 258 of"},
      {rt::TmaDataType::F32, {272}, {32}, {250}, "at byte 1000 of"}};
  for (const auto &k : cases) {
    StoreRun r = tmaStore(k.t, k.dims, k.box, k.c);
    EXPECT_NE(r.error.find(std::string("TMA tile store whose box starts ") +
                           k.what + " dimension 0"),
              std::string::npos)
        << r.error;
    EXPECT_NE(r.error.find("not a multiple of 16 bytes, an illegal "
                           "instruction on the H200"),
              std::string::npos);
    EXPECT_EQ(r.tensor, std::vector<uint8_t>(r.tensor.size(), 0xff));
  }
  StoreRun r = tmaStore(rt::TmaDataType::F32, {64, 40}, {16, 24}, {52, 1});
  ASSERT_EQ(r.error, "");
  size_t written = 0;
  for (uint8_t b : r.tensor)
    written += b != 0xff;
  EXPECT_EQ(written, 12u * 4 * 24);
}

// A store writes whole 16-byte chunks of a row: with dimension 0 of 62 f32
// (248 bytes), a box at 52 writes elements 52..63 of each row, 62 and 63
// past the end (tma_store_2d_f32_none_b64_52_1_d62: 1152 bytes); of 270
// f32, a box at 240 writes 240..271 (tma_store_1d_f32_none_b128_240_d270:
// bytes 1080..1087 too). Element x of box row r comes from tile byte
// r * 64 + 4x (no swizzle).
TEST(HardwareRulesTest, TmaStoreWritesWhole16ByteChunks) {
  StoreRun r = tmaStore(rt::TmaDataType::F32, {62, 40}, {16, 24}, {52, 1});
  ASSERT_EQ(r.error, "");
  for (uint64_t y = 0; y < 40; ++y)
    for (uint64_t x = 0; x < 68; ++x)
      for (uint64_t b = 0; b < 4; ++b) {
        uint64_t at = y * 272 + x * 4 + b;
        bool in = y >= 1 && y < 25 && x >= 52 && x < 64;
        uint8_t want =
            in ? static_cast<uint8_t>(((y - 1) * 64 + (x - 52) * 4 + b) % 251)
               : 0xff;
        ASSERT_EQ(unsigned(r.tensor[at]), unsigned(want))
            << "row " << y << " element " << x << " byte " << b;
      }
  r = tmaStore(rt::TmaDataType::F32, {270}, {32}, {240});
  ASSERT_EQ(r.error, "");
  for (uint64_t i = 0; i < 1088; ++i)
    ASSERT_EQ(unsigned(r.tensor[i]), i >= 960 ? (i - 960) % 251 : 0xffu)
        << "byte " << i;
}

} // namespace
