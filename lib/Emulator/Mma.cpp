//===- Mma.cpp - tcgen05.mma and tcgen05.commit ---------------------------===//
//
// The tensor core of each CTA is an AsyncUnit holding the CTA's issued
// tcgen05.mma and tcgen05.commit operations in issue order. An MMA is
// executed late: only when no warp of the cluster made progress in the last
// scheduler round (every warp waits), or after kMaxDelayRounds rounds. It
// reads its operands from shared memory / tensor memory when it executes and
// writes D to tensor memory; a commit queued behind it then performs the
// mbarrier arrive-on (through Executor::mbarrierUpdate). So a kernel sees MMA
// results only after waiting on the commit's mbarrier, the one point where
// the ISA guarantees them.
//
// While an MMA is pending, these are race errors naming both instructions:
// a shared-memory store (or TMA landing) into bytes it reads, a tcgen05.ld
// of tensor-memory columns it writes, a tcgen05.st into columns it reads or
// writes, and a tcgen05.dealloc of its columns.
//
// Operand layouts (docs/Emulator.md, "tcgen05.mma"):
//  - Shared-memory descriptors are decoded with umma::decodeSmemDesc and
//    addressed with the PTX canonical layouts (PTX ISA 9.7.16.4.3, in units
//    of T = 16 bytes / element bytes):
//      K-major,  no swizzle: ((8,m),(T,2k)):((1T,SBO),(1,LBO))
//      K-major,  swizzled:   ((8,m),(T,2k)):((wT,SBO),(1,T))
//      MN-major, no swizzle: ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO))
//      MN-major, swizzled:   ((T,w,m),(8,k)):((1,T,LBO),(wT,SBO))
//    then the swizzle (bits [4, 4+B) ^= bits [7, 7+B) of the address,
//    B = 1, 2, 3 for 32, 64, 128 bytes) on the absolute shared address.
//  - D: M = 128 row m at lane m; M = 64 row m at lane 32(m/16) + m%16 + a
//    (layout F, half the data path: a = the D address's lane, 0 or 16, so
//    two M = 64 accumulators can share columns); cta_group::2 with M = 256:
//    rows 128r.. of CTA r of the
//    pair. Column n at the D address's column + n. f32 cells, or f16 in the
//    low half of a cell. .ws (layouts G, E, D: 1x4, 2x2, 4x1): row m,
//    column n at lane m + M (n / (N M / 128)), column n % (N M / 128).
//  - kind::f8f6f4 / mxf8f6f4 4- and 6-bit operands: in shared memory 16
//    packed elements then padding per 16-byte unit (addressed as 8-bit
//    elements); in TMEM one 8-bit container each (e2m1 in bits [5:2], 6-bit
//    types in [5:0]).
//  - cta_group::2: each CTA of the pair supplies its half of A (its 128
//    rows) and half of B (N/2 rows: CTA r holds B rows rN/2..) from the
//    same shared-memory offsets; the leader (even rank) issues.
//  - A from tensor memory (`ts`): A[m, k] in the lane of D's row m (lane m;
//    M = 64: 32(m/16) + m%16 + a, with A's address at the same lane a as
//    D's, PTX ISA 9.7.16.10.5), column k / (32/bits) from A's column, 32/bits
//    elements per column; .ws reads A in the lane of each D cell (A is
//    duplicated per lane group when M < 128).
//  - .ws zero-column mask (umma::zeroColumnMask): a masked D column n
//    multiplies zeros; the column shift s makes it use B column n + s.
//
// Arithmetic: products of the (exact) input values summed in double over
// the instruction's K, added to D, rounded to f32 (or f16) once per MMA.
//
//===----------------------------------------------------------------------===//

#include "Executor.h"
#include "MmaNumerics.h"
#include "SmemLayout.h"

#include "nvfp4/Emulator/FloatFormats.h"
#include "nvfp4/Support/TensorMemory.h"
#include "nvfp4/Support/UMMADescriptors.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>
#include <deque>
#include <tuple>

using namespace nvfp4::emu;
using namespace nvfp4::emu::fp;
namespace umma = nvfp4::umma;
namespace tmem = nvfp4::tmem;

namespace {

std::string hexStr(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

unsigned swizzleBits(umma::Swizzle s) {
  switch (s) {
  case umma::Swizzle::B32:
    return 1;
  case umma::Swizzle::B64:
    return 2;
  case umma::Swizzle::B128:
    return 3;
  default:
    return 0;
  }
}

/// The operand of descriptor `d` as a canonical layout (SmemLayout.h).
smem::Canonical canonical(const umma::SmemDescFields &d, umma::Major major) {
  smem::Canonical c;
  c.start = d.startAddress;
  c.lbo = d.lboBytes;
  c.sbo = d.sboBytes;
  c.swizzleBits = swizzleBits(d.swizzle);
  c.kMajor = major == umma::Major::K;
  return c;
}

/// Byte address (before the swizzle) of element (mn, k) of an operand whose
/// descriptor is `d`, elements of `eb` bytes, major-ness `major`.
uint64_t canonicalOffset(const umma::SmemDescFields &d, umma::Major major,
                         unsigned eb, uint32_t mn, uint32_t k) {
  return smem::canonicalOffset(canonical(d, major), eb, mn, k);
}

using smem::swizzle;

double elementValue(umma::ElemType t, uint32_t bits) {
  switch (t) {
  case umma::ElemType::BF16:
    return toDouble(kBF16, bits & 0xffff);
  case umma::ElemType::F16:
    return toDouble(kF16, bits & 0xffff);
  case umma::ElemType::TF32:
    // The tensor core reads the top 19 bits of each 32-bit element.
    return toDouble(kF32, bits & 0xffffe000u);
  case umma::ElemType::E4M3:
    return toDouble(kE4M3, bits & 0xff);
  case umma::ElemType::E5M2:
    return toDouble(kE5M2, bits & 0xff);
  case umma::ElemType::E2M1:
    return toDouble(kE2M1, bits & 0xf);
  case umma::ElemType::E2M3:
    return toDouble(kE2M3, bits & 0x3f);
  case umma::ElemType::E3M2:
    return toDouble(kE3M2, bits & 0x3f);
  case umma::ElemType::S8:
    return static_cast<int8_t>(bits & 0xff);
  case umma::ElemType::U8:
    return bits & 0xff;
  default:
    return 0;
  }
}

/// The value of scale-factor byte `b` of type `t`.
double scaleValue(umma::ScaleType t, uint32_t b) {
  if (t == umma::ScaleType::UE8M0)
    return b == 0xff ? std::nan("") : std::ldexp(1.0, int(b) - 127);
  return toDouble(kE4M3, b & 0x7f); // UE4M3: e4m3 without the sign bit
}

/// How the elements of an operand sit in shared memory.
enum class Storage : uint8_t {
  Dense,   ///< 8-, 16- or 32-bit elements
  Packed4, ///< e2m1 two per byte, element 2i in the low nibble (mxf4*)
  /// e2m1 / e2m3 / e3m2 under kind::f8f6f4 and mxf8f6f4 (PTX 9.7.16.10.4.4
  /// and 5.5.1.1.1, .b4x16_p64 / .b6x16_p32): each 16-byte chunk holds 16
  /// consecutive elements packed from bit 0 (element j at bits [b j,
  /// b j + b)), then 64 (b = 4) or 32 (b = 6) bits of padding. So the
  /// layout is that of 8-bit elements; only the bits inside a chunk differ.
  Padded,
};

/// An operand's element format: its storage and the bits of one element.
struct ElemFormat {
  Storage storage = Storage::Dense;
  unsigned bits = 8;
};

ElemFormat elemFormat(umma::ElemType t, umma::MmaKind kind) {
  const unsigned bits = umma::elemBits(t);
  if (bits >= 8)
    return {Storage::Dense, bits};
  if (umma::smemElemBits(t, kind) == 8)
    return {Storage::Padded, bits};
  return {Storage::Packed4, bits};
}

/// The shared-memory byte address (before the swizzle) of the 16-byte
/// chunk (Padded), byte (Packed4) or element (Dense) holding element
/// (mn, k), and the element's bit offset from that address.
std::pair<uint64_t, unsigned> elementAddress(const umma::SmemDescFields &d,
                                             umma::Major major, ElemFormat fmt,
                                             uint32_t mn, uint32_t k) {
  switch (fmt.storage) {
  case Storage::Packed4:
    return {d.startAddress + canonicalOffset(d, major, 1, mn, k / 2),
            4 * (k % 2)};
  case Storage::Padded: {
    // The offset of a byte-wide element; its low 4 bits are its index in
    // the 16-byte chunk (the canonical layouts move whole 16-byte units).
    uint64_t off = canonicalOffset(d, major, 1, mn, k);
    return {d.startAddress + (off & ~uint64_t(15)),
            unsigned(off & 15) * fmt.bits};
  }
  case Storage::Dense:
    break;
  }
  return {d.startAddress + canonicalOffset(d, major, fmt.bits / 8, mn, k), 0};
}

/// The value of the 8-bit TMEM container of a 4- or 6-bit element of
/// kind::f8f6f4 / mxf8f6f4 (PTX 9.7.16.10.4.3; the bit positions are those
/// the ISA states for the same containers of mma.sync, 9.7.14.5.14): e2m1
/// in bits [5:2], e2m3 / e3m2 in bits [5:0].
uint32_t containerElement(uint32_t byte, unsigned bits) {
  return bits == 4 ? (byte >> 2) & 0xf : byte & 0x3f;
}

/// The 8-bit container tcgen05.cp's decompression writes for a 4- or 6-bit
/// element (the inverse of containerElement, padding bits zero).
uint32_t toContainer(uint32_t element, unsigned bits) {
  return bits == 4 ? (element & 0xf) << 2 : element & 0x3f;
}

/// The byte range [lo, hi) of shared memory that a rows x k box of
/// `bits`-wide elements described by `d` occupies: the corners of the box
/// bound it, widened to whole swizzle rows (the swizzle permutes bytes
/// within 2^(B+4)-byte rows of a 1024-byte-aligned pattern).
void footprint(const umma::SmemDescFields &d, umma::Major major, ElemFormat fmt,
               uint32_t rows, uint32_t k, uint64_t &lo, uint64_t &hi) {
  lo = ~uint64_t(0);
  hi = 0;
  const uint64_t width = 16u << swizzleBits(d.swizzle);
  for (uint32_t r : {0u, rows - 1})
    for (uint32_t kk : {0u, k - 1}) {
      uint64_t a = elementAddress(d, major, fmt, r, kk).first;
      uint64_t rowBase = a & ~(width - 1);
      lo = std::min(lo, rowBase);
      hi = std::max(hi, rowBase + width);
    }
}

} // namespace

namespace nvfp4::emu {

/// True when TMEM columns [col, col + n) of `cta` lie inside one live
/// allocation.
static bool insideAllocation(const Executor::Cta &cta, uint32_t col,
                             uint32_t n) {
  for (const auto &a : cta.tmemAllocs)
    if (col >= a.column && col + n <= a.column + a.columns)
      return true;
  return false;
}

/// Whether TMEM column ranges [a0, a0 + an) and [b0, b0 + bn) (either may be
/// empty) share a column.
static bool columnsOverlap(uint32_t a0, uint32_t an, uint32_t b0,
                           uint32_t bn) {
  return an && bn && a0 < b0 + bn && b0 < a0 + an;
}

/// Whether an MMA uses data path layout F (PTX ISA 9.7.16.10.5, "Data Path
/// Layout Organization": M = 64, cta_group::1, not .ws; "4x1, 1/2 datapath
/// utilized", lane alignment 0 or 16): D row m (and A row m in TMEM) at
/// lane 32 (m / 16) + m % 16 + the address's lane.
static bool layoutF(const umma::InstrDescFields &f, bool ws, bool ctaGroup2) {
  return !ws && !ctaGroup2 && f.m == 64;
}

/// The TMEM lane of row m of an M = 64 (layout F) operand whose address
/// names lane `align` (0 or 16).
static uint32_t layoutFLane(uint32_t m, uint32_t align) {
  return 32 * (m / 16) + m % 16 + align;
}

/// One queued tensor-core operation.
struct MmaOp {
  bool isCommit = false;
  /// tcgen05.cp (1) or tcgen05.shift (2) instead of an MMA; cpShape is the
  /// XCpShape; cpBits the source element bits of a decompressing copy (4 or
  /// 6; 0: plain copy).
  uint8_t special = 0, cpShape = 0, cpBits = 0;
  // MMA
  umma::InstrDescFields f;
  bool ctaGroup2 = false;
  /// .ws: D row m, column n at lane m + M (n / (N M / 128)), column
  /// n % (N M / 128) (PTX data path layouts G, E, D).
  bool ws = false;
  /// .ws zero-column mask (bit n: column n of B is zero) and column shift
  /// (D column n uses B column n + shift).
  uint64_t zeroCols[4] = {};
  uint32_t colShift = 0;
  bool accumulate = false;
  bool aTmem = false;
  uint64_t aDesc = 0, bDesc = 0;
  uint32_t aAddr = 0, dAddr = 0;
  /// The lane of the D (and TMEM A) address: 0, or 16 for layout F.
  uint32_t laneAlign = 0;
  /// The TMEM lanes its D and TMEM A use (bit L of word L / 64): all 128,
  /// or layout F's 16 of each quadrant.
  uint64_t lanes[2] = {~uint64_t(0), ~uint64_t(0)};
  bool usesLanes(uint32_t lane0, uint32_t lane1) const {
    for (uint32_t l = lane0; l < lane1 && l < 128; ++l)
      if ((lanes[l / 64] >> (l % 64)) & 1)
        return true;
    return false;
  }
  bool sharesLanes(const MmaOp &o) const {
    return (lanes[0] & o.lanes[0]) || (lanes[1] & o.lanes[1]);
  }
  // Which CTAs it reads and writes: parts[p] supplies rows of A, B and D.
  Executor::Cta *parts[2] = {nullptr, nullptr};
  // Shared-memory ranges it reads, per part and operand (0: A, or the
  // source of tcgen05.cp; 1: B): [lo, hi) offsets (lo == hi: none). Kept
  // apart because A and B are usually far from each other (Q and a K/V
  // stage): one interval over both would cover the stages between them.
  uint64_t smemLo[2][2] = {}, smemHi[2][2] = {};
  // Tensor-memory columns it writes (D) and reads (A), per part.
  uint32_t dCol0 = 0, dCols = 0, aCol0 = 0, aCols = 0;
  // Block scaling: TMEM columns of the scale factors, elements per scale.
  bool scaled = false;
  uint32_t sfaCol = 0, sfbCol = 0, block = 0;
  // disable-output-lane (bit L of word L/32 per CTA part), scale-input-d.
  uint32_t disable[8] = {};
  unsigned scaleD = 0;
  // Commit: (CTA, mbarrier offset) to arrive on.
  std::vector<std::pair<Executor::Cta *, uint32_t>> arrivals;
  std::string origin; ///< location of the issuing instruction
  /// Commit: what its arrive releases (the sanitizer's snapshot).
  Sanitizer::SyncState sync;
};

class Executor::TensorUnit : public AsyncUnit {
public:
  /// Rounds an MMA may stay pending while warps still make progress.
  static constexpr unsigned kMaxDelayRounds = 64;

  void push(MmaOp op) { queue_.push_back(std::move(op)); }
  void clear() { queue_.clear(); }

  bool step(Executor &ex, Error &err) override {
    if (queue_.empty())
      return false;
    if (ex.roundProgress_ && ++delay_ < limit_)
      return false;
    delay_ = 0;
    // Schedule exploration: the queue runs after a random number of rounds
    // (0 = at once), not only when the warps stall.
    limit_ = ex.explore_ ? ex.randomBelow(kMaxDelayRounds) : kMaxDelayRounds;
    while (!queue_.empty()) {
      MmaOp op = std::move(queue_.front());
      queue_.pop_front();
      std::string e = op.isCommit  ? ex.runCommit(op)
                      : op.special ? ex.runCpShift(op)
                                   : ex.runMma(op);
      if (!e.empty()) {
        err = Error::failure(e);
        queue_.clear();
        return true;
      }
    }
    return true;
  }
  bool idle() const override { return queue_.empty(); }

  /// The pending MMA that reads `bytes` at shared offset `off` of `cta`.
  const MmaOp *readsShared(const Cta &cta, uint64_t off,
                           uint32_t bytes) const {
    for (const MmaOp &op : queue_)
      if (!op.isCommit)
        for (int p = 0; p < 2; ++p)
          for (int o = 0; o < 2; ++o)
            if (op.parts[p] == &cta && off < op.smemHi[p][o] &&
                op.smemLo[p][o] < off + bytes)
              return &op;
    return nullptr;
  }
  /// A pending MMA that `op` (an MMA being issued) is not ordered after
  /// but shares tensor-memory columns with, one of them writing them. The
  /// PTX ISA ("Pipelined tcgen05 instructions") keeps two MMAs of a thread
  /// in issue order only when they form a pipeline: same cta_group, same
  /// accumulator (D address) and same shape; otherwise the second may run
  /// first, so writing what the first reads (or reads or writes as D) is a
  /// race unless a commit's mbarrier was waited on in between.
  const MmaOp *crossPipelineHazard(const MmaOp &op) const {
    for (const MmaOp &q : queue_) {
      if (q.isCommit || q.special)
        continue;
      if (q.ctaGroup2 == op.ctaGroup2 && q.dAddr == op.dAddr &&
          q.f.m == op.f.m && q.f.n == op.f.n && q.f.kind == op.f.kind)
        continue; // one pipeline: in order
      // Layout F accumulators at lanes 0 and 16 share columns, not lanes.
      if (!q.sharesLanes(op))
        continue;
      for (int p = 0; p < 2; ++p) {
        if (!op.parts[p] || q.parts[p] != op.parts[p])
          continue;
        uint32_t qa = q.aTmem ? q.aCols : 0, oa = op.aTmem ? op.aCols : 0;
        if (columnsOverlap(op.dCol0, op.dCols, q.dCol0, q.dCols) ||
            columnsOverlap(op.dCol0, op.dCols, q.aCol0, qa) ||
            columnsOverlap(op.aCol0, oa, q.dCol0, q.dCols))
          return &q;
      }
    }
    return nullptr;
  }
  /// A pending MMA that reads or writes tensor-memory columns a
  /// tcgen05.cp being issued writes (D, A in TMEM, or the scale factors).
  /// tcgen05.cp -> tcgen05.mma is a tcgen05 pipeline but tcgen05.mma ->
  /// tcgen05.cp is not (PTX ISA 9.7.16.6.2), so the copy may land before
  /// the MMA has read the columns.
  const MmaOp *copyOverPendingMma(const MmaOp &cp) const {
    for (const MmaOp &q : queue_) {
      if (q.isCommit || q.special)
        continue;
      for (int p = 0; p < 2; ++p) {
        if (!cp.parts[p] || (q.parts[0] != cp.parts[p] &&
                             q.parts[1] != cp.parts[p]))
          continue;
        uint32_t qa = q.aTmem ? q.aCols : 0;
        if (columnsOverlap(cp.dCol0, cp.dCols, q.dCol0, q.dCols) ||
            columnsOverlap(cp.dCol0, cp.dCols, q.aCol0, qa) ||
            (q.scaled &&
             (columnsOverlap(cp.dCol0, cp.dCols, q.sfaCol, 4) ||
              columnsOverlap(cp.dCol0, cp.dCols, q.sfbCol, (q.f.n + 31) / 32))))
          return &q;
      }
    }
    return nullptr;
  }
  /// The pending MMA whose tensor-memory lanes [lane0, lane1) and columns
  /// [col, col + n) of `cta` overlap: written (D) or, when `write`, also
  /// read (A, accumulated D).
  const MmaOp *touchesTmem(const Cta &cta, uint32_t col, uint32_t n, bool write,
                           uint32_t lane0, uint32_t lane1) const {
    for (const MmaOp &op : queue_) {
      if (op.isCommit)
        continue;
      if (!op.usesLanes(lane0, lane1))
        continue;
      for (int p = 0; p < 2; ++p) {
        if (op.parts[p] != &cta)
          continue;
        if (col < op.dCol0 + op.dCols && op.dCol0 < col + n)
          return &op;
        if (write && op.aTmem && col < op.aCol0 + op.aCols &&
            op.aCol0 < col + n)
          return &op;
      }
    }
    return nullptr;
  }

private:
  std::deque<MmaOp> queue_;
  unsigned delay_ = 0;
  unsigned limit_ = kMaxDelayRounds; ///< rounds before the next run
};

void Executor::clearTensorUnit() {
  if (tensor_)
    tensor_->clear();
}

const std::string *Executor::mmaReadsShared(const Cta &cta, uint64_t off,
                                            uint32_t bytes) const {
  if (!tensor_)
    return nullptr;
  const MmaOp *op = tensor_->readsShared(cta, off, bytes);
  return op ? &op->origin : nullptr;
}

const std::string *Executor::mmaTouchesTmem(const Cta &cta, uint32_t col,
                                            uint32_t n, bool write,
                                            uint32_t lane0,
                                            uint32_t lane1) const {
  if (!tensor_)
    return nullptr;
  const MmaOp *op = tensor_->touchesTmem(cta, col, n, write, lane0, lane1);
  return op ? &op->origin : nullptr;
}

Executor::TensorUnit &Executor::tensorUnit() {
  if (!tensor_) {
    auto unit = std::make_unique<TensorUnit>();
    tensor_ = unit.get();
    addAsyncUnit(std::move(unit));
  }
  return *tensor_;
}

//===----------------------------------------------------------------------===//
// Issue
//===----------------------------------------------------------------------===//

bool Executor::execMma(Warp &w, const XInst &I, uint32_t mask) {
  for (uint32_t m = mask; m; m &= m - 1) {
    uint32_t lane = static_cast<uint32_t>(__builtin_ctz(m));
    bool ok = I.op == XOp::TmemMma      ? mmaLane(w, lane, I)
              : I.op == XOp::TmemCommit ? commitLane(w, lane, I)
                                        : cpShiftLane(w, lane, I);
    if (!ok)
      return false;
  }
  return true;
}

/// Rows of a tcgen05.cp shape and the 32-bit columns each row fills.
static void cpGeometry(uint8_t shape, uint32_t &rows, uint32_t &cols) {
  rows = shape == XC_128x256b || shape == XC_128x128b ? 128
         : shape == XC_32x128b_warpx4                 ? 32
         : shape == XC_4x256b                         ? 4
                                                      : 64;
  cols = shape == XC_128x256b || shape == XC_4x256b ? 8 : 4;
}

/// The TMEM lanes (relative to the address's lane) source row `r` of a
/// tcgen05.cp shape goes to.
static std::vector<uint32_t> cpLanes(uint8_t shape, uint32_t r) {
  switch (shape) {
  case XC_4x256b:
    // One row per 32-lane subpartition (docs/Emulator.md, "tcgen05.cp
    // .4x256b": the ISA gives only "4 lanes x 256 bits"; open question).
    return {32 * r};
  case XC_64x128b_02_13:
    return r < 32 ? std::vector<uint32_t>{r, 64 + r}
                  : std::vector<uint32_t>{r, 64 + r}; // 32..63 -> 1, 3
  case XC_64x128b_01_23:
    return r < 32 ? std::vector<uint32_t>{r, 32 + r}
                  : std::vector<uint32_t>{32 + r, 64 + r}; // -> 2, 3
  case XC_32x128b_warpx4:
    return {r, 32 + r, 64 + r, 96 + r};
  default:
    return {r};
  }
}

bool Executor::cpShiftLane(Warp &w, uint32_t lane, const XInst &I) {
  const std::string mnem = I.inst ? I.inst->mnemonic : "tcgen05";
  auto bad = [&](const std::string &why) {
    return fault(Fault::Kind::Invalid, w, lane, I, "'" + mnem + "': " + why);
  };
  MmaOp op;
  op.special = I.op == XOp::TmemCp ? 1 : 2;
  op.cpShape = I.sub;
  op.ctaGroup2 = (I.sub2 & XT_CtaGroup2) != 0;
  op.dAddr = static_cast<uint32_t>(src(w, I.src[0])[lane] +
                                   static_cast<uint64_t>(I.imm));
  Cta &cta = *w.cta;
  op.parts[0] = &cta;
  if (op.ctaGroup2) {
    if (cta.rank % 2 != 0 || cta.rank + 1 >= ctas_.size())
      return bad("cta_group::2 needs the even CTA of a pair to issue it");
    op.parts[1] = ctas_[cta.rank + 1].get();
  }
  if (op.special == 1 && op.cpShape == XC_4x256b) {
    if (tmem::addressLane(op.dAddr) >= 32)
      return bad("the TMEM address " + hexStr(op.dAddr) +
                 " of a .4x256b copy must name a lane in 0..31 (row r goes "
                 "to that lane of subpartition r)");
  } else if (tmem::addressLane(op.dAddr) != 0) {
    return bad("the TMEM address " + hexStr(op.dAddr) +
               " must start at lane 0");
  }
  op.cpBits = (I.sub2 & XCP_B6x16P32) ? 6 : (I.sub2 & XCP_B4x16P64) ? 4 : 0;
  op.dCol0 = tmem::addressColumn(op.dAddr);
  uint32_t rows = 128, cols = 8;
  if (op.special == 1)
    cpGeometry(op.cpShape, rows, cols);
  op.dCols = cols;
  for (int q = 0; q < (op.ctaGroup2 ? 2 : 1); ++q) {
    if (!insideAllocation(*op.parts[q], op.dCol0, cols))
      return bad("TMEM columns " + std::to_string(op.dCol0) + ".." +
                 std::to_string(op.dCol0 + cols - 1) +
                 " are not inside a live allocation of CTA rank " +
                 std::to_string(op.parts[q]->rank));
  }
  if (op.special == 1) {
    op.aDesc = src(w, I.src[1])[lane];
    std::string e;
    auto d = umma::decodeSmemDesc(op.aDesc, &e);
    if (!d)
      return bad("source descriptor " + hexStr(op.aDesc) + ": " + e);
    if (d->baseOffset != 0 || d->lboAbsolute ||
        d->swizzle == umma::Swizzle::B128Base32B)
      return fault(Fault::Kind::NotImplemented, w, lane, I,
                   "not implemented yet: '" + mnem +
                       "' with a base offset, absolute LBO or the "
                       "128B-base32B swizzle");
    // The source: rows x (4 * cols) bytes as a K-major matrix of bytes.
    uint64_t lo, hi;
    footprint(*d, umma::Major::K, ElemFormat{}, rows, 4 * cols, lo, hi);
    for (int q = 0; q < (op.ctaGroup2 ? 2 : 1); ++q) {
      if (hi > op.parts[q]->shared.size())
        return fault(Fault::Kind::Memory, w, lane, I,
                     "'" + mnem + "' reads shared memory up to offset " +
                         hexStr(hi) + " of CTA rank " +
                         std::to_string(op.parts[q]->rank) + ", which has " +
                         std::to_string(op.parts[q]->shared.size()) +
                         " bytes");
      op.smemLo[q][0] = lo;
      op.smemHi[q][0] = hi;
    }
  }
  op.origin = location(w, lane, I.line);
  if (op.special == 1)
    if (const MmaOp *q = tensorUnit().copyOverPendingMma(op))
      return fault(Fault::Kind::Invalid, w, lane, I,
                   "race: this tcgen05.cp writes tensor-memory columns " +
                       std::to_string(op.dCol0) + ".." +
                       std::to_string(op.dCol0 + op.dCols - 1) +
                       " that the tcgen05.mma issued in " + q->origin +
                       " (not complete) uses; tcgen05.mma -> tcgen05.cp "
                       "is not a tcgen05 pipeline (PTX ISA 9.7.16.6.2), so "
                       "the copy may land first: wait on the mbarrier of a "
                       "tcgen05.commit after the MMA");
  if (san_)
    for (int q = 0; q < (op.ctaGroup2 ? 2 : 1); ++q)
      if (!sanTmem(w, lane, I, op.parts[q]->rank, 0, rows, op.dCol0,
                   op.dCol0 + cols, true,
                   op.special == 1 ? "tcgen05.cp" : "tcgen05.shift"))
        return false;
  tensorUnit().push(std::move(op));
  return true;
}

std::string Executor::runCpShift(const MmaOp &op) {
  for (int q = 0; q < (op.ctaGroup2 ? 2 : 1); ++q) {
    Cta &c = *op.parts[q];
    ensureTmem(c);
    auto cell = [&](uint32_t lane, uint32_t col) -> size_t {
      return size_t(lane) * tmem::kColumns + col;
    };
    if (op.special == 2) {
      // shift.down: 32-byte rows (8 columns) move down one lane; lane 0
      // keeps its contents, lane 127's are replaced.
      for (uint32_t l = tmem::kLanes - 1; l >= 1; --l)
        for (uint32_t k = 0; k < 8; ++k) {
          c.tmem[cell(l, op.dCol0 + k)] = c.tmem[cell(l - 1, op.dCol0 + k)];
          c.tmemWritten[cell(l, op.dCol0 + k)] =
              c.tmemWritten[cell(l - 1, op.dCol0 + k)];
        }
      continue;
    }
    auto d = umma::decodeSmemDesc(op.aDesc);
    uint32_t rows, cols;
    cpGeometry(op.cpShape, rows, cols);
    unsigned B = swizzleBits(d->swizzle);
    const uint32_t lane0 = tmem::addressLane(op.dAddr);
    // Row r of the source: 4 * cols bytes read as a K-major byte matrix.
    std::vector<uint8_t> row(4 * cols);
    for (uint32_t r = 0; r < rows; ++r) {
      for (uint32_t b = 0; b < 4 * cols; ++b)
        row[b] = c.shared[swizzle(
            d->startAddress + canonicalOffset(*d, umma::Major::K, 1, r, b), B)];
      if (op.cpBits) {
        // Decompression (PTX 9.7.16.9.1): each 16-byte chunk holds 16
        // packed 4- or 6-bit elements (then padding); element j becomes
        // byte j of the chunk, in the 8-bit container of the MMA kinds.
        for (uint32_t ch = 0; ch < 4 * cols; ch += 16) {
          uint8_t out[16];
          for (uint32_t j = 0; j < 16; ++j) {
            unsigned bit = j * op.cpBits;
            uint32_t two =
                row[ch + bit / 8] |
                uint32_t(bit / 8 + 1 < 16 ? row[ch + bit / 8 + 1] : 0) << 8;
            uint32_t e = (two >> (bit % 8)) & ((1u << op.cpBits) - 1);
            out[j] = static_cast<uint8_t>(toContainer(e, op.cpBits));
          }
          std::memcpy(&row[ch], out, 16);
        }
      }
      for (uint32_t k = 0; k < cols; ++k) {
        uint32_t v = 0;
        for (uint32_t b = 0; b < 4; ++b)
          v |= uint32_t(row[4 * k + b]) << (8 * b);
        for (uint32_t lane : cpLanes(op.cpShape, r)) {
          c.tmem[cell(lane0 + lane, op.dCol0 + k)] = v;
          c.tmemWritten[cell(lane0 + lane, op.dCol0 + k)] = 1;
        }
      }
    }
  }
  return "";
}

bool Executor::mmaLane(Warp &w, uint32_t lane, const XInst &I) {
  const std::string mnem = I.inst ? I.inst->mnemonic : "tcgen05.mma";
  auto bad = [&](const std::string &why) {
    return fault(Fault::Kind::Invalid, w, lane, I, "'" + mnem + "': " + why);
  };
  MmaOp op;
  op.ctaGroup2 = (I.sub2 & XT_CtaGroup2) != 0;
  op.aTmem = (I.sub2 & XM_ATmem) != 0;
  op.ws = (I.sub2 & XM_Ws) != 0;
  auto kind = static_cast<umma::MmaKind>(I.sub);
  uint32_t idesc = static_cast<uint32_t>(src(w, I.src[3])[lane]);
  std::string derr;
  auto f = umma::decodeInstrDesc(idesc, kind, &derr);
  if (f) {
    // The descriptor alone cannot say .ws or cta_group::2 (decodeInstrDesc
    // infers them from M and max_shift): verify again with the
    // instruction's own.
    f->weightStationary = op.ws;
    f->ctaGroup = op.ctaGroup2 ? 2 : 1;
    if (auto msg = umma::verifyInstrDesc(*f)) {
      derr = *msg;
      f.reset();
    }
  }
  if (!f)
    return bad("instruction descriptor " + hexStr(idesc) + ": " + derr);
  op.f = *f;
  unsigned cg = op.ctaGroup2 ? 2 : 1;
  if (!op.ws && op.ctaGroup2 && op.f.m != 256)
    return fault(Fault::Kind::NotImplemented, w, lane, I,
                 "not implemented yet: '" + mnem +
                     "' with M = " + std::to_string(op.f.m) +
                     " and cta_group::" + std::to_string(cg) +
                     " (implemented: M = 64 and 128 with cta_group::1, M = "
                     "256 with cta_group::2, M = 32, 64 and 128 with .ws)");
  // kind::f8f6f4 / mxf8f6f4 read 4- and 6-bit operands in their padded
  // form, which exists only K-major (PTX Table 52: transposes are for 8-,
  // 16- and 32-bit types).
  for (auto [t, major, which] : {std::tuple{op.f.a, op.f.aMajor, "A"},
                                 std::tuple{op.f.b, op.f.bMajor, "B"}})
    if (elemFormat(t, kind).storage == Storage::Padded &&
        major != umma::Major::K)
      return bad(std::string("an ") + umma::stringify(t) + " " + which +
                 " operand must be K-major (the instruction descriptor "
                 "transposes it; PTX Table 52 allows MN-major only for 8-, "
                 "16- and 32-bit types)");
  const ElemFormat afmt = elemFormat(op.f.a, kind),
                   bfmt = elemFormat(op.f.b, kind);
  op.scaled = umma::isBlockScaled(kind);
  op.block = I.vec;
  {
    const uint32_t *lst = prog_.lists.data() + I.listBegin;
    auto val = [&](uint32_t enc) { return src(w, enc)[lane]; };
    if (op.scaled) {
      uint32_t sfa = static_cast<uint32_t>(val(lst[1]) + val(lst[2]));
      uint32_t sfb = static_cast<uint32_t>(val(lst[3]) + val(lst[4]));
      if (tmem::addressLane(sfa) != 0 || tmem::addressLane(sfb) != 0)
        return bad("the scale-factor addresses " + hexStr(sfa) + ", " +
                   hexStr(sfb) + " must start at lane 0");
      op.sfaCol = tmem::addressColumn(sfa);
      op.sfbCol = tmem::addressColumn(sfb);
    }
    op.scaleD = static_cast<unsigned>(val(lst[5]));
    if (I.sub2 & XM_ZeroColMask) {
      uint64_t zd = val(lst[6]);
      std::string zerr;
      auto z = umma::decodeZeroColumnMask(zd, &zerr);
      if (!z)
        return bad("zero-column mask descriptor " + hexStr(zd) + ": " + zerr);
      const unsigned maxShift = op.f.m == 32 ? 16 : 32;
      if (z->columnShift > maxShift)
        return bad("zero-column mask descriptor " + hexStr(zd) +
                   ": column shift " + std::to_string(z->columnShift) +
                   " exceeds " + std::to_string(maxShift) +
                   " for M = " + std::to_string(op.f.m));
      umma::zeroColumnMask(*z, op.f.m, op.f.n, op.zeroCols);
      op.colShift = z->columnShift;
    }
    for (uint32_t i = 0; i < I.listCount; ++i)
      op.disable[i] = static_cast<uint32_t>(val(lst[7 + i]));
  }
  uint32_t p = w.preds[I.target];
  if (I.sub2 & XM_NegEnable)
    p = ~p;
  op.accumulate = (p >> lane) & 1;
  op.dAddr = static_cast<uint32_t>(src(w, I.src[0])[lane] +
                                   static_cast<uint64_t>(I.imm));
  const uint64_t aImm = w.consts[size_t(prog_.lists[I.listBegin] & ~kConstBit) * 32];
  if (op.aTmem)
    op.aAddr = static_cast<uint32_t>(src(w, I.src[1])[lane] + aImm);
  else
    op.aDesc = src(w, I.src[1])[lane];
  op.bDesc = src(w, I.src[2])[lane];

  // The CTAs taking part.
  Cta &cta = *w.cta;
  op.parts[0] = &cta;
  if (op.ctaGroup2) {
    if (cta.rank % 2 != 0)
      return bad("a cta_group::2 MMA must be issued by the even (leader) "
                 "CTA of the pair; CTA rank " +
                 std::to_string(cta.rank) + " issued it");
    if (cta.rank + 1 >= ctas_.size())
      return bad("cta_group::2 needs a peer CTA (rank " +
                 std::to_string(cta.rank + 1) + "), but the cluster has " +
                 std::to_string(ctas_.size()) + " CTAs");
    op.parts[1] = ctas_[cta.rank + 1].get();
  }

  // Tensor-memory operands. Lane alignment (PTX ISA 9.7.16.10.5, "Data
  // Path Layout Organization"): 0, or 0 or 16 for the half-data-path layout
  // F (M = 64), where A in TMEM must use D's alignment.
  const bool halfPath = layoutF(op.f, op.ws, op.ctaGroup2);
  const std::string shapeName = "an M = " + std::to_string(op.f.m) +
                                (op.ws          ? " .ws"
                                 : op.ctaGroup2 ? " cta_group::2"
                                                : "") +
                                " MMA";
  const std::string alignRule =
      halfPath ? shapeName + " (data path layout F, half the data path) must "
                             "start at lane 0 or 16"
               : shapeName + " must start at lane 0 (lane alignment 0; only "
                             "M = 64 without .ws, layout F, also allows 16)";
  const std::string isaRef =
      " (PTX ISA 9.7.16.10.5, Data Path Layout Organization)";
  op.laneAlign = tmem::addressLane(op.dAddr);
  if (op.laneAlign != 0 && !(halfPath && op.laneAlign == 16))
    return bad("the D address " + hexStr(op.dAddr) + " names lane " +
               std::to_string(op.laneAlign) + ", but the D operand of " +
               alignRule + isaRef);
  if (halfPath)
    for (uint64_t &word : op.lanes)
      word = (uint64_t(0xffff) << op.laneAlign) * (1 + (uint64_t(1) << 32));
  op.dCol0 = tmem::addressColumn(op.dAddr);
  // .ws with M < 128 folds N into 128 / M lane groups of N M / 128 columns.
  op.dCols = op.ws ? op.f.n * op.f.m / 128 : op.f.n;
  const unsigned K = umma::mmaK(kind);
  // Bits of one A element in TMEM: 4/6-bit elements of kind::(mx)f8f6f4
  // take an 8-bit container (PTX 9.7.16.10.4.3).
  const unsigned aTmemBits = afmt.storage == Storage::Padded ? 8 : afmt.bits;
  if (op.aTmem) {
    const uint32_t aLane = tmem::addressLane(op.aAddr);
    if (aLane != op.laneAlign)
      return bad("the A address " + hexStr(op.aAddr) + " names lane " +
                 std::to_string(aLane) + ", but " +
                 (halfPath ? "the A operand in tensor memory of " + shapeName +
                                 " (data path layout F) must use the D "
                                 "address's lane alignment, lane " +
                                 std::to_string(op.laneAlign) +
                                 " (the D address " + hexStr(op.dAddr) + ")"
                           : "the A operand in tensor memory of " + alignRule) +
                 isaRef);
    op.aCol0 = tmem::addressColumn(op.aAddr);
    op.aCols = K * aTmemBits / 32;
  }
  for (int q = 0; q < (op.ctaGroup2 ? 2 : 1); ++q) {
    Cta &c = *op.parts[q];
    auto allocated = [&](uint32_t col, uint32_t n) {
      return insideAllocation(c, col, n);
    };
    if (!allocated(op.dCol0, op.dCols))
      return bad("D columns " + std::to_string(op.dCol0) + ".." +
                 std::to_string(op.dCol0 + op.dCols - 1) +
                 " are not inside one live allocation of CTA rank " +
                 std::to_string(c.rank));
    if (op.aTmem && !allocated(op.aCol0, op.aCols))
      return bad("A columns " + std::to_string(op.aCol0) + ".." +
                 std::to_string(op.aCol0 + op.aCols - 1) +
                 " are not inside one live allocation of CTA rank " +
                 std::to_string(c.rank));
    if (op.scaled && (!allocated(op.sfaCol, 4) ||
                      !allocated(op.sfbCol, (op.f.n + 31) / 32)))
      return bad("the scale factors (A at column " +
                 std::to_string(op.sfaCol) + ", B at column " +
                 std::to_string(op.sfbCol) +
                 ") are not inside a live allocation of CTA rank " +
                 std::to_string(c.rank));
  }
  if (op.aTmem && op.ctaGroup2)
    return fault(Fault::Kind::NotImplemented, w, lane, I,
                 "not implemented yet: '" + mnem +
                     "' with A in tensor memory and cta_group::2 "
                     "(implemented: cta_group::1 with M = 64 and 128, and "
                     ".ws)");

  // Shared-memory operands: decode, and record the byte ranges read.
  auto decode = [&](uint64_t desc, const char *which,
                    umma::SmemDescFields &out) -> bool {
    std::string e;
    auto d = umma::decodeSmemDesc(desc, &e);
    if (!d)
      return bad(std::string(which) + " descriptor " + hexStr(desc) + ": " +
                 e);
    if (d->baseOffset != 0 || d->lboAbsolute ||
        d->swizzle == umma::Swizzle::B128Base32B)
      return fault(Fault::Kind::NotImplemented, w, lane, I,
                   "not implemented yet: '" + mnem + "' " + which +
                       " descriptor " + hexStr(desc) +
                       " with a base offset, absolute LBO mode or the "
                       "128B-base32B swizzle");
    out = *d;
    return true;
  };
  umma::SmemDescFields ad, bd;
  if (!op.aTmem && !decode(op.aDesc, "A", ad))
    return false;
  if (!decode(op.bDesc, "B", bd))
    return false;
  const uint32_t mPart = op.ctaGroup2 ? op.f.m / 2 : op.f.m;
  // B rows read: N (per CTA), plus the .ws column shift.
  const uint32_t nPart = (op.ctaGroup2 ? op.f.n / 2 : op.f.n) + op.colShift;
  for (int q = 0; q < (op.ctaGroup2 ? 2 : 1); ++q) {
    uint64_t aLo = 0, aHi = 0, bLo, bHi;
    if (!op.aTmem)
      footprint(ad, op.f.aMajor, afmt, mPart, K, aLo, aHi);
    footprint(bd, op.f.bMajor, bfmt, nPart, K, bLo, bHi);
    const uint64_t hi = std::max(aHi, bHi);
    if (hi > op.parts[q]->shared.size())
      return fault(Fault::Kind::Memory, w, lane, I,
                   "'" + mnem + "' reads shared memory up to offset " +
                       hexStr(hi) + " of CTA rank " +
                       std::to_string(op.parts[q]->rank) + ", which has " +
                       std::to_string(op.parts[q]->shared.size()) +
                       " bytes (A descriptor " + hexStr(op.aDesc) +
                       ", B descriptor " + hexStr(op.bDesc) + ")");
    op.smemLo[q][0] = aLo;
    op.smemHi[q][0] = aHi;
    op.smemLo[q][1] = bLo;
    op.smemHi[q][1] = bHi;
    // The descriptor's swizzle against the TMA load that wrote the bytes:
    // a mismatch reads every row permuted (a wrong-swizzle descriptor).
    for (int o = op.aTmem ? 1 : 0; o < 2; ++o) {
      const umma::SmemDescFields &d = o ? bd : ad;
      const uint64_t lo = o ? bLo : aLo, hi = o ? bHi : aHi;
      const std::vector<uint8_t> &sw = op.parts[q]->tmaSwizzle;
      for (uint64_t k = lo / 128; hi > lo && k <= (hi - 1) / 128 &&
                                  k < sw.size();
           ++k) {
        // K-major rows written by a swizzled TMA box are 16 << swizzle
        // bytes apart, so its 8-row core-matrix groups are 8 times that:
        // the descriptor's SBO must say so.
        const umma::Major major = o ? op.f.bMajor : op.f.aMajor;
        if (sw[k] != 0xff && sw[k] == swizzleBits(d.swizzle) && sw[k] != 0 &&
            major == umma::Major::K &&
            d.sboBytes != 8u * (16u << swizzleBits(d.swizzle)))
          return fault(Fault::Kind::Invalid, w, lane, I,
                       "'" + mnem + "' " + (o ? "B" : "A") + " descriptor " +
                           hexStr(o ? op.bDesc : op.aDesc) + " has a stride "
                           "byte offset (SBO) of " +
                           std::to_string(d.sboBytes) +
                           " bytes, but the K-major rows a TMA load wrote "
                           "there with the " +
                           std::to_string(16u << swizzleBits(d.swizzle)) +
                           "-byte swizzle put 8-row groups " +
                           std::to_string(8u * (16u << swizzleBits(d.swizzle))) +
                           " bytes apart");
        if (sw[k] == 0xff || sw[k] == swizzleBits(d.swizzle))
          continue;
        static const char *const names[] = {"no", "32-byte", "64-byte",
                                            "128-byte"};
        return fault(Fault::Kind::Invalid, w, lane, I,
                     "'" + mnem + "' " + (o ? "B" : "A") + " descriptor " +
                         hexStr(o ? op.bDesc : op.aDesc) + " reads shared " +
                         hexStr(k * 128) + " of CTA rank " +
                         std::to_string(op.parts[q]->rank) + " with the " +
                         names[swizzleBits(d.swizzle) & 3] +
                         " swizzle, but the TMA load that wrote those bytes "
                         "used the " + names[sw[k] & 3] +
                         " swizzle (the descriptor's layout type must match "
                         "the tensor map's swizzle)");
      }
    }
  }
  // An operand a TMA load still writes: the MMA would read it before the
  // copy lands. Correct kernels wait on the load's mbarrier first, so the
  // copy has completed by then under every schedule.
  if (tma_ && cfg_.checkTmaRaces)
    for (int q = 0; q < (op.ctaGroup2 ? 2 : 1); ++q)
      for (int o = op.aTmem ? 1 : 0; o < 2; ++o)
        if (std::optional<std::string> tma = tmaInFlight(
                *op.parts[q], op.smemLo[q][o],
                static_cast<uint32_t>(op.smemHi[q][o] - op.smemLo[q][o])))
          return fault(Fault::Kind::Invalid, w, lane, I,
                       std::string("race: this tcgen05.mma reads its ") +
                           (o ? "B" : "A") + " operand (shared " +
                           hexStr(op.smemLo[q][o]) + ".." +
                           hexStr(op.smemHi[q][o]) + " of CTA rank " +
                           std::to_string(op.parts[q]->rank) + ") while " +
                           *tma +
                           " (not complete) writes it; wait on the copy's "
                           "mbarrier before issuing the MMA");
  op.origin = location(w, lane, I.line);
  if (const MmaOp *q = tensorUnit().crossPipelineHazard(op))
    return fault(Fault::Kind::Invalid, w, lane, I,
                 "race: this tcgen05.mma shares tensor-memory columns with "
                 "the tcgen05.mma issued in " + q->origin +
                 " (not complete), which is not in its pipeline (a "
                 "different accumulator or shape, so the two may run in "
                 "either order; PTX ISA, pipelined tcgen05 instructions); "
                 "wait on the mbarrier of a tcgen05.commit after the first");
  if (san_) {
    // D (and A in tensor memory) at issue: the MMA runs after everything
    // its issuing warp was ordered after, and before its commit's arrive.
    // The lanes: all 128 (M = 128 and 256, .ws) or layout F's 16 of each
    // quadrant, as one band per quadrant.
    std::vector<std::pair<uint32_t, uint32_t>> bands;
    if (halfPath)
      for (uint32_t sp = 0; sp < 4; ++sp)
        bands.push_back({32 * sp + op.laneAlign, 32 * sp + op.laneAlign + 16});
    else
      bands.push_back({0, tmem::kLanes});
    const uint32_t seq = san_->nextMma(sanWarp(w));
    const uint64_t pipeline = (uint64_t(op.dAddr) << 32) ^
                              (uint64_t(op.f.m) << 16) ^ op.f.n ^
                              (op.ctaGroup2 ? 1ull << 31 : 0);
    for (int q = 0; q < (op.ctaGroup2 ? 2 : 1); ++q) {
      for (auto [l0, l1] : bands) {
        std::string pe =
            op.aTmem ? san_->mmaTmem(sanWarp(w), seq, op.parts[q]->rank, l0, l1,
                                     op.aCol0, op.aCol0 + op.aCols, false,
                                     pipeline, I.line)
                     : std::string();
        if (pe.empty())
          pe = san_->mmaTmem(sanWarp(w), seq, op.parts[q]->rank, l0, l1,
                             op.dCol0, op.dCol0 + op.dCols, true, pipeline,
                             I.line);
        if (!pe.empty())
          return sanFault(w, lane, I, pe);
      }
      for (int o = op.aTmem ? 1 : 0; o < 2; ++o) {
        std::string e = san_->asyncRead(
            sanWarp(w), op.parts[q]->rank,
            static_cast<uint32_t>(op.smemLo[q][o]),
            static_cast<uint32_t>(op.smemHi[q][o]), I.line, "tcgen05.mma");
        // Its read of the operand through the async proxy, ordered after
        // (and proxy-fenced from) what wrote it.
        if (e.empty())
          e = san_->proxyRead(sanWarp(w), op.parts[q]->rank,
                              static_cast<uint32_t>(op.smemLo[q][o]),
                              static_cast<uint32_t>(op.smemHi[q][o]), I.line,
                              o ? "tcgen05.mma's read of B"
                                : "tcgen05.mma's read of A");
        if (!e.empty())
          return sanFault(w, lane, I, e);
      }
      for (auto [l0, l1] : bands) {
        if (op.aTmem &&
            !sanTmem(w, lane, I, op.parts[q]->rank, l0, l1, op.aCol0,
                     op.aCol0 + op.aCols, false, "tcgen05.mma (A)"))
          return false;
        if (!sanTmem(w, lane, I, op.parts[q]->rank, l0, l1, op.dCol0,
                     op.dCol0 + op.dCols, true, "tcgen05.mma (D)"))
          return false;
      }
    }
  }
  LaunchStats::Cta &counters = stats_.perCta[w.cta->linear];
  ++(op.aTmem ? counters.mmasTmemA : counters.mmasSmemA);
  tensorUnit().push(std::move(op));
  ++stats_.mmas;
  return true;
}

bool Executor::commitLane(Warp &w, uint32_t lane, const XInst &I) {
  const std::string mnem = I.inst ? I.inst->mnemonic : "tcgen05.commit";
  uint64_t addr = src(w, I.src[0])[lane] + static_cast<uint64_t>(I.imm);
  if (I.space == XSpace::Generic) {
    if (addr < addrspace::kSharedWindow ||
        addr - addrspace::kSharedWindow >= addrspace::kWindowSize)
      return fault(Fault::Kind::Memory, w, lane, I,
                   "the mbarrier " + hexStr(addr) + " of '" + mnem +
                       "' is not a generic address of shared memory");
    addr -= addrspace::kSharedWindow;
  }
  uint32_t off = static_cast<uint32_t>(addrspace::sharedOffset(addr));
  uint64_t rank = addrspace::sharedRank(addr);
  MmaOp op;
  op.isCommit = true;
  std::vector<uint32_t> ranks;
  if (I.sub & XT_Multicast) {
    uint32_t ctaMask = static_cast<uint32_t>(src(w, I.src[1])[lane] & 0xffff);
    for (uint32_t r = 0; r < 16; ++r)
      if ((ctaMask >> r) & 1)
        ranks.push_back(r);
    if (ranks.empty())
      return fault(Fault::Kind::Invalid, w, lane, I,
                   "'" + mnem + "' with an empty CTA mask");
  } else {
    ranks.push_back(static_cast<uint32_t>(rank));
  }
  for (uint32_t r : ranks) {
    if (r >= ctas_.size())
      return fault(Fault::Kind::Invalid, w, lane, I,
                   "'" + mnem + "' names CTA rank " + std::to_string(r) +
                       ", but the cluster has " +
                       std::to_string(ctas_.size()) + " CTAs");
    Cta &c = *ctas_[r];
    if (san_ && r != w.cta->rank) {
      std::string e = san_->mbarRemoteUse(sanWarp(w), r, off, I.line,
                                          "the arrive of tcgen05.commit");
      if (!e.empty())
        return sanFault(w, lane, I, e);
    }
    if (off % 8 != 0 || uint64_t(off) + 8 > c.shared.size())
      return fault(Fault::Kind::Memory, w, lane, I,
                   "the mbarrier offset " + hexStr(off) + " of '" + mnem +
                       "' is misaligned or outside the shared memory of CTA "
                       "rank " +
                       std::to_string(r));
    op.arrivals.push_back({&c, off});
  }
  op.origin = location(w, lane, I.line);
  op.parts[0] = w.cta; // the issuer
  if (san_)
    op.sync = san_->snapshot(sanWarp(w), I.line, /*commit=*/true);
  tensorUnit().push(std::move(op));
  return true;
}

//===----------------------------------------------------------------------===//
// Execution
//===----------------------------------------------------------------------===//

std::string Executor::runCommit(const MmaOp &op) {
  for (const auto &a : op.arrivals) {
    if (a.first != op.parts[0] && a.first->liveWarps == 0)
      return "the arrive-on of the tcgen05.commit issued in " + op.origin +
             " reaches the mbarrier at shared " + hexStr(a.second) +
             " of CTA rank " + std::to_string(a.first->rank) +
             ", which has exited (its shared memory is gone; a cluster "
             "barrier before the exit keeps a CTA alive while its peers' "
             "MMAs still signal it)";
    if (san_)
      san_->releaseState(op.sync, san_->mbarCurrent(a.first->rank, a.second));
    std::string e = mbarrierUpdate(*a.first, a.second, 1, 0, 0);
    if (!e.empty())
      return "the arrive-on of the tcgen05.commit issued in " + op.origin +
             ": " + e;
  }
  return "";
}

std::string Executor::runMma(const MmaOp &op) {
  const umma::InstrDescFields &f = op.f;
  const unsigned K = umma::mmaK(f.kind);
  const ElemFormat afmt = elemFormat(f.a, f.kind),
                   bfmt = elemFormat(f.b, f.kind);
  const uint32_t mPart = op.ctaGroup2 ? f.m / 2 : f.m;
  const uint32_t nPart = op.ctaGroup2 ? f.n / 2 : f.n;
  const int nParts = op.ctaGroup2 ? 2 : 1;
  auto aSd = umma::decodeSmemDesc(op.aDesc);
  auto bSd = umma::decodeSmemDesc(op.bDesc);
  const double negA = f.negateA ? -1.0 : 1.0, negB = f.negateB ? -1.0 : 1.0;
  const bool isInt = f.kind == umma::MmaKind::I8;
  // LaunchConfig::mmaNumerics Hardware: an f32 accumulator follows the
  // assumed model (docs/Emulator.md, "MMA accumulation"): the H200's wgmma
  // model of the same operand width, block scales folded into the operands.
  std::optional<numerics::Model> model;
  if (cfg_.mmaNumerics == MmaNumerics::Hardware && !isInt &&
      f.d == umma::ElemType::F32)
    model = numerics::hopperModel(afmt.bits >= 16 ? 16 : 8);
  std::vector<double> mA, mB; // a model's scaled operands
  // .ws: D is folded into `groups` lane groups of `groupCols` columns.
  const uint32_t groups = op.ws ? 128 / f.m : 1;
  const uint32_t groupCols = f.n / groups;

  // Reads element (mn, k) of an operand in shared memory.
  auto smemElem = [](const Cta &c, const umma::SmemDescFields &d,
                     umma::Major major, ElemFormat fmt, uint32_t mn,
                     uint32_t k) {
    auto [addr, bit] = elementAddress(d, major, fmt, mn, k);
    addr = swizzle(addr, swizzleBits(d.swizzle)) + bit / 8;
    uint32_t v = 0;
    // Dense: the element's bytes; sub-byte: the (up to) two bytes holding
    // its bits (a 6-bit element may straddle a byte boundary).
    unsigned bytes = fmt.storage == Storage::Dense ? fmt.bits / 8
                     : fmt.bits + bit % 8 > 8      ? 2
                                                   : 1;
    std::memcpy(&v, c.shared.data() + addr, bytes);
    if (fmt.storage != Storage::Dense)
      v = (v >> (bit % 8)) & ((1u << fmt.bits) - 1);
    return v;
  };
  // B: all N rows (part q holds rows q*nPart ..); .ws reads colShift more.
  const uint32_t nRows = nPart + op.colShift;
  std::vector<double> B(size_t(nParts) * nRows * K);
  for (int q = 0; q < nParts; ++q)
    for (uint32_t n = 0; n < nRows; ++n)
      for (uint32_t k = 0; k < K; ++k)
        B[size_t(q * nRows + n) * K + k] =
            negB * elementValue(
                       f.b, smemElem(*op.parts[q], *bSd, f.bMajor, bfmt, n, k));
  // Row of B used for D column n: the column shift, then the part.
  auto bRow = [&](uint32_t n) -> const double * {
    uint32_t q = n / nPart;
    return &B[size_t(q * nRows + n % nPart + op.colShift) * K];
  };
  // A column of B that the zero-column mask selects reads as zeros.
  const std::vector<double> zeroRow(K, 0.0);
  auto zeroCol = [&](uint32_t n) {
    return (op.zeroCols[n / 64] >> (n % 64)) & 1;
  };
  // Layout F (M = 64): row m's lane, from the D (and A) address's lane.
  const bool halfPath = layoutF(f, op.ws, op.ctaGroup2);
  // A per lane group (only .ws with A in TMEM reads each group's own copy:
  // every data path lane uses the A row in its own lane).
  const uint32_t aGroups = op.aTmem ? groups : 1;
  std::vector<double> A(size_t(aGroups) * mPart * K);
  std::vector<double> sa, sb;
  const unsigned blocks = op.scaled ? K / op.block : 0;
  const unsigned aTmemBits = afmt.storage == Storage::Padded ? 8 : afmt.bits;
  for (int q = 0; q < nParts; ++q) {
    Cta &c = *op.parts[q];
    ensureTmem(c);
    auto cellByte = [&](uint32_t lane, uint32_t col, unsigned byte) {
      return (c.tmem[size_t(lane) * tmem::kColumns + col] >> (8 * byte)) & 0xff;
    };
    // A rows of this part.
    for (uint32_t g = 0; g < aGroups; ++g)
      for (uint32_t m = 0; m < mPart; ++m)
        for (uint32_t k = 0; k < K; ++k) {
          uint32_t bits;
          if (op.aTmem) {
            // A row m sits in the lane of D's row m (PTX ISA 9.7.16.10.5:
            // layout F needs A and D at the same lane alignment).
            const uint32_t lane =
                halfPath ? layoutFLane(m, op.laneAlign) : g * f.m + m;
            unsigned per = 32 / aTmemBits;
            size_t cell = size_t(lane) * tmem::kColumns + op.aCol0 + k / per;
            if (!c.tmemWritten[cell])
              return "the tcgen05.mma issued in " + op.origin +
                     " reads its A operand from TMEM lane " +
                     std::to_string(lane) + " column " +
                     std::to_string(op.aCol0 + k / per) +
                     ", which was never written" +
                     (g ? " (.ws with M = " + std::to_string(f.m) +
                              " reads A in each lane group of D: A must be "
                              "duplicated into lanes " +
                              std::to_string(g * f.m) + ".." +
                              std::to_string(g * f.m + f.m - 1) + ")"
                      : halfPath ? " (M = 64, data path layout F: row " +
                                       std::to_string(m) +
                                       " of A is read from lane "
                                       "32 (m / 16) + m % 16 + " +
                                       std::to_string(op.laneAlign) +
                                       ", the lanes of D's row)"
                                 : std::string());
            if (c.tmemStPending[cell])
              return "race: the tcgen05.mma issued in " + op.origin +
                     " reads its A operand from TMEM lane " +
                     std::to_string(lane) + " column " +
                     std::to_string(op.aCol0 + k / per) + ", which warp " +
                     std::to_string(c.tmemStPending[cell] - 1) +
                     " stored with tcgen05.st and has not waited for "
                     "(tcgen05.wait::st)";
            bits = (c.tmem[cell] >> ((k % per) * aTmemBits)) &
                   (aTmemBits == 32 ? 0xffffffffu : ((1u << aTmemBits) - 1));
            if (afmt.storage == Storage::Padded)
              bits = containerElement(bits, afmt.bits);
          } else {
            bits = smemElem(c, *aSd, f.aMajor, afmt, m, k);
          }
          A[(size_t(g) * mPart + m) * K + k] = negA * elementValue(f.a, bits);
        }
    // Block scales (docs/Emulator.md, "Block scaling"): row m's scale for
    // K block j is byte (sf id + j) of TMEM lane m, column sfa + m/32; column
    // n's is byte (sf id + j) of lane 32 (m/32) + n%32, column sfb + n/32 in
    // the subpartition of the row being computed (so scales must be
    // duplicated across subpartitions, as the ISA requires).
    if (op.scaled) {
      sa.assign(size_t(mPart) * blocks, 0);
      for (uint32_t m = 0; m < mPart; ++m)
        for (unsigned j = 0; j < blocks; ++j)
          sa[size_t(m) * blocks + j] = scaleValue(
              f.scaleType, cellByte(m, op.sfaCol + m / 32, f.aScaleId + j));
      sb.assign(size_t(4) * f.n * blocks, 0);
      for (uint32_t sp = 0; sp < 4; ++sp)
        for (uint32_t n = 0; n < f.n; ++n)
          for (unsigned j = 0; j < blocks; ++j)
            sb[(size_t(sp) * f.n + n) * blocks + j] = scaleValue(
                f.scaleType, cellByte(32 * sp + n % 32, op.sfbCol + n / 32,
                                      f.bScaleId + j));
    }
    const double dScale = std::ldexp(1.0, -int(op.scaleD));
    // D rows of this part.
    for (uint32_t m = 0; m < mPart; ++m) {
      // disable-output-lane (not with .ws): the row keeps its contents.
      const uint32_t rowLane = halfPath ? layoutFLane(m, op.laneAlign) : m;
      if (!op.ws && ((op.disable[q * 4 + rowLane / 32] >> (rowLane % 32)) & 1))
        continue;
      for (uint32_t n = 0; n < f.n; ++n) {
        // The TMEM cell of D[m][n] (PTX data path layouts A, D, E, F, G).
        uint32_t lane = rowLane, col = n;
        if (op.ws) {
          lane = m + f.m * (n / groupCols);
          col = n % groupCols;
        }
        const double *ar =
            &A[(size_t(aGroups > 1 ? lane / f.m : 0) * mPart + m) * K];
        const double *br = zeroCol(n) ? zeroRow.data() : bRow(n);
        double s = 0;
        if (op.scaled) {
          for (unsigned j = 0; j < blocks; ++j) {
            double part = 0;
            for (uint32_t k = j * op.block; k < (j + 1) * op.block; ++k)
              part += ar[k] * br[k];
            s += part * sa[size_t(m) * blocks + j] *
                 sb[(size_t(lane / 32) * f.n + n) * blocks + j];
          }
        } else {
          for (uint32_t k = 0; k < K; ++k)
            s += ar[k] * br[k];
        }
        size_t cell = size_t(lane) * tmem::kColumns + op.dCol0 + col;
        uint32_t &d = c.tmem[cell];
        if (op.accumulate && c.tmemStPending[cell])
          return "race: the tcgen05.mma issued in " + op.origin +
                 " accumulates into TMEM lane " + std::to_string(lane) +
                 " column " + std::to_string(op.dCol0 + col) + ", which warp " +
                 std::to_string(c.tmemStPending[cell] - 1) +
                 " stored with tcgen05.st and has not waited for "
                 "(tcgen05.wait::st)";
        if (op.accumulate && !c.tmemWritten[cell])
          return "the tcgen05.mma issued in " + op.origin +
                 " accumulates into TMEM lane " + std::to_string(lane) +
                 " column " + std::to_string(op.dCol0 + col) +
                 ", which was never written (enable-input-d is true for the "
                 "first MMA)";
        if (isInt) {
          // s32: exact integer sum, wrapping (or saturating with .satfinite
          // in the descriptor).
          int64_t acc = static_cast<int64_t>(s);
          if (op.accumulate)
            acc += static_cast<int32_t>(d);
          if (f.saturate)
            acc = std::clamp<int64_t>(acc, INT32_MIN, INT32_MAX);
          d = static_cast<uint32_t>(acc);
        } else if (f.d == umma::ElemType::F32 && model) {
          const double *ma = ar, *mb = br;
          if (op.scaled) {
            mA.assign(ar, ar + K);
            mB.assign(br, br + K);
            for (uint32_t k = 0; k < K; ++k) {
              mA[k] *= sa[size_t(m) * blocks + k / op.block];
              mB[k] *= sb[(size_t(lane / 32) * f.n + n) * blocks + k / op.block];
            }
            ma = mA.data();
            mb = mB.data();
          }
          d = bitsOf(static_cast<float>(numerics::accumulate(
              *model, op.accumulate ? double(f32FromBits(d)) * dScale : 0.0,
              ma, mb, K)));
        } else if (f.d == umma::ElemType::F32) {
          if (op.accumulate)
            s += double(f32FromBits(d)) * dScale;
          d = bitsOf(static_cast<float>(s));
        } else {
          if (op.accumulate)
            s += toDouble(kF16, d & 0xffff) * dScale;
          EncodeOptions eo;
          d = static_cast<uint32_t>(encode(kF16, unpackDouble(s), eo));
        }
        c.tmemWritten[cell] = 1;
      }
    }
  }
  return "";
}

} // namespace nvfp4::emu
