//===- MmaTest.cpp - tcgen05.mma and tcgen05.commit -----------------------===//
//
// Each case runs one kernel: the operand tiles are copied into shared
// memory (or A into tensor memory for `ts`), one thread issues two MMAs
// (K = 2 x the instruction's K: the second with enable-input-d and a
// descriptor advanced by one K slice), commits to an mbarrier, and the
// four warps read D back with tcgen05.ld.
//
// Three independent pieces must agree: the test places the elements by the
// atom tiling of the canonical layouts (8 rows x swizzle-width atoms, MN
// first, then K, and the XOR swizzle; no LBO/SBO involved), the encoder
// (lib/Support) builds the descriptors from the same SmemLayout, and the
// emulator decodes them with the PTX ISA's canonical-layout formulas
// (Mma.cpp). D is compared with a float64 reference.
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

namespace {

struct MmaCase {
  const char *name;
  umma::MmaKind kind = umma::MmaKind::F16;
  umma::ElemType ab = umma::ElemType::BF16;
  umma::ElemType d = umma::ElemType::F32;
  uint32_t m = 128, n = 64;
  umma::Major aMajor = umma::Major::K, bMajor = umma::Major::K;
  umma::Swizzle swizzle = umma::Swizzle::B128;
  bool ts = false;   ///< A from tensor memory
  unsigned cg = 1;   ///< cta_group
  bool negA = false; ///< idesc negate-A bit
  umma::ElemType b = umma::ElemType::BF16; ///< B type when bSet
  bool bSet = false;
  // Block scaling: elements per scale (0: not scaled) and the scale type.
  unsigned block = 0;
  umma::ScaleType scaleType = umma::ScaleType::UE8M0;
  unsigned scaleD = 0;      ///< scale-input-d (0: the operand is omitted)
  uint32_t disableMask = 0; ///< disable-output-lane word 0 (lanes 0-31)
  uint32_t bGap = 0;        ///< bytes of shared memory between A and B
};

unsigned swizzleWidth(umma::Swizzle s) {
  switch (s) {
  case umma::Swizzle::B32:
    return 32;
  case umma::Swizzle::B64:
    return 64;
  case umma::Swizzle::B128:
    return 128;
  default:
    return 16;
  }
}

/// Byte offset of element (mn, k) in a tile of `rows` x `kExt` elements of
/// `eb` bytes, by the atom tiling (no LBO/SBO): atoms of 8 rows x W bytes
/// (K-major: rows along MN; MN-major: rows along K), laid out MN-first then
/// K, and the swizzle XOR of address bits [4, 4+B) with bits [7, 7+B).
uint32_t place(umma::Major major, umma::Swizzle s, unsigned eb, uint32_t rows,
               uint32_t mn, uint32_t k) {
  const uint32_t W = swizzleWidth(s);
  uint32_t off;
  if (major == umma::Major::K) {
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

std::string regList(const char *p, unsigned n) {
  std::string s = "{";
  for (unsigned i = 0; i < n; ++i)
    s += (i ? ", %" : "%") + std::string(p) + std::to_string(i);
  return s + "}";
}

/// The kernel for `c`. Parameters: out, img (cg shared-memory images),
/// asrc (A rows for ts), adesc0/1, bdesc0/1 (start addresses relative to
/// `smem`), idesc.
std::string kernelText(const MmaCase &c, uint32_t smemBytes, uint32_t nCols,
                       uint32_t aCol, uint32_t aColsPerMma, uint32_t sfBase,
                       uint32_t sbCols) {
  std::string cg = std::to_string(c.cg);
  std::string kind = umma::stringify(c.kind);
  if (c.block)
    kind += c.kind == umma::MmaKind::MXF8F6F4 ? ".block_scale.scale_vec::1X"
            : c.block == 32                  ? ".block_scale.scale_vec::2X"
                                             : ".block_scale.scale_vec::4X";
  std::string s =
      ".version 8.8\n.target sm_100a\n.address_size 64\n"
      ".shared .align 1024 .b8 smem[" +
      std::to_string(smemBytes) +
      "];\n"
      ".shared .align 8 .b64 bar;\n.shared .align 4 .b32 slot;\n"
      ".visible .entry k(.param .u64 out, .param .u64 img, .param .u64 asrc,"
      " .param .u64 ad0, .param .u64 ad1, .param .u64 bd0, .param .u64 bd1,"
      " .param .u32 idesc, .param .u64 sfsrc)\n{\n"
      "  .reg .pred %p<8>;\n  .reg .b32 %r<64>;\n  .reg .b64 %rd<32>;\n"
      "  .reg .b32 %v<32>;\n  .reg .b32 %a<32>;\n  .reg .b32 %f<16>;\n"
      "  ld.param.u64 %rd1, [out];\n  ld.param.u64 %rd2, [img];\n"
      "  mov.u32 %r0, %tid.x;\n  mov.u32 %r30, %cluster_ctarank;\n"
      "  shr.u32 %r6, %r0, 5;\n"
      // copy this CTA's image into smem, 4 bytes per thread per step
      "  mul.wide.u32 %rd3, %r30, " +
      std::to_string(smemBytes) +
      ";\n  add.s64 %rd2, %rd2, %rd3;\n"
      "  shl.b32 %r1, %r0, 2;\n  mov.u32 %r3, smem;\n"
      "COPY:\n  setp.ge.u32 %p1, %r1, " +
      std::to_string(smemBytes) +
      ";\n  @%p1 bra COPIED;\n"
      "  cvt.u64.u32 %rd4, %r1;\n  add.s64 %rd5, %rd2, %rd4;\n"
      "  ld.global.u32 %r2, [%rd5];\n  add.u32 %r4, %r3, %r1;\n"
      "  st.shared.u32 [%r4], %r2;\n  add.u32 %r1, %r1, 512;\n  bra COPY;\n"
      "COPIED:\n  fence.proxy.async.shared::cta;\n"
      "  setp.ne.u32 %p2, %r6, 0;\n  @%p2 bra ALLOCATED;\n"
      "  mov.u32 %r7, slot;\n"
      "  tcgen05.alloc.cta_group::" +
      cg + ".sync.aligned.shared::cta.b32 [%r7], " + std::to_string(nCols) +
      ";\n"
      "  tcgen05.relinquish_alloc_permit.cta_group::" +
      cg +
      ".sync.aligned;\n"
      "ALLOCATED:\n"
      "  setp.ne.u32 %p3, %r0, 0;\n  @%p3 bra INITED;\n"
      "  mbarrier.init.shared.b64 [bar], 1;\n"
      "  fence.mbarrier_init.release.cluster;\n"
      "INITED:\n"
      "  barrier.cluster.arrive.aligned;\n  barrier.cluster.wait.aligned;\n"
      "  tcgen05.fence::after_thread_sync;\n"
      "  ld.shared.b32 %r8, [slot];\n";
  if (c.block) {
    // Lane tid's 16 scale-factor words into columns sfBase..+15.
    s += "  ld.param.u64 %rd16, [sfsrc];\n"
         "  mul.wide.u32 %rd17, %r0, 64;\n  add.s64 %rd16, %rd16, %rd17;\n";
    for (unsigned i = 0; i < 16; ++i)
      s += "  ld.global.u32 %f" + std::to_string(i) + ", [%rd16+" +
           std::to_string(4 * i) + "];\n";
    s += "  shl.b32 %r40, %r6, 21;\n  add.u32 %r41, %r8, %r40;\n"
         "  add.u32 %r41, %r41, " +
         std::to_string(sfBase) +
         ";\n  tcgen05.st.sync.aligned.32x32b.x16.b32 [%r41], " +
         regList("f", 16) + ";\n  tcgen05.wait::st.sync.aligned;\n";
  }
  if (c.ts) {
    // Row m = tid of A (Ktot bf16 = Ktot/2 words) into columns aCol..
    unsigned words = 2 * aColsPerMma;
    s += "  ld.param.u64 %rd6, [asrc];\n"
         "  mul.wide.u32 %rd7, %r0, " +
         std::to_string(words * 4) + ";\n  add.s64 %rd6, %rd6, %rd7;\n";
    for (unsigned i = 0; i < words; ++i)
      s += "  ld.global.u32 %a" + std::to_string(i) + ", [%rd6+" +
           std::to_string(4 * i) + "];\n";
    s += "  shl.b32 %r9, %r6, 21;\n  add.u32 %r10, %r8, %r9;\n"
         "  add.u32 %r10, %r10, " +
         std::to_string(aCol) +
         ";\n"
         "  tcgen05.st.sync.aligned.32x32b.x" +
         std::to_string(words) + ".b32 [%r10], " + regList("a", words) +
         ";\n  tcgen05.wait::st.sync.aligned;\n";
  }
  s += "  tcgen05.fence::before_thread_sync;\n"
       "  barrier.cluster.arrive.aligned;\n  barrier.cluster.wait.aligned;\n"
       "  tcgen05.fence::after_thread_sync;\n"
       "  or.b32 %r11, %r0, %r30;\n  setp.ne.u32 %p4, %r11, 0;\n"
       "  @%p4 bra ISSUED;\n"
       "  mov.u32 %r12, smem;\n  and.b32 %r12, %r12, 0xffffff;\n"
       "  shr.u32 %r12, %r12, 4;\n  cvt.u64.u32 %rd8, %r12;\n"
       "  ld.param.u64 %rd9, [ad0];\n  add.s64 %rd9, %rd9, %rd8;\n"
       "  ld.param.u64 %rd10, [ad1];\n  add.s64 %rd10, %rd10, %rd8;\n"
       "  ld.param.u64 %rd11, [bd0];\n  add.s64 %rd11, %rd11, %rd8;\n"
       "  ld.param.u64 %rd12, [bd1];\n  add.s64 %rd12, %rd12, %rd8;\n"
       "  ld.param.u32 %r13, [idesc];\n"
       "  setp.ne.u32 %p5, 0, 0;\n  setp.eq.u32 %p6, 0, 0;\n";
  std::string mma = "  tcgen05.mma.cta_group::" + cg + ".kind::" + kind + " ";
  // Operands after idesc: scale factors, disable-output-lane, enable-d and
  // scale-input-d.
  std::string sf0, sf1, dol, sd;
  if (c.block) {
    s += "  add.u32 %r42, %r8, " + std::to_string(sfBase) +
         ";\n  add.u32 %r43, %r8, " + std::to_string(sfBase + 4) +
         ";\n  add.u32 %r44, %r8, " + std::to_string(sfBase + 8) +
         ";\n  add.u32 %r45, %r8, " + std::to_string(sfBase + 8 + sbCols) +
         ";\n";
    sf0 = " [%r42], [%r44],";
    sf1 = " [%r43], [%r45],";
  }
  if (c.disableMask) {
    s += "  mov.b32 %r50, " + std::to_string(c.disableMask) +
         ";\n  mov.b32 %r51, 0;\n  mov.b32 %r52, 0;\n  mov.b32 %r53, 0;\n";
    dol = " {%r50, %r51, %r52, %r53},";
  }
  if (c.scaleD)
    sd = ", " + std::to_string(c.scaleD);
  if (c.block || c.disableMask || c.scaleD) {
    s += mma + "[%r8], %rd9, %rd11, %r13," + sf0 + dol + " %p5" + sd + ";\n";
    s += mma + "[%r8], %rd10, %rd12, %r13," + sf1 + dol + " %p6" + sd + ";\n";
  } else if (c.ts) {
    s += "  add.u32 %r14, %r8, " + std::to_string(aCol) +
         ";\n  add.u32 %r15, %r14, " + std::to_string(aColsPerMma) + ";\n";
    s += mma + "[%r8], [%r14], %rd11, %r13, %p5;\n";
    s += mma + "[%r8], [%r15], %rd12, %r13, %p6;\n";
  } else {
    s += mma + "[%r8], %rd9, %rd11, %r13, %p5;\n";
    s += mma + "[%r8], %rd10, %rd12, %r13, %p6;\n";
  }
  if (c.cg == 2)
    s += "  mov.b16 %rs1, 3;\n"
         "  tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster"
         ".multicast::cluster.b64 [bar], %rs1;\n";
  else
    s += "  tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster"
         ".b64 [bar];\n";
  s += "ISSUED:\n"
       "WAIT:\n  mbarrier.try_wait.parity.shared.b64 %p7, [bar], 0;\n"
       "  @!%p7 bra WAIT;\n"
       "  tcgen05.fence::after_thread_sync;\n"
       // warp w reads lanes 32w.. of D, 32 columns at a time
       "  shl.b32 %r16, %r6, 21;\n  add.u32 %r17, %r8, %r16;\n"
       "  mad.lo.u32 %r18, %r30, 128, %r0;\n"
       "  mul.wide.u32 %rd13, %r18, " +
       std::to_string(c.n * 4) + ";\n  add.s64 %rd14, %rd1, %rd13;\n";
  for (uint32_t col = 0; col < c.n; col += 32) {
    s += "  add.u32 %r19, %r17, " + std::to_string(col) + ";\n";
    s += "  tcgen05.ld.sync.aligned.32x32b.x32.b32 " + regList("v", 32) +
         ", [%r19];\n  tcgen05.wait::ld.sync.aligned;\n";
    for (unsigned j = 0; j < 32; ++j)
      s += "  st.global.u32 [%rd14+" + std::to_string(4 * (col + j)) +
           "], %v" + std::to_string(j) + ";\n";
  }
  s += "  tcgen05.fence::before_thread_sync;\n"
       "  barrier.cluster.arrive.aligned;\n  barrier.cluster.wait.aligned;\n"
       "  @%p2 bra END;\n"
       "  tcgen05.dealloc.cta_group::" +
       cg + ".sync.aligned.b32 %r8, " + std::to_string(nCols) +
       ";\nEND:\n  ret;\n}\n";
  // %rs1 is only declared when used.
  if (c.cg == 2)
    s.insert(s.find("  .reg .b32 %v<32>;"), "  .reg .b16 %rs<2>;\n");
  return s;
}

uint32_t encodeElem(umma::ElemType t, double v) {
  using namespace nvfp4::emu::fp;
  EncodeOptions o;
  switch (t) {
  case umma::ElemType::E4M3:
    return static_cast<uint32_t>(encode(kE4M3, unpackDouble(v), o));
  case umma::ElemType::E5M2:
    return static_cast<uint32_t>(encode(kE5M2, unpackDouble(v), o));
  case umma::ElemType::E2M1:
    return static_cast<uint32_t>(encode(kE2M1, unpackDouble(v), o));
  case umma::ElemType::S8:
    return static_cast<uint32_t>(static_cast<int>(v)) & 0xff;
  case umma::ElemType::U8:
    return static_cast<uint32_t>(v) & 0xff;
  case umma::ElemType::BF16:
    return static_cast<uint32_t>(encode(kBF16, unpackDouble(v), o));
  case umma::ElemType::F16:
    return static_cast<uint32_t>(encode(kF16, unpackDouble(v), o));
  default: // tf32: an f32 whose low 13 bits are zero
    return static_cast<uint32_t>(encode(kF32, unpackDouble(v), o)) &
           0xffffe000u;
  }
}
double decodeElem(umma::ElemType t, uint32_t bits) {
  using namespace nvfp4::emu::fp;
  switch (t) {
  case umma::ElemType::E4M3:
    return toDouble(kE4M3, bits);
  case umma::ElemType::E5M2:
    return toDouble(kE5M2, bits);
  case umma::ElemType::E2M1:
    return toDouble(kE2M1, bits);
  case umma::ElemType::S8:
    return static_cast<int8_t>(bits);
  case umma::ElemType::U8:
    return bits;
  case umma::ElemType::BF16:
    return toDouble(kBF16, bits);
  case umma::ElemType::F16:
    return toDouble(kF16, bits);
  default:
    return toDouble(kF32, bits);
  }
}

/// Runs `c`; returns "" or the failure.
std::string runCase(const MmaCase &c, std::vector<double> *dOut = nullptr,
                    std::vector<double> *refOut = nullptr,
                    const std::string &patch = "") {
  const unsigned kMma = umma::mmaK(c.kind);
  const unsigned kTot = 2 * kMma; // the two MMAs cover k < kTot
  const umma::ElemType tb = c.bSet ? c.b : c.ab;
  const unsigned bits = umma::elemBits(c.ab); // A and B have equal widths
  const unsigned eb = bits >= 8 ? bits / 8 : 1;
  // The tiles hold whole atoms along K: at least one swizzle width for
  // K-major (the MMAs read only the first kTot elements).
  const unsigned kExt =
      c.aMajor == umma::Major::K || c.bMajor == umma::Major::K
          ? std::max<unsigned>(kTot, swizzleWidth(c.swizzle) * 8 / bits)
          : kTot;
  // Puts element k (bits wide) of a row into the image: 4-bit elements are
  // packed two per byte, element 2i in the low nibble.
  auto put = [&](uint8_t *tile, umma::Major major, uint32_t rows, uint32_t mn,
                 uint32_t k, uint32_t v, uint32_t limit) -> bool {
    if (bits == 4) {
      uint32_t at = place(major, c.swizzle, 1, rows, mn, k / 2);
      if (at >= limit)
        return false;
      tile[at] = static_cast<uint8_t>((tile[at] & (k % 2 ? 0x0f : 0xf0)) |
                                      ((v & 0xf) << (4 * (k % 2))));
      return true;
    }
    uint32_t at = place(major, c.swizzle, eb, rows, mn, k);
    if (at + eb > limit)
      return false;
    std::memcpy(tile + at, &v, eb);
    return true;
  };
  const uint32_t mPart = c.cg == 2 ? c.m / 2 : c.m;
  const uint32_t nPart = c.cg == 2 ? c.n / 2 : c.n;
  // Logical operands.
  std::mt19937 rng(7u + c.m + 3u * c.n + unsigned(c.swizzle) * 11u +
                   unsigned(c.aMajor) * 5u);
  std::uniform_int_distribution<int> dist(-64, 64);
  auto rnd = [&](umma::ElemType t) {
    int v;
    do
      v = dist(rng);
    while (v == 0);
    if (t == umma::ElemType::S8 || t == umma::ElemType::U8)
      return double(t == umma::ElemType::U8 ? v + 64 : v);
    if (t == umma::ElemType::E2M1)
      return std::clamp(v / 10.0, -6.0, 6.0);
    return v / 32.0;
  };
  std::vector<uint32_t> A(size_t(c.m) * kExt), B(size_t(c.n) * kExt);
  for (auto &x : A)
    x = encodeElem(c.ab, rnd(c.ab));
  for (auto &x : B)
    x = encodeElem(tb, rnd(tb));
  // Tiles and descriptors.
  umma::SmemLayout la{c.aMajor, c.swizzle, c.ab, mPart, kExt};
  umma::SmemLayout lb{c.bMajor, c.swizzle, c.ab, nPart, kExt};
  uint32_t aBytes = static_cast<uint32_t>(umma::tileBytes(la));
  uint32_t bOff = (aBytes + 1023) / 1024 * 1024 + c.bGap;
  uint32_t smemBytes =
      (bOff + static_cast<uint32_t>(umma::tileBytes(lb)) + 1023) / 1024 * 1024;
  std::vector<uint8_t> img(size_t(c.cg) * smemBytes, 0);
  for (unsigned q = 0; q < c.cg; ++q) {
    uint8_t *base = img.data() + size_t(q) * smemBytes;
    for (uint32_t m = 0; m < mPart; ++m)
      for (uint32_t k = 0; k < kExt; ++k)
        if (!put(base, c.aMajor, mPart, m, k,
                 A[size_t(q * mPart + m) * kExt + k], bOff))
          return "test bug: A element outside its tile";
    for (uint32_t n = 0; n < nPart; ++n)
      for (uint32_t k = 0; k < kExt; ++k)
        if (!put(base + bOff, c.bMajor, nPart, n, k,
                 B[size_t(q * nPart + n) * kExt + k], smemBytes - bOff))
          return "test bug: B element outside its tile";
  }
  std::string err;
  uint64_t desc[4];
  for (unsigned i = 0; i < 2; ++i) {
    auto fa = umma::makeSmemDescFields(la, 0, kMma, i, &err);
    auto fb = umma::makeSmemDescFields(lb, bOff, kMma, i, &err);
    if (!fa || !fb)
      return "descriptor: " + err;
    desc[i] = *umma::encodeSmemDesc(*fa);
    desc[2 + i] = *umma::encodeSmemDesc(*fb);
  }
  umma::InstrDescFields f;
  f.kind = c.kind;
  f.a = c.ab;
  f.b = tb;
  f.scaleType = c.scaleType;
  f.scaleVecSize = static_cast<uint8_t>(c.block);
  f.d = c.d;
  f.m = c.m;
  f.n = c.n;
  f.aMajor = c.aMajor;
  f.bMajor = c.bMajor;
  f.ctaGroup = c.cg;
  f.negateA = c.negA;
  auto idesc = umma::encodeInstrDesc(f, &err);
  if (!idesc)
    return "idesc: " + err;
  const uint32_t aColsPerMma = kMma * bits / 32;
  // Scale factors (block-scaled kinds) at columns sfBase..: MMA i's A
  // scales in the 4 columns sfBase + 4i, its B scales in the sbCols
  // columns sfBase + 8 + sbCols i. Row m's scale for K block j is byte j of
  // lane m, column + m/32; column n's is byte j of lane n%32 + 32q (every
  // subpartition q), column + n/32.
  const uint32_t sfBase = c.n + (c.ts ? 2 * aColsPerMma : 0);
  const uint32_t sbCols = (c.n + 31) / 32;
  const unsigned blocks = c.block ? kMma / c.block : 0;
  std::vector<uint32_t> sfImg(128 * 16, 0);
  std::vector<double> sa(size_t(2) * c.m * 4, 1.0), sb(size_t(2) * c.n * 4, 1.0);
  if (c.block) {
    std::uniform_int_distribution<int> sdist(-3, 3);
    auto scale = [&](double &value) -> uint32_t {
      if (c.scaleType == umma::ScaleType::UE8M0) {
        int e = sdist(rng);
        value = std::ldexp(1.0, e);
        return static_cast<uint32_t>(127 + e);
      }
      uint32_t code = encodeElem(umma::ElemType::E4M3, 0.5 + (sdist(rng) + 3) * 0.25);
      value = decodeElem(umma::ElemType::E4M3, code);
      return code & 0x7f;
    };
    for (unsigned i = 0; i < 2; ++i) {
      for (uint32_t m = 0; m < c.m; ++m)
        for (unsigned j = 0; j < blocks; ++j) {
          uint32_t b = scale(sa[(size_t(i) * c.m + m) * 4 + j]);
          sfImg[size_t(m) * 16 + 4 * i + m / 32] |= b << (8 * j);
        }
      for (uint32_t n = 0; n < c.n; ++n)
        for (unsigned j = 0; j < blocks; ++j) {
          uint32_t b = scale(sb[(size_t(i) * c.n + n) * 4 + j]);
          for (uint32_t q = 0; q < 4; ++q)
            sfImg[size_t(32 * q + n % 32) * 16 + 8 + sbCols * i + n / 32] |=
                b << (8 * j);
        }
    }
  }
  uint32_t nCols = 32;
  while (nCols < sfBase + (c.block ? 16 : 0))
    nCols *= 2;
  std::string text = kernelText(c, smemBytes, nCols, c.n, aColsPerMma, sfBase,
                                sbCols);
  if (!patch.empty()) {
    // A patch is "old\x01new": replace in the kernel text.
    size_t sep = patch.find('\x01');
    size_t at = text.find(patch.substr(0, sep));
    if (at == std::string::npos)
      return "patch not found";
    text.replace(at, sep, patch.substr(sep + 1));
  }
  Machine mach;
  auto mod = mach.loadPTX(text, "mma.ptx");
  if (!mod)
    return mod.message();
  auto k = (*mod)->kernel("k");
  if (!k)
    return k.message();
  const uint32_t rows = 128 * c.cg;
  uint64_t dD = *mach.allocate(size_t(rows) * c.n * 4);
  uint64_t dImg = *mach.allocate(img.size());
  (void)mach.write(dImg, img.data(), img.size());
  // ts: A rows packed two 16-bit elements per word.
  std::vector<uint32_t> aRows(size_t(128) * kTot / 2, 0);
  for (uint32_t m = 0; m < std::min<uint32_t>(128, c.m); ++m)
    for (uint32_t kk = 0; kk < kTot; ++kk)
      aRows[size_t(m) * (kTot / 2) + kk / 2] |= (A[size_t(m) * kExt + kk] &
                                                  0xffff)
                                                 << (16 * (kk % 2));
  uint64_t dA = *mach.allocate(aRows.size() * 4);
  (void)mach.write(dA, aRows.data(), aRows.size() * 4);
  uint64_t dSf = *mach.allocate(sfImg.size() * 4);
  (void)mach.write(dSf, sfImg.data(), sfImg.size() * 4);
  ParamBuilder p(**k);
  (void)p.addU64(dD);
  (void)p.addU64(dImg);
  (void)p.addU64(dA);
  (void)p.addU64(desc[0]);
  (void)p.addU64(desc[1]);
  (void)p.addU64(desc[2]);
  (void)p.addU64(desc[3]);
  (void)p.addU32(*idesc);
  (void)p.addU64(dSf);
  LaunchConfig cfg;
  cfg.grid = Dim3(c.cg);
  cfg.cluster = Dim3(c.cg);
  cfg.block = Dim3(128);
  cfg.params = *p.take();
  if (Error e = mach.launch(**k, cfg))
    return e.message();
  if (mach.lastStats().mmas != 2)
    return "expected 2 MMAs, got " + std::to_string(mach.lastStats().mmas);
  std::vector<uint32_t> raw(size_t(rows) * c.n);
  (void)mach.read(dD, raw.data(), raw.size() * 4);
  // Compare: row m of D sits at output row lane(m) (+128 per CTA).
  double worst = 0;
  std::string where;
  for (uint32_t m = 0; m < c.m; ++m) {
    uint32_t q = m / mPart, mm = m % mPart;
    uint32_t lane = c.m == 64 ? 32 * (mm / 16) + mm % 16 : mm;
    for (uint32_t n = 0; n < c.n; ++n) {
      double ref = 0, mag = 0;
      double dScale = std::ldexp(1.0, -int(c.scaleD));
      for (uint32_t kk = 0; kk < kTot; ++kk) {
        double t = decodeElem(c.ab, A[size_t(m) * kExt + kk]) *
                   decodeElem(tb, B[size_t(n) * kExt + kk]);
        if (c.block) {
          unsigned i = kk / kMma, j = (kk % kMma) / c.block;
          t *= sa[(size_t(i) * c.m + m) * 4 + j] *
               sb[(size_t(i) * c.n + n) * 4 + j];
        }
        // scale-input-d scales the first MMA's result as the second one
        // accumulates it.
        if (kk < kMma)
          t *= dScale;
        ref += c.negA ? -t : t;
        mag += std::fabs(t);
      }
      bool disabled = c.disableMask && m < 32 && ((c.disableMask >> m) & 1);
      uint32_t bits = raw[size_t(q * 128 + lane) * c.n + n];
      double got = c.d == umma::ElemType::F16 ? fp::toDouble(fp::kF16, bits & 0xffff)
                   : c.d == umma::ElemType::S32
                       ? double(static_cast<int32_t>(bits))
                       : fp::toDouble(fp::kF32, bits);
      if (disabled) {
        // Both MMAs skip the row: D keeps the poison of never-written TMEM.
        if (bits != 0x7FBADBADu && (!(worst > 0))) {
          worst = 1;
          where = "disabled row " + std::to_string(m) + " was written";
        }
        continue;
      }
      double tol = c.d == umma::ElemType::F16 ? 1e-3 * (mag + 1) : 1e-6 * mag;
      double e = std::fabs(got - ref);
      if (!(e <= tol) && (!(worst > 0) || e > worst)) {
        worst = std::isnan(e) ? 1e300 : e;
        where = "D[" + std::to_string(m) + "][" + std::to_string(n) +
                "] = " + std::to_string(got) + ", expected " +
                std::to_string(ref);
      }
      if (dOut && refOut) {
        dOut->push_back(got);
        refOut->push_back(ref);
      }
    }
  }
  return where;
}

class MmaLayouts : public ::testing::TestWithParam<MmaCase> {};

TEST_P(MmaLayouts, MatchesFloat64) {
  const MmaCase &c = GetParam();
  EXPECT_EQ(runCase(c), "") << c.name;
}

MmaCase mk(const char *name, umma::Major am, umma::Major bm, umma::Swizzle s) {
  MmaCase c;
  c.name = name;
  c.aMajor = am;
  c.bMajor = bm;
  c.swizzle = s;
  return c;
}

using umma::Major;
using umma::Swizzle;

const MmaCase kLayoutCases[] = {
    mk("k_none", Major::K, Major::K, Swizzle::None),
    mk("k_sw32", Major::K, Major::K, Swizzle::B32),
    mk("k_sw64", Major::K, Major::K, Swizzle::B64),
    mk("k_sw128", Major::K, Major::K, Swizzle::B128),
    mk("mn_none", Major::MN, Major::MN, Swizzle::None),
    mk("mn_sw32", Major::MN, Major::MN, Swizzle::B32),
    mk("mn_sw64", Major::MN, Major::MN, Swizzle::B64),
    mk("mn_sw128", Major::MN, Major::MN, Swizzle::B128),
    mk("a_mn_b_k_sw128", Major::MN, Major::K, Swizzle::B128),
};

INSTANTIATE_TEST_SUITE_P(EverySwizzleBothMajors, MmaLayouts,
                         ::testing::ValuesIn(kLayoutCases),
                         [](const auto &info) {
                           return std::string(info.param.name);
                         });

TEST(MmaTest, M64UsesLayoutF) {
  MmaCase c = mk("m64", Major::K, Major::K, Swizzle::B128);
  c.m = 64;
  EXPECT_EQ(runCase(c), "");
}

TEST(MmaTest, F16InputsAndF16Accumulator) {
  MmaCase c = mk("f16", Major::K, Major::K, Swizzle::B64);
  c.ab = umma::ElemType::F16;
  c.d = umma::ElemType::F16;
  EXPECT_EQ(runCase(c), "");
}

TEST(MmaTest, Tf32) {
  MmaCase c = mk("tf32", Major::K, Major::K, Swizzle::B128);
  c.kind = umma::MmaKind::TF32;
  c.ab = umma::ElemType::TF32;
  EXPECT_EQ(runCase(c), "");
}

TEST(MmaTest, AFromTensorMemory) {
  MmaCase c = mk("ts", Major::K, Major::K, Swizzle::B128);
  c.ts = true;
  EXPECT_EQ(runCase(c), "");
}

TEST(MmaTest, NegateA) {
  MmaCase c = mk("neg", Major::K, Major::K, Swizzle::B32);
  c.negA = true;
  EXPECT_EQ(runCase(c), "");
}

TEST(MmaTest, CtaGroup2M256) {
  MmaCase c = mk("cg2", Major::K, Major::K, Swizzle::B128);
  c.m = 256;
  c.n = 128;
  c.cg = 2;
  EXPECT_EQ(runCase(c), "");
}

TEST(MmaTest, WrongSwizzleIsCaught) {
  // The data is placed for 128B but A's descriptor says 64B: the
  // emulator must read different bytes.
  MmaCase c = mk("k_sw128", Major::K, Major::K, Swizzle::B128);
  std::string r = runCase(c, nullptr, nullptr,
                          std::string("ld.param.u64 %rd9, [ad0];") + '\x01' +
                              "ld.param.u64 %rd9, [ad0];\n"
                              "  xor.b64 %rd9, %rd9, 0xc000000000000000;");
  EXPECT_NE(r, "");
}

TEST(MmaTest, WithoutEnableInputDTheFirstMmaIsLost) {
  MmaCase c = mk("k_sw128", Major::K, Major::K, Swizzle::B128);
  std::string r = runCase(c, nullptr, nullptr,
                          std::string("setp.eq.u32 %p6, 0, 0;") + '\x01' +
                              "setp.ne.u32 %p6, 0, 0;");
  EXPECT_NE(r, "");
}

TEST(MmaTest, Errors) {
  MmaCase c = mk("k_sw128", Major::K, Major::K, Swizzle::B128);
  // D outside the allocation (the issuing thread moves D to column 480).
  std::string r =
      runCase(c, nullptr, nullptr,
              std::string("ld.param.u32 %r13, [idesc];") + '\x01' +
                  "ld.param.u32 %r13, [idesc];\n  add.u32 %r8, %r8, 480;");
  EXPECT_NE(r.find("D columns 480..543 are not inside one live allocation"),
            std::string::npos)
      << r;
  // A descriptor with the fixed version bits cleared is rejected.
  r = runCase(c, nullptr, nullptr,
              std::string("ld.param.u64 %rd11, [bd0];") + '\x01' +
                  "ld.param.u64 %rd11, [bd0];\n"
                  "  and.b64 %rd11, %rd11, 0xfffe3fffffffffff;");
  EXPECT_NE(r.find("B descriptor"), std::string::npos) << r;
  // Accumulating into tensor memory nothing wrote.
  r = runCase(c, nullptr, nullptr,
              std::string("setp.ne.u32 %p5, 0, 0;") + '\x01' +
                  "setp.eq.u32 %p5, 0, 0;");
  EXPECT_NE(r.find("which was never written"), std::string::npos) << r;
}

} // namespace

namespace {

MmaCase kindCase(const char *name, umma::MmaKind kind, umma::ElemType a,
                 umma::ElemType b, umma::ElemType d) {
  MmaCase c = mk(name, Major::K, Major::K, Swizzle::B128);
  c.kind = kind;
  c.ab = a;
  c.b = b;
  c.bSet = true;
  c.d = d;
  return c;
}

TEST(MmaTest, F8F6F4E4M3TimesE5M2) {
  EXPECT_EQ(runCase(kindCase("f8", umma::MmaKind::F8F6F4, umma::ElemType::E4M3,
                             umma::ElemType::E5M2, umma::ElemType::F32)),
            "");
}

TEST(MmaTest, I8SignedTimesUnsigned) {
  EXPECT_EQ(runCase(kindCase("i8", umma::MmaKind::I8, umma::ElemType::S8,
                             umma::ElemType::U8, umma::ElemType::S32)),
            "");
}

TEST(MmaTest, Mxf8f6f4WithUe8m0Scales) {
  MmaCase c = kindCase("mxf8", umma::MmaKind::MXF8F6F4, umma::ElemType::E4M3,
                       umma::ElemType::E4M3, umma::ElemType::F32);
  c.block = 32;
  EXPECT_EQ(runCase(c), "");
}

TEST(MmaTest, Mxf4WithUe8m0Scales) {
  MmaCase c = kindCase("mxf4", umma::MmaKind::MXF4, umma::ElemType::E2M1,
                       umma::ElemType::E2M1, umma::ElemType::F32);
  c.block = 32;
  EXPECT_EQ(runCase(c), "");
}

TEST(MmaTest, Nvfp4WithUe4m3Block16Scales) {
  MmaCase c = kindCase("nvf4", umma::MmaKind::MXF4NVF4, umma::ElemType::E2M1,
                       umma::ElemType::E2M1, umma::ElemType::F32);
  c.block = 16;
  c.scaleType = umma::ScaleType::UE4M3;
  EXPECT_EQ(runCase(c), "");
}

TEST(MmaTest, ScaleInputD) {
  MmaCase c = mk("scale_d", Major::K, Major::K, Swizzle::B128);
  c.scaleD = 3;
  EXPECT_EQ(runCase(c), "");
}

TEST(MmaTest, DisableOutputLane) {
  MmaCase c = mk("dol", Major::K, Major::K, Swizzle::B128);
  c.disableMask = 0x80000005u; // rows 0, 2 and 31 keep their old contents
  EXPECT_EQ(runCase(c), "");
}

} // namespace

namespace {

/// tcgen05.cp / tcgen05.shift: warp 0 allocates 32 columns; `issue` runs
/// in thread 0 (with %r8 the TMEM base, %rd9 the descriptor of `smem`);
/// `before` runs in every thread first (%r8 set). Then thread 0 commits,
/// everyone waits, and warp w stores lane 32w + t's 8 columns to
/// out[(32w + t) * 8 ..].
std::string cpKernel(const std::string &before, const std::string &issue) {
  return ".version 8.8\n.target sm_100a\n.address_size 64\n"
         ".shared .align 1024 .b8 smem[4096];\n"
         ".shared .align 8 .b64 bar;\n.shared .align 4 .b32 slot;\n"
         ".visible .entry k(.param .u64 out, .param .u64 img, .param .u64 desc)\n{\n"
         "  .reg .pred %p<8>;\n  .reg .b32 %r<64>;\n  .reg .b64 %rd<32>;\n"
         "  .reg .b32 %v<8>;\n"
         "  ld.param.u64 %rd1, [out];\n  ld.param.u64 %rd2, [img];\n"
         "  mov.u32 %r0, %tid.x;\n  shr.u32 %r6, %r0, 5;\n"
         "  shl.b32 %r1, %r0, 2;\n  mov.u32 %r3, smem;\n"
         "COPY:\n  setp.ge.u32 %p1, %r1, 4096;\n  @%p1 bra COPIED;\n"
         "  cvt.u64.u32 %rd4, %r1;\n  add.s64 %rd5, %rd2, %rd4;\n"
         "  ld.global.u32 %r2, [%rd5];\n  add.u32 %r4, %r3, %r1;\n"
         "  st.shared.u32 [%r4], %r2;\n  add.u32 %r1, %r1, 512;\n  bra COPY;\n"
         "COPIED:\n  fence.proxy.async.shared::cta;\n  setp.ne.u32 %p2, %r6, 0;\n  @%p2 bra ALLOCATED;\n"
         "  mov.u32 %r7, slot;\n"
         "  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r7], 32;\n"
         "  tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n"
         "ALLOCATED:\n  setp.ne.u32 %p3, %r0, 0;\n  @%p3 bra INITED;\n"
         "  mbarrier.init.shared.b64 [bar], 1;\nINITED:\n  bar.sync 0;\n"
         "  tcgen05.fence::after_thread_sync;\n  ld.shared.b32 %r8, [slot];\n" +
         before +
         "  tcgen05.fence::before_thread_sync;\n  bar.sync 0;\n"
         "  tcgen05.fence::after_thread_sync;\n"
         "  @%p3 bra ISSUED;\n"
         "  mov.u32 %r12, smem;\n  shr.u32 %r12, %r12, 4;\n"
         "  cvt.u64.u32 %rd8, %r12;\n  ld.param.u64 %rd9, [desc];\n"
         "  add.s64 %rd9, %rd9, %rd8;\n" +
         issue +
         "  tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster"
         ".b64 [bar];\n"
         "ISSUED:\nWAIT:\n  mbarrier.try_wait.parity.shared.b64 %p7, [bar], 0;\n"
         "  @!%p7 bra WAIT;\n  tcgen05.fence::after_thread_sync;\n"
         "  shl.b32 %r16, %r6, 21;\n  add.u32 %r17, %r8, %r16;\n"
         "  tcgen05.ld.sync.aligned.32x32b.x8.b32 {%v0, %v1, %v2, %v3, %v4, "
         "%v5, %v6, %v7}, [%r17];\n  tcgen05.wait::ld.sync.aligned;\n"
         "  mul.wide.u32 %rd13, %r0, 32;\n  add.s64 %rd14, %rd1, %rd13;\n"
         "  st.global.v4.u32 [%rd14], {%v0, %v1, %v2, %v3};\n"
         "  st.global.v4.u32 [%rd14+16], {%v4, %v5, %v6, %v7};\n"
         "  tcgen05.fence::before_thread_sync;\n  bar.sync 0;\n"
         "  @%p2 bra END;\n"
         "  tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r8, 32;\n"
         "END:\n  ret;\n}\n";
}

/// Runs a cp/shift kernel; `img` is the 4096-byte shared-memory image.
std::string runCp(const std::string &text, const std::vector<uint8_t> &img,
                  uint64_t desc, std::vector<uint32_t> &out) {
  Machine mach;
  auto mod = mach.loadPTX(text, "cp.ptx");
  if (!mod)
    return mod.message();
  auto k = (*mod)->kernel("k");
  if (!k)
    return k.message();
  uint64_t dOut = *mach.allocate(128 * 8 * 4);
  uint64_t dImg = *mach.allocate(img.size());
  (void)mach.write(dImg, img.data(), img.size());
  ParamBuilder p(**k);
  (void)p.addU64(dOut);
  (void)p.addU64(dImg);
  (void)p.addU64(desc);
  LaunchConfig cfg;
  cfg.block = Dim3(128);
  cfg.params = *p.take();
  if (Error e = mach.launch(**k, cfg))
    return e.message();
  out.resize(128 * 8);
  (void)mach.read(dOut, out.data(), out.size() * 4);
  return "";
}

/// A K-major, no-swizzle byte matrix of `rows` x 32 bytes: its image
/// (placed by the atom tiling) and descriptor (from the encoder).
uint64_t byteMatrix(uint32_t rows, std::vector<uint8_t> &img) {
  img.assign(4096, 0);
  for (uint32_t r = 0; r < rows; ++r)
    for (uint32_t b = 0; b < 32; ++b)
      img[place(Major::K, Swizzle::None, 1, rows, r, b)] =
          static_cast<uint8_t>(r * 7 + b * 3 + 1);
  umma::SmemLayout l{Major::K, Swizzle::None, umma::ElemType::S8, rows, 32};
  auto f = umma::makeSmemDescFields(l, 0, 32, 0);
  return *umma::encodeSmemDesc(*f);
}

uint32_t rowWord(uint32_t r, uint32_t col) {
  uint32_t v = 0;
  for (uint32_t b = 0; b < 4; ++b)
    v |= uint32_t(static_cast<uint8_t>(r * 7 + (4 * col + b) * 3 + 1)) << (8 * b);
  return v;
}

TEST(TcgenCpTest, Shape128x256b) {
  std::vector<uint8_t> img;
  uint64_t desc = byteMatrix(128, img);
  std::vector<uint32_t> out;
  ASSERT_EQ(runCp(cpKernel("", "  tcgen05.cp.cta_group::1.128x256b [%r8], "
                               "%rd9;\n"),
                  img, desc, out),
            "");
  for (uint32_t lane = 0; lane < 128; ++lane)
    for (uint32_t col = 0; col < 8; ++col)
      ASSERT_EQ(out[lane * 8 + col], rowWord(lane, col)) << lane << " " << col;
}

TEST(TcgenCpTest, Shape32x128bWarpx4) {
  std::vector<uint8_t> img;
  uint64_t desc = byteMatrix(32, img);
  std::vector<uint32_t> out;
  // Zero the columns first so that the unwritten columns 4-7 read 0.
  std::string zero = "  shl.b32 %r20, %r6, 21;\n  add.u32 %r21, %r8, %r20;\n"
                     "  mov.b32 %r22, 0;\n"
                     "  tcgen05.st.sync.aligned.32x32b.x8.b32 [%r21], {%r22, "
                     "%r22, %r22, %r22, %r22, %r22, %r22, %r22};\n"
                     "  tcgen05.wait::st.sync.aligned;\n";
  ASSERT_EQ(runCp(cpKernel(zero, "  tcgen05.cp.cta_group::1.32x128b.warpx4 "
                                 "[%r8], %rd9;\n"),
                  img, desc, out),
            "");
  for (uint32_t lane = 0; lane < 128; ++lane)
    for (uint32_t col = 0; col < 8; ++col)
      ASSERT_EQ(out[lane * 8 + col], col < 4 ? rowWord(lane % 32, col) : 0u)
          << lane << " " << col;
}

TEST(TcgenCpTest, ShiftDown) {
  // Lane l, column c holds l * 16 + c; after shift.down lane l holds lane
  // l - 1's row, lane 0 keeps its own.
  std::string fill = "  shl.b32 %r20, %r6, 21;\n  add.u32 %r21, %r8, %r20;\n"
                     "  shl.b32 %r23, %r0, 4;\n";
  std::string regs;
  for (int c = 0; c < 8; ++c) {
    fill += "  add.u32 %r" + std::to_string(30 + c) + ", %r23, " +
            std::to_string(c) + ";\n";
    regs += (c ? ", %r" : "%r") + std::to_string(30 + c);
  }
  fill += "  tcgen05.st.sync.aligned.32x32b.x8.b32 [%r21], {" + regs +
          "};\n  tcgen05.wait::st.sync.aligned;\n";
  std::vector<uint8_t> img(4096, 0);
  std::vector<uint32_t> out;
  ASSERT_EQ(runCp(cpKernel(fill, "  tcgen05.shift.cta_group::1.down [%r8];\n"),
                  img, 0, out),
            "");
  for (uint32_t lane = 0; lane < 128; ++lane)
    for (uint32_t col = 0; col < 8; ++col)
      ASSERT_EQ(out[lane * 8 + col], (lane ? lane - 1 : 0) * 16 + col)
          << lane << " " << col;
}

} // namespace

namespace {

TEST(MmaTest, TsWithoutWaitStIsARace) {
  // The A operand stored with tcgen05.st must be waited for
  // (tcgen05.wait::st) before the MMA reads it.
  MmaCase c = mk("ts", Major::K, Major::K, Swizzle::B128);
  c.ts = true;
  std::string r = runCase(
      c, nullptr, nullptr,
      std::string("  tcgen05.wait::st.sync.aligned;\n  tcgen05.fence::before") +
          '\x01' + "  tcgen05.fence::before");
  EXPECT_NE(r.find("race: the tcgen05.mma"), std::string::npos) << r;
  EXPECT_NE(r.find("has not waited for (tcgen05.wait::st)"), std::string::npos)
      << r;
}

} // namespace

namespace {

TEST(MmaTest, WritingAnotherPipelinesTmemOperandIsARace) {
  // MMAs of one thread stay in issue order only within a pipeline (same
  // cta_group, accumulator and shape). A second MMA that accumulates
  // elsewhere, over the columns the first reads as A, may run first: the
  // attention kernel's next S over the P of the previous tile is this case.
  MmaCase c = mk("ts-hazard", Major::K, Major::K, Swizzle::B128);
  c.ts = true;
  std::string r = runCase(c, nullptr, nullptr,
                          std::string("[%r8], [%r15]") + '\x01' +
                              "[%r14], [%r15]");
  EXPECT_NE(r.find("race: this tcgen05.mma shares tensor-memory columns"),
            std::string::npos)
      << r;
  EXPECT_NE(r.find("not in its pipeline"), std::string::npos) << r;
}

} // namespace

namespace {

TEST(MmaTest, StoreBetweenAAndBIsNotARace) {
  // A pending MMA reads A and B, not the bytes between them: a store there
  // (in the attention kernel: a TMA into a K/V stage that lies between Q
  // and the stage being read) is not a race. A store into B still is.
  MmaCase c = mk("gap", Major::K, Major::K, Swizzle::B128);
  c.bGap = 4096;
  const std::string commit = "  tcgen05.commit.cta_group::1";
  // A is 128 rows x 128 bytes = 16 KiB at offset 0; B starts at 20 KiB.
  EXPECT_EQ(runCase(c, nullptr, nullptr,
                    commit + '\x01' + "  st.shared.u32 [smem+17000], %r0;\n" +
                        commit),
            "");
  std::string r = runCase(c, nullptr, nullptr,
                          commit + '\x01' +
                              "  st.shared.u32 [smem+20480], %r0;\n" + commit);
  EXPECT_NE(r.find("race"), std::string::npos) << r;
}

} // namespace
