//===- DecodeArith.cpp - Integer and floating-point instruction forms -----===//
//
// The decoder's arithmetic family: binary integer / float forms, mul / mad,
// float unary ops, min / max, setp / set, mov and cvt.
//
//===----------------------------------------------------------------------===//

#include "Decoder.h"

using namespace nvfp4::emu;
using namespace nvfp4::emu::ptx;

//===----------------------------------------------------------------------===//
// Instructions
//===----------------------------------------------------------------------===//



bool Decoder::decodeIntOrFloatBinary(const Instruction &in, XInst &x, XOp iop,
                                     XOp fop) {
  Type t = in.type(0);
  if (in.numTypes() != 1)
    return fail("'" + in.mnemonic + "' needs exactly one type");
  if (!expectOperands(in, 3, 3))
    return false;
  if (isIntType(t) && t != Type::U16x2 && t != Type::S16x2) {
    if (!checkMods(in, {ModId::Sat, ModId::Cc}))
      return false;
    bool cc = in.has(ModId::Cc);
    x.op = iop;
    if (cc) {
      if (iop == XOp::IAdd)
        x.op = XOp::IAddCC;
      else if (iop == XOp::ISub)
        x.op = XOp::ISubCC;
      else if (iop == XOp::IAddC)
        x.op = XOp::IAddC;
      else if (iop == XOp::ISubC)
        x.op = XOp::ISubC;
      x.sub = 1; // write carry
    }
    if ((iop == XOp::IAddC || iop == XOp::ISubC || cc) && typeBits(t) != 32 &&
        typeBits(t) != 64)
      return fail("carry arithmetic needs a 32- or 64-bit type in '" +
                  in.mnemonic + "'");
    if (in.has(ModId::Sat) && t != Type::S32)
      return fail(".sat needs .s32 in '" + in.mnemonic + "'");
    if (in.has(ModId::Sat))
      x.flags |= XF_Sat;
    if (x.op == XOp::IAddCC || x.op == XOp::ISubCC || x.op == XOp::IAddC ||
        x.op == XOp::ISubC) {
      if (p_.ccRow == kNone)
        p_.ccRow = p_.numRows++;
    }
  } else if (isArithFloat(t)) {
    if (iop == XOp::IAddC || iop == XOp::ISubC)
      return fail("'" + in.mnemonic + "' needs an integer type");
    if (!checkMods(in, {ModId::Rn, ModId::Rz, ModId::Rm, ModId::Rp, ModId::Ftz,
                        ModId::Sat, ModId::Relu}))
      return false;
    x.op = fop;
    if (!setRounding(in, x, false))
      return false;
    applyCommonFlags(in, x);
  } else {
    return fail("'" + in.mnemonic + "' has an unsupported type ." +
                typeName(t));
  }
  x.type = t;
  return dst(in, 0, t, x) && src(in, 1, t, x.src[0]) && src(in, 2, t, x.src[1]);
}

bool Decoder::decodeMulMad(const Instruction &in, XInst &x, bool mad) {
  Type t = in.type(0);
  if (in.numTypes() != 1)
    return fail("'" + in.mnemonic + "' needs exactly one type");
  if (!expectOperands(in, mad ? 4 : 3, mad ? 4 : 3))
    return false;
  x.type = t;
  if (isArithFloat(t)) {
    if (!checkMods(in, {ModId::Rn, ModId::Rz, ModId::Rm, ModId::Rp, ModId::Ftz,
                        ModId::Sat, ModId::Relu}))
      return false;
    x.op = mad ? XOp::FFma : XOp::FMul;
    if (!setRounding(in, x, false))
      return false;
    applyCommonFlags(in, x);
    if (!dst(in, 0, t, x) || !src(in, 1, t, x.src[0]) ||
        !src(in, 2, t, x.src[1]))
      return false;
    return !mad || src(in, 3, t, x.src[2]);
  }
  if (!isIntType(t))
    return fail("'" + in.mnemonic + "' has an unsupported type");
  if (!checkMods(in,
                 {ModId::Lo, ModId::Hi, ModId::Wide, ModId::Sat, ModId::Cc}))
    return false;
  x.sub = in.has(ModId::Hi) ? XS_Hi : in.has(ModId::Wide) ? XS_Wide : XS_Lo;
  if (in.opcode == Opcode::Mul24 || in.opcode == Opcode::Mad24) {
    x.op = mad ? XOp::IMad24 : XOp::IMul24;
    if (t != Type::U32 && t != Type::S32)
      return fail("'" + in.mnemonic + "' needs .u32 or .s32");
  } else if (in.opcode == Opcode::MadC) {
    x.op = XOp::IMadC;
  } else {
    x.op = mad ? (in.has(ModId::Cc) ? XOp::IMadCC : XOp::IMad) : XOp::IMul;
  }
  if (x.op == XOp::IMadC || x.op == XOp::IMadCC) {
    if (p_.ccRow == kNone)
      p_.ccRow = p_.numRows++;
    x.sub2 = in.has(ModId::Cc) ? 1 : 0;
  }
  if (in.has(ModId::Sat)) {
    if (t != Type::S32 || x.sub != XS_Hi || !mad)
      return fail(".sat needs mad.hi.s32 in '" + in.mnemonic + "'");
    x.flags |= XF_Sat;
  }
  if (x.sub == XS_Wide && typeBits(t) > 32)
    return fail(".wide needs a 16- or 32-bit type in '" + in.mnemonic + "'");
  Type dt = t;
  if (x.sub == XS_Wide) {
    static const Type kWide[] = {Type::U32, Type::U64, Type::S32, Type::S64};
    bool s = isSigned(t);
    dt = typeBits(t) == 16 ? kWide[s ? 2 : 0] : kWide[s ? 3 : 1];
  }
  if (!dst(in, 0, dt, x) || !src(in, 1, t, x.src[0]) ||
      !src(in, 2, t, x.src[1]))
    return false;
  return !mad || src(in, 3, dt, x.src[2]);
}

bool Decoder::decodeFloatUnary(const Instruction &in, XInst &x, XOp op) {
  Type t = in.type(0);
  if (in.numTypes() != 1 || !isArithFloat(t))
    return fail("'" + in.mnemonic + "' needs one floating-point type");
  if (!expectOperands(in, 2, 2))
    return false;
  if (!checkMods(in, {ModId::Approx, ModId::Ftz, ModId::Rn, ModId::Rz,
                      ModId::Rm, ModId::Rp, ModId::Full}))
    return false;
  x.op = op;
  x.type = t;
  applyCommonFlags(in, x);
  if (!setRounding(in, x, false))
    return false;
  bool approx = in.has(ModId::Approx);
  bool isApproxOnly = op == XOp::FEx2 || op == XOp::FLg2 || op == XOp::FSin ||
                      op == XOp::FCos || op == XOp::FTanh || op == XOp::FRsqrt;
  if (isApproxOnly && !approx)
    return fail("'" + in.mnemonic + "' requires .approx");
  if ((op == XOp::FRcp || op == XOp::FSqrt) && !approx && x.rnd == XR_None)
    return fail("'" + in.mnemonic +
                "' requires .approx or a rounding "
                "modifier");
  bool half = t == Type::F16 || t == Type::F16x2 || t == Type::BF16 ||
              t == Type::BF16x2;
  if (half && op != XOp::FAbs && op != XOp::FNeg && op != XOp::FEx2 &&
      op != XOp::FTanh)
    return fail("'" + in.mnemonic + "' is not implemented for ." + typeName(t));
  if (t == Type::F64 &&
      (op == XOp::FEx2 || op == XOp::FLg2 || op == XOp::FSin ||
       op == XOp::FCos || op == XOp::FTanh))
    return fail("'" + in.mnemonic + "' does not exist for .f64");
  return dst(in, 0, t, x) && src(in, 1, t, x.src[0]);
}

bool Decoder::decodeMinMax(const Instruction &in, XInst &x, bool isMax) {
  Type t = in.type(0);
  if (in.numTypes() != 1)
    return fail("'" + in.mnemonic + "' needs exactly one type");
  if (!expectOperands(in, 3, 4))
    return false;
  x.type = t;
  if (isIntType(t) && t != Type::U16x2 && t != Type::S16x2) {
    if (!checkMods(in, {ModId::Relu}))
      return false;
    if (in.operands.size() != 3)
      return fail("integer '" + in.mnemonic + "' takes 3 operands");
    x.op = isMax ? XOp::IMax : XOp::IMin;
    if (in.has(ModId::Relu)) {
      if (t != Type::S32)
        return fail(".relu needs .s32");
      x.flags |= XF_Relu;
    }
    return dst(in, 0, t, x) && src(in, 1, t, x.src[0]) &&
           src(in, 2, t, x.src[1]);
  }
  if (!isArithFloat(t))
    return fail("'" + in.mnemonic + "' has an unsupported type");
  if (!checkMods(in, {ModId::Ftz, ModId::NaN, ModId::Xorsign, ModId::Abs}))
    return false;
  x.op = isMax ? XOp::FMax : XOp::FMin;
  applyCommonFlags(in, x);
  if (in.has(ModId::Xorsign))
    x.flags |= XF_XorSign;
  if (in.has(ModId::Abs))
    x.flags |= XF_Abs;
  if ((x.flags & XF_XorSign) && !(x.flags & XF_Abs))
    return fail(".xorsign requires .abs in '" + in.mnemonic + "'");
  if (in.operands.size() == 4 && (x.flags & XF_XorSign))
    return fail(".xorsign is not allowed with three inputs");
  if (!dst(in, 0, t, x) || !src(in, 1, t, x.src[0]) || !src(in, 2, t, x.src[1]))
    return false;
  if (in.operands.size() == 4)
    return src(in, 3, t, x.src[2]);
  return true;
}

bool Decoder::decodeSetp(const Instruction &in, XInst &x, bool isSet) {
  // setp.CmpOp{.ftz}{.BoolOp}.type p[|q], a, b{, {!}c};
  // set.CmpOp{.ftz}{.BoolOp}.dtype.stype d, a, b{, {!}c};
  if (!checkMods(in,
                 {ModId::Eq,  ModId::Ne,  ModId::Lt,  ModId::Le,  ModId::Gt,
                  ModId::Ge,  ModId::Lo,  ModId::Ls,  ModId::Hi,  ModId::Hs,
                  ModId::Equ, ModId::Neu, ModId::Ltu, ModId::Leu, ModId::Gtu,
                  ModId::Geu, ModId::Num, ModId::Nan, ModId::And, ModId::Or,
                  ModId::Xor, ModId::Ftz}))
    return false;
  Type st = isSet ? in.type(1) : in.type(0);
  Type dt = isSet ? in.type(0) : Type::Pred;
  if (in.numTypes() != (isSet ? 2u : 1u) || st == Type::None)
    return fail("'" + in.mnemonic + "' has the wrong number of types");
  int cmp = -1, boolOp = XB_None;
  bool isF = isFloat(st), isS = isSigned(st);
  bool isBits = typeClass(st) == TypeClass::Bits;
  for (const Modifier &m : in.mods) {
    int c = -1;
    switch (m.id) {
    case ModId::Eq:
      c = XS_Eq;
      break;
    case ModId::Ne:
      c = XS_Ne;
      break;
    case ModId::Lt:
      c = XS_Lt;
      break;
    case ModId::Le:
      c = XS_Le;
      break;
    case ModId::Gt:
      c = XS_Gt;
      break;
    case ModId::Ge:
      c = XS_Ge;
      break;
    case ModId::Lo:
      c = XS_Lt;
      break;
    case ModId::Ls:
      c = XS_Le;
      break;
    case ModId::Hi:
      c = XS_Gt;
      break;
    case ModId::Hs:
      c = XS_Ge;
      break;
    case ModId::Equ:
      c = XS_Equ;
      break;
    case ModId::Neu:
      c = XS_Neu;
      break;
    case ModId::Ltu:
      c = XS_Ltu;
      break;
    case ModId::Leu:
      c = XS_Leu;
      break;
    case ModId::Gtu:
      c = XS_Gtu;
      break;
    case ModId::Geu:
      c = XS_Geu;
      break;
    case ModId::Num:
      c = XS_Num;
      break;
    case ModId::Nan:
      c = XS_Nan;
      break;
    case ModId::And:
      boolOp = XB_And;
      continue;
    case ModId::Or:
      boolOp = XB_Or;
      continue;
    case ModId::Xor:
      boolOp = XB_Xor;
      continue;
    default:
      continue;
    }
    if (cmp >= 0)
      return fail("two comparison operators in '" + in.mnemonic + "'");
    cmp = c;
    bool unsignedSpelling = m.id == ModId::Lo || m.id == ModId::Ls ||
                            m.id == ModId::Hi || m.id == ModId::Hs;
    if (!isF && c >= XS_Equ)
      return fail("comparison ." + std::string(modName(m.id)) +
                  " needs a floating-point type in '" + in.mnemonic + "'");
    if (isF && unsignedSpelling)
      return fail("comparison ." + std::string(modName(m.id)) +
                  " needs an unsigned type in '" + in.mnemonic + "'");
    if (isBits && c != XS_Eq && c != XS_Ne)
      return fail("bit-size types only compare with .eq and .ne in '" +
                  in.mnemonic + "'");
    if (isS && unsignedSpelling)
      return fail("comparison ." + std::string(modName(m.id)) +
                  " needs an unsigned type in '" + in.mnemonic + "'");
  }
  if (cmp < 0)
    return fail("'" + in.mnemonic + "' has no comparison operator");
  if (!isF && !isIntType(st))
    return fail("'" + in.mnemonic + "' has an unsupported type");
  if (st == Type::F16x2 || st == Type::BF16x2 || st == Type::U16x2 ||
      st == Type::S16x2)
    return fail("packed comparisons are not implemented yet: '" + in.mnemonic +
                "'");
  if (isF && !isArithFloat(st))
    return fail("'" + in.mnemonic + "' has an unsupported type");
  x.op = isSet ? XOp::Set : XOp::Setp;
  x.type = dt;
  x.type2 = st;
  x.sub = static_cast<uint8_t>(cmp);
  x.sub2 = static_cast<uint8_t>(boolOp);
  if (in.has(ModId::Ftz))
    x.flags |= XF_Ftz;
  size_t n = in.operands.size();
  if (n != (boolOp ? 4u : 3u))
    return fail("'" + in.mnemonic + "' takes " + (boolOp ? "4" : "3") +
                " operands, found " + std::to_string(n));
  if (isSet) {
    if (dt != Type::U32 && dt != Type::S32 && dt != Type::F32 &&
        dt != Type::B32)
      return fail("set destination must be .u32, .s32, .b32 or .f32");
    if (!dst(in, 0, dt, x))
      return false;
  } else {
    const Operand &d = in.operands[0];
    if (!dstPred(in, 0, x.dst, false))
      return false;
    if (d.pairReg >= 0) {
      const RegSlot &q = regs_[curFn_][d.pairReg];
      if (!q.isPred)
        return fail("second destination of setp must be a predicate");
      x.dst2 = q.index;
    }
  }
  if (!src(in, 1, st, x.src[0]) || !src(in, 2, st, x.src[1]))
    return false;
  if (boolOp)
    return predSrc(in, 3, x, 2);
  return true;
}

bool Decoder::decodeMov(const Instruction &in, XInst &x) {
  Type t = in.type(0);
  if (in.numTypes() != 1)
    return fail("'" + in.mnemonic + "' needs exactly one type");
  if (!checkMods(in, {}))
    return false;
  if (!expectOperands(in, 2, 2))
    return false;
  x.type = t;
  const Operand &d = in.operands[0], &s = in.operands[1];
  if (t == Type::Pred) {
    if (s.kind == Operand::Kind::Special &&
        s.sreg == SpecialReg::IsExplicitCluster) {
      // %is_explicit_cluster is a predicate in the ISA; it is kept as a
      // 0/1 row, so the move is a comparison with 0.
      x.op = XOp::Setp;
      x.type2 = Type::U32;
      x.sub = XS_Ne;
      x.sub2 = XB_None;
      x.src[0] = specialRow(s.sreg, 0);
      x.src[1] = constRow(0);
      return dstPred(in, 0, x.dst, false);
    }
    x.op = XOp::MovPred;
    return dstPred(in, 0, x.dst) && predSrc(in, 1, x, 0);
  }
  unsigned bits = typeBits(t);
  if (d.kind == Operand::Kind::Vector) {
    // Unpack: mov.b64 {a, b}, d.
    x.op = XOp::MovUnpack;
    unsigned n = static_cast<unsigned>(d.elems.size());
    if (n < 2 || bits % n != 0)
      return fail("cannot split a ." + std::string(typeName(t)) + " into " +
                  std::to_string(n) + " elements");
    static const Type kBits[] = {Type::B8, Type::B16, Type::B32, Type::B64};
    unsigned eb = bits / n;
    Type et = eb == 8    ? kBits[0]
              : eb == 16 ? kBits[1]
              : eb == 32 ? kBits[2]
                         : kBits[3];
    if (eb != 8 && eb != 16 && eb != 32 && eb != 64)
      return fail("unsupported vector element width in '" + in.mnemonic + "'");
    if (!regList(in, d, et, true, x))
      return false;
    x.dstTypeMask = maskBits(eb);
    return src(in, 1, t, x.src[0]);
  }
  if (s.kind == Operand::Kind::Vector) {
    x.op = XOp::MovPack;
    unsigned n = static_cast<unsigned>(s.elems.size());
    if (n < 2 || bits % n != 0)
      return fail("cannot pack " + std::to_string(n) + " elements into a ." +
                  std::string(typeName(t)));
    unsigned eb = bits / n;
    static const Type kBits[] = {Type::B8, Type::B16, Type::B32, Type::B64};
    if (eb != 8 && eb != 16 && eb != 32 && eb != 64)
      return fail("unsupported vector element width in '" + in.mnemonic + "'");
    Type et = eb == 8    ? kBits[0]
              : eb == 16 ? kBits[1]
              : eb == 32 ? kBits[2]
                         : kBits[3];
    if (!regList(in, s, et, false, x))
      return false;
    return dst(in, 0, t, x);
  }
  if (s.kind == Operand::Kind::Special &&
      (s.sreg == SpecialReg::Clock || s.sreg == SpecialReg::ClockHi ||
       s.sreg == SpecialReg::Clock64 || s.sreg == SpecialReg::Globaltimer ||
       s.sreg == SpecialReg::GlobaltimerLo ||
       s.sreg == SpecialReg::GlobaltimerHi)) {
    x.op = XOp::ReadClock;
    x.sub = static_cast<uint8_t>(s.sreg == SpecialReg::Clock           ? 0
                                 : s.sreg == SpecialReg::ClockHi       ? 1
                                 : s.sreg == SpecialReg::Clock64       ? 2
                                 : s.sreg == SpecialReg::Globaltimer   ? 3
                                 : s.sreg == SpecialReg::GlobaltimerLo ? 4
                                                                       : 5);
    return dst(in, 0, t, x);
  }
  if (t == Type::B128)
    return fail("mov.b128 is not implemented yet");
  x.op = XOp::Mov;
  return dst(in, 0, t, x) && src(in, 1, t, x.src[0]);
}

bool Decoder::decodeCvt(const Instruction &in, XInst &x) {
  if (in.numTypes() != 2)
    return fail("'" + in.mnemonic + "' needs a destination and a source type");
  if (!checkMods(in, {ModId::Rn, ModId::Rna, ModId::Rz, ModId::Rm, ModId::Rp,
                      ModId::Rni, ModId::Rzi, ModId::Rmi, ModId::Rpi,
                      ModId::Ftz, ModId::Sat, ModId::Satfinite, ModId::Relu}))
    return false;
  Type dt = in.type(0), st = in.type(1);
  x.op = XOp::Cvt;
  x.type = dt;
  x.type2 = st;
  applyCommonFlags(in, x);
  if (!setRounding(in, x, true))
    return false;
  bool dF = isFloat(dt), sF = isFloat(st);
  auto isScalarFloat = [](Type t) {
    return t == Type::F16 || t == Type::BF16 || t == Type::F32 ||
           t == Type::F64;
  };
  auto isPairDst = [](Type t) {
    return t == Type::F16x2 || t == Type::BF16x2 || t == Type::E4M3x2 ||
           t == Type::E5M2x2 || t == Type::E2M1x2 || t == Type::E2M3x2 ||
           t == Type::E3M2x2 || t == Type::UE8M0x2;
  };
  bool needRound = false;
  // Packed destinations from two f32 sources, or from one packed source.
  if (isPairDst(dt)) {
    bool fromF32 = st == Type::F32;
    bool fromPacked = st == Type::F16x2 || st == Type::BF16x2;
    bool fp8 = dt == Type::E4M3x2 || dt == Type::E5M2x2;
    bool fp6 = dt == Type::E2M3x2 || dt == Type::E3M2x2;
    bool fp4 = dt == Type::E2M1x2;
    if (dt == Type::UE8M0x2) {
      if (x.rnd != XR_Rz && x.rnd != XR_Rp)
        return fail("'" + in.mnemonic + "' needs .rz or .rp");
    } else if (x.rnd != XR_Rn &&
               !(x.rnd == XR_Rz && (dt == Type::F16x2 || dt == Type::BF16x2))) {
      return fail("'" + in.mnemonic + "' needs .rn" +
                  ((dt == Type::F16x2 || dt == Type::BF16x2) ? " or .rz" : ""));
    }
    if ((fp8 || fp6 || fp4) && !(x.flags & XF_SatFinite))
      return fail("'" + in.mnemonic + "' requires .satfinite");
    if (fromF32) {
      if (!expectOperands(in, 3, 3))
        return false;
      Type dreg = dt == Type::E2M1x2   ? Type::B8
                  : typeBits(dt) == 16 ? Type::B16
                                       : Type::B32;
      return dst(in, 0, dreg, x) && src(in, 1, Type::F32, x.src[0]) &&
             src(in, 2, Type::F32, x.src[1]);
    }
    if (fromPacked && (fp8 || fp6 || fp4 || dt == Type::UE8M0x2)) {
      if (!expectOperands(in, 2, 2))
        return false;
      Type dreg = dt == Type::E2M1x2 ? Type::B8 : Type::B16;
      return dst(in, 0, dreg, x) && src(in, 1, Type::B32, x.src[0]);
    }
    // Up-conversions: f16x2 <- e4m3x2 / e5m2x2 / e2m1x2 / e2m3x2 / e3m2x2,
    // bf16x2 <- ue8m0x2.
    if ((dt == Type::F16x2 &&
         (st == Type::E4M3x2 || st == Type::E5M2x2 || st == Type::E2M1x2 ||
          st == Type::E2M3x2 || st == Type::E3M2x2)) ||
        (dt == Type::BF16x2 && st == Type::UE8M0x2)) {
      if (!expectOperands(in, 2, 2))
        return false;
      Type sreg = st == Type::E2M1x2 ? Type::B8 : Type::B16;
      return dst(in, 0, Type::B32, x) && src(in, 1, sreg, x.src[0]);
    }
    return fail("conversion '" + in.mnemonic + "' is not implemented yet");
  }
  if (dt == Type::TF32) {
    if (st != Type::F32)
      return fail("'" + in.mnemonic + "' needs an .f32 source");
    if (x.rnd != XR_Rna && x.rnd != XR_Rn && x.rnd != XR_Rz)
      return fail("'" + in.mnemonic + "' needs .rna, .rn or .rz");
    if (!expectOperands(in, 2, 2))
      return false;
    return dst(in, 0, Type::B32, x) && src(in, 1, Type::F32, x.src[0]);
  }
  if ((dF && !isScalarFloat(dt)) || (sF && !isScalarFloat(st)) ||
      dt == Type::Pred || st == Type::Pred || typeBits(dt) > 64 ||
      typeBits(st) > 64 || typeBits(dt) < 8 || typeBits(st) < 8 ||
      dt == Type::U16x2 || dt == Type::S16x2 || st == Type::U16x2 ||
      st == Type::S16x2 || typeClass(dt) == TypeClass::Bits ||
      typeClass(st) == TypeClass::Bits)
    return fail("conversion '" + in.mnemonic + "' is not supported");
  if (!expectOperands(in, 2, 2))
    return false;
  // Rounding rules (PTX 9.7.9.21).
  if (dF && sF) {
    bool narrowing = typeBits(dt) < typeBits(st) ||
                     (dt == Type::F16 && st == Type::BF16) ||
                     (dt == Type::BF16 && st == Type::F16);
    if (dt == st) {
      if (x.rnd != XR_None && x.rnd < XR_Rni)
        return fail("'" + in.mnemonic +
                    "' takes only an integer rounding "
                    "modifier");
    } else if (narrowing) {
      needRound = true;
      if (x.rnd == XR_None || x.rnd >= XR_Rni)
        return fail("'" + in.mnemonic +
                    "' needs a floating-point rounding "
                    "modifier (.rn, .rz, .rm, .rp)");
    } else if (x.rnd != XR_None) {
      return fail("'" + in.mnemonic +
                  "' is exact and takes no rounding "
                  "modifier");
    }
  } else if (dF && !sF) {
    needRound = true;
    if (x.rnd == XR_None || x.rnd >= XR_Rni)
      return fail("'" + in.mnemonic +
                  "' needs a floating-point rounding "
                  "modifier (.rn, .rz, .rm, .rp)");
  } else if (!dF && sF) {
    if (x.rnd < XR_Rni)
      return fail("'" + in.mnemonic +
                  "' needs an integer rounding modifier "
                  "(.rni, .rzi, .rmi, .rpi)");
  } else if (x.rnd != XR_None) {
    return fail("integer conversion '" + in.mnemonic +
                "' takes no rounding modifier");
  }
  (void)needRound;
  if (x.rnd == XR_Rna)
    return fail(".rna is only supported for .tf32 destinations");
  if ((x.flags & XF_Ftz) && dt != Type::F32 && st != Type::F32)
    return fail(".ftz needs an .f32 source or destination in '" + in.mnemonic +
                "'");
  return dst(in, 0, dt, x) && src(in, 1, st, x.src[0]);
}
