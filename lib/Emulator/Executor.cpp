//===- Executor.cpp - Runs one kernel launch ------------------------------===//
//
// Setup, scheduling, divergence, faults and the instruction dispatch
// (exec); the instruction families live in files of their own: ExecSync.cpp
// (barriers, mbarriers), ExecInt.cpp, ExecFloat.cpp (and cvt),
// ExecMemory.cpp (ld / st / atom, warp-synchronous ops), Mma.cpp, Tma.cpp,
// Tmem.cpp, Wgmma.cpp; the sanitizer in Sanitizer.cpp. Each XOp is executed for the lanes of the active group whose
// guard predicate holds, in a loop over those lanes (a plain 0..31 loop when
// all lanes take part, which the compiler vectorizes for simple operations).
//
// Operand conventions per XOp are those set by Decoder.cpp:
//  - dst / dst2: register row or predicate index (kNone: none or `_`);
//  - src[i]: encoded row (register or constant pool), or a predicate index
//    for predicate sources (negated when bit i of srcNeg is set);
//  - imm: address offset (memory), LUT (lop3), call site (call), function
//    index (ret), register count (setmaxnreg).
//
//===----------------------------------------------------------------------===//

#include "ExecHelpers.h"

using namespace nvfp4::emu;
using ptx::Type;

//===----------------------------------------------------------------------===//
// Setup and the launch loop
//===----------------------------------------------------------------------===//

Executor::Executor(Machine::GlobalMemory &mem, const Kernel &kernel,
                   const LaunchConfig &config, Fault &fault, LaunchStats &stats)
    : mem_(mem), kernel_(kernel), prog_(*kernel.program_), cfg_(config),
      fault_(fault), stats_(stats) {
  explore_ = config.scheduleSeed != 0;
  sm90Approx_ = config.approxNumerics == ApproxNumerics::Hardware;
  if (config.approxNumerics == ApproxNumerics::Auto && prog_.module)
    for (const std::string &t : prog_.module->targets)
      sm90Approx_ |= t == "sm_90" || t == "sm_90a";
  rng_ = config.scheduleSeed;
}

Executor::~Executor() = default;

uint64_t Executor::nextRandom() {
  uint64_t z = (rng_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

Error Executor::validate() {
  auto bad = [&](const std::string &msg) {
    fault_ = Fault();
    fault_.kind = Fault::Kind::Launch;
    fault_.message = "launch of '" + kernel_.name() + "': " + msg;
    return Error::failure(fault_.message);
  };
  if (!prog_.layoutError.empty())
    return bad(prog_.layoutError);
  const Dim3 &b = cfg_.block, &g = cfg_.grid;
  if (b.x == 0 || b.y == 0 || b.z == 0)
    return bad("block dimensions must be positive, got " + dimStr(b));
  if (b.x > 1024 || b.y > 1024 || b.z > 64 || b.count() > 1024)
    return bad("block " + dimStr(b) +
               " exceeds 1024 threads (x, y <= 1024, "
               "z <= 64)");
  if (g.x == 0 || g.y == 0 || g.z == 0)
    return bad("grid dimensions must be positive, got " + dimStr(g));
  if (g.x > 0x7fffffffu || g.y > 65535 || g.z > 65535)
    return bad("grid " + dimStr(g) + " is too large");
  const ptx::FunctionDirectives &d = kernel_.directives();
  if (d.reqntid[0]) {
    Dim3 want(d.reqntid[0], d.reqntid[1] ? d.reqntid[1] : 1,
              d.reqntid[2] ? d.reqntid[2] : 1);
    if (want.x != b.x || want.y != b.y || want.z != b.z)
      return bad("the kernel requires block " + dimStr(want) +
                 " (.reqntid), "
                 "got " +
                 dimStr(b));
  }
  if (d.maxntid[0]) {
    uint64_t lim = uint64_t(d.maxntid[0]) * (d.maxntid[1] ? d.maxntid[1] : 1) *
                   (d.maxntid[2] ? d.maxntid[2] : 1);
    if (b.count() > lim)
      return bad("block " + dimStr(b) + " has more than the " +
                 std::to_string(lim) + " threads .maxntid allows");
  }
  Dim3 c = cfg_.cluster;
  if (c.x == 0 || c.y == 0 || c.z == 0)
    return bad("cluster dimensions must be positive, got " + dimStr(c));
  if (d.reqnctapercluster[0]) {
    Dim3 want(d.reqnctapercluster[0],
              d.reqnctapercluster[1] ? d.reqnctapercluster[1] : 1,
              d.reqnctapercluster[2] ? d.reqnctapercluster[2] : 1);
    if (c.count() == 1)
      c = want;
    else if (want.x != c.x || want.y != c.y || want.z != c.z)
      return bad("the kernel requires clusters of " + dimStr(want) +
                 " (.reqnctapercluster), got " + dimStr(c));
  }
  if (c.count() > 16)
    return bad("cluster " + dimStr(c) + " has more than 16 CTAs");
  if (g.x % c.x || g.y % c.y || g.z % c.z)
    return bad("grid " + dimStr(g) + " is not a multiple of the cluster " +
               dimStr(c));
  if (cfg_.params.size() != kernel_.paramBytes())
    return bad("parameter buffer has " + std::to_string(cfg_.params.size()) +
               " bytes; the kernel's parameters take " +
               std::to_string(kernel_.paramBytes()));
  // Dynamic shared memory starts after the static variables, at the
  // alignment of the extern declarations.
  uint64_t shared =
      cfg_.dynamicSharedBytes
          ? uint64_t(prog_.externSharedOffset) + cfg_.dynamicSharedBytes
          : prog_.staticShared;
  if (shared > Machine::kMaxSharedBytesPerCta)
    return bad(std::to_string(prog_.staticShared) + " bytes of static and " +
               std::to_string(cfg_.dynamicSharedBytes) +
               " bytes of dynamic shared memory exceed the " +
               std::to_string(Machine::kMaxSharedBytesPerCta) +
               " bytes a CTA may use");
  if (cfg_.quantum == 0)
    return bad("the scheduling quantum must be positive");
  sharedBytes_ = static_cast<uint32_t>(shared);
  threadsPerCta_ = static_cast<uint32_t>(b.count());
  warpsPerCta_ = (threadsPerCta_ + 31) / 32;
  clusterDims_ = c;
  clusterSize_ = static_cast<uint32_t>(c.count());
  explicitCluster_ =
      c.count() > 1 || d.explicitCluster || d.reqnctapercluster[0] != 0;
  return Error::success();
}

Error Executor::run() {
  fault_ = Fault();
  stats_ = LaunchStats();
  if (Error e = validate())
    return e;
  stats_.perCta.assign(size_t(cfg_.grid.x) * cfg_.grid.y * cfg_.grid.z,
                       LaunchStats::Cta());
  budgetLeft_ =
      cfg_.maxWarpInstructions ? cfg_.maxWarpInstructions : ~uint64_t(0);
  const Dim3 &g = cfg_.grid;
  Dim3 nc(g.x / clusterDims_.x, g.y / clusterDims_.y, g.z / clusterDims_.z);
  for (uint32_t z = 0; z < nc.z; ++z)
    for (uint32_t y = 0; y < nc.y; ++y)
      for (uint32_t x = 0; x < nc.x; ++x)
        if (Error e = runCluster(Dim3(x, y, z)))
          return e;
  return Error::success();
}

void Executor::initWarp(Cta &cta, Warp &w, uint32_t warpIndex) {
  w.cta = &cta;
  w.id = warpIndex;
  w.rows = cta.rows.data() + size_t(warpIndex) * prog_.numRows * 32;
  w.consts = cta.consts.data();
  w.preds = cta.preds.data() + size_t(warpIndex) * prog_.numPreds;
  uint32_t first = warpIndex * 32;
  uint32_t n = std::min<uint32_t>(32, threadsPerCta_ - first);
  w.valid = n == 32 ? 0xffffffffu : ((1u << n) - 1);
  w.pc = 0;
  w.active = w.valid;
  w.exited = ~w.valid;
  w.parked = w.collWait = w.blocked = 0;
  w.minParkedPc = 0xffffffffu;
  w.wait = Warp::Wait::None;
  w.barLanes = 0;
  w.clusterArrived = false;
  w.starved = false;
  w.clusterPhase = 0;
  w.mbBlocked = 0;
  w.preds[prog_.predTrue] = 0xffffffffu;
  w.preds[prog_.predFalse] = 0;
  if (prog_.localBytes)
    w.local.assign(size_t(prog_.localBytes) * 32, 0);
  else
    w.local.clear();
  w.pendingLd.clear();
  w.pendingSt.clear();
  w.bulkStores.clear();
  w.wgmma.clear();
  w.wgmmaGroups = 0;
  w.wgmmaIssued = 0;
  w.wgmmaFenced = false;
  w.wgmmaFenceRows.clear();
  std::fill(std::begin(w.bulkGroups), std::end(w.bulkGroups), 0u);
  w.asyncCopies.clear();
  std::fill(std::begin(w.asyncGroups), std::end(w.asyncGroups), 0u);
  const Dim3 &b = cfg_.block, &g = cfg_.grid;
  Dim3 nclusters(g.x / clusterDims_.x, g.y / clusterDims_.y,
                 g.z / clusterDims_.z);
  for (const SpecialRow &s : prog_.specials) {
    uint64_t *r = row(w, s.row);
    for (uint32_t l = 0; l < 32; ++l) {
      uint32_t t = first + l;
      Dim3 tid(t % b.x, (t / b.x) % b.y, t / (b.x * b.y));
      auto comp = [&](const Dim3 &d) {
        return s.comp == 0 ? d.x : s.comp == 1 ? d.y : d.z;
      };
      uint64_t v = 0;
      switch (s.reg) {
      case ptx::SpecialReg::Tid:
        v = comp(tid);
        break;
      case ptx::SpecialReg::Ntid:
        v = comp(b);
        break;
      case ptx::SpecialReg::Laneid:
        v = l;
        break;
      case ptx::SpecialReg::Warpid:
        v = warpIndex;
        break;
      case ptx::SpecialReg::Nwarpid:
        v = 64;
        break;
      case ptx::SpecialReg::Ctaid:
        v = comp(cta.id);
        break;
      case ptx::SpecialReg::Nctaid:
        v = comp(g);
        break;
      case ptx::SpecialReg::Smid:
        v = cta.linear % 148;
        break;
      case ptx::SpecialReg::Nsmid:
        v = 148;
        break;
      case ptx::SpecialReg::Gridid:
        v = 1;
        break;
      case ptx::SpecialReg::IsExplicitCluster:
        v = explicitCluster_;
        break;
      case ptx::SpecialReg::Clusterid:
        v = comp(clusterId_);
        break;
      case ptx::SpecialReg::Nclusterid:
        v = comp(nclusters);
        break;
      case ptx::SpecialReg::ClusterCtaid:
        v = comp(cta.clusterCtaid);
        break;
      case ptx::SpecialReg::ClusterNctaid:
        v = comp(clusterDims_);
        break;
      case ptx::SpecialReg::ClusterCtarank:
        v = cta.rank;
        break;
      case ptx::SpecialReg::ClusterNctarank:
        v = clusterSize_;
        break;
      case ptx::SpecialReg::LanemaskEq:
        v = 1u << l;
        break;
      case ptx::SpecialReg::LanemaskLe:
        v = static_cast<uint32_t>((uint64_t(2) << l) - 1);
        break;
      case ptx::SpecialReg::LanemaskLt:
        v = (1u << l) - 1;
        break;
      case ptx::SpecialReg::LanemaskGe:
        v = ~((1u << l) - 1);
        break;
      case ptx::SpecialReg::LanemaskGt:
        v = ~static_cast<uint32_t>((uint64_t(2) << l) - 1);
        break;
      case ptx::SpecialReg::DynamicSmemSize:
        v = cfg_.dynamicSharedBytes;
        break;
      case ptx::SpecialReg::TotalSmemSize:
      case ptx::SpecialReg::AggrSmemSize:
        v = sharedBytes_;
        break;
      default:
        v = 0;
        break;
      }
      r[l] = v;
    }
  }
}

Error Executor::runCluster(const Dim3 &clusterId) {
  clusterId_ = clusterId;
  clearTma(); // copies a finished cluster left in flight are dropped
  clearTensorUnit();
  if (ctas_.size() != clusterSize_) {
    ctas_.clear();
    for (uint32_t i = 0; i < clusterSize_; ++i)
      ctas_.push_back(std::make_unique<Cta>());
  }
  const Dim3 &c = clusterDims_, &g = cfg_.grid;
  std::vector<Warp *> warps;
  for (uint32_t r = 0; r < clusterSize_; ++r) {
    Cta &cta = *ctas_[r];
    Dim3 local(r % c.x, (r / c.x) % c.y, r / (c.x * c.y));
    cta.clusterCtaid = local;
    cta.id = Dim3(clusterId.x * c.x + local.x, clusterId.y * c.y + local.y,
                  clusterId.z * c.z + local.z);
    cta.linear =
        cta.id.x + uint64_t(g.x) * (cta.id.y + uint64_t(g.y) * cta.id.z);
    cta.rank = r;
    cta.shared.assign(sharedBytes_, cfg_.sharedFill);
    cta.rows.assign(size_t(warpsPerCta_) * prog_.numRows * 32, 0);
    cta.consts = prog_.constPool;
    for (uint32_t row : prog_.sharedSymbolRows)
      for (uint32_t l = 0; l < 32; ++l)
        cta.consts[size_t(row) * 32 + l] +=
            addrspace::sharedAddress(r, 0);
    cta.preds.assign(size_t(warpsPerCta_) * prog_.numPreds, 0);
    cta.warps.resize(warpsPerCta_);
    for (Barrier &b : cta.bars)
      b = Barrier();
    cta.tmem.clear();
    cta.tmemWritten.clear();
    cta.tmemStPending.clear();
    cta.tmemAllocs.clear();
    cta.tmaSwizzle.assign((sharedBytes_ + 127) / 128, 0xff);
    cta.tmemRelinquished = false;
    cta.wgmmaIssues.clear();
    cta.wgmmaPending = 0;
    cta.liveWarps = warpsPerCta_;
    for (uint32_t wi = 0; wi < warpsPerCta_; ++wi) {
      initWarp(cta, cta.warps[wi], wi);
      warps.push_back(&cta.warps[wi]);
    }
  }
  // Schedule exploration: in half of the clusters one CTA (of a cluster of
  // several) or one warp is starved, so that the others run far ahead of
  // it, as a fixed mix of short slices never lets them (a CTA that exits
  // while its peer still uses its shared memory, a producer that laps its
  // consumer).
  if (explore_ && randomBelow(2)) {
    bool wholeCta = clusterSize_ > 1 && randomBelow(2);
    uint32_t victim =
        randomBelow(wholeCta ? clusterSize_ : uint32_t(warps.size()));
    for (size_t i = 0; i < warps.size(); ++i)
      warps[i]->starved =
          wholeCta ? warps[i]->cta->rank == victim : i == victim;
  }
  clusterArrived_ = 0;
  clusterPhase_ = 0;
  if (cfg_.sanitize) {
    if (!san_)
      san_ = std::make_unique<Sanitizer>();
    san_->begin(clusterSize_, warpsPerCta_, sharedBytes_,
                [this](uint32_t warp, uint32_t line) {
                  const Cta &c = *ctas_[warp / warpsPerCta_];
                  std::string s = "CTA " + dimStr(c.id) + " warp " +
                                  std::to_string(warp % warpsPerCta_) +
                                  " at line " + std::to_string(line);
                  std::string text = prog_.module->lineText(line);
                  return text.empty() ? s : s + ": " + text;
                });
  }

  bool lastProgress = true;
  while (true) {
    bool anyLive = false, progress = false, skipped = false;
    if (explore_) // a new warp order every round
      for (size_t i = warps.size(); i > 1; --i)
        std::swap(warps[i - 1], warps[randomBelow(static_cast<uint32_t>(i))]);
    for (Warp *w : warps) {
      if (w->done())
        continue;
      anyLive = true;
      if (w->starved && lastProgress && randomBelow(kStarveRounds) != 0) {
        skipped = true;
        continue;
      }
      if (w->active == 0 && !selectGroup(*w))
        continue;
      bool failed = false;
      uint32_t slice =
          explore_ ? 1 + randomBelow(2 * std::max(1u, cfg_.quantum))
                   : cfg_.quantum;
      uint64_t n = runWarp(*w, slice, failed);
      if (failed)
        return Error::failure(fault_.message);
      if (n)
        progress = true;
      if (budgetLeft_ == 0) {
        fault_ = Fault();
        fault_.kind = Fault::Kind::Limit;
        fault_.cta = w->cta->id;
        fault_.warp = w->id;
        fault_.line = prog_.code[w->pc].line;
        fault_.message = "stopped after " +
                         std::to_string(cfg_.maxWarpInstructions) +
                         " warp instructions (maxWarpInstructions); CTA " +
                         dimStr(w->cta->id) + " warp " + std::to_string(w->id) +
                         " was at line " + std::to_string(fault_.line);
        return Error::failure(fault_.message);
      }
    }
    roundProgress_ = progress;
    for (auto &u : async_) {
      Error err;
      if (u->step(*this, err))
        progress = true;
      if (err)
        return err;
    }
    if (!anyLive)
      break;
    bool asyncBusy = false;
    for (auto &u : async_)
      asyncBusy |= !u->idle();
    lastProgress = progress;
    if (!progress && !asyncBusy && skipped)
      continue; // the starved warps run next round
    if (!progress && !asyncBusy) {
      fault_ = Fault();
      fault_.kind = Fault::Kind::Deadlock;
      std::string msg = "deadlock: no warp of cluster " + dimStr(clusterId) +
                        " can make progress";
      bool first = true;
      for (Warp *w : warps) {
        if (w->done())
          continue;
        if (first) {
          fault_.cta = w->cta->id;
          fault_.warp = w->id;
          uint32_t l = firstLane(w->blocked     ? w->blocked
                                 : w->mbBlocked ? w->mbBlocked
                                                : w->parked);
          fault_.lane = l;
          fault_.line = w->blocked ? prog_.code[w->barPc].line
                                   : prog_.code[w->lanePc[l]].line;
          first = false;
        }
        msg += "\n  CTA " + dimStr(w->cta->id) + " warp " +
               std::to_string(w->id) + ": " + describeWarpState(*w);
      }
      msg += deadlockHints(warps);
      fault_.message = msg;
      return Error::failure(msg);
    }
  }
  return checkTmemLeaks();
}

//===----------------------------------------------------------------------===//
// Lane groups
//===----------------------------------------------------------------------===//

void Executor::recomputeMinParked(Warp &w) {
  uint32_t m = w.parked & ~w.collWait;
  uint32_t best = 0xffffffffu;
  while (m) {
    uint32_t l = firstLane(m);
    m &= m - 1;
    best = std::min(best, w.lanePc[l]);
  }
  w.minParkedPc = best;
}

bool Executor::selectGroup(Warp &w) {
  uint32_t cand = w.parked;
  while (cand) {
    uint32_t pcMin = 0xffffffffu;
    for (uint32_t m = cand; m; m &= m - 1)
      pcMin = std::min(pcMin, w.lanePc[firstLane(m)]);
    uint32_t g = 0;
    for (uint32_t m = cand; m; m &= m - 1) {
      uint32_t l = firstLane(m);
      if (w.lanePc[l] == pcMin)
        g |= 1u << l;
    }
    if ((g & ~w.collWait) == 0) {
      // Only lanes waiting at a warp-synchronous instruction: they may go
      // once the lanes they wait for have exited.
      const XInst &I = prog_.code[pcMin];
      uint32_t mm =
          I.maskSlot != 0xff
              ? static_cast<uint32_t>(src(w, I.src[I.maskSlot])[firstLane(g)])
              : w.live();
      if ((mm & w.live() & ~g) != 0) {
        cand &= ~g;
        continue;
      }
    }
    w.active = g;
    w.parked &= ~g;
    w.collWait &= ~g;
    w.pc = pcMin;
    recomputeMinParked(w);
    return true;
  }
  w.active = 0;
  return false;
}

void Executor::parkGroup(Warp &w, uint32_t lanes, uint32_t pc) {
  for (uint32_t m = lanes; m; m &= m - 1)
    w.lanePc[firstLane(m)] = pc;
  w.parked |= lanes;
}

void Executor::reschedule(Warp &w) {
  parkGroup(w, w.active, w.pc);
  w.active = 0;
  selectGroup(w);
}

std::string Executor::describeGroups(const Warp &w) const {
  // Lanes grouped by pc, for divergence diagnostics.
  std::string s;
  uint32_t todo = w.live();
  while (todo) {
    uint32_t l0 = firstLane(todo);
    uint32_t pc = (w.active >> l0) & 1 ? w.pc : w.lanePc[l0];
    bool isBlocked = (w.blocked >> l0) & 1;
    uint32_t g = 0;
    for (uint32_t m = todo; m; m &= m - 1) {
      uint32_t l = firstLane(m);
      uint32_t p = (w.active >> l) & 1 ? w.pc : w.lanePc[l];
      if (p == pc && ((w.blocked >> l) & 1) == isBlocked)
        g |= 1u << l;
    }
    todo &= ~g;
    if (!s.empty())
      s += "; ";
    uint32_t at = isBlocked && pc > 0 ? pc - 1 : pc;
    s += "lanes " + hex(g) + (isBlocked ? " wait at line " : " at line ") +
         std::to_string(
             prog_.code[std::min<size_t>(at, prog_.code.size() - 1)].line);
  }
  return s;
}

std::string Executor::describeWarpState(const Warp &w) const {
  std::string s;
  if (w.blocked) {
    if (w.wait == Warp::Wait::Barrier) {
      const Barrier &b = w.cta->bars[w.barId];
      uint32_t target =
          b.expectedThreads ? b.expectedThreads / 32 : w.cta->liveWarps;
      s += "lanes " + hex(w.blocked) + " wait at barrier " +
           std::to_string(w.barId) + " (line " +
           std::to_string(prog_.code[w.barPc].line) + "), " +
           std::to_string(b.arrived) + " of " + std::to_string(target) +
           " warps arrived";
    } else if (w.wait == Warp::Wait::ClusterBarrier) {
      s += "lanes " + hex(w.blocked) + " wait at barrier.cluster.wait (line " +
           std::to_string(prog_.code[w.barPc].line) + "), " +
           std::to_string(clusterArrived_) + " warps of the cluster arrived";
    } else {
      s += "lanes " + hex(w.blocked) + " are blocked";
    }
  }
  if (w.collWait) {
    if (!s.empty())
      s += "; ";
    uint32_t l = firstLane(w.collWait);
    s += "lanes " + hex(w.collWait) +
         " wait for the other lanes of their member mask (or, at an .aligned instruction, of the warp) at line " +
         std::to_string(prog_.code[w.lanePc[l]].line);
  }
  // mbarrier waits, grouped by instruction, barrier and parity.
  for (uint32_t todo = w.mbBlocked; todo;) {
    uint32_t l0 = firstLane(todo);
    uint32_t g = 0;
    for (uint32_t m = todo; m; m &= m - 1) {
      uint32_t l = firstLane(m);
      if (w.lanePc[l] == w.lanePc[l0] && w.mbAddr[l] == w.mbAddr[l0] &&
          w.mbParity[l] == w.mbParity[l0])
        g |= 1u << l;
    }
    todo &= ~g;
    if (!s.empty())
      s += "; ";
    s += "lanes " + hex(g) + " wait in mbarrier.try_wait (line " +
         std::to_string(prog_.code[w.lanePc[l0]].line) +
         ") for the phase with parity " + std::to_string(w.mbParity[l0]) +
         " of " + describeMbarrier(*w.cta, w.mbAddr[l0]);
  }
  uint32_t others = w.parked & ~w.collWait;
  if (others) {
    if (!s.empty())
      s += "; ";
    s += "lanes " + hex(others) + " are runnable";
  }
  if (s.empty())
    s = "no runnable lanes";
  return s;
}

//===----------------------------------------------------------------------===//
// Faults
//===----------------------------------------------------------------------===//

std::string Executor::location(const Warp &w, uint32_t lane,
                               uint32_t line) const {
  uint32_t t = w.id * 32 + lane;
  const Dim3 &b = cfg_.block;
  Dim3 tid(t % b.x, (t / b.x) % b.y, t / (b.x * b.y));
  std::string s = "CTA " + dimStr(w.cta->id) + " warp " + std::to_string(w.id) +
                  " lane " + std::to_string(lane) + " (thread " + dimStr(tid) +
                  ") at line " + std::to_string(line);
  std::string text = prog_.module->lineText(line);
  if (!text.empty())
    s += ": " + text;
  return s;
}

bool Executor::sanFault(const Warp &w, uint32_t lane, const XInst &I,
                        const std::string &msg) {
  fault_ = Fault();
  fault_.kind = Fault::Kind::Invalid;
  fault_.cta = w.cta->id;
  fault_.warp = w.id;
  fault_.lane = lane;
  fault_.line = I.line;
  fault_.message = msg;
  return false;
}

bool Executor::sanShared(Warp &w, uint32_t lane, const XInst &I,
                         const uint8_t *p, uint32_t bytes, bool write,
                         const char *what) {
  for (auto &c : ctas_) {
    const uint8_t *b = c->shared.data();
    if (p >= b && p < b + c->shared.size()) {
      std::string e = san_->shared(
          sanWarp(w), c->rank, static_cast<uint32_t>(p - b), bytes, write,
          I.line, what, std::string_view(what) == "atom");
      return e.empty() || sanFault(w, lane, I, e);
    }
  }
  if (!resolvedGlobal_)
    return true;
  std::string e = san_->global(sanWarp(w), lastGlobalAddr_, bytes, write,
                               I.line, what, std::string_view(what) == "atom");
  return e.empty() || sanFault(w, lane, I, e);
}

bool Executor::sanTmem(Warp &w, uint32_t lane, const XInst &I, uint32_t rank,
                       uint32_t lane0, uint32_t lane1, uint32_t col0,
                       uint32_t col1, bool write, const char *what,
                       bool async) {
  std::string e = san_->tmem(sanWarp(w), rank, lane0, lane1, col0, col1, write,
                             I.line, what, async);
  return e.empty() || sanFault(w, lane, I, e);
}

bool Executor::fault(Fault::Kind kind, const Warp &w, uint32_t lane,
                     const XInst &I, const std::string &msg) {
  fault_ = Fault();
  fault_.kind = kind;
  fault_.cta = w.cta->id;
  fault_.warp = w.id;
  fault_.lane = lane;
  fault_.line = I.line;
  fault_.message = msg + " in " + location(w, lane, I.line);
  return false;
}

//===----------------------------------------------------------------------===//
// The warp loop
//===----------------------------------------------------------------------===//

uint64_t Executor::runWarp(Warp &w, uint32_t budget, bool &failed) {
  uint64_t n = 0;
  const XInst *code = prog_.code.data();
  uint64_t threadInstrs = 0;
  if (budget > budgetLeft_)
    budget = static_cast<uint32_t>(budgetLeft_);
  while (n < budget) {
    if (w.active == 0 && !selectGroup(w))
      break;
    const XInst &I = code[w.pc];
    if ((I.flags & XF_Aligned) && w.active != w.live()) {
      // An aligned instruction waits for the warp's other live lanes (they
      // may still be in a loop, e.g. the elected lane polling an mbarrier).
      if (!gatherAligned(w, I)) {
        failed = true;
        break;
      }
      if (w.active == 0)
        continue; // parked; run the other lanes
    }
    uint32_t mask = w.active;
    if (I.guard >= 0) {
      uint32_t p = w.preds[I.guard];
      mask &= I.guardNeg ? ~p : p;
    }
    ++n;
    threadInstrs += popcount(mask);
    bool yield = false;
    if (!exec(w, I, mask, yield)) {
      failed = true;
      break;
    }
    if (yield)
      break;
  }
  stats_.warpInstructions += n;
  stats_.threadInstructions += threadInstrs;
  budgetLeft_ -= std::min(budgetLeft_, n);
  return n;
}

bool Executor::gatherAligned(Warp &w, const XInst &I) {
  // Lanes already waiting at this instruction join the group.
  uint32_t here = 0;
  for (uint32_t m = w.collWait; m; m &= m - 1) {
    uint32_t l = firstLane(m);
    if (w.lanePc[l] == w.pc)
      here |= 1u << l;
  }
  uint32_t group = w.active | here;
  if (group == w.live()) {
    w.collWait &= ~here;
    w.parked &= ~here;
    w.active = group;
    recomputeMinParked(w);
    return true;
  }
  // Lanes waiting at a different aligned instruction can never meet these:
  // the warp has diverged across two aligned instructions.
  for (uint32_t m = w.collWait & ~here; m; m &= m - 1) {
    uint32_t l = firstLane(m);
    const XInst &J = prog_.code[w.lanePc[l]];
    if (J.flags & XF_Aligned) {
      std::string a = I.inst ? I.inst->mnemonic : "instruction";
      std::string b = J.inst ? J.inst->mnemonic : "instruction";
      return fault(Fault::Kind::Divergence, w, firstLane(w.active), I,
                   "'" + a +
                       "' requires all non-exited lanes of the warp to "
                       "execute it together (.aligned), but lanes " +
                       hex(w.collWait & ~here) + " wait at '" + b +
                       "' (line " + std::to_string(J.line) + ") and lanes " +
                       hex(group) + " reached this one");
    }
  }
  parkGroup(w, w.active, w.pc);
  w.collWait |= w.active;
  w.active = 0;
  recomputeMinParked(w);
  return true;
}

bool Executor::checkAligned(Warp &w, const XInst &I, uint32_t mask) {
  if (w.active == w.live() && (mask == w.active))
    return true;
  std::string name = I.inst ? I.inst->mnemonic : "instruction";
  std::string why;
  if (w.active != w.live())
    why = "the warp is diverged (" + describeGroups(w) + ")";
  else
    why = "its guard predicate is true only for lanes " + hex(mask) + " of " +
          hex(w.active);
  return fault(Fault::Kind::Divergence, w, firstLane(w.active), I,
               "'" + name +
                   "' requires all non-exited lanes of the warp to "
                   "execute it together (.aligned), but " +
                   why);
}

bool Executor::collectiveReady(Warp &w, const XInst &I, uint32_t &mask,
                               bool &yield) {
  uint32_t waitHere = 0;
  for (uint32_t m = w.collWait; m; m &= m - 1) {
    uint32_t l = firstLane(m);
    if (w.lanePc[l] == w.pc)
      waitHere |= 1u << l;
  }
  uint32_t group = w.active | waitHere;
  uint32_t mm =
      static_cast<uint32_t>(src(w, I.src[I.maskSlot])[firstLane(group)]);
  uint32_t need = mm & w.live();
  if ((need & ~group) == 0) {
    w.collWait &= ~waitHere;
    w.parked &= ~waitHere;
    w.active = group;
    mask = group;
    if (I.guard >= 0) {
      uint32_t p = w.preds[I.guard];
      mask &= I.guardNeg ? ~p : p;
    }
    recomputeMinParked(w);
    return true;
  }
  parkGroup(w, w.active, w.pc);
  w.collWait |= w.active;
  w.active = 0;
  recomputeMinParked(w);
  yield = true;
  return false;
}

bool Executor::exec(Warp &w, const XInst &I, uint32_t mask, bool &yield) {
  bool resched = false;
  switch (I.op) {
  case XOp::Bra: {
    uint32_t taken = mask, notTaken = w.active & ~mask;
    if (notTaken == 0) {
      w.pc = I.target;
      if (w.parked != w.collWait && w.pc >= w.minParkedPc)
        reschedule(w);
      return true;
    }
    if (taken == 0) {
      advanceImpl(w, resched);
      if (resched)
        reschedule(w);
      return true;
    }
    // Divergence: park both sides and run the lowest pc.
    parkGroup(w, taken, I.target);
    parkGroup(w, notTaken, w.pc + 1);
    w.active = 0;
    selectGroup(w);
    return true;
  }
  case XOp::Exit:
    if (mask) {
      laneExit(w, mask);
      // Lanes waiting at an aligned instruction for the lanes that just
      // exited will never be joined by them.
      for (uint32_t m = w.collWait; m; m &= m - 1) {
        uint32_t l = firstLane(m);
        const XInst &J = prog_.code[w.lanePc[l]];
        if ((J.flags & XF_Aligned) && J.maskSlot == 0xff) {
          uint32_t waiting = 0;
          for (uint32_t n = w.collWait; n; n &= n - 1)
            if (w.lanePc[firstLane(n)] == w.lanePc[l])
              waiting |= 1u << firstLane(n);
          std::string name = J.inst ? J.inst->mnemonic : "instruction";
          return fault(Fault::Kind::Divergence, w, l, J,
                       "'" + name +
                           "' requires all non-exited lanes of the warp to "
                           "execute it together (.aligned), but lanes " +
                           hex(mask) + " exited (line " +
                           std::to_string(I.line) + ") while lanes " +
                           hex(waiting) + " waited at it");
        }
      }
      if (w.active == 0) {
        selectGroup(w);
        yield = true;
        return true;
      }
    }
    advanceImpl(w, resched);
    if (resched)
      reschedule(w);
    return true;
  case XOp::Ret:
    if (mask)
      return execRet(w, I, mask);
    advanceImpl(w, resched);
    if (resched)
      reschedule(w);
    return true;
  case XOp::Call:
    if (mask)
      return execCall(w, I, mask);
    advanceImpl(w, resched);
    if (resched)
      reschedule(w);
    return true;
  case XOp::Vprintf:
    if (mask && !execVprintf(w, I, mask))
      return false;
    break;
  case XOp::NotImplemented:
  case XOp::Invalid:
    if (!mask)
      break;
    return fault(I.op == XOp::NotImplemented ? Fault::Kind::NotImplemented
                                             : Fault::Kind::Invalid,
                 w, firstLane(mask), I, prog_.messages[I.msg]);
  case XOp::Trap:
    if (!mask)
      break;
    return fault(Fault::Kind::Trap, w, firstLane(mask), I,
                 prog_.messages[I.msg]);
  case XOp::BarSync:
  case XOp::BarArrive:
  case XOp::BarRed:
    return execBarrier(w, I, mask, yield);
  case XOp::ClusterArrive:
  case XOp::ClusterWait:
    return execCluster(w, I, mask, yield);
  case XOp::MbarInit:
  case XOp::MbarArrive:
  case XOp::MbarExpectTx:
  case XOp::MbarCompleteTx:
  case XOp::MbarTestWait:
  case XOp::MbarTryWait:
  case XOp::MbarInval:
    return execMbarrier(w, I, mask, yield);
  case XOp::TmaLoad:
  case XOp::TmaPrefetch:
  case XOp::TmaStore:
    if (mask && !execTma(w, I, mask))
      return false;
    break;
  case XOp::BulkCopy:
  case XOp::BulkCommit:
  case XOp::BulkWait:
    if (mask && !execBulk(w, I, mask))
      return false;
    break;
  case XOp::StAsync:
    if (mask && !execStAsync(w, I, mask))
      return false;
    break;
  case XOp::AsyncCopy:
  case XOp::AsyncCommit:
  case XOp::AsyncWait:
    if (mask && !execAsyncCopy(w, I, mask))
      return false;
    break;
  case XOp::TmemAlloc:
  case XOp::TmemDealloc:
  case XOp::TmemRelinquish:
  case XOp::TmemLd:
  case XOp::TmemSt:
  case XOp::TmemWait:
  case XOp::TmemFence:
    if (mask && !execTmem(w, I, mask))
      return false;
    break;
  case XOp::TmemMma:
  case XOp::TmemCommit:
  case XOp::TmemCp:
  case XOp::TmemShift:
    if (mask && !execMma(w, I, mask))
      return false;
    break;
  case XOp::WgmmaMma:
  case XOp::WgmmaFence:
  case XOp::WgmmaCommit:
  case XOp::WgmmaWait:
    if (mask && !execWgmma(w, I, mask))
      return false;
    break;
  case XOp::MbarPendingCount:
    if (mask) {
      uint64_t *d = row(w, I.dst);
      const uint64_t *a = src(w, I.src[1]);
      NVFP4_FOR_LANES(mask, d[l] = canon(I, a[l] & 0xfffffu));
    }
    break;
  case XOp::Nop:
    break;
  case XOp::Prefetch: {
    const uint64_t *base = src(w, I.src[0]);
    // cp.async.bulk.prefetch: src[1] is the size (a multiple of 16, from a
    // 16-byte aligned address); prefetch: one byte.
    const uint64_t *size = I.src[1] != kNone ? src(w, I.src[1]) : nullptr;
    NVFP4_FOR_LANES(mask, {
      uint32_t bytes = 1, align = 1;
      if (size) {
        bytes = static_cast<uint32_t>(size[l]);
        align = 16;
        if (bytes == 0 || bytes % 16 != 0)
          return fault(Fault::Kind::Invalid, w, l, I,
                       "cp.async.bulk.prefetch size " + std::to_string(bytes) +
                           " is not a positive multiple of 16");
      }
      if (!resolve(w, l, I.space, base[l] + static_cast<uint64_t>(I.imm), bytes,
                   false, I, align))
        return false;
    });
    break;
  }
  case XOp::GridDepWait:
    w.gridDepWaited |= mask;
    break;
  case XOp::Fence:
    if (mask) {
      ++stats_.fences;
      if (san_ && I.sub == 1)
        san_->fenceMbarrierInit(sanWarp(w));
      if (san_ && I.sub == 2)
        san_->fenceProxyAsync(sanWarp(w));
    }
    break;
  case XOp::Setmaxnreg:
    if (mask) {
      if (!checkAligned(w, I, mask))
        return false;
      ++stats_.setmaxnreg;
      stats_.lastSetmaxnreg = static_cast<uint32_t>(I.imm);
    }
    break;
  case XOp::Mov: {
    if (!mask)
      break;
    uint64_t *d = row(w, I.dst);
    const uint64_t *a = src(w, I.src[0]);
    NVFP4_FOR_LANES(mask, d[l] = canon(I, a[l]));
    break;
  }
  case XOp::MovPred:
    if (mask)
      writePred(w, I.dst, mask, predMask(w, I, 0));
    break;
  case XOp::MovPack: {
    if (!mask)
      break;
    uint64_t *d = row(w, I.dst);
    unsigned eb = ptx::typeBits(I.type) / I.listCount;
    const uint32_t *lst = prog_.lists.data() + I.listBegin;
    uint64_t em = lowMask(eb);
    NVFP4_FOR_LANES(mask, {
      uint64_t v = 0;
      for (uint32_t e = 0; e < I.listCount; ++e)
        v |= (src(w, lst[e])[l] & em) << (e * eb);
      d[l] = canon(I, v);
    });
    break;
  }
  case XOp::MovUnpack: {
    if (!mask)
      break;
    const uint64_t *a = src(w, I.src[0]);
    unsigned eb = ptx::typeBits(I.type) / I.listCount;
    const uint32_t *lst = prog_.lists.data() + I.listBegin;
    uint64_t em = lowMask(eb);
    // Read all lanes first: a destination may be the source.
    uint64_t tmp[32];
    NVFP4_FOR_LANES(mask, tmp[l] = a[l]);
    for (uint32_t e = 0; e < I.listCount; ++e) {
      if (lst[e] == kNone)
        continue;
      uint64_t *d = row(w, lst[e]);
      NVFP4_FOR_LANES(mask, d[l] = (tmp[l] >> (e * eb)) & em & I.dstRegMask);
    }
    break;
  }
  case XOp::ReadClock: {
    if (!mask)
      break;
    uint64_t *d = row(w, I.dst);
    uint64_t t = stats_.warpInstructions;
    uint64_t v = I.sub == 0   ? (t & 0xffffffffu)
                 : I.sub == 1 ? (t >> 32)
                 : I.sub == 2 ? t
                 : I.sub == 3 ? t
                 : I.sub == 4 ? (t & 0xffffffffu)
                              : (t >> 32);
    NVFP4_FOR_LANES(mask, d[l] = canon(I, v));
    break;
  }
  case XOp::PAnd:
  case XOp::POr:
  case XOp::PXor: {
    if (!mask)
      break;
    uint32_t a = predMask(w, I, 0), b = predMask(w, I, 1);
    uint32_t v = I.op == XOp::PAnd  ? (a & b)
                 : I.op == XOp::POr ? (a | b)
                                    : (a ^ b);
    writePred(w, I.dst, mask, v);
    break;
  }
  case XOp::PNot:
    if (mask)
      writePred(w, I.dst, mask, ~predMask(w, I, 0));
    break;
  case XOp::Setp:
  case XOp::Set:
  case XOp::Selp:
  case XOp::Slct:
    if (mask && !execSetp(w, I, mask))
      return false;
    break;
  case XOp::Cvt:
    if (mask && !execCvt(w, I, mask))
      return false;
    break;
  case XOp::FAdd:
  case XOp::FSub:
  case XOp::FMul:
  case XOp::FFma:
  case XOp::FDiv:
  case XOp::FRcp:
  case XOp::FSqrt:
  case XOp::FRsqrt:
  case XOp::FMin:
  case XOp::FMax:
  case XOp::FAbs:
  case XOp::FNeg:
  case XOp::FEx2:
  case XOp::FLg2:
  case XOp::FSin:
  case XOp::FCos:
  case XOp::FTanh:
  case XOp::FCopysign:
  case XOp::FTestp:
    if (mask && !execFloat(w, I, mask))
      return false;
    break;
  case XOp::Ld:
  case XOp::St:
  case XOp::Cvta:
  case XOp::Mapa:
  case XOp::Isspacep:
    if (mask && !execMemory(w, I, mask))
      return false;
    break;
  case XOp::Atom:
    if (mask && !execAtom(w, I, mask))
      return false;
    break;
  case XOp::Activemask:
    if (mask) {
      uint64_t *d = row(w, I.dst);
      uint32_t am = w.active;
      NVFP4_FOR_LANES(mask, d[l] = am);
    }
    break;
  case XOp::Shfl:
  case XOp::Vote:
  case XOp::Elect:
  case XOp::BarWarpSync:
  case XOp::Match:
  case XOp::Redux:
    if (!mask)
      break;
    if (!collectiveReady(w, I, mask, yield)) {
      if (yield)
        return true;
      return false;
    }
    if (mask && !execWarpOp(w, I, mask))
      return false;
    break;
  default:
    if (mask && !execInt(w, I, mask))
      return false;
    break;
  }
  advanceImpl(w, resched);
  if (resched)
    reschedule(w);
  return true;
}

//===----------------------------------------------------------------------===//
// Exit, calls
//===----------------------------------------------------------------------===//

void Executor::laneExit(Warp &w, uint32_t lanes) {
  // Bulk stores of exiting threads still land.
  if (!w.bulkStores.empty())
    completeBulkStores(w, lanes, [](const Warp::BulkStore &) { return true; });
  w.exited |= lanes;
  w.active &= ~lanes;
  // A warp whose remaining lanes all wait at a non-aligned barrier arrives.
  if (w.barLanes && w.barLanes == w.live() && w.wait == Warp::Wait::Barrier) {
    Barrier &b = w.cta->bars[w.barId];
    ++b.arrived;
    b.waiters.push_back(&w);
    w.barLanes = 0;
    if (checkBarrier(*w.cta, w.barId))
      releaseBarrier(*w.cta, w.barId);
  }
  if (w.done())
    warpDone(w);
}

void Executor::warpDone(Warp &w) {
  Cta &cta = *w.cta;
  // wgmma results the warp never waited for are dropped.
  cta.wgmmaPending -= static_cast<uint32_t>(w.wgmma.size());
  w.wgmma.clear();
  --cta.liveWarps;
  for (uint32_t id = 0; id < 16; ++id)
    if (cta.bars[id].arrived && checkBarrier(cta, id))
      releaseBarrier(cta, id);
  // The cluster barrier waits for fewer warps now.
  if (w.clusterArrived)
    --clusterArrived_;
  uint32_t live = 0;
  for (auto &c : ctas_)
    live += c->liveWarps;
  if (clusterArrived_ && clusterArrived_ >= live) {
    ++clusterPhase_;
    clusterArrived_ = 0;
    for (auto &c : ctas_)
      for (Warp &o : c->warps)
        if (o.wait == Warp::Wait::ClusterBarrier) {
          o.parked |= o.blocked;
          o.blocked = 0;
          o.wait = Warp::Wait::None;
          o.clusterArrived = false;
          recomputeMinParked(o);
        }
  }
}

bool Executor::execCall(Warp &w, const XInst &I, uint32_t mask) {
  const CallSite &cs = prog_.calls[static_cast<size_t>(I.imm)];
  const XFunction &callee = prog_.functions[cs.callee];
  uint64_t *ret = row(w, callee.retPcRow);
  uint32_t lb = prog_.localBytes;
  NVFP4_FOR_LANES(mask, {
    uint8_t *base = w.local.data() + size_t(l) * lb;
    for (size_t a = 0; a < cs.argSrc.size(); ++a)
      std::memmove(base + cs.argDst[a], base + cs.argSrc[a], cs.argBytes[a]);
    ret[l] = w.pc;
  });
  uint32_t notCalling = w.active & ~mask;
  if (notCalling) {
    parkGroup(w, notCalling, w.pc + 1);
    parkGroup(w, mask, I.target);
    w.active = 0;
    selectGroup(w);
    return true;
  }
  w.pc = I.target;
  if (w.parked != w.collWait && w.pc >= w.minParkedPc)
    reschedule(w);
  return true;
}

bool Executor::execVprintf(Warp &w, const XInst &I, uint32_t mask) {
  const CallSite &cs = prog_.calls[static_cast<size_t>(I.imm)];
  uint32_t lb = prog_.localBytes;
  NVFP4_FOR_LANES(mask, {
    uint8_t *base = w.local.data() + size_t(l) * lb;
    uint64_t fmtAddr = 0, argAddr = 0;
    std::memcpy(&fmtAddr, base + cs.argSrc[0], 8);
    std::memcpy(&argAddr, base + cs.argSrc[1], 8);
    // A NUL-terminated string at a generic address (at most 4 KiB).
    auto readString = [&](uint64_t addr, std::string &out) {
      for (unsigned n = 0; n < 4096; ++n) {
        const uint8_t *c =
            resolve(w, l, XSpace::Generic, addr + n, 1, false, I);
        if (!c)
          return false;
        if (*c == 0)
          return true;
        out.push_back(char(*c));
      }
      out += "...";
      return true;
    };
    std::string fmt, text;
    if (!readString(fmtAddr, fmt))
      return false;
    // The argument buffer: each argument aligned to its size (CUDA's
    // vprintf layout: 4-byte ints, 8-byte longs, doubles and pointers).
    uint64_t at = argAddr;
    int32_t converted = 0;
    auto arg = [&](unsigned bytes, uint64_t &v) {
      at = (at + bytes - 1) / bytes * bytes;
      const uint8_t *p = resolve(w, l, XSpace::Generic, at, bytes, false, I);
      if (!p)
        return false;
      v = 0;
      std::memcpy(&v, p, bytes);
      at += bytes;
      ++converted;
      return true;
    };
    for (size_t i = 0; i < fmt.size(); ++i) {
      if (fmt[i] != '%') {
        text.push_back(fmt[i]);
        continue;
      }
      size_t j = i + 1;
      while (j < fmt.size() && std::strchr("-+ #0123456789.", fmt[j]))
        ++j;
      unsigned longs = 0;
      while (j < fmt.size() && (fmt[j] == 'l' || fmt[j] == 'h' ||
                                fmt[j] == 'z' || fmt[j] == 'j')) {
        longs += fmt[j] == 'l' || fmt[j] == 'z' || fmt[j] == 'j';
        ++j;
      }
      if (j >= fmt.size())
        break;
      char conv = fmt[j];
      std::string spec = fmt.substr(i, j - i);
      // The length modifiers go; the host formats 64-bit values.
      std::string flags;
      for (char c : spec)
        if (c != 'l' && c != 'h' && c != 'z' && c != 'j')
          flags.push_back(c);
      char buf[512];
      uint64_t v = 0;
      switch (conv) {
      case '%':
        text.push_back('%');
        break;
      case 'd':
      case 'i': {
        if (!arg(longs ? 8 : 4, v))
          return false;
        long long x = longs ? (long long)int64_t(v) : (long long)int32_t(v);
        std::snprintf(buf, sizeof buf, (flags + "lld").c_str(), x);
        text += buf;
        break;
      }
      case 'u':
      case 'x':
      case 'X':
      case 'o': {
        if (!arg(longs ? 8 : 4, v))
          return false;
        std::snprintf(buf, sizeof buf, (flags + "ll" + conv).c_str(),
                      (unsigned long long)v);
        text += buf;
        break;
      }
      case 'c': {
        if (!arg(4, v))
          return false;
        text.push_back(char(v));
        break;
      }
      case 'f':
      case 'F':
      case 'e':
      case 'E':
      case 'g':
      case 'G':
      case 'a':
      case 'A': {
        if (!arg(8, v))
          return false;
        double d;
        std::memcpy(&d, &v, 8);
        std::snprintf(buf, sizeof buf, (flags + conv).c_str(), d);
        text += buf;
        break;
      }
      case 'p': {
        if (!arg(8, v))
          return false;
        std::snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)v);
        text += buf;
        break;
      }
      case 's': {
        if (!arg(8, v))
          return false;
        if (!readString(v, text))
          return false;
        break;
      }
      default:
        text += spec + conv;
        break;
      }
      i = j;
    }
    stats_.printfOutput += text;
    if (!cs.retDst.empty())
      std::memcpy(base + cs.retDst[0], &converted, cs.retBytes[0]);
  });
  return true;
}

bool Executor::execRet(Warp &w, const XInst &I, uint32_t mask) {
  const XFunction &f = prog_.functions[static_cast<size_t>(I.imm)];
  const uint64_t *ret = row(w, f.retPcRow);
  uint32_t lb = prog_.localBytes;
  // Copy return values and send each lane back after its call site.
  NVFP4_FOR_LANES(mask, {
    uint32_t callPc = static_cast<uint32_t>(ret[l]);
    const XInst &C = prog_.code[callPc];
    const CallSite &cs = prog_.calls[static_cast<size_t>(C.imm)];
    uint8_t *base = w.local.data() + size_t(l) * lb;
    for (size_t r = 0; r < cs.retSrc.size(); ++r)
      std::memmove(base + cs.retDst[r], base + cs.retSrc[r], cs.retBytes[r]);
    w.lanePc[l] = callPc + 1;
  });
  uint32_t rest = w.active & ~mask;
  if (rest)
    parkGroup(w, rest, w.pc + 1);
  w.parked |= mask;
  w.active = 0;
  selectGroup(w);
  return true;
}
