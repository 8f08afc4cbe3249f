//===- Executor.h - Runs one kernel launch ----------------------*- C++ -*-===//
//
// The executor runs the CTAs of one cluster at a time; all their warps are
// scheduled round-robin, each for up to `quantum` instructions or until it
// blocks (barrier, warp-synchronous instruction waiting for lanes) or exits.
//
// Within a warp every lane has its own pc. The lanes at the lowest pc among
// the runnable ones form the active group and execute together; a branch
// that splits the group parks the lanes that went elsewhere, and lanes merge
// again when the running group reaches their pc (so an if/else reconverges
// at its join point without any reconvergence stack). An instruction marked
// .aligned (bar.sync, *.sync.aligned) requires every non-exited lane of the
// warp to execute it together: lanes that reach it first wait (parked, like
// lanes at a warp-synchronous instruction) until the others arrive; lanes
// waiting at two different aligned instructions, or a guard predicate that
// is not uniform, are a divergence error.
//
// mbarrier objects live in their 8 bytes of shared memory (encoding in
// Executor.cpp, "mbarrier objects"). A try_wait whose phase has not completed
// blocks its lanes (Warp::mbBlocked, a per-lane wait, since lanes of one warp
// may wait on different barriers); completing a phase releases them.
//
// Asynchronous units (AsyncUnit) are stepped between warp slices, so that
// results appear only when the ISA says so; they update mbarriers through
// mbarrierUpdate(). The TMA unit (Tma.cpp) is the first; later increments
// (tcgen05.mma / commit) add more. Tensor memory is per-CTA state
// (Cta::tmem, Tmem.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_LIB_EMULATOR_EXECUTOR_H
#define NVFP4_LIB_EMULATOR_EXECUTOR_H

#include "Memory.h"
#include "Program.h"
#include "Sanitizer.h"

#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace nvfp4::rt {
struct TensorMapDesc;
} // namespace nvfp4::rt

namespace nvfp4::emu {

class Executor;
struct TmaCopy; // Tma.cpp: a copy into shared memory in flight
struct MmaOp;

/// A source of asynchronous completions (TMA engine, tensor core, ...).
/// The scheduler calls step() between warp slices; a deadlock is reported
/// only when no warp can run and every unit is idle.
class AsyncUnit {
public:
  virtual ~AsyncUnit() = default;
  /// Advances pending work; returns true if anything changed (which may
  /// unblock warps). A failure is reported through `err`.
  virtual bool step(Executor &ex, Error &err) = 0;
  /// True when nothing is pending.
  virtual bool idle() const = 0;
};

class Executor {
public:
  Executor(Machine::GlobalMemory &mem, const Kernel &kernel,
           const LaunchConfig &config, Fault &fault, LaunchStats &stats);
  ~Executor();

  /// Runs the whole grid.
  Error run();

  /// Registers an asynchronous unit (owned by the executor).
  void addAsyncUnit(std::unique_ptr<AsyncUnit> unit) {
    async_.push_back(std::move(unit));
  }

  struct Warp;
  struct Cta;

private:
  struct Barrier {
    uint32_t arrived = 0;         ///< warps arrived in this phase
    uint32_t expectedThreads = 0; ///< 0: all threads of the CTA
    bool haveExpected = false;
    std::vector<Warp *> waiters;
    // bar.red accumulation
    bool isRed = false;
    uint32_t popc = 0;
    bool all = true, any = false;
  };

public:
  struct Cta {
    Dim3 id;
    uint64_t linear = 0;
    uint32_t rank = 0; ///< %cluster_ctarank
    Dim3 clusterCtaid;
    std::vector<uint8_t> shared;
    /// Per 128-byte chunk of shared memory: the swizzle (0 none, 1 32B,
    /// 2 64B, 3 128B) of the TMA tensor load that last wrote it, or 0xff.
    /// An MMA descriptor reading it with another swizzle is an error.
    std::vector<uint8_t> tmaSwizzle;
    std::vector<Warp> warps;
    std::vector<uint64_t> rows;
    std::vector<uint32_t> preds;
    /// The program's constant rows, with this CTA's rank added to the
    /// addresses of .shared variables (Program::sharedSymbolRows).
    std::vector<uint64_t> consts;
    Barrier bars[16];
    uint32_t liveWarps = 0;
    // Tensor memory (Tmem.cpp): 128 lanes x 512 columns, lane-major,
    // allocated on first use; cells never written hold kTmemPoison and are
    // flagged in tmemWritten.
    std::vector<uint32_t> tmem;
    std::vector<uint8_t> tmemWritten;
    /// Per cell: 1 + the warp whose tcgen05.st wrote it and has not yet
    /// executed tcgen05.wait::st (0: none).
    std::vector<uint8_t> tmemStPending;
    struct TmemAlloc {
      uint32_t column = 0, columns = 0, line = 0;
    };
    std::vector<TmemAlloc> tmemAllocs; ///< live allocations
    bool tmemRelinquished = false;
    /// wgmma.mma_async issued by some warps of a warpgroup but not yet by
    /// all four (Wgmma.cpp checks that the four agree), per warpgroup.
    struct WgmmaIssue {
      uint32_t pc = 0, warp = 0, seen = 0;
      uint64_t aDesc = 0, bDesc = 0;
      bool scaleD = false;
    };
    struct WgmmaQueue {
      uint64_t base = 0; ///< issue number of front()
      std::deque<WgmmaIssue> q;
    };
    std::vector<WgmmaQueue> wgmmaIssues;
    uint32_t wgmmaPending = 0; ///< Warp::wgmma entries of all warps
  };

  struct Warp {
    Cta *cta = nullptr;
    uint32_t id = 0;
    uint64_t *rows = nullptr;
    const uint64_t *consts = nullptr; ///< Cta::consts
    uint32_t *preds = nullptr;
    uint32_t valid = 0;  ///< lanes that exist
    uint32_t pc = 0;     ///< pc of the active group
    uint32_t active = 0; ///< lanes executing now
    uint32_t exited = 0;
    uint32_t parked = 0;   ///< runnable lanes not in the group (lanePc valid)
    uint32_t collWait = 0; ///< subset of parked: waiting at a warp-sync op
    uint32_t blocked = 0;  ///< waiting at a barrier (lanePc = resume pc)
    uint32_t minParkedPc = 0xffffffffu; ///< over parked & ~collWait
    uint32_t lanePc[32] = {};
    /// Lanes that executed griddepcontrol.wait (LaunchConfig::programmatic).
    uint32_t gridDepWaited = 0;
    // Barrier wait state.
    enum class Wait : uint8_t {
      None,
      Barrier,
      ClusterBarrier
    } wait = Wait::None;
    uint8_t barId = 0;
    uint32_t barLanes = 0; ///< lanes that reached barrier barId
    uint32_t barPc = 0;    ///< pc of the barrier instruction
    bool clusterArrived = false;
    uint64_t clusterPhase = 0;
    // mbarrier wait state: lanes blocked in mbarrier.try_wait until the
    // phase with parity mbParity[l] of the mbarrier at shared::cta offset
    // mbAddr[l] completes. lanePc[l] is the try_wait (for diagnostics); the
    // lanes resume after it with the predicate true. Not part of `blocked`.
    uint32_t mbBlocked = 0;
    uint32_t mbAddr[32] = {};
    uint8_t mbParity[32] = {};
    std::vector<uint8_t> local;
    /// tcgen05.ld results not yet made visible by tcgen05.wait::ld.
    struct PendingLd {
      uint32_t row, lane;
      uint32_t value;
    };
    std::vector<PendingLd> pendingLd;
    /// TMEM cells this warp's tcgen05.st wrote since its last wait::st.
    std::vector<uint32_t> pendingSt;
    /// cp.async.bulk shared -> global copies not yet written (Tma.cpp).
    static constexpr uint32_t kUncommitted = 0xffffffffu;
    struct BulkStore {
      uint32_t lane;
      uint32_t group; ///< bulk-group index, or kUncommitted
      uint64_t global;
      std::vector<uint8_t> bytes;
    };
    std::vector<BulkStore> bulkStores;
    uint32_t bulkGroups[32] = {}; ///< groups committed per lane
    /// cp.async copies (global -> shared) not yet written: the bytes are
    /// read when issued and land in shared memory when the issuing
    /// thread's cp.async.wait_group retires their group (Tma.cpp).
    struct AsyncCopy {
      uint32_t lane;
      uint32_t group; ///< cp.async-group index, or kUncommitted
      uint64_t shared;
      std::vector<uint8_t> bytes;
    };
    std::vector<AsyncCopy> asyncCopies;
    uint32_t asyncGroups[32] = {}; ///< cp.async groups committed per lane
    /// wgmma.mma_async results not yet retired by wgmma.wait_group
    /// (Wgmma.cpp): the D registers hold kWgmmaPending until then.
    struct WgmmaOp {
      uint32_t group; ///< wgmma-group index, or kUncommitted
      uint32_t line;
      std::vector<uint32_t> dRows;  ///< D register rows
      std::vector<uint32_t> values; ///< dRows.size() x 32 results
      std::vector<uint32_t> aRows;  ///< A-fragment register rows (if any)
      std::vector<uint64_t> aValues; ///< aRows.size() x 32, read at issue
      /// A's (0) and B's (1) bytes read: [smemLo, smemHi) per LBO repeat
      /// (smem::lboRepeat; the last takes the repeats beyond), empty when
      /// smemHi is 0.
      static constexpr int kRanges = 8;
      uint64_t smemLo[2][kRanges] = {}, smemHi[2][kRanges] = {};
      std::string origin; ///< location of the issue (race reports)
    };
    std::vector<WgmmaOp> wgmma;
    uint32_t wgmmaGroups = 0;  ///< wgmma-groups committed
    uint64_t wgmmaIssued = 0;  ///< wgmma.mma_async executed
    bool wgmmaFenced = false;  ///< a wgmma.fence was executed
    /// The registers wgmma.mma_async instructions of the program read or
    /// write (Executor::wgmmaRows_), as they were at the warp's last
    /// wgmma.fence, updated by the wgmma instructions' own writes: a
    /// wgmma.mma_async whose A or D register differs from it was written
    /// by another instruction after the fence (Wgmma.cpp).
    std::vector<uint64_t> wgmmaFenceRows;
    bool done() const { return (exited & valid) == valid; }
    uint32_t live() const { return valid & ~exited; }
    /// Schedule exploration: the warp runs in one round of kStarveRounds
    /// (or when no warp made progress in the previous round).
    bool starved = false;
  };
  /// How rarely a starved warp runs.
  static constexpr uint32_t kStarveRounds = 16;

  /// Flags of mbarrierUpdate().
  enum MbarFlags : uint8_t {
    MB_Drop = 1,       ///< arrive_drop: also lower the expected count
    MB_NoComplete = 2, ///< .noComplete: the arrival must not complete the phase
  };
  /// Applies `txDelta` to the tx-count, then `arrivals` arrive-on operations
  /// to the mbarrier at shared::cta offset `off` of `cta`, completing the
  /// phase (and releasing the lanes waiting for it) when the pending count
  /// and the tx-count are both zero. `old` receives the object before the
  /// update (the arrive's state). Returns an empty string, or the error
  /// (uninitialized object, too many arrivals, tx-count out of range).
  /// Asynchronous units use it for complete_tx and arrive::one.
  std::string mbarrierUpdate(Cta &cta, uint32_t off, uint32_t arrivals,
                             int64_t txDelta, uint8_t flags,
                             uint64_t *old = nullptr);
  /// For a deadlock report: the mbarriers the warps wait on whose tx-count
  /// no copy in flight can settle (a wrong expect_tx), one line each.
  std::string deadlockHints(const std::vector<Warp *> &warps) const;
  /// The current phase parity of the mbarrier at `off` of `cta` (0 when
  /// it is not initialized).
  uint32_t mbarrierParity(const Cta &cta, uint32_t off) const;
  /// One line describing the mbarrier at `off` of `cta`.
  std::string describeMbarrier(const Cta &cta, uint32_t off) const;

private:
  // Setup.
  Error validate();
  Error runCluster(const Dim3 &clusterId);
  void initWarp(Cta &cta, Warp &w, uint32_t warpIndex);

  // Scheduling.
  uint64_t runWarp(Warp &w, uint32_t budget, bool &failed);
  bool selectGroup(Warp &w);
  void reschedule(Warp &w);
  void parkGroup(Warp &w, uint32_t lanes, uint32_t pc);
  void recomputeMinParked(Warp &w);
  void laneExit(Warp &w, uint32_t lanes);
  void warpDone(Warp &w);
  bool checkBarrier(Cta &cta, uint32_t id);
  void releaseBarrier(Cta &cta, uint32_t id);
  std::string describeWarpState(const Warp &w) const;
  std::string describeGroups(const Warp &w) const;

  // Execution helpers (return false after recording a fault).
  bool exec(Warp &w, const XInst &I, uint32_t mask, bool &yield);
  bool execInt(Warp &w, const XInst &I, uint32_t mask);
  bool execFloat(Warp &w, const XInst &I, uint32_t mask);
  bool execF32x2(Warp &w, const XInst &I, uint32_t mask);
  bool execHalf(Warp &w, const XInst &I, uint32_t mask);
  bool execCvt(Warp &w, const XInst &I, uint32_t mask);
  bool execSetp(Warp &w, const XInst &I, uint32_t mask);
  bool execMemory(Warp &w, const XInst &I, uint32_t mask);
  bool execAtom(Warp &w, const XInst &I, uint32_t mask);
  bool execWarpOp(Warp &w, const XInst &I, uint32_t mask);
  bool execBarrier(Warp &w, const XInst &I, uint32_t mask, bool &yield);
  bool execCluster(Warp &w, const XInst &I, uint32_t mask, bool &yield);
  bool execMbarrier(Warp &w, const XInst &I, uint32_t mask, bool &yield);
  bool mbarAddress(Warp &w, uint32_t lane, const XInst &I, bool ownCtaOnly,
                   Cta *&cta, uint32_t &off);
  void wakeMbarrierWaiters(Cta &cta, uint32_t off, uint64_t word);
  // TMA (Tma.cpp).
  bool execTma(Warp &w, const XInst &I, uint32_t mask);
  bool tmaLane(Warp &w, uint32_t lane, const XInst &I);
  bool tmaStoreLane(Warp &w, uint32_t lane, const XInst &I,
                    const rt::TensorMapDesc &d, const int64_t *coord,
                    unsigned swz);
  // tcgen05 tensor memory (Tmem.cpp).
  bool execTmem(Warp &w, const XInst &I, uint32_t mask);
  bool tmemLdSt(Warp &w, const XInst &I, uint32_t mask);
  Error checkTmemLeaks();
  static void ensureTmem(Cta &cta);
  // tcgen05.mma / commit (Mma.cpp).
  class TensorUnit;
  friend class TensorUnit;
  TensorUnit *tensor_ = nullptr; ///< owned by async_, created on first use
  TensorUnit &tensorUnit();
  void clearTensorUnit();
  bool execMma(Warp &w, const XInst &I, uint32_t mask);
  bool mmaLane(Warp &w, uint32_t lane, const XInst &I);
  bool commitLane(Warp &w, uint32_t lane, const XInst &I);
  bool cpShiftLane(Warp &w, uint32_t lane, const XInst &I);
  std::string runCpShift(const MmaOp &op);
  std::string runMma(const MmaOp &op);
  std::string runCommit(const MmaOp &op);
  /// The origin of a pending tcgen05.mma that reads the `bytes` at shared
  /// offset `off` of `cta`, or nullptr.
  const std::string *mmaReadsShared(const Cta &cta, uint64_t off,
                                    uint32_t bytes) const;
  /// The origin of a pending tcgen05.mma that writes tensor-memory columns
  /// [col, col + n) of `cta` (or, when `write`, also reads them) in lanes
  /// [lane0, lane1), or nullptr.
  const std::string *mmaTouchesTmem(const Cta &cta, uint32_t col, uint32_t n,
                                    bool write, uint32_t lane0 = 0,
                                    uint32_t lane1 = 128) const;
  /// Whether a warp made progress in the current scheduler round (the
  /// tensor unit runs MMAs late, when none did).
  bool roundProgress_ = true;
  /// The sanitizer (LaunchConfig::sanitize), or null.
  std::unique_ptr<Sanitizer> san_;
  /// The cluster-wide warp index the sanitizer uses.
  uint32_t sanWarp(const Warp &w) const {
    return w.cta->rank * warpsPerCta_ + w.id;
  }
  /// A sanitizer error as a fault of `w` (returns false).
  bool sanFault(const Warp &w, uint32_t lane, const XInst &I,
                const std::string &msg);
  /// Reports an ordinary shared-memory access to the sanitizer.
  bool sanShared(Warp &w, uint32_t lane, const XInst &I, const uint8_t *p,
                 uint32_t bytes, bool write, const char *what);
  /// Reports a tcgen05 access to tensor memory of w's CTA (or `rank`'s).
  bool sanTmem(Warp &w, uint32_t lane, const XInst &I, uint32_t rank,
               uint32_t lane0, uint32_t lane1, uint32_t col0, uint32_t col1,
               bool write, const char *what, bool async = true);
  /// Schedule exploration (LaunchConfig::scheduleSeed): on when seeded.
  bool explore_ = false;
  /// ex2.approx.f32 and lg2.approx.f32 as sm_90 computes them (Sfu.h;
  /// LaunchConfig::approxNumerics).
  bool sm90Approx_ = false;
  uint64_t rng_ = 0;
  /// The next number of the schedule's generator (SplitMix64).
  uint64_t nextRandom();
  /// A number in [0, n) (n > 0) from the schedule's generator.
  uint32_t randomBelow(uint32_t n) {
    return static_cast<uint32_t>(nextRandom() % n);
  }
  // wgmma (Wgmma.cpp).
  bool execWgmma(Warp &w, const XInst &I, uint32_t mask);
  bool wgmmaIssue(Warp &w, const XInst &I);
  bool wgmmaRetire(Warp &w, const XInst &I, uint32_t keepGroups);
  /// The register rows some wgmma.mma_async of the program reads or writes
  /// (its D list and A fragment), and each row's index among them (-1:
  /// none); built on first use.
  void wgmmaRowsInit();
  std::vector<uint32_t> wgmmaRows_;
  std::vector<int32_t> wgmmaRowIndex_;
  bool wgmmaRowsBuilt_ = false;
  /// Records a wgmma instruction's own write of `row` (its current value)
  /// in the warp's wgmma.fence snapshot.
  void wgmmaNoteWrite(Warp &w, uint32_t row);
public:
  /// The origin of a pending wgmma.mma_async (not retired by its warp's
  /// wgmma.wait_group) that reads the `bytes` at shared offset `off` of
  /// `cta`, or nullptr.
  const std::string *wgmmaReadsShared(const Cta &cta, uint64_t off,
                                      uint32_t bytes) const;
private:
  bool execCall(Warp &w, const XInst &I, uint32_t mask);
  /// vprintf(format, args): formats each active lane's call on the host,
  /// in lane order, into LaunchStats::printfOutput.
  bool execVprintf(Warp &w, const XInst &I, uint32_t mask);
  bool execRet(Warp &w, const XInst &I, uint32_t mask);
  bool collectiveReady(Warp &w, const XInst &I, uint32_t &mask, bool &yield);
  bool checkAligned(Warp &w, const XInst &I, uint32_t mask);
  bool gatherAligned(Warp &w, const XInst &I);

  // Memory.
  /// The host pointer of `bytes` bytes at `addr`, which must be aligned to
  /// `align` bytes (0: to `bytes`, as for ordinary accesses).
  uint8_t *resolve(Warp &w, uint32_t lane, XSpace space, uint64_t addr,
                   uint32_t bytes, bool write, const XInst &I,
                   uint32_t align = 0);

  // Operands.
  const uint64_t *src(const Warp &w, uint32_t enc) const {
    return (enc & kConstBit) ? w.consts + size_t(enc & ~kConstBit) * 32
                             : w.rows + size_t(enc) * 32;
  }
  uint64_t *row(Warp &w, uint32_t idx) { return w.rows + size_t(idx) * 32; }
  uint32_t predMask(const Warp &w, const XInst &I, unsigned slot) const {
    uint32_t p = w.preds[I.src[slot]];
    return (I.srcNeg >> slot) & 1 ? ~p : p;
  }
  static void writePred(Warp &w, uint32_t idx, uint32_t mask, uint32_t val) {
    if (idx == kNone)
      return;
    w.preds[idx] = (w.preds[idx] & ~mask) | (val & mask);
  }

  // Faults.
  bool fault(Fault::Kind kind, const Warp &w, uint32_t lane, const XInst &I,
             const std::string &msg);
  std::string location(const Warp &w, uint32_t lane, uint32_t line) const;

  Machine::GlobalMemory &mem_;
  const Kernel &kernel_;
  const Program &prog_;
  const LaunchConfig &cfg_;
  Fault &fault_;
  LaunchStats &stats_;
  /// Global addresses the lanes of the ld being executed read (resolve()
  /// collects them; execMemory counts the distinct ones).
  std::vector<uint64_t> globalLoadAddrs_;
  /// The last resolve() was of global memory, at this device address (for
  /// the sanitizer, which sanShared() asks right after resolving).
  bool resolvedGlobal_ = false;
  uint64_t lastGlobalAddr_ = 0;
  std::vector<std::unique_ptr<AsyncUnit>> async_;
  class TmaUnit;
  TmaUnit *tma_ = nullptr; ///< owned by async_, created by the first TMA op
  void clearTma();
  TmaUnit &tmaUnit();
  bool execBulk(Warp &w, const XInst &I, uint32_t mask);
  bool execStAsync(Warp &w, const XInst &I, uint32_t mask);
  /// Hands `bytes` for shared offset `off` of `cta` to the TMA unit, with
  /// complete_tx of their size on the mbarrier at `mbOff` of `mbCta` (a
  /// bulk copy into shared memory, st.async); false after a sanitizer
  /// fault.
  bool pushSharedCopy(Warp &w, uint32_t lane, const XInst &I, Cta &cta,
                      uint32_t off, std::vector<uint8_t> bytes, Cta &mbCta,
                      uint32_t mbOff, bool generic = false);
  /// What every copy into shared memory does at its issue (tensor loads,
  /// bulk copies, st.async): names its origin and issuing warp, runs the
  /// sanitizer's remote-barrier and issue checks (`what` names it in their
  /// messages) and queues it; false after a sanitizer fault.
  bool pushCopy(Warp &w, uint32_t lane, const XInst &I, TmaCopy copy,
                const char *what);
  /// cp.async (non-bulk), commit_group and wait_group / wait_all.
  bool execAsyncCopy(Warp &w, const XInst &I, uint32_t mask);
  void completeBulkStores(
      Warp &w, uint32_t lanes,
      const std::function<bool(const Warp::BulkStore &)> &done);
  /// A copy in flight (a TMA load, bulk copy or st.async) that writes any
  /// of the `bytes` at shared offset `off` of `cta`, named for messages
  /// ("the TMA load issued in CTA ... at line N: ..."), or nullopt.
  std::optional<std::string> tmaInFlight(const Cta &cta, uint64_t off,
                                         uint32_t bytes) const;

  std::vector<std::unique_ptr<Cta>> ctas_; ///< CTAs of the running cluster
  uint32_t warpsPerCta_ = 0;
  uint32_t threadsPerCta_ = 0;
  uint32_t sharedBytes_ = 0;
  uint32_t clusterSize_ = 1;
  Dim3 clusterDims_;
  Dim3 clusterId_;
  uint32_t clusterArrived_ = 0;
  uint64_t clusterPhase_ = 0;
  uint64_t budgetLeft_ = 0;
  bool explicitCluster_ = false;
};

} // namespace nvfp4::emu

#endif // NVFP4_LIB_EMULATOR_EXECUTOR_H
