//===- Sanitizer.cpp - Happens-before and tcgen05 fence checks -----------===//
//
// Vector clocks per warp (Sanitizer.h). Clocks start at 1 for the warp
// itself and 0 for the others, so an access is ordered before a warp's
// later work exactly when that warp acquired a synchronization the
// accessing warp released after the access.
//
//===----------------------------------------------------------------------===//

#include "Sanitizer.h"

#include <algorithm>

using namespace nvfp4::emu;

namespace {
/// Where the fence rules are written down.
constexpr const char *kFenceRule =
    "PTX ISA 9.7.16.6, memory consistency of tcgen05 operations: tcgen05 "
    "operations of two threads are ordered through a thread synchronization "
    "only with tcgen05.fence::before_thread_sync before it in the first "
    "thread and tcgen05.fence::after_thread_sync after it in the second";
/// Uses a warp keeps from acquires (oldest dropped first).
constexpr size_t kMaxIncoming = 32;
} // namespace

void Sanitizer::TmemUse::add(uint32_t w, uint32_t l, uint32_t r,
                             uint32_t la, uint32_t lb, uint32_t ca,
                             uint32_t cb, bool wr) {
  if (!any()) {
    warp = w;
    line = l;
    rank = r;
    lane0 = la;
    lane1 = lb;
    col0 = ca;
    col1 = cb;
    write = wr;
    return;
  }
  // Keep the first writing operation as the one named.
  if (wr && !write)
    line = l;
  if (rank != r)
    rank = kNone;
  lane0 = std::min(lane0, la);
  lane1 = std::max(lane1, lb);
  col0 = std::min(col0, ca);
  col1 = std::max(col1, cb);
  write |= wr;
}

void Sanitizer::begin(uint32_t ctas, uint32_t warpsPerCta,
                      uint32_t sharedBytes,
                      std::function<std::string(uint32_t, uint32_t)> describe) {
  warpsPerCta_ = warpsPerCta;
  numWarps_ = ctas * warpsPerCta;
  warps_.assign(numWarps_, WarpState());
  agents_.clear();
  agentClock_.assign(kAgents, 0);
  for (uint32_t w = 0; w < numWarps_; ++w) {
    warps_[w].clock.assign(numWarps_ + kAgents + numWarps_, 0);
    warps_[w].clock[w] = 1;
  }
  bars_.assign(size_t(ctas) * 16, SyncState());
  mbar_.clear();
  inits_.clear();
  clusterCurrent_.clear();
  clusterLast_.clear();
  smemWrite_.assign(ctas, std::vector<Epoch>((sharedBytes + 3) / 4));
  smemRead_.assign(ctas, std::vector<Epoch>((sharedBytes + 3) / 4));
  byteShadow_.clear();
  globalPages_.clear();
  globalBytes_.clear();
  proxyDirty_.assign(ctas, std::vector<uint16_t>((sharedBytes + 3) / 4, 0));
  tmemWrite_.assign(ctas, std::vector<Epoch>(kTmemBands * 512));
  tmemRead_.assign(ctas, std::vector<Epoch>(kTmemBands * 512));
  mmaWrite_.assign(ctas, std::vector<MmaMark>(kTmemBands * 512));
  mmaRead_.assign(ctas, std::vector<MmaMark>(kTmemBands * 512));
  describe_ = std::move(describe);
}

void Sanitizer::join(std::vector<uint32_t> &into,
                     const std::vector<uint32_t> &from) {
  if (into.size() < from.size())
    into.resize(from.size(), 0);
  for (size_t i = 0; i < from.size(); ++i)
    into[i] = std::max(into[i], from[i]);
}

void Sanitizer::release(uint32_t warp, SyncState &s, uint32_t line) {
  WarpState &w = warps_[warp];
  join(s.clock, w.clock);
  if (w.since.any() || w.unfenced.any()) {
    // An unfenced use names the operation the missing fence leaves
    // unordered; otherwise everything since the last release is carried.
    TmemUse u = w.unfenced.any() ? w.unfenced : w.since;
    u.unfenced = w.unfenced.any();
    u.releaseLine = line;
    // One entry per warp and kind: merge into an existing one.
    bool merged = false;
    for (TmemUse &o : s.uses)
      if (o.warp == warp && o.unfenced == u.unfenced) {
        o.add(warp, u.line, u.rank, u.lane0, u.lane1, u.col0, u.col1,
              u.write);
        o.releaseLine = line;
        merged = true;
        break;
      }
    if (!merged)
      s.uses.push_back(u);
  }
  w.since = TmemUse();
  w.unfenced = TmemUse();
  ++w.clock[warp];
}

void Sanitizer::acquire(uint32_t warp, const SyncState &s, uint32_t line) {
  WarpState &w = warps_[warp];
  join(w.clock, s.clock);
  for (const SmemWrite &m : s.smem) {
    if (w.incomingSmem.size() >= kMaxIncoming)
      w.incomingSmem.erase(w.incomingSmem.begin());
    w.incomingSmem.push_back({m, line});
  }
  for (const TmemUse &u : s.uses) {
    if (u.warp == warp && !u.commit)
      continue;
    if (w.incoming.size() >= kMaxIncoming)
      w.incoming.erase(w.incoming.begin());
    w.incoming.push_back({u, line, false});
  }
}

Sanitizer::SyncState Sanitizer::snapshot(uint32_t warp, uint32_t line,
                                         bool commit) {
  WarpState &w = warps_[warp];
  SyncState s;
  s.clock = w.clock;
  if (commit) {
    // tcgen05.commit: the arrive follows the completion of the warp's
    // earlier asynchronous tcgen05 operations, with the before fence built
    // in; a waiter still needs fence::after_thread_sync.
    TmemUse u;
    u.add(warp, line, kNone, 0, 128, 0, 512, true);
    u.releaseLine = line;
    u.commit = true;
    u.mmaSeq = w.mmaSeq;
    s.clock[pipeSlot(warp)] = std::max(s.clock[pipeSlot(warp)], w.mmaSeq);
    s.uses.push_back(u);
  }
  ++w.clock[warp];
  return s;
}

uint32_t Sanitizer::agentOf(uint32_t rank, uint32_t off) {
  auto it = agents_.find(key(rank, off));
  if (it != agents_.end())
    return it->second;
  if (agents_.size() >= kAgents)
    return kNone;
  uint32_t a = numWarps_ + static_cast<uint32_t>(agents_.size());
  agents_[key(rank, off)] = a;
  return a;
}

std::string Sanitizer::tmaIssue(uint32_t warp, uint32_t rank, uint32_t lo,
                                uint32_t hi, uint32_t line, bool generic) {
  if (rank >= smemWrite_.size() || hi <= lo)
    return "";
  std::vector<Epoch> &wr = smemWrite_[rank], &rd = smemRead_[rank];
  for (uint32_t i = lo / 4; i <= (hi - 1) / 4 && i < wr.size(); ++i) {
    char where[64];
    std::snprintf(where, sizeof where, "of shared 0x%x of CTA rank %u", i * 4,
                  rank);
    if (!ordered(rd[i], warp))
      return raceText("the TMA load's write", where, warp, line, rd[i],
                      false);
    if (!ordered(wr[i], warp))
      return raceText("the TMA load's write", where, warp, line, wr[i], true);
    // A generic write the copy's async-proxy write lands on: without a
    // proxy fence between them the two proxies may apply them in either
    // order (the older generic value could land last). st.async writes
    // through the generic proxy itself.
    if (!generic && proxyDirty_[rank][i])
      return unfencedWrite(rank, i) + "the TMA load " + describe_(warp, line) +
             " writes it through the async proxy with no fence.proxy.async "
             "ordered between them (PTX ISA 9.7.13.4: without a proxy fence "
             "the two writes are not ordered; put "
             "fence.proxy.async.shared::cta after the generic writes, before "
             "the synchronization that orders them before the copy)";
  }
  return "";
}

void Sanitizer::tmaComplete(uint32_t issuer, uint32_t line, uint32_t rank,
                            uint32_t lo, uint32_t hi, uint32_t mbRank,
                            uint32_t mbOff, bool generic) {
  if (rank >= smemWrite_.size() || hi <= lo)
    return;
  uint32_t a = agentOf(mbRank, mbOff);
  Epoch e;
  if (a != kNone) {
    e.warp = static_cast<uint16_t>(a);
    e.clock = agentClock_[a - numWarps_] + 1;
    e.line = line;
    e.by = static_cast<uint16_t>(issuer & kNoBy);
  }
  std::vector<Epoch> &wr = smemWrite_[rank], &rd = smemRead_[rank];
  for (uint32_t i = lo / 4; i <= (hi - 1) / 4 && i < wr.size(); ++i) {
    wr[i] = e;
    rd[i] = Epoch();
    if (generic && issuer < numWarps_) {
      // st.async: a generic write by its issuer, not yet proxy-fenced.
      proxyDirty_[rank][i] = static_cast<uint16_t>(issuer + 1);
      warps_[issuer].proxyUnfenced.push_back((uint64_t(rank) << 32) | i);
    } else {
      proxyDirty_[rank][i] = 0; // written through the async proxy now
    }
    if (!byteShadow_.empty())
      byteShadow_.erase((uint64_t(rank) << 32) | i);
  }
}

void Sanitizer::fenceProxyAsync(uint32_t warp) {
  // The fence covers the warp's own generic writes and (cumulativity, as
  // for the memory model's other fences) every generic write ordered
  // before it: a consumer may fence after the barrier that orders the
  // producers' writes before it.
  for (uint32_t v = 0; v < numWarps_; ++v) {
    std::vector<uint64_t> &list = warps_[v].proxyUnfenced;
    size_t keep = 0;
    for (uint64_t k : list) {
      const uint32_t rank = uint32_t(k >> 32), i = uint32_t(k);
      uint16_t &d = proxyDirty_[rank][i];
      if (d != v + 1)
        continue; // superseded
      if (v == warp || ordered(smemWrite_[rank][i], warp))
        d = 0;
      else
        list[keep++] = k;
    }
    list.resize(keep);
  }
}

std::string Sanitizer::unfencedWrite(uint32_t rank, uint32_t i) {
  char where[64];
  std::snprintf(where, sizeof where, "shared 0x%x of CTA rank %u", i * 4, rank);
  return std::string("missing fence.proxy.async: ") +
         describe_(proxyDirty_[rank][i] - 1u, smemWrite_[rank][i].line) +
         " writes " + where + " through the generic proxy, and ";
}

std::string Sanitizer::proxyRead(uint32_t warp, uint32_t rank, uint32_t lo,
                                 uint32_t hi, uint32_t line,
                                 const char *what) {
  if (rank >= proxyDirty_.size() || hi <= lo)
    return "";
  const std::vector<uint16_t> &dirty = proxyDirty_[rank];
  for (uint32_t i = lo / 4; i <= (hi - 1) / 4 && i < dirty.size(); ++i) {
    if (!dirty[i])
      continue;
    return unfencedWrite(rank, i) + what + " " + describe_(warp, line) +
           " reads it through the async proxy with no fence.proxy.async "
           "ordered between them (PTX ISA 9.7.13.4, membar/fence: a proxy "
           "fence makes generic writes visible to the async proxy; put "
           "fence.proxy.async.shared::cta after the writes, before the "
           "synchronization that orders them before the read)";
  }
  return shared(warp, rank, lo, hi - lo, false, line, what);
}

void Sanitizer::mbarComplete(uint32_t rank, uint32_t off) {
  auto ag = agents_.find(key(rank, off));
  if (ag != agents_.end()) {
    // The phase's TMA writes are ordered before whoever acquires it.
    uint32_t a = ag->second;
    uint32_t c = ++agentClock_[a - numWarps_];
    SyncState &cur = mbar_[key(rank, off)].current;
    if (cur.clock.size() <= a)
      cur.clock.resize(a + 1, 0);
    cur.clock[a] = std::max(cur.clock[a], c);
  }
  MbarState &m = mbar_[key(rank, off)];
  m.last = std::move(m.current);
  m.current.clear();
}

void Sanitizer::mbarAcquire(uint32_t warp, uint32_t rank, uint32_t off,
                            uint32_t line) {
  auto it = mbar_.find(key(rank, off));
  if (it != mbar_.end())
    acquire(warp, it->second.last, line);
}

std::string Sanitizer::mmaTmem(uint32_t warp, uint32_t seq, uint32_t rank,
                               uint32_t lane0, uint32_t lane1, uint32_t col0,
                               uint32_t col1, bool write, uint64_t pipeline,
                               uint32_t line) {
  if (rank >= mmaWrite_.size())
    return "";
  const WarpState &w = warps_[warp];
  std::vector<MmaMark> &wr = mmaWrite_[rank], &rd = mmaRead_[rank];
  lane1 = std::min(lane1, 128u);
  for (uint32_t b = lane0 / kBandLanes;
       b < (lane1 + kBandLanes - 1) / kBandLanes && b < kTmemBands; ++b)
    for (uint32_t c = col0; c < std::min(col1, 512u); ++c) {
      const size_t i = size_t(b) * 512 + c;
      for (const MmaMark *m : {&wr[i], write ? &rd[i] : nullptr}) {
        if (!m || m->warp != warp || m->seq == seq ||
            m->seq <= w.clock[pipeSlot(warp)] || m->pipeline == pipeline)
          continue;
        return "race: " + describe_(warp, line) + " and the tcgen05.mma " +
               describe_(warp, m->line) + " of the same warp both use TMEM " +
               "column " + std::to_string(c) + " (lanes " +
               std::to_string(b * kBandLanes) + ".." +
               std::to_string(b * kBandLanes + kBandLanes - 1) +
               ") of CTA rank " + std::to_string(rank) +
               " (one writing it) but are not in one pipeline (another "
               "accumulator or shape), so they may run in either order: "
               "wait on an mbarrier that a tcgen05.commit after the first "
               "signals before issuing the second (PTX ISA 9.7.16.6.2, "
               "pipelined tcgen05 instructions)";
      }
      MmaMark &slot = write ? wr[i] : rd[i];
      slot = {warp, seq, line, pipeline};
    }
  return "";
}

void Sanitizer::fenceAfter(uint32_t warp) {
  for (auto &in : warps_[warp].incoming)
    in.fenced = true;
  warps_[warp].incomingSmem.clear();
}

std::string Sanitizer::asyncRead(uint32_t warp, uint32_t rank, uint32_t lo,
                                 uint32_t hi, uint32_t line,
                                 const char *what) {
  for (const auto &in : warps_[warp].incomingSmem) {
    const SmemWrite &m = in.write;
    if (m.rank != rank || m.hi <= lo || hi <= m.lo)
      continue;
    char range[96];
    std::snprintf(range, sizeof range, "shared 0x%x..0x%x of CTA rank %u",
                  std::max(lo, m.lo), std::min(hi, m.hi) - 1, rank);
    return std::string("missing tcgen05.fence::after_thread_sync: ") + what +
           " " + describe_(warp, line) + " reads " + range +
           ", which the TMA load " + describe_(m.warp, m.line) +
           " wrote, ordered after it only by the wait " +
           describe_(warp, in.acquireLine) +
           "; an asynchronous tcgen05 operation is ordered after a thread "
           "synchronization only by tcgen05.fence::after_thread_sync between "
           "the two (" + kFenceRule + ")";
  }
  return "";
}

void Sanitizer::mbarInit(uint32_t warp, uint32_t rank, uint32_t off,
                         uint32_t line) {
  inits_[key(rank, off)] = {now(warp, line), false};
  warps_[warp].initsUnfenced.push_back(key(rank, off));
}

void Sanitizer::fenceMbarrierInit(uint32_t warp) {
  for (uint64_t k : warps_[warp].initsUnfenced) {
    auto it = inits_.find(k);
    if (it != inits_.end())
      it->second.fenced = true;
  }
  warps_[warp].initsUnfenced.clear();
}

std::string Sanitizer::mbarRemoteUse(uint32_t warp, uint32_t rank,
                                     uint32_t off, uint32_t line,
                                     const char *what) {
  auto it = inits_.find(key(rank, off));
  if (it == inits_.end())
    return "";
  const InitInfo &i = it->second;
  char where[64];
  std::snprintf(where, sizeof where, "the mbarrier at shared 0x%x of CTA "
                "rank %u", off, rank);
  if (!i.fenced)
    return std::string("missing fence.mbarrier_init: ") + where +
           ", initialized by " + describe_(i.epoch.warp, i.epoch.line) +
           ", is used from another CTA of the cluster by " + what + " " +
           describe_(warp, line) +
           ", but its initializing thread executed no "
           "fence.mbarrier_init.release.cluster after the init (PTX ISA "
           "9.7.13.4, membar/fence: mbarrier.init is made visible to the "
           "other CTAs of the cluster only by that fence and a cluster "
           "barrier)";
  if (!ordered(i.epoch, warp))
    return std::string("race: ") + where + ", initialized by " +
           describe_(i.epoch.warp, i.epoch.line) + ", is used by " + what +
           " " + describe_(warp, line) +
           " with no synchronization (a cluster barrier after "
           "fence.mbarrier_init) ordering the init before the use";
  return "";
}

std::string Sanitizer::raceText(const char *what, const std::string &where,
                                uint32_t warp, uint32_t line,
                                const Epoch &other, bool otherWrote) const {
  std::string by = (other.by & kNoBy) != kNoBy
                       ? "the TMA load " +
                             describe_(other.by & kNoBy, other.line) +
                             " (not acquired through the mbarrier it "
                             "completes on)"
                       : describe_(other.warp, other.line);
  return std::string("race: ") + what + " " + where + " and the " +
         (otherWrote ? "write" : "read") + " of it by " + by +
         " are not ordered by any synchronization (no bar.sync, mbarrier "
         "phase or cluster barrier orders the first before the second; "
         "the warps merely ran in this order here). Second access: " +
         describe_(warp, line);
}

template <typename Where>
std::string Sanitizer::accessWord(ByteShadow &bytes, uint64_t key, Epoch &wr,
                                  Epoch *rd, uint32_t b0, uint32_t b1,
                                  bool write, bool atomic, uint32_t warp,
                                  uint32_t line, const char *what,
                                  Where where) {
  Epoch e = now(warp, line);
  if (atomic)
    e.by |= kAtomic;
  const Epoch none;
  const Epoch &lastRead = rd ? *rd : none;
  auto bs = bytes.find(key);
  if (bs == bytes.end() && (b0 != 0 || b1 != 4)) {
    std::array<Epoch, 8> init;
    for (int b = 0; b < 4; ++b) {
      init[b] = wr;
      init[4 + b] = lastRead;
    }
    bs = bytes.emplace(key, init).first;
  }
  if (bs != bytes.end()) {
    std::array<Epoch, 8> &sh = bs->second;
    for (uint32_t b = b0; b < b1; ++b) {
      if (!ordered(sh[b], warp, atomic))
        return raceText(what, where(b), warp, line, sh[b], true);
      if (write && !ordered(sh[4 + b], warp))
        return raceText(what, where(b), warp, line, sh[4 + b], false);
    }
    for (uint32_t b = b0; b < b1; ++b)
      sh[(write ? 0 : 4) + b] = e;
    if (write && b0 == 0 && b1 == 4)
      bytes.erase(bs); // the whole word again
  } else {
    if (!ordered(wr, warp, atomic))
      return raceText(what, where(0), warp, line, wr, true);
    if (write && !ordered(lastRead, warp))
      return raceText(what, where(0), warp, line, lastRead, false);
  }
  if (write)
    wr = e;
  else
    *rd = e;
  return "";
}

std::string Sanitizer::shared(uint32_t warp, uint32_t rank, uint32_t off,
                              uint32_t bytes, bool write, uint32_t line,
                              const char *what, bool atomic) {
  if (rank >= smemWrite_.size() || bytes == 0)
    return "";
  std::vector<Epoch> &wr = smemWrite_[rank], &rd = smemRead_[rank];
  uint32_t first = off / 4, last = (off + bytes - 1) / 4;
  if (last >= wr.size())
    return "";
  for (uint32_t i = first; i <= last; ++i) {
    auto where = [&](uint32_t byte) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "of shared 0x%x of CTA rank %u",
                    i * 4 + byte, rank);
      return std::string(buf);
    };
    // The bytes of word i this access touches.
    const uint32_t b0 = i == first ? off % 4 : 0;
    const uint32_t b1 = i == last ? (off + bytes - 1) % 4 + 1 : 4;
    std::string err =
        accessWord(byteShadow_, (uint64_t(rank) << 32) | i, wr[i], &rd[i], b0,
                   b1, write, atomic, warp, line, what, where);
    if (!err.empty())
      return err;
    if (write) {
      uint16_t &d = proxyDirty_[rank][i];
      if (d != warp + 1) {
        d = static_cast<uint16_t>(warp + 1);
        warps_[warp].proxyUnfenced.push_back((uint64_t(rank) << 32) | i);
      }
    }
  }
  return "";
}

std::string Sanitizer::global(uint32_t warp, uint64_t addr, uint32_t bytes,
                              bool write, uint32_t line, const char *what,
                              bool atomic) {
  if (bytes == 0)
    return "";
  for (uint64_t i = addr / 4, last = (addr + bytes - 1) / 4; i <= last; ++i) {
    auto where = [&](uint32_t b) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "of global 0x%llx",
                    static_cast<unsigned long long>(i * 4 + b));
      return std::string(buf);
    };
    const uint32_t b0 = i == addr / 4 ? addr % 4 : 0;
    const uint32_t b1 = i == last ? (addr + bytes - 1) % 4 + 1 : 4;
    // The page's shadow, its arrays made on first use (a kernel that only
    // writes a region pays for the writes' array only).
    GlobalPage &page = globalPages_[i / kGlobalPageWords];
    const uint32_t w = static_cast<uint32_t>(i % kGlobalPageWords);
    if (page.write.empty())
      page.write.resize(kGlobalPageWords);
    if (page.read.empty() && !write)
      page.read.resize(kGlobalPageWords);
    std::string err = accessWord(
        globalBytes_, i, page.write[w],
        page.read.empty() ? nullptr : &page.read[w], b0, b1, write, atomic,
        warp, line, what, where);
    if (!err.empty())
      return err;
  }
  return "";
}

std::string Sanitizer::tmem(uint32_t warp, uint32_t rank, uint32_t lane0,
                            uint32_t lane1, uint32_t col0, uint32_t col1,
                            bool write, uint32_t line, const char *what,
                            bool async) {
  WarpState &w = warps_[warp];
  col1 = std::min(col1, 512u);
  lane1 = std::min(lane1, 128u);
  // The fence discipline against the uses this warp acquired.
  for (const auto &in : w.incoming) {
    const TmemUse &u = in.use;
    // A synchronous operation (alloc, dealloc) needs the first thread's
    // before fence only: after_thread_sync orders later asynchronous ones.
    if (!async && !u.unfenced)
      continue;
    bool overlap = (u.rank == kNone || u.rank == rank) && u.lane0 < lane1 &&
                   lane0 < u.lane1 && u.col0 < col1 && col0 < u.col1 &&
                   (u.write || write);
    if (!overlap)
      continue;
    char rect[96];
    std::snprintf(rect, sizeof rect, "TMEM lanes %u..%u, columns %u..%u",
                  std::max(lane0, u.lane0), std::min(lane1, u.lane1) - 1,
                  std::max(col0, u.col0), std::min(col1, u.col1) - 1);
    if (u.unfenced)
      return std::string("missing tcgen05.fence::before_thread_sync: ") +
             describe_(u.warp, u.line) + " is followed by the thread "
             "synchronization " + describe_(u.warp, u.releaseLine) +
             " with no tcgen05.fence::before_thread_sync in between, and " +
             what + " " + describe_(warp, line) + " (" + rect +
             ", which the first also touches) is ordered after it only "
             "through that synchronization (" + kFenceRule + ")";
    if (!in.fenced)
      return std::string("missing tcgen05.fence::after_thread_sync: ") +
             what + " " + describe_(warp, line) + " (" + rect +
             ") follows the synchronization " +
             describe_(warp, in.acquireLine) + ", which orders it after " +
             describe_(u.warp, u.line) +
             ", with no tcgen05.fence::after_thread_sync in between (" +
             kFenceRule + ")";
  }
  // Happens-before per 16-lane band and column (half a quadrant: the
  // granularity of the M = 64 data path layout F, whose two accumulators
  // at lane 0 and lane 16 share columns but not lanes).
  uint32_t rank0 = rank;
  if (rank0 < tmemWrite_.size()) {
    std::vector<Epoch> &wr = tmemWrite_[rank0], &rd = tmemRead_[rank0];
    for (uint32_t b = lane0 / kBandLanes;
         b < (lane1 + kBandLanes - 1) / kBandLanes && b < kTmemBands; ++b)
      for (uint32_t c = col0; c < col1; ++c) {
        Epoch &ew = wr[b * 512 + c], &er = rd[b * 512 + c];
        auto where = [&] {
          // The lanes of this access in the band's quadrant.
          const uint32_t q = b * kBandLanes / 32;
          char buf[96];
          std::snprintf(buf, sizeof buf,
                        "of TMEM lanes %u..%u, column %u of CTA rank %u",
                        std::max(lane0, q * 32),
                        std::min(lane1, q * 32 + 32) - 1, c, rank0);
          return std::string(buf);
        };
        if (!ordered(ew, warp))
          return raceText(what, where(), warp, line, ew, true);
        if (write && !ordered(er, warp))
          return raceText(what, where(), warp, line, er, false);
        (write ? ew : er) = now(warp, line);
      }
  }
  if (async) {
    w.since.add(warp, line, rank, lane0, lane1, col0, col1, write);
    w.unfenced.add(warp, line, rank, lane0, lane1, col0, col1, write);
  }
  return "";
}
