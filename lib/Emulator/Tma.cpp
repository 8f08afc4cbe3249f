//===- Tma.cpp - TMA tensor copies (cp.async.bulk.tensor) -----------------===//
//
// cp.async.bulk.tensor loads (global -> shared::cluster, .tile mode and
// .tile::gather4: four rows of a 2-D map stacked as a four-row box), stores
// (shared::cta -> global, .tile mode, bulk-group completion) and the
// tensor-map prefetches. The tensor map is read from memory at the operand's
// address and decoded with the portable decoder (nvfp4/Support/TensorMap.h).
//
// A load gathers its box from global memory when it is issued (out-of-bounds
// elements zero- or NaN-filled) and hands the swizzled image to the TMA
// unit, an AsyncUnit. The unit writes the image to shared memory and
// signals complete_tx on the mbarrier(s) two scheduler steps later, i.e.
// after every warp has had at least one more slice, so that a kernel that
// reads the tile without waiting on the barrier reads stale data.
//
// Swizzle (the formula verified against an H200's TMA in
// scripts/device/check_outputs.py): the byte at linear offset L of the dense
// box goes to shared address swizzle(dst + L), where swizzle(a) =
// a ^ (((a >> 7) & ((1 << B) - 1)) << 4) with B = 1, 2, 3 for 32B, 64B, 128B.
//
// A store is the inverse: the byte at linear offset L of the dense box is
// read from shared address swizzle(src + L) (with the same row pitch as a
// load), when the store issues, as cp.async.bulk shared -> global reads its
// source; the in-bounds elements are written to global memory when the
// issuing thread's cp.async.bulk.wait_group retires the store's bulk group
// (or the thread exits). Out-of-bounds elements are not written.
//
// Three rules of stores measured on an H200 (docs/Differential.md "TMA
// stores"): a store with a negative tensor coordinate in any dimension, or
// whose box starts at a byte offset in dimension 0 (coordinate 0 x element
// size) that is not a multiple of 16, is an illegal instruction (the
// emulator reports an error); and a store writes whole 16-byte chunks of a
// row, so when dimension 0's size in bytes is not a multiple of 16, the
// elements past its end within the last chunk are written too.
//
//===----------------------------------------------------------------------===//

#include "Executor.h"

#include "nvfp4/Support/TensorMap.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

using namespace nvfp4::emu;

namespace {

std::string hexStr(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

/// The verified swizzle formula (check_outputs.py, swizzle()).
uint64_t swizzleAddress(uint64_t a, unsigned bits) {
  if (bits == 0)
    return a;
  return a ^ (((a >> 7) & ((uint64_t(1) << bits) - 1)) << 4);
}

/// Where a box's bytes sit in shared memory. A box row (boxDims[0]
/// elements, `inner` bytes) takes `pitch` bytes: the row itself, or under a
/// swizzle a whole swizzle span when the row is narrower (an H200 with a
/// 64-byte row under the 128B swizzle: corpus case
/// tma_2d_bf16_128B_b64_8_3). Byte b of row r is at shared offset
/// swizzleAddress(base + r * pitch + b) - base for a 128-byte aligned base,
/// so every byte stays within its 128-byte row.
struct SmemBox {
  uint64_t inner = 0, pitch = 0, rows = 0, bytes = 0;
  unsigned swz = 0;

  SmemBox(uint64_t innerBytes, uint64_t totalBytes, unsigned swizzleBits)
      : inner(innerBytes), swz(swizzleBits) {
    const uint64_t span = uint64_t(16) << swz;
    pitch = swz != 0 && inner < span ? span : inner;
    rows = totalBytes / inner;
    bytes = rows * pitch;
  }
  uint64_t offset(uint64_t base, uint64_t r, uint64_t b) const {
    return swizzleAddress(base + r * pitch + b, swz) - base;
  }
};

/// The bytes an out-of-bounds element gets with OOB fill nan: 0x7ff7 in
/// every 16 bits, whatever the element type (an H200 writes 0x7ff7 for
/// bf16 and f16, 0x7ff77ff7 for f32, 0x7ff77ff77ff77ff7 for f64: corpus
/// cases tma_*_nan).
constexpr uint64_t kNanFill = 0x7ff77ff77ff77ff7ull;

} // namespace

namespace nvfp4::emu {
/// One copy in flight: an image for `cta` at `off`, then complete_tx of
/// `txBytes` on the mbarrier at `mbOff` of `mbCta`.
struct TmaCopy {
  Executor::Cta *cta = nullptr;
  uint32_t off = 0;
  std::vector<uint8_t> image;
  /// Which bytes of image the copy writes (empty: all of them).
  std::vector<uint8_t> written;
  Executor::Cta *mbCta = nullptr;
  uint32_t mbOff = 0;
  uint32_t txBytes = 0;
  unsigned age = 0;
  /// Steps after the one that follows its issue before it may complete;
  /// kLazy: only in a round where no warp made progress (or after
  /// kMaxLazyRounds), as late as the kernel's synchronization allows.
  unsigned latency = 1;
  std::string origin; ///< "CTA ... warp ... lane ... at line N: ..."
  uint32_t warp = 0, line = 0; ///< the issuing warp (sanitizer) and line
  uint8_t swizzle = 0xff; ///< a tensor load's swizzle bits (0xff: a bulk copy)
  /// st.async: the bytes are written through the generic proxy (the
  /// sanitizer asks for fence.proxy.async before an async-proxy read).
  bool generic = false;
  /// What the messages call it.
  std::string what() const { return generic ? "the st.async" : "the TMA load"; }
  uint32_t parity = 0;    ///< its mbarrier's phase parity at the issue
};
} // namespace nvfp4::emu

class Executor::TmaUnit : public AsyncUnit {
public:
  /// Steps a copy waits after the step that follows its issue (the
  /// deterministic schedule).
  static constexpr unsigned kLatency = 1;
  /// Schedule exploration: a latency meaning "when no warp can run".
  static constexpr unsigned kLazy = ~0u;
  /// Rounds a lazy copy waits at most (a kernel that spins in test_wait
  /// makes progress every round).
  static constexpr unsigned kMaxLazyRounds = 256;

  /// Queues a copy; under schedule exploration with a latency of its own:
  /// one copy in four lazy, the others 1 to 12 steps, so copies complete
  /// out of issue order.
  void push(TmaCopy c, Executor &ex) {
    c.parity = ex.mbarrierParity(*c.mbCta, c.mbOff);
    c.latency = kLatency;
    if (ex.explore_)
      c.latency = ex.randomBelow(4) == 0 ? kLazy : 1 + ex.randomBelow(12);
    pending_.push_back(std::move(c));
  }
  void clear() { pending_.clear(); }

  bool step(Executor &ex, Error &err) override {
    bool changed = false;
    std::vector<TmaCopy> keep;
    for (TmaCopy &c : pending_) {
      bool due = c.latency == kLazy
                     ? !ex.roundProgress_ || c.age >= kMaxLazyRounds
                     : c.age >= c.latency;
      ++c.age;
      if (!due) {
        keep.push_back(std::move(c));
        continue;
      }
      if (const std::string *mma =
              ex.mmaReadsShared(*c.cta, c.off, c.image.size())) {
        err = Error::failure(
            "race: " + c.what() + " issued in " + c.origin +
            " writes shared memory of CTA rank " + std::to_string(c.cta->rank) +
            " that the tcgen05.mma issued in " + *mma +
            " (not complete) reads; wait on the mbarrier of its "
            "tcgen05.commit before reusing the buffer");
        pending_.clear();
        return true;
      }
      if (const std::string *wg =
              ex.wgmmaReadsShared(*c.cta, c.off, c.image.size())) {
        err = Error::failure(
            "race: " + c.what() + " issued in " + c.origin +
            " writes shared memory of CTA rank " + std::to_string(c.cta->rank) +
            " that the wgmma.mma_async issued in " + *wg +
            " (not retired) reads; wgmma.wait_group before reusing the "
            "buffer");
        pending_.clear();
        return true;
      }
      // A peer's copy into a CTA that exited (the issuer's own late copies
      // are the older in-flight checks' concern).
      const uint32_t issuer = c.warp / ex.warpsPerCta_;
      if ((c.cta->rank != issuer && c.cta->liveWarps == 0) ||
          (c.mbCta->rank != issuer && c.mbCta->liveWarps == 0)) {
        err = Error::failure(
            c.what() + " issued in " + c.origin + " lands in CTA rank " +
            std::to_string(c.cta->liveWarps == 0 ? c.cta->rank
                                                 : c.mbCta->rank) +
            ", which has exited (its shared memory is gone; a cluster "
            "barrier before the exit keeps a CTA alive while its peers' "
            "copies still target it)");
        pending_.clear();
        return true;
      }
      if (c.written.empty()) {
        std::memcpy(c.cta->shared.data() + c.off, c.image.data(),
                    c.image.size());
      } else {
        for (size_t i = 0; i < c.image.size(); ++i)
          if (c.written[i])
            c.cta->shared[c.off + i] = c.image[i];
      }
      if (ex.mbarrierParity(*c.mbCta, c.mbOff) != c.parity) {
        // The phase it was issued in completed without its bytes.
        err = Error::failure(
            c.what() + " issued in " + c.origin +
            " completed after the mbarrier phase it was issued in had "
            "already completed (" +
            ex.describeMbarrier(*c.mbCta, c.mbOff) +
            "): the phase's expect_tx announced fewer bytes than its copies "
            "deliver, so "
            "its waiters went on before this copy landed");
        pending_.clear();
        return true;
      }
      if (c.swizzle != 0xff && !c.image.empty())
        for (size_t k = c.off / 128;
             k <= (c.off + c.image.size() - 1) / 128 &&
             k < c.cta->tmaSwizzle.size();
             ++k)
          c.cta->tmaSwizzle[k] = c.swizzle;
      if (ex.san_) {
        const uint32_t end = c.off + static_cast<uint32_t>(c.image.size());
        ex.san_->tmaComplete(c.warp, c.line, c.cta->rank, c.off, end,
                             c.mbCta->rank, c.mbOff, c.generic);
        Sanitizer::asyncWrite(ex.san_->mbarCurrent(c.mbCta->rank, c.mbOff),
                              {c.warp, c.line, c.cta->rank, c.off, end});
      }
      std::string e = ex.mbarrierUpdate(*c.mbCta, c.mbOff, 0,
                                        -static_cast<int64_t>(c.txBytes), 0);
      changed = true;
      if (!e.empty()) {
        err = Error::failure("complete_tx of " + std::to_string(c.txBytes) +
                             " bytes by " + c.what() + " issued in " +
                             c.origin + ": " + e);
        pending_.clear();
        return true;
      }
    }
    pending_ = std::move(keep);
    return changed;
  }
  bool idle() const override { return pending_.empty(); }
  const TmaCopy *overlap(const Executor::Cta &cta, uint64_t off,
                         uint32_t bytes) const {
    for (const TmaCopy &c : pending_)
      if (c.cta == &cta && off < c.off + c.image.size() && c.off < off + bytes)
        return &c;
    return nullptr;
  }

private:
  std::vector<TmaCopy> pending_;
};

void Executor::clearTma() {
  if (tma_)
    tma_->clear();
}

std::optional<std::string> Executor::tmaInFlight(const Cta &cta, uint64_t off,
                                                 uint32_t bytes) const {
  if (const TmaCopy *c = tma_ ? tma_->overlap(cta, off, bytes) : nullptr)
    return c->what() + " issued in " + c->origin;
  return std::nullopt;
}

bool Executor::execTma(Warp &w, const XInst &I, uint32_t mask) {
  for (uint32_t m = mask; m; m &= m - 1)
    if (!tmaLane(w, static_cast<uint32_t>(__builtin_ctz(m)), I))
      return false;
  return true;
}

bool Executor::tmaLane(Warp &w, uint32_t lane, const XInst &I) {
  namespace rt = nvfp4::rt;
  const std::string mnem =
      I.inst ? I.inst->mnemonic : std::string("cp.async.bulk.tensor");
  const unsigned dims = I.vec;
  const uint32_t *list = prog_.lists.data() + I.listBegin;
  // tile::gather4: five coordinates {column, row0 .. row3} of a 2-D map.
  const bool gather4 = I.op == XOp::TmaLoad && (I.sub & XT_Gather4);
  const unsigned coords = gather4 ? 5 : dims;
  // The tensor map: 128 bytes, 64-byte aligned, at a generic address.
  const bool mapOnly = I.op == XOp::TmaPrefetch && I.src[1] == kNone;
  uint64_t tmapAddr = 0;
  XSpace tmapSpace = XSpace::Generic;
  if (mapOnly) {
    // prefetch{.space}.tensormap [a]: address() put it in src[0] / imm.
    tmapAddr = src(w, I.src[0])[lane] + static_cast<uint64_t>(I.imm);
    tmapSpace = I.space;
  } else {
    tmapAddr = src(w, I.src[1])[lane] + src(w, list[coords])[lane];
  }
  if (tmapAddr % rt::kTensorMapAlign != 0)
    return fault(Fault::Kind::Memory, w, lane, I,
                 "the tensor map of '" + mnem + "' at " + hexStr(tmapAddr) +
                     " is not 64-byte aligned");
  rt::TensorMapBlob blob;
  for (unsigned i = 0; i < rt::kTensorMapBytes; i += 8) {
    uint8_t *p = resolve(w, lane, tmapSpace, tmapAddr + i, 8, false, I);
    if (!p)
      return false;
    std::memcpy(blob.bytes.data() + i, p, 8);
  }
  rt::Expected<rt::TensorMapDesc> decoded = rt::decodePortable(blob);
  if (!decoded)
    return fault(Fault::Kind::Invalid, w, lane, I,
                 "bad tensor map at " + hexStr(tmapAddr) + " for '" + mnem +
                     "': " + decoded.takeError().message());
  const rt::TensorMapDesc &d = *decoded;
  if (mapOnly)
    return true;
  if (d.rank != dims)
    return fault(Fault::Kind::Invalid, w, lane, I,
                 "the tensor map at " + hexStr(tmapAddr) + " has rank " +
                     std::to_string(d.rank) + " but '" + mnem + "' is ." +
                     std::to_string(dims) + "d");
  if (I.op == XOp::TmaPrefetch)
    return true;

  bool denseStrides = true;
  for (unsigned i = 0; i < dims; ++i)
    denseStrides &= d.elementStrides[i] == 1;
  unsigned bits = rt::elementBits(d.dataType);
  unsigned swz = 0;
  switch (d.swizzle) {
  case rt::TmaSwizzle::None:
    swz = 0;
    break;
  case rt::TmaSwizzle::B32:
    swz = 1;
    break;
  case rt::TmaSwizzle::B64:
    swz = 2;
    break;
  case rt::TmaSwizzle::B128:
    swz = 3;
    break;
  default:
    swz = 99;
    break;
  }
  if (d.interleave != rt::TmaInterleave::None || !denseStrides || bits < 8 ||
      swz == 99)
    return fault(Fault::Kind::NotImplemented, w, lane, I,
                 std::string("not implemented yet: TMA ") +
                     (I.op == XOp::TmaStore ? "store" : "load") +
                     " with the tensor map " + rt::describe(d) +
                     " (implemented: interleave none, element strides 1, "
                     "8- to 64-bit elements, swizzle none/32B/64B/128B)");
  const unsigned eb = bits / 8;
  int64_t coord[rt::kTmaMaxRank] = {};
  for (unsigned i = 0; i < dims; ++i)
    coord[i] = static_cast<int32_t>(src(w, list[i])[lane]);
  // gather4's rows (PTX ISA 5.5.3.4: the box's dimension 1 must be 1).
  int64_t rows4[4] = {};
  if (gather4) {
    if (d.boxDims[1] != 1)
      return fault(Fault::Kind::Invalid, w, lane, I,
                   "'" + mnem + "' reads four rows of one element each, but "
                   "the tensor map's box has " +
                       std::to_string(d.boxDims[1]) +
                       " rows in dimension 1 (tile::gather4 needs 1)");
    for (unsigned r = 0; r < 4; ++r)
      rows4[r] = static_cast<int32_t>(src(w, list[1 + r])[lane]);
  }
  if (I.op == XOp::TmaStore)
    return tmaStoreLane(w, lane, I, d, coord, swz);
  // Measured on the H200 (corpus cases tmaalign_*): a tensor load whose box
  // starts at a dimension-0 byte offset that is not a multiple of 16 faults
  // with an illegal instruction, in bounds or not, swizzled or not, at every
  // rank; 16-byte multiples run, negative ones too (filled out of bounds).
  if (((coord[0] * int64_t(eb)) % 16 + 16) % 16 != 0)
    return fault(Fault::Kind::Invalid, w, lane, I,
                 "TMA tile load whose box starts at byte " +
                     std::to_string(coord[0] * int64_t(eb)) +
                     " of dimension 0 (coordinate " + std::to_string(coord[0]) +
                     " x " + std::to_string(eb) + "-byte elements) in '" +
                     mnem +
                     "': not a multiple of 16 bytes, an illegal instruction "
                     "on the H200 (corpus case tmaalign_2d_f32_none_b64_9_3)");

  // Destination (shared::cluster) and mbarrier addresses.
  auto split = [&](uint64_t addr, const char *what, Cta *&cta,
                   uint32_t &off) -> bool {
    uint64_t rank = addrspace::sharedRank(addr);
    if (rank >= ctas_.size())
      return fault(Fault::Kind::Memory, w, lane, I,
                   std::string(what) + " " + hexStr(addr) + " of '" + mnem +
                       "' names CTA rank " + std::to_string(rank) +
                       ", but the cluster has " +
                       std::to_string(ctas_.size()) + " CTAs");
    cta = ctas_[rank].get();
    off = static_cast<uint32_t>(addrspace::sharedOffset(addr));
    return true;
  };
  uint64_t dstAddr = src(w, I.src[0])[lane] + static_cast<uint64_t>(I.imm);
  Cta *dstCta = nullptr;
  uint32_t dstOff = 0;
  if (!split(dstAddr, "destination", dstCta, dstOff))
    return false;
  if (dstOff % 128 != 0)
    return fault(Fault::Kind::Memory, w, lane, I,
                 "the destination " + hexStr(dstAddr) + " of '" + mnem +
                     "' is not 128-byte aligned");
  XInst mb = I;
  mb.src[0] = I.src[2];
  mb.imm = static_cast<int64_t>(src(w, list[coords + 1])[lane]);
  mb.space = XSpace::SharedCluster;
  Cta *mbCta = nullptr;
  uint32_t mbOff = 0;
  if (!mbarAddress(w, lane, mb, /*ownCtaOnly=*/false, mbCta, mbOff))
    return false;

  // Gather the box (gather4: four boxes of one row, stacked).
  uint64_t boxElems = gather4 ? 4 : 1;
  for (unsigned i = 0; i < dims; ++i)
    boxElems *= d.boxDims[i];
  const uint64_t total = boxElems * eb;
  std::vector<uint8_t> dense(total);
  uint64_t fill = d.oobFill == rt::TmaOobFill::NaN ? kNanFill : 0;
  uint32_t idx[rt::kTmaMaxRank] = {};
  uint32_t row4 = 0; // gather4: which of the four rows
  for (uint64_t e = 0; e < boxElems; ++e) {
    bool inside = true;
    uint64_t addr = d.globalAddress;
    for (unsigned i = 0; i < dims; ++i) {
      int64_t c = gather4 && i == 1 ? rows4[row4] : coord[i] + idx[i];
      if (c < 0 || static_cast<uint64_t>(c) >= d.globalDims[i]) {
        inside = false;
        break;
      }
      addr += static_cast<uint64_t>(c) * (i == 0 ? eb : d.globalStrides[i - 1]);
    }
    uint8_t *out = dense.data() + e * eb;
    if (inside) {
      uint8_t *p = resolve(w, lane, XSpace::Global, addr, eb, false, I);
      if (!p)
        return false;
      std::memcpy(out, p, eb);
      stats_.tmaLoadBytes += eb;
      stats_.perCta[w.cta->linear].tmaLoadBytes += eb;
    } else {
      std::memcpy(out, &fill, eb);
    }
    bool wrapped = true;
    for (unsigned i = 0; i < dims; ++i) {
      if (++idx[i] < d.boxDims[i]) {
        wrapped = false;
        break;
      }
      idx[i] = 0;
    }
    if (gather4 && wrapped)
      ++row4;
  }
  // Swizzle into the image (relative to dstOff, 128-aligned; SmemBox).
  // The bytes after a box row narrower than the swizzle span are left
  // untouched.
  std::vector<uint8_t> image, written;
  if (swz == 0) {
    image = std::move(dense);
  } else {
    const SmemBox box(uint64_t(d.boxDims[0]) * eb, total, swz);
    if (box.bytes % 128 != 0)
      return fault(Fault::Kind::NotImplemented, w, lane, I,
                   "not implemented yet: a swizzled TMA box of " +
                       std::to_string(box.bytes) +
                       " bytes (not a multiple of 128)");
    image.assign(box.bytes, 0);
    if (box.pitch != box.inner)
      written.assign(box.bytes, 0);
    for (uint64_t r = 0; r < box.rows; ++r)
      for (uint64_t b = 0; b < box.inner; ++b) {
        uint64_t at = box.offset(dstOff, r, b);
        image[at] = dense[r * box.inner + b];
        if (!written.empty())
          written[at] = 1;
      }
  }

  // Targets.
  std::vector<std::pair<Cta *, Cta *>> targets; // (data CTA, barrier CTA)
  if (I.sub & XT_Multicast) {
    uint32_t ctaMask = static_cast<uint32_t>(src(w, I.src[3])[lane] & 0xffff);
    for (uint32_t r = 0; r < 16; ++r) {
      if (!(ctaMask >> r & 1))
        continue;
      if (r >= ctas_.size())
        return fault(Fault::Kind::Invalid, w, lane, I,
                     "the multicast mask " + hexStr(ctaMask) + " of '" + mnem +
                         "' names CTA rank " + std::to_string(r) +
                         ", but the cluster has " +
                         std::to_string(ctas_.size()) + " CTAs");
      uint32_t mbRank =
          (I.sub & XT_CtaGroup2) ? ((r & ~1u) | (mbCta->rank & 1)) : r;
      if (mbRank >= ctas_.size())
        mbRank = r;
      targets.push_back({ctas_[r].get(), ctas_[mbRank].get()});
    }
  } else {
    targets.push_back({dstCta, mbCta});
  }
  for (auto &t : targets) {
    if (uint64_t(dstOff) + image.size() > t.first->shared.size())
      return fault(Fault::Kind::Memory, w, lane, I,
                   "the " + std::to_string(total) + "-byte box of '" + mnem +
                       "' at shared offset " + hexStr(dstOff) +
                       " does not fit in the " +
                       std::to_string(t.first->shared.size()) +
                       " bytes of shared memory of CTA rank " +
                       std::to_string(t.first->rank));
    if (uint64_t(mbOff) + 8 > t.second->shared.size())
      return fault(Fault::Kind::Memory, w, lane, I,
                   "the mbarrier offset " + hexStr(mbOff) + " of '" + mnem +
                       "' is outside the shared memory of CTA rank " +
                       std::to_string(t.second->rank));
  }
  for (auto &t : targets) {
    TmaCopy c;
    c.cta = t.first;
    c.off = dstOff;
    c.image = image;
    c.written = written;
    c.mbCta = t.second;
    c.mbOff = mbOff;
    c.txBytes = static_cast<uint32_t>(total);
    c.swizzle = static_cast<uint8_t>(swz);
    if (!pushCopy(w, lane, I, std::move(c), "the TMA load"))
      return false;
  }
  return true;
}

bool Executor::tmaStoreLane(Warp &w, uint32_t lane, const XInst &I,
                            const rt::TensorMapDesc &d, const int64_t *coord,
                            unsigned swz) {
  const std::string mnem =
      I.inst ? I.inst->mnemonic : std::string("cp.async.bulk.tensor");
  const unsigned dims = d.rank;
  const unsigned eb = rt::elementBits(d.dataType) / 8;
  uint64_t boxElems = 1;
  for (unsigned i = 0; i < dims; ++i)
    boxElems *= d.boxDims[i];
  const SmemBox box(uint64_t(d.boxDims[0]) * eb, boxElems * eb, swz);

  // The H200 raises an illegal-instruction error for a store with a
  // negative coordinate, even in an outer dimension only and whether or not
  // part of the box is inside the tensor (corpus cases
  // tma_store_2d_f32_none_b64_m4_1, tma_store_2d_f32_none_b64_12_m4,
  // tma_store_5d_f32_none_b64_12_1_1_1_m1, tma_store_2d_f32_none_b64_m16_1),
  // and for one whose box starts in dimension 0 at a byte offset that is
  // not a multiple of 16, in bounds or not (tma_store_2d_f32_none_b64_1_1,
  // tma_store_1d_f32_none_b128_1, tma_store_2d_bf16_none_b64_129_1).
  for (unsigned i = 0; i < dims; ++i)
    if (coord[i] < 0)
      return fault(Fault::Kind::Invalid, w, lane, I,
                   "TMA tile store with a negative tensor coordinate "
                   "(dimension " +
                       std::to_string(i) + ": " + std::to_string(coord[i]) +
                       ") in '" + mnem +
                       "': an illegal instruction on the H200, whatever part "
                       "of the box lies inside the tensor (corpus case "
                       "tma_store_2d_f32_none_b64_12_m4)");
  if ((coord[0] * eb) % 16 != 0)
    return fault(Fault::Kind::Invalid, w, lane, I,
                 "TMA tile store whose box starts at byte " +
                     std::to_string(coord[0] * eb) +
                     " of dimension 0 (coordinate " + std::to_string(coord[0]) +
                     " x " + std::to_string(eb) + "-byte elements) in '" +
                     mnem +
                     "': not a multiple of 16 bytes, an illegal instruction "
                     "on the H200 (corpus case tma_store_2d_f32_none_b64_1_1)");

  if (swz != 0 && box.bytes % 128 != 0)
    return fault(Fault::Kind::NotImplemented, w, lane, I,
                 "not implemented yet: a swizzled TMA box of " +
                     std::to_string(box.bytes) +
                     " bytes (not a multiple of 128)");

  // The source: shared::cta, 128-byte aligned, read now (as cp.async.bulk
  // shared -> global reads its source when it issues).
  uint64_t srcAddr = src(w, I.src[0])[lane] + static_cast<uint64_t>(I.imm);
  if (srcAddr % 128 != 0)
    return fault(Fault::Kind::Memory, w, lane, I,
                 "the shared source " + hexStr(srcAddr) + " of '" + mnem +
                     "' is not 128-byte aligned");
  const uint8_t *sp = resolve(w, lane, XSpace::Shared, srcAddr,
                              static_cast<uint32_t>(box.bytes), false, I, 128);
  if (!sp)
    return false;
  const uint64_t srcOff = addrspace::sharedOffset(srcAddr);
  if (san_) {
    std::string e = san_->proxyRead(
        sanWarp(w), w.cta->rank, static_cast<uint32_t>(srcOff),
        static_cast<uint32_t>(srcOff + box.bytes), I.line,
        "the TMA store's read of its source");
    if (!e.empty())
      return sanFault(w, lane, I, e);
  }

  // One pending bulk store per box row with in-bounds elements: the
  // in-bounds part of a row is contiguous in global memory. The H200 writes
  // whole 16-byte chunks: dimension 0 ends at its size rounded up to 16
  // bytes (corpus cases tma_store_2d_f32_none_b64_52_1_d62,
  // tma_store_1d_f32_none_b128_240_d270). c0 >= 0 (checked above).
  const int64_t c0 = coord[0];
  const int64_t end0 = int64_t((d.globalDims[0] * eb + 15) / 16 * 16 / eb);
  const int64_t lo = 0;
  const int64_t hi = std::min<int64_t>(d.boxDims[0], end0 - c0);
  uint32_t idx[rt::kTmaMaxRank] = {};
  for (uint64_t r = 0; r < box.rows; ++r) {
    bool inside = lo < hi;
    uint64_t addr = d.globalAddress;
    for (unsigned i = 1; i < dims && inside; ++i) {
      int64_t c = coord[i] + idx[i];
      inside = c >= 0 && static_cast<uint64_t>(c) < d.globalDims[i];
      addr += static_cast<uint64_t>(c) * d.globalStrides[i - 1];
    }
    if (inside) {
      addr += static_cast<uint64_t>(c0 + lo) * eb;
      const uint64_t first = uint64_t(lo) * eb, n = uint64_t(hi - lo) * eb;
      if (!resolve(w, lane, XSpace::Global, addr, static_cast<uint32_t>(n),
                   true, I, 1))
        return false;
      std::vector<uint8_t> bytes(n);
      for (uint64_t b = 0; b < n; ++b)
        bytes[b] = sp[box.offset(srcOff, r, first + b)];
      w.bulkStores.push_back(
          {lane, Warp::kUncommitted, addr, std::move(bytes)});
    }
    for (unsigned i = 1; i < dims; ++i) {
      if (++idx[i] < d.boxDims[i])
        break;
      idx[i] = 0;
    }
  }
  return true;
}

bool Executor::pushSharedCopy(Warp &w, uint32_t lane, const XInst &I, Cta &cta,
                              uint32_t off, std::vector<uint8_t> bytes,
                              Cta &mbCta, uint32_t mbOff, bool generic) {
  TmaCopy copy;
  copy.cta = &cta;
  copy.off = off;
  copy.txBytes = static_cast<uint32_t>(bytes.size());
  copy.image = std::move(bytes);
  copy.mbCta = &mbCta;
  copy.mbOff = mbOff;
  copy.generic = generic;
  return pushCopy(w, lane, I, std::move(copy),
                  generic ? "st.async" : "the bulk copy");
}

bool Executor::pushCopy(Warp &w, uint32_t lane, const XInst &I, TmaCopy copy,
                        const char *what) {
  copy.origin = location(w, lane, I.line);
  // The issuer also decides, without the sanitizer, whether a landing CTA
  // has exited before its peer's copy (TmaUnit::step).
  copy.warp = sanWarp(w);
  if (san_) {
    copy.line = I.line;
    if (copy.mbCta != w.cta) {
      std::string e = san_->mbarRemoteUse(copy.warp, copy.mbCta->rank,
                                          copy.mbOff, I.line, what);
      if (!e.empty())
        return sanFault(w, lane, I, e);
    }
    std::string e =
        san_->tmaIssue(copy.warp, copy.cta->rank, copy.off,
                       copy.off + static_cast<uint32_t>(copy.image.size()),
                       I.line, copy.generic);
    if (!e.empty())
      return sanFault(w, lane, I, e);
  }
  tmaUnit().push(std::move(copy), *this);
  return true;
}

//===----------------------------------------------------------------------===//
// st.async
//===----------------------------------------------------------------------===//
//
// st.async.shared::cluster.mbarrier::complete_tx::bytes [a], b, [mbar]: the
// value's bytes are read from the registers when the instruction issues and
// handed to the TMA unit like a bulk copy, which writes them into the CTA
// that `a` names and signals complete_tx of their size on the mbarrier
// `mbar` names: a reader sees them only after waiting on that mbarrier.
// `a` must be aligned to the bytes stored, and `mbar` must be in the CTA
// that `a` names (the emulator's strict reading of the ISA's remote-barrier
// use: the barrier tracks the stores into its own CTA).

bool Executor::execStAsync(Warp &w, const XInst &I, uint32_t mask) {
  const std::string mnem = I.inst ? I.inst->mnemonic : "st.async";
  const unsigned eb = ptx::typeBits(I.type) / 8;
  const uint32_t total = eb * I.vec;
  const uint32_t *list = prog_.lists.data() + I.listBegin;
  const uint32_t mbRow = list[I.vec > 1 ? I.vec : 0];
  for (uint32_t m = mask; m; m &= m - 1) {
    uint32_t lane = static_cast<uint32_t>(__builtin_ctz(m));
    uint64_t dst = src(w, I.src[0])[lane] + static_cast<uint64_t>(I.imm);
    if (dst % total != 0)
      return fault(Fault::Kind::Invalid, w, lane, I,
                   "'" + mnem + "' to " + hexStr(dst) +
                       ": the address must be a multiple of the " +
                       std::to_string(total) + " bytes stored");
    uint32_t rank = static_cast<uint32_t>(addrspace::sharedRank(dst));
    uint32_t off = static_cast<uint32_t>(addrspace::sharedOffset(dst));
    if (rank >= ctas_.size())
      return fault(Fault::Kind::Memory, w, lane, I,
                   "'" + mnem + "' to " + hexStr(dst) + " names CTA rank " +
                       std::to_string(rank) + ", but the cluster has " +
                       std::to_string(ctas_.size()) + " CTAs");
    Cta *c = ctas_[rank].get();
    if (uint64_t(off) + total > c->shared.size())
      return fault(Fault::Kind::Memory, w, lane, I,
                   "'" + mnem + "' of " + std::to_string(total) +
                       " bytes to shared offset " + hexStr(off) +
                       " is outside the shared memory of CTA rank " +
                       std::to_string(rank));
    std::vector<uint8_t> bytes(total);
    for (unsigned e = 0; e < I.vec; ++e) {
      uint64_t v = src(w, I.vec > 1 ? list[e] : I.src[1])[lane];
      std::memcpy(bytes.data() + e * eb, &v, eb);
    }
    XInst mb = I;
    mb.src[0] = I.src[2];
    mb.imm = static_cast<int64_t>(src(w, mbRow)[lane]);
    mb.space = XSpace::SharedCluster;
    Cta *mbCta = nullptr;
    uint32_t mbOff = 0;
    if (!mbarAddress(w, lane, mb, /*ownCtaOnly=*/false, mbCta, mbOff))
      return false;
    if (mbCta != c)
      return fault(Fault::Kind::Invalid, w, lane, I,
                   "'" + mnem + "' stores into CTA rank " +
                       std::to_string(rank) +
                       " but completes on an mbarrier of CTA rank " +
                       std::to_string(mbCta->rank) +
                       " (the mbarrier must be in the destination's CTA)");
    if (!pushSharedCopy(w, lane, I, *c, off, std::move(bytes), *mbCta, mbOff,
                        /*generic=*/true))
      return false;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// cp.async.bulk (non-tensor)
//===----------------------------------------------------------------------===//
//
// global -> shared::cta / shared::cluster (with multicast) and shared::cta
// -> shared::cluster read their source when issued and hand the bytes to
// the TMA unit, which writes them and signals complete_tx like a tensor
// load. shared::cta -> global (.bulk_group) reads shared memory when issued
// and writes global memory when the issuing thread's cp.async.bulk.wait_group
// retires its group (or the thread exits): until then other threads do not
// see the data.

namespace {
/// A commit_group of `lane` (cp.async.bulk's or cp.async's): its pending
/// uncommitted operations join group `committed`, the next group's index.
template <typename Pending>
void commitGroup(std::vector<Pending> &pending, uint32_t lane,
                 uint32_t &committed) {
  for (Pending &op : pending)
    if (op.lane == lane && op.group == Executor::Warp::kUncommitted)
      op.group = committed;
  ++committed;
}
/// Whether a wait_group `keep` retires `group` of a thread that committed
/// `committed` groups (all but the `keep` most recent).
bool retired(uint32_t group, uint64_t keep, uint32_t committed) {
  return group != Executor::Warp::kUncommitted &&
         uint64_t(group) + keep < committed;
}
} // namespace

Executor::TmaUnit &Executor::tmaUnit() {
  if (!tma_) {
    auto unit = std::make_unique<TmaUnit>();
    tma_ = unit.get();
    addAsyncUnit(std::move(unit));
  }
  return *tma_;
}

bool Executor::execBulk(Warp &w, const XInst &I, uint32_t mask) {
  const std::string mnem = I.inst ? I.inst->mnemonic : "cp.async.bulk";
  for (uint32_t m = mask; m; m &= m - 1) {
    uint32_t lane = static_cast<uint32_t>(__builtin_ctz(m));
    if (I.op == XOp::BulkCommit) {
      commitGroup(w.bulkStores, lane, w.bulkGroups[lane]);
      continue;
    }
    if (I.op == XOp::BulkWait) {
      uint64_t keep = static_cast<uint64_t>(I.imm);
      completeBulkStores(w, 1u << lane, [&](const Warp::BulkStore &s) {
        return retired(s.group, keep, w.bulkGroups[lane]);
      });
      continue;
    }
    const uint32_t *list = prog_.lists.data() + I.listBegin;
    uint64_t dst = src(w, I.src[0])[lane] + static_cast<uint64_t>(I.imm);
    uint64_t from = src(w, I.src[1])[lane] + src(w, list[0])[lane];
    uint32_t size = static_cast<uint32_t>(src(w, I.src[2])[lane]);
    if (size == 0 || size % 16 != 0 || dst % 16 != 0 || from % 16 != 0)
      return fault(Fault::Kind::Invalid, w, lane, I,
                   "'" + mnem + "' of " + std::to_string(size) + " bytes from " +
                       hexStr(from) + " to " + hexStr(dst) +
                       ": the size and both addresses must be multiples of "
                       "16");
    XSpace srcSpace = I.sub == XB_GlobalToShared ? XSpace::Global
                                                  : XSpace::Shared;
    // The ISA requires 16-byte alignment (checked above), not the size's.
    uint8_t *sp = resolve(w, lane, srcSpace, from, size, false, I, 16);
    if (!sp)
      return false;
    if (san_ && srcSpace == XSpace::Shared) {
      const uint32_t off =
          static_cast<uint32_t>(addrspace::sharedOffset(from));
      std::string e = san_->proxyRead(sanWarp(w), w.cta->rank, off,
                                      off + size, I.line,
                                      "the bulk copy's read of its source");
      if (!e.empty())
        return sanFault(w, lane, I, e);
    }
    std::vector<uint8_t> bytes(sp, sp + size);
    if (I.sub == XB_SharedToGlobal) {
      if (!resolve(w, lane, XSpace::Global, dst, size, true, I, 16))
        return false;
      w.bulkStores.push_back(
          {lane, Warp::kUncommitted, dst, std::move(bytes)});
      continue;
    }
    // To shared memory, completing on an mbarrier.
    std::vector<uint32_t> ranks;
    if (I.sub2 & XT_Multicast) {
      uint32_t ctaMask = static_cast<uint32_t>(src(w, list[2])[lane] & 0xffff);
      for (uint32_t r = 0; r < 16; ++r)
        if ((ctaMask >> r) & 1)
          ranks.push_back(r);
    } else {
      ranks.push_back(static_cast<uint32_t>(
          I.space == XSpace::Shared ? w.cta->rank
                                    : addrspace::sharedRank(dst)));
    }
    if (I.space == XSpace::Shared &&
        addrspace::sharedRank(dst) != w.cta->rank)
      return fault(Fault::Kind::Memory, w, lane, I,
                   "the shared::cta destination " + hexStr(dst) + " of '" +
                       mnem + "' names another CTA");
    XInst mb = I;
    mb.src[0] = I.src[3];
    mb.imm = static_cast<int64_t>(src(w, list[1])[lane]);
    mb.space = XSpace::SharedCluster;
    Cta *mbCta = nullptr;
    uint32_t mbOff = 0;
    if (!mbarAddress(w, lane, mb, /*ownCtaOnly=*/false, mbCta, mbOff))
      return false;
    uint32_t off = static_cast<uint32_t>(addrspace::sharedOffset(dst));
    for (uint32_t r : ranks) {
      if (r >= ctas_.size())
        return fault(Fault::Kind::Invalid, w, lane, I,
                     "'" + mnem + "' names CTA rank " + std::to_string(r) +
                         ", but the cluster has " +
                         std::to_string(ctas_.size()) + " CTAs");
      Cta *c = ctas_[r].get();
      if (uint64_t(off) + size > c->shared.size())
        return fault(Fault::Kind::Memory, w, lane, I,
                     "the " + std::to_string(size) + "-byte copy of '" + mnem +
                         "' to shared offset " + hexStr(off) +
                         " does not fit in the shared memory of CTA rank " +
                         std::to_string(r));
      // The mbarrier sits at the same offset in each destination CTA
      // (multicast), or where the operand says.
      Cta *bc = (I.sub2 & XT_Multicast) ? c : mbCta;
      if (!pushSharedCopy(w, lane, I, *c, off, bytes, *bc, mbOff))
        return false;
    }
  }
  return true;
}

//===----------------------------------------------------------------------===//
// cp.async (non-bulk)
//===----------------------------------------------------------------------===//
//
// A thread's cp.async reads its global source when issued and writes shared
// memory when the same thread's cp.async.wait_group retires the copy's group
// (wait_all: every group): until then shared memory holds what it held, so
// a read before the wait sees stale bytes, as it may on the hardware.

bool Executor::execAsyncCopy(Warp &w, const XInst &I, uint32_t mask) {
  for (uint32_t m = mask; m; m &= m - 1) {
    uint32_t lane = static_cast<uint32_t>(__builtin_ctz(m));
    if (I.op == XOp::AsyncCommit || (I.op == XOp::AsyncWait && I.sub == 1)) {
      commitGroup(w.asyncCopies, lane, w.asyncGroups[lane]);
      if (I.op == XOp::AsyncCommit)
        continue;
    }
    if (I.op == XOp::AsyncWait) {
      uint64_t keep = static_cast<uint64_t>(I.imm);
      std::vector<Warp::AsyncCopy> pending;
      for (Warp::AsyncCopy &c : w.asyncCopies) {
        bool done =
            c.lane == lane && retired(c.group, keep, w.asyncGroups[lane]);
        if (!done) {
          pending.push_back(std::move(c));
          continue;
        }
        uint32_t n = static_cast<uint32_t>(c.bytes.size());
        uint8_t *p = resolve(w, lane, XSpace::Shared, c.shared, n, true, I, n);
        if (!p)
          return false;
        if (san_ && !sanShared(w, lane, I, p, n, true, "cp.async"))
          return false;
        std::memcpy(p, c.bytes.data(), n);
      }
      w.asyncCopies = std::move(pending);
      continue;
    }
    const uint32_t *list = prog_.lists.data() + I.listBegin;
    uint64_t dst = src(w, I.src[0])[lane] + static_cast<uint64_t>(I.imm);
    uint64_t from = src(w, I.src[1])[lane] + src(w, list[0])[lane];
    uint32_t size = I.sub;
    const uint8_t *sp =
        resolve(w, lane, XSpace::Global, from, size, false, I, size);
    if (!sp)
      return false;
    // The destination's bounds and alignment now; its bytes at the wait.
    if (!resolve(w, lane, XSpace::Shared, dst, size, false, I, size))
      return false;
    w.asyncCopies.push_back(
        {lane, Warp::kUncommitted, dst, std::vector<uint8_t>(sp, sp + size)});
  }
  return true;
}

void Executor::completeBulkStores(
    Warp &w, uint32_t lanes,
    const std::function<bool(const Warp::BulkStore &)> &done) {
  std::vector<Warp::BulkStore> keep;
  for (Warp::BulkStore &s : w.bulkStores) {
    if (((lanes >> s.lane) & 1) && done(s)) {
      if (uint8_t *p = mem_.translate(s.global, s.bytes.size()))
        std::memcpy(p, s.bytes.data(), s.bytes.size());
    } else {
      keep.push_back(std::move(s));
    }
  }
  w.bulkStores = std::move(keep);
}
