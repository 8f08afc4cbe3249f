//===- DecodeMemory.cpp - Memory and synchronization instruction forms ----===//
//
// The decoder's memory family: ld / st (every state space, vectors,
// cache and eviction hints), atom / red, bar / barrier, mbarrier.
//
//===----------------------------------------------------------------------===//

#include "Decoder.h"

using namespace nvfp4::emu;
using namespace nvfp4::emu::ptx;

bool Decoder::decodeLdSt(const Instruction &in, XInst &x, bool isLoad) {
  if (!checkMods(in, {ModId::Global,
                      ModId::Shared,
                      ModId::SharedCta,
                      ModId::SharedCluster,
                      ModId::Local,
                      ModId::Param,
                      ModId::ParamEntry,
                      ModId::ParamFunc,
                      ModId::Const,
                      ModId::Vec,
                      ModId::Weak,
                      ModId::Volatile,
                      ModId::Relaxed,
                      ModId::Acquire,
                      ModId::Release,
                      ModId::Mmio,
                      ModId::Cta,
                      ModId::Cluster,
                      ModId::Gpu,
                      ModId::Sys,
                      ModId::Ca,
                      ModId::Cg,
                      ModId::Cs,
                      ModId::Lu,
                      ModId::Cv,
                      ModId::Wb,
                      ModId::Wt,
                      ModId::Nc,
                      ModId::L1EvictNormal,
                      ModId::L1EvictUnchanged,
                      ModId::L1EvictFirst,
                      ModId::L1EvictLast,
                      ModId::L1NoAllocate,
                      ModId::L2EvictNormal,
                      ModId::L2EvictFirst,
                      ModId::L2EvictLast,
                      ModId::L2EvictUnchanged,
                      ModId::L2B64,
                      ModId::L2B128,
                      ModId::L2B256,
                      ModId::L2CacheHint,
                      ModId::Unified}))
    return false;
  Type t = in.type(0);
  if (in.numTypes() != 1 || t == Type::Pred || t == Type::None)
    return fail("'" + in.mnemonic + "' needs one non-predicate type");
  if (typeBits(t) > 64 || typeBits(t) < 8)
    return fail("'" + in.mnemonic + "' with ." + typeName(t) +
                " is not implemented yet");
  x.op = isLoad ? XOp::Ld : XOp::St;
  x.type = t;
  x.vec = static_cast<uint8_t>(in.value(ModId::Vec, 1));
  if (x.vec != 1 && x.vec != 2 && x.vec != 4 && x.vec != 8)
    return fail("unsupported vector width in '" + in.mnemonic + "'");
  if (x.vec * typeBits(t) > 256)
    return fail("'" + in.mnemonic + "' accesses more than 32 bytes");
  switch (in.space()) {
  case Space::None:
    x.space = XSpace::Generic;
    break;
  case Space::Global:
    x.space = XSpace::Global;
    break;
  case Space::Shared:
    x.space = XSpace::Shared;
    break;
  case Space::SharedCluster:
    x.space = XSpace::SharedCluster;
    break;
  case Space::Local:
    x.space = XSpace::Local;
    break;
  case Space::Param:
    x.space = XSpace::ParamKernel;
    break;
  case Space::Const:
    x.space = XSpace::Const;
    break;
  default:
    return fail("unsupported state space in '" + in.mnemonic + "'");
  }
  if (in.has(ModId::L2CacheHint)) {
    // The cache-policy operand is the last one; it is a hint and ignored.
    if (in.operands.size() != 3)
      return fail("'" + in.mnemonic + "' needs a cache-policy operand");
  } else if (!expectOperands(in, 2, 2)) {
    return false;
  }
  unsigned dataIdx = isLoad ? 0 : 1, addrIdx = isLoad ? 1 : 0;
  if (!address(in, addrIdx, x))
    return false;
  if (!isLoad && (x.space == XSpace::ParamKernel || x.space == XSpace::Const))
    return fail("cannot store to the read-only ." +
                std::string(x.space == XSpace::Const ? "const" : "param") +
                " space of a kernel");
  const Operand &data = in.operands[dataIdx];
  if (x.vec > 1) {
    if (data.kind != Operand::Kind::Vector || data.elems.size() != x.vec)
      return fail("'" + in.mnemonic + "' needs a vector of " +
                  std::to_string(x.vec) + " registers");
    return regList(in, data, t, isLoad, x);
  }
  if (isLoad)
    return dst(in, 0, t, x);
  return src(in, 1, t, x.src[1]);
}

bool Decoder::decodeAtom(const Instruction &in, XInst &x, bool isRed) {
  if (!checkMods(in, {ModId::Global,    ModId::Shared,
                      ModId::SharedCta, ModId::SharedCluster,
                      ModId::Relaxed,   ModId::Acquire,
                      ModId::Release,   ModId::AcqRel,
                      ModId::Cta,       ModId::Cluster,
                      ModId::Gpu,       ModId::Sys,
                      ModId::Add,       ModId::Min,
                      ModId::Max,       ModId::Inc,
                      ModId::Dec,       ModId::And,
                      ModId::Or,        ModId::Xor,
                      ModId::Exch,      ModId::Cas,
                      ModId::Noftz,     ModId::L2CacheHint}))
    return false;
  Type t = in.type(0);
  if (in.numTypes() != 1)
    return fail("'" + in.mnemonic + "' needs exactly one type");
  x.op = XOp::Atom;
  x.type = t;
  int op = -1;
  for (const Modifier &m : in.mods) {
    int o = -1;
    switch (m.id) {
    case ModId::Add:
      o = XA_Add;
      break;
    case ModId::Min:
      o = XA_Min;
      break;
    case ModId::Max:
      o = XA_Max;
      break;
    case ModId::Inc:
      o = XA_Inc;
      break;
    case ModId::Dec:
      o = XA_Dec;
      break;
    case ModId::And:
      o = XA_And;
      break;
    case ModId::Or:
      o = XA_Or;
      break;
    case ModId::Xor:
      o = XA_Xor;
      break;
    case ModId::Exch:
      o = XA_Exch;
      break;
    case ModId::Cas:
      o = XA_Cas;
      break;
    default:
      continue;
    }
    if (op >= 0)
      return fail("two operations in '" + in.mnemonic + "'");
    op = o;
  }
  if (op < 0)
    return fail("'" + in.mnemonic + "' has no operation");
  if (isRed && op == XA_Cas)
    return fail("red has no .cas");
  x.sub = static_cast<uint8_t>(op);
  // Type checks.
  TypeClass c = typeClass(t);
  bool ok = false;
  switch (op) {
  case XA_Add:
    ok = t == Type::U32 || t == Type::S32 || t == Type::U64 || t == Type::S64 ||
         t == Type::F32 || t == Type::F64 || t == Type::F16 ||
         t == Type::F16x2 || t == Type::BF16 || t == Type::BF16x2;
    break;
  case XA_Min:
  case XA_Max:
    ok = t == Type::U32 || t == Type::S32 || t == Type::U64 || t == Type::S64;
    break;
  case XA_Inc:
  case XA_Dec:
    ok = t == Type::U32;
    break;
  case XA_And:
  case XA_Or:
  case XA_Xor:
    ok = t == Type::B32 || t == Type::B64;
    break;
  case XA_Exch:
  case XA_Cas:
    ok = t == Type::B32 || t == Type::B64 || (op == XA_Cas && t == Type::B16);
    break;
  }
  (void)c;
  if (!ok)
    return fail("'" + in.mnemonic + "': ." + typeName(t) +
                " is not a valid type for this atomic operation");
  if ((t == Type::F16 || t == Type::F16x2 || t == Type::BF16 ||
       t == Type::BF16x2) &&
      !in.has(ModId::Noftz))
    return fail("'" + in.mnemonic + "' requires .noftz");
  switch (in.space()) {
  case Space::None:
    x.space = XSpace::Generic;
    break;
  case Space::Global:
    x.space = XSpace::Global;
    break;
  case Space::Shared:
    x.space = XSpace::Shared;
    break;
  case Space::SharedCluster:
    x.space = XSpace::SharedCluster;
    break;
  default:
    return fail("atomics need .global, .shared or generic addressing");
  }
  unsigned nOps = (isRed ? 2 : 3) + (op == XA_Cas ? 1 : 0) +
                  (in.has(ModId::L2CacheHint) ? 1 : 0);
  if (!expectOperands(in, nOps, nOps))
    return false;
  unsigned base = isRed ? 0 : 1;
  if (!isRed && !dst(in, 0, t, x, /*allowSink=*/true))
    return false;
  if (isRed)
    x.dst = kNone;
  if (!address(in, base, x) || !src(in, base + 1, t, x.src[1]))
    return false;
  if (op == XA_Cas)
    return src(in, base + 2, t, x.src[2]);
  return true;
}

bool Decoder::decodeBar(const Instruction &in, XInst &x) {
  // bar{.cta}.sync a{, b}; bar.arrive a, b; bar.red.op.type d, a{, b}, {!}c;
  // barrier{.cta}.{sync,arrive,red}{.aligned} ...
  if (!checkMods(in, {ModId::Cta, ModId::Sync, ModId::Arrive, ModId::Red,
                      ModId::Aligned, ModId::Popc, ModId::And, ModId::Or}))
    return false;
  bool aligned = in.opcode == Opcode::Bar || in.has(ModId::Aligned);
  if (aligned)
    x.flags |= XF_Aligned;
  if (in.has(ModId::Red)) {
    x.op = XOp::BarRed;
    x.sub2 = in.has(ModId::Popc)  ? XB_Popc
             : in.has(ModId::And) ? XB_And
                                  : XB_Or;
    if (!in.has(ModId::Popc) && !in.has(ModId::And) && !in.has(ModId::Or))
      return fail("'" + in.mnemonic + "' needs .popc, .and or .or");
    if (!expectOperands(in, 3, 4))
      return false;
    if (x.sub2 == XB_Popc) {
      if (!dst(in, 0, Type::U32, x))
        return false;
    } else if (!dstPred(in, 0, x.dst)) {
      return false;
    }
    if (!srcU32(in, 1, x.src[0]))
      return false;
    if (in.operands.size() == 4) {
      if (!srcU32(in, 2, x.src[1]))
        return false;
      return predSrc(in, 3, x, 2);
    }
    return predSrc(in, 2, x, 2);
  }
  if (in.has(ModId::Arrive)) {
    x.op = XOp::BarArrive;
    if (!expectOperands(in, 2, 2))
      return false;
    return srcU32(in, 0, x.src[0]) && srcU32(in, 1, x.src[1]);
  }
  x.op = XOp::BarSync;
  if (!expectOperands(in, 1, 2))
    return false;
  if (!srcU32(in, 0, x.src[0]))
    return false;
  if (in.operands.size() == 2)
    return srcU32(in, 1, x.src[1]);
  return true;
}

bool Decoder::decodeMbarrier(const Instruction &in, XInst &x) {
  // mbarrier.init{.shared{::cta}}.b64 [addr], count;
  // mbarrier.arrive{.expect_tx}{.sem}{.scope}{.space}.b64 state, [addr]{, n};
  // mbarrier.arrive_drop ... (same operands); .noComplete needs the count
  // mbarrier.{expect_tx,complete_tx}{.sem}{.scope}{.space}.b64 [addr], tx;
  // mbarrier.{test_wait,try_wait}{.parity}{.sem}{.scope}{.space}.b64
  //     waitComplete, [addr], state|parity{, suspendTimeHint};
  // mbarrier.inval{.shared{::cta}}.b64 [addr];
  // mbarrier.pending_count.b64 count, state;
  if (!checkMods(in, {ModId::Shared, ModId::SharedCta, ModId::SharedCluster,
                      ModId::Relaxed, ModId::Release, ModId::Acquire,
                      ModId::Cta, ModId::Cluster, ModId::ExpectTx,
                      ModId::Parity, ModId::NoComplete}))
    return false;
  if (in.numTypes() != 1 || in.type(0) != Type::B64)
    return fail("'" + in.mnemonic + "' needs the type .b64");
  auto allowOnly = [&](std::initializer_list<ModId> ok) {
    for (const Modifier &m : in.mods) {
      if (m.id == ModId::Type)
        continue;
      bool found = false;
      for (ModId a : ok)
        found |= a == m.id;
      if (!found)
        return fail("modifier '." + std::string(modName(m.id)) +
                    "' is not valid on '" + opcodeName(in.opcode) + "' (in '" +
                    in.mnemonic + "')");
    }
    return true;
  };
  switch (in.space()) {
  case Space::None:
    x.space = XSpace::Generic;
    break;
  case Space::Shared:
    x.space = XSpace::Shared;
    break;
  case Space::SharedCluster:
    x.space = XSpace::SharedCluster;
    break;
  default:
    return fail("'" + in.mnemonic + "' needs a shared or generic address");
  }
  switch (in.opcode) {
  case Opcode::MbarrierInit:
    if (!allowOnly({ModId::Shared, ModId::SharedCta}) ||
        !expectOperands(in, 2, 2))
      return false;
    x.op = XOp::MbarInit;
    return address(in, 0, x) && srcU32(in, 1, x.src[1]);
  case Opcode::MbarrierInval:
    if (!allowOnly({ModId::Shared, ModId::SharedCta}) ||
        !expectOperands(in, 1, 1))
      return false;
    x.op = XOp::MbarInval;
    return address(in, 0, x);
  case Opcode::MbarrierExpectTx:
  case Opcode::MbarrierCompleteTx:
    if (!allowOnly({ModId::Shared, ModId::SharedCta, ModId::SharedCluster,
                    ModId::Relaxed, ModId::Cta, ModId::Cluster}) ||
        !expectOperands(in, 2, 2))
      return false;
    x.op = in.opcode == Opcode::MbarrierExpectTx ? XOp::MbarExpectTx
                                                 : XOp::MbarCompleteTx;
    return address(in, 0, x) && srcU32(in, 1, x.src[1]);
  case Opcode::MbarrierArrive:
  case Opcode::MbarrierArriveDrop: {
    if (!allowOnly({ModId::Shared, ModId::SharedCta, ModId::SharedCluster,
                    ModId::Relaxed, ModId::Release, ModId::Cta, ModId::Cluster,
                    ModId::ExpectTx, ModId::NoComplete}) ||
        !expectOperands(in, 2, 3))
      return false;
    x.op = XOp::MbarArrive;
    if (in.opcode == Opcode::MbarrierArriveDrop)
      x.sub |= XM_Drop;
    if (in.has(ModId::ExpectTx))
      x.sub |= XM_ExpectTx;
    if (in.has(ModId::NoComplete))
      x.sub |= XM_NoComplete;
    if ((x.sub & XM_ExpectTx) && (x.sub & XM_NoComplete))
      return fail("'" + in.mnemonic +
                  "' cannot combine .expect_tx and .noComplete");
    if ((x.sub & XM_ExpectTx) && in.operands.size() != 3)
      return fail("'" + in.mnemonic + "' needs a tx-count operand");
    if ((x.sub & XM_NoComplete) && in.operands.size() != 3)
      return fail("'" + in.mnemonic + "' needs a count operand");
    // A shared::cluster barrier may live in another CTA: no state then.
    bool sinkOnly = x.space == XSpace::SharedCluster;
    if (!dst(in, 0, Type::B64, x, /*allowSink=*/true))
      return false;
    if (sinkOnly && x.dst != kNone)
      return fail("'" + in.mnemonic +
                  "' on a .shared::cluster address must write its state "
                  "to the sink '_'");
    if (!address(in, 1, x))
      return false;
    if (in.operands.size() == 3)
      return srcU32(in, 2, x.src[1]);
    return true;
  }
  case Opcode::MbarrierTestWait:
  case Opcode::MbarrierTryWait: {
    if (!allowOnly({ModId::Shared, ModId::SharedCta, ModId::Relaxed,
                    ModId::Acquire, ModId::Cta, ModId::Cluster, ModId::Parity}))
      return false;
    bool isTry = in.opcode == Opcode::MbarrierTryWait;
    if (!expectOperands(in, 3, isTry ? 4 : 3))
      return false;
    x.op = isTry ? XOp::MbarTryWait : XOp::MbarTestWait;
    if (in.has(ModId::Parity))
      x.sub |= XM_Parity;
    if (!dstPred(in, 0, x.dst) || !address(in, 1, x))
      return false;
    if (x.sub & XM_Parity) {
      if (!srcU32(in, 2, x.src[1]))
        return false;
    } else if (!src(in, 2, Type::B64, x.src[1])) {
      return false;
    }
    // suspendTimeHint is a hint; it is checked and ignored.
    if (in.operands.size() == 4)
      return srcU32(in, 3, x.src[2]);
    return true;
  }
  case Opcode::MbarrierPendingCount:
    if (!allowOnly({}) || !expectOperands(in, 2, 2))
      return false;
    x.op = XOp::MbarPendingCount;
    x.type = Type::U32;
    return dst(in, 0, Type::U32, x) && src(in, 1, Type::B64, x.src[1]);
  default:
    break;
  }
  x.op = XOp::NotImplemented;
  return fail("not implemented yet: " + in.mnemonic);
}
