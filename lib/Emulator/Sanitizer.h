//===- Sanitizer.h - Happens-before and tcgen05 fence checks ----*- C++ -*-===//
//
// The emulator's synchronization checks that do not depend on the schedule
// (docs/Emulator.md, "The sanitizer"). Every warp of the running cluster
// has a vector clock; the synchronizing edges are bar.sync / barrier.sync
// (and bar.arrive, which releases only), mbarrier phases (an arrive
// releases into the phase, a successful wait acquires what the completed
// phase holds; tcgen05.commit's arrive carries the committing warp's clock)
// and barrier.cluster. With the clocks it checks:
//
// - shared memory: an ordinary load or store of a word that another warp
//   last wrote (or, for a store, read) with no happens-before edge between
//   the two is a race, whatever order the warps happened to run in (the
//   TMEM address slot tcgen05.alloc writes counts as a store);
// - tensor memory: the same for tcgen05.ld / st / mma / cp / alloc /
//   dealloc, per 32-lane quadrant and column (an MMA's accesses count at
//   its issue; its completion is ordered by its commit's mbarrier);
// - the tcgen05 fence discipline (PTX ISA 9.7.16.6): a tcgen05 operation
//   ordered after another warp's conflicting tcgen05 operation through a
//   thread synchronization needs tcgen05.fence::before_thread_sync between
//   the first and the release, and tcgen05.fence::after_thread_sync between
//   the acquire and the second (tcgen05.commit's arrive has the first
//   built in);
// - the proxies (PTX ISA 9.7.13.4, fence.proxy.async): shared memory a
//   thread wrote through the generic proxy (st, atom, red) and an
//   asynchronous unit then reads (a TMA or bulk store's source, an MMA's
//   operands, tcgen05.cp's source) needs a fence.proxy.async between: by
//   the writing warp after the write, or by a warp the write is ordered
//   before (the fence is cumulative), itself ordered before the read.
//
// - global memory: ordinary loads, stores and atomics between the warps
//   of one cluster, per byte, by the same clocks (TMA and bulk copies,
//   the async proxy, are not tracked there).
//
// Warps are the unit: lanes of one warp are not checked against each
// other, and different clusters are not checked against each other.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_LIB_EMULATOR_SANITIZER_H
#define NVFP4_LIB_EMULATOR_SANITIZER_H

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

namespace nvfp4::emu {

class Sanitizer {
public:
  static constexpr uint32_t kNone = 0xffffffffu;

  /// A rectangle of tensor memory one or more tcgen05 operations of a warp
  /// touched, and whether any of them wrote it.
  struct TmemUse {
    uint32_t warp = kNone;
    uint32_t line = 0;        ///< the (first) operation
    uint32_t releaseLine = 0; ///< the synchronization that carried it
    uint32_t rank = kNone; ///< the CTA whose tensor memory (kNone: any)
    uint32_t lane0 = 0, lane1 = 0, col0 = 0, col1 = 0;
    bool write = false;
    bool unfenced = false; ///< no fence::before_thread_sync before release
    /// Carried by a tcgen05.commit: its own warp needs the after fence too
    /// (PTX ISA 9.7.16.6.4.2, mma; commit; wait; after_thread_sync; ld).
    bool commit = false;
    uint32_t mmaSeq = 0; ///< a commit: the MMAs of its warp it covers
    bool any() const { return warp != kNone; }
    void add(uint32_t w, uint32_t l, uint32_t r, uint32_t la, uint32_t lb,
             uint32_t ca, uint32_t cb, bool wr);
  };
  /// What a synchronization object holds: the join of the releasing warps'
  /// clocks and the tensor-memory uses they carry.
  /// Shared memory an asynchronous unit wrote (a TMA load) before the
  /// arrive that carries it: an MMA reading it must be ordered after the
  /// wait by tcgen05.fence::after_thread_sync.
  struct SmemWrite {
    uint32_t warp = kNone, line = 0; ///< the issuing instruction
    uint32_t rank = 0, lo = 0, hi = 0;
  };
  struct SyncState {
    std::vector<uint32_t> clock;
    std::vector<TmemUse> uses;
    std::vector<SmemWrite> smem;
    void clear() {
      clock.clear();
      uses.clear();
      smem.clear();
    }
  };

  /// `describe(warp, line)` names an instruction of a warp (cluster-wide
  /// warp index) for messages.
  void begin(uint32_t ctas, uint32_t warpsPerCta, uint32_t sharedBytes,
             std::function<std::string(uint32_t, uint32_t)> describe);
  uint32_t warpIndex(uint32_t rank, uint32_t warp) const {
    return rank * warpsPerCta_ + warp;
  }

  // Synchronization. `line` is the synchronizing instruction.
  /// The warp releases into `s` (an arrive): its clock and the tcgen05
  /// uses it carries are joined in, then its clock ticks.
  void release(uint32_t warp, SyncState &s, uint32_t line);
  /// The warp acquires `s` (a completed wait).
  void acquire(uint32_t warp, const SyncState &s, uint32_t line);
  /// The state an asynchronous arrive will carry for `warp` (tcgen05.commit:
  /// its clock, and every tensor-memory use as fenced), then a tick.
  SyncState snapshot(uint32_t warp, uint32_t line, bool commit);
  /// An asynchronous arrive releases a snapshot into `into`.
  static void releaseState(const SyncState &from, SyncState &into) {
    join(into.clock, from.clock);
    into.uses.insert(into.uses.end(), from.uses.begin(), from.uses.end());
    into.smem.insert(into.smem.end(), from.smem.begin(), from.smem.end());
  }
  /// A TMA load completed into [lo, hi) of CTA `rank` and signals `into`.
  static void asyncWrite(SyncState &into, const SmemWrite &w) {
    if (into.smem.size() < 64)
      into.smem.push_back(w);
  }
  /// An asynchronous tcgen05 operation (mma, cp) of `warp` reads shared
  /// [lo, hi) of CTA `rank`: what a TMA wrote and the warp acquired through
  /// a wait needs the after fence in between. Returns an error or "".
  std::string asyncRead(uint32_t warp, uint32_t rank, uint32_t lo,
                        uint32_t hi, uint32_t line, const char *what);
  /// mbarrier.init by `warp`, and fence.mbarrier_init by `warp`.
  void mbarInit(uint32_t warp, uint32_t rank, uint32_t off, uint32_t line);
  void fenceMbarrierInit(uint32_t warp);
  /// `warp` (or the asynchronous operation it issues) uses the mbarrier at
  /// `off` of another CTA `rank` of the cluster: the init must be ordered
  /// before and released to the cluster by fence.mbarrier_init.
  std::string mbarRemoteUse(uint32_t warp, uint32_t rank, uint32_t off,
                            uint32_t line, const char *what);

  // The async proxy in happens-before. A TMA load's write of shared memory
  // counts as a write by the mbarrier it signals (a clock of its own per
  // mbarrier, ticking when a phase completes), so only a warp that
  // acquired that phase (or is ordered after one that did) may read the
  // bytes; an MMA's read of its operands counts as a read by the issuing
  // warp at issue.
  /// At a TMA load's issue by `warp`: the bytes it will write must not be
  /// read or written by anything not ordered before the issue, nor (unless
  /// the copy writes through the generic proxy, `generic`: st.async) hold a
  /// generic write no fence.proxy.async has covered.
  std::string tmaIssue(uint32_t warp, uint32_t rank, uint32_t lo, uint32_t hi,
                       uint32_t line, bool generic = false);
  /// At its completion: the bytes now belong to the mbarrier's phase.
  /// `generic`: st.async, whose bytes are written through the generic
  /// proxy (an async-proxy read of them needs fence.proxy.async first).
  void tmaComplete(uint32_t issuer, uint32_t line, uint32_t rank, uint32_t lo,
                   uint32_t hi, uint32_t mbRank, uint32_t mbOff,
                   bool generic = false);
  SyncState &barrier(uint32_t rank, uint32_t id) {
    return bars_[rank * 16 + id];
  }
  /// An mbarrier's current phase (arrivals) and its last completed phase.
  SyncState &mbarCurrent(uint32_t rank, uint32_t off) {
    return mbar_[key(rank, off)].current;
  }
  /// The current phase completed: it becomes the one waits acquire.
  void mbarComplete(uint32_t rank, uint32_t off);
  void mbarAcquire(uint32_t warp, uint32_t rank, uint32_t off,
                   uint32_t line);
  SyncState &clusterCurrent() { return clusterCurrent_; }
  void clusterComplete() {
    clusterLast_ = std::move(clusterCurrent_);
    clusterCurrent_.clear();
  }
  const SyncState &clusterLast() const { return clusterLast_; }

  // Accesses; each returns an error message or "".
  /// `atomic`: an atom / red, which does not race with other atomics.
  std::string shared(uint32_t warp, uint32_t rank, uint32_t off,
                     uint32_t bytes, bool write, uint32_t line,
                     const char *what, bool atomic = false);
  /// An ordinary access of global memory [addr, addr + bytes) (a device
  /// address) by `warp` of the running cluster, per byte (CTAs of a
  /// cluster often write neighbouring 16-bit elements). Warps of other
  /// clusters are not seen: clusters run one after another and global
  /// memory is forgotten between them.
  std::string global(uint32_t warp, uint64_t addr, uint32_t bytes, bool write,
                     uint32_t line, const char *what, bool atomic = false);
  /// A tcgen05 operation `what` of `warp` touching lanes [lane0, lane1) and
  /// columns [col0, col1) of CTA `rank`'s tensor memory. `async`: mma, cp,
  /// shift, ld, st, which the fence discipline covers; alloc and dealloc
  /// are synchronous (PTX ISA 9.7.16.6.1), ordered by the thread
  /// synchronization alone, and only checked for happens-before.
  std::string tmem(uint32_t warp, uint32_t rank, uint32_t lane0,
                   uint32_t lane1, uint32_t col0, uint32_t col1, bool write,
                   uint32_t line, const char *what, bool async = true);
  /// A tcgen05 operation with no tensor-memory operand of its own that
  /// still must be ordered (the fence discipline only).
  void fenceBefore(uint32_t warp) { warps_[warp].unfenced = TmemUse(); }
  /// Two tcgen05.mma of one warp are ordered only within a pipeline (same
  /// cta_group, accumulator and shape; PTX ISA 9.7.16.6.2); otherwise the
  /// second must follow a wait on a commit after the first. `nextMma`
  /// numbers the warp's MMAs; `mmaTmem` reports one's TMEM access of
  /// lanes [lane0, lane1) and columns [col0, col1) (`pipeline` identifies
  /// its pipeline) and returns an error or "".
  uint32_t nextMma(uint32_t warp) { return ++warps_[warp].mmaSeq; }
  std::string mmaTmem(uint32_t warp, uint32_t seq, uint32_t rank,
                      uint32_t lane0, uint32_t lane1, uint32_t col0,
                      uint32_t col1, bool write, uint64_t pipeline,
                      uint32_t line);
  void fenceAfter(uint32_t warp);
  /// fence.proxy.async by `warp`: its generic writes so far are visible to
  /// the async proxy.
  void fenceProxyAsync(uint32_t warp);
  /// The async proxy reads shared [lo, hi) of CTA `rank` for `what`, issued
  /// by `warp`: every generic write there must have been proxy-fenced by
  /// its writer, and (a read) ordered before the issue. Returns an error
  /// or "".
  std::string proxyRead(uint32_t warp, uint32_t rank, uint32_t lo,
                        uint32_t hi, uint32_t line, const char *what);

private:
  /// 12 bytes (two per 4-byte word of shared memory): the clock slot (a
  /// warp, or an mbarrier's for a TMA write), its value, the line, and in
  /// `by` the TMA's issuing warp (kNoBy: none) with bit 15 = atomic.
  struct Epoch {
    uint32_t clock = 0, line = 0;
    uint16_t warp = kNo16, by = kNoBy;
  };
  static constexpr uint16_t kNo16 = 0xffff, kNoBy = 0x7fff, kAtomic = 0x8000;
  /// Per-byte shadows of words accessed in part: per byte the last write
  /// ([0, 4)) and read ([4, 8)).
  using ByteShadow = std::unordered_map<uint64_t, std::array<Epoch, 8>>;
  /// Clock slots after the warps' for mbarriers that TMA loads signal.
  static constexpr uint32_t kAgents = 64;
  uint32_t agentOf(uint32_t rank, uint32_t off);
  /// The clock slot that counts warp w's MMAs known complete: a commit's
  /// arrive carries the count it covers, and it travels with the clocks
  /// (so a warp learns of its MMAs' completion through other warps too).
  uint32_t pipeSlot(uint32_t w) const { return numWarps_ + kAgents + w; }
  std::unordered_map<uint64_t, uint32_t> agents_;
  std::vector<uint32_t> agentClock_;
  struct WarpState {
    std::vector<uint32_t> clock;
    TmemUse since;    ///< tcgen05 uses since the last release
    TmemUse unfenced; ///< ... since the last fence::before_thread_sync
    /// Other warps' uses acquired, and whether an after_thread_sync fence
    /// followed the acquire.
    struct Incoming {
      TmemUse use;
      uint32_t acquireLine = 0;
      bool fenced = false;
    };
    std::vector<Incoming> incoming;
    struct IncomingSmem {
      SmemWrite write;
      uint32_t acquireLine = 0;
    };
    std::vector<IncomingSmem> incomingSmem; ///< not yet after-fenced
    std::vector<uint64_t> initsUnfenced;   ///< mbarrier keys it initialized
    /// (rank << 32 | word) of its generic shared writes since its last
    /// fence.proxy.async.
    std::vector<uint64_t> proxyUnfenced;
    uint32_t mmaSeq = 0; ///< MMAs issued
  };
  struct InitInfo {
    Epoch epoch;
    bool fenced = false;
  };
  std::unordered_map<uint64_t, InitInfo> inits_;
  struct MbarState {
    SyncState current, last;
  };
  static uint64_t key(uint32_t rank, uint32_t off) {
    return (uint64_t(rank) << 32) | off;
  }
  bool ordered(const Epoch &e, uint32_t warp, bool atomic = false) const {
    return e.warp == kNo16 || e.warp == warp || (atomic && (e.by & kAtomic)) ||
           warps_[warp].clock[e.warp] >= e.clock;
  }
  Epoch now(uint32_t warp, uint32_t line) const {
    Epoch e;
    e.clock = warps_[warp].clock[warp];
    e.line = line;
    e.warp = static_cast<uint16_t>(warp);
    return e;
  }
  static void join(std::vector<uint32_t> &into,
                   const std::vector<uint32_t> &from);
  /// One word of a shadow (shared or global memory): checks an access of
  /// its bytes [b0, b1) against the last write `wr` and read `rd` (null:
  /// never read, and the access is a write) — per byte, in `bytes` under
  /// `key`, once some access touched part of the word — and records it.
  /// `where(byte)` names the byte for the message. Returns the race or "".
  template <typename Where>
  std::string accessWord(ByteShadow &bytes, uint64_t key, Epoch &wr, Epoch *rd,
                         uint32_t b0, uint32_t b1, bool write, bool atomic,
                         uint32_t warp, uint32_t line, const char *what,
                         Where where);
  /// The start of a missing-proxy-fence error for word `i` of CTA `rank`
  /// (its unfenced generic write and writer), up to "and ": the caller names
  /// the async-proxy access.
  std::string unfencedWrite(uint32_t rank, uint32_t i);
  std::string raceText(const char *what, const std::string &where,
                       uint32_t warp, uint32_t line, const Epoch &other,
                       bool otherWrote) const;

  uint32_t warpsPerCta_ = 0, numWarps_ = 0;
  std::vector<WarpState> warps_;
  std::vector<SyncState> bars_;
  std::unordered_map<uint64_t, MbarState> mbar_;
  SyncState clusterCurrent_, clusterLast_;
  /// Per CTA, per 4-byte word of shared memory: last write and last read.
  std::vector<std::vector<Epoch>> smemWrite_, smemRead_;
  /// Words some access touched only partly (a byte or half store, say):
  /// per byte the last write ([0, 4)) and read ([4, 8)), so that two warps
  /// storing different bytes of one word do not race. Key: rank << 32 |
  /// word. A whole-word store, or a TMA write, returns the word to the
  /// per-word shadow.
  ByteShadow byteShadow_;
  /// Global memory the running cluster touched: per page of 1024 words
  /// (device address / 4096), per word the last write and read (an array
  /// made on first use); words accessed in part get a shadow per byte as
  /// shared memory does (key: device address / 4).
  static constexpr uint64_t kGlobalPageWords = 1024;
  struct GlobalPage {
    std::vector<Epoch> write, read;
  };
  std::unordered_map<uint64_t, GlobalPage> globalPages_;
  ByteShadow globalBytes_;
  /// Per CTA, per word: 1 + the warp whose generic write of it is not yet
  /// proxy-fenced (0: none).
  std::vector<std::vector<uint16_t>> proxyDirty_;
  /// Tensor memory is tracked per band of 16 lanes (half a 32-lane
  /// quadrant: an M = 64 MMA's data path layout F uses lanes 0-15 or 16-31
  /// of each quadrant) and column.
  static constexpr uint32_t kBandLanes = 16, kTmemBands = 128 / kBandLanes;
  /// Per CTA, per (band, column): last write and last read.
  std::vector<std::vector<Epoch>> tmemWrite_, tmemRead_;
  /// Per CTA, per (band, column): the last MMA that wrote and that read it.
  struct MmaMark {
    uint32_t warp = kNone, seq = 0, line = 0;
    uint64_t pipeline = 0;
  };
  std::vector<std::vector<MmaMark>> mmaWrite_, mmaRead_;
  std::function<std::string(uint32_t, uint32_t)> describe_;
};

} // namespace nvfp4::emu

#endif // NVFP4_LIB_EMULATOR_SANITIZER_H
