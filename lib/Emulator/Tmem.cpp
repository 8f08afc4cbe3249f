//===- Tmem.cpp - tcgen05 tensor memory -----------------------------------===//
//
// Per-CTA tensor memory (TMEM, 128 lanes x 512 columns x 32 bit) and the
// tcgen05 instructions that manage and move it: alloc, dealloc,
// relinquish_alloc_permit, ld, st, wait::ld / wait::st and fence::*. The
// thread <-> (lane, column) mapping of ld/st is threadRegisterToTmem()
// (nvfp4/Support/TensorMemory.h). See docs/Emulator.md, "Tensor memory".
//
//===----------------------------------------------------------------------===//

#include "Executor.h"

#include "nvfp4/Support/TensorMemory.h"

#include <algorithm>
#include <bitset>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace nvfp4::emu {

namespace {
constexpr uint32_t kTmemPoison = 0x7FBADBADu; // a NaN as f32
/// What a tcgen05.ld destination holds until tcgen05.wait::ld (a NaN).
constexpr uint64_t kLdPending = 0x7FA11D1Du;

uint32_t lowestLane(uint32_t m) {
  uint32_t l = 0;
  while (!((m >> l) & 1))
    ++l;
  return l;
}

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string dim(const Dim3 &d) {
  return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," +
         std::to_string(d.z) + ")";
}

std::string allocList(const Executor::Cta &cta) {
  if (cta.tmemAllocs.empty())
    return "none";
  std::string s;
  for (const auto &a : cta.tmemAllocs) {
    if (!s.empty())
      s += ", ";
    s += std::to_string(a.columns) + " columns at column " +
         std::to_string(a.column) + " (line " + std::to_string(a.line) + ")";
  }
  return s;
}
} // namespace

bool Executor::execTmem(Warp &w, const XInst &I, uint32_t mask) {
  if ((I.flags & XF_Aligned) && !checkAligned(w, I, mask))
    return false;
  Cta &cta = *w.cta;
  uint32_t lane = lowestLane(mask);
  switch (I.op) {
  case XOp::TmemFence:
    ++stats_.fences;
    if (san_) {
      if (I.sub == 1)
        san_->fenceAfter(sanWarp(w));
      else
        san_->fenceBefore(sanWarp(w));
    }
    return true;
  case XOp::TmemWait:
    // wait::ld makes the results of this warp's earlier tcgen05.ld visible:
    // until then their destination registers hold kLdPending. A register
    // that the program overwrote meanwhile keeps its new value. tcgen05.st
    // writes tensor memory at once (wait::st has nothing to do).
    if (I.sub == 1) {
      // wait::st: this warp's stores become visible to other warps and to
      // the tensor core.
      for (uint32_t cell : w.pendingSt)
        if (cta.tmemStPending[cell] == w.id + 1)
          cta.tmemStPending[cell] = 0;
      w.pendingSt.clear();
    }
    if (I.sub == 0) {
      for (const Warp::PendingLd &p : w.pendingLd) {
        uint64_t &r = row(w, p.row)[p.lane];
        if (r == kLdPending)
          r = p.value;
      }
      w.pendingLd.clear();
    }
    return true;
  case XOp::TmemRelinquish:
    cta.tmemRelinquished = true;
    return true;
  case XOp::TmemAlloc: {
    uint64_t ncols = src(w, I.src[1])[lane] & 0xffffffffu;
    if (auto msg = tmem::verifyAllocColumns(static_cast<int64_t>(ncols)))
      return fault(Fault::Kind::Invalid, w, lane, I,
                   "tcgen05.alloc of " + std::to_string(ncols) +
                       " columns: " + *msg);
    if (cta.tmemRelinquished)
      return fault(Fault::Kind::Invalid, w, lane, I,
                   "tcgen05.alloc after tcgen05.relinquish_alloc_permit in "
                   "this CTA");
    std::bitset<tmem::kColumns> used;
    for (const auto &a : cta.tmemAllocs)
      for (uint32_t c = a.column; c < a.column + a.columns; ++c)
        used.set(c);
    uint32_t n = static_cast<uint32_t>(ncols), found = tmem::kColumns;
    for (uint32_t c = 0; c + n <= tmem::kColumns && found == tmem::kColumns;
         c += tmem::kMinAllocColumns) {
      bool free = true;
      for (uint32_t k = c; k < c + n && free; ++k)
        free = !used.test(k);
      if (free)
        found = c;
    }
    if (found == tmem::kColumns)
      return fault(Fault::Kind::Invalid, w, lane, I,
                   "tcgen05.alloc of " + std::to_string(n) +
                       " columns cannot be satisfied (live allocations: " +
                       allocList(cta) +
                       "); on hardware it would block forever");
    uint64_t addr = src(w, I.src[0])[lane] + static_cast<uint64_t>(I.imm);
    uint8_t *p = resolve(w, lane, XSpace::Shared, addr, 4, true, I);
    if (!p)
      return false;
    // The allocation is a write of its columns (every lane) and of the
    // address slot: whoever uses either must be ordered after it.
    if (san_ && (!sanShared(w, lane, I, p, 4, true, "tcgen05.alloc") ||
                 !sanTmem(w, lane, I, cta.rank, 0, tmem::kLanes, found,
                          found + n, true, "tcgen05.alloc", false)))
      return false;
    uint32_t taddr = tmem::makeAddress(0, found);
    std::memcpy(p, &taddr, 4);
    cta.tmemAllocs.push_back({found, n, I.line});
    return true;
  }
  case XOp::TmemDealloc: {
    uint32_t taddr = static_cast<uint32_t>(src(w, I.src[0])[lane]);
    uint32_t n = static_cast<uint32_t>(src(w, I.src[1])[lane]);
    if (auto msg = tmem::verifyAllocColumns(n))
      return fault(Fault::Kind::Invalid, w, lane, I,
                   "tcgen05.dealloc of " + std::to_string(n) +
                       " columns: " + *msg);
    if (const std::string *origin = mmaTouchesTmem(
            cta, tmem::addressColumn(taddr), n, /*write=*/true))
      return fault(Fault::Kind::Invalid, w, lane, I,
                   "race: tcgen05.dealloc of TMEM columns that the "
                   "tcgen05.mma issued in " +
                       *origin + " (not complete) uses");
    for (size_t i = 0; i < cta.tmemAllocs.size(); ++i) {
      const auto &a = cta.tmemAllocs[i];
      if (tmem::addressLane(taddr) == 0 &&
          a.column == tmem::addressColumn(taddr) && a.columns == n) {
        // Every earlier use of the columns must be ordered before it.
        if (san_ && !sanTmem(w, lane, I, cta.rank, 0, tmem::kLanes, a.column,
                             a.column + n, true, "tcgen05.dealloc", false))
          return false;
        cta.tmemAllocs.erase(cta.tmemAllocs.begin() + long(i));
        return true;
      }
    }
    return fault(
        Fault::Kind::Invalid, w, lane, I,
        "tcgen05.dealloc of " + std::to_string(n) +
            " columns at TMEM address " + hex(taddr) +
            " does not match a live allocation (live: " + allocList(cta) + ")");
  }
  case XOp::TmemLd:
  case XOp::TmemSt:
    return tmemLdSt(w, I, mask);
  default:
    return true;
  }
}

void Executor::ensureTmem(Cta &cta) {
  if (cta.tmem.empty()) {
    cta.tmem.assign(size_t(tmem::kLanes) * tmem::kColumns, kTmemPoison);
    cta.tmemWritten.assign(size_t(tmem::kLanes) * tmem::kColumns, 0);
    cta.tmemStPending.assign(size_t(tmem::kLanes) * tmem::kColumns, 0);
  }
}

bool Executor::tmemLdSt(Warp &w, const XInst &I, uint32_t mask) {
  Cta &cta = *w.cta;
  bool isLd = I.op == XOp::TmemLd;
  const char *what = isLd ? "tcgen05.ld" : "tcgen05.st";
  ensureTmem(cta);
  std::bitset<tmem::kColumns> allocated;
  for (const auto &a : cta.tmemAllocs)
    for (uint32_t c = a.column; c < a.column + a.columns; ++c)
      allocated.set(c);
  auto shape = static_cast<tmem::LdStShape>(I.sub);
  unsigned num = I.target;
  bool pack = I.sub2 != 0;
  const uint32_t *list = prog_.lists.data() + I.listBegin;
  unsigned split = list[I.listCount];
  unsigned qBase = tmem::laneQuadrantBase(w.id);
  const uint64_t *ta = src(w, I.src[0]);
  // The columns the shape spans from the first active lane's address, and
  // the lanes it spans from the active lanes' addresses (within the warp's
  // quadrant; lanes outside it are the error below).
  uint32_t c0 = 0, span = 0, l0 = qBase, l1 = qBase + tmem::kLanesPerWarp;
  if (mask) {
    uint32_t taddr = static_cast<uint32_t>(ta[__builtin_ctz(mask)] +
                                           static_cast<uint64_t>(I.imm));
    c0 = tmem::addressColumn(taddr);
    span = shape == tmem::LdStShape::S16x32bx2 ? split + num
                                                : tmem::shapeColumns(shape, num);
    if (pack)
      span *= 2;
    uint32_t lo = UINT32_MAX, hi = 0;
    for (uint32_t m = mask; m; m &= m - 1) {
      uint32_t bl = tmem::addressLane(static_cast<uint32_t>(
          ta[__builtin_ctz(m)] + static_cast<uint64_t>(I.imm)));
      lo = std::min(lo, bl);
      hi = std::max(hi, bl + tmem::shapeLanes(shape));
    }
    l0 = std::clamp(lo, qBase, qBase + tmem::kLanesPerWarp);
    l1 = std::clamp(hi, l0, qBase + tmem::kLanesPerWarp);
    if (l0 == l1) { // every lane outside the quadrant: faults below
      l0 = qBase;
      l1 = qBase + tmem::kLanesPerWarp;
    }
  }
  if (tensor_ && mask) {
    // A pending tcgen05.mma must not be raced (docs/Emulator.md).
    if (const std::string *origin =
            mmaTouchesTmem(cta, c0, span, /*write=*/!isLd, l0, l1))
      return fault(Fault::Kind::Invalid, w, __builtin_ctz(mask), I,
                   std::string("race: ") + what + " of TMEM columns " +
                       std::to_string(c0) + ".." +
                       std::to_string(c0 + span - 1) +
                       " while the tcgen05.mma issued in " + *origin +
                       " (not complete) " + (isLd ? "writes" : "uses") +
                       " them; wait on the mbarrier of its tcgen05.commit "
                       "first");
  }
  // The sanitizer: the lanes of the access over those columns.
  if (san_ && mask &&
      !sanTmem(w, __builtin_ctz(mask), I, cta.rank, l0, l1, c0, c0 + span,
               !isLd, what))
    return false;
  for (uint32_t t = 0; t < 32; ++t) {
    if (!((mask >> t) & 1))
      continue;
    uint32_t taddr =
        static_cast<uint32_t>(ta[t] + static_cast<uint64_t>(I.imm));
    uint32_t bl = tmem::addressLane(taddr), bc = tmem::addressColumn(taddr);
    for (uint32_t r = 0; r < I.listCount; ++r) {
      tmem::LaneColumn lc = tmem::threadRegisterToTmem(shape, num, t, r, split);
      uint32_t ln = bl + lc.lane;
      uint32_t cols[2], ncell = pack ? 2 : 1;
      cols[0] = bc + (pack ? 2 * lc.column : lc.column);
      cols[1] = cols[0] + 1;
      if (ln < qBase || ln >= qBase + tmem::kLanesPerWarp)
        return fault(Fault::Kind::Invalid, w, t, I,
                     std::string(what) + " of TMEM lane " + std::to_string(ln) +
                         " (address " + hex(taddr) + "): warp " +
                         std::to_string(w.id) + " may only access lanes " +
                         std::to_string(qBase) + ".." +
                         std::to_string(qBase + 31) + " (warp id % 4)");
      uint64_t *reg = isLd ? row(w, list[r]) : nullptr;
      uint64_t sv = isLd ? 0 : src(w, list[r])[t];
      uint32_t val = 0;
      for (uint32_t h = 0; h < ncell; ++h) {
        uint32_t c = cols[h];
        if (c >= tmem::kColumns || !allocated.test(c))
          return fault(Fault::Kind::Invalid, w, t, I,
                       std::string(what) + " of TMEM lane " +
                           std::to_string(ln) + " column " + std::to_string(c) +
                           " (address " + hex(taddr) +
                           "): column not allocated (live allocations: " +
                           allocList(cta) + ")");
        size_t cell = size_t(ln) * tmem::kColumns + c;
        if (isLd) {
          // A cell never written reads as the poison NaN (counted): an
          // epilogue may read lanes an M = 64 accumulator leaves unused,
          // but a value that reaches the output is caught there.
          if (!cta.tmemWritten[cell])
            ++stats_.tmemPoisonReads;
          if (cta.tmemStPending[cell] == w.id + 1)
            return fault(Fault::Kind::Invalid, w, t, I,
                         "race: tcgen05.ld of TMEM lane " + std::to_string(ln) +
                             " column " + std::to_string(c) +
                             ", which this warp stored with tcgen05.st and "
                             "has not waited for: tcgen05.st and tcgen05.ld "
                             "are not pipelined, tcgen05.wait::st must come "
                             "between them (PTX ISA 9.7.16.6.4.2)");
          if (cta.tmemStPending[cell] && cta.tmemStPending[cell] != w.id + 1)
            return fault(Fault::Kind::Invalid, w, t, I,
                         "race: tcgen05.ld of TMEM lane " + std::to_string(ln) +
                             " column " + std::to_string(c) + ", which warp " +
                             std::to_string(cta.tmemStPending[cell] - 1) +
                             " stored with tcgen05.st and has not waited for "
                             "(tcgen05.wait::st, then a thread sync)");
          uint32_t v = cta.tmem[cell];
          val |= pack ? (v & 0xffffu) << (16 * h) : v;
        } else {
          uint32_t v = static_cast<uint32_t>(sv);
          cta.tmem[cell] = pack ? (v >> (16 * h)) & 0xffffu : v;
          cta.tmemWritten[cell] = 1;
          cta.tmemStPending[cell] = static_cast<uint8_t>(w.id + 1);
          w.pendingSt.push_back(static_cast<uint32_t>(cell));
        }
      }
      if (isLd) {
        reg[t] = kLdPending;
        w.pendingLd.push_back({list[r], t, val});
      }
    }
  }
  return true;
}

Error Executor::checkTmemLeaks() {
  for (auto &c : ctas_) {
    if (c->tmemAllocs.empty())
      continue;
    const auto &a = c->tmemAllocs.front();
    fault_ = Fault();
    fault_.kind = Fault::Kind::Invalid;
    fault_.cta = c->id;
    fault_.line = a.line;
    fault_.message = "tensor memory still allocated at kernel exit in CTA " +
                     dim(c->id) + ": " + allocList(*c) +
                     " (every tcgen05.alloc needs a tcgen05.dealloc)";
    return Error::failure(fault_.message);
  }
  return Error::success();
}

} // namespace nvfp4::emu
