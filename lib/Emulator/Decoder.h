//===- Decoder.h - Parsed PTX to the executable Program ------*- C++ -*-===//
//
// The Decoder class and the helpers its files share: Decoder.cpp (layout,
// operands, the instruction switch, calls), DecodeArith.cpp (integer and
// floating-point forms, setp, mov, cvt), DecodeMemory.cpp (ld / st, atom,
// bar, mbarrier), DecodeAsync.cpp (tcgen05, wgmma, bulk copies, TMA).
// Internal to lib/Emulator.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_LIB_EMULATOR_DECODER_H
#define NVFP4_LIB_EMULATOR_DECODER_H

#include "Memory.h"
#include "Program.h"
#include "nvfp4/Support/TensorMemory.h"
#include "nvfp4/Support/UMMADescriptors.h"

#include "nvfp4/Emulator/FloatFormats.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <set>

namespace nvfp4::emu {
using namespace nvfp4::emu::ptx;

namespace {

inline uint64_t maskBits(unsigned bits) {
  return bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
}

inline uint32_t alignUp32(uint64_t v, uint64_t a) {
  return static_cast<uint32_t>((v + a - 1) & ~(a - 1));
}

inline bool isIntType(Type t) { return isIntegral(t) && t != Type::Pred; }

/// The executor's space for the state-space modifier of cvta/isspacep;
/// false when there is none.
inline bool addressSpaceOf(Space sp, XSpace &out) {
  switch (sp) {
  case Space::Global:
    out = XSpace::Global;
    return true;
  case Space::Shared:
    out = XSpace::Shared;
    return true;
  case Space::SharedCluster:
    out = XSpace::SharedCluster;
    return true;
  case Space::Local:
    out = XSpace::Local;
    return true;
  case Space::Const:
    out = XSpace::Const;
    return true;
  case Space::Param:
    out = XSpace::ParamKernel;
    return true;
  default:
    return false;
  }
}

inline bool isArithFloat(Type t) {
  return t == Type::F32 || t == Type::F64 || t == Type::F16 ||
         t == Type::F16x2 || t == Type::BF16 || t == Type::BF16x2 ||
         t == Type::F32x2;
}

inline void applyCommonFlags(const Instruction &in, XInst &x) {
  if (in.has(ModId::Ftz))
    x.flags |= XF_Ftz;
  if (in.has(ModId::Sat))
    x.flags |= XF_Sat;
  if (in.has(ModId::Satfinite))
    x.flags |= XF_SatFinite;
  if (in.has(ModId::Relu))
    x.flags |= XF_Relu;
  if (in.has(ModId::Aligned))
    x.flags |= XF_Aligned;
  if (in.has(ModId::NaN))
    x.flags |= XF_NaN;
  if (in.has(ModId::Approx))
    x.flags |= XF_Approx;
  if (in.has(ModId::Noftz))
    x.flags |= XF_Noftz;
}

} // namespace

} // namespace nvfp4::emu

namespace nvfp4::emu {
namespace detail {

/// Registers of a function as the warp sees them.
struct RegSlot {
  bool isPred = false;
  uint32_t index = kNone; ///< row or predicate index
  unsigned bits = 0;      ///< declared width
  Type type = Type::None;
};

/// Address of a variable, resolved for one kernel.
struct VarAddr {
  XSpace space = XSpace::Generic;
  uint64_t addr = 0; ///< state-space address
  bool valid = false;
};

} // namespace detail

/// Decodes one kernel (and its callees) into a Program.
class Decoder {
public:
  using RegSlot = detail::RegSlot;
  using VarAddr = detail::VarAddr;

  Decoder(const Module &m, LoadedModule &lm, int32_t entry, Kernel &k,
          Program &p)
      : m_(m), lm_(lm), entry_(entry), k_(k), p_(p) {}

  Error run();

  /// Allocates the module's variables and decodes every kernel.
  static Error loadModule(std::shared_ptr<const Module> module,
                          Machine::GlobalMemory &mem, LoadedModule &out,
                          std::vector<std::unique_ptr<Kernel>> &kernels);

private:
  // Layout.
  Error collectFunctions();
  void layoutRegisters();
  Error layoutShared();
  void layoutFrames();
  void layoutParams();
  VarAddr symbolAddress(const SymbolRef &s, uint32_t fnIdx) const;

  // Instruction decoding. Each decode* returns false with err_ set.
  void decodeFunction(uint32_t fnIdx);
  bool decodeInst(const Instruction &in, XInst &x);
  bool fail(const std::string &msg) {
    err_ = msg;
    return false;
  }

  // Operand helpers.
  uint32_t constRow(uint64_t v);
  uint32_t sharedSymbolRow(uint64_t v);
  uint32_t specialRow(SpecialReg r, uint8_t comp);
  bool immediateValue(const Operand &op, Type t, uint64_t &v);
  bool src(const Instruction &in, unsigned i, Type t, uint32_t &enc);
  bool srcU32(const Instruction &in, unsigned i, uint32_t &enc) {
    return src(in, i, Type::U32, enc);
  }
  bool predSrc(const Instruction &in, unsigned i, XInst &x, unsigned slot);
  bool dst(const Instruction &in, unsigned i, Type t, XInst &x,
           bool allowSink = false);
  bool dstPred(const Instruction &in, unsigned i, uint32_t &idx,
               bool allowSink = false);
  bool address(const Instruction &in, unsigned i, XInst &x);
  bool regList(const Instruction &in, const Operand &vec, Type t, bool isDst,
               XInst &x);
  bool expectOperands(const Instruction &in, unsigned lo, unsigned hi);
  const RegSlot *regOf(const Operand &op) const;
  std::string opDesc(unsigned i) const;

  // Opcode families.
  bool decodeIntOrFloatBinary(const Instruction &in, XInst &x, XOp iop,
                              XOp fop);
  bool decodeMulMad(const Instruction &in, XInst &x, bool mad);
  bool decodeFloatUnary(const Instruction &in, XInst &x, XOp op);
  bool decodeSetp(const Instruction &in, XInst &x, bool isSet);
  bool decodeCvt(const Instruction &in, XInst &x);
  bool decodeMov(const Instruction &in, XInst &x);
  bool decodeLdSt(const Instruction &in, XInst &x, bool isLoad);
  bool decodeAtom(const Instruction &in, XInst &x, bool isRed);
  bool decodeBar(const Instruction &in, XInst &x);
  bool decodeMbarrier(const Instruction &in, XInst &x);
  bool decodeTma(const Instruction &in, XInst &x);
  bool decodeTcgen05(const Instruction &in, XInst &x);
  bool decodeTcgen05Mma(const Instruction &in, XInst &x);
  bool decodeBulk(const Instruction &in, XInst &x);
  bool decodeStAsync(const Instruction &in, XInst &x);
  bool decodeTcgen05Commit(const Instruction &in, XInst &x);
  bool decodeTcgen05CpShift(const Instruction &in, XInst &x);
  bool decodeWgmma(const Instruction &in, XInst &x);
  bool plainAddress(const Instruction &in, unsigned i, XSpace space,
                    uint32_t &enc, int64_t &imm);
  bool decodeCall(const Instruction &in, XInst &x);
  bool decodeMinMax(const Instruction &in, XInst &x, bool isMax);
  bool checkMods(const Instruction &in, std::initializer_list<ModId> allowed);
  bool setRounding(const Instruction &in, XInst &x, bool integerRounding);
  bool reaches(uint32_t from, uint32_t to) const;

  const Module &m_;
  LoadedModule &lm_;
  int32_t entry_;
  Kernel &k_;
  Program &p_;

  std::vector<int32_t> fnList_;         ///< module function indices
  std::map<int32_t, uint32_t> fnIndex_; ///< module index -> Program index
  std::vector<std::vector<RegSlot>> regs_;
  std::vector<std::vector<uint32_t>> localOffset_; ///< per fn, per local var
  std::vector<std::vector<uint32_t>> paramOffset_; ///< .func params
  std::vector<std::vector<uint32_t>> returnOffset_;
  std::vector<uint32_t> kernelParamOffset_;
  std::map<std::pair<uint32_t, uint32_t>, uint32_t>
      sharedOffset_; ///< (fn+1 or 0, var)
  std::map<uint64_t, uint32_t> constRows_;
  std::map<uint64_t, uint32_t> sharedSymbolRows_;
  std::map<std::pair<int, int>, uint32_t> specialRows_;
  uint32_t curFn_ = 0;
  std::string err_;
};

} // namespace nvfp4::emu

#endif // NVFP4_LIB_EMULATOR_DECODER_H
