//===- Wgmma.cpp - Hopper warpgroup MMA (wgmma.*) -------------------------===//
//
// wgmma.fence / commit_group / wait_group and the dense forms of
// wgmma.mma_async (docs/Emulator.md, "wgmma").
//
// A warpgroup is 4 consecutive warps, the first with warp id % 4 == 0; warp
// w of the group owns rows 16 (w % 4) .. + 15 of the m64 tile. Each row of D
// depends only on the same row of A, so every warp computes its own 16 x N
// slice when it executes the instruction (all 32 lanes together, .aligned),
// reading A (shared memory or its register fragment) and B (shared memory)
// then. The four warps must issue the same sequence of wgmma.mma_async
// (same instruction, descriptors and scale-d): checked per CTA.
//
// Asynchrony: the results are kept in Warp::wgmma; the D registers hold the
// NaN kWgmmaPending from issue until a wgmma.wait_group retires the
// wgmma-group, which writes the results. Reading D in between computes with
// NaN; writing D or the A-fragment registers in between is a race error at
// the wait. A later wgmma.mma_async that accumulates into the registers of
// a pending one (the ISA's same-shape accumulator chaining) uses the pending
// result.
//
// Operand layouts:
//  - The GMMA shared-memory descriptor (PTX ISA "Matrix Descriptor Format"
//    of the asynchronous warpgroup-level matrix instructions): start address
//    bits 0-13, leading-dimension byte offset bits 16-29, stride-dimension
//    byte offset bits 32-45 (all >> 4), base offset bits 49-51, swizzle
//    bits 62-63 (0 none, 1 128B, 2 64B, 3 32B); the other bits are zero.
//    The canonical layouts and the swizzle are those of SmemLayout.h. A is
//    M x K, K-major unless imm-trans-a; B is N x K, K-major unless
//    imm-trans-b (the ISA's "A row-major, B column-major").
//  - Register fragments (PTX ISA "Register Fragments" figures of
//    wgmma.mma_async; lane = 4 g + t, rows relative to the warp's 16):
//      D element i (f32: register i; f16: half i % 2 of register i / 2):
//        row g + 8 ((i >> 1) & 1), column 8 (i >> 2) + 2 t + (i & 1)
//      A, 16-bit (4 registers, element i in half i % 2 of register i / 2):
//        row g + 8 ((i >> 1) & 1), k 2 t + (i & 1) + 8 (i >> 2)
//      A, tf32 (register i): row g + 8 (i & 1), k t + 4 (i >> 1)
//      A, 8-bit (element i in byte i % 4 of register i / 4):
//        row g + 8 ((i >> 2) & 1), k 4 t + (i & 3) + 16 (i >> 3)
//
// Arithmetic (docs/Emulator.md, "MMA accumulation"): an f32 accumulator of
// bf16, f16, e4m3 or e5m2 products follows the H200's measured fused adder
// (MmaNumerics.h, hopperModel: bit for bit on 798,720 probe outputs); with
// LaunchConfig::mmaNumerics Exact, and for tf32 operands or an f16
// accumulator (not measured), exact products (tf32: the top 19 bits of each
// 32-bit element) are summed in double over K, added to D (scale-d), and
// rounded once to f32 (or f16) per instruction. A NaN result is the
// canonical NaN (0x7fffffff, f16 0x7fff).
//
//===----------------------------------------------------------------------===//

#include "Executor.h"
#include "MmaNumerics.h"
#include "SmemLayout.h"

#include "nvfp4/Emulator/FloatFormats.h"

#include <cmath>
#include <optional>
#include <cstdio>
#include <cstring>
#include <unordered_map>

using namespace nvfp4::emu;
using namespace nvfp4::emu::fp;
using ptx::Type;

namespace {

/// What a D register holds while its wgmma.mma_async is pending: a NaN both
/// as an f32 and as each f16 half.
constexpr uint32_t kWgmmaPending = 0x7FC17FC1u;

uint32_t firstLane(uint32_t m) {
  return m ? static_cast<uint32_t>(__builtin_ctz(m)) : 0;
}

std::string hexStr(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

unsigned elemBytes(Type t) {
  switch (t) {
  case Type::F16:
  case Type::BF16:
    return 2;
  case Type::TF32:
    return 4;
  default:
    return 1; // e4m3, e5m2
  }
}

double elemValue(Type t, uint32_t bits) {
  switch (t) {
  case Type::BF16:
    return toDouble(kBF16, bits & 0xffff);
  case Type::F16:
    return toDouble(kF16, bits & 0xffff);
  case Type::TF32:
    return toDouble(kF32, bits & 0xffffe000u);
  case Type::E4M3:
    return toDouble(kE4M3, bits & 0xff);
  default:
    return toDouble(kE5M2, bits & 0xff);
  }
}

const char *swizzleName(unsigned bits) {
  static const char *names[] = {"no", "32B", "64B", "128B"};
  return names[bits & 3];
}

/// Decodes a GMMA descriptor; returns "" or why it is rejected. `notImpl`
/// is set when the descriptor is valid but uses what is not implemented.
std::string decodeDesc(uint64_t d, bool kMajor, unsigned eb, unsigned K,
                       smem::Canonical &c, bool &notImpl) {
  notImpl = false;
  const uint64_t reserved = (uint64_t(3) << 14) | (uint64_t(3) << 30) |
                            (uint64_t(7) << 46) | (uint64_t(0x3ff) << 52);
  if (d & reserved)
    return "bits " + hexStr(d & reserved) +
           " are set, which the sm_90 matrix descriptor does not define "
           "(start address 0-13, LBO 16-29, SBO 32-45, base offset 49-51, "
           "swizzle 62-63)";
  c.start = static_cast<uint32_t>(d & 0x3fff) << 4;
  c.lbo = static_cast<uint32_t>((d >> 16) & 0x3fff) << 4;
  c.sbo = static_cast<uint32_t>((d >> 32) & 0x3fff) << 4;
  static const unsigned kBits[4] = {0, 3, 2, 1}; // layout type -> B
  c.swizzleBits = kBits[(d >> 62) & 3];
  c.kMajor = kMajor;
  unsigned base = static_cast<unsigned>((d >> 49) & 7);
  if (base != 0) {
    notImpl = true;
    return "a base offset (" + std::to_string(base) + ")";
  }
  const unsigned B = c.swizzleBits;
  if (B != 0) {
    const uint32_t W = smem::swizzleWidth(B);
    uint32_t row = (c.start >> 7) & ((1u << B) - 1);
    if (row != 0)
      return "start address " + hexStr(c.start) + " is row " +
             std::to_string(row) + " of the " + std::to_string(8 * W) +
             "-byte repeat of its " + swizzleName(B) +
             " swizzle pattern; with base offset 0 it must be at row 0 "
             "(misaligned)";
    if (kMajor && c.start % W + K * eb > W)
      return "the K slice (" + std::to_string(K * eb) +
             " bytes) at start address " + hexStr(c.start) + " crosses its " +
             std::to_string(W) + "-byte swizzle row (misaligned)";
  }
  return "";
}

} // namespace

namespace nvfp4::emu {

void Executor::wgmmaRowsInit() {
  wgmmaRowsBuilt_ = true;
  wgmmaRowIndex_.assign(prog_.numRows, -1);
  auto add = [&](uint32_t enc) {
    if ((enc & kConstBit) || enc == kNone || enc >= prog_.numRows ||
        wgmmaRowIndex_[enc] >= 0)
      return;
    wgmmaRowIndex_[enc] = static_cast<int32_t>(wgmmaRows_.size());
    wgmmaRows_.push_back(enc);
  };
  for (const XInst &x : prog_.code) {
    if (x.op != XOp::WgmmaMma)
      continue;
    for (uint32_t i = 0; i < x.listCount; ++i)
      add(prog_.lists[x.listBegin + i]);
    if (x.sub2 & XW_ARegs)
      for (uint32_t i = 0; i < 4; ++i)
        add(prog_.lists[x.listBegin + x.listCount + i]);
  }
}

void Executor::wgmmaNoteWrite(Warp &w, uint32_t r) {
  if (w.wgmmaFenceRows.empty() || r >= wgmmaRowIndex_.size() ||
      wgmmaRowIndex_[r] < 0)
    return;
  const uint64_t *v = row(w, r);
  std::copy(v, v + 32,
            w.wgmmaFenceRows.begin() + size_t(wgmmaRowIndex_[r]) * 32);
}

bool Executor::execWgmma(Warp &w, const XInst &I, uint32_t mask) {
  if (!checkAligned(w, I, mask))
    return false;
  switch (I.op) {
  case XOp::WgmmaFence:
    w.wgmmaFenced = true;
    // The registers wgmma may access, as of this fence.
    if (!wgmmaRowsBuilt_)
      wgmmaRowsInit();
    w.wgmmaFenceRows.resize(wgmmaRows_.size() * 32);
    for (size_t i = 0; i < wgmmaRows_.size(); ++i) {
      const uint64_t *v = row(w, wgmmaRows_[i]);
      std::copy(v, v + 32, w.wgmmaFenceRows.begin() + i * 32);
    }
    ++stats_.fences;
    return true;
  case XOp::WgmmaCommit:
    for (Warp::WgmmaOp &op : w.wgmma)
      if (op.group == Warp::kUncommitted)
        op.group = w.wgmmaGroups;
    ++w.wgmmaGroups;
    return true;
  case XOp::WgmmaWait:
    return wgmmaRetire(w, I, static_cast<uint32_t>(I.imm));
  default:
    return wgmmaIssue(w, I);
  }
}

bool Executor::wgmmaRetire(Warp &w, const XInst &I, uint32_t keepGroups) {
  if (w.wgmma.empty())
    return true;
  const uint32_t below =
      w.wgmmaGroups > keepGroups ? w.wgmmaGroups - keepGroups : 0;
  auto retiring = [&](const Warp::WgmmaOp &op) {
    return op.group != Warp::kUncommitted && op.group < below;
  };
  // The last pending operation that writes each register.
  std::unordered_map<uint32_t, size_t> last;
  for (size_t i = 0; i < w.wgmma.size(); ++i)
    for (uint32_t r : w.wgmma[i].dRows)
      last[r] = i;
  std::vector<Warp::WgmmaOp> keep;
  for (size_t i = 0; i < w.wgmma.size(); ++i) {
    Warp::WgmmaOp &op = w.wgmma[i];
    if (!retiring(op)) {
      keep.push_back(std::move(op));
      continue;
    }
    for (size_t j = 0; j < op.aRows.size(); ++j) {
      const uint64_t *r = row(w, op.aRows[j]);
      for (uint32_t l = 0; l < 32; ++l)
        if (r[l] != op.aValues[j * 32 + l])
          return fault(Fault::Kind::Invalid, w, l, I,
                       "race: A-fragment register " + std::to_string(j) +
                           " of the wgmma.mma_async at line " +
                           std::to_string(op.line) +
                           " was written before wgmma.wait_group retired it");
    }
    for (size_t j = 0; j < op.dRows.size(); ++j) {
      if (last[op.dRows[j]] != i)
        continue; // a later wgmma.mma_async writes it
      uint64_t *r = row(w, op.dRows[j]);
      for (uint32_t l = 0; l < 32; ++l) {
        if (r[l] != kWgmmaPending)
          return fault(Fault::Kind::Invalid, w, l, I,
                       "race: D register " + std::to_string(j) +
                           " of the wgmma.mma_async at line " +
                           std::to_string(op.line) + " was written (" +
                           hexStr(r[l]) +
                           ") before wgmma.wait_group retired it");
        r[l] = op.values[j * 32 + l];
      }
      wgmmaNoteWrite(w, op.dRows[j]);
    }
  }
  w.cta->wgmmaPending -= static_cast<uint32_t>(w.wgmma.size() - keep.size());
  w.wgmma = std::move(keep);
  return true;
}

const std::string *Executor::wgmmaReadsShared(const Cta &cta, uint64_t off,
                                              uint32_t bytes) const {
  if (cta.wgmmaPending == 0)
    return nullptr;
  for (const Warp &w : cta.warps)
    for (const Warp::WgmmaOp &op : w.wgmma)
      for (int q = 0; q < 2; ++q)
        for (int r = 0; r < Warp::WgmmaOp::kRanges; ++r)
          if (off < op.smemHi[q][r] && op.smemLo[q][r] < off + bytes)
            return &op.origin;
  return nullptr;
}

bool Executor::wgmmaIssue(Warp &w, const XInst &I) {
  const std::string mnem = I.inst ? I.inst->mnemonic : "wgmma.mma_async";
  auto bad = [&](uint32_t lane, const std::string &why) {
    return fault(Fault::Kind::Invalid, w, lane, I, "'" + mnem + "': " + why);
  };
  Cta &cta = *w.cta;
  if (w.live() != 0xffffffffu)
    return bad(firstLane(w.live()),
               "all 32 threads of each warp of the warpgroup must execute it, "
               "but only lanes " +
                   hexStr(w.live()) + " of warp " + std::to_string(w.id) +
                   " are alive");
  const uint32_t wg = w.id / 4;
  if (4 * wg + 4 > warpsPerCta_)
    return bad(0, "warp " + std::to_string(w.id) + " belongs to warpgroup " +
                      std::to_string(wg) + " (warps " + std::to_string(4 * wg) +
                      ".." + std::to_string(4 * wg + 3) +
                      "), but the CTA has only " +
                      std::to_string(warpsPerCta_) + " warps");
  if (!w.wgmmaFenced)
    return bad(0, "no wgmma.fence before the first wgmma.mma_async of warp " +
                      std::to_string(w.id) +
                      " (the ISA requires one before the first "
                      "wgmma.mma_async of a warpgroup)");

  const Type dt = I.type, at = I.type2, bt = static_cast<Type>(I.sub);
  const bool aRegs = I.sub2 & XW_ARegs;
  const uint32_t N = static_cast<uint32_t>(I.imm);
  const unsigned ea = elemBytes(at), ebB = elemBytes(bt);
  const unsigned K = ea == 2 ? 16 : ea == 4 ? 8 : 32;
  const uint32_t pc = static_cast<uint32_t>(&I - prog_.code.data());

  // Uniform operands.
  auto uniform = [&](uint32_t enc, const char *what, uint64_t &v) {
    const uint64_t *r = src(w, enc);
    v = r[0];
    for (uint32_t l = 1; l < 32; ++l)
      if (r[l] != v)
        return bad(l, std::string(what) + " differs between lanes 0 (" +
                          hexStr(v) + ") and " + std::to_string(l) + " (" +
                          hexStr(r[l]) + ")");
    return true;
  };
  uint64_t aDesc = 0, bDesc = 0;
  if (!aRegs && !uniform(I.src[1], "the A descriptor", aDesc))
    return false;
  if (!uniform(I.src[2], "the B descriptor", bDesc))
    return false;
  uint32_t p = w.preds[I.target];
  if (I.sub2 & XW_NegScaleD)
    p = ~p;
  if (p != 0 && p != 0xffffffffu)
    return bad(firstLane(~p),
               "scale-d differs between the lanes (" + hexStr(p) + ")");
  const bool scaleD = p != 0;

  // The four warps of the warpgroup must issue the same operations.
  if (cta.wgmmaIssues.size() <= wg)
    cta.wgmmaIssues.resize(wg + 1);
  Cta::WgmmaQueue &Q = cta.wgmmaIssues[wg];
  const uint64_t seq = w.wgmmaIssued++;
  if (seq < Q.base + Q.q.size()) {
    Cta::WgmmaIssue &o = Q.q[size_t(seq - Q.base)];
    std::string diff;
    if (o.pc != pc)
      diff = "it is the instruction at line " +
             std::to_string(prog_.code[o.pc].line) + " there";
    else if (o.aDesc != aDesc)
      diff = "A descriptor " + hexStr(o.aDesc) + " there, " + hexStr(aDesc) +
             " here";
    else if (o.bDesc != bDesc)
      diff = "B descriptor " + hexStr(o.bDesc) + " there, " + hexStr(bDesc) +
             " here";
    else if (o.scaleD != scaleD)
      diff = "scale-d differs";
    if (!diff.empty())
      return bad(0, "the warps of warpgroup " + std::to_string(wg) +
                        " disagree on wgmma.mma_async number " +
                        std::to_string(seq + 1) + ": warp " +
                        std::to_string(o.warp) + " issued it differently (" +
                        diff + ")");
    if (++o.seen == 4) {
      while (!Q.q.empty() && Q.q.front().seen == 4) {
        Q.q.pop_front();
        ++Q.base;
      }
    }
  } else {
    // The warpgroup's first warp to issue it: count it once.
    LaunchStats::Cta &counters = stats_.perCta[w.cta->linear];
    ++(aRegs ? counters.wgmmasRegA : counters.wgmmasSmemA);
    Cta::WgmmaIssue o;
    o.pc = pc;
    o.warp = w.id;
    o.seen = 1;
    o.aDesc = aDesc;
    o.bDesc = bDesc;
    o.scaleD = scaleD;
    Q.q.push_back(o);
  }

  // Descriptors.
  smem::Canonical ad, bd;
  auto decode = [&](uint64_t d, const char *which, bool kMajor, unsigned eb,
                    smem::Canonical &c) {
    bool notImpl = false;
    std::string e = decodeDesc(d, kMajor, eb, K, c, notImpl);
    if (e.empty())
      return true;
    if (notImpl)
      return fault(Fault::Kind::NotImplemented, w, 0, I,
                   "not implemented yet: '" + mnem + "' " + which +
                       " descriptor " + hexStr(d) + " with " + e);
    return bad(0, std::string(which) + " descriptor " + hexStr(d) + ": " + e);
  };
  if (!aRegs && !decode(aDesc, "A", !(I.sub2 & XW_TransA), ea, ad))
    return false;
  if (!decode(bDesc, "B", !(I.sub2 & XW_TransB), ebB, bd))
    return false;

  // Operands, as doubles (scaled by imm-scale-a / -b).
  const double sa = (I.sub2 & XW_NegA) ? -1.0 : 1.0;
  const double sb = (I.sub2 & XW_NegB) ? -1.0 : 1.0;
  // Bytes read from shared memory: [lo, hi) of A (0) and B (1), one range
  // per LBO repeat (B's N columns Dv .. may come from a block far from V's).
  constexpr int kRanges = Warp::WgmmaOp::kRanges;
  uint64_t lo[2][kRanges], hi[2][kRanges] = {};
  for (auto &l : lo)
    std::fill(std::begin(l), std::end(l), ~uint64_t(0));
  int part = 1;
  std::string oob;
  auto load = [&](const smem::Canonical &c, unsigned eb, uint32_t mn,
                  uint32_t k, uint32_t &bits) {
    uint64_t a = smem::elementAddress(c, eb, mn, k);
    if (a + eb > cta.shared.size()) {
      oob = hexStr(a);
      return false;
    }
    const uint32_t r =
        std::min<uint32_t>(smem::lboRepeat(c, eb, mn, k), kRanges - 1);
    lo[part][r] = std::min(lo[part][r], a);
    hi[part][r] = std::max(hi[part][r], a + eb);
    bits = 0;
    std::memcpy(&bits, cta.shared.data() + a, eb);
    return true;
  };
  std::vector<double> Bm(size_t(N) * K);
  for (uint32_t n = 0; n < N; ++n)
    for (uint32_t k = 0; k < K; ++k) {
      uint32_t bits;
      if (!load(bd, ebB, n, k, bits))
        return fault(
            Fault::Kind::Memory, w, 0, I,
            "'" + mnem + "' reads B element (" + std::to_string(n) + ", " +
                std::to_string(k) + ") at shared address " + oob +
                ", outside the CTA's " + std::to_string(cta.shared.size()) +
                " bytes of shared memory (B descriptor " + hexStr(bDesc) + ")");
      Bm[size_t(n) * K + k] = sb * elemValue(bt, bits);
    }
  const uint32_t row0 = 16 * (w.id % 4);
  std::vector<double> Am(size_t(16) * K);
  std::vector<uint32_t> aRowsList;
  std::vector<uint64_t> aVals;
  if (aRegs) {
    const uint32_t *list = prog_.lists.data() + I.listBegin + I.listCount;
    for (unsigned j = 0; j < 4; ++j) {
      const uint64_t *r = src(w, list[j]);
      if (!(list[j] & kConstBit)) {
        aRowsList.push_back(list[j]);
        aVals.insert(aVals.end(), r, r + 32);
      }
    }
    for (uint32_t l = 0; l < 32; ++l) {
      const uint32_t g = l / 4, t = l % 4;
      const unsigned per = 4 / ea; // elements per register
      for (unsigned i = 0; i < 4 * per; ++i) {
        uint32_t reg = static_cast<uint32_t>(src(w, list[i / per])[l]);
        uint32_t bits = (reg >> (8 * ea * (i % per))) &
                        (ea == 4 ? 0xffffffffu : (1u << (8 * ea)) - 1);
        uint32_t r, k;
        if (ea == 2) {
          r = g + 8 * ((i >> 1) & 1);
          k = 2 * t + (i & 1) + 8 * (i >> 2);
        } else if (ea == 4) {
          r = g + 8 * (i & 1);
          k = t + 4 * (i >> 1);
        } else {
          r = g + 8 * ((i >> 2) & 1);
          k = 4 * t + (i & 3) + 16 * (i >> 3);
        }
        Am[size_t(r) * K + k] = sa * elemValue(at, bits);
      }
    }
  } else {
    part = 0;
    for (uint32_t r = 0; r < 16; ++r)
      for (uint32_t k = 0; k < K; ++k) {
        uint32_t bits;
        if (!load(ad, ea, row0 + r, k, bits))
          return fault(
              Fault::Kind::Memory, w, 0, I,
              "'" + mnem + "' reads A element (" + std::to_string(row0 + r) +
                  ", " + std::to_string(k) + ") at shared address " + oob +
                  ", outside the CTA's " + std::to_string(cta.shared.size()) +
                  " bytes of shared memory (A descriptor " + hexStr(aDesc) +
                  ")");
        Am[size_t(r) * K + k] = sa * elemValue(at, bits);
      }
  }
  for (int q = 0; q < 2; ++q)
    for (int r = 0; r < kRanges; ++r) {
      if (hi[q][r] == 0)
        continue;
      if (san_) {
        // The operands are read through the async proxy (the PTX ISA's
        // wgmma.fence section asks for fence.proxy.async after generic
        // writes of them).
        std::string e = san_->proxyRead(
            sanWarp(w), cta.rank, static_cast<uint32_t>(lo[q][r]),
            static_cast<uint32_t>(hi[q][r]), I.line,
            q ? "wgmma.mma_async's read of B" : "wgmma.mma_async's read of A");
        if (!e.empty())
          return sanFault(w, 0, I, e);
      }
      if (tma_ && cfg_.checkTmaRaces)
        if (std::optional<std::string> t = tmaInFlight(
                cta, lo[q][r], static_cast<uint32_t>(hi[q][r] - lo[q][r])))
          return fault(Fault::Kind::Invalid, w, 0, I,
                       "race: '" + mnem + "' reads shared memory [" +
                           hexStr(lo[q][r]) + ", " + hexStr(hi[q][r]) +
                           ") that " + *t +
                           " is still writing (wait on its mbarrier first)");
    }

  // Registers other instructions wrote after the warp's last wgmma.fence:
  // the PTX ISA asks for a wgmma.fence between any access of a register
  // and a wgmma.mma_async that accesses it as its A fragment or
  // accumulator (accumulator accesses by wgmma.mma_async of the same shape
  // excepted: their writes update the snapshot).
  {
    auto fenced = [&](uint32_t enc, const std::string &what) {
      if ((enc & kConstBit) || w.wgmmaFenceRows.empty() ||
          enc >= wgmmaRowIndex_.size() || wgmmaRowIndex_[enc] < 0)
        return true;
      const uint64_t *v = row(w, enc);
      const uint64_t *f =
          w.wgmmaFenceRows.data() + size_t(wgmmaRowIndex_[enc]) * 32;
      for (uint32_t l = 0; l < 32; ++l)
        if (v[l] != f[l])
          return bad(l, what + " was written (" + hexStr(f[l]) + " -> " +
                            hexStr(v[l]) +
                            ") after the warp's last wgmma.fence: the ISA "
                            "requires a wgmma.fence between a register "
                            "access and a wgmma.mma_async that accesses "
                            "the register (missing wgmma.fence)");
      return true;
    };
    for (uint32_t i = 0; i < I.listCount; ++i)
      if (!fenced(prog_.lists[I.listBegin + i],
                  "D register " + std::to_string(i)))
        return false;
    if (aRegs)
      for (uint32_t i = 0; i < 4; ++i)
        if (!fenced(prog_.lists[I.listBegin + I.listCount + i],
                    "A-fragment register " + std::to_string(i)))
          return false;
  }

  // D: the accumulator input is the register, or the result of a pending
  // wgmma.mma_async that writes the register.
  const std::vector<uint32_t> dRows(prog_.lists.data() + I.listBegin,
                                    prog_.lists.data() + I.listBegin +
                                        I.listCount);
  std::unordered_map<uint32_t, std::pair<size_t, size_t>> pending;
  if (scaleD)
    for (size_t i = 0; i < w.wgmma.size(); ++i)
      for (size_t j = 0; j < w.wgmma[i].dRows.size(); ++j)
        pending[w.wgmma[i].dRows[j]] = {i, j};
  Warp::WgmmaOp op;
  op.group = Warp::kUncommitted;
  op.line = I.line;
  op.values.assign(dRows.size() * 32, 0);
  const bool f16 = dt == Type::F16;
  // The measured model: an f32 accumulator of 16- or 8-bit operands.
  std::optional<numerics::Model> model;
  if (!f16 && at != Type::TF32 && cfg_.mmaNumerics != MmaNumerics::Exact)
    model = numerics::hopperModel(ea == 1 ? 8 : 16);
  for (size_t j = 0; j < dRows.size(); ++j) {
    const uint32_t *prev = nullptr;
    if (scaleD) {
      auto it = pending.find(dRows[j]);
      if (it != pending.end())
        prev = &w.wgmma[it->second.first].values[it->second.second * 32];
    }
    const uint64_t *reg = row(w, dRows[j]);
    for (uint32_t l = 0; l < 32; ++l) {
      const uint32_t g = l / 4, t = l % 4;
      const uint32_t old = prev ? prev[l] : static_cast<uint32_t>(reg[l]);
      uint32_t out = 0;
      for (unsigned h = 0; h < (f16 ? 2u : 1u); ++h) {
        const uint32_t i = static_cast<uint32_t>(f16 ? 2 * j + h : j);
        const uint32_t r = g + 8 * ((i >> 1) & 1);
        const uint32_t n = 8 * (i >> 2) + 2 * t + (i & 1);
        const double *ar = &Am[size_t(r) * K];
        const double *br = &Bm[size_t(n) * K];
        if (model) {
          double s = numerics::accumulate(
              *model, scaleD ? double(f32FromBits(old)) : 0.0, ar, br, K);
          out = std::isnan(s) ? 0x7fffffffu : bitsOf(static_cast<float>(s));
          continue;
        }
        double s = 0;
        for (unsigned k = 0; k < K; ++k)
          s += ar[k] * br[k];
        if (f16) {
          if (scaleD)
            s += toDouble(kF16, (old >> (16 * h)) & 0xffff);
          EncodeOptions eo;
          uint32_t hb =
              std::isnan(s)
                  ? 0x7fffu
                  : static_cast<uint32_t>(encode(kF16, unpackDouble(s), eo));
          out |= hb << (16 * h);
        } else {
          if (scaleD)
            s += double(f32FromBits(old));
          out = std::isnan(s) ? 0x7fffffffu : bitsOf(static_cast<float>(s));
        }
      }
      op.values[j * 32 + l] = out;
    }
  }
  for (uint32_t r : dRows) {
    uint64_t *reg = row(w, r);
    for (uint32_t l = 0; l < 32; ++l)
      reg[l] = kWgmmaPending;
    wgmmaNoteWrite(w, r);
  }
  op.dRows = dRows;
  op.aRows = std::move(aRowsList);
  op.aValues = std::move(aVals);
  for (int q = 0; q < 2; ++q)
    for (int r = 0; r < kRanges; ++r) {
      op.smemLo[q][r] = hi[q][r] ? lo[q][r] : 0;
      op.smemHi[q][r] = hi[q][r];
    }
  op.origin = location(w, 0, I.line);
  w.wgmma.push_back(std::move(op));
  ++cta.wgmmaPending;
  if (w.id % 4 == 0)
    ++stats_.mmas;
  return true;
}

} // namespace nvfp4::emu
