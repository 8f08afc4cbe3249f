//===- WgmmaTest.cpp - Hopper wgmma.mma_async -----------------------------===//
//
// Each case runs one warpgroup (or two): the operand tiles are copied into
// shared memory, the A fragments (A from registers) and the initial D are
// loaded from global memory, and every warp issues two wgmma.mma_async
// (K = 2 x the instruction's K: the second with scale-d true and
// descriptors advanced by one K slice), commits, waits and stores its D
// registers.
//
// Independent pieces must agree: the test places the elements by the atom
// tiling of the canonical layouts (8 rows x swizzle-width atoms, MN first,
// then K, and the XOR swizzle; no LBO/SBO involved), the lib/Support
// encoder derives LBO/SBO from the same layout (the test packs them into
// the sm_90 descriptor format), and the emulator decodes the descriptors
// with the PTX ISA's canonical-layout formulas. The register fragments of
// A and D are written below from the PTX ISA's wgmma register-fragment
// figures as per-register (row, column) offsets. Every D element is
// compared with a float64 reference of the logical matrices.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "nvfp4/Emulator/FloatFormats.h"
#include "nvfp4/Support/UMMADescriptors.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

using namespace nvfp4::emu;
using namespace nvfp4::emu::test;
namespace umma = nvfp4::umma;
using umma::Major;
using umma::Swizzle;

namespace {

enum class El { BF16, F16, TF32, E4M3, E5M2 };

struct WgCase {
  const char *name = "";
  El a = El::BF16, b = El::BF16;
  bool f16Acc = false;
  uint32_t n = 64;
  Major aMajor = Major::K, bMajor = Major::K;
  Swizzle swizzle = Swizzle::B128;
  bool aRegs = false; ///< A from the register fragment
  bool negA = false, negB = false;
  bool initD = false; ///< first MMA with scale-d true on a loaded D
  unsigned warpgroups = 1;
  bool peek = false;      ///< store D before the wait too
  bool twoGroups = false; ///< commit after each MMA, wait_group 1 then 0
  bool nanA = false;      ///< A[5][3] is a NaN with a payload
  /// The layouts are checked against exact sums (Exact, tolerance 1e-6 of
  /// the terms' magnitudes); Auto runs the H200's accumulation model
  /// (WgmmaNumericsTest pins its bits) within its error bound.
  MmaNumerics numerics = MmaNumerics::Exact;
};

const char *typeName(El e) {
  switch (e) {
  case El::BF16:
    return "bf16";
  case El::F16:
    return "f16";
  case El::TF32:
    return "tf32";
  case El::E4M3:
    return "e4m3";
  default:
    return "e5m2";
  }
}
unsigned bytesOf(El e) {
  return e == El::TF32 ? 4 : (e == El::E4M3 || e == El::E5M2) ? 1 : 2;
}
umma::ElemType ummaType(El e) {
  switch (e) {
  case El::BF16:
    return umma::ElemType::BF16;
  case El::F16:
    return umma::ElemType::F16;
  case El::TF32:
    return umma::ElemType::TF32;
  case El::E4M3:
    return umma::ElemType::E4M3;
  default:
    return umma::ElemType::E5M2;
  }
}

uint32_t encodeElem(El t, double v) {
  using namespace nvfp4::emu::fp;
  EncodeOptions o;
  switch (t) {
  case El::BF16:
    return static_cast<uint32_t>(encode(kBF16, unpackDouble(v), o));
  case El::F16:
    return static_cast<uint32_t>(encode(kF16, unpackDouble(v), o));
  case El::E4M3:
    return static_cast<uint32_t>(encode(kE4M3, unpackDouble(v), o));
  case El::E5M2:
    return static_cast<uint32_t>(encode(kE5M2, unpackDouble(v), o));
  default: // tf32: an f32 whose low 13 bits are zero
    return static_cast<uint32_t>(encode(kF32, unpackDouble(v), o)) &
           0xffffe000u;
  }
}
double decodeElem(El t, uint32_t bits) {
  using namespace nvfp4::emu::fp;
  switch (t) {
  case El::BF16:
    return toDouble(kBF16, bits);
  case El::F16:
    return toDouble(kF16, bits);
  case El::E4M3:
    return toDouble(kE4M3, bits);
  case El::E5M2:
    return toDouble(kE5M2, bits);
  default:
    return toDouble(kF32, bits);
  }
}

unsigned swizzleWidth(Swizzle s) {
  switch (s) {
  case Swizzle::B32:
    return 32;
  case Swizzle::B64:
    return 64;
  case Swizzle::B128:
    return 128;
  default:
    return 16;
  }
}

/// Byte offset of element (mn, k) in a tile of `rows` x `kExt` elements of
/// `eb` bytes, by the atom tiling (no LBO/SBO): atoms of 8 rows x W bytes
/// (K-major: rows along MN; MN-major: rows along K), laid out MN-first then
/// K, and the swizzle XOR of address bits [4, 4+B) with bits [7, 7+B).
uint32_t place(Major major, Swizzle s, unsigned eb, uint32_t rows, uint32_t mn,
               uint32_t k) {
  const uint32_t W = swizzleWidth(s);
  uint32_t off;
  if (major == Major::K) {
    uint32_t kb = k * eb;
    uint32_t atom = (kb / W) * (rows / 8) + mn / 8;
    off = atom * 8 * W + (mn % 8) * W + kb % W;
  } else {
    uint32_t mnb = mn * eb;
    uint32_t atom = (k / 8) * (rows * eb / W) + mnb / W;
    off = atom * 8 * W + (k % 8) * W + mnb % W;
  }
  if (W >= 32) {
    uint32_t bits = W == 32 ? 1 : W == 64 ? 3 : 7;
    off ^= ((off >> 7) & bits) << 4;
  }
  return off;
}

/// The sm_90 matrix descriptor of a K slice (start relative to the tile
/// area; the kernel adds the shared base >> 4).
std::optional<uint64_t> gmmaDesc(const umma::SmemLayout &l, uint32_t base,
                                 uint32_t kPerMma, uint32_t step,
                                 std::string &err) {
  auto f = umma::makeSmemDescFields(l, base, kPerMma, step, &err);
  if (!f)
    return std::nullopt;
  return umma::encodeGmmaDesc(f->startAddress, f->lboBytes, f->sboBytes,
                              l.swizzle);
}

// Register fragments, from the PTX ISA's wgmma figures. Within a warp,
// lane = 4 * g + t; the warp's rows start at 16 * (warp % 4).
// D (m64nN, 32-bit accumulator element i): i = 4c + r; r = 0, 1 on row g,
// r = 2, 3 on row g + 8, columns 8c + 2t + (r & 1).
void dElement(uint32_t warp, uint32_t lane, uint32_t i, uint32_t &row,
              uint32_t &col) {
  uint32_t g = lane / 4, t = lane % 4, c = i / 4, r = i % 4;
  row = 16 * (warp % 4) + g + (r >= 2 ? 8 : 0);
  col = 8 * c + 2 * t + (r & 1);
}
// A (register j, element e within it) for each input width.
void aElement(El type, uint32_t warp, uint32_t lane, uint32_t j, uint32_t e,
              uint32_t &row, uint32_t &k) {
  static const uint32_t rowOff[4] = {0, 8, 0, 8};
  uint32_t g = lane / 4, t = lane % 4;
  row = 16 * (warp % 4) + g + rowOff[j];
  switch (bytesOf(type)) {
  case 2: { // a0,a1: (g, 2t..); a2,a3: (g+8, 2t..); a4..a7: columns + 8
    static const uint32_t colOff[4] = {0, 0, 8, 8};
    k = 2 * t + colOff[j] + e;
    break;
  }
  case 4: { // a0: (g, t); a1: (g+8, t); a2: (g, t+4); a3: (g+8, t+4)
    static const uint32_t colOff[4] = {0, 0, 4, 4};
    k = t + colOff[j];
    break;
  }
  default: { // four bytes per register; a2, a3 at columns + 16
    static const uint32_t colOff[4] = {0, 0, 16, 16};
    k = 4 * t + colOff[j] + e;
    break;
  }
  }
}

std::string regList(const char *p, unsigned first, unsigned n) {
  std::string s = "{";
  for (unsigned i = 0; i < n; ++i)
    s += (i ? ", %" : "%") + std::string(p) + std::to_string(first + i);
  return s + "}";
}

unsigned instrK(El e) { return 32 / bytesOf(e); }

std::string kernelText(const WgCase &c, uint32_t smemBytes, unsigned nd) {
  const unsigned K = instrK(c.a);
  const unsigned threads = 128 * c.warpgroups;
  std::string S = std::to_string(smemBytes);
  std::string s =
      ".version 8.0\n.target sm_90a\n.address_size 64\n"
      ".shared .align 1024 .b8 smem[" +
      S +
      "];\n"
      ".visible .entry k(.param .u64 out, .param .u64 img, .param .u64 areg,"
      " .param .u64 ad0, .param .u64 ad1, .param .u64 bd0, .param .u64 bd1,"
      " .param .u64 dinit)\n{\n"
      "  .reg .pred %p<8>;\n  .reg .b32 %r<32>;\n  .reg .b64 %rd<32>;\n"
      "  .reg .b32 %d<128>;\n  .reg .b32 %a<8>;\n"
      "  ld.param.u64 %rd1, [out];\n  ld.param.u64 %rd2, [img];\n"
      "  mov.u32 %r0, %tid.x;\n"
      "  shl.b32 %r1, %r0, 2;\n  mov.u32 %r3, smem;\n"
      "COPY:\n  setp.ge.u32 %p1, %r1, " +
      S +
      ";\n  @%p1 bra COPIED;\n"
      "  cvt.u64.u32 %rd4, %r1;\n  add.s64 %rd5, %rd2, %rd4;\n"
      "  ld.global.u32 %r2, [%rd5];\n  add.u32 %r4, %r3, %r1;\n"
      "  st.shared.u32 [%r4], %r2;\n  add.u32 %r1, %r1, " +
      std::to_string(4 * threads) +
      ";\n  bra COPY;\n"
      "COPIED:\n  bar.sync 0;\n  fence.proxy.async.shared::cta;\n"
      "  mov.u32 %r5, smem;\n  shr.u32 %r5, %r5, 4;\n"
      "  and.b32 %r5, %r5, 0x3fff;\n  cvt.u64.u32 %rd8, %r5;\n"
      "  ld.param.u64 %rd9, [ad0];\n  add.s64 %rd9, %rd9, %rd8;\n"
      "  ld.param.u64 %rd10, [ad1];\n  add.s64 %rd10, %rd10, %rd8;\n"
      "  ld.param.u64 %rd11, [bd0];\n  add.s64 %rd11, %rd11, %rd8;\n"
      "  ld.param.u64 %rd12, [bd1];\n  add.s64 %rd12, %rd12, %rd8;\n"
      "  ld.param.u64 %rd13, [areg];\n  mul.wide.u32 %rd14, %r0, 32;\n"
      "  add.s64 %rd13, %rd13, %rd14;\n";
  for (unsigned i = 0; i < 8; ++i)
    s += "  ld.global.b32 %a" + std::to_string(i) + ", [%rd13+" +
         std::to_string(4 * i) + "];\n";
  s += "  ld.param.u64 %rd15, [dinit];\n  mul.wide.u32 %rd16, %r0, " +
       std::to_string(nd * 4) + ";\n  add.s64 %rd15, %rd15, %rd16;\n";
  for (unsigned j = 0; j < nd; ++j)
    s += "  ld.global.b32 %d" + std::to_string(j) + ", [%rd15+" +
         std::to_string(4 * j) + "];\n";
  s += std::string("  setp.") + (c.initD ? "eq" : "ne") +
       ".u32 %p5, 0, 0;\n  setp.eq.u32 %p6, 0, 0;\n"
       "  wgmma.fence.sync.aligned;\n";
  std::string mnem = "  wgmma.mma_async.sync.aligned.m64n" +
                     std::to_string(c.n) + "k" + std::to_string(K) + "." +
                     (c.f16Acc ? "f16" : "f32") + "." + typeName(c.a) + "." +
                     typeName(c.b) + " " + regList("d", 0, nd) + ", ";
  std::string tail =
      std::string(c.negA ? ", -1" : ", 1") + (c.negB ? ", -1" : ", 1");
  if (bytesOf(c.a) == 2) {
    if (!c.aRegs)
      tail += c.aMajor == Major::MN ? ", 1" : ", 0";
    tail += c.bMajor == Major::MN ? ", 1" : ", 0";
  }
  for (unsigned q = 0; q < 2; ++q) {
    std::string a =
        c.aRegs ? regList("a", 4 * q, 4) : std::string(q ? "%rd10" : "%rd9");
    s += mnem + a + ", " + (q ? "%rd12" : "%rd11") + ", " +
         (q ? "%p6" : "%p5") + tail + ";\n";
    if (c.twoGroups)
      s += "  wgmma.commit_group.sync.aligned;\n";
  }
  if (!c.twoGroups)
    s += "  wgmma.commit_group.sync.aligned;\n";
  if (c.twoGroups)
    s += "  wgmma.wait_group.sync.aligned 1;\n";
  s += "  mul.wide.u32 %rd17, %r0, " + std::to_string(nd * 4) +
       ";\n  add.s64 %rd18, %rd1, %rd17;\n";
  const uint32_t peekOff = threads * nd * 4;
  if (c.peek)
    for (unsigned j = 0; j < nd; ++j)
      s += "  st.global.b32 [%rd18+" + std::to_string(peekOff + 4 * j) +
           "], %d" + std::to_string(j) + ";\n";
  s += "WAIT:\n  wgmma.wait_group.sync.aligned 0;\n";
  for (unsigned j = 0; j < nd; ++j)
    s += "  st.global.b32 [%rd18+" + std::to_string(4 * j) + "], %d" +
         std::to_string(j) + ";\n";
  s += "  ret;\n}\n";
  return s;
}

struct Result {
  std::string error;            ///< launch / setup failure
  std::string mismatch;         ///< first element that differs, or ""
  std::vector<uint32_t> peeked; ///< D registers before the wait
  uint64_t mmas = 0;
};

/// Runs `c`; `patch` is "old\x01new", replaced in the kernel text.
Result runCase(const WgCase &c, const std::string &patch = "",
               uint32_t block = 0, const std::string &patch2 = "") {
  Result res;
  const unsigned K = instrK(c.a), kTot = 2 * K;
  const unsigned ea = bytesOf(c.a), eb = bytesOf(c.b);
  const unsigned nd = c.f16Acc ? c.n / 4 : c.n / 2;
  const unsigned threads = 128 * c.warpgroups;
  const uint32_t M = 64;
  auto kExtent = [&](Major mj, unsigned e) {
    return mj == Major::K
               ? std::max<unsigned>(kTot, swizzleWidth(c.swizzle) / e)
               : kTot;
  };
  const unsigned kExtA = kExtent(c.aMajor, ea), kExtB = kExtent(c.bMajor, eb);
  std::mt19937 rng(11u + c.n + 7u * unsigned(c.swizzle) +
                   3u * unsigned(c.aMajor) + 5u * unsigned(c.a));
  std::uniform_int_distribution<int> dist(-64, 64);
  auto rnd = [&]() {
    int v;
    do
      v = dist(rng);
    while (v == 0);
    return v / 32.0;
  };
  std::vector<uint32_t> A(size_t(M) * kExtA), B(size_t(c.n) * kExtB);
  for (auto &x : A)
    x = encodeElem(c.a, rnd());
  for (auto &x : B)
    x = encodeElem(c.b, rnd());
  if (c.nanA) // a quiet NaN with a payload (e4m3: its only NaN code)
    A[size_t(5) * kExtA + 3] = ea == 4   ? 0x7fc12000u
                               : ea == 2 ? (c.a == El::BF16 ? 0x7fc1u : 0x7e01u)
                                         : (c.a == El::E4M3 ? 0x7fu : 0x7eu);
  umma::SmemLayout la{c.aMajor, c.swizzle, ummaType(c.a), M, kExtA};
  umma::SmemLayout lb{c.bMajor, c.swizzle, ummaType(c.b), c.n, kExtB};
  uint32_t aBytes = static_cast<uint32_t>(umma::tileBytes(la));
  uint32_t bOff = (aBytes + 1023) / 1024 * 1024;
  uint32_t smemBytes =
      (bOff + static_cast<uint32_t>(umma::tileBytes(lb)) + 1023) / 1024 * 1024;
  std::vector<uint8_t> img(smemBytes, 0);
  for (uint32_t m = 0; m < M; ++m)
    for (uint32_t k = 0; k < kExtA; ++k)
      std::memcpy(img.data() + place(c.aMajor, c.swizzle, ea, M, m, k),
                  &A[size_t(m) * kExtA + k], ea);
  for (uint32_t n = 0; n < c.n; ++n)
    for (uint32_t k = 0; k < kExtB; ++k)
      std::memcpy(img.data() + bOff + place(c.bMajor, c.swizzle, eb, c.n, n, k),
                  &B[size_t(n) * kExtB + k], eb);
  uint64_t desc[4];
  for (unsigned i = 0; i < 2; ++i) {
    std::string err;
    auto da = gmmaDesc(la, 0, K, i, err);
    auto db = gmmaDesc(lb, bOff, K, i, err);
    if (!da || !db) {
      res.error = "descriptor: " + err;
      return res;
    }
    desc[i] = *da;
    desc[2 + i] = *db;
  }
  // A fragments: thread tid's registers a0..a7 (a0..a3 for the first MMA,
  // a4..a7 for the second, K columns further).
  std::vector<uint32_t> aReg(size_t(threads) * 8, 0);
  for (uint32_t tid = 0; tid < threads; ++tid)
    for (uint32_t q = 0; q < 2; ++q)
      for (uint32_t j = 0; j < 4; ++j)
        for (uint32_t e = 0; e < 4 / ea; ++e) {
          uint32_t row, k;
          aElement(c.a, tid / 32, tid % 32, j, e, row, k);
          uint32_t bits = A[size_t(row) * kExtA + q * K + k];
          aReg[tid * 8 + 4 * q + j] |=
              ea == 4 ? bits : (bits & ((1u << (8 * ea)) - 1)) << (8 * ea * e);
        }
  // Initial D.
  std::vector<double> d0(size_t(M) * c.n, 0);
  std::vector<uint32_t> dInit(size_t(threads) * nd, 0);
  if (c.initD)
    for (auto &x : d0)
      x = rnd() * 4;
  for (uint32_t tid = 0; tid < threads; ++tid)
    for (uint32_t i = 0; i < (c.f16Acc ? 2 * nd : nd); ++i) {
      uint32_t row, col;
      dElement(tid / 32, tid % 32, i, row, col);
      double v = d0[size_t(row) * c.n + col];
      using namespace nvfp4::emu::fp;
      EncodeOptions o;
      if (c.f16Acc)
        dInit[tid * nd + i / 2] |=
            static_cast<uint32_t>(encode(kF16, unpackDouble(v), o))
            << (16 * (i % 2));
      else
        dInit[tid * nd + i] = bitsOf(static_cast<float>(v));
    }

  std::string text = kernelText(c, smemBytes, nd);
  for (const std::string *p : {&patch, &patch2}) {
    if (p->empty())
      continue;
    size_t sep = p->find('\x01');
    size_t at = text.find(p->substr(0, sep));
    if (at == std::string::npos) {
      res.error = "patch not found";
      return res;
    }
    text.replace(at, sep, p->substr(sep + 1));
  }
  Machine mach;
  auto mod = mach.loadPTX(text, "wgmma.ptx");
  if (!mod) {
    res.error = mod.message();
    return res;
  }
  if (!(*mod)->kernel("k")) {
    res.error = "no kernel";
    return res;
  }
  const Kernel &kern = **(*mod)->kernel("k");
  if (!kern.unsupported().empty()) {
    res.error = kern.unsupported().front();
    return res;
  }
  uint64_t dOut = *mach.allocate(size_t(threads) * nd * 4 * 2);
  uint64_t dImg = *mach.allocate(img.size());
  (void)mach.write(dImg, img.data(), img.size());
  uint64_t dA = *mach.allocate(aReg.size() * 4);
  (void)mach.write(dA, aReg.data(), aReg.size() * 4);
  uint64_t dD = *mach.allocate(dInit.size() * 4);
  (void)mach.write(dD, dInit.data(), dInit.size() * 4);
  ParamBuilder p(kern);
  (void)p.addU64(dOut);
  (void)p.addU64(dImg);
  (void)p.addU64(dA);
  for (uint64_t d : desc)
    (void)p.addU64(d);
  (void)p.addU64(dD);
  LaunchConfig cfg;
  cfg.grid = Dim3(1);
  cfg.block = Dim3(block ? block : threads);
  cfg.params = *p.take();
  cfg.mmaNumerics = c.numerics;
  if (Error e = mach.launch(kern, cfg)) {
    res.error = e.message();
    return res;
  }
  res.mmas = mach.lastStats().mmas;
  std::vector<uint32_t> raw(size_t(threads) * nd * 2);
  (void)mach.read(dOut, raw.data(), raw.size() * 4);
  res.peeked.assign(raw.begin() + threads * nd, raw.end());
  // Compare every element of every thread's fragment.
  const double sgn = (c.negA ? -1.0 : 1.0) * (c.negB ? -1.0 : 1.0);
  for (uint32_t tid = 0; tid < threads && res.mismatch.empty(); ++tid)
    for (uint32_t i = 0; i < (c.f16Acc ? 2 * nd : nd); ++i) {
      uint32_t row, col;
      dElement(tid / 32, tid % 32, i, row, col);
      double ref = d0[size_t(row) * c.n + col], mag = std::fabs(ref);
      for (uint32_t k = 0; k < kTot; ++k) {
        double t = decodeElem(c.a, A[size_t(row) * kExtA + k]) *
                   decodeElem(c.b, B[size_t(col) * kExtB + k]);
        ref += sgn * t;
        mag += std::fabs(t);
      }
      uint32_t bits = raw[size_t(tid) * nd + (c.f16Acc ? i / 2 : i)];
      double got =
          c.f16Acc ? fp::toDouble(fp::kF16, (bits >> (16 * (i % 2))) & 0xffff)
                   : fp::toDouble(fp::kF32, bits);
      // The model's cuts: each of an instruction's terms loses less than
      // 2^-25 (8-bit operands: 2^-13) of the largest, the sum as much again.
      const bool narrow = c.a == El::E4M3 || c.a == El::E5M2;
      double tol = c.f16Acc ? 1e-3 * (mag + 1)
                   : c.numerics == MmaNumerics::Exact || c.a == El::TF32
                       ? 1e-6 * mag
                       : std::ldexp(mag, narrow ? -7 : -19);
      uint32_t gotBits = c.f16Acc ? (bits >> (16 * (i % 2))) & 0xffff : bits;
      bool okNan =
          std::isnan(ref) && gotBits == (c.f16Acc ? 0x7fffu : 0x7fffffffu);
      if (!okNan && !(std::fabs(got - ref) <= tol)) {
        res.mismatch =
            "thread " + std::to_string(tid) + " element " + std::to_string(i) +
            " = D[" + std::to_string(row) + "][" + std::to_string(col) +
            "] = " + std::to_string(got) + ", expected " + std::to_string(ref);
        break;
      }
    }
  return res;
}

std::string ok(const Result &r) {
  return r.error.empty() ? r.mismatch : "error: " + r.error;
}

WgCase mk(const char *name, Major am, Major bm, Swizzle s) {
  WgCase c;
  c.name = name;
  c.aMajor = am;
  c.bMajor = bm;
  c.swizzle = s;
  return c;
}

void PrintTo(const WgCase &c, std::ostream *os) { *os << c.name; }

class WgmmaLayouts : public ::testing::TestWithParam<WgCase> {};

TEST_P(WgmmaLayouts, MatchesFloat64) {
  const WgCase &c = GetParam();
  Result r = runCase(c);
  EXPECT_EQ(ok(r), "") << c.name;
  EXPECT_EQ(r.mmas, 2u * c.warpgroups) << c.name;
}

WgCase fp8(const char *name, El a, El b, Swizzle s) {
  WgCase c = mk(name, Major::K, Major::K, s);
  c.a = a;
  c.b = b;
  return c;
}
WgCase tf32(const char *name, Swizzle s) {
  WgCase c = mk(name, Major::K, Major::K, s);
  c.a = c.b = El::TF32;
  return c;
}

const WgCase kLayoutCases[] = {
    mk("bf16_k_none", Major::K, Major::K, Swizzle::None),
    mk("bf16_k_sw32", Major::K, Major::K, Swizzle::B32),
    mk("bf16_k_sw64", Major::K, Major::K, Swizzle::B64),
    mk("bf16_k_sw128", Major::K, Major::K, Swizzle::B128),
    mk("bf16_mn_none", Major::MN, Major::MN, Swizzle::None),
    mk("bf16_mn_sw32", Major::MN, Major::MN, Swizzle::B32),
    mk("bf16_mn_sw64", Major::MN, Major::MN, Swizzle::B64),
    mk("bf16_mn_sw128", Major::MN, Major::MN, Swizzle::B128),
    mk("bf16_a_mn_b_k_sw128", Major::MN, Major::K, Swizzle::B128),
    mk("bf16_a_k_b_mn_sw64", Major::K, Major::MN, Swizzle::B64),
    fp8("e4m3_e4m3_none", El::E4M3, El::E4M3, Swizzle::None),
    fp8("e4m3_e4m3_sw32", El::E4M3, El::E4M3, Swizzle::B32),
    fp8("e4m3_e5m2_sw64", El::E4M3, El::E5M2, Swizzle::B64),
    fp8("e5m2_e4m3_sw128", El::E5M2, El::E4M3, Swizzle::B128),
    tf32("tf32_none", Swizzle::None),
    tf32("tf32_sw32", Swizzle::B32),
    tf32("tf32_sw64", Swizzle::B64),
    tf32("tf32_sw128", Swizzle::B128),
};

INSTANTIATE_TEST_SUITE_P(EverySwizzleAndMajor, WgmmaLayouts,
                         ::testing::ValuesIn(kLayoutCases),
                         [](const auto &info) {
                           return std::string(info.param.name);
                         });

TEST(WgmmaTest, N8AndN256) {
  for (uint32_t n : {8u, 256u}) {
    WgCase c = mk("n", Major::K, Major::K, Swizzle::B128);
    c.n = n;
    EXPECT_EQ(ok(runCase(c)), "") << "N = " << n;
  }
  WgCase c = mk("n8_mn", Major::MN, Major::MN, Swizzle::None);
  c.n = 8;
  EXPECT_EQ(ok(runCase(c)), "");
  c = mk("n256_mn", Major::MN, Major::MN, Swizzle::B128);
  c.n = 256;
  EXPECT_EQ(ok(runCase(c)), "");
  c = fp8("n256_fp8", El::E4M3, El::E5M2, Swizzle::B128);
  c.n = 256;
  EXPECT_EQ(ok(runCase(c)), "");
}

TEST(WgmmaTest, F16InputsWithF16AndF32Accumulators) {
  WgCase c = mk("f16", Major::K, Major::MN, Swizzle::B64);
  c.a = c.b = El::F16;
  EXPECT_EQ(ok(runCase(c)), "");
  c.f16Acc = true;
  EXPECT_EQ(ok(runCase(c)), "");
  c.initD = true;
  EXPECT_EQ(ok(runCase(c)), "");
  WgCase e = fp8("fp8_f16acc", El::E4M3, El::E4M3, Swizzle::B128);
  e.f16Acc = true;
  EXPECT_EQ(ok(runCase(e)), "");
}

TEST(WgmmaTest, HardwareNumericsWithinTheirBound) {
  for (WgCase c : {mk("hw_bf16", Major::K, Major::MN, Swizzle::B128),
                   fp8("hw_fp8", El::E4M3, El::E5M2, Swizzle::B64)}) {
    c.numerics = MmaNumerics::Auto;
    c.initD = true;
    EXPECT_EQ(ok(runCase(c)), "") << c.name;
  }
}

TEST(WgmmaTest, AFromRegisters) {
  WgCase c = mk("regs_bf16", Major::K, Major::K, Swizzle::B128);
  c.aRegs = true;
  EXPECT_EQ(ok(runCase(c)), "");
  c.bMajor = Major::MN;
  c.n = 128;
  EXPECT_EQ(ok(runCase(c)), "");
  WgCase t = tf32("regs_tf32", Swizzle::B32);
  t.aRegs = true;
  EXPECT_EQ(ok(runCase(t)), "");
  WgCase f = fp8("regs_fp8", El::E5M2, El::E4M3, Swizzle::B64);
  f.aRegs = true;
  f.n = 24;
  EXPECT_EQ(ok(runCase(f)), "");
}

TEST(WgmmaTest, NaNInputsGiveTheCanonicalNaN) {
  WgCase c = mk("nan", Major::K, Major::K, Swizzle::B128);
  c.nanA = true;
  EXPECT_EQ(ok(runCase(c)), "");
  c.f16Acc = true;
  c.a = c.b = El::F16;
  EXPECT_EQ(ok(runCase(c)), "");
  WgCase f = fp8("nan_fp8", El::E4M3, El::E5M2, Swizzle::B64);
  f.nanA = true;
  EXPECT_EQ(ok(runCase(f)), "");
  WgCase t = tf32("nan_tf32", Swizzle::B32);
  t.nanA = true;
  t.aRegs = true;
  EXPECT_EQ(ok(runCase(t)), "");
}

TEST(WgmmaTest, ScaleAAndScaleB) {
  WgCase c = mk("neg", Major::K, Major::K, Swizzle::B32);
  c.negA = true;
  EXPECT_EQ(ok(runCase(c)), "");
  c.negB = true;
  EXPECT_EQ(ok(runCase(c)), "");
  c.negA = false;
  c.a = c.b = El::TF32;
  EXPECT_EQ(ok(runCase(c)), "");
}

TEST(WgmmaTest, ScaleDAccumulatesIntoLoadedD) {
  WgCase c = mk("initd", Major::K, Major::K, Swizzle::B128);
  c.initD = true;
  EXPECT_EQ(ok(runCase(c)), "");
  c.aRegs = true;
  EXPECT_EQ(ok(runCase(c)), "");
}

TEST(WgmmaTest, ScaleDFalseDropsTheFirstProduct) {
  // The second MMA with scale-d false overwrites D: the reference (both
  // products) no longer matches.
  WgCase c = mk("drop", Major::K, Major::K, Swizzle::B128);
  Result r = runCase(c, std::string("setp.eq.u32 %p6, 0, 0;") + '\x01' +
                            "setp.ne.u32 %p6, 0, 0;");
  EXPECT_EQ(r.error, "");
  EXPECT_NE(r.mismatch, "");
}

TEST(WgmmaTest, TwoWarpgroups) {
  WgCase c = mk("wg2", Major::MN, Major::K, Swizzle::B64);
  c.warpgroups = 2;
  Result r = runCase(c);
  EXPECT_EQ(ok(r), "");
  EXPECT_EQ(r.mmas, 4u);
}

TEST(WgmmaTest, ResultsAppearOnlyAtTheWait) {
  WgCase c = mk("peek", Major::K, Major::K, Swizzle::B128);
  c.peek = true;
  Result r = runCase(c);
  EXPECT_EQ(ok(r), "");
  ASSERT_FALSE(r.peeked.empty());
  for (uint32_t v : r.peeked)
    ASSERT_EQ(v, 0x7FC17FC1u);
  // Two groups: wait_group 1 retires the first, but the second (pending)
  // also writes D, which stays poisoned until wait_group 0.
  c.twoGroups = true;
  r = runCase(c);
  EXPECT_EQ(ok(r), "");
  for (uint32_t v : r.peeked)
    ASSERT_EQ(v, 0x7FC17FC1u);
}

TEST(WgmmaTest, WaitGroupRetiresOlderGroups) {
  // Two groups writing different accumulators: after wait_group 1 the first
  // group's D is visible, the second's not yet.
  WgCase c = mk("groups", Major::K, Major::K, Swizzle::B128);
  c.n = 8;
  c.peek = true;
  c.twoGroups = true;
  // Second MMA into its own registers %d4..%d7 (N = 8: 4 per thread).
  Result r = runCase(c, std::string("{%d0, %d1, %d2, %d3}, %rd10") + '\x01' +
                            "{%d4, %d5, %d6, %d7}, %rd10");
  ASSERT_EQ(r.error, "");
  // out has 4 words per thread; peeked are the first 4 registers after
  // wait_group 1: the first MMA's result (not the poison).
  for (uint32_t v : r.peeked)
    ASSERT_NE(v, 0x7FC17FC1u);
}

/// A software-pipelined main loop as compiled Hopper GEMMs issue it: two
/// shared-memory stages, four K tiles of 64, four chained
/// wgmma.mma_async per tile committed as one group, and wait_group 1 (the
/// previous tile's group may still run) before a stage is refilled. The
/// accumulator is chained across groups that are still pending. Returns ""
/// or the failure; `patch` as in runCase.
std::string runPipelined(const std::string &patch = "") {
  const uint32_t M = 64, N = 64, KT = 64, tiles = 4, stageBytes = 16384;
  std::mt19937 rng(99);
  std::uniform_int_distribution<int> dist(-64, 64);
  std::vector<uint32_t> A(size_t(M) * KT * tiles), B(size_t(N) * KT * tiles);
  for (auto &x : A)
    x = encodeElem(El::BF16, dist(rng) / 32.0);
  for (auto &x : B)
    x = encodeElem(El::BF16, dist(rng) / 32.0);
  const uint32_t Kall = KT * tiles;
  umma::SmemLayout la{Major::K, Swizzle::B128, umma::ElemType::BF16, M, KT};
  umma::SmemLayout lb{Major::K, Swizzle::B128, umma::ElemType::BF16, N, KT};
  // One 16 KiB image per K tile: A at 0, B at 8192.
  std::vector<uint8_t> img(size_t(tiles) * stageBytes, 0);
  for (uint32_t t = 0; t < tiles; ++t) {
    uint8_t *base = img.data() + size_t(t) * stageBytes;
    for (uint32_t m = 0; m < M; ++m)
      for (uint32_t k = 0; k < KT; ++k)
        std::memcpy(base + place(Major::K, Swizzle::B128, 2, M, m, k),
                    &A[size_t(m) * Kall + t * KT + k], 2);
    for (uint32_t n = 0; n < N; ++n)
      for (uint32_t k = 0; k < KT; ++k)
        std::memcpy(base + 8192 + place(Major::K, Swizzle::B128, 2, N, n, k),
                    &B[size_t(n) * Kall + t * KT + k], 2);
  }
  // Descriptors [stage][slice][A, B].
  std::vector<uint64_t> desc;
  for (uint32_t st = 0; st < 2; ++st)
    for (uint32_t j = 0; j < 4; ++j) {
      std::string err;
      auto da = gmmaDesc(la, st * stageBytes, 16, j, err);
      auto db = gmmaDesc(lb, st * stageBytes + 8192, 16, j, err);
      if (!da || !db)
        return "descriptor: " + err;
      desc.push_back(*da);
      desc.push_back(*db);
    }
  std::string s =
      ".version 8.0\n.target sm_90a\n.address_size 64\n"
      ".shared .align 1024 .b8 smem[32768];\n"
      ".visible .entry k(.param .u64 out, .param .u64 img, .param .u64 "
      "descs)\n{\n"
      "  .reg .pred %p<4>;\n  .reg .b32 %r<40>;\n  .reg .b64 %rd<40>;\n"
      "  .reg .f32 %d<32>;\n"
      "  ld.param.u64 %rd1, [out];\n  ld.param.u64 %rd2, [img];\n"
      "  ld.param.u64 %rd3, [descs];\n"
      "  mov.u32 %r0, %tid.x;\n  mov.u32 %r3, smem;\n"
      "  shr.u32 %r5, %r3, 4;\n  and.b32 %r5, %r5, 0x3fff;\n"
      "  cvt.u64.u32 %rd8, %r5;\n"
      "  mov.u32 %r10, 0;\n  setp.ne.u32 %p2, 0, 0;\n"
      "LOOP:\n  wgmma.wait_group.sync.aligned 1;\n  bar.sync 0;\n"
      "  and.b32 %r11, %r10, 1;\n  mul.lo.u32 %r12, %r11, 16384;\n"
      "  mul.wide.u32 %rd4, %r10, 16384;\n  add.s64 %rd5, %rd2, %rd4;\n"
      "  shl.b32 %r1, %r0, 2;\n"
      "COPY:\n  setp.ge.u32 %p1, %r1, 16384;\n  @%p1 bra COPIED;\n"
      "  cvt.u64.u32 %rd6, %r1;\n  add.s64 %rd7, %rd5, %rd6;\n"
      "  ld.global.u32 %r2, [%rd7];\n  add.u32 %r4, %r3, %r12;\n"
      "  add.u32 %r4, %r4, %r1;\n  st.shared.u32 [%r4], %r2;\n"
      "  add.u32 %r1, %r1, 512;\n  bra COPY;\n"
      "COPIED:\n  bar.sync 0;\n  fence.proxy.async.shared::cta;\n"
      "  wgmma.fence.sync.aligned;\n"
      "  mul.lo.u32 %r13, %r11, 64;\n  cvt.u64.u32 %rd9, %r13;\n"
      "  add.s64 %rd10, %rd3, %rd9;\n";
  for (unsigned j = 0; j < 4; ++j)
    s += "  ld.global.u64 %rd11, [%rd10+" + std::to_string(16 * j) +
         "];\n  ld.global.u64 %rd12, [%rd10+" + std::to_string(16 * j + 8) +
         "];\n  add.s64 %rd11, %rd11, %rd8;\n  add.s64 %rd12, %rd12, %rd8;\n"
         "  wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 " +
         regList("d", 0, 32) +
         ", %rd11, %rd12, %p2, 1, 1, 0, 0;\n  setp.eq.u32 %p2, 0, 0;\n";
  s += "  wgmma.commit_group.sync.aligned;\n"
       "  add.u32 %r10, %r10, 1;\n  setp.lt.u32 %p3, %r10, 4;\n"
       "  @%p3 bra LOOP;\n"
       "  wgmma.wait_group.sync.aligned 0;\n"
       "  mul.wide.u32 %rd13, %r0, 128;\n  add.s64 %rd14, %rd1, %rd13;\n";
  for (unsigned j = 0; j < 32; ++j)
    s += "  st.global.f32 [%rd14+" + std::to_string(4 * j) + "], %d" +
         std::to_string(j) + ";\n";
  s += "  ret;\n}\n";
  if (!patch.empty()) {
    size_t sep = patch.find('\x01');
    size_t at = s.find(patch.substr(0, sep));
    if (at == std::string::npos)
      return "patch not found";
    s.replace(at, sep, patch.substr(sep + 1));
  }
  Machine mach;
  auto mod = mach.loadPTX(s, "pipelined.ptx");
  if (!mod)
    return mod.message();
  const Kernel &kern = **(*mod)->kernel("k");
  if (!kern.unsupported().empty())
    return kern.unsupported().front();
  uint64_t dOut = *mach.allocate(128 * 32 * 4);
  uint64_t dImg = *mach.allocate(img.size());
  (void)mach.write(dImg, img.data(), img.size());
  uint64_t dDesc = *mach.allocate(desc.size() * 8);
  (void)mach.write(dDesc, desc.data(), desc.size() * 8);
  ParamBuilder p(kern);
  (void)p.addU64(dOut);
  (void)p.addU64(dImg);
  (void)p.addU64(dDesc);
  LaunchConfig cfg;
  cfg.grid = Dim3(1);
  cfg.block = Dim3(128);
  cfg.params = *p.take();
  if (Error e = mach.launch(kern, cfg))
    return e.message();
  if (mach.lastStats().mmas != 16)
    return "expected 16 MMAs, got " + std::to_string(mach.lastStats().mmas);
  std::vector<float> got(128 * 32);
  (void)mach.read(dOut, got.data(), got.size() * 4);
  for (uint32_t tid = 0; tid < 128; ++tid)
    for (uint32_t i = 0; i < 32; ++i) {
      uint32_t row, col;
      dElement(tid / 32, tid % 32, i, row, col);
      double ref = 0;
      for (uint32_t k = 0; k < Kall; ++k)
        ref += decodeElem(El::BF16, A[size_t(row) * Kall + k]) *
               decodeElem(El::BF16, B[size_t(col) * Kall + k]);
      // Every partial sum is a multiple of 2^-10 below 2^11: exact in f32.
      if (double(got[tid * 32 + i]) != ref)
        return "D[" + std::to_string(row) + "][" + std::to_string(col) +
               "] = " + std::to_string(got[tid * 32 + i]) + ", expected " +
               std::to_string(ref);
    }
  return "";
}

TEST(WgmmaTest, PipelinedMainLoop) {
  EXPECT_EQ(runPipelined(), "");
  // wait_group 2 keeps the group that read the stage alive: refilling it
  // overwrites operands of pending wgmma.mma_async.
  std::string r =
      runPipelined(std::string("  wgmma.wait_group.sync.aligned 1;\n") +
                   '\x01' + "  wgmma.wait_group.sync.aligned 2;\n");
  EXPECT_NE(r.find("overwrites an operand of the wgmma.mma_async"),
            std::string::npos)
      << r;
}

TEST(WgmmaTest, Errors) {
  WgCase c = mk("err", Major::K, Major::K, Swizzle::B128);
  // A descriptor whose start is one 128-byte row into the swizzle pattern.
  Result r = runCase(c, std::string("add.s64 %rd9, %rd9, %rd8;") + '\x01' +
                            "add.s64 %rd9, %rd9, %rd8;\n"
                            "  add.s64 %rd9, %rd9, 8;");
  EXPECT_NE(r.error.find("A descriptor 0x"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("misaligned"), std::string::npos) << r.error;
  // K slice crossing the swizzle row (start + 112 bytes, 32-byte slice).
  r = runCase(c, std::string("add.s64 %rd11, %rd11, %rd8;") + '\x01' +
                     "add.s64 %rd11, %rd11, %rd8;\n  add.s64 %rd11, %rd11, 7;");
  EXPECT_NE(r.error.find("B descriptor 0x"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("crosses its 128-byte swizzle row"), std::string::npos)
      << r.error;
  // Undefined descriptor bits (an SM100 descriptor's version bit 46).
  r = runCase(c, std::string("add.s64 %rd11, %rd11, %rd8;") + '\x01' +
                     "add.s64 %rd11, %rd11, %rd8;\n"
                     "  or.b64 %rd11, %rd11, 0x400000000000;");
  EXPECT_NE(r.error.find("does not define"), std::string::npos) << r.error;
  // A base offset: valid, not implemented.
  r = runCase(c, std::string("add.s64 %rd11, %rd11, %rd8;") + '\x01' +
                     "add.s64 %rd11, %rd11, %rd8;\n"
                     "  or.b64 %rd11, %rd11, 0x2000000000000;");
  EXPECT_NE(r.error.find("not implemented yet"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("base offset"), std::string::npos) << r.error;
  // Without wgmma.fence.
  r = runCase(c, std::string("  wgmma.fence.sync.aligned;\n") + '\x01');
  EXPECT_NE(r.error.find("no wgmma.fence"), std::string::npos) << r.error;
  // Registers written between the wgmma.fence and the wgmma.mma_async that
  // reads them (the PTX ISA asks for a fence after any access): the A
  // fragment, and the accumulator.
  {
    WgCase ra = c;
    ra.aRegs = true;
    r = runCase(ra, std::string("  wgmma.fence.sync.aligned;\n") + '\x01' +
                        "  wgmma.fence.sync.aligned;\n"
                        "  xor.b32 %a6, %a6, 1;\n");
    EXPECT_NE(r.error.find("A-fragment register 2 was written"),
              std::string::npos)
        << r.error;
    EXPECT_NE(r.error.find("missing wgmma.fence"), std::string::npos)
        << r.error;
    // The same write before the fence is fine.
    r = runCase(ra, std::string("  wgmma.fence.sync.aligned;\n") + '\x01' +
                        "  xor.b32 %a6, %a6, 1;\n"
                        "  wgmma.fence.sync.aligned;\n");
    EXPECT_EQ(r.error, "");
    r = runCase(c, std::string("  wgmma.fence.sync.aligned;\n") + '\x01' +
                       "  wgmma.fence.sync.aligned;\n"
                       "  xor.b32 %d2, %d2, 1;\n");
    EXPECT_NE(r.error.find("D register 2 was written"), std::string::npos)
        << r.error;
  }
  // Writing the accumulator while the MMA is pending.
  r = runCase(c,
              std::string("WAIT:\n") + '\x01' + "  mov.b32 %d3, 0;\nWAIT:\n");
  EXPECT_NE(r.error.find("race: D register 3"), std::string::npos) << r.error;
  // Writing the A fragment while the MMA is pending.
  WgCase a = c;
  a.aRegs = true;
  r = runCase(a,
              std::string("WAIT:\n") + '\x01' + "  mov.b32 %a5, 0;\nWAIT:\n");
  EXPECT_NE(r.error.find("race: A-fragment register 1"), std::string::npos)
      << r.error;
  // A shared-memory store into an operand before the wait (A row 0 is at
  // offset 0 of the tile); the same store after the wait is fine. One
  // thread stores (from every warp, the stores would race each other).
  r = runCase(c, std::string("WAIT:\n") + '\x01' +
                     "  setp.eq.u32 %p7, %r0, 0;\n"
                     "  @%p7 st.shared.u32 [%r3], %r0;\nWAIT:\n");
  EXPECT_NE(r.error.find("overwrites an operand of the wgmma.mma_async"),
            std::string::npos)
      << r.error;
  r = runCase(c, std::string("  ret;") + '\x01' +
                     "  setp.eq.u32 %p7, %r0, 0;\n"
                     "  @%p7 st.shared.u32 [%r3], %r0;\n  ret;");
  EXPECT_EQ(ok(r), "");
  // The warps of the warpgroup disagree on the B descriptor.
  r = runCase(c, std::string("add.s64 %rd11, %rd11, %rd8;") + '\x01' +
                     "add.s64 %rd11, %rd11, %rd8;\n"
                     "  setp.ge.u32 %p7, %r0, 64;\n"
                     "  @%p7 add.s64 %rd11, %rd11, 64;");
  EXPECT_NE(r.error.find("disagree"), std::string::npos) << r.error;
  // A warpgroup of 2 warps.
  r = runCase(c, "", 64);
  EXPECT_NE(r.error.find("the CTA has only 2 warps"), std::string::npos)
      << r.error;
  // Divergent issue.
  r = runCase(c, std::string("  wgmma.fence.sync.aligned;\n") + '\x01' +
                     "  wgmma.fence.sync.aligned;\n"
                     "  setp.eq.u32 %p7, %r0, 3;\n  @%p7 bra WAIT;\n");
  EXPECT_NE(r.error.find(".aligned"), std::string::npos) << r.error;
}

// The bytes an operand reads are tracked as one range per LBO repeat
// (smem::lboRepeat), not one range over all of them: B's N columns 64 ..
// may come from a block far from columns 0 .. 63 (the sm_90a attention
// kernel's row sums by the tensor cores read a block of ones after the K/V
// stages), and a TMA load or store between the two is no race.
TEST(WgmmaTest, OperandRangesPerLboRepeat) {
  WgCase c = mk("lbo_ranges", Major::K, Major::MN, Swizzle::B128);
  c.n = 128;
  // The A tile is 8 KiB (64 rows x 64 K-major bf16), so B starts at 8192.
  // Its 64-column blocks are 1024 bytes apart (LBO 1024), its 8-key groups
  // 2048 (SBO): the first MMA reads B bytes [0, 4096), the second [4096,
  // 8192). Moving the first MMA's LBO to 4096 makes it read block 1 of
  // keys 0 .. 15 at [4096, 5120) and [6144, 7168), and nothing of [3072,
  // 4096) (the unmoved block 1 of keys 8 .. 15).
  const std::string moveLbo = std::string("add.s64 %rd11, %rd11, %rd8;") +
                              '\x01' +
                              "add.s64 %rd11, %rd11, %rd8;\n"
                              "  add.s64 %rd11, %rd11, 0xc00000;";
  auto storeAt = [](uint32_t off) {
    return std::string("WAIT:\n") + '\x01' +
           "  setp.eq.u32 %p7, %r0, 0;\n  add.u32 %r9, %r3, " +
           std::to_string(off) + ";\n  @%p7 st.shared.u32 [%r9], %r0;\nWAIT:\n";
  };
  // Both patches: the LBO moved, then a store while both MMAs are pending.
  auto run = [&](uint32_t off) { return runCase(c, storeAt(off), 0, moveLbo); };
  // The moved descriptor alone runs (its values differ, no error).
  EXPECT_EQ(runCase(c, moveLbo).error, "");
  // Into the gap between the first MMA's two blocks: not read by either.
  Result r = run(8192 + 3072);
  EXPECT_EQ(r.error, "");
  // Into the moved block: a race.
  r = run(8192 + 4096);
  EXPECT_NE(r.error.find("overwrites an operand of the wgmma.mma_async"),
            std::string::npos)
      << r.error;
  // Into the second MMA's block 1 (read by no other range): a race too.
  r = run(8192 + 7168);
  EXPECT_NE(r.error.find("overwrites an operand of the wgmma.mma_async"),
            std::string::npos)
      << r.error;
}

TEST(WgmmaTest, UnimplementedFormsSayWhat) {
  const char *text =
      ".version 8.0\n.target sm_90a\n.address_size 64\n"
      ".visible .entry k(.param .u64 out)\n{\n"
      "  .reg .pred %p<2>;\n  .reg .b64 %rd<4>;\n  .reg .b32 %d<4>;\n"
      "  wgmma.fence.sync.aligned;\n"
      "  wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8 {%d0, %d1, %d2, "
      "%d3}, %rd1, %rd2, 1;\n"
      "  wgmma.commit_group.sync.aligned;\n"
      "  wgmma.wait_group.sync.aligned 0;\n  ret;\n}\n";
  Machine m;
  auto mod = m.loadPTX(text, "s8.ptx");
  ASSERT_TRUE(bool(mod)) << mod.message();
  const Kernel &k = **(*mod)->kernel("k");
  ASSERT_EQ(k.unsupported().size(), 1u);
  EXPECT_NE(k.unsupported()[0].find("not implemented yet"), std::string::npos)
      << k.unsupported()[0];
  EXPECT_NE(k.unsupported()[0].find("integer"), std::string::npos)
      << k.unsupported()[0];
  std::vector<uint64_t> out(1);
  KernelOptions o;
  o.block = Dim3(128);
  std::string e = runKernel(text, "k", o, out);
  EXPECT_NE(e.find("not implemented yet"), std::string::npos) << e;
  // Malformed: a bf16 shape with k32.
  std::string bad = std::string(text);
  bad.replace(bad.find("m64n8k32.s32.s8.s8"), 18, "m64n8k32.f32.bf16.bf16");
  auto mod2 = m.loadPTX(bad, "bad.ptx");
  ASSERT_TRUE(bool(mod2));
  const Kernel &k2 = **(*mod2)->kernel("k");
  ASSERT_EQ(k2.unsupported().size(), 1u);
  EXPECT_NE(k2.unsupported()[0].find("illegal shape"), std::string::npos)
      << k2.unsupported()[0];
}

} // namespace
