//===- MmaM64Test.cpp - tcgen05.mma with M = 64 (data path layout F) ------===//
//
// tcgen05.mma with M = 64, cta_group::1, not .ws: PTX ISA 9.7.16.10.5
// ("Data Path Layout Organization") gives it layout F, "4x1 (1/2 datapath
// utilized)", with a tensor-memory lane alignment of 0 or 16, the same for
// A (in tensor memory) and D. These tests place every operand with their
// own loops, written from the ISA and independently of lib/Emulator:
//  - D row m, column n at TMEM lane 32 (m / 16) + m % 16 + a, column
//    d + n, where a (0 or 16) is the lane of the D address: rows 0-15 in
//    the first half (a = 0) or second half (a = 16) of subpartition 0,
//    rows 16-31 in subpartition 1, and so on;
//  - A in tensor memory: row m in the same lane as D's row m, element k in
//    column c + k / (32 / bits), bits [bits (k % (32 / bits)), ...) of the
//    32-bit cell (K-major, packed low to high);
//  - A and B in shared memory: the K-major canonical layout without
//    swizzle (8-row x 16-byte core matrices, SBO = 128 between 8-row
//    groups, LBO = rows / 8 * 128 between 16-byte K chunks).
// Inputs are random with full mantissas (bf16, f16, tf32, e4m3, e5m2, s8)
// over a limited exponent range so that every sum is exact in double; the
// expected D is the f32 (or s32) rounding of that exact sum. The TMEM
// cells outside D are filled with a per-cell sentinel (a NaN) and must come
// back unchanged: the other half of every subpartition, i.e. a second
// accumulator sharing the columns, is never disturbed.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "nvfp4/Emulator/Machine.h"
#include "nvfp4/Support/UMMADescriptors.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <ostream>
#include <random>

using namespace nvfp4::emu;
namespace umma = nvfp4::umma;
using umma::ElemType;
using umma::MmaKind;

namespace {

//===----------------------------------------------------------------------===//
// Random elements with full mantissas
//===----------------------------------------------------------------------===//

unsigned bitsOf(ElemType t) {
  switch (t) {
  case ElemType::BF16:
  case ElemType::F16:
    return 16;
  case ElemType::TF32:
    return 32;
  default:
    return 8;
  }
}

/// A random element of `t`: its code and its exact value. Exponents stay in
/// [-6, 5] (e4m3: every finite code; e5m2: [-11, 5]) so that the K
/// products and C sum exactly in double.
std::pair<uint32_t, double> randomElem(ElemType t, std::mt19937 &rng) {
  std::uniform_int_distribution<int> expo(-6, 5);
  std::uniform_int_distribution<uint32_t> bit(0, 1);
  const uint32_t sign = bit(rng);
  const double s = sign ? -1.0 : 1.0;
  switch (t) {
  case ElemType::BF16: { // 1-8-7, bias 127
    int e = expo(rng);
    uint32_t mant = std::uniform_int_distribution<uint32_t>(0, 127)(rng);
    return {sign << 15 | uint32_t(127 + e) << 7 | mant,
            s * std::ldexp(1.0 + mant / 128.0, e)};
  }
  case ElemType::F16: { // 1-5-10, bias 15
    int e = expo(rng);
    uint32_t mant = std::uniform_int_distribution<uint32_t>(0, 1023)(rng);
    return {sign << 15 | uint32_t(15 + e) << 10 | mant,
            s * std::ldexp(1.0 + mant / 1024.0, e)};
  }
  case ElemType::TF32: { // an f32 word whose low 13 mantissa bits are zero
    int e = expo(rng);
    uint32_t mant = std::uniform_int_distribution<uint32_t>(0, 1023)(rng);
    return {sign << 31 | uint32_t(127 + e) << 23 | mant << 13,
            s * std::ldexp(1.0 + mant / 1024.0, e)};
  }
  case ElemType::E4M3: { // 1-4-3, bias 7; S.1111.111 is NaN
    uint32_t mag = std::uniform_int_distribution<uint32_t>(0, 0x7e)(rng);
    uint32_t e = mag >> 3, m = mag & 7;
    double v =
        e ? std::ldexp(1.0 + m / 8.0, int(e) - 7) : std::ldexp(m / 8.0, -6);
    return {sign << 7 | mag, s * v};
  }
  case ElemType::E5M2: { // 1-5-2, bias 15; exponents [-11, 5] here
    uint32_t e = std::uniform_int_distribution<uint32_t>(4, 20)(rng);
    uint32_t m = std::uniform_int_distribution<uint32_t>(0, 3)(rng);
    return {sign << 7 | e << 2 | m, s * std::ldexp(1.0 + m / 4.0, int(e) - 15)};
  }
  default: { // S8
    int v = std::uniform_int_distribution<int>(-128, 127)(rng);
    return {uint32_t(v) & 0xff, double(v)};
  }
  }
}

/// A logical rows x K operand (row-major codes and values).
struct Operand {
  uint32_t rows = 0, k = 0;
  std::vector<uint32_t> code;
  std::vector<double> val;
  uint32_t at(uint32_t r, uint32_t kk) const { return code[r * k + kk]; }
  double v(uint32_t r, uint32_t kk) const { return val[r * k + kk]; }
};

Operand randomOperand(ElemType t, uint32_t rows, uint32_t k, unsigned seed) {
  std::mt19937 rng(seed);
  Operand o;
  o.rows = rows;
  o.k = k;
  for (uint32_t i = 0; i < rows * k; ++i) {
    auto [c, v] = randomElem(t, rng);
    o.code.push_back(c);
    o.val.push_back(v);
  }
  return o;
}

/// Writes `o` (elements of `bits`) K-major without swizzle at byte `base`:
/// byte kb of row r at (r % 8) 16 + (r / 8) 128 + (kb / 16) (rows / 8) 128
/// + kb % 16 (SBO = 128, LBO = rows / 8 * 128).
void placeKMajor(std::vector<uint8_t> &img, uint32_t base, const Operand &o,
                 unsigned bits) {
  for (uint32_t r = 0; r < o.rows; ++r)
    for (uint32_t kk = 0; kk < o.k; ++kk)
      for (unsigned b = 0; b < bits / 8; ++b) {
        uint32_t kb = kk * bits / 8 + b;
        uint32_t off = (r % 8) * 16 + (r / 8) * 128 +
                       (kb / 16) * (o.rows / 8) * 128 + kb % 16;
        img[base + off] = static_cast<uint8_t>(o.at(r, kk) >> (8 * b));
      }
}

uint64_t smemDesc(uint32_t start, uint32_t rows) {
  umma::SmemDescFields f;
  f.startAddress = start;
  f.lboBytes = rows / 8 * 128;
  f.sboBytes = 128;
  f.swizzle = umma::Swizzle::None;
  std::string err;
  auto d = umma::encodeSmemDesc(f, &err);
  EXPECT_TRUE(d.has_value()) << err;
  return d ? *d : 0;
}

uint32_t idescOf(MmaKind kind, ElemType a, ElemType b, uint32_t m, uint32_t n,
                 bool ws = false) {
  umma::InstrDescFields f;
  f.kind = kind;
  f.a = a;
  f.b = b;
  f.d = kind == MmaKind::I8 ? ElemType::S32 : ElemType::F32;
  f.m = m;
  f.n = n;
  f.weightStationary = ws;
  std::string err;
  auto id = umma::encodeInstrDesc(f, &err);
  EXPECT_TRUE(id.has_value()) << err;
  return id ? *id : 0;
}

//===----------------------------------------------------------------------===//
// The tiling of layout F, written from the ISA
//===----------------------------------------------------------------------===//

/// TMEM lane of row m (0..63) of an M = 64 operand at lane alignment a.
uint32_t laneOfRow(uint32_t m, uint32_t a) {
  uint32_t subpartition = m / 16, rowInGroup = m % 16;
  return subpartition * 32 + a + rowInGroup;
}

/// The sentinel prefilled into TMEM lane l, column c: a distinct NaN.
uint32_t sentinel(uint32_t l, uint32_t c) {
  return 0x7FC00000u | (l << 10) | c;
}

float asFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

uint32_t asBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

//===----------------------------------------------------------------------===//
// The kernel
//===----------------------------------------------------------------------===//

constexpr uint32_t kCols = 512; ///< words per lane in `pre` and `out`

std::string regs(const char *p, unsigned n) {
  std::string s = "{";
  for (unsigned i = 0; i < n; ++i)
    s += (i ? ", %" : "%") + std::string(p) + std::to_string(i);
  return s + "}";
}

/// The default epilogue: wait on bar0, then every warp copies TMEM lanes of
/// its quadrant, columns 0..cols-1 (a multiple of 8), to out[lane][col]
/// with 32x32b loads.
std::string readAll(uint32_t cols) {
  std::string s = "  mov.u32 %r40, bar0;\nWAIT0:\n"
                  "  mbarrier.try_wait.parity.shared.b64 %p7, [%r40], 0;\n"
                  "  @!%p7 bra WAIT0;\n  tcgen05.fence::after_thread_sync;\n"
                  "  shl.b32 %r16, %r6, 21;\n  add.u32 %r17, %r8, %r16;\n"
                  "  mul.wide.u32 %rd13, %r0, " +
                  std::to_string(kCols * 4) +
                  ";\n  add.s64 %rd14, %rd1, %rd13;\n";
  for (uint32_t c = 0; c < cols; c += 8)
    s += "  add.u32 %r19, %r17, " + std::to_string(c) +
         ";\n  tcgen05.ld.sync.aligned.32x32b.x8.b32 " + regs("v", 8) +
         ", [%r19];\n  tcgen05.wait::ld.sync.aligned;\n"
         "  st.global.v4.u32 [%rd14+" +
         std::to_string(4 * c) +
         "], {%v0, %v1, %v2, %v3};\n  st.global.v4.u32 [%rd14+" +
         std::to_string(4 * c + 16) + "], {%v4, %v5, %v6, %v7};\n";
  return s;
}

/// One CTA of 128 threads. Shared memory gets `img`; warp 0 allocates all
/// 512 TMEM columns; every thread of warps 0..preWarps-1 stores
/// pre[tid][0 .. preCols) into its TMEM lane (tid = 32 warp + lane of
/// warp) with 32x32b stores; thread 0
/// runs `issue` with %r8 = TMEM base, %rd9 / %rd10 the A descriptors,
/// %rd11 / %rd12 the B descriptors (based at smem), %r13 idesc, %r14
/// idesc2, %p5 false, %p6 true, %r41 / %r42 = bar0 / bar1; then every
/// thread runs `epilogue` (%r0 tid, %r6 warp, %rd1 out).
std::string kernel(uint32_t smemBytes, uint32_t preCols, uint32_t preWarps,
                   const std::string &issue, const std::string &epilogue) {
  std::string s =
      ".version 8.8\n.target sm_100a\n.address_size 64\n"
      ".shared .align 1024 .b8 smem[" +
      std::to_string(smemBytes) +
      "];\n.shared .align 8 .b64 bar0;\n.shared .align 8 .b64 bar1;\n"
      ".shared .align 4 .b32 slot;\n"
      ".visible .entry k(.param .u64 out, .param .u64 img, .param .u64 pre,"
      " .param .u64 ad0, .param .u64 ad1, .param .u64 bd0, .param .u64 bd1,"
      " .param .u32 idesc, .param .u32 idesc2)\n"
      "{\n  .reg .pred %p<8>;\n  .reg .b32 %r<64>;\n  .reg .b64 %rd<32>;\n"
      "  .reg .b32 %v<8>;\n  .reg .b32 %a<16>;\n"
      "  ld.param.u64 %rd1, [out];\n  ld.param.u64 %rd2, [img];\n"
      "  ld.param.u64 %rd20, [pre];\n"
      "  mov.u32 %r0, %tid.x;\n  shr.u32 %r6, %r0, 5;\n"
      "  mul.wide.u32 %rd21, %r0, " +
      std::to_string(kCols * 4) +
      ";\n  add.s64 %rd20, %rd20, %rd21;\n"
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
      "  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r7], 512;\n"
      "  tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n"
      "ALLOCATED:\n  setp.ne.u32 %p3, %r0, 0;\n  @%p3 bra INITED;\n"
      "  mbarrier.init.shared.b64 [bar0], 1;\n"
      "  mbarrier.init.shared.b64 [bar1], 1;\nINITED:\n  bar.sync 0;\n"
      "  tcgen05.fence::after_thread_sync;\n  ld.shared.b32 %r8, [slot];\n"
      "  shl.b32 %r20, %r6, 21;\n  add.u32 %r21, %r8, %r20;\n"
      "  setp.ge.u32 %p4, %r6, " +
      std::to_string(preWarps) + ";\n  @%p4 bra PRESTORED;\n";
  for (uint32_t c = 0; c < preCols; c += 16) {
    for (unsigned i = 0; i < 16; ++i)
      s += "  ld.global.u32 %a" + std::to_string(i) + ", [%rd20+" +
           std::to_string(4 * (c + i)) + "];\n";
    s += "  add.u32 %r22, %r21, " + std::to_string(c) +
         ";\n  tcgen05.st.sync.aligned.32x32b.x16.b32 [%r22], " +
         regs("a", 16) + ";\n";
  }
  s += "  tcgen05.wait::st.sync.aligned;\nPRESTORED:\n"
       "  tcgen05.fence::before_thread_sync;\n  bar.sync 0;\n"
       "  tcgen05.fence::after_thread_sync;\n  @%p3 bra ISSUED;\n"
       "  mov.u32 %r12, smem;\n  shr.u32 %r12, %r12, 4;\n"
       "  cvt.u64.u32 %rd8, %r12;\n"
       "  ld.param.u64 %rd9, [ad0];\n  add.s64 %rd9, %rd9, %rd8;\n"
       "  ld.param.u64 %rd10, [ad1];\n  add.s64 %rd10, %rd10, %rd8;\n"
       "  ld.param.u64 %rd11, [bd0];\n  add.s64 %rd11, %rd11, %rd8;\n"
       "  ld.param.u64 %rd12, [bd1];\n  add.s64 %rd12, %rd12, %rd8;\n"
       "  ld.param.u32 %r13, [idesc];\n  ld.param.u32 %r14, [idesc2];\n"
       "  mov.u32 %r41, bar0;\n  mov.u32 %r42, bar1;\n"
       "  setp.ne.u32 %p5, 0, 0;\n  setp.eq.u32 %p6, 0, 0;\n" +
       issue + "ISSUED:\n" + epilogue +
       "  tcgen05.fence::before_thread_sync;\n  bar.sync 0;\n"
       "  @%p2 bra END;\n"
       "  tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r8, 512;\n"
       "END:\n  ret;\n}\n";
  return s;
}

/// Commits to bar0 (%r41) or bar1 (%r42).
std::string commit(int bar) {
  return "  tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster"
         ".b64 [%r4" +
         std::to_string(1 + bar) + "];\n";
}

/// `add.u32 reg, %r8, <lane << 16 | col>`: a TMEM address.
std::string tmemAddr(const char *reg, uint32_t lane, uint32_t col) {
  return "  add.u32 " + std::string(reg) + ", %r8, " +
         std::to_string(lane << 16 | col) + ";\n";
}

struct Launch {
  std::vector<uint8_t> img = std::vector<uint8_t>(1024, 0);
  /// pre[lane * kCols + col]: what the kernel stores into TMEM first.
  std::vector<uint32_t> pre = std::vector<uint32_t>(128 * kCols, 0);
  uint32_t preCols = 0, preWarps = 4;
  uint64_t ad[2] = {}, bd[2] = {};
  uint32_t idesc[2] = {};
};

/// Runs the kernel; on success fills out (128 lanes x kCols words). Errors
/// (launch faults) come back as the message.
std::string run(const Launch &l, const std::string &issue,
                const std::string &epilogue, std::vector<uint32_t> &out,
                uint64_t *mmas = nullptr) {
  Machine mach;
  auto mod = mach.loadPTX(kernel(static_cast<uint32_t>(l.img.size()), l.preCols,
                                 l.preWarps, issue, epilogue),
                          "m64.ptx");
  if (!mod)
    return mod.message();
  auto k = (*mod)->kernel("k");
  if (!k)
    return k.message();
  uint64_t dOut = *mach.allocate(size_t(128) * kCols * 4);
  uint64_t dImg = *mach.allocate(l.img.size());
  (void)mach.write(dImg, l.img.data(), l.img.size());
  uint64_t dPre = *mach.allocate(l.pre.size() * 4);
  (void)mach.write(dPre, l.pre.data(), l.pre.size() * 4);
  ParamBuilder p(**k);
  (void)p.addU64(dOut);
  (void)p.addU64(dImg);
  (void)p.addU64(dPre);
  (void)p.addU64(l.ad[0]);
  (void)p.addU64(l.ad[1]);
  (void)p.addU64(l.bd[0]);
  (void)p.addU64(l.bd[1]);
  (void)p.addU32(l.idesc[0]);
  (void)p.addU32(l.idesc[1]);
  LaunchConfig cfg;
  cfg.block = Dim3(128);
  cfg.mmaNumerics = MmaNumerics::Exact;
  cfg.params = *p.take();
  if (Error e = mach.launch(**k, cfg))
    return e.message();
  if (mmas)
    *mmas = mach.lastStats().mmas;
  out.assign(size_t(128) * kCols, 0);
  (void)mach.read(dOut, out.data(), out.size() * 4);
  return "";
}

bool has(const std::string &s, const std::string &what) {
  return s.find(what) != std::string::npos;
}

//===----------------------------------------------------------------------===//
// One M = 64 MMA at lane alignment 0 or 16
//===----------------------------------------------------------------------===//

struct M64Case {
  const char *name;
  MmaKind kind;
  ElemType a, b;
  uint32_t n;
};

void PrintTo(const M64Case &c, std::ostream *os) { *os << c.name; }

constexpr uint32_t kACol = 256; ///< A's TMEM column when A is in TMEM

/// K of one MMA: 256 bits of A per row (PTX Table 39: 16 for f16, 8 for
/// tf32, 32 for the 8-bit kinds).
uint32_t kOf(MmaKind kind) {
  return kind == MmaKind::F16 ? 16 : kind == MmaKind::TF32 ? 8 : 32;
}

/// The A operand `a` in TMEM at lane alignment `align`, column kACol,
/// into pre[].
void placeATmem(Launch &l, const Operand &a, unsigned bits, uint32_t align) {
  const unsigned per = 32 / bits;
  for (uint32_t m = 0; m < 64; ++m)
    for (uint32_t kk = 0; kk < a.k; ++kk) {
      uint32_t &w = l.pre[laneOfRow(m, align) * kCols + kACol + kk / per];
      if (kk % per == 0)
        w = 0; // replace the sentinel
      w |= (bits == 32 ? a.at(m, kk) : a.at(m, kk) & ((1u << bits) - 1))
           << (bits * (kk % per));
    }
}

/// One MMA D[64 x N] (+)= A B^T with D at lane `align`, A in shared memory
/// or TMEM (at the same lane); checks every TMEM cell of columns
/// 0..kACol+8 in all 128 lanes.
std::string runOne(const M64Case &c, bool aTmem, uint32_t align,
                   bool accumulate) {
  const uint32_t M = 64, N = c.n, K = kOf(c.kind);
  const unsigned aBits = bitsOf(c.a), bBits = bitsOf(c.b);
  const unsigned seed = N * 7 + (aTmem ? 1 : 0) + align + (accumulate ? 3 : 0);
  Operand A = randomOperand(c.a, M, K, 100 + seed);
  Operand B = randomOperand(c.b, N, K, 200 + seed);
  Launch l;
  const uint32_t aBytes = M * K * aBits / 8;
  const uint32_t bBase = (aBytes + 1023) / 1024 * 1024;
  l.img.assign(bBase + N * K * bBits / 8, 0);
  placeKMajor(l.img, 0, A, aBits);
  placeKMajor(l.img, bBase, B, bBits);
  l.ad[0] = smemDesc(0, M);
  l.bd[0] = smemDesc(bBase, N);
  l.idesc[0] = idescOf(c.kind, c.a, c.b, M, N);
  // Every cell a sentinel; D's cells the accumulator C (random, full
  // mantissa; s32 for i8).
  l.preCols = kACol + 16;
  for (uint32_t lane = 0; lane < 128; ++lane)
    for (uint32_t col = 0; col < kCols; ++col)
      l.pre[lane * kCols + col] = sentinel(lane, col);
  std::mt19937 rng(300 + seed);
  std::vector<double> C(size_t(M) * N);
  for (uint32_t m = 0; m < M; ++m)
    for (uint32_t n = 0; n < N; ++n) {
      uint32_t &cell = l.pre[laneOfRow(m, align) * kCols + n];
      if (c.kind == MmaKind::I8) {
        int32_t v =
            std::uniform_int_distribution<int32_t>(-(1 << 20), 1 << 20)(rng);
        cell = uint32_t(v);
        C[m * N + n] = v;
      } else {
        float v = std::ldexp(1.0f + std::uniform_int_distribution<uint32_t>(
                                        0, (1u << 23) - 1)(rng) /
                                        float(1u << 23),
                             std::uniform_int_distribution<int>(-4, 4)(rng));
        if (rng() & 1)
          v = -v;
        cell = asBits(v);
        C[m * N + n] = v;
      }
    }
  std::string aOp = "%rd9", before;
  if (aTmem) {
    placeATmem(l, A, aBits, align);
    before = tmemAddr("%r31", align, kACol);
    aOp = "[%r31]";
  }
  const std::string issue =
      tmemAddr("%r30", align, 0) + before +
      "  tcgen05.mma.cta_group::1.kind::" + umma::stringify(c.kind) +
      " [%r30], " + aOp + ", %rd11, %r13, " + (accumulate ? "%p6" : "%p5") +
      ";\n" + commit(0);
  std::vector<uint32_t> out;
  uint64_t mmas = 0;
  std::string e = run(l, issue, readAll(kACol + 16), out, &mmas);
  if (!e.empty())
    return e;
  if (mmas != 1)
    return "expected 1 MMA, got " + std::to_string(mmas);
  // The expected TMEM: the prefill, with D's cells replaced.
  std::vector<uint32_t> want(l.pre);
  for (uint32_t m = 0; m < M; ++m)
    for (uint32_t n = 0; n < N; ++n) {
      double s = accumulate ? C[m * N + n] : 0.0;
      for (uint32_t kk = 0; kk < K; ++kk)
        s += A.v(m, kk) * B.v(n, kk);
      want[laneOfRow(m, align) * kCols + n] =
          c.kind == MmaKind::I8 ? uint32_t(int32_t(int64_t(s)))
                                : asBits(static_cast<float>(s));
    }
  for (uint32_t lane = 0; lane < 128; ++lane)
    for (uint32_t col = 0; col < kACol + 16; ++col) {
      uint32_t got = out[lane * kCols + col], exp = want[lane * kCols + col];
      if (got == exp)
        continue;
      char buf[200];
      std::snprintf(buf, sizeof buf,
                    "%s (A in %s, D at lane %u%s): TMEM lane %u column %u = "
                    "0x%08x (%g), expected 0x%08x (%g)",
                    c.name, aTmem ? "TMEM" : "shared memory", align,
                    accumulate ? ", accumulating" : "", lane, col, got,
                    double(asFloat(got)), exp, double(asFloat(exp)));
      return buf;
    }
  return "";
}

class M64Layouts : public ::testing::TestWithParam<M64Case> {};

TEST_P(M64Layouts, DAndAAtLane0And16) {
  const M64Case &c = GetParam();
  for (bool aTmem : {false, true})
    for (uint32_t align : {0u, 16u})
      for (bool acc : {true, false})
        EXPECT_EQ(runOne(c, aTmem, align, acc), "")
            << c.name << " aTmem=" << aTmem << " lane=" << align
            << " accumulate=" << acc;
}

const M64Case kM64Cases[] = {
    {"f16_bf16_n8", MmaKind::F16, ElemType::BF16, ElemType::BF16, 8},
    {"f16_bf16_n64", MmaKind::F16, ElemType::BF16, ElemType::BF16, 64},
    {"f16_f16_n120", MmaKind::F16, ElemType::F16, ElemType::F16, 120},
    {"f16_bf16_n256", MmaKind::F16, ElemType::BF16, ElemType::BF16, 256},
    {"tf32_n40", MmaKind::TF32, ElemType::TF32, ElemType::TF32, 40},
    {"f8f6f4_e4m3_e5m2_n48", MmaKind::F8F6F4, ElemType::E4M3, ElemType::E5M2,
     48},
    {"f8f6f4_e4m3_n256", MmaKind::F8F6F4, ElemType::E4M3, ElemType::E4M3, 256},
    {"i8_s8_n16", MmaKind::I8, ElemType::S8, ElemType::S8, 16},
    {"i8_s8_n96", MmaKind::I8, ElemType::S8, ElemType::S8, 96},
};

INSTANTIATE_TEST_SUITE_P(LayoutF, M64Layouts, ::testing::ValuesIn(kM64Cases),
                         [](const auto &info) {
                           return std::string(info.param.name);
                         });

//===----------------------------------------------------------------------===//
// Two accumulators sharing columns: lanes 0-15 and 16-31 of each quadrant
//===----------------------------------------------------------------------===//

/// The epilogue of the double-buffered decode shape: every warp waits on
/// bar0 and reads accumulator 0 (lanes 32 w + 0..15) with 16x256b loads
/// (or, `wide`, its whole quadrant with 32x32b, which also covers lanes of
/// accumulator 1), then waits on bar1 and reads accumulator 1 (lanes
/// 32 w + 16..31). Accumulator r, column c goes to out[(r 64 + m) kCols +
/// c] for the row m the lane holds.
std::string readBoth(uint32_t cols, bool wide) {
  std::string s = "  mul.wide.u32 %rd13, %r0, 4;\n  add.s64 %rd14, %rd1, "
                  "%rd13;\n  shl.b32 %r16, %r6, 21;\n  add.u32 %r17, %r8, "
                  "%r16;\n";
  // 16x256b (thread t, register j of an x1 load at lane base b, column
  // base c): lane b + t / 4 + 8 ((j % 4) / 2), column c + 2 (t % 4) + j % 2
  // (PTX 9.7.16.2.3.1, the 16x256b fragment: a 16-lane x 8-column tile
  // whose rows are split across thread quads). The output row for TMEM
  // lane b + i of warp w (accumulator r) is m = 16 w + i, stored at
  // out[(64 r + m) kCols + col].
  for (int r = 0; r < 2; ++r) {
    s += "  mov.u32 %r40, bar" + std::to_string(r) + ";\nWAITB" +
         std::to_string(r) +
         ":\n  mbarrier.try_wait.parity.shared.b64 %p7, [%r40], 0;\n"
         "  @!%p7 bra WAITB" +
         std::to_string(r) + ";\n  tcgen05.fence::after_thread_sync;\n";
    if (r == 0 && wide) {
      s += "  tcgen05.ld.sync.aligned.32x32b.x8.b32 " + regs("v", 8) +
           ", [%r17];\n  tcgen05.wait::ld.sync.aligned;\n";
      continue;
    }
    // %rd15 = out + 4 ((64 r + 16 w + t / 4) kCols + 2 (t % 4)).
    s += "  shr.u32 %r23, %r0, 2;\n  and.b32 %r23, %r23, 7;\n"
         "  shl.b32 %r24, %r6, 4;\n  add.u32 %r23, %r23, %r24;\n"
         "  add.u32 %r23, %r23, " +
         std::to_string(64 * r) + ";\n  mul.lo.u32 %r23, %r23, " +
         std::to_string(kCols) +
         ";\n  and.b32 %r25, %r0, 3;\n  shl.b32 %r25, %r25, 1;\n"
         "  add.u32 %r23, %r23, %r25;\n  mul.wide.u32 %rd16, %r23, 4;\n"
         "  add.s64 %rd15, %rd1, %rd16;\n";
    for (uint32_t c = 0; c < cols; c += 8) {
      s += "  add.u32 %r19, %r17, " + std::to_string((16 * r) << 16 | c) +
           ";\n  tcgen05.ld.sync.aligned.16x256b.x1.b32 " + regs("v", 4) +
           ", [%r19];\n  tcgen05.wait::ld.sync.aligned;\n"
           "  st.global.v2.u32 [%rd15+" +
           std::to_string(4 * c) +
           "], {%v0, %v1};\n  st.global.v2.u32 [%rd15+" +
           std::to_string(4 * (8 * kCols + c)) + "], {%v2, %v3};\n";
    }
  }
  return s;
}

/// Two bf16 MMAs, D0 at lane 0 and D1 at lane 16 of the same columns 0..N-1,
/// issued back to back (two pipelines whose lanes are disjoint), each with
/// its own A (shared memory, or TMEM at its own lane alignment, same
/// columns) and B; each accumulates onto its own C.
std::string runTwo(bool aTmem, bool wide, uint32_t N,
                   std::vector<uint32_t> *outp = nullptr) {
  const uint32_t M = 64, K = 16;
  Operand A[2], B[2];
  Launch l;
  const uint32_t opBytes = 1024 * ((std::max(M, N) * K * 2 + 1023) / 1024);
  l.img.assign(4 * opBytes, 0);
  for (int r = 0; r < 2; ++r) {
    A[r] = randomOperand(ElemType::BF16, M, K, 11 + r);
    B[r] = randomOperand(ElemType::BF16, N, K, 21 + r);
    placeKMajor(l.img, (2 * r) * opBytes, A[r], 16);
    placeKMajor(l.img, (2 * r + 1) * opBytes, B[r], 16);
    l.ad[r] = smemDesc((2 * r) * opBytes, M);
    l.bd[r] = smemDesc((2 * r + 1) * opBytes, N);
  }
  l.idesc[0] = l.idesc[1] =
      idescOf(MmaKind::F16, ElemType::BF16, ElemType::BF16, M, N);
  l.preCols = kACol + 16;
  std::mt19937 rng(5);
  std::vector<double> C(size_t(2) * M * N);
  for (uint32_t lane = 0; lane < 128; ++lane)
    for (uint32_t col = 0; col < kCols; ++col)
      l.pre[lane * kCols + col] = sentinel(lane, col);
  for (int r = 0; r < 2; ++r) {
    for (uint32_t m = 0; m < M; ++m)
      for (uint32_t n = 0; n < N; ++n) {
        float v = std::ldexp(1.0f + float(rng() % (1u << 23)) / (1u << 23),
                             int(rng() % 9) - 4);
        C[(r * M + m) * N + n] = v;
        l.pre[laneOfRow(m, 16 * r) * kCols + n] = asBits(v);
      }
    if (aTmem)
      placeATmem(l, A[r], 16, 16 * r);
  }
  std::string issue;
  for (int r = 0; r < 2; ++r) {
    issue += tmemAddr("%r30", 16 * r, 0);
    std::string aOp = r ? "%rd10" : "%rd9";
    if (aTmem) {
      issue += tmemAddr("%r31", 16 * r, kACol);
      aOp = "[%r31]";
    }
    issue += "  tcgen05.mma.cta_group::1.kind::f16 [%r30], " + aOp + ", " +
             (r ? "%rd12" : "%rd11") + ", %r13, %p6;\n" + commit(r);
  }
  std::vector<uint32_t> out;
  uint64_t mmas = 0;
  std::string e = run(l, issue, readBoth(N, wide), out, &mmas);
  if (!e.empty())
    return e;
  if (mmas != 2)
    return "expected 2 MMAs, got " + std::to_string(mmas);
  if (outp)
    *outp = out;
  for (int r = 0; r < 2; ++r)
    for (uint32_t m = 0; m < M; ++m)
      for (uint32_t n = 0; n < N; ++n) {
        double s = C[(r * M + m) * N + n];
        for (uint32_t kk = 0; kk < K; ++kk)
          s += A[r].v(m, kk) * B[r].v(n, kk);
        uint32_t exp = asBits(static_cast<float>(s));
        uint32_t got = out[(64 * r + m) * kCols + n];
        if (got != exp)
          return "accumulator " + std::to_string(r) + " D[" +
                 std::to_string(m) + "][" + std::to_string(n) +
                 "] = " + std::to_string(asFloat(got)) + ", expected " +
                 std::to_string(asFloat(exp));
      }
  return "";
}

TEST(MmaM64Test, TwoAccumulatorsShareColumnsNotLanes) {
  // The two MMAs are in different pipelines (different D addresses) and
  // are issued without a wait in between: legal, because their lanes are
  // disjoint. Each epilogue load touches only its accumulator's lanes.
  for (bool aTmem : {false, true})
    for (uint32_t n : {64u, 256u})
      EXPECT_EQ(runTwo(aTmem, false, n), "") << "aTmem=" << aTmem << " N=" << n;
}

TEST(MmaM64Test, ReadingBothHalvesWhileTheSecondMmaRunsIsARace) {
  // A 32x32b load of accumulator 0 after bar0 also reads lanes 16..31 of
  // each quadrant, which the second MMA (committed to bar1, not yet
  // waited for) writes: the sanitizer names both.
  std::string e = runTwo(false, true, 64);
  EXPECT_TRUE(has(e, "race: tcgen05.ld of TMEM lanes 32..63")) << e;
  EXPECT_TRUE(has(e, "tcgen05.mma.cta_group::1.kind::f16 [%r30], %rd10")) << e;
}

TEST(MmaM64Test, StoringIntoTheOtherHalfWhileTheMmaIsPending) {
  // The MMA writes accumulator 1 (lane 16) while warp 1 stores into lanes
  // 32..47 (accumulator 0's half of its quadrant) of the same columns: not
  // a race, the lanes are disjoint. Warp 1 stores after the issue (a named
  // barrier orders it), while the MMA is still pending.
  Launch l;
  l.img.assign(4096, 0);
  Operand A = randomOperand(ElemType::BF16, 64, 16, 3);
  Operand B = randomOperand(ElemType::BF16, 64, 16, 4);
  placeKMajor(l.img, 0, A, 16);
  placeKMajor(l.img, 2048, B, 16);
  l.ad[0] = smemDesc(0, 64);
  l.bd[0] = smemDesc(2048, 64);
  l.idesc[0] = idescOf(MmaKind::F16, ElemType::BF16, ElemType::BF16, 64, 64);
  l.preCols = 64;
  for (uint32_t lane = 0; lane < 128; ++lane)
    for (uint32_t col = 0; col < kCols; ++col)
      l.pre[lane * kCols + col] = sentinel(lane, col);
  const std::string epilogue =
      "  setp.eq.u32 %p4, %r6, 0;\n  @!%p4 bra NOTW0;\n"
      "  tcgen05.fence::before_thread_sync;\n  bar.arrive 1, 64;\nNOTW0:\n"
      "  setp.eq.u32 %p4, %r6, 1;\n  @!%p4 bra NOTW1;\n  bar.sync 1, 64;\n"
      "  tcgen05.fence::after_thread_sync;\n"
      "  mov.u32 %v0, 0x12345678;\n  mov.u32 %v1, 0x12345678;\n"
      "  mov.u32 %v2, 0x12345678;\n  mov.u32 %v3, 0x12345678;\n"
      "  add.u32 %r26, %r8, 2097152;\n"
      "  tcgen05.st.sync.aligned.16x256b.x1.b32 [%r26], " +
      regs("v", 4) + ";\n  tcgen05.wait::st.sync.aligned;\nNOTW1:\n" +
      readAll(64);
  std::vector<uint32_t> out;
  std::string e = run(l,
                      tmemAddr("%r30", 16, 0) +
                          "  tcgen05.mma.cta_group::1.kind::f16 [%r30], "
                          "%rd9, %rd11, %r13, %p5;\n" +
                          commit(0),
                      epilogue, out);
  ASSERT_EQ(e, "");
  for (uint32_t lane = 32; lane < 64; ++lane)
    for (uint32_t col = 0; col < 64; ++col) {
      uint32_t got = out[lane * kCols + col];
      if (lane >= 48) { // rows 16..31 of D
        uint32_t m = 16 + (lane - 48);
        double s = 0;
        for (uint32_t kk = 0; kk < 16; ++kk)
          s += A.v(m, kk) * B.v(col, kk);
        EXPECT_EQ(got, asBits(static_cast<float>(s)))
            << "lane " << lane << " column " << col;
      } else {
        EXPECT_EQ(got, col < 8 ? 0x12345678u : sentinel(lane, col))
            << "lane " << lane << " column " << col;
      }
    }
}

TEST(MmaM64Test, SameLanesOtherShapeIsStillAPipelineRace) {
  // Two M = 64 MMAs at lane 0 with different N share lanes and columns but
  // not a pipeline: the second needs a wait on the first's commit.
  Launch l;
  l.img.assign(4096, 0);
  l.ad[0] = smemDesc(0, 64);
  l.bd[0] = smemDesc(2048, 64);
  l.idesc[0] = idescOf(MmaKind::F16, ElemType::BF16, ElemType::BF16, 64, 64);
  l.idesc[1] = idescOf(MmaKind::F16, ElemType::BF16, ElemType::BF16, 64, 32);
  std::vector<uint32_t> out;
  std::string e =
      run(l,
          "  tcgen05.mma.cta_group::1.kind::f16 [%r8], %rd9, %rd11, %r13, "
          "%p5;\n"
          "  tcgen05.mma.cta_group::1.kind::f16 [%r8], %rd9, %rd11, %r14, "
          "%p5;\n" +
              commit(0),
          readAll(8), out);
  EXPECT_TRUE(has(e, "race: this tcgen05.mma shares tensor-memory columns"))
      << e;
}

//===----------------------------------------------------------------------===//
// What the ISA forbids
//===----------------------------------------------------------------------===//

/// Issues one bf16 MMA (M = `m`, N = 64; .ws when `ws`) with D at TMEM
/// lane `dLane` and, when aLane >= 0, A in TMEM at lane aLane (column
/// kACol); A's cells are prefilled at the layout-F lanes of alignment
/// `aPlaced` (or, when aPlaced < 0, row m at lane m for m < 64).
std::string runBad(uint32_t m, bool ws, uint32_t dLane, int aLane,
                   int aPlaced = 0) {
  Launch l;
  l.img.assign(4096, 0);
  Operand A = randomOperand(ElemType::BF16, m, 16, 1);
  Operand B = randomOperand(ElemType::BF16, 64, 16, 2);
  placeKMajor(l.img, 0, A, 16);
  placeKMajor(l.img, 2048, B, 16);
  l.ad[0] = smemDesc(0, m);
  l.bd[0] = smemDesc(2048, 64);
  l.idesc[0] = idescOf(MmaKind::F16, ElemType::BF16, ElemType::BF16, m, 64, ws);
  std::string aOp = "%rd9", before;
  if (aLane >= 0) {
    l.preCols = kACol + 16;
    if (aPlaced >= 0) {
      placeATmem(l, A, 16, uint32_t(aPlaced));
    } else {
      l.preWarps = 2; // lanes 0..63 only
      for (uint32_t r = 0; r < 64; ++r)
        for (uint32_t kk = 0; kk < 16; ++kk)
          l.pre[r * kCols + kACol + kk / 2] |= A.at(r, kk) << (16 * (kk % 2));
    }
    before = tmemAddr("%r31", uint32_t(aLane), kACol);
    aOp = "[%r31]";
  }
  std::vector<uint32_t> out;
  return run(l,
             tmemAddr("%r30", dLane, 0) + before + "  tcgen05.mma" +
                 (ws ? ".ws" : "") + ".cta_group::1.kind::f16 [%r30], " + aOp +
                 ", %rd11, %r13, %p5;\n" + commit(0),
             readAll(8), out);
}

TEST(MmaM64Test, DLaneMustBe0Or16) {
  for (uint32_t lane : {8u, 32u, 48u, 1u}) {
    std::string e = runBad(64, false, lane, -1);
    EXPECT_TRUE(has(
        e, "the D address 0x" +
               [&] {
                 char b[16];
                 std::snprintf(b, sizeof b, "%x", lane << 16);
                 return std::string(b);
               }() +
               " names lane " + std::to_string(lane)))
        << e;
    EXPECT_TRUE(has(e, "an M = 64 MMA (data path layout F, half the data "
                       "path) must start at lane 0 or 16"))
        << e;
    EXPECT_TRUE(has(e, "PTX ISA 9.7.16.10.5")) << e;
  }
}

TEST(MmaM64Test, OtherLayoutsMustStartAtLane0) {
  // M = 128 (layout D) and M = 64 .ws (layout E): alignment 0 only.
  std::string e = runBad(128, false, 16, -1);
  EXPECT_TRUE(has(e, "names lane 16, but the D operand of an M = 128 MMA "
                     "must start at lane 0"))
      << e;
  e = runBad(64, true, 16, -1);
  EXPECT_TRUE(has(e, "names lane 16, but the D operand of an M = 64 .ws MMA "
                     "must start at lane 0"))
      << e;
  e = runBad(128, false, 0, 16, 16);
  EXPECT_TRUE(has(e, "the A address 0x100100 names lane 16, but the A "
                     "operand in tensor memory of an M = 128 MMA must start "
                     "at lane 0"))
      << e;
}

TEST(MmaM64Test, AInTensorMemoryMustUseDsLaneAlignment) {
  // PTX ISA 9.7.16.10.5: layout F must use the same lane alignment for A
  // and D.
  std::string e = runBad(64, false, 16, 0, 0);
  EXPECT_TRUE(has(e, "the A address 0x100 names lane 0, but the A operand "
                     "in tensor memory of an M = 64 MMA (data path layout "
                     "F) must use the D address's lane alignment, lane 16"))
      << e;
  e = runBad(64, false, 0, 16, 16);
  EXPECT_TRUE(has(e, "names lane 16, but the A operand in tensor memory of "
                     "an M = 64 MMA (data path layout F) must use the D "
                     "address's lane alignment, lane 0"))
      << e;
  // Matching alignments run.
  EXPECT_EQ(runBad(64, false, 16, 16, 16), "");
  EXPECT_EQ(runBad(64, false, 0, 0, 0), "");
}

TEST(MmaM64Test, AInTensorMemoryPlacedRowPerLaneIsCaught) {
  // A placed as for M = 128 (row m at lane m): rows 32..63 belong in lanes
  // 64..79 and 96..111, which were never written.
  std::string e = runBad(64, false, 0, 0, -1);
  EXPECT_TRUE(has(e, "reads its A operand from TMEM lane 64 column 256, "
                     "which was never written (M = 64, data path layout F: "
                     "row 32 of A is read from lane 32 (m / 16) + m % 16 + "
                     "0, the lanes of D's row)"))
      << e;
}

} // namespace
