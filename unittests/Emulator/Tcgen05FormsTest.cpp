//===- Tcgen05FormsTest.cpp - tcgen05.mma.ws, padded f8f6f4, cp forms -----===//
//
// The tcgen05 forms beyond the GEMM kernels' (docs/Emulator.md,
// "tcgen05.mma and tcgen05.commit"):
//  - tcgen05.mma.ws (weight stationary) with M = 32 / 64 / 128, its D data
//    path layouts (PTX "Data path layout organization": 1x4, 2x2, 4x1), A
//    from tensor memory, the collector-buffer qualifiers and the zero-column
//    mask descriptor (PTX Table 45 and its four examples);
//  - kind::f8f6f4 with the 6- and 4-bit types in their padded shared-memory
//    form (16 packed elements then padding per 16 bytes, PTX 5.5.1.1.1);
//  - tcgen05.cp with decompression (.b8x16.b6x16_p32 / .b4x16_p64) and the
//    .4x256b shape;
//  - the verifier-style errors of these forms.
//
// Every expected value is computed here from the logical matrices with the
// layouts written out from the ISA text (independently of lib/Emulator):
// operand placement in shared memory, the fp4/fp6/fp8 values decoded by
// their sign/exponent/mantissa fields, D's TMEM cells per data path layout.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "nvfp4/Emulator/Parser.h"
#include "nvfp4/Support/UMMADescriptors.h"

#include "gtest/gtest.h"

#include <array>
#include <cmath>
#include <cstring>
#include <ostream>
#include <random>

using namespace nvfp4::emu;
using namespace nvfp4::emu::test;
namespace umma = nvfp4::umma;
using umma::ElemType;
using umma::Major;
using umma::MmaKind;
using umma::Swizzle;

namespace {

//===----------------------------------------------------------------------===//
// Element formats, written out from PTX "Alternate floating point data
// formats": sign, exponent with bias, mantissa, subnormals at exponent 0.
//===----------------------------------------------------------------------===//

struct MiniFloat {
  unsigned e, m, bias;
};

MiniFloat miniFormat(ElemType t) {
  switch (t) {
  case ElemType::E2M1:
    return {2, 1, 1};
  case ElemType::E2M3:
    return {2, 3, 1};
  case ElemType::E3M2:
    return {3, 2, 3};
  case ElemType::E4M3:
    return {4, 3, 7};
  default: // E5M2
    return {5, 2, 15};
  }
}

/// The value of a fp4/fp6/fp8 code (no NaN/Inf codes are generated).
double miniValue(ElemType t, uint32_t code) {
  MiniFloat f = miniFormat(t);
  unsigned bits = 1 + f.e + f.m;
  uint32_t mant = code & ((1u << f.m) - 1);
  uint32_t exp = (code >> f.m) & ((1u << f.e) - 1);
  double v = exp == 0 ? std::ldexp(double(mant), 1 - int(f.bias) - int(f.m))
                      : std::ldexp(double((1u << f.m) | mant),
                                   int(exp) - int(f.bias) - int(f.m));
  return (code >> (bits - 1)) & 1 ? -v : v;
}

unsigned typeBits(ElemType t) {
  switch (t) {
  case ElemType::E2M1:
    return 4;
  case ElemType::E2M3:
  case ElemType::E3M2:
    return 6;
  case ElemType::BF16:
  case ElemType::F16:
    return 16;
  case ElemType::TF32:
    return 32;
  default:
    return 8;
  }
}

/// A random element of `t`: its code and its value. Values are small so
/// that every sum below is exact in f32.
std::pair<uint32_t, double> randomElem(ElemType t, std::mt19937 &rng) {
  std::uniform_int_distribution<int> small(-8, 8);
  switch (t) {
  case ElemType::BF16: {
    float v = float(small(rng)) / 4;
    uint32_t u;
    std::memcpy(&u, &v, 4);
    return {u >> 16, v};
  }
  case ElemType::TF32: {
    float v = float(small(rng)) / 8;
    uint32_t u;
    std::memcpy(&u, &v, 4);
    return {u, v};
  }
  case ElemType::S8: {
    int v = small(rng) * 9;
    return {uint32_t(v) & 0xff, double(v)};
  }
  case ElemType::E4M3:
  case ElemType::E5M2: {
    // |value| < 16 keeps the exponent field far from the NaN/Inf codes.
    std::uniform_int_distribution<uint32_t> code(0, t == ElemType::E4M3 ? 0x57
                                                                        : 0x4b);
    uint32_t c = code(rng) | (small(rng) < 0 ? 0x80 : 0);
    return {c, miniValue(t, c)};
  }
  default: {
    unsigned bits = typeBits(t);
    std::uniform_int_distribution<uint32_t> code(0, (1u << bits) - 1);
    uint32_t c = code(rng);
    return {c, miniValue(t, c)};
  }
  }
}

//===----------------------------------------------------------------------===//
// Shared-memory placement (PTX canonical layouts, K-major, in bytes)
//===----------------------------------------------------------------------===//

/// Byte `kb` of row `r` of a K-major tile of `rows` rows without swizzle:
/// 8 x 16-byte core matrices, the ones of a K chunk stacked along MN
/// (SBO = 128), K chunks LBO = rows / 8 * 128 apart.
uint32_t kOffset(uint32_t rows, uint32_t r, uint32_t kb) {
  return (r % 8) * 16 + (r / 8) * 128 + (kb / 16) * (rows / 8) * 128 + kb % 16;
}

/// The same for a 128-byte swizzled tile at a 1024-aligned base: 8 rows of
/// 128 bytes per atom (SBO = 1024), 16-byte units XORed with the row.
uint32_t kOffsetSw128(uint32_t r, uint32_t kb) {
  uint32_t off = (r / 8) * 1024 + (r % 8) * 128 + kb;
  return off ^ (((off >> 7) & 7) << 4);
}

uint64_t smemDesc(uint32_t start, uint32_t lbo, uint32_t sbo, Swizzle s) {
  umma::SmemDescFields f;
  f.startAddress = start;
  f.lboBytes = lbo;
  f.sboBytes = sbo;
  f.swizzle = s;
  std::string err;
  auto d = umma::encodeSmemDesc(f, &err);
  EXPECT_TRUE(d.has_value()) << err;
  return d ? *d : 0;
}

/// A logical M/N x K operand: codes and values.
struct Operand {
  ElemType t;
  uint32_t rows, k;
  std::vector<uint32_t> code;
  std::vector<double> val;
  uint32_t at(uint32_t r, uint32_t kk) const { return code[r * k + kk]; }
  double v(uint32_t r, uint32_t kk) const { return val[r * k + kk]; }
};

Operand randomOperand(ElemType t, uint32_t rows, uint32_t k, unsigned seed) {
  std::mt19937 rng(seed);
  Operand o{t, rows, k, {}, {}};
  for (uint32_t i = 0; i < rows * k; ++i) {
    auto [c, v] = randomElem(t, rng);
    o.code.push_back(c);
    o.val.push_back(v);
  }
  return o;
}

/// Writes `o` K-major into `img` at byte `base`: dense elements byte by
/// byte; 4-/6-bit elements in the padded form (PTX 5.5.1.1.1, .b4x16_p64 /
/// .b6x16_p32): each 16-byte unit holds 16 consecutive K elements packed
/// from bit 0, then zero padding.
void placeOperand(std::vector<uint8_t> &img, uint32_t base, const Operand &o,
                  bool sw128) {
  const unsigned bits = typeBits(o.t);
  auto at = [&](uint32_t r, uint32_t kb) {
    return base + (sw128 ? kOffsetSw128(r, kb) : kOffset(o.rows, r, kb));
  };
  for (uint32_t r = 0; r < o.rows; ++r) {
    if (bits >= 8) {
      for (uint32_t kk = 0; kk < o.k; ++kk)
        for (unsigned b = 0; b < bits / 8; ++b)
          img[at(r, kk * bits / 8 + b)] =
              static_cast<uint8_t>(o.at(r, kk) >> (8 * b));
      continue;
    }
    for (uint32_t chunk = 0; chunk < o.k / 16; ++chunk) {
      uint8_t unit[16] = {};
      for (uint32_t j = 0; j < 16; ++j) {
        uint32_t c = o.at(r, chunk * 16 + j);
        for (unsigned b = 0; b < bits; ++b)
          if ((c >> b) & 1) {
            unsigned bit = j * bits + b;
            unit[bit / 8] |= uint8_t(1u << (bit % 8));
          }
      }
      for (uint32_t b = 0; b < 16; ++b)
        img[at(r, chunk * 16 + b)] = unit[b];
    }
  }
}

//===----------------------------------------------------------------------===//
// The kernel
//===----------------------------------------------------------------------===//

std::string regs(const char *p, unsigned first, unsigned n) {
  std::string s = "{";
  for (unsigned i = 0; i < n; ++i)
    s += (i ? ", %" : "%") + std::string(p) + std::to_string(first + i);
  return s + "}";
}

/// One CTA of 128 threads: copies `smemBytes` of `img` into shared memory,
/// warp 0 allocates all 512 TMEM columns, every thread runs `before` (with
/// %r8 = the TMEM base, %r6 = warp, %rd20 = asrc + 64 tid: 16 words per
/// lane), thread 0 runs `issue` (with %rd9 / %rd11 the A / B descriptors
/// based at `smem`, %r13 idesc, %rd15 zcm, %p5 false, %p6 true) and
/// commits; then lane L's TMEM columns 0..cols-1 go to out[L * cols ..].
std::string kernel(uint32_t smemBytes, const std::string &before,
                   const std::string &issue, uint32_t cols) {
  std::string s =
      ".version 8.8\n.target sm_100a\n.address_size 64\n"
      ".shared .align 1024 .b8 smem[" +
      std::to_string(smemBytes) +
      "];\n.shared .align 8 .b64 bar;\n.shared .align 4 .b32 slot;\n"
      ".visible .entry k(.param .u64 out, .param .u64 img, .param .u64 asrc,"
      " .param .u64 ad, .param .u64 bd, .param .u32 idesc, .param .u64 zcm)\n"
      "{\n  .reg .pred %p<8>;\n  .reg .b32 %r<64>;\n  .reg .b64 %rd<32>;\n"
      "  .reg .b32 %v<8>;\n  .reg .b32 %a<16>;\n"
      "  ld.param.u64 %rd1, [out];\n  ld.param.u64 %rd2, [img];\n"
      "  ld.param.u64 %rd20, [asrc];\n"
      "  mov.u32 %r0, %tid.x;\n  shr.u32 %r6, %r0, 5;\n"
      "  mul.wide.u32 %rd21, %r0, 64;\n  add.s64 %rd20, %rd20, %rd21;\n"
      "  shl.b32 %r1, %r0, 2;\n  mov.u32 %r3, smem;\n"
      "COPY:\n  setp.ge.u32 %p1, %r1, " +
      std::to_string(smemBytes) +
      ";\n  @%p1 bra COPIED;\n"
      "  cvt.u64.u32 %rd4, %r1;\n  add.s64 %rd5, %rd2, %rd4;\n"
      "  ld.global.u32 %r2, [%rd5];\n  add.u32 %r4, %r3, %r1;\n"
      "  st.shared.u32 [%r4], %r2;\n  add.u32 %r1, %r1, 512;\n  bra COPY;\n"
      "COPIED:\n  fence.proxy.async.shared::cta;\n  setp.ne.u32 %p2, %r6, 0;\n  @%p2 bra ALLOCATED;\n"
      "  mov.u32 %r7, slot;\n"
      "  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r7], 512;\n"
      "  tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n"
      "ALLOCATED:\n  setp.ne.u32 %p3, %r0, 0;\n  @%p3 bra INITED;\n"
      "  mbarrier.init.shared.b64 [bar], 1;\nINITED:\n  bar.sync 0;\n"
      "  tcgen05.fence::after_thread_sync;\n  ld.shared.b32 %r8, [slot];\n" +
      before +
      "  tcgen05.fence::before_thread_sync;\n  bar.sync 0;\n"
      "  tcgen05.fence::after_thread_sync;\n  @%p3 bra ISSUED;\n"
      "  mov.u32 %r12, smem;\n  shr.u32 %r12, %r12, 4;\n"
      "  cvt.u64.u32 %rd8, %r12;\n"
      "  ld.param.u64 %rd9, [ad];\n  add.s64 %rd9, %rd9, %rd8;\n"
      "  ld.param.u64 %rd11, [bd];\n  add.s64 %rd11, %rd11, %rd8;\n"
      "  ld.param.u32 %r13, [idesc];\n  ld.param.u64 %rd15, [zcm];\n"
      "  setp.ne.u32 %p5, 0, 0;\n  setp.eq.u32 %p6, 0, 0;\n" +
      issue +
      "  tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster"
      ".b64 [bar];\nISSUED:\n"
      "WAIT:\n  mbarrier.try_wait.parity.shared.b64 %p7, [bar], 0;\n"
      "  @!%p7 bra WAIT;\n  tcgen05.fence::after_thread_sync;\n"
      "  shl.b32 %r16, %r6, 21;\n  add.u32 %r17, %r8, %r16;\n"
      "  mul.wide.u32 %rd13, %r0, " +
      std::to_string(cols * 4) + ";\n  add.s64 %rd14, %rd1, %rd13;\n";
  for (uint32_t c = 0; c < cols; c += 8) {
    s += "  add.u32 %r19, %r17, " + std::to_string(c) +
         ";\n  tcgen05.ld.sync.aligned.32x32b.x8.b32 " + regs("v", 0, 8) +
         ", [%r19];\n  tcgen05.wait::ld.sync.aligned;\n"
         "  st.global.v4.u32 [%rd14+" +
         std::to_string(4 * c) + "], {%v0, %v1, %v2, %v3};\n" +
         "  st.global.v4.u32 [%rd14+" + std::to_string(4 * c + 16) +
         "], {%v4, %v5, %v6, %v7};\n";
  }
  s += "  tcgen05.fence::before_thread_sync;\n  bar.sync 0;\n"
       "  @%p2 bra END;\n"
       "  tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r8, 512;\n"
       "END:\n  ret;\n}\n";
  return s;
}

/// `before` snippet: each thread stores its 16 asrc words into its lane,
/// columns col..col+15 (lane 32 warp + lane of warp).
std::string storeLaneWords(uint32_t col) {
  std::string s;
  for (unsigned i = 0; i < 16; ++i)
    s += "  ld.global.u32 %a" + std::to_string(i) + ", [%rd20+" +
         std::to_string(4 * i) + "];\n";
  s += "  shl.b32 %r20, %r6, 21;\n  add.u32 %r21, %r8, %r20;\n"
       "  add.u32 %r21, %r21, " +
       std::to_string(col) +
       ";\n  tcgen05.st.sync.aligned.32x32b.x16.b32 [%r21], " +
       regs("a", 0, 16) + ";\n  tcgen05.wait::st.sync.aligned;\n";
  return s;
}

struct Launch {
  std::vector<uint8_t> img; ///< shared-memory image
  std::vector<uint32_t> laneWords = std::vector<uint32_t>(128 * 16, 0);
  uint64_t ad = 0, bd = 0, zcm = 0;
  uint32_t idesc = 0;
};

/// Runs the kernel; on success fills out (128 lanes x cols words).
std::string run(const Launch &l, const std::string &before,
                const std::string &issue, uint32_t cols,
                std::vector<uint32_t> &out, uint64_t *mmas = nullptr) {
  Machine mach;
  auto mod = mach.loadPTX(
      kernel(static_cast<uint32_t>(l.img.size()), before, issue, cols),
      "tcgen05.ptx");
  if (!mod)
    return mod.message();
  auto k = (*mod)->kernel("k");
  if (!k)
    return k.message();
  uint64_t dOut = *mach.allocate(size_t(128) * cols * 4);
  uint64_t dImg = *mach.allocate(l.img.size());
  (void)mach.write(dImg, l.img.data(), l.img.size());
  uint64_t dA = *mach.allocate(l.laneWords.size() * 4);
  (void)mach.write(dA, l.laneWords.data(), l.laneWords.size() * 4);
  ParamBuilder p(**k);
  (void)p.addU64(dOut);
  (void)p.addU64(dImg);
  (void)p.addU64(dA);
  (void)p.addU64(l.ad);
  (void)p.addU64(l.bd);
  (void)p.addU32(l.idesc);
  (void)p.addU64(l.zcm);
  LaunchConfig cfg;
  cfg.block = Dim3(128);
  cfg.params = *p.take();
  if (Error e = mach.launch(**k, cfg))
    return e.message();
  if (mmas)
    *mmas = mach.lastStats().mmas;
  out.resize(size_t(128) * cols);
  (void)mach.read(dOut, out.data(), out.size() * 4);
  return "";
}

uint32_t idescOf(MmaKind kind, ElemType a, ElemType b, ElemType d, uint32_t m,
                 uint32_t n, bool ws) {
  umma::InstrDescFields f;
  f.kind = kind;
  f.a = a;
  f.b = b;
  f.d = d;
  f.m = m;
  f.n = n;
  f.weightStationary = ws;
  std::string err;
  auto id = umma::encodeInstrDesc(f, &err);
  EXPECT_TRUE(id.has_value()) << err;
  return id ? *id : 0;
}

float asFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

constexpr uint32_t kPoison = 0x7FBADBADu; // never-written TMEM

//===----------------------------------------------------------------------===//
// tcgen05.mma.ws
//===----------------------------------------------------------------------===//

struct WsCase {
  const char *name;
  MmaKind kind;
  ElemType t;
  uint32_t m, n;
  bool aTmem = false;
};

/// The TMEM cell of D[m][n] for .ws (PTX data path layouts G "1x4", E
/// "2x2", D "4x1"): N splits into 128 / M groups of N M / 128 columns,
/// group g in lanes g M .. g M + M - 1.
std::pair<uint32_t, uint32_t> wsCell(uint32_t M, uint32_t N, uint32_t m,
                                     uint32_t n) {
  uint32_t cols = N * M / 128;
  return {m + M * (n / cols), n % cols};
}

/// Two chained .ws MMAs over the same A and B (the second accumulates):
/// D = 2 A B^T.
std::string runWs(const WsCase &c, const std::string &quals = "") {
  const unsigned K = umma::mmaK(c.kind);
  const unsigned eb = typeBits(c.t) / 8;
  Operand A = randomOperand(c.t, c.m, K, 11 + c.m + c.n);
  Operand B = randomOperand(c.t, c.n, K, 5 + c.n);
  const uint32_t aBytes = c.m * K * eb, bBase = (aBytes + 1023) / 1024 * 1024;
  Launch l;
  l.img.assign(bBase + c.n * K * eb, 0);
  placeOperand(l.img, 0, A, false);
  placeOperand(l.img, bBase, B, false);
  l.ad = smemDesc(0, c.m / 8 * 128, 128, Swizzle::None);
  l.bd = smemDesc(bBase, c.n / 8 * 128, 128, Swizzle::None);
  const ElemType d = c.kind == MmaKind::I8 ? ElemType::S32 : ElemType::F32;
  l.idesc = idescOf(c.kind, c.t, c.t, d, c.m, c.n, true);
  const uint32_t aCol = 256;
  std::string before, aOperand = "%rd9";
  if (c.aTmem) {
    // A row m in lanes m + g M of every lane group g (each data path lane
    // reads its own copy), K-packed into 32-bit cells from column 256.
    const unsigned words = K * typeBits(c.t) / 32;
    for (uint32_t lane = 0; lane < 128; ++lane)
      for (uint32_t kk = 0; kk < K; ++kk) {
        unsigned bits = typeBits(c.t), per = 32 / bits;
        l.laneWords[lane * 16 + kk / per] |=
            (A.at(lane % c.m, kk) & (bits == 32 ? ~0u : (1u << bits) - 1))
            << (bits * (kk % per));
      }
    (void)words;
    before = storeLaneWords(aCol);
    aOperand = "[%r30]";
  }
  std::string mma = "  tcgen05.mma.ws.cta_group::1.kind::" +
                    std::string(umma::stringify(c.kind)) + quals + " ";
  std::string issue =
      (c.aTmem ? "  add.u32 %r30, %r8, " + std::to_string(aCol) + ";\n" : "") +
      mma + "[%r8], " + aOperand + ", %rd11, %r13, %p5;\n" + mma + "[%r8], " +
      aOperand + ", %rd11, %r13, %p6;\n";
  const uint32_t cols = c.n * c.m / 128;
  std::vector<uint32_t> out;
  uint64_t mmas = 0;
  std::string e = run(l, before, issue, cols + 8, out, &mmas);
  if (!e.empty())
    return e;
  if (mmas != 2)
    return "expected 2 MMAs, got " + std::to_string(mmas);
  std::vector<bool> seen(size_t(128) * cols, false);
  for (uint32_t m = 0; m < c.m; ++m)
    for (uint32_t n = 0; n < c.n; ++n) {
      double ref = 0;
      for (uint32_t kk = 0; kk < K; ++kk)
        ref += A.v(m, kk) * B.v(n, kk);
      ref *= 2;
      auto [lane, col] = wsCell(c.m, c.n, m, n);
      seen[lane * cols + col] = true;
      uint32_t bits = out[lane * (cols + 8) + col];
      double got =
          d == ElemType::S32 ? double(int32_t(bits)) : double(asFloat(bits));
      if (d != ElemType::S32)
        ref = float(ref);
      if (got != ref)
        return std::string(c.name) + ": D[" + std::to_string(m) + "][" +
               std::to_string(n) + "] at lane " + std::to_string(lane) +
               " column " + std::to_string(col) + " = " + std::to_string(got) +
               ", expected " + std::to_string(ref);
    }
  // The layout covers every lane and exactly cols columns.
  for (uint32_t lane = 0; lane < 128; ++lane) {
    for (uint32_t col = 0; col < cols; ++col)
      if (!seen[lane * cols + col])
        return "lane " + std::to_string(lane) + " column " +
               std::to_string(col) + " holds no element of D";
    if (out[lane * (cols + 8) + cols] != kPoison)
      return "column " + std::to_string(cols) + " of lane " +
             std::to_string(lane) + " was written";
  }
  return "";
}

void PrintTo(const WsCase &c, std::ostream *os) { *os << c.name; }

class WsLayouts : public ::testing::TestWithParam<WsCase> {};

TEST_P(WsLayouts, DataPathLayout) { EXPECT_EQ(runWs(GetParam()), ""); }

const WsCase kWsCases[] = {
    {"f16_m32_n64", MmaKind::F16, ElemType::BF16, 32, 64},
    {"f16_m64_n128", MmaKind::F16, ElemType::BF16, 64, 128},
    {"f16_m128_n64", MmaKind::F16, ElemType::BF16, 128, 64},
    {"tf32_m32_n256", MmaKind::TF32, ElemType::TF32, 32, 256},
    {"tf32_m64_n64", MmaKind::TF32, ElemType::TF32, 64, 64},
    {"f8f6f4_m32_n128", MmaKind::F8F6F4, ElemType::E4M3, 32, 128},
    {"f8f6f4_m128_n256", MmaKind::F8F6F4, ElemType::E4M3, 128, 256},
    {"i8_m64_n256", MmaKind::I8, ElemType::S8, 64, 256},
    {"i8_m32_n64", MmaKind::I8, ElemType::S8, 32, 64},
    {"ts_f16_m32_n64", MmaKind::F16, ElemType::BF16, 32, 64, true},
    {"ts_f16_m64_n64", MmaKind::F16, ElemType::BF16, 64, 64, true},
    {"ts_tf32_m128_n128", MmaKind::TF32, ElemType::TF32, 128, 128, true},
};

INSTANTIATE_TEST_SUITE_P(Tcgen05Ws, WsLayouts, ::testing::ValuesIn(kWsCases),
                         [](const auto &info) {
                           return std::string(info.param.name);
                         });

TEST(Tcgen05WsTest, CollectorQualifiersDoNotChangeResults) {
  // The collector buffer only lets the tensor core skip a reload of B; the
  // results are those of reading B each time.
  for (const char *q : {".collector::b0::fill", ".collector::b1::use",
                        ".collector::b2::lastuse", ".collector::b3::discard"})
    EXPECT_EQ(runWs({"collector", MmaKind::F16, ElemType::BF16, 32, 64}, q), "")
        << q;
}

TEST(Tcgen05WsTest, ParsesCollectorBuffers) {
  auto mod =
      parseModule(".version 8.8\n.target sm_100a\n.address_size 64\n"
                  ".visible .entry k()\n{\n  .reg .b32 %r<4>;\n"
                  "  .reg .b64 %rd<4>;\n  .reg .pred %p<2>;\n"
                  "  tcgen05.mma.ws.cta_group::1.kind::i8.collector::b2::"
                  "lastuse [%r1], [%r2], %rd1, %r3, %p1;\n  ret;\n}\n",
                  "p.ptx");
  ASSERT_TRUE(bool(mod)) << mod.message();
  const ptx::Instruction &in = (*mod)->functions[0].body[0];
  EXPECT_TRUE(in.has(ptx::ModId::Ws));
  EXPECT_EQ(in.value(ptx::ModId::CollectorB, -1),
            2 * 4 + ptx::CollectorLastuse);
}

TEST(Tcgen05WsTest, AInTensorMemoryMustBeDuplicatedPerLaneGroup) {
  // .ws M = 32 with A only in lanes 0..31: the lane group of D columns
  // 16..31 (lanes 32..63) reads A from its own lanes, never written.
  const unsigned K = 16;
  Operand A = randomOperand(ElemType::BF16, 32, K, 1);
  Operand B = randomOperand(ElemType::BF16, 64, K, 2);
  Launch l;
  l.img.assign(1024 + 64 * K * 2, 0);
  placeOperand(l.img, 1024, B, false);
  l.bd = smemDesc(1024, 64 / 8 * 128, 128, Swizzle::None);
  l.idesc = idescOf(MmaKind::F16, ElemType::BF16, ElemType::BF16, ElemType::F32,
                    32, 64, true);
  std::string before = "  setp.ne.u32 %p4, %r6, 0;\n  @%p4 bra STORED;\n" +
                       storeLaneWords(256) + "STORED:\n";
  std::vector<uint32_t> out;
  std::string e =
      run(l, before,
          "  add.u32 %r30, %r8, 256;\n"
          "  tcgen05.mma.ws.cta_group::1.kind::f16 [%r8], [%r30], %rd11, %r13, "
          "%p5;\n",
          16, out);
  EXPECT_NE(e.find("reads its A operand from TMEM lane 32 column 256, which "
                   "was never written (.ws with M = 32 reads A in each lane "
                   "group of D: A must be duplicated into lanes 32..63)"),
            std::string::npos)
      << e;
}

//===----------------------------------------------------------------------===//
// Zero-column mask descriptor (PTX 9.7.16.4.3)
//===----------------------------------------------------------------------===//

/// The descriptor from the fields of the ISA's example tables.
uint64_t zcmDesc(std::array<unsigned, 4> sc, std::array<unsigned, 4> fs,
                 bool nonZero, unsigned skip, unsigned use, unsigned shift) {
  uint64_t d = 0;
  for (unsigned i = 0; i < 4; ++i) {
    d |= uint64_t(sc[i] & 0xff) << (8 * i);
    d |= uint64_t(fs[i] & 1) << (32 + i);
  }
  return d | uint64_t(nonZero) << 39 | uint64_t(skip) << 40 |
         uint64_t(use) << 48 | uint64_t(shift) << 56;
}

/// Bits [lo, lo + width) of the mask as a string, most significant first,
/// like the ISA writes them.
std::string maskBits(const uint64_t (&mask)[4], uint32_t lo, uint32_t width) {
  std::string s;
  for (uint32_t i = width; i-- > 0;)
    s += (mask[(lo + i) / 64] >> ((lo + i) % 64)) & 1 ? '1' : '0';
  return s;
}

/// The low bits of an ISA example mask "0b ... 111 0000 111 0000": the
/// example lists them most significant first.
bool endsWith(const std::string &s, const std::string &tail) {
  return s.size() >= tail.size() &&
         s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

TEST(ZeroColumnMaskTest, IsaExamples) {
  uint64_t mask[4];
  // Example 1: M = 128, Non-Zero Mask 0: no column is zeroed.
  auto f = umma::decodeZeroColumnMask(
      zcmDesc({0, 0, 0, 0}, {0, 0, 0, 0}, false, 4, 3, 0));
  ASSERT_TRUE(f.has_value());
  umma::zeroColumnMask(*f, 128, 256, mask);
  EXPECT_EQ(mask[0] | mask[1] | mask[2] | mask[3], 0u);
  // Example 2: M = 128, fs0 0, skip 2, use 3: mask0 = 0b...111 0000 111 0000.
  f = umma::decodeZeroColumnMask(
      zcmDesc({0, 0, 0, 0}, {0, 0, 0, 0}, true, 2, 3, 0));
  umma::zeroColumnMask(*f, 128, 64, mask);
  EXPECT_TRUE(endsWith(maskBits(mask, 0, 64), "1110000"
                                              "1110000"))
      << maskBits(mask, 0, 64);
  // Example 3: M = 64, fs = {1, 0}: mask0 = ...111 0000 111 0000 111,
  // mask1 = ...0000 111 0000 111 0000, each N/2 bits.
  f = umma::decodeZeroColumnMask(
      zcmDesc({0, 0, 0, 0}, {1, 0, 0, 0}, true, 2, 3, 0));
  umma::zeroColumnMask(*f, 64, 128, mask);
  EXPECT_TRUE(endsWith(maskBits(mask, 0, 64), "111"
                                              "0000111"
                                              "0000111"))
      << maskBits(mask, 0, 64);
  EXPECT_TRUE(endsWith(maskBits(mask, 64, 64), "0000"
                                               "1110000"
                                               "1110000"))
      << maskBits(mask, 64, 64);
  // Example 4: M = 32, sc = {0, 1, 2, 1}, fs = {1, 1, 0, 0}, shift 2.
  f = umma::decodeZeroColumnMask(
      zcmDesc({0, 1, 2, 1}, {1, 1, 0, 0}, true, 2, 3, 2));
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->columnShift, 2u);
  umma::zeroColumnMask(*f, 32, 128, mask);
  EXPECT_TRUE(endsWith(maskBits(mask, 0, 32), "0000111"
                                              "0000111"))
      << maskBits(mask, 0, 32);
  EXPECT_TRUE(endsWith(maskBits(mask, 32, 32), "0000111"
                                               "000011"))
      << maskBits(mask, 32, 32);
  EXPECT_TRUE(endsWith(maskBits(mask, 64, 32), "111"
                                               "0000111"
                                               "00"))
      << maskBits(mask, 64, 32);
  EXPECT_TRUE(endsWith(maskBits(mask, 96, 32), "111"
                                               "0000111"
                                               "000"))
      << maskBits(mask, 96, 32);
}

TEST(ZeroColumnMaskTest, ReservedBits) {
  std::string err;
  EXPECT_FALSE(umma::decodeZeroColumnMask(uint64_t(1) << 37, &err));
  EXPECT_NE(err.find("reserved bits 36-38"), std::string::npos) << err;
  EXPECT_FALSE(umma::decodeZeroColumnMask(uint64_t(1) << 63, &err));
  EXPECT_NE(err.find("bits 62-63"), std::string::npos) << err;
}

TEST(ZeroColumnMaskTest, MmaWsZeroesColumnsAndShifts) {
  // M = 64, N = 64 with example 3's mask and a column shift of 2: D column
  // n is the product with B column n + 2, or 0 where the mask has a 1.
  const uint32_t M = 64, N = 64, K = 16, bRows = 72; // N + 2, whole 8s
  Operand A = randomOperand(ElemType::BF16, M, K, 3);
  Operand B = randomOperand(ElemType::BF16, bRows, K, 4);
  Launch l;
  l.img.assign(4096 + bRows * K * 2, 0);
  placeOperand(l.img, 0, A, false);
  placeOperand(l.img, 4096, B, false);
  l.ad = smemDesc(0, M / 8 * 128, 128, Swizzle::None);
  l.bd = smemDesc(4096, bRows / 8 * 128, 128, Swizzle::None);
  l.idesc = idescOf(MmaKind::F16, ElemType::BF16, ElemType::BF16, ElemType::F32,
                    M, N, true);
  l.zcm = zcmDesc({0, 0, 0, 0}, {1, 0, 0, 0}, true, 2, 3, 2);
  // The mask of example 3 for N = 64: sub-mask i covers 32 columns and
  // starts with a run of fs_i; runs of 1s are 3 long, of 0s 4 long.
  auto zeroed = [](uint32_t n) {
    uint32_t j = n % 32;
    bool fs = n < 32;
    uint32_t first = fs ? 3 : 4, p = j % 7;
    return p < first ? fs : !fs;
  };
  std::vector<uint32_t> out;
  ASSERT_EQ(run(l, "",
                "  tcgen05.mma.ws.cta_group::1.kind::f16 [%r8], %rd9, %rd11, "
                "%r13, %p5, %rd15;\n",
                32, out),
            "");
  unsigned zeros = 0;
  for (uint32_t m = 0; m < M; ++m)
    for (uint32_t n = 0; n < N; ++n) {
      double ref = 0;
      if (!zeroed(n))
        for (uint32_t kk = 0; kk < K; ++kk)
          ref += A.v(m, kk) * B.v(n + 2, kk);
      else
        ++zeros;
      auto [lane, col] = wsCell(M, N, m, n);
      ASSERT_EQ(asFloat(out[lane * 32 + col]), float(ref))
          << "D[" << m << "][" << n << "]";
    }
  EXPECT_EQ(zeros, M * (3 + 3 + 3 + 3 + 3 + 3 + 3 + 3 + 3));
}

TEST(ZeroColumnMaskTest, ShiftLimit) {
  // Column shift 17 > 16 for M = 32.
  Launch l;
  l.img.assign(8192, 0);
  l.ad = smemDesc(0, 512, 128, Swizzle::None);
  l.bd = smemDesc(1024, 1024, 128, Swizzle::None);
  l.idesc = idescOf(MmaKind::F16, ElemType::BF16, ElemType::BF16, ElemType::F32,
                    32, 64, true);
  l.zcm = zcmDesc({0, 0, 0, 0}, {0, 0, 0, 0}, false, 0, 0, 17);
  std::vector<uint32_t> out;
  std::string e = run(l, "",
                      "  tcgen05.mma.ws.cta_group::1.kind::f16 [%r8], %rd9, "
                      "%rd11, %r13, %p5, %rd15;\n",
                      8, out);
  EXPECT_NE(e.find("column shift 17 exceeds 16 for M = 32"), std::string::npos)
      << e;
}

//===----------------------------------------------------------------------===//
// kind::f8f6f4 with the padded 6- and 4-bit types
//===----------------------------------------------------------------------===//

struct PaddedCase {
  const char *name;
  ElemType a, b;
  bool sw128;
  bool ws = false;
};

std::string runPadded(const PaddedCase &c) {
  const uint32_t M = c.ws ? 32 : 128, N = 64, K = 32;
  Operand A = randomOperand(c.a, M, K, 21);
  Operand B = randomOperand(c.b, N, K, 22);
  Launch l;
  // One byte per element: rows of 32 bytes; a 128B-swizzled tile takes a
  // 1024-byte atom per 8 rows.
  const uint32_t aBytes = c.sw128 ? M / 8 * 1024 : M * K;
  const uint32_t bBytes = c.sw128 ? N / 8 * 1024 : N * K;
  const uint32_t bBase = (aBytes + 1023) / 1024 * 1024;
  l.img.assign(bBase + bBytes, 0);
  placeOperand(l.img, 0, A, c.sw128);
  placeOperand(l.img, bBase, B, c.sw128);
  if (c.sw128) {
    l.ad = smemDesc(0, 16, 1024, Swizzle::B128);
    l.bd = smemDesc(bBase, 16, 1024, Swizzle::B128);
  } else {
    l.ad = smemDesc(0, M / 8 * 128, 128, Swizzle::None);
    l.bd = smemDesc(bBase, N / 8 * 128, 128, Swizzle::None);
  }
  l.idesc = idescOf(MmaKind::F8F6F4, c.a, c.b, ElemType::F32, M, N, c.ws);
  const uint32_t cols = c.ws ? N * M / 128 : N;
  std::vector<uint32_t> out;
  std::string e = run(l, "",
                      std::string("  tcgen05.mma") + (c.ws ? ".ws" : "") +
                          ".cta_group::1.kind::f8f6f4 [%r8], %rd9, %rd11, "
                          "%r13, %p5;\n",
                      cols, out);
  if (!e.empty())
    return e;
  for (uint32_t m = 0; m < M; ++m)
    for (uint32_t n = 0; n < N; ++n) {
      double ref = 0;
      for (uint32_t kk = 0; kk < K; ++kk)
        ref += A.v(m, kk) * B.v(n, kk);
      auto [lane, col] =
          c.ws ? wsCell(M, N, m, n) : std::pair<uint32_t, uint32_t>{m, n};
      double got = asFloat(out[lane * cols + col]);
      if (got != double(float(ref)))
        return std::string(c.name) + ": D[" + std::to_string(m) + "][" +
               std::to_string(n) + "] = " + std::to_string(got) +
               ", expected " + std::to_string(ref);
    }
  return "";
}

void PrintTo(const PaddedCase &c, std::ostream *os) { *os << c.name; }

class PaddedF8F6F4 : public ::testing::TestWithParam<PaddedCase> {};

TEST_P(PaddedF8F6F4, MatchesFloat64) { EXPECT_EQ(runPadded(GetParam()), ""); }

const PaddedCase kPaddedCases[] = {
    {"e2m1_x_e2m1", ElemType::E2M1, ElemType::E2M1, false},
    {"e2m3_x_e3m2", ElemType::E2M3, ElemType::E3M2, false},
    {"e3m2_x_e2m1_sw128", ElemType::E3M2, ElemType::E2M1, true},
    {"e2m1_x_e4m3_sw128", ElemType::E2M1, ElemType::E4M3, true},
    {"e5m2_x_e2m3", ElemType::E5M2, ElemType::E2M3, false},
    {"ws_e2m3_x_e2m1", ElemType::E2M3, ElemType::E2M1, false, true},
};

INSTANTIATE_TEST_SUITE_P(Tcgen05, PaddedF8F6F4,
                         ::testing::ValuesIn(kPaddedCases),
                         [](const auto &info) {
                           return std::string(info.param.name);
                         });

TEST(PaddedF8F6F4Test, MnMajorSubByteOperandIsAnError) {
  Launch l;
  l.img.assign(8192, 0);
  l.ad = smemDesc(0, 2048, 128, Swizzle::None);
  l.bd = smemDesc(4096, 1024, 128, Swizzle::None);
  umma::InstrDescFields f;
  f.kind = MmaKind::F8F6F4;
  f.a = ElemType::E4M3;
  f.b = ElemType::E2M1;
  f.m = 128;
  f.n = 64;
  f.bMajor = Major::MN;
  l.idesc = *umma::encodeInstrDesc(f);
  std::vector<uint32_t> out;
  std::string e = run(l, "",
                      "  tcgen05.mma.cta_group::1.kind::f8f6f4 [%r8], %rd9, "
                      "%rd11, %r13, %p5;\n",
                      8, out);
  EXPECT_NE(e.find("an e2m1 B operand must be K-major"), std::string::npos)
      << e;
}

//===----------------------------------------------------------------------===//
// tcgen05.cp: decompression and .4x256b
//===----------------------------------------------------------------------===//

/// A K-major no-swizzle matrix of `rows` x 16 bytes per chunk whose
/// 16-byte chunks hold 16 packed `bits`-wide codes (then padding), code j
/// of chunk (r, ch) being `code(r, ch, j)`.
uint32_t codeOf(uint32_t r, uint32_t ch, uint32_t j, unsigned bits) {
  return (r * 7 + ch * 5 + j * 3 + 1) & ((1u << bits) - 1);
}

std::vector<uint8_t> packedImage(uint32_t rows, uint32_t chunks,
                                 unsigned bits) {
  std::vector<uint8_t> img(4096, 0);
  for (uint32_t r = 0; r < rows; ++r)
    for (uint32_t ch = 0; ch < chunks; ++ch) {
      uint8_t unit[16] = {};
      for (uint32_t j = 0; j < 16; ++j)
        for (unsigned b = 0; b < bits; ++b)
          if ((codeOf(r, ch, j, bits) >> b) & 1)
            unit[(j * bits + b) / 8] |= uint8_t(1u << ((j * bits + b) % 8));
      // Padding bytes hold garbage: decompression must ignore them.
      for (uint32_t b = (16 * bits + 7) / 8; b < 16; ++b)
        unit[b] = 0xa5;
      for (uint32_t b = 0; b < 16; ++b)
        img[kOffset(rows, r, ch * 16 + b)] = unit[b];
    }
  return img;
}

/// The TMEM word `col` of a decompressed row: bytes 4 col .. 4 col + 3 of
/// the row's 8-bit containers, e2m1 in bits [5:2], 6-bit types in [5:0]
/// (PTX 9.7.14.5.14 for the 8-bit containers of these kinds).
uint32_t decompressedWord(uint32_t r, uint32_t col, unsigned bits) {
  uint32_t v = 0;
  for (uint32_t b = 0; b < 4; ++b) {
    uint32_t byte = 4 * col + b, c = codeOf(r, byte / 16, byte % 16, bits);
    v |= (bits == 4 ? c << 2 : c) << (8 * b);
  }
  return v;
}

TEST(Tcgen05CpTest, Decompress6BitTo8Bit128x256b) {
  Launch l;
  l.img = packedImage(128, 2, 6);
  l.ad = smemDesc(0, 128 / 8 * 128, 128, Swizzle::None);
  std::vector<uint32_t> out;
  ASSERT_EQ(run(l, "",
                "  tcgen05.cp.cta_group::1.128x256b.b8x16.b6x16_p32 [%r8], "
                "%rd9;\n",
                8, out),
            "");
  for (uint32_t lane = 0; lane < 128; ++lane)
    for (uint32_t col = 0; col < 8; ++col)
      ASSERT_EQ(out[lane * 8 + col], decompressedWord(lane, col, 6))
          << lane << " " << col;
}

TEST(Tcgen05CpTest, Decompress4BitTo8Bit32x128bWarpx4) {
  Launch l;
  l.img = packedImage(32, 1, 4);
  l.ad = smemDesc(0, 32 / 8 * 128, 128, Swizzle::None);
  std::vector<uint32_t> out;
  ASSERT_EQ(run(l, "",
                "  tcgen05.cp.cta_group::1.32x128b.warpx4.b8x16.b4x16_p64 "
                "[%r8], %rd9;\n",
                8, out),
            "");
  for (uint32_t lane = 0; lane < 128; ++lane)
    for (uint32_t col = 0; col < 8; ++col)
      ASSERT_EQ(out[lane * 8 + col],
                col < 4 ? decompressedWord(lane % 32, col, 4) : kPoison)
          << lane << " " << col;
}

TEST(Tcgen05CpTest, Shape4x256bOneRowPerSubpartition) {
  // Four rows of 32 bytes; the address names lane 5: row r lands in lane
  // 32 r + 5, 8 columns.
  Launch l;
  l.img.assign(4096, 0);
  for (uint32_t r = 0; r < 4; ++r)
    for (uint32_t b = 0; b < 32; ++b)
      l.img[kOffset(8, r, b)] = static_cast<uint8_t>(r * 40 + b);
  l.ad = smemDesc(0, 128, 128, Swizzle::None);
  std::vector<uint32_t> out;
  ASSERT_EQ(run(l, "",
                "  add.u32 %r30, %r8, 0x50000;\n"
                "  tcgen05.cp.cta_group::1.4x256b [%r30], %rd9;\n",
                8, out),
            "");
  for (uint32_t lane = 0; lane < 128; ++lane)
    for (uint32_t col = 0; col < 8; ++col) {
      uint32_t want = kPoison;
      if (lane % 32 == 5) {
        uint32_t r = lane / 32;
        want = 0;
        for (uint32_t b = 0; b < 4; ++b)
          want |= uint32_t(r * 40 + 4 * col + b) << (8 * b);
      }
      ASSERT_EQ(out[lane * 8 + col], want) << lane << " " << col;
    }
  // A lane beyond the first subpartition is an error.
  std::string e = run(l, "",
                      "  add.u32 %r30, %r8, 0x200000;\n"
                      "  tcgen05.cp.cta_group::1.4x256b [%r30], %rd9;\n",
                      8, out);
  EXPECT_NE(e.find("of a .4x256b copy must name a lane in 0..31"),
            std::string::npos)
      << e;
}

/// The launch of the decompression tests: e2m1 A (M = 128, K = 32) packed
/// at shared offset 0 for a decompressing tcgen05.cp, e2m3 B (N = 64) in
/// its padded form at 8192, a kind::f8f6f4 descriptor.
struct DecompressCase {
  static constexpr uint32_t M = 128, N = 64, K = 32;
  Operand A = randomOperand(ElemType::E2M1, M, K, 31);
  Operand B = randomOperand(ElemType::E2M3, N, K, 32);
  Launch l;
  DecompressCase() {
    l.img.assign(8192 + N * K, 0);
    placeOperand(l.img, 0, A, false);
    placeOperand(l.img, 8192, B, false);
    l.ad = smemDesc(0, M / 8 * 128, 128, Swizzle::None);
    l.bd = smemDesc(8192, N / 8 * 128, 128, Swizzle::None);
    l.idesc = idescOf(MmaKind::F8F6F4, ElemType::E2M1, ElemType::E2M3,
                      ElemType::F32, M, N, false);
  }
};

TEST(Tcgen05CpTest, DecompressedAFeedsF8F6F4Mma) {
  // The ISA's intended chain: e2m1 A packed in shared memory, copied with
  // decompression into TMEM (8-bit containers), used by kind::f8f6f4 with
  // A from TMEM; B e2m3 in its padded shared-memory form.
  DecompressCase c;
  const uint32_t M = c.M, N = c.N, K = c.K;
  const Operand &A = c.A, &B = c.B;
  Launch &l = c.l;
  std::vector<uint32_t> out;
  ASSERT_EQ(run(l, "",
                "  add.u32 %r30, %r8, 256;\n"
                "  tcgen05.cp.cta_group::1.128x256b.b8x16.b4x16_p64 [%r30], "
                "%rd9;\n"
                "  tcgen05.mma.cta_group::1.kind::f8f6f4 [%r8], [%r30], %rd11, "
                "%r13, %p5;\n",
                N, out),
            "");
  for (uint32_t m = 0; m < M; ++m)
    for (uint32_t n = 0; n < N; ++n) {
      double ref = 0;
      for (uint32_t kk = 0; kk < K; ++kk)
        ref += A.v(m, kk) * B.v(n, kk);
      ASSERT_EQ(asFloat(out[m * N + n]), float(ref)) << m << " " << n;
    }
}

TEST(Tcgen05CpTest, CopyOverAPendingMmasOperandIsARace) {
  // tcgen05.cp -> tcgen05.mma is a tcgen05 pipeline, tcgen05.mma ->
  // tcgen05.cp is not (PTX ISA 9.7.16.6.2): a copy into TMEM columns that
  // an MMA issued before it (and not known complete) reads may land first.
  // The block-scaled GEMM refills its scale-factor buffers this way and
  // waits on a commit first (lib/Dialect/NVFP4/Transforms/
  // LowerScaledMatmul.cpp).
  DecompressCase c;
  const uint32_t N = c.N;
  Launch &l = c.l;
  const std::string copyThenMma =
      "  add.u32 %r30, %r8, 256;\n"
      "  tcgen05.cp.cta_group::1.128x256b.b8x16.b4x16_p64 [%r30], %rd9;\n"
      "  tcgen05.mma.cta_group::1.kind::f8f6f4 [%r8], [%r30], %rd11, %r13, "
      "%p5;\n";
  std::vector<uint32_t> out;
  std::string e =
      run(l, "",
          copyThenMma +
              "  tcgen05.cp.cta_group::1.128x256b.b8x16.b4x16_p64 [%r30], "
              "%rd9;\n",
          N, out);
  EXPECT_NE(e.find("race: this tcgen05.cp writes tensor-memory columns "
                   "256..263"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("is not a tcgen05 pipeline"), std::string::npos) << e;
  // A copy into other columns is not.
  EXPECT_EQ(run(l, "",
                copyThenMma +
                    "  add.u32 %r31, %r8, 320;\n"
                    "  tcgen05.cp.cta_group::1.128x256b.b8x16.b4x16_p64 "
                    "[%r31], %rd9;\n",
                N, out),
            "");
}

//===----------------------------------------------------------------------===//
// Verifier-style errors
//===----------------------------------------------------------------------===//

/// Loads `inst` in a kernel and returns Kernel::unsupported()'s text (the
/// decoder's message for a malformed instruction).
std::string decodeError(const std::string &inst) {
  Machine mach;
  auto mod = mach.loadPTX(".version 8.8\n.target sm_100a\n.address_size 64\n"
                          ".visible .entry k()\n{\n  .reg .b32 %r<8>;\n"
                          "  .reg .b64 %rd<8>;\n  .reg .pred %p<2>;\n  " +
                              inst + "\n  ret;\n}\n",
                          "e.ptx");
  if (!mod)
    return mod.message();
  auto k = (*mod)->kernel("k");
  if (!k)
    return k.message();
  std::string all;
  for (const auto &u : (*k)->unsupported())
    all += u + "\n";
  return all;
}

TEST(Tcgen05ErrorsTest, DecoderRejectsBadForms) {
  struct {
    const char *inst, *msg;
  } cases[] = {
      {"tcgen05.mma.ws.cta_group::2.kind::f16 [%r1], %rd1, %rd2, %r2, %p1;",
       ".ws requires .cta_group::1, got .cta_group::2"},
      {"tcgen05.mma.ws.cta_group::1.kind::mxf8f6f4.block_scale [%r1], %rd1, "
       "%rd2, %r2, [%r3], [%r4], %p1;",
       ".ws is not allowed with .kind::mxf8f6f4"},
      {"tcgen05.mma.ws.cta_group::1.kind::f16.collector::b4::fill [%r1], "
       "%rd1, %rd2, %r2, %p1;",
       "collector buffer b4 does not exist"},
      {"tcgen05.mma.cta_group::1.kind::f16.collector::b0::fill [%r1], %rd1, "
       "%rd2, %r2, %p1;",
       ".collector::bN is only allowed with .ws"},
      {"tcgen05.mma.ws.cta_group::1.kind::f16.collector::a::fill [%r1], %rd1, "
       "%rd2, %r2, %p1;",
       ".ws takes .collector::bN::op"},
      {"tcgen05.mma.ws.cta_group::1.kind::f16.collector::b0::fill."
       "collector::b1::use [%r1], %rd1, %rd2, %r2, %p1;",
       "more than one .collector qualifier"},
      {"tcgen05.mma.ws.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r2, "
       "{%r3, %r4, %r5, %r6}, %p1;",
       ".ws takes no disable-output-lane"},
      {"tcgen05.mma.ws.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r2, %p1, "
       "%rd3, 1;",
       "takes 5 to 6 operands, found 7"},
      {"tcgen05.cp.cta_group::1.128x256b.b6x16_p32 [%r1], %rd1;",
       "decompression takes the destination format .b8x16"},
      {"tcgen05.cp.cta_group::1.4x256b.warpx4 [%r1], %rd1;",
       "the shape and multicast do not match"},
  };
  for (const auto &c : cases) {
    std::string e = decodeError(c.inst);
    EXPECT_NE(e.find(c.msg), std::string::npos) << c.inst << "\n" << e;
  }
}

TEST(Tcgen05ErrorsTest, InstructionDescriptorShapeChecks) {
  // .ws N = 72 (the .ws shapes are N = 64, 128, 256), M = 32 without .ws,
  // and max_shift without .ws.
  Launch l;
  l.img.assign(8192, 0);
  l.ad = smemDesc(0, 512, 128, Swizzle::None);
  l.bd = smemDesc(4096, 1024, 128, Swizzle::None);
  struct {
    const char *ws;
    uint32_t idesc;
    const char *msg;
  } cases[] = {
      {".ws",
       idescOf(MmaKind::F16, ElemType::BF16, ElemType::BF16, ElemType::F32, 64,
               64, true) +
           (((72u >> 3) - (64u >> 3)) << 17),
       "expected N in {64, 128, 256} for kind::f16 with .ws, got 72"},
      {"",
       idescOf(MmaKind::F16, ElemType::BF16, ElemType::BF16, ElemType::F32, 32,
               64, true),
       "expected M in {64, 128} for kind::f16 with cta_group::1, got 32"},
      {"",
       idescOf(MmaKind::F16, ElemType::BF16, ElemType::BF16, ElemType::F32, 128,
               64, true) |
           (1u << 30),
       "expected max_shift 0 without .ws, got 1"},
  };
  for (const auto &c : cases) {
    l.idesc = c.idesc;
    std::vector<uint32_t> out;
    std::string e = run(l, "",
                        std::string("  tcgen05.mma") + c.ws +
                            ".cta_group::1.kind::f16 [%r8], %rd9, %rd11, "
                            "%r13, %p5;\n",
                        8, out);
    EXPECT_NE(e.find(c.msg), std::string::npos) << e;
  }
}

} // namespace
