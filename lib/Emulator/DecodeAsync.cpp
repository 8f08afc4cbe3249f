//===- DecodeAsync.cpp - tcgen05, wgmma, bulk copies and TMA --------------===//
//
// The decoder's asynchronous-unit family: every tcgen05 form (alloc,
// dealloc, relinquish, ld / st, wait, fence, mma, cp, shift, commit), wgmma
// (fence, mma_async, commit_group, wait_group), cp.async.bulk and the TMA
// tensor copies.
//
//===----------------------------------------------------------------------===//

#include "Decoder.h"

using namespace nvfp4::emu;
using namespace nvfp4::emu::ptx;

bool Decoder::decodeTcgen05(const Instruction &in, XInst &x) {
  // Tensor memory: alloc / dealloc / relinquish_alloc_permit, ld / st,
  // wait::ld / wait::st, fence::*. Executed in Tmem.cpp.
  int cg = in.value(ModId::CtaGroup, 1);
  if (in.has(ModId::CtaGroup) && cg != 1 && cg != 2)
    return fail("'" + in.mnemonic + "': .cta_group must be ::1 or ::2");
  if (in.has(ModId::Aligned))
    x.flags |= XF_Aligned;
  switch (in.opcode) {
  case Opcode::Tcgen05Alloc: {
    // tcgen05.alloc.cta_group::N.sync.aligned.shared::cta.b32 [dst], ncols;
    if (!checkMods(in, {ModId::CtaGroup, ModId::Sync, ModId::Aligned,
                        ModId::SharedCta, ModId::Shared, ModId::Type}) ||
        !expectOperands(in, 2, 2))
      return false;
    if (!in.has(ModId::Sync) || !in.has(ModId::Aligned))
      return fail("'" + in.mnemonic + "' needs .sync.aligned");
    x.op = XOp::TmemAlloc;
    x.space = XSpace::Shared;
    if (!address(in, 0, x))
      return false;
    x.sub = cg == 2 ? XT_CtaGroup2 : 0;
    return srcU32(in, 1, x.src[1]);
  }
  case Opcode::Tcgen05Dealloc:
    // tcgen05.dealloc.cta_group::N.sync.aligned.b32 taddr, ncols;
    if (!checkMods(
            in, {ModId::CtaGroup, ModId::Sync, ModId::Aligned, ModId::Type}) ||
        !expectOperands(in, 2, 2))
      return false;
    if (!in.has(ModId::Sync) || !in.has(ModId::Aligned))
      return fail("'" + in.mnemonic + "' needs .sync.aligned");
    x.op = XOp::TmemDealloc;
    x.sub = cg == 2 ? XT_CtaGroup2 : 0;
    return srcU32(in, 0, x.src[0]) && srcU32(in, 1, x.src[1]);
  case Opcode::Tcgen05RelinquishAllocPermit:
    if (!checkMods(in, {ModId::CtaGroup, ModId::Sync, ModId::Aligned}) ||
        !expectOperands(in, 0, 0))
      return false;
    if (!in.has(ModId::Sync) || !in.has(ModId::Aligned))
      return fail("'" + in.mnemonic + "' needs .sync.aligned");
    x.op = XOp::TmemRelinquish;
    return true;
  case Opcode::Tcgen05Wait:
    if (!checkMods(
            in, {ModId::WaitLd, ModId::WaitSt, ModId::Sync, ModId::Aligned}) ||
        !expectOperands(in, 0, 0))
      return false;
    if (in.has(ModId::WaitLd) == in.has(ModId::WaitSt))
      return fail("'" + in.mnemonic + "' needs ::ld or ::st");
    if (!in.has(ModId::Sync) || !in.has(ModId::Aligned))
      return fail("'" + in.mnemonic + "' needs .sync.aligned");
    x.op = XOp::TmemWait;
    x.sub = in.has(ModId::WaitSt) ? 1 : 0;
    return true;
  case Opcode::Tcgen05Fence:
    if (!checkMods(
            in, {ModId::FenceBeforeThreadSync, ModId::FenceAfterThreadSync}) ||
        !expectOperands(in, 0, 0))
      return false;
    if (in.has(ModId::FenceBeforeThreadSync) ==
        in.has(ModId::FenceAfterThreadSync))
      return fail("'" + in.mnemonic +
                  "' needs ::before_thread_sync or ::after_thread_sync");
    x.op = XOp::TmemFence;
    x.sub = in.has(ModId::FenceAfterThreadSync) ? 1 : 0;
    return true;
  default:
    break;
  }
  // tcgen05.ld.sync.aligned.<shape>.x<N>{.pack::16b}.b32 {regs}, [taddr]
  //     {, immHalfSplitoff};
  // tcgen05.st.sync.aligned.<shape>.x<N>{.unpack::16b}.b32 [taddr]
  //     {, immHalfSplitoff}, {regs};
  bool isLd = in.opcode == Opcode::Tcgen05Ld;
  if (!checkMods(in, {ModId::Sync, ModId::Aligned, ModId::Shape32x32b,
                      ModId::Shape16x64b, ModId::Shape16x128b,
                      ModId::Shape16x256b, ModId::Shape16x32bx2, ModId::Count,
                      isLd ? ModId::Pack16b : ModId::Unpack16b, ModId::Type}))
    return false;
  if (!in.has(ModId::Sync) || !in.has(ModId::Aligned) || in.type() != Type::B32)
    return fail("'" + in.mnemonic + "' needs .sync.aligned and .b32");
  tmem::LdStShape shape;
  if (in.has(ModId::Shape32x32b))
    shape = tmem::LdStShape::S32x32b;
  else if (in.has(ModId::Shape16x64b))
    shape = tmem::LdStShape::S16x64b;
  else if (in.has(ModId::Shape16x128b))
    shape = tmem::LdStShape::S16x128b;
  else if (in.has(ModId::Shape16x256b))
    shape = tmem::LdStShape::S16x256b;
  else if (in.has(ModId::Shape16x32bx2))
    shape = tmem::LdStShape::S16x32bx2;
  else
    return fail("'" + in.mnemonic +
                "' needs a shape (.32x32b, .16x64b, "
                ".16x128b, .16x256b or .16x32bx2)");
  int num = in.value(ModId::Count, 0);
  std::optional<unsigned> nregs =
      num > 0 ? tmem::registersPerThread(shape, static_cast<unsigned>(num))
              : std::nullopt;
  if (!nregs)
    return fail("'" + in.mnemonic + "': illegal .x" + std::to_string(num) +
                " for ." + tmem::stringify(shape));
  bool split = shape == tmem::LdStShape::S16x32bx2;
  unsigned nops = split ? 3 : 2;
  if (!expectOperands(in, nops, nops))
    return false;
  unsigned vecOp = isLd ? 0 : nops - 1, addrOp = isLd ? 1 : 0;
  const Operand &vec = in.operands[vecOp];
  if (vec.kind != Operand::Kind::Vector || vec.elems.size() != *nregs)
    return fail("'" + in.mnemonic + "' needs a vector of " +
                std::to_string(*nregs) + " registers");
  x.op = isLd ? XOp::TmemLd : XOp::TmemSt;
  x.space = XSpace::Generic;
  {
    // [taddr] or [taddr+imm]: a 32-bit register or a constant.
    XInst t;
    t.space = XSpace::Shared;
    if (!address(in, addrOp, t))
      return false;
    x.src[0] = t.src[0];
    x.imm = t.imm;
  }
  int64_t splitOff = 0;
  if (split) {
    const Operand &o = in.operands[isLd ? 2 : 1];
    if (o.kind != Operand::Kind::Imm || o.imm < 0 || o.imm > 511)
      return fail("'" + in.mnemonic +
                  "' needs a constant immHalfSplitoff in [0, 511]");
    splitOff = o.imm;
  }
  if (!regList(in, vec, Type::B32, isLd, x))
    return false;
  for (uint32_t i = 0; i < x.listCount; ++i)
    if (p_.lists[x.listBegin + i] == kNone)
      return fail("'_' in the register vector of '" + in.mnemonic + "'");
  p_.lists.push_back(static_cast<uint32_t>(splitOff));
  x.sub = static_cast<uint8_t>(shape);
  x.sub2 = in.has(ModId::Pack16b) || in.has(ModId::Unpack16b) ? 1 : 0;
  x.target = static_cast<uint32_t>(num);
  return true;
}

bool Decoder::decodeTcgen05Mma(const Instruction &in, XInst &x) {
  // tcgen05.mma.cta_group::N.kind::K{.block_scale{.scale_vec::NX|.blockN}}
  //     {.collector::a::*} [d], a-desc | [a], b-desc, idesc
  //     {, [sfa], [sfb]}{, disable-output-lane}, enable-input-d
  //     {, scale-input-d};
  // tcgen05.mma.ws.cta_group::1.kind::{f16,tf32,f8f6f4,i8}
  //     {.collector::bN::{fill,use,lastuse,discard}} [d], a-desc | [a],
  //     b-desc, idesc, enable-input-d{, zero-column-mask-desc};
  // Implemented: every dense kind (f8f6f4 with all of e4m3, e5m2, e2m3,
  // e3m2, e2m1) and the block-scaled kinds; A from shared memory or TMEM;
  // cta_group 1 and 2; disable-output-lane; scale-input-d; .ws with the
  // zero-column mask (the collector buffer qualifiers have no effect on
  // results).
  auto later = [&](const std::string &what) {
    x.op = XOp::NotImplemented;
    return fail("not implemented yet: '" + in.mnemonic + "' with " + what);
  };
  for (ModId m : {ModId::Sp, ModId::Ashift})
    if (in.has(m))
      return later(std::string(".") + modName(m));
  const bool ws = in.has(ModId::Ws);
  if (!checkMods(in, {ModId::CtaGroup,
                      ModId::KindF16,
                      ModId::KindTf32,
                      ModId::KindF8f6f4,
                      ModId::KindI8,
                      ModId::KindMxf8f6f4,
                      ModId::KindMxf4,
                      ModId::KindMxf4nvf4,
                      ModId::BlockScale,
                      ModId::ScaleVec1X,
                      ModId::ScaleVec2X,
                      ModId::ScaleVec4X,
                      ModId::Block16,
                      ModId::Block32,
                      ModId::CollectorADiscard,
                      ModId::CollectorALastuse,
                      ModId::CollectorAFill,
                      ModId::CollectorAUse,
                      ModId::Ws,
                      ModId::CollectorB}))
    return false;
  unsigned collectors = 0;
  for (const Modifier &m : in.mods) {
    bool a = m.id == ModId::CollectorADiscard ||
             m.id == ModId::CollectorALastuse ||
             m.id == ModId::CollectorAFill || m.id == ModId::CollectorAUse;
    if (m.id == ModId::CollectorB) {
      if (!ws)
        return fail("'" + in.mnemonic +
                    "': .collector::bN is only allowed with .ws (use "
                    ".collector::a::* without .ws)");
      if (m.value / 4 > 3)
        return fail("'" + in.mnemonic + "': collector buffer b" +
                    std::to_string(m.value / 4) +
                    " does not exist (b0, b1, b2, b3)");
    } else if (a && ws) {
      return fail("'" + in.mnemonic +
                  "': .ws takes .collector::bN::op (the collector buffer "
                  "holds B), not .collector::a::*");
    }
    collectors += a || m.id == ModId::CollectorB;
  }
  if (collectors > 1)
    return fail("'" + in.mnemonic + "' has more than one .collector qualifier");
  int cg = in.value(ModId::CtaGroup, 0);
  if (cg != 1 && cg != 2)
    return fail("'" + in.mnemonic + "' needs .cta_group::1 or ::2");
  std::optional<umma::MmaKind> kind;
  unsigned kinds = 0;
  for (auto [m, k] : {std::pair{ModId::KindF16, umma::MmaKind::F16},
                      std::pair{ModId::KindTf32, umma::MmaKind::TF32},
                      std::pair{ModId::KindF8f6f4, umma::MmaKind::F8F6F4},
                      std::pair{ModId::KindI8, umma::MmaKind::I8},
                      std::pair{ModId::KindMxf8f6f4, umma::MmaKind::MXF8F6F4},
                      std::pair{ModId::KindMxf4, umma::MmaKind::MXF4},
                      std::pair{ModId::KindMxf4nvf4, umma::MmaKind::MXF4NVF4}})
    if (in.has(m)) {
      kind = k;
      ++kinds;
    }
  if (kinds != 1)
    return fail("'" + in.mnemonic + "' needs exactly one .kind");
  bool scaled = umma::isBlockScaled(*kind);
  if (ws && cg != 1)
    return fail("'" + in.mnemonic +
                "': .ws requires .cta_group::1, got "
                ".cta_group::" +
                std::to_string(cg));
  if (ws && scaled)
    return fail("'" + in.mnemonic +
                "': .ws is not allowed with .kind::" + umma::stringify(*kind) +
                " (it takes kind::f16, tf32, f8f6f4 or i8)");
  if (scaled != in.has(ModId::BlockScale))
    return fail("'" + in.mnemonic + "': .block_scale " +
                (scaled ? "is required for" : "is not allowed with") +
                " .kind::" + umma::stringify(*kind));
  // Elements per scale factor.
  unsigned block = 0;
  if (scaled) {
    unsigned vecs = 0;
    if (in.has(ModId::ScaleVec1X) || in.has(ModId::Block32))
      block = 32, ++vecs;
    if (in.has(ModId::ScaleVec2X))
      block = 32, ++vecs;
    if (in.has(ModId::ScaleVec4X) || in.has(ModId::Block16))
      block = 16, ++vecs;
    if (vecs > 1)
      return fail("'" + in.mnemonic + "' has more than one scale vector size");
    if (!vecs) {
      if (*kind == umma::MmaKind::MXF4NVF4)
        return fail("'" + in.mnemonic +
                    "': kind::mxf4nvf4 needs an explicit scale vector size");
      block = 32;
    }
    if (*kind == umma::MmaKind::MXF8F6F4 && block != 32)
      return fail("'" + in.mnemonic + "': kind::mxf8f6f4 takes 1X / block32");
    if (*kind == umma::MmaKind::MXF4 && block != 32)
      return fail("'" + in.mnemonic + "': kind::mxf4 takes 2X / block32");
  }
  const size_t nops = in.operands.size();
  if (!expectOperands(in, 5, ws ? 6 : 8))
    return false;
  x.op = XOp::TmemMma;
  x.sub = static_cast<uint8_t>(*kind);
  x.sub2 = cg == 2 ? XT_CtaGroup2 : 0;
  if (ws)
    x.sub2 |= XM_Ws;
  x.vec = static_cast<uint8_t>(block);
  if (!plainAddress(in, 0, XSpace::Generic, x.src[0], x.imm))
    return false;
  int64_t aImm = 0;
  if (in.operands[1].kind == Operand::Kind::Address) {
    x.sub2 |= XM_ATmem;
    if (!plainAddress(in, 1, XSpace::Generic, x.src[1], aImm))
      return false;
  } else if (!src(in, 1, Type::U64, x.src[1])) {
    return false;
  }
  if (!src(in, 2, Type::U64, x.src[2]) || !srcU32(in, 3, x.src[3]))
    return false;
  // lists: A offset, SFA address, SFB address (+ their offsets), scale-d,
  // then the disable-output-lane registers (listCount of them).
  unsigned next = 4;
  uint32_t sfa = constRow(0), sfb = constRow(0);
  int64_t sfaImm = 0, sfbImm = 0;
  if (scaled) {
    if (nops != 7)
      return fail("'" + in.mnemonic +
                  "' takes [d], a, b, idesc, [sfa], [sfb], enable-input-d");
    if (!plainAddress(in, 4, XSpace::Generic, sfa, sfaImm) ||
        !plainAddress(in, 5, XSpace::Generic, sfb, sfbImm))
      return false;
    next = 6;
  }
  std::vector<uint32_t> lanes;
  if (ws && next < nops && in.operands[next].kind == Operand::Kind::Vector)
    return fail("'" + in.mnemonic + "': .ws takes no disable-output-lane");
  if (next < nops && in.operands[next].kind == Operand::Kind::Vector) {
    const Operand &v = in.operands[next];
    if (v.elems.size() != (cg == 2 ? 8u : 4u))
      return fail("'" + in.mnemonic + "': disable-output-lane needs " +
                  std::to_string(cg == 2 ? 8 : 4) + " registers");
    for (const Operand &e : v.elems) {
      const RegSlot *r = regOf(e);
      if (!r || r->isPred || r->bits != 32)
        return fail("'" + in.mnemonic +
                    "': disable-output-lane needs 32-bit registers");
      lanes.push_back(r->index);
    }
    ++next;
  }
  if (next >= nops)
    return fail("'" + in.mnemonic + "' is missing enable-input-d");
  XInst p;
  if (!predSrc(in, next, p, 0))
    return false;
  x.target = p.src[0];
  if (p.srcNeg & 1)
    x.sub2 |= XM_NegEnable;
  ++next;
  uint32_t scaleD = constRow(0), zeroColMask = constRow(0);
  if (ws && next < nops) {
    // zero-column-mask-desc: a 64-bit register (or constant).
    if (!src(in, static_cast<unsigned>(next), Type::U64, zeroColMask))
      return false;
    x.sub2 |= XM_ZeroColMask;
    ++next;
  }
  if (next < nops) {
    if (*kind != umma::MmaKind::F16 && *kind != umma::MmaKind::TF32)
      return fail("'" + in.mnemonic +
                  "': scale-input-d is only allowed for kind::f16 and tf32");
    const Operand &s = in.operands[next];
    if (s.kind != Operand::Kind::Imm || s.imm < 0 || s.imm > 15)
      return fail("'" + in.mnemonic +
                  "': scale-input-d must be a constant in 0..15");
    scaleD = constRow(static_cast<uint64_t>(s.imm));
    ++next;
  }
  if (next != nops)
    return fail("'" + in.mnemonic + "' has too many operands");
  x.listBegin = static_cast<uint32_t>(p_.lists.size());
  x.listCount = static_cast<uint32_t>(lanes.size());
  p_.lists.push_back(constRow(static_cast<uint64_t>(aImm)));
  p_.lists.push_back(sfa);
  p_.lists.push_back(constRow(static_cast<uint64_t>(sfaImm)));
  p_.lists.push_back(sfb);
  p_.lists.push_back(constRow(static_cast<uint64_t>(sfbImm)));
  p_.lists.push_back(scaleD);
  p_.lists.push_back(zeroColMask);
  for (uint32_t l : lanes)
    p_.lists.push_back(l);
  return true;
}

bool Decoder::decodeTcgen05CpShift(const Instruction &in, XInst &x) {
  int cg = in.value(ModId::CtaGroup, 0);
  if (cg != 1 && cg != 2)
    return fail("'" + in.mnemonic + "' needs .cta_group::1 or ::2");
  x.sub2 = cg == 2 ? XT_CtaGroup2 : 0;
  if (in.opcode == Opcode::Tcgen05Shift) {
    // tcgen05.shift.cta_group::N.down [taddr];
    if (!checkMods(in, {ModId::CtaGroup, ModId::Down}) ||
        !expectOperands(in, 1, 1))
      return false;
    if (!in.has(ModId::Down))
      return fail("'" + in.mnemonic + "' needs .down");
    x.op = XOp::TmemShift;
    return plainAddress(in, 0, XSpace::Generic, x.src[0], x.imm);
  }
  // tcgen05.cp.cta_group::N.shape{.multicast}{.dst_fmt.src_fmt} [taddr],
  //     s-desc;
  if (!checkMods(in, {ModId::CtaGroup, ModId::Shape128x256b, ModId::Shape4x256b,
                      ModId::Shape128x128b, ModId::Shape64x128b,
                      ModId::Shape32x128b, ModId::Warpx2_02_13,
                      ModId::Warpx2_01_23, ModId::Warpx4, ModId::B8x16,
                      ModId::B6x16P32, ModId::B4x16P64}) ||
      !expectOperands(in, 2, 2))
    return false;
  // Decompression: .dst_fmt (.b8x16) and one .src_fmt, both or neither.
  const bool b6 = in.has(ModId::B6x16P32), b4 = in.has(ModId::B4x16P64);
  if (in.has(ModId::B8x16) != (b6 || b4) || (b6 && b4))
    return fail("'" + in.mnemonic +
                "': decompression takes the destination format .b8x16 "
                "followed by one source format (.b6x16_p32 or .b4x16_p64)");
  if (b6)
    x.sub2 |= XCP_B6x16P32;
  if (b4)
    x.sub2 |= XCP_B4x16P64;
  unsigned shapes = in.has(ModId::Shape128x256b) + in.has(ModId::Shape4x256b) +
                    in.has(ModId::Shape128x128b) + in.has(ModId::Shape64x128b) +
                    in.has(ModId::Shape32x128b);
  unsigned casts = in.has(ModId::Warpx2_02_13) + in.has(ModId::Warpx2_01_23) +
                   in.has(ModId::Warpx4);
  if (shapes != 1 || casts > 1)
    return fail("'" + in.mnemonic +
                "' needs exactly one shape and at most one multicast");
  if (in.has(ModId::Shape128x256b) && !casts)
    x.sub = XC_128x256b;
  else if (in.has(ModId::Shape4x256b) && !casts)
    x.sub = XC_4x256b;
  else if (in.has(ModId::Shape128x128b) && !casts)
    x.sub = XC_128x128b;
  else if (in.has(ModId::Shape64x128b) && in.has(ModId::Warpx2_02_13))
    x.sub = XC_64x128b_02_13;
  else if (in.has(ModId::Shape64x128b) && in.has(ModId::Warpx2_01_23))
    x.sub = XC_64x128b_01_23;
  else if (in.has(ModId::Shape32x128b) && in.has(ModId::Warpx4))
    x.sub = XC_32x128b_warpx4;
  else
    return fail("'" + in.mnemonic +
                "': the shape and multicast do not match (128x256b, 4x256b, "
                "128x128b, 64x128b.warpx2::02_13 or ::01_23, "
                "32x128b.warpx4)");
  x.op = XOp::TmemCp;
  return plainAddress(in, 0, XSpace::Generic, x.src[0], x.imm) &&
         src(in, 1, Type::U64, x.src[1]);
}

bool Decoder::decodeTcgen05Commit(const Instruction &in, XInst &x) {
  // tcgen05.commit.cta_group::N.mbarrier::arrive::one{.shared::cluster}
  //     {.multicast::cluster}.b64 [mbar]{, ctaMask};
  if (!checkMods(in, {ModId::CtaGroup, ModId::MbarrierArriveOne,
                      ModId::SharedCluster, ModId::MulticastCluster,
                      ModId::Type}))
    return false;
  int cg = in.value(ModId::CtaGroup, 0);
  if (cg != 1 && cg != 2)
    return fail("'" + in.mnemonic + "' needs .cta_group::1 or ::2");
  if (!in.has(ModId::MbarrierArriveOne) || in.type() != Type::B64)
    return fail("'" + in.mnemonic + "' needs .mbarrier::arrive::one and .b64");
  bool multicast = in.has(ModId::MulticastCluster);
  unsigned n = multicast ? 2 : 1;
  if (!expectOperands(in, n, n))
    return false;
  x.op = XOp::TmemCommit;
  x.sub = static_cast<uint8_t>((multicast ? XT_Multicast : 0) |
                               (cg == 2 ? XT_CtaGroup2 : 0));
  XSpace sp = in.has(ModId::SharedCluster) ? XSpace::SharedCluster
                                           : XSpace::Generic;
  x.space = sp;
  if (!plainAddress(in, 0, sp, x.src[0], x.imm))
    return false;
  if (multicast && !src(in, 1, Type::U16, x.src[1]))
    return false;
  return true;
}

bool Decoder::decodeWgmma(const Instruction &in, XInst &x) {
  // Executed in Wgmma.cpp. Every wgmma instruction is .sync.aligned.
  auto syncAligned = [&]() {
    if (!in.has(ModId::Sync) || !in.has(ModId::Aligned))
      return fail("'" + in.mnemonic + "' needs .sync.aligned");
    x.flags |= XF_Aligned;
    return true;
  };
  switch (in.opcode) {
  case Opcode::WgmmaFence:
  case Opcode::WgmmaCommitGroup:
    if (!checkMods(in, {ModId::Sync, ModId::Aligned}) ||
        !expectOperands(in, 0, 0) || !syncAligned())
      return false;
    x.op = in.opcode == Opcode::WgmmaFence ? XOp::WgmmaFence
                                           : XOp::WgmmaCommit;
    return true;
  case Opcode::WgmmaWaitGroup: {
    if (!checkMods(in, {ModId::Sync, ModId::Aligned}) ||
        !expectOperands(in, 1, 1) || !syncAligned())
      return false;
    const Operand &n = in.operands[0];
    if (n.kind != Operand::Kind::Imm || n.imm < 0 || n.imm > 255)
      return fail("'" + in.mnemonic + "' needs a constant group count");
    x.op = XOp::WgmmaWait;
    x.imm = n.imm;
    return true;
  }
  default:
    break;
  }
  // wgmma.mma_async.sync.aligned.m64nNkK.dtype.atype.btype d, a-desc | a,
  //     b-desc, scale-d, imm-scale-a, imm-scale-b{, imm-trans-a}
  //     {, imm-trans-b};
  const std::string implemented =
      " (implemented: dense .f32/.f16 accumulators with .f16/.bf16 (k16), "
      ".tf32 (k8) and .e4m3/.e5m2 (k32) inputs)";
  auto later = [&](const std::string &what) {
    x.op = XOp::NotImplemented;
    return fail("not implemented yet: '" + in.mnemonic + "' with " + what +
                implemented);
  };
  if (in.has(ModId::Sp))
    return later("sparse A (.sp)");
  if (in.numTypes() == 3) {
    for (unsigned i = 0; i < 3; ++i) {
      Type ty = in.type(i);
      if (ty == Type::S8 || ty == Type::U8 || ty == Type::S32 ||
          ty == Type::B1)
        return later(std::string("integer or .b1 types (.") +
                     typeName(ty) + ")");
    }
  }
  if (!in.unknownMods.empty())
    for (const std::string &u : in.unknownMods)
      if (u == "satfinite" || u == "and" || u == "popc")
        return later("." + u);
  if (!checkMods(in, {ModId::Sync, ModId::Aligned, ModId::MmaShape,
                      ModId::Type}) ||
      !syncAligned())
    return false;
  if (in.numTypes() != 3)
    return fail("'" + in.mnemonic +
                "' needs a D type and the A and B types (.dtype.atype.btype)");
  Type dt = in.type(0), at = in.type(1), bt = in.type(2);
  int shape = in.value(ModId::MmaShape, -1);
  if (shape < 0)
    return fail("'" + in.mnemonic + "' needs a .m64nNkK shape");
  unsigned M = static_cast<unsigned>(shape) >> 20,
           N = (static_cast<unsigned>(shape) >> 10) & 0x3ff,
           K = static_cast<unsigned>(shape) & 0x3ff;
  bool is16 = at == Type::F16 || at == Type::BF16;
  bool isF8 = at == Type::E4M3 || at == Type::E5M2;
  bool isTf32 = at == Type::TF32;
  if (!is16 && !isF8 && !isTf32)
    return fail("'" + in.mnemonic + "': A type ." + typeName(at) +
                " is not .f16, .bf16, .tf32, .e4m3 or .e5m2");
  if (is16 || isTf32) {
    if (bt != at)
      return fail("'" + in.mnemonic + "': the B type ." + typeName(bt) +
                  " must equal the A type ." + typeName(at));
  } else if (bt != Type::E4M3 && bt != Type::E5M2) {
    return fail("'" + in.mnemonic + "': the B type ." + typeName(bt) +
                " must be .e4m3 or .e5m2");
  }
  if (dt != Type::F32 && dt != Type::F16)
    return fail("'" + in.mnemonic + "': D type ." + typeName(dt) +
                " is not .f32 or .f16");
  if (dt == Type::F16 && (at == Type::BF16 || isTf32))
    return fail("'" + in.mnemonic + "': ." + typeName(at) +
                " inputs need an .f32 accumulator");
  unsigned wantK = is16 ? 16 : isTf32 ? 8 : 32;
  if (M != 64 || K != wantK || N < 8 || N > 256 || N % 8 != 0)
    return fail("'" + in.mnemonic + "': illegal shape .m" + std::to_string(M) +
                "n" + std::to_string(N) + "k" + std::to_string(K) +
                " for ." + typeName(at) + " (needs m64, N = 8..256 in steps "
                "of 8, k" + std::to_string(wantK) + ")");
  const Operand &dv = in.operands.empty() ? Operand() : in.operands[0];
  bool aRegs = in.operands.size() > 1 &&
               in.operands[1].kind == Operand::Kind::Vector;
  unsigned nops = 6 + (is16 ? (aRegs ? 1 : 2) : 0);
  if (!expectOperands(in, nops, nops))
    return false;
  unsigned nd = dt == Type::F32 ? N / 2 : N / 4;
  if (dv.kind != Operand::Kind::Vector || dv.elems.size() != nd)
    return fail("'" + in.mnemonic + "' needs a vector of " +
                std::to_string(nd) + " D registers");
  x.op = XOp::WgmmaMma;
  x.type = dt;
  x.type2 = at;
  x.sub = static_cast<uint8_t>(bt);
  x.imm = N;
  if (!regList(in, dv, Type::B32, true, x))
    return false;
  for (uint32_t i = 0; i < x.listCount; ++i) {
    if (p_.lists[x.listBegin + i] == kNone)
      return fail("'_' in the D vector of '" + in.mnemonic + "'");
    for (uint32_t j = 0; j < i; ++j)
      if (p_.lists[x.listBegin + j] == p_.lists[x.listBegin + i])
        return fail("'" + in.mnemonic + "' names a D register twice");
  }
  const uint32_t dBegin = x.listBegin, dCount = x.listCount;
  if (aRegs) {
    x.sub2 |= XW_ARegs;
    const Operand &av = in.operands[1];
    if (av.elems.size() != 4)
      return fail("'" + in.mnemonic + "' needs a vector of 4 A registers");
    XInst t;
    if (!regList(in, av, Type::B32, false, t))
      return false;
  } else if (!src(in, 1, Type::U64, x.src[1])) {
    return false;
  }
  x.listBegin = dBegin;
  x.listCount = dCount;
  if (!src(in, 2, Type::U64, x.src[2]))
    return false;
  XInst p;
  if (!predSrc(in, 3, p, 0))
    return false;
  x.target = p.src[0];
  if (p.srcNeg & 1)
    x.sub2 |= XW_NegScaleD;
  auto immArg = [&](unsigned i, const char *what, int64_t a, int64_t b,
                    int64_t &v) {
    const Operand &o = in.operands[i];
    if (o.kind != Operand::Kind::Imm || (o.imm != a && o.imm != b))
      return fail("'" + in.mnemonic + "': " + what + " must be the constant " +
                  std::to_string(a) + " or " + std::to_string(b));
    v = o.imm;
    return true;
  };
  int64_t v;
  if (!immArg(4, "imm-scale-a", 1, -1, v))
    return false;
  if (v < 0)
    x.sub2 |= XW_NegA;
  if (!immArg(5, "imm-scale-b", 1, -1, v))
    return false;
  if (v < 0)
    x.sub2 |= XW_NegB;
  if (is16) {
    unsigned i = 6;
    if (!aRegs) {
      if (!immArg(i++, "imm-trans-a", 0, 1, v))
        return false;
      if (v)
        x.sub2 |= XW_TransA;
    }
    if (!immArg(i, "imm-trans-b", 0, 1, v))
      return false;
    if (v)
      x.sub2 |= XW_TransB;
  }
  return true;
}

bool Decoder::decodeBulk(const Instruction &in, XInst &x) {
  // cp.async (non-bulk): commit_group, wait_group N, wait_all and
  // cp.async.{ca,cg}.shared{::cta}.global [dst], [src], size (no src-size,
  // no cache hint).
  if (in.opcode == Opcode::CpAsyncCommitGroup) {
    if (!checkMods(in, {}) || !expectOperands(in, 0, 0))
      return false;
    x.op = XOp::AsyncCommit;
    return true;
  }
  if (in.opcode == Opcode::CpAsyncWaitGroup ||
      in.opcode == Opcode::CpAsyncWaitAll) {
    bool all = in.opcode == Opcode::CpAsyncWaitAll;
    if (!checkMods(in, {}) || !expectOperands(in, all ? 0 : 1, all ? 0 : 1))
      return false;
    x.op = XOp::AsyncWait;
    x.sub = all ? 1 : 0;
    x.imm = 0;
    if (!all) {
      const Operand &n = in.operands[0];
      if (n.kind != Operand::Kind::Imm || n.imm < 0 || n.imm > 63)
        return fail("'" + in.mnemonic + "' needs a constant group count");
      x.imm = n.imm;
    }
    return true;
  }
  if (in.opcode == Opcode::CpAsync) {
    if (!checkMods(in, {ModId::Ca, ModId::Cg, ModId::Shared, ModId::SharedCta,
                        ModId::Global}))
      return false;
    if (in.has(ModId::Ca) == in.has(ModId::Cg) || !in.has(ModId::Global) ||
        !(in.has(ModId::Shared) || in.has(ModId::SharedCta)))
      return fail("'" + in.mnemonic +
                  "' needs one of .ca / .cg and .shared{::cta}.global");
    if (!expectOperands(in, 3, 3))
      return false;
    const Operand &n = in.operands[2];
    if (n.kind != Operand::Kind::Imm ||
        !(n.imm == 4 || n.imm == 8 || n.imm == 16) ||
        (in.has(ModId::Cg) && n.imm != 16))
      return fail("'" + in.mnemonic +
                  "' needs a size of 4, 8 or 16 bytes "
                  "(.cg: 16)");
    x.op = XOp::AsyncCopy;
    x.sub = static_cast<uint8_t>(n.imm);
    x.space = XSpace::Shared;
    int64_t srcImm = 0;
    if (!plainAddress(in, 0, XSpace::Shared, x.src[0], x.imm) ||
        !plainAddress(in, 1, XSpace::Global, x.src[1], srcImm))
      return false;
    x.listBegin = static_cast<uint32_t>(p_.lists.size());
    x.listCount = 0;
    p_.lists.push_back(constRow(static_cast<uint64_t>(srcImm)));
    return true;
  }
  if (in.opcode == Opcode::CpAsyncBulkCommitGroup) {
    if (!checkMods(in, {}) || !expectOperands(in, 0, 0))
      return false;
    x.op = XOp::BulkCommit;
    return true;
  }
  if (in.opcode == Opcode::CpAsyncBulkWaitGroup) {
    // cp.async.bulk.wait_group{.read} N
    if (!checkMods(in, {ModId::Read}) || !expectOperands(in, 1, 1))
      return false;
    const Operand &n = in.operands[0];
    if (n.kind != Operand::Kind::Imm || n.imm < 0 || n.imm > 63)
      return fail("'" + in.mnemonic + "' needs a constant group count");
    x.op = XOp::BulkWait;
    x.imm = n.imm;
    return true;
  }
  // cp.async.bulk.dst.src.completion{.multicast::cluster}{.L2::cache_hint}
  //     [dst], [src], size{, [mbar]}{, ctaMask}{, policy}
  if (in.has(ModId::CpMask)) {
    x.op = XOp::NotImplemented;
    return fail("not implemented yet: '" + in.mnemonic +
                "' (implemented: global -> shared::cta/cluster with "
                "multicast, shared::cta -> shared::cluster, shared::cta -> "
                "global with bulk_group)");
  }
  if (!checkMods(in, {ModId::SharedCluster, ModId::SharedCta, ModId::Shared,
                      ModId::Global, ModId::MbarrierCompleteTxBytes,
                      ModId::BulkGroup, ModId::MulticastCluster,
                      ModId::L2CacheHint}))
    return false;
  // The first state space is the destination, the second the source.
  std::vector<ModId> spaces;
  for (const Modifier &m : in.mods)
    if (m.id == ModId::SharedCluster || m.id == ModId::SharedCta ||
        m.id == ModId::Shared || m.id == ModId::Global)
      spaces.push_back(m.id);
  if (spaces.size() != 2)
    return fail("'" + in.mnemonic + "' needs a destination and a source "
                "state space");
  bool dstGlobal = spaces[0] == ModId::Global;
  bool srcGlobal = spaces[1] == ModId::Global;
  bool multicast = in.has(ModId::MulticastCluster);
  bool hint = in.has(ModId::L2CacheHint);
  x.op = XOp::BulkCopy;
  x.sub2 = multicast ? XT_Multicast : 0;
  unsigned n;
  if (!dstGlobal && srcGlobal) {
    if (!in.has(ModId::MbarrierCompleteTxBytes))
      return fail("'" + in.mnemonic + "' needs .mbarrier::complete_tx::bytes");
    x.sub = XB_GlobalToShared;
    n = 4 + (multicast ? 1 : 0) + (hint ? 1 : 0);
  } else if (!dstGlobal && !srcGlobal) {
    if (!in.has(ModId::MbarrierCompleteTxBytes) || multicast)
      return fail("'" + in.mnemonic +
                  "' (shared -> shared::cluster) needs "
                  ".mbarrier::complete_tx::bytes and no multicast");
    x.sub = XB_SharedToCluster;
    n = 4;
  } else if (dstGlobal && !srcGlobal) {
    if (!in.has(ModId::BulkGroup) || multicast)
      return fail("'" + in.mnemonic +
                  "' (shared -> global) needs .bulk_group and no multicast");
    x.sub = XB_SharedToGlobal;
    n = 3 + (hint ? 1 : 0);
  } else {
    return fail("'" + in.mnemonic + "': global -> global is not a bulk copy");
  }
  if (!expectOperands(in, n, n))
    return false;
  XSpace dsp = dstGlobal ? XSpace::Global
               : spaces[0] == ModId::SharedCluster ? XSpace::SharedCluster
                                                   : XSpace::Shared;
  XSpace ssp = srcGlobal ? XSpace::Global : XSpace::Shared;
  x.space = dsp;
  int64_t srcImm = 0, mbImm = 0;
  if (!plainAddress(in, 0, dsp, x.src[0], x.imm) ||
      !plainAddress(in, 1, ssp, x.src[1], srcImm) ||
      !srcU32(in, 2, x.src[2]))
    return false;
  if (x.sub != XB_SharedToGlobal &&
      !plainAddress(in, 3, XSpace::SharedCluster, x.src[3], mbImm))
    return false;
  x.listBegin = static_cast<uint32_t>(p_.lists.size());
  x.listCount = 0;
  p_.lists.push_back(constRow(static_cast<uint64_t>(srcImm)));
  p_.lists.push_back(constRow(static_cast<uint64_t>(mbImm)));
  uint32_t mask = constRow(1);
  if (multicast && !src(in, 4, Type::U16, mask))
    return false;
  p_.lists.push_back(mask);
  return true;
}

bool Decoder::decodeStAsync(const Instruction &in, XInst &x) {
  // st.async{.weak}{.cluster}.shared::cluster.mbarrier::complete_tx::bytes
  //     {.v2, .v4}.type [a], b, [mbar];  .type: b32 b64 u32 u64 s32 s64 f32
  //     f64 (.v4 only with 32-bit types). The .mmio.release form (global
  //     memory) is not implemented.
  if (in.has(ModId::Mmio) || in.has(ModId::Global)) {
    x.op = XOp::NotImplemented;
    err_ = "not implemented yet: '" + in.mnemonic +
           "' (the .mmio / .global form of st.async)";
    return false;
  }
  if (!checkMods(in, {ModId::Weak, ModId::Cluster, ModId::SharedCluster,
                      ModId::MbarrierCompleteTxBytes, ModId::Vec}))
    return false;
  if (!in.has(ModId::SharedCluster) || !in.has(ModId::MbarrierCompleteTxBytes))
    return fail("'" + in.mnemonic +
                "' needs .shared::cluster and .mbarrier::complete_tx::bytes");
  Type t = in.type(0);
  unsigned bits = in.numTypes() == 1 ? typeBits(t) : 0;
  if ((bits != 32 && bits != 64) || t == Type::Pred)
    return fail("'" + in.mnemonic +
                "' needs one of .b32 .b64 .u32 .u64 .s32 .s64 .f32 .f64");
  x.op = XOp::StAsync;
  x.type = t;
  x.vec = static_cast<uint8_t>(in.value(ModId::Vec, 1));
  if (x.vec != 1 && x.vec != 2 && (x.vec != 4 || bits != 32))
    return fail("'" + in.mnemonic +
                "' stores 1, 2 or 4 32-bit values or 1 "
                "or 2 64-bit values");
  if (!expectOperands(in, 3, 3))
    return false;
  x.space = XSpace::SharedCluster;
  if (!address(in, 0, x))
    return false;
  const Operand &data = in.operands[1];
  if (x.vec > 1) {
    if (data.kind != Operand::Kind::Vector || data.elems.size() != x.vec)
      return fail("'" + in.mnemonic + "' needs a vector of " +
                  std::to_string(x.vec) + " registers");
    if (!regList(in, data, t, /*isDst=*/false, x))
      return false;
  } else {
    if (!src(in, 1, t, x.src[1]))
      return false;
    x.listBegin = static_cast<uint32_t>(p_.lists.size());
    x.listCount = 0;
  }
  int64_t mbImm = 0;
  if (!plainAddress(in, 2, XSpace::SharedCluster, x.src[2], mbImm))
    return false;
  p_.lists.push_back(constRow(static_cast<uint64_t>(mbImm)));
  return true;
}

bool Decoder::decodeTma(const Instruction &in, XInst &x) {
  // cp.async.bulk.tensor.Nd.shared::cluster.global{.tile}
  //     .mbarrier::complete_tx::bytes{.multicast::cluster}{.cta_group::N}
  //     {.L2::cache_hint} [dst], [tmap, {c0, ...}], [mbar]{, mask}{, policy};
  // cp.async.bulk.prefetch.tensor.Nd.L2.global{.tile}{.L2::cache_hint}
  //     [tmap, {c0, ...}]{, policy};
  // cp.async.bulk.tensor.Nd.global.shared::cta{.tile}.bulk_group
  //     {.L2::cache_hint} [tmap, {c0, ...}], [src]{, policy};
  // Encoding: src[0] dst (shared::cluster; the store's source,
  // shared::cta), src[1] tensor-map address (generic), src[2] mbarrier
  // (shared::cluster), src[3] multicast mask; imm the dst (source) offset;
  // lists: the coordinates, then the tensor map's and (loads) the
  // mbarrier's address offsets as constants.
  bool prefetch = in.opcode == Opcode::CpAsyncBulkPrefetchTensor;
  // The first state space is the destination: global for a store.
  bool store = false;
  if (!prefetch)
    for (const Modifier &m : in.mods)
      if (m.id == ModId::Global || m.id == ModId::SharedCluster ||
          m.id == ModId::SharedCta || m.id == ModId::Shared) {
        store = m.id == ModId::Global;
        break;
      }
  for (const Modifier &m : in.mods)
    if (m.id == ModId::Im2col || m.id == ModId::Im2colW ||
        m.id == ModId::Im2colW128 || m.id == ModId::Im2colNoOffs ||
        m.id == ModId::TileScatter4 ||
        (m.id == ModId::TileGather4 && (prefetch || store))) {
      x.op = XOp::NotImplemented;
      return fail("not implemented yet: '" + in.mnemonic +
                  "' (the .tile mode of TMA and the .tile::gather4 load are "
                  "implemented)");
    }
  // tile::gather4 (PTX ISA 5.5.3.4): a .2d load of four rows, coordinates
  // {column, row0, row1, row2, row3}.
  const bool gather4 = in.has(ModId::TileGather4);
  if (prefetch) {
    if (!checkMods(in, {ModId::Dim, ModId::L2, ModId::Global, ModId::Tile,
                        ModId::L2CacheHint}))
      return false;
  } else if (store) {
    if (!checkMods(in, {ModId::Dim, ModId::Global, ModId::SharedCta,
                        ModId::Tile, ModId::BulkGroup, ModId::L2CacheHint}))
      return false;
    if (!in.has(ModId::SharedCta) || !in.has(ModId::BulkGroup))
      return fail("'" + in.mnemonic +
                  "' (a tensor store) needs the source space .shared::cta "
                  "and .bulk_group");
  } else if (!checkMods(in, {ModId::Dim, ModId::SharedCluster, ModId::Global,
                             ModId::Tile, ModId::TileGather4,
                             ModId::MbarrierCompleteTxBytes,
                             ModId::MulticastCluster, ModId::CtaGroup,
                             ModId::L2CacheHint})) {
    return false;
  }
  int dims = in.value(ModId::Dim, 0);
  if (dims < 1 || dims > 5)
    return fail("'" + in.mnemonic + "' needs a dimension .1d ... .5d");
  if (gather4 && dims != 2)
    return fail("'" + in.mnemonic + "': .tile::gather4 needs .2d");
  // The coordinates the tensor operand lists.
  const int coords = gather4 ? 5 : dims;
  if (!prefetch && !store && !in.has(ModId::MbarrierCompleteTxBytes)) {
    x.op = XOp::NotImplemented;
    return fail("not implemented yet: '" + in.mnemonic +
                "' without .mbarrier::complete_tx::bytes");
  }
  bool multicast = !prefetch && !store && in.has(ModId::MulticastCluster);
  bool hint = in.has(ModId::L2CacheHint);
  unsigned tOp = prefetch || store ? 0 : 1;
  unsigned n = tOp + (prefetch ? 1 : 2) + (multicast ? 1 : 0) + (hint ? 1 : 0);
  if (!expectOperands(in, n, n))
    return false;
  int cg = in.value(ModId::CtaGroup, 1);
  if (in.has(ModId::CtaGroup) && cg != 1 && cg != 2)
    return fail("'" + in.mnemonic + "': .cta_group must be ::1 or ::2");
  x.op = prefetch ? XOp::TmaPrefetch : store ? XOp::TmaStore : XOp::TmaLoad;
  x.sub = static_cast<uint8_t>((multicast ? XT_Multicast : 0) |
                               (cg == 2 ? XT_CtaGroup2 : 0) |
                               (gather4 ? XT_Gather4 : 0));
  x.vec = static_cast<uint8_t>(dims);
  const Operand &t = in.operands[tOp];
  if (t.kind != Operand::Kind::Address || t.elems.size() != 2 ||
      t.elems[1].kind != Operand::Kind::Vector ||
      t.elems[1].elems.size() != static_cast<size_t>(coords))
    return fail("'" + in.mnemonic + "' needs the tensor operand [tmap, {c0" +
                (coords > 1 ? std::string(", ...") : std::string()) +
                "}] with " + std::to_string(coords) + " coordinate" +
                (coords > 1 ? "s" : ""));
  const Operand &base = t.elems[0];
  if (base.kind == Operand::Kind::Register) {
    const RegSlot *r = regOf(base);
    if (!r || r->isPred || r->bits != 64)
      return fail("the tensor map of '" + in.mnemonic +
                  "' must be a 64-bit register or a symbol");
    x.src[1] = r->index;
  } else if (base.kind == Operand::Kind::Symbol) {
    VarAddr a = symbolAddress(base.sym, curFn_);
    if (!a.valid)
      return fail("cannot address this symbol");
    uint64_t v = a.addr;
    if (a.space == XSpace::ParamKernel)
      v += addrspace::kParamWindow;
    else if (a.space == XSpace::Const)
      v += addrspace::kConstWindow;
    else if (a.space != XSpace::Global)
      return fail("the tensor map of '" + in.mnemonic +
                  "' must be in global, const or param memory");
    x.src[1] = constRow(v);
  } else {
    return fail("unsupported tensor-map operand of '" + in.mnemonic + "'");
  }
  x.listBegin = static_cast<uint32_t>(p_.lists.size());
  x.listCount = static_cast<uint32_t>(coords);
  for (const Operand &c : t.elems[1].elems) {
    if (c.kind == Operand::Kind::Imm) {
      p_.lists.push_back(constRow(static_cast<uint64_t>(c.imm)));
      continue;
    }
    const RegSlot *r = regOf(c);
    if (!r || r->isPred || r->bits != 32)
      return fail("coordinates of '" + in.mnemonic +
                  "' must be 32-bit registers or constants");
    p_.lists.push_back(r->index);
  }
  p_.lists.push_back(constRow(static_cast<uint64_t>(t.imm)));
  if (prefetch)
    return true;
  if (store) {
    x.space = XSpace::Shared;
    return plainAddress(in, 1, XSpace::Shared, x.src[0], x.imm);
  }
  int64_t mbImm = 0;
  if (!plainAddress(in, 0, XSpace::SharedCluster, x.src[0], x.imm) ||
      !plainAddress(in, 2, XSpace::SharedCluster, x.src[2], mbImm))
    return false;
  p_.lists.push_back(constRow(static_cast<uint64_t>(mbImm)));
  if (multicast && !src(in, 3, Type::U16, x.src[3]))
    return false;
  return true;
}
