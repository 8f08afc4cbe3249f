//===- ExecMemory.cpp - Memory, atomics and warp-synchronous operations ---===//
//
// The executor's memory family: address resolution for every state space
// (resolve), ld / st / vectors, atom / red, and the warp-synchronous
// operations (shfl, vote, match, redux).
//
//===----------------------------------------------------------------------===//

#include "ExecHelpers.h"

using namespace nvfp4::emu;
using ptx::Type;

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

uint8_t *Executor::resolve(Warp &w, uint32_t lane, XSpace space, uint64_t addr,
                           uint32_t bytes, bool write, const XInst &I,
                           uint32_t align) {
  resolvedGlobal_ = false;
  if (align == 0)
    align = bytes;
  const char *kind = write ? "store" : "load";
  if (I.op == XOp::Atom)
    kind = "atomic";
  else if (I.op == XOp::Prefetch)
    kind = "prefetch";
  auto fail = [&](const std::string &why) -> uint8_t * {
    fault(Fault::Kind::Memory, w, lane, I,
          std::string(why.empty() ? "" : "") + why);
    return nullptr;
  };
  std::string what = std::string(spaceStr(space)) + " " + kind + " of " +
                     std::to_string(bytes) + " bytes at ";
  if (addr % align != 0)
    return fail("misaligned " + what + hex(addr) + " (needs " +
                std::to_string(align) + "-byte alignment)");
  // Generic addresses: find the window.
  if (space == XSpace::Generic) {
    if (addr >= addrspace::kSharedWindow &&
        addr < addrspace::kSharedWindow + addrspace::kWindowSize) {
      space = XSpace::SharedCluster;
      addr -= addrspace::kSharedWindow;
    } else if (addr >= addrspace::kLocalWindow &&
               addr < addrspace::kLocalWindow + addrspace::kWindowSize) {
      space = XSpace::Local;
      addr -= addrspace::kLocalWindow;
    } else if (addr >= addrspace::kParamWindow &&
               addr < addrspace::kParamWindow + addrspace::kWindowSize) {
      space = XSpace::ParamKernel;
      addr -= addrspace::kParamWindow;
    } else if (addr >= addrspace::kConstWindow &&
               addr < addrspace::kConstWindow + addrspace::kWindowSize) {
      space = XSpace::Const;
      addr -= addrspace::kConstWindow;
    } else {
      space = XSpace::Global;
    }
  }
  switch (space) {
  case XSpace::Global: {
    if (cfg_.programmatic && !(w.gridDepWaited >> lane & 1u) &&
        I.op != XOp::Prefetch)
      return fail("race: " + what + hex(addr) +
                  " before griddepcontrol.wait in a kernel launched "
                  "programmatically (on a GPU it may run beside the previous "
                  "kernel, whose writes it is not ordered after)");
    uint8_t *p = mem_.translate(addr, bytes);
    if (!p)
      return fail("out-of-bounds " + what + hex(addr) + " (" +
                  mem_.describe(addr, bytes) + ")");
    if (!write && I.op == XOp::Ld)
      globalLoadAddrs_.push_back(addr);
    resolvedGlobal_ = true;
    lastGlobalAddr_ = addr;
    return p;
  }
  case XSpace::Shared:
  case XSpace::SharedCluster: {
    // A shared address is (CTA rank << 24) | offset (docs/Emulator.md,
    // "Shared memory addresses"; measured on an H200).
    uint64_t rank = addrspace::sharedRank(addr);
    uint64_t off = addrspace::sharedOffset(addr);
    Cta *cta = w.cta;
    if (space == XSpace::Shared && rank != w.cta->rank)
      return fail("shared::cta " + std::string(kind) + " of " +
                  std::to_string(bytes) + " bytes at " + hex(addr) +
                  ", an address of CTA rank " + std::to_string(rank) +
                  " while the executing CTA has rank " +
                  std::to_string(w.cta->rank) +
                  " (another CTA's shared memory needs a shared::cluster "
                  "access; hardware raises an illegal-instruction error)");
    if (space == XSpace::SharedCluster) {
      if (rank >= ctas_.size())
        return fail("out-of-bounds " + what + hex(addr) +
                    " (shared::cluster address of CTA rank " +
                    std::to_string(rank) + "; the cluster has " +
                    std::to_string(ctas_.size()) + " CTAs)");
      cta = ctas_[rank].get();
      if (cta != w.cta && cta->liveWarps == 0)
        return fail(std::string(kind) + " of " + std::to_string(bytes) +
                    " bytes at " + hex(addr) + " in the shared memory of CTA "
                    "rank " + std::to_string(rank) + ", which has exited "
                    "(its shared memory is gone; a cluster barrier before "
                    "the exit keeps a CTA alive while its peers access it)");
    }
    if (off > cta->shared.size() || bytes > cta->shared.size() - off)
      return fail(
          "out-of-bounds " + what + "shared address " + hex(off) +
          " (the CTA has " + std::to_string(cta->shared.size()) +
          " bytes of shared memory: " + std::to_string(prog_.staticShared) +
          " static, " + std::to_string(cfg_.dynamicSharedBytes) + " dynamic)");
    if (write && tensor_)
      if (const std::string *origin = mmaReadsShared(*cta, off, bytes))
        return fail("race: " + what + "shared address " + hex(off) +
                    " of CTA rank " + std::to_string(cta->rank) +
                    " overwrites an operand of the tcgen05.mma issued in " +
                    *origin +
                    " (not complete; wait on the mbarrier of its "
                    "tcgen05.commit first)");
    if (write && cta->wgmmaPending)
      if (const std::string *origin = wgmmaReadsShared(*cta, off, bytes))
        return fail("race: " + what + "shared address " + hex(off) +
                    " of CTA rank " + std::to_string(cta->rank) +
                    " overwrites an operand of the wgmma.mma_async issued "
                    "in " +
                    *origin + " (not retired; wgmma.wait_group first)");
    if (tma_ && cfg_.checkTmaRaces)
      if (std::optional<std::string> copy = tmaInFlight(*cta, off, bytes))
        return fail("race: " + what + "shared address " + hex(off) +
                    " of CTA rank " + std::to_string(cta->rank) +
                    " touches bytes that " + *copy +
                    " is still writing (wait on its mbarrier first)");
    return cta->shared.data() + off;
  }
  case XSpace::Local: {
    uint32_t lb = prog_.localBytes;
    if (addr > lb || bytes > lb - addr)
      return fail("out-of-bounds " + what + "local address " + hex(addr) +
                  " (" + std::to_string(lb) +
                  " bytes of local memory per thread)");
    return w.local.data() + size_t(lane) * lb + addr;
  }
  case XSpace::ParamKernel: {
    if (write)
      return fail("store to the read-only kernel parameter space at " +
                  hex(addr));
    size_t n = cfg_.params.size();
    if (addr > n || bytes > n - addr)
      return fail("out-of-bounds " + what + "param offset " + hex(addr) +
                  " (the kernel has " + std::to_string(n) +
                  " bytes of parameters)");
    return const_cast<uint8_t *>(cfg_.params.data()) + addr;
  }
  case XSpace::Const: {
    if (write)
      return fail("store to the read-only constant space at " + hex(addr));
    const std::vector<uint8_t> &cd = *prog_.constData;
    if (addr > cd.size() || bytes > cd.size() - addr)
      return fail("out-of-bounds " + what + "const offset " + hex(addr) +
                  " (the module has " + std::to_string(cd.size()) +
                  " bytes of constants)");
    return const_cast<uint8_t *>(cd.data()) + addr;
  }
  case XSpace::Generic:
    break;
  }
  return fail("bad address space");
}

bool Executor::execMemory(Warp &w, const XInst &I, uint32_t mask) {
  switch (I.op) {
  case XOp::Ld:
  case XOp::St: {
    bool isLoad = I.op == XOp::Ld;
    unsigned eb = ptx::typeBits(I.type) / 8;
    unsigned total = eb * I.vec;
    const uint64_t *base = src(w, I.src[0]);
    const uint32_t *lst =
        I.vec > 1 ? prog_.lists.data() + I.listBegin : nullptr;
    if (isLoad) {
      // Loads complete for every lane before registers change (a
      // destination may be the address register).
      uint64_t vals[8][32];
      globalLoadAddrs_.clear();
      NVFP4_FOR_LANES(mask, {
        uint64_t addr = base[l] + static_cast<uint64_t>(I.imm);
        uint8_t *p = resolve(w, l, I.space, addr, total, false, I);
        if (!p || (san_ && !sanShared(w, l, I, p, total, false, "ld")))
          return false;
        for (unsigned e = 0; e < I.vec; ++e) {
          uint64_t v = 0;
          std::memcpy(&v, p + e * eb, eb);
          vals[e][l] = v;
        }
      });
      // Bytes read from global memory: lanes that read the same address
      // (a broadcast) count once, as one transaction serves them.
      if (!globalLoadAddrs_.empty()) {
        std::sort(globalLoadAddrs_.begin(), globalLoadAddrs_.end());
        size_t distinct =
            std::unique(globalLoadAddrs_.begin(), globalLoadAddrs_.end()) -
            globalLoadAddrs_.begin();
        stats_.globalLoadBytes += distinct * total;
      }
      for (unsigned e = 0; e < I.vec; ++e) {
        uint32_t dstRow = lst ? lst[e] : I.dst;
        if (dstRow == kNone)
          continue;
        uint64_t *d = row(w, dstRow);
        NVFP4_FOR_LANES(mask, d[l] = canon(I, vals[e][l]));
      }
      return true;
    }
    NVFP4_FOR_LANES(mask, {
      uint64_t addr = base[l] + static_cast<uint64_t>(I.imm);
      uint8_t *p = resolve(w, l, I.space, addr, total, true, I);
      if (!p || (san_ && !sanShared(w, l, I, p, total, true, "st")))
        return false;
      if (resolvedGlobal_)
        stats_.globalStoreBytes += total;
      for (unsigned e = 0; e < I.vec; ++e) {
        const uint64_t *s = src(w, lst ? lst[e] : I.src[1]);
        uint64_t v = s[l];
        std::memcpy(p + e * eb, &v, eb);
      }
    });
    return true;
  }
  case XOp::Cvta: {
    uint64_t *d = row(w, I.dst);
    const uint64_t *a = src(w, I.src[0]);
    uint64_t window = 0;
    switch (I.space) {
    case XSpace::Shared:
    case XSpace::SharedCluster:
      window = addrspace::kSharedWindow;
      break;
    case XSpace::Local:
      window = addrspace::kLocalWindow;
      break;
    case XSpace::ParamKernel:
      window = addrspace::kParamWindow;
      break;
    case XSpace::Const:
      window = addrspace::kConstWindow;
      break;
    default:
      break;
    }
    bool toSpace = I.sub != 0;
    NVFP4_FOR_LANES(mask, {
      uint64_t v = a[l];
      if (!toSpace) {
        d[l] = canon(I, window + v);
      } else if (window) {
        if (v < window || v >= window + addrspace::kWindowSize)
          return fault(Fault::Kind::Memory, w, l, I,
                       "cvta.to." + std::string(spaceStr(I.space)) +
                           " of generic address " + hex(v) +
                           ", which is not in the " + spaceStr(I.space) +
                           " window");
        d[l] = canon(I, v - window);
      } else {
        bool inWindow = v >= addrspace::kSharedWindow &&
                        v < addrspace::kConstWindow + addrspace::kWindowSize;
        if (inWindow)
          return fault(Fault::Kind::Memory, w, l, I,
                       "cvta.to.global of generic address " + hex(v) +
                           ", which is a shared, local, param or const "
                           "address");
        d[l] = canon(I, v);
      }
    });
    return true;
  }
  case XOp::Mapa: {
    // The rank field of a shared address (docs/Emulator.md, "Shared memory
    // addresses") is replaced by the target rank.
    uint64_t *d = row(w, I.dst);
    const uint64_t *a = src(w, I.src[0]);
    const uint64_t *b = src(w, I.src[1]);
    uint64_t window =
        I.space == XSpace::Generic ? addrspace::kSharedWindow : 0;
    NVFP4_FOR_LANES(mask, {
      uint64_t v = a[l], r = b[l] & 0xffffffffu;
      if (v < window || v - window >= addrspace::kWindowSize)
        return fault(Fault::Kind::Memory, w, l, I,
                     "mapa of generic address " + hex(v) +
                         ", which is not a shared-memory address");
      if (r >= ctas_.size())
        return fault(Fault::Kind::Invalid, w, l, I,
                     "mapa to CTA rank " + std::to_string(r) +
                         ", but the cluster has " +
                         std::to_string(ctas_.size()) + " CTAs");
      d[l] = canon(I, window + addrspace::sharedAddress(
                                   r, addrspace::sharedOffset(v - window)));
    });
    return true;
  }
  case XOp::Isspacep: {
    const uint64_t *a = src(w, I.src[0]);
    uint32_t res = 0;
    NVFP4_FOR_LANES(mask, {
      uint64_t v = a[l];
      bool in;
      switch (I.space) {
      case XSpace::Shared:
      case XSpace::SharedCluster:
        in = v >= addrspace::kSharedWindow &&
             v < addrspace::kSharedWindow + addrspace::kWindowSize;
        break;
      case XSpace::Local:
        in = v >= addrspace::kLocalWindow &&
             v < addrspace::kLocalWindow + addrspace::kWindowSize;
        break;
      case XSpace::ParamKernel:
        in = v >= addrspace::kParamWindow &&
             v < addrspace::kParamWindow + addrspace::kWindowSize;
        break;
      case XSpace::Const:
        in = v >= addrspace::kConstWindow &&
             v < addrspace::kConstWindow + addrspace::kWindowSize;
        break;
      default:
        in = v < addrspace::kGlobalEnd;
        break;
      }
      if (in)
        res |= 1u << l;
    });
    writePred(w, I.dst, mask, res);
    return true;
  }
  default:
    return fault(Fault::Kind::Invalid, w, firstLane(mask), I,
                 "internal error: unexpected memory operation");
  }
}

bool Executor::execAtom(Warp &w, const XInst &I, uint32_t mask) {
  Type t = I.type;
  unsigned bytes = ptx::typeBits(t) / 8;
  const uint64_t *base = src(w, I.src[0]);
  const uint64_t *b = src(w, I.src[1]);
  const uint64_t *c = I.src[2] != kNone ? src(w, I.src[2]) : nullptr;
  uint64_t *d = I.dst != kNone ? row(w, I.dst) : nullptr;
  uint64_t m = lowMask(bytes * 8);
  // Lanes perform their atomics one after another, in lane order.
  uint64_t old[32];
  NVFP4_FOR_LANES(mask, {
    uint64_t addr = base[l] + static_cast<uint64_t>(I.imm);
    uint8_t *p = resolve(w, l, I.space, addr, bytes, true, I);
    if (!p || (san_ && !sanShared(w, l, I, p, bytes, true, "atom")))
      return false;
    bool isGlobal =
        I.space == XSpace::Global ||
        (I.space == XSpace::Generic &&
         !(addr >= addrspace::kSharedWindow &&
           addr < addrspace::kSharedWindow + addrspace::kWindowSize));
    uint64_t cur = 0;
    std::memcpy(&cur, p, bytes);
    uint64_t x = b[l] & m, r = cur;
    switch (I.sub) {
    case XA_Add:
      if (t == Type::F32) {
        uint32_t u = uint32_t(cur), v = uint32_t(x);
        if (isGlobal) {
          u = flushF32(u);
          v = flushF32(v);
        }
        uint32_t s = canonNanF32(f32Bits(f32Of(u) + f32Of(v)));
        r = isGlobal ? flushF32(s) : s;
      } else if (t == Type::F64) {
        r = canonNanF64(f64Bits(f64Of(cur) + f64Of(x)));
      } else if (t == Type::F16 || t == Type::BF16 || t == Type::F16x2 ||
                 t == Type::BF16x2) {
        const fp::Format &f =
            (t == Type::F16 || t == Type::F16x2) ? fp::kF16 : fp::kBF16;
        unsigned halves = bytes / 2;
        r = 0;
        for (unsigned h = 0; h < halves; ++h)
          r |=
              (fp::addFormat(f, (cur >> (16 * h)) & 0xffff,
                             (x >> (16 * h)) & 0xffff, fp::Round::NearestEven) &
               0xffff)
              << (16 * h);
      } else {
        r = cur + x;
      }
      break;
    case XA_Min:
    case XA_Max: {
      bool isMax = I.sub == XA_Max;
      if (ptx::isSigned(t)) {
        int64_t u = sext(cur, bytes * 8), v = sext(x, bytes * 8);
        r = uint64_t(isMax ? std::max(u, v) : std::min(u, v));
      } else {
        r = isMax ? std::max(cur, x) : std::min(cur, x);
      }
      break;
    }
    case XA_Inc:
      r = cur >= x ? 0 : cur + 1;
      break;
    case XA_Dec:
      r = (cur == 0 || cur > x) ? x : cur - 1;
      break;
    case XA_And:
      r = cur & x;
      break;
    case XA_Or:
      r = cur | x;
      break;
    case XA_Xor:
      r = cur ^ x;
      break;
    case XA_Exch:
      r = x;
      break;
    case XA_Cas:
      r = cur == x ? (c[l] & m) : cur;
      break;
    }
    r &= m;
    std::memcpy(p, &r, bytes);
    old[l] = cur;
  });
  if (d)
    NVFP4_FOR_LANES(mask, d[l] = canon(I, old[l]));
  return true;
}

//===----------------------------------------------------------------------===//
// Warp-synchronous operations
//===----------------------------------------------------------------------===//

bool Executor::execWarpOp(Warp &w, const XInst &I, uint32_t mask) {
  uint32_t group = w.active;
  switch (I.op) {
  case XOp::Shfl: {
    const uint64_t *a = src(w, I.src[0]);
    const uint64_t *bv = src(w, I.src[1]);
    const uint64_t *cv = src(w, I.src[2]);
    uint64_t vals[32];
    for (uint32_t l = 0; l < 32; ++l)
      vals[l] = a[l];
    uint64_t *d = I.dst != kNone ? row(w, I.dst) : nullptr;
    uint32_t pv = 0;
    NVFP4_FOR_LANES(mask, {
      uint32_t bb = uint32_t(bv[l]) & 31, c = uint32_t(cv[l]);
      uint32_t cval = c & 31, seg = (c >> 8) & 31;
      uint32_t maxLane = (l & seg) | (cval & ~seg);
      uint32_t minLane = l & seg;
      int32_t j = 0;
      bool ok = false;
      switch (I.sub) {
      case 0: // up
        j = int32_t(l) - int32_t(bb);
        ok = j >= int32_t(maxLane);
        break;
      case 1: // down
        j = int32_t(l + bb);
        ok = uint32_t(j) <= maxLane;
        break;
      case 2: // bfly
        j = int32_t(l ^ bb);
        ok = uint32_t(j) <= maxLane;
        break;
      default: // idx
        j = int32_t(minLane | (bb & ~seg));
        ok = uint32_t(j) <= maxLane;
        break;
      }
      if (!ok)
        j = int32_t(l);
      if (d)
        d[l] = canon(I, vals[j & 31]);
      if (ok)
        pv |= 1u << l;
    });
    writePred(w, I.dst2, mask, pv);
    return true;
  }
  case XOp::Vote: {
    uint32_t mm = uint32_t(src(w, I.src[1])[firstLane(mask)]);
    uint32_t p = predMask(w, I, 0);
    uint32_t part = mask & mm;
    uint32_t ballot = p & part;
    if (I.sub == 3) {
      uint64_t *d = row(w, I.dst);
      NVFP4_FOR_LANES(mask, d[l] = canon(I, ballot));
      return true;
    }
    bool v = I.sub == 0   ? ballot == part
             : I.sub == 1 ? ballot != 0
                          : (ballot == part || ballot == 0);
    writePred(w, I.dst, mask, v ? ~0u : 0u);
    return true;
  }
  case XOp::Elect: {
    // The leader is the lowest executing lane. Executing lanes outside the
    // member mask (undefined in the ISA) take part: the H200 elects lane 0
    // of a full warp for member mask 0xb9d0eaa4 (corpus case warp_full).
    uint32_t cand = mask;
    uint32_t leader = firstLane(cand);
    if (I.dst != kNone) {
      uint64_t *d = row(w, I.dst);
      NVFP4_FOR_LANES(mask, d[l] = canon(I, cand ? leader : 0xffffffffu));
    }
    writePred(w, I.dst2, mask, cand ? (1u << leader) : 0u);
    return true;
  }
  case XOp::BarWarpSync:
    return true;
  case XOp::Match: {
    const uint64_t *a = src(w, I.src[0]);
    uint32_t mm = uint32_t(src(w, I.src[1])[firstLane(mask)]);
    uint32_t part = mask & mm;
    uint64_t m = lowMask(ptx::typeBits(I.type));
    uint64_t *d = row(w, I.dst);
    if (I.sub == 0) {
      NVFP4_FOR_LANES(mask, {
        uint32_t same = 0;
        for (uint32_t k = part; k; k &= k - 1) {
          uint32_t o = firstLane(k);
          if ((a[o] & m) == (a[l] & m))
            same |= 1u << o;
        }
        d[l] = canon(I, same);
      });
      return true;
    }
    bool all = true;
    uint64_t v0 = a[firstLane(part)] & m;
    for (uint32_t k = part; k; k &= k - 1)
      all &= (a[firstLane(k)] & m) == v0;
    NVFP4_FOR_LANES(mask, d[l] = canon(I, all ? part : 0));
    writePred(w, I.dst2, mask, all ? ~0u : 0u);
    return true;
  }
  case XOp::Redux: {
    const uint64_t *a = src(w, I.src[0]);
    uint32_t mm = uint32_t(src(w, I.src[1])[firstLane(mask)]);
    uint32_t part = mask & mm;
    bool s = I.type == Type::S32;
    int64_t acc = 0;
    bool first = true;
    for (uint32_t k = part; k; k &= k - 1) {
      uint32_t o = firstLane(k);
      int64_t v = s ? int64_t(int32_t(a[o])) : int64_t(uint32_t(a[o]));
      if (first) {
        acc = v;
        first = false;
        continue;
      }
      switch (I.sub) {
      case XA_Add:
        acc += v;
        break;
      case XA_Min:
        acc = std::min(acc, v);
        break;
      case XA_Max:
        acc = std::max(acc, v);
        break;
      case XA_And:
        acc &= v;
        break;
      case XA_Or:
        acc |= v;
        break;
      case XA_Xor:
        acc ^= v;
        break;
      }
    }
    uint64_t *d = row(w, I.dst);
    NVFP4_FOR_LANES(mask, d[l] = canon(I, uint64_t(acc)));
    return true;
  }
  default:
    (void)group;
    return fault(Fault::Kind::Invalid, w, firstLane(mask), I,
                 "internal error: unexpected warp operation");
  }
}
