//===- ExecSync.cpp - Barriers, cluster barriers, mbarriers ---------------===//
//
// The executor's synchronization family: bar / barrier (named barriers,
// arrive, red), barrier.cluster, and mbarrier objects (init, arrive,
// expect_tx, complete_tx, try_wait / test_wait, waiter wake-up). The
// sanitizer's edges are recorded here (Sanitizer.h).
//
//===----------------------------------------------------------------------===//

#include "ExecHelpers.h"

using namespace nvfp4::emu;
using ptx::Type;

//===----------------------------------------------------------------------===//
// Barriers
//===----------------------------------------------------------------------===//

bool Executor::checkBarrier(Cta &cta, uint32_t id) {
  Barrier &b = cta.bars[id];
  if (!b.arrived)
    return false;
  uint32_t target = b.expectedThreads ? b.expectedThreads / 32 : cta.liveWarps;
  return b.arrived >= target;
}

void Executor::releaseBarrier(Cta &cta, uint32_t id) {
  Barrier &b = cta.bars[id];
  for (Warp *w : b.waiters) {
    if (b.isRed) {
      const XInst &I = prog_.code[w->barPc];
      if (I.op == XOp::BarRed) {
        if (I.sub2 == XB_Popc) {
          uint64_t *d = row(*w, I.dst);
          NVFP4_FOR_LANES(w->blocked, d[l] = canon(I, b.popc));
        } else {
          bool v = I.sub2 == XB_And ? b.all : b.any;
          writePred(*w, I.dst, w->blocked, v ? ~0u : 0u);
        }
      }
    }
    if (san_)
      san_->acquire(sanWarp(*w), san_->barrier(cta.rank, id),
                    prog_.code[w->barPc].line);
    w->parked |= w->blocked;
    w->blocked = 0;
    w->wait = Warp::Wait::None;
    recomputeMinParked(*w);
  }
  if (san_)
    san_->barrier(cta.rank, id).clear();
  b = Barrier();
  ++stats_.barriers;
}

bool Executor::execBarrier(Warp &w, const XInst &I, uint32_t mask,
                           bool &yield) {
  bool resched = false;
  if (!mask) {
    advanceImpl(w, resched);
    if (resched)
      reschedule(w);
    return true;
  }
  if ((I.flags & XF_Aligned) && !checkAligned(w, I, mask))
    return false;
  uint32_t l0 = firstLane(mask);
  uint64_t id = src(w, I.src[0])[l0];
  if (id >= 16)
    return fault(Fault::Kind::Invalid, w, l0, I,
                 "barrier " + std::to_string(id) + " does not exist (0..15)");
  uint32_t count = 0;
  if (I.src[1] != kNone) {
    uint64_t c = src(w, I.src[1])[l0];
    if (c == 0 || c % 32 != 0 || c > 1024)
      return fault(Fault::Kind::Invalid, w, l0, I,
                   "barrier thread count " + std::to_string(c) +
                       " is not a positive multiple of 32 up to 1024");
    if (c > uint64_t(warpsPerCta_) * 32)
      return fault(Fault::Kind::Invalid, w, l0, I,
                   "barrier thread count " + std::to_string(c) +
                       " exceeds the CTA's " +
                       std::to_string(warpsPerCta_ * 32) + " threads");
    count = static_cast<uint32_t>(c);
  } else if (I.op == XOp::BarArrive) {
    return fault(Fault::Kind::Invalid, w, l0, I,
                 "bar.arrive needs a thread count");
  }
  Cta &cta = *w.cta;
  Barrier &b = cta.bars[id];
  if (b.haveExpected && b.expectedThreads != count)
    return fault(Fault::Kind::Invalid, w, l0, I,
                 "barrier " + std::to_string(id) +
                     " is used with thread "
                     "counts " +
                     (b.expectedThreads ? std::to_string(b.expectedThreads)
                                        : std::string("all")) +
                     " and " +
                     (count ? std::to_string(count) : std::string("all")) +
                     " at the same time");
  b.haveExpected = true;
  b.expectedThreads = count;
  if (I.op == XOp::BarRed) {
    b.isRed = true;
    uint32_t c = predMask(w, I, 2) & mask;
    b.popc += popcount(c);
    b.all = b.all && c == mask;
    b.any = b.any || c != 0;
  }
  if (w.barLanes && w.barId != id)
    return fault(Fault::Kind::Invalid, w, l0, I,
                 "lanes of this warp wait at barriers " +
                     std::to_string(w.barId) + " and " + std::to_string(id) +
                     " at the same time");
  w.barId = static_cast<uint8_t>(id);
  w.barLanes |= mask;
  bool arrives = w.barLanes == w.live();
  bool waits = I.op != XOp::BarArrive;
  if (waits) {
    // These lanes stop here and resume after the barrier.
    for (uint32_t m = mask; m; m &= m - 1)
      w.lanePc[firstLane(m)] = w.pc + 1;
    w.blocked |= mask;
    w.active &= ~mask;
    w.wait = Warp::Wait::Barrier;
    w.barPc = w.pc;
  }
  if (arrives) {
    if (san_)
      san_->release(sanWarp(w), san_->barrier(cta.rank, id), I.line);
    ++b.arrived;
    if (waits)
      b.waiters.push_back(&w);
    w.barLanes = 0;
    if (checkBarrier(cta, static_cast<uint32_t>(id)))
      releaseBarrier(cta, static_cast<uint32_t>(id));
  } else if (!waits) {
    // bar.arrive from part of a warp: remember which lanes arrived.
  }
  if (w.active) {
    advanceImpl(w, resched);
    if (resched)
      reschedule(w);
    return true;
  }
  selectGroup(w);
  yield = true;
  return true;
}

bool Executor::execCluster(Warp &w, const XInst &I, uint32_t mask,
                           bool &yield) {
  bool resched = false;
  if (!mask) {
    advanceImpl(w, resched);
    if (resched)
      reschedule(w);
    return true;
  }
  if (!(I.flags & XF_Aligned) && (w.active != w.live() || mask != w.active))
    return fault(Fault::Kind::NotImplemented, w, firstLane(mask), I,
                 "not implemented yet: barrier.cluster without .aligned in a "
                 "diverged warp");
  if (!checkAligned(w, I, mask))
    return false;
  uint32_t live = 0;
  for (auto &c : ctas_)
    live += c->liveWarps;
  if (I.op == XOp::ClusterArrive) {
    if (w.clusterArrived)
      return fault(Fault::Kind::Invalid, w, firstLane(mask), I,
                   "barrier.cluster.arrive executed twice without a "
                   "barrier.cluster.wait in between");
    w.clusterArrived = true;
    w.clusterPhase = clusterPhase_;
    if (san_)
      san_->release(sanWarp(w), san_->clusterCurrent(), I.line);
    if (++clusterArrived_ >= live) {
      ++clusterPhase_;
      clusterArrived_ = 0;
      if (san_)
        san_->clusterComplete();
      for (auto &c : ctas_)
        for (Warp &o : c->warps)
          if (o.wait == Warp::Wait::ClusterBarrier) {
            if (san_)
              san_->acquire(sanWarp(o), san_->clusterLast(),
                            prog_.code[o.barPc].line);
            o.parked |= o.blocked;
            o.blocked = 0;
            o.wait = Warp::Wait::None;
            o.clusterArrived = false;
            recomputeMinParked(o);
          }
    }
    advanceImpl(w, resched);
    if (resched)
      reschedule(w);
    return true;
  }
  // wait
  if (!w.clusterArrived)
    return fault(Fault::Kind::Invalid, w, firstLane(mask), I,
                 "barrier.cluster.wait without a preceding "
                 "barrier.cluster.arrive");
  if (clusterPhase_ > w.clusterPhase) {
    if (san_)
      san_->acquire(sanWarp(w), san_->clusterLast(), I.line);
    w.clusterArrived = false;
    advanceImpl(w, resched);
    if (resched)
      reschedule(w);
    return true;
  }
  for (uint32_t m = mask; m; m &= m - 1)
    w.lanePc[firstLane(m)] = w.pc + 1;
  w.blocked |= mask;
  w.active = 0;
  w.wait = Warp::Wait::ClusterBarrier;
  w.barPc = w.pc;
  yield = true;
  return true;
}

//===----------------------------------------------------------------------===//
// mbarrier objects
//===----------------------------------------------------------------------===//
//
// Operands (Decoder.cpp): src[0] + imm is the object's address in I.space
// (shared::cta, shared::cluster or generic). MbarInit, MbarExpectTx,
// MbarCompleteTx: src[1] is the count / tx-count. MbarArrive: dst is the
// state (kNone for `_`), src[1] the count, or the tx-count with XM_ExpectTx
// (kNone: count 1). Waits: dst is the predicate, src[1] the state or, with
// XM_Parity, the phase parity; src[2] the suspend-time hint (ignored).
//
// The object is kept in its own 8 bytes of shared memory, so it is part of
// the CTA's state like any other shared data:
//   bits  0..19  pending arrival count of the current phase
//   bits 20..39  expected arrival count (reloaded when a phase completes)
//   bits 40..60  tx-count, 21-bit two's complement, |tx| <= 2^20 - 1
//   bit  61      0
//   bit  62      parity of the current phase
//   bit  63      valid: set by mbarrier.init, cleared by mbarrier.inval
// Shared memory starts zeroed, so an object never initialized is invalid.
// The state an arrive returns is the object before the arrive; a wait on a
// state waits for the phase whose parity is bit 62 of it.

namespace {

constexpr uint64_t kMbValid = uint64_t(1) << 63;
constexpr uint64_t kMbUnused = uint64_t(1) << 61;
constexpr uint32_t kMbMaxCount = (1u << 20) - 1;
constexpr int64_t kMbMaxTx = (int64_t(1) << 20) - 1;

struct MbState {
  uint32_t pending = 0, expected = 0;
  int64_t tx = 0;
  uint32_t parity = 0;
  bool valid = false;
};

MbState mbDecode(uint64_t v) {
  MbState s;
  s.pending = static_cast<uint32_t>(v & 0xfffffu);
  s.expected = static_cast<uint32_t>((v >> 20) & 0xfffffu);
  int64_t tx = static_cast<int64_t>((v >> 40) & 0x1fffffu);
  if (tx & (int64_t(1) << 20))
    tx -= int64_t(1) << 21;
  s.tx = tx;
  s.parity = static_cast<uint32_t>((v >> 62) & 1);
  // Valid: bit 63 set and bit 61 (unused) clear, so that neither zeroed nor
  // 0xff-filled shared memory (LaunchConfig::sharedFill) reads as an
  // initialized barrier.
  s.valid = (v & (kMbValid | kMbUnused)) == kMbValid;
  return s;
}

uint64_t mbEncode(const MbState &s) {
  return (uint64_t(s.pending) & 0xfffffu) |
         ((uint64_t(s.expected) & 0xfffffu) << 20) |
         ((static_cast<uint64_t>(s.tx) & 0x1fffffu) << 40) |
         (uint64_t(s.parity & 1) << 62) | (s.valid ? kMbValid : 0);
}

uint64_t mbLoad(const uint8_t *p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

void mbStore(uint8_t *p, uint64_t v) { std::memcpy(p, &v, 8); }

} // namespace

uint32_t Executor::mbarrierParity(const Cta &cta, uint32_t off) const {
  if (off > cta.shared.size() || cta.shared.size() - off < 8)
    return 0;
  return mbDecode(mbLoad(cta.shared.data() + off)).parity;
}

std::string
Executor::deadlockHints(const std::vector<Warp *> &warps) const {
  // Every copy has landed (the async units are idle): an mbarrier a warp
  // waits on with a non-zero tx-count was told a wrong byte count.
  std::string msg;
  std::vector<std::pair<const Cta *, uint32_t>> seen;
  for (Warp *w : warps)
    for (uint32_t m = w->mbBlocked; m; m &= m - 1) {
      std::pair<const Cta *, uint32_t> key(w->cta, w->mbAddr[firstLane(m)]);
      if (std::find(seen.begin(), seen.end(), key) != seen.end())
        continue;
      seen.push_back(key);
      MbState st = mbDecode(mbLoad(key.first->shared.data() + key.second));
      if (st.valid && st.tx > 0)
        msg += "\n  " + describeMbarrier(*key.first, key.second) +
               " still expects " + std::to_string(st.tx) +
               " transaction bytes, but every TMA load and bulk copy has "
               "completed: an expect_tx larger than the bytes its copies "
               "deliver?";
      else if (st.valid && st.tx < 0)
        msg += "\n  " + describeMbarrier(*key.first, key.second) +
               " received " + std::to_string(-st.tx) +
               " transaction bytes more than its expect_tx announced: an "
               "expect_tx smaller than the bytes its copies deliver?";
    }
  return msg;
}

std::string Executor::describeMbarrier(const Cta &cta, uint32_t off) const {
  std::string s =
      "the mbarrier at shared " + hex(off) + " of CTA " + dimStr(cta.id);
  if (off > cta.shared.size() || cta.shared.size() - off < 8)
    return s;
  MbState st = mbDecode(mbLoad(cta.shared.data() + off));
  if (!st.valid)
    return s + " (not initialized)";
  return s + " (current phase parity " + std::to_string(st.parity) + ", " +
         std::to_string(st.pending) + " of " + std::to_string(st.expected) +
         " arrivals pending, tx-count " + std::to_string(st.tx) + ")";
}

bool Executor::mbarAddress(Warp &w, uint32_t lane, const XInst &I,
                           bool ownCtaOnly, Cta *&cta, uint32_t &off) {
  uint64_t addr = src(w, I.src[0])[lane] + static_cast<uint64_t>(I.imm);
  XSpace space = I.space;
  if (space == XSpace::Generic) {
    if (addr < addrspace::kSharedWindow ||
        addr >= addrspace::kSharedWindow + addrspace::kWindowSize)
      return fault(Fault::Kind::Memory, w, lane, I,
                   "mbarrier address " + hex(addr) +
                       " is not a generic address of shared memory");
    addr -= addrspace::kSharedWindow;
    space = XSpace::SharedCluster;
  }
  if (addr % 8 != 0)
    return fault(Fault::Kind::Memory, w, lane, I,
                 "misaligned mbarrier object at " +
                     std::string(spaceStr(space)) + " address " + hex(addr) +
                     " (needs 8-byte alignment)");
  uint8_t *p = resolve(w, lane, space, addr, 8, /*write=*/true, I);
  if (!p)
    return false;
  cta = ctas_[addrspace::sharedRank(addr)].get();
  off = static_cast<uint32_t>(p - cta->shared.data());
  if (ownCtaOnly && cta != w.cta)
    return fault(Fault::Kind::Invalid, w, lane, I,
                 "'" + (I.inst ? I.inst->mnemonic : std::string("mbarrier")) +
                     "' needs an mbarrier of the executing CTA, but " +
                     hex(addr) + " is in CTA rank " +
                     std::to_string(cta->rank));
  return true;
}

std::string Executor::mbarrierUpdate(Cta &cta, uint32_t off, uint32_t arrivals,
                                     int64_t txDelta, uint8_t flags,
                                     uint64_t *old) {
  uint8_t *p = cta.shared.data() + off;
  uint64_t v = mbLoad(p);
  if (old)
    *old = v;
  MbState st = mbDecode(v);
  if (!st.valid)
    return "mbarrier operation on " + describeMbarrier(cta, off) +
           ": it was never initialized with mbarrier.init (or was "
           "invalidated)";
  int64_t tx = st.tx + txDelta;
  if (tx > kMbMaxTx || tx < -kMbMaxTx)
    return "the tx-count of " + describeMbarrier(cta, off) + " would become " +
           std::to_string(tx) + ", outside [-(2^20-1), 2^20-1]";
  if (arrivals > st.pending)
    return std::to_string(arrivals) + " arrival" + (arrivals == 1 ? "" : "s") +
           " on " + describeMbarrier(cta, off) +
           ": more arrivals than the current phase expects";
  st.tx = tx;
  st.pending -= arrivals;
  if (flags & MB_Drop)
    st.expected -= arrivals;
  bool completes = st.pending == 0 && st.tx == 0;
  if (completes && (flags & MB_NoComplete))
    return "mbarrier.arrive.noComplete would complete the current phase of " +
           describeMbarrier(cta, off);
  if (completes) {
    st.parity ^= 1;
    st.pending = st.expected;
    ++stats_.mbarrierPhases;
  }
  uint64_t nv = mbEncode(st);
  mbStore(p, nv);
  if (completes && san_)
    san_->mbarComplete(cta.rank, off);
  if (completes)
    wakeMbarrierWaiters(cta, off, nv);
  return std::string();
}

void Executor::wakeMbarrierWaiters(Cta &cta, uint32_t off, uint64_t word) {
  uint32_t parity = static_cast<uint32_t>((word >> 62) & 1);
  for (Warp &o : cta.warps) {
    uint32_t rel = 0;
    for (uint32_t m = o.mbBlocked; m; m &= m - 1) {
      uint32_t l = firstLane(m);
      if (o.mbAddr[l] == off && o.mbParity[l] != parity)
        rel |= 1u << l;
    }
    if (!rel)
      continue;
    if (san_)
      san_->mbarAcquire(sanWarp(o), cta.rank, off,
                        prog_.code[o.lanePc[firstLane(rel)]].line);
    // try_wait returns true and the lanes continue after it.
    for (uint32_t m = rel; m; m &= m - 1) {
      uint32_t l = firstLane(m);
      writePred(o, prog_.code[o.lanePc[l]].dst, 1u << l, ~0u);
      ++o.lanePc[l];
    }
    o.mbBlocked &= ~rel;
    o.parked |= rel;
    recomputeMinParked(o);
  }
}

bool Executor::execMbarrier(Warp &w, const XInst &I, uint32_t mask,
                            bool &yield) {
  bool ownCta = I.op == XOp::MbarInit || I.op == XOp::MbarInval ||
                I.op == XOp::MbarTestWait || I.op == XOp::MbarTryWait;
  uint32_t block = 0;
  // Lane by lane in lane order, like atomics.
  for (uint32_t m = mask; m; m &= m - 1) {
    uint32_t l = firstLane(m);
    Cta *cta = nullptr;
    uint32_t off = 0;
    if (!mbarAddress(w, l, I, ownCta, cta, off))
      return false;
    uint8_t *p = cta->shared.data() + off;
    switch (I.op) {
    case XOp::MbarInit: {
      uint64_t c = src(w, I.src[1])[l] & 0xffffffffu;
      if (c == 0 || c > kMbMaxCount)
        return fault(Fault::Kind::Invalid, w, l, I,
                     "mbarrier.init count " + std::to_string(c) +
                         " is outside [1, 2^20-1]");
      MbState st;
      st.pending = st.expected = static_cast<uint32_t>(c);
      st.valid = true;
      mbStore(p, mbEncode(st));
      if (san_) {
        san_->mbarCurrent(cta->rank, off).clear();
        san_->mbarComplete(cta->rank, off);
        san_->mbarInit(sanWarp(w), cta->rank, off, I.line);
      }
      break;
    }
    case XOp::MbarInval:
      mbStore(p, 0);
      break;
    case XOp::MbarArrive:
    case XOp::MbarExpectTx:
    case XOp::MbarCompleteTx: {
      uint32_t arrivals = 0;
      int64_t tx = 0;
      uint8_t flags = 0;
      if (I.op == XOp::MbarArrive) {
        arrivals = 1;
        if (I.src[1] != kNone) {
          uint64_t v = src(w, I.src[1])[l] & 0xffffffffu;
          if (I.sub & XM_ExpectTx)
            tx = static_cast<int64_t>(v);
          else
            arrivals = static_cast<uint32_t>(v);
        }
        if (arrivals == 0 || arrivals > kMbMaxCount)
          return fault(Fault::Kind::Invalid, w, l, I,
                       "mbarrier arrival count " + std::to_string(arrivals) +
                           " is outside [1, 2^20-1]");
        if (I.sub & XM_Drop)
          flags |= MB_Drop;
        if (I.sub & XM_NoComplete)
          flags |= MB_NoComplete;
      } else {
        tx = static_cast<int64_t>(src(w, I.src[1])[l] & 0xffffffffu);
      }
      if (tx > kMbMaxTx)
        return fault(Fault::Kind::Invalid, w, l, I,
                     "mbarrier tx-count " + std::to_string(tx) +
                         " is outside [0, 2^20-1]");
      if (I.op == XOp::MbarCompleteTx)
        tx = -tx;
      uint64_t old = 0;
      if (san_ && cta != w.cta) {
        std::string e = san_->mbarRemoteUse(sanWarp(w), cta->rank, off,
                                            I.line, "the remote arrive");
        if (!e.empty())
          return sanFault(w, l, I, e);
      }
      if (san_ && I.op == XOp::MbarArrive)
        san_->release(sanWarp(w), san_->mbarCurrent(cta->rank, off),
                      I.line);
      std::string err = mbarrierUpdate(*cta, off, arrivals, tx, flags, &old);
      if (!err.empty())
        return fault(Fault::Kind::Invalid, w, l, I, err);
      if (I.op == XOp::MbarArrive && I.dst != kNone)
        row(w, I.dst)[l] = canon(I, old);
      break;
    }
    case XOp::MbarTestWait:
    case XOp::MbarTryWait: {
      MbState st = mbDecode(mbLoad(p));
      if (!st.valid)
        return fault(Fault::Kind::Invalid, w, l, I,
                     "wait on " + describeMbarrier(*cta, off) +
                         ", which was never initialized with mbarrier.init "
                         "(or was invalidated)");
      uint32_t want;
      if (I.sub & XM_Parity) {
        want = static_cast<uint32_t>(src(w, I.src[1])[l] & 1);
      } else {
        uint64_t state = src(w, I.src[1])[l];
        if (!(state & kMbValid))
          return fault(Fault::Kind::Invalid, w, l, I,
                       "the state operand " + hex(state) +
                           " was not returned by mbarrier.arrive");
        want = static_cast<uint32_t>((state >> 62) & 1);
      }
      if (st.parity != want) {
        writePred(w, I.dst, 1u << l, ~0u);
        if (san_)
          san_->mbarAcquire(sanWarp(w), cta->rank, off, I.line);
      } else if (I.op == XOp::MbarTestWait) {
        writePred(w, I.dst, 1u << l, 0u);
      } else {
        // The phase has not completed: block instead of returning false.
        block |= 1u << l;
        w.mbAddr[l] = off;
        w.mbParity[l] = static_cast<uint8_t>(want);
      }
      break;
    }
    default:
      break;
    }
  }
  if (block) {
    for (uint32_t m = block; m; m &= m - 1)
      w.lanePc[firstLane(m)] = w.pc;
    w.mbBlocked |= block;
    w.active &= ~block;
  }
  if (w.active) {
    bool resched = false;
    advanceImpl(w, resched);
    if (resched)
      reschedule(w);
    return true;
  }
  selectGroup(w);
  yield = true;
  return true;
}
