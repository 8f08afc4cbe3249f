//===- Decoder.cpp - Parsed PTX to the executable Program -----------------===//
//
// For each .entry: collects the functions it calls, lays out registers,
// predicates, shared memory, local frames and parameters, and translates
// every instruction into an XInst (see Program.h). Instructions the
// executor does not implement, and malformed ones, become NotImplemented /
// Invalid XInsts carrying their message: they fail when executed, and are
// listed in Kernel::unsupported() at load time.
//
//===----------------------------------------------------------------------===//

#include "Decoder.h"

using namespace nvfp4::emu;
using namespace nvfp4::emu::ptx;


//===----------------------------------------------------------------------===//
// Layout
//===----------------------------------------------------------------------===//

Error Decoder::collectFunctions() {
  fnList_.push_back(entry_);
  fnIndex_[entry_] = 0;
  for (size_t i = 0; i < fnList_.size(); ++i) {
    const Function &f = m_.functions[fnList_[i]];
    for (const Instruction &in : f.body) {
      if (in.opcode != Opcode::Call)
        continue;
      for (const Operand &op : in.operands)
        if (op.kind == Operand::Kind::Symbol &&
            op.sym.kind == SymbolKind::Function &&
            !fnIndex_.count(op.sym.index)) {
          fnIndex_[op.sym.index] = static_cast<uint32_t>(fnList_.size());
          fnList_.push_back(op.sym.index);
        }
    }
  }
  return Error::success();
}

void Decoder::layoutRegisters() {
  p_.numRows = 0;
  p_.numPreds = 0;
  regs_.resize(fnList_.size());
  for (size_t i = 0; i < fnList_.size(); ++i) {
    const Function &f = m_.functions[fnList_[i]];
    regs_[i].resize(f.regs.size());
    for (size_t r = 0; r < f.regs.size(); ++r) {
      RegSlot &s = regs_[i][r];
      s.type = f.regs[r].type;
      s.bits = typeBits(s.type);
      if (s.type == Type::Pred) {
        s.isPred = true;
        s.index = p_.numPreds++;
      } else {
        s.index = p_.numRows++;
      }
    }
  }
  p_.predFalse = p_.numPreds++;
  p_.predTrue = p_.numPreds++;
  p_.functions.resize(fnList_.size());
  for (size_t i = 1; i < fnList_.size(); ++i)
    p_.functions[i].retPcRow = p_.numRows++;
}

Error Decoder::layoutShared() {
  // Module-scope shared variables, then function-scope ones of every
  // function the kernel reaches, in declaration order.
  uint64_t off = 0;
  uint32_t externAlign = 16;
  auto place = [&](const Variable &v, uint32_t key1, uint32_t key2) -> Error {
    if (v.isExtern || (!v.dims.empty() && v.dims[0] == 0)) {
      externAlign = std::max(externAlign, v.effectiveAlign());
      sharedOffset_[{key1, key2}] = kNone; // patched below
      return Error::success();
    }
    off = (off + v.effectiveAlign() - 1) & ~uint64_t(v.effectiveAlign() - 1);
    sharedOffset_[{key1, key2}] = static_cast<uint32_t>(off);
    off += v.sizeBytes();
    if (off > Machine::kMaxSharedBytesPerCta) {
      if (p_.layoutError.empty())
        p_.layoutError = "kernel '" + k_.name_ + "' declares more than " +
                         std::to_string(Machine::kMaxSharedBytesPerCta) +
                         " bytes of static shared memory";
      off = Machine::kMaxSharedBytesPerCta;
    }
    return Error::success();
  };
  for (size_t g = 0; g < m_.globals.size(); ++g)
    if (m_.globals[g].space == Space::Shared)
      if (Error e = place(m_.globals[g], 0, static_cast<uint32_t>(g)))
        return e;
  for (size_t i = 0; i < fnList_.size(); ++i) {
    const Function &f = m_.functions[fnList_[i]];
    for (size_t v = 0; v < f.locals.size(); ++v)
      if (f.locals[v].space == Space::Shared)
        if (Error e = place(f.locals[v], static_cast<uint32_t>(i + 1),
                            static_cast<uint32_t>(v)))
          return e;
  }
  p_.staticShared = static_cast<uint32_t>(off);
  p_.externSharedOffset = alignUp32(off, externAlign);
  for (auto &kv : sharedOffset_)
    if (kv.second == kNone)
      kv.second = p_.externSharedOffset;
  k_.staticShared_ = p_.staticShared;
  k_.dynamicSharedAlign_ = externAlign;
  return Error::success();
}

void Decoder::layoutFrames() {
  // Each function's frame: local variables and call-argument .param
  // variables, then (for .func) formal parameters and return slots.
  size_t n = fnList_.size();
  localOffset_.resize(n);
  paramOffset_.resize(n);
  returnOffset_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const Function &f = m_.functions[fnList_[i]];
    uint64_t off = 0;
    auto place = [&](const Variable &v) {
      uint32_t a = v.effectiveAlign();
      off = (off + a - 1) & ~uint64_t(a - 1);
      uint32_t at = static_cast<uint32_t>(std::min<uint64_t>(off, 1u << 30));
      off = std::min<uint64_t>(off + v.sizeBytes(), uint64_t(1) << 31);
      return at;
    };
    localOffset_[i].assign(f.locals.size(), 0);
    for (size_t v = 0; v < f.locals.size(); ++v)
      if (f.locals[v].space == Space::Local ||
          f.locals[v].space == Space::Param)
        localOffset_[i][v] = place(f.locals[v]);
    if (i != 0) {
      for (const Variable &v : f.params)
        paramOffset_[i].push_back(place(v));
      for (const Variable &v : f.returns)
        returnOffset_[i].push_back(place(v));
    }
    p_.functions[i].fn = &f;
    p_.functions[i].frameBytes =
        alignUp32(std::min<uint64_t>(off, 1u << 30), 16);
  }
  // Static frame offsets: a callee's frame sits above every caller's frame
  // (the call graph has no cycles; recursive calls are rejected).
  std::vector<uint32_t> depthOrder;
  bool changed = true;
  for (unsigned iter = 0; changed && iter < n + 1; ++iter) {
    changed = false;
    for (size_t i = 0; i < n; ++i) {
      const Function &f = m_.functions[fnList_[i]];
      for (const Instruction &in : f.body) {
        if (in.opcode != Opcode::Call)
          continue;
        for (const Operand &op : in.operands)
          if (op.kind == Operand::Kind::Symbol &&
              op.sym.kind == SymbolKind::Function) {
            uint32_t c = fnIndex_[op.sym.index];
            uint32_t want =
                p_.functions[i].frameOffset + p_.functions[i].frameBytes;
            if (c != i && p_.functions[c].frameOffset < want &&
                want < (1u << 30)) {
              p_.functions[c].frameOffset = want;
              changed = true;
            }
          }
      }
    }
  }
  uint64_t total = 0;
  for (const XFunction &xf : p_.functions)
    total = std::max<uint64_t>(total, uint64_t(xf.frameOffset) + xf.frameBytes);
  if (total > kMaxLocalBytes) {
    if (p_.layoutError.empty())
      p_.layoutError = "kernel '" + k_.name_ + "' needs " +
                       std::to_string(total) +
                       " bytes of local memory per thread (limit " +
                       std::to_string(kMaxLocalBytes) + ")";
    total = 0;
  }
  p_.localBytes = static_cast<uint32_t>(total);
  k_.localBytes_ = static_cast<uint32_t>(total);
}

void Decoder::layoutParams() {
  const Function &f = m_.functions[entry_];
  uint64_t off = 0;
  for (const Variable &v : f.params) {
    uint32_t a = v.effectiveAlign();
    off = (off + a - 1) & ~uint64_t(a - 1);
    ParamInfo pi;
    pi.name = v.name;
    pi.type = v.type;
    pi.offset = static_cast<uint32_t>(off);
    pi.size = static_cast<uint32_t>(v.sizeBytes());
    pi.align = a;
    kernelParamOffset_.push_back(pi.offset);
    k_.params_.push_back(pi);
    off += v.sizeBytes();
    if (off > (1u << 20)) {
      if (p_.layoutError.empty())
        p_.layoutError =
            "kernel '" + k_.name_ + "' has more than 1 MiB of parameters";
      off = 1u << 20;
    }
  }
  k_.paramBytes_ = static_cast<uint32_t>(off);
}

Decoder::VarAddr Decoder::symbolAddress(const SymbolRef &s,
                                        uint32_t fnIdx) const {
  VarAddr a;
  const Function &f = m_.functions[fnList_[fnIdx]];
  switch (s.kind) {
  case SymbolKind::ModuleVar: {
    const Variable &v = m_.globals[s.index];
    if (v.space == Space::Global) {
      a.space = XSpace::Global;
      a.addr = lm_.globalAddr_[s.index];
    } else if (v.space == Space::Const) {
      a.space = XSpace::Const;
      a.addr = lm_.constOffset_[s.index];
    } else if (v.space == Space::Shared) {
      a.space = XSpace::Shared;
      auto it = sharedOffset_.find({0u, static_cast<uint32_t>(s.index)});
      if (it == sharedOffset_.end())
        return a;
      a.addr = it->second;
    } else {
      return a;
    }
    a.valid = true;
    return a;
  }
  case SymbolKind::LocalVar: {
    const Variable &v = f.locals[s.index];
    if (v.space == Space::Shared) {
      auto it = sharedOffset_.find({fnIdx + 1, static_cast<uint32_t>(s.index)});
      if (it == sharedOffset_.end())
        return a;
      a.space = XSpace::Shared;
      a.addr = it->second;
    } else if (v.space == Space::Local || v.space == Space::Param) {
      a.space = XSpace::Local;
      a.addr = p_.functions[fnIdx].frameOffset + localOffset_[fnIdx][s.index];
    } else {
      return a;
    }
    a.valid = true;
    return a;
  }
  case SymbolKind::Param:
    if (fnIdx == 0) {
      a.space = XSpace::ParamKernel;
      a.addr = kernelParamOffset_[s.index];
    } else {
      if (f.params[s.index].space != Space::Param)
        return a;
      a.space = XSpace::Local;
      a.addr = p_.functions[fnIdx].frameOffset + paramOffset_[fnIdx][s.index];
    }
    a.valid = true;
    return a;
  case SymbolKind::Return:
    if (fnIdx == 0 || f.returns[s.index].space != Space::Param)
      return a;
    a.space = XSpace::Local;
    a.addr = p_.functions[fnIdx].frameOffset + returnOffset_[fnIdx][s.index];
    a.valid = true;
    return a;
  case SymbolKind::Function:
    a.space = XSpace::Generic;
    a.addr = 0x0000'7500'0000'0000ull + uint64_t(s.index) * 16;
    a.valid = true;
    return a;
  case SymbolKind::None:
    break;
  }
  return a;
}

bool Decoder::reaches(uint32_t from, uint32_t to) const {
  std::vector<bool> seen(fnList_.size(), false);
  std::vector<uint32_t> stack{from};
  while (!stack.empty()) {
    uint32_t f = stack.back();
    stack.pop_back();
    if (f == to)
      return true;
    if (seen[f])
      continue;
    seen[f] = true;
    for (const Instruction &in : m_.functions[fnList_[f]].body) {
      if (in.opcode != Opcode::Call)
        continue;
      for (const Operand &op : in.operands)
        if (op.kind == Operand::Kind::Symbol &&
            op.sym.kind == SymbolKind::Function) {
          auto it = fnIndex_.find(op.sym.index);
          if (it != fnIndex_.end())
            stack.push_back(it->second);
        }
    }
  }
  return false;
}

//===----------------------------------------------------------------------===//
// Operands
//===----------------------------------------------------------------------===//

uint32_t Decoder::constRow(uint64_t v) {
  auto it = constRows_.find(v);
  if (it != constRows_.end())
    return it->second;
  uint32_t idx = static_cast<uint32_t>(p_.constPool.size() / 32);
  p_.constPool.insert(p_.constPool.end(), 32, v);
  uint32_t enc = idx | kConstBit;
  constRows_[v] = enc;
  return enc;
}

uint32_t Decoder::sharedSymbolRow(uint64_t v) {
  auto it = sharedSymbolRows_.find(v);
  if (it != sharedSymbolRows_.end())
    return it->second;
  uint32_t idx = static_cast<uint32_t>(p_.constPool.size() / 32);
  p_.constPool.insert(p_.constPool.end(), 32, v);
  p_.sharedSymbolRows.push_back(idx);
  uint32_t enc = idx | kConstBit;
  sharedSymbolRows_[v] = enc;
  return enc;
}

uint32_t Decoder::specialRow(SpecialReg r, uint8_t comp) {
  auto key = std::make_pair(static_cast<int>(r), static_cast<int>(comp));
  auto it = specialRows_.find(key);
  if (it != specialRows_.end())
    return it->second;
  uint32_t row = p_.numRows++;
  p_.specials.push_back({row, r, comp});
  specialRows_[key] = row;
  return row;
}

std::string Decoder::opDesc(unsigned i) const {
  static const char *kOrd[] = {"first", "second", "third",   "fourth",
                               "fifth", "sixth",  "seventh", "eighth"};
  return i < 8 ? std::string(kOrd[i]) + " operand"
               : "operand " + std::to_string(i + 1);
}

const Decoder::RegSlot *Decoder::regOf(const Operand &op) const {
  if (op.kind != Operand::Kind::Register || op.reg < 0 ||
      static_cast<size_t>(op.reg) >= regs_[curFn_].size())
    return nullptr;
  return &regs_[curFn_][op.reg];
}

bool Decoder::expectOperands(const Instruction &in, unsigned lo, unsigned hi) {
  size_t n = in.operands.size();
  if (n >= lo && n <= hi)
    return true;
  std::string want = lo == hi
                         ? std::to_string(lo)
                         : std::to_string(lo) + " to " + std::to_string(hi);
  return fail("'" + in.mnemonic + "' takes " + want + " operands, found " +
              std::to_string(n));
}

bool Decoder::immediateValue(const Operand &op, Type t, uint64_t &v) {
  unsigned bits = typeBits(t);
  if (op.kind == Operand::Kind::Imm) {
    if (t == Type::F32) {
      v = fp::bitsOf(static_cast<float>(op.imm));
    } else if (t == Type::F64) {
      v = fp::bitsOf(static_cast<double>(op.imm));
    } else if (t == Type::Pred) {
      v = op.imm != 0;
    } else {
      v = static_cast<uint64_t>(op.imm) & maskBits(bits);
    }
    return true;
  }
  if (op.kind == Operand::Kind::FloatImm) {
    double d = op.isDouble ? fp::f64FromBits(op.fbits)
                           : static_cast<double>(fp::f32FromBits(
                                 static_cast<uint32_t>(op.fbits)));
    if (t == Type::F32) {
      v = op.isDouble ? fp::bitsOf(static_cast<float>(d)) : op.fbits;
    } else if (t == Type::F64) {
      v = op.isDouble ? op.fbits : fp::bitsOf(d);
    } else if (t == Type::F16 || t == Type::BF16) {
      fp::EncodeOptions o;
      v = fp::encode(t == Type::F16 ? fp::kF16 : fp::kBF16, fp::unpackDouble(d),
                     o);
    } else if (bits == 32 && !op.isDouble) {
      v = op.fbits;
    } else if (bits == 64 && op.isDouble) {
      v = op.fbits;
    } else if (bits == 32) {
      v = fp::bitsOf(static_cast<float>(d));
    } else if (bits == 64) {
      v = fp::bitsOf(d);
    } else {
      return fail("floating-point constant cannot be used as a ." +
                  std::string(typeName(t)) + " operand");
    }
    return true;
  }
  return false;
}

bool Decoder::src(const Instruction &in, unsigned i, Type t, uint32_t &enc) {
  if (i >= in.operands.size())
    return fail("'" + in.mnemonic + "' is missing its " + opDesc(i));
  const Operand &op = in.operands[i];
  unsigned bits = typeBits(t);
  switch (op.kind) {
  case Operand::Kind::Register: {
    const RegSlot *r = regOf(op);
    if (!r)
      return fail("bad register in the " + opDesc(i));
    if (r->isPred)
      return fail(opDesc(i) + " of '" + in.mnemonic +
                  "' is a predicate register; a ." + typeName(t) +
                  " value is needed");
    if (r->bits < bits)
      return fail(opDesc(i) + " of '" + in.mnemonic + "' is the " +
                  std::to_string(r->bits) + "-bit register '" +
                  m_.functions[fnList_[curFn_]].regs[op.reg].name +
                  "'; the instruction needs at least " + std::to_string(bits) +
                  " bits");
    if (op.negated)
      return fail("'!' on a non-predicate operand");
    enc = r->index;
    return true;
  }
  case Operand::Kind::Special:
    if (op.sreg == SpecialReg::Clock || op.sreg == SpecialReg::ClockHi ||
        op.sreg == SpecialReg::Clock64 || op.sreg == SpecialReg::Globaltimer ||
        op.sreg == SpecialReg::GlobaltimerLo ||
        op.sreg == SpecialReg::GlobaltimerHi)
      return fail("%" + std::string(specialRegName(op.sreg)) +
                  " may only be read by mov");
    enc = specialRow(op.sreg, op.comp);
    return true;
  case Operand::Kind::Imm:
  case Operand::Kind::FloatImm: {
    uint64_t v;
    if (!immediateValue(op, t, v))
      return false;
    enc = constRow(v);
    return true;
  }
  case Operand::Kind::Symbol: {
    VarAddr a = symbolAddress(op.sym, curFn_);
    if (!a.valid)
      return fail("the address of this symbol cannot be taken");
    uint64_t v = a.addr + static_cast<uint64_t>(op.imm);
    if (op.generic) {
      switch (a.space) {
      case XSpace::Shared:
        v = addrspace::kSharedWindow + v;
        break;
      case XSpace::Local:
        v = addrspace::kLocalWindow + v;
        break;
      case XSpace::Const:
        v = addrspace::kConstWindow + v;
        break;
      case XSpace::ParamKernel:
        v = addrspace::kParamWindow + v;
        break;
      default:
        break;
      }
    }
    enc = a.space == XSpace::Shared ? sharedSymbolRow(v & maskBits(bits))
                                    : constRow(v & maskBits(bits));
    return true;
  }
  case Operand::Kind::Sink:
    return fail("'_' cannot be a source operand");
  case Operand::Kind::Address:
    return fail(opDesc(i) + " of '" + in.mnemonic +
                "' is an address; a register or constant is needed");
  case Operand::Kind::Vector:
    return fail(opDesc(i) + " of '" + in.mnemonic +
                "' is a vector; a register or constant is needed");
  case Operand::Kind::Label:
    return fail(opDesc(i) + " of '" + in.mnemonic +
                "' is a label; a register or constant is needed");
  case Operand::Kind::List:
    return fail("unexpected parenthesized list");
  }
  return fail("unsupported operand");
}

bool Decoder::predSrc(const Instruction &in, unsigned i, XInst &x,
                      unsigned slot) {
  if (i >= in.operands.size())
    return fail("'" + in.mnemonic + "' is missing its " + opDesc(i));
  const Operand &op = in.operands[i];
  if (op.kind == Operand::Kind::Imm) {
    x.src[slot] = op.imm ? p_.predTrue : p_.predFalse;
    return true;
  }
  const RegSlot *r = regOf(op);
  if (!r || !r->isPred)
    return fail(opDesc(i) + " of '" + in.mnemonic +
                "' must be a predicate register");
  x.src[slot] = r->index;
  if (op.negated)
    x.srcNeg |= static_cast<uint8_t>(1u << slot);
  return true;
}

bool Decoder::dst(const Instruction &in, unsigned i, Type t, XInst &x,
                  bool allowSink) {
  if (i >= in.operands.size())
    return fail("'" + in.mnemonic + "' is missing its destination");
  const Operand &op = in.operands[i];
  if (op.kind == Operand::Kind::Sink && allowSink) {
    x.dst = kNone;
    return true;
  }
  const RegSlot *r = regOf(op);
  if (!r)
    return fail("destination of '" + in.mnemonic + "' must be a register");
  if (r->isPred)
    return fail("destination of '" + in.mnemonic +
                "' is a predicate register; a ." + typeName(t) +
                " register is needed");
  unsigned bits = typeBits(t);
  if (r->bits < bits)
    return fail("destination '" +
                m_.functions[fnList_[curFn_]].regs[op.reg].name + "' has " +
                std::to_string(r->bits) + " bits; '" + in.mnemonic +
                "' writes " + std::to_string(bits));
  x.dst = r->index;
  x.dstTypeMask = maskBits(bits);
  x.dstRegMask = maskBits(r->bits);
  x.dstSextShift = (isSigned(t) && r->bits > bits && bits < 64)
                       ? static_cast<uint8_t>(64 - bits)
                       : 0;
  return true;
}

bool Decoder::dstPred(const Instruction &in, unsigned i, uint32_t &idx,
                      bool allowSink) {
  if (i >= in.operands.size())
    return fail("'" + in.mnemonic + "' is missing its predicate destination");
  const Operand &op = in.operands[i];
  if (op.kind == Operand::Kind::Sink && allowSink) {
    idx = kNone;
    return true;
  }
  const RegSlot *r = regOf(op);
  if (!r || !r->isPred)
    return fail("destination of '" + in.mnemonic +
                "' must be a predicate register");
  idx = r->index;
  return true;
}

bool Decoder::address(const Instruction &in, unsigned i, XInst &x) {
  if (i >= in.operands.size())
    return fail("'" + in.mnemonic + "' is missing its address operand");
  const Operand &op = in.operands[i];
  if (op.kind != Operand::Kind::Address)
    return fail(opDesc(i) + " of '" + in.mnemonic +
                "' must be an address [...]");
  if (op.elems.size() != 1)
    return fail("'" + in.mnemonic + "' takes a plain address, not [a, b]");
  const Operand &base = op.elems[0];
  x.imm = op.imm;
  if (base.kind == Operand::Kind::Imm) {
    x.src[0] = constRow(0);
    x.imm = op.imm;
    return true;
  }
  if (base.kind == Operand::Kind::Symbol) {
    VarAddr a = symbolAddress(base.sym, curFn_);
    if (!a.valid)
      return fail("cannot address this symbol");
    uint64_t v = a.addr;
    // A symbol names its own space; generic instructions see the window.
    if (x.space == XSpace::Generic) {
      switch (a.space) {
      case XSpace::Shared:
        v += addrspace::kSharedWindow;
        break;
      case XSpace::Local:
        v += addrspace::kLocalWindow;
        break;
      case XSpace::Const:
        v += addrspace::kConstWindow;
        break;
      case XSpace::ParamKernel:
        v += addrspace::kParamWindow;
        break;
      default:
        break;
      }
    } else if (x.space == XSpace::SharedCluster && a.space == XSpace::Shared) {
      // shared::cta addresses are shared::cluster addresses of this CTA.
    } else if (a.space != x.space &&
               !(x.space == XSpace::ParamKernel && a.space == XSpace::Local)) {
      return fail("'" + std::string(m_.functions[fnList_[curFn_]].name) +
                  "': symbol is not in the ." +
                  std::string(in.mnemonic.substr(0, in.mnemonic.find('.'))) +
                  " instruction's state space");
    }
    if (x.space == XSpace::ParamKernel && a.space == XSpace::Local)
      x.space = XSpace::Local; // .param of a .func or a call argument
    x.src[0] = a.space == XSpace::Shared ? sharedSymbolRow(v) : constRow(v);
    return true;
  }
  if (base.kind == Operand::Kind::Register) {
    const RegSlot *r = regOf(base);
    if (!r || r->isPred)
      return fail("address base must be a 32- or 64-bit register");
    if (r->bits < 32)
      return fail("address base register must have 32 or 64 bits");
    x.src[0] = r->index;
    return true;
  }
  return fail("unsupported address form");
}

bool Decoder::plainAddress(const Instruction &in, unsigned i, XSpace space,
                           uint32_t &enc, int64_t &imm) {
  XInst t;
  t.space = space;
  if (!address(in, i, t))
    return false;
  enc = t.src[0];
  imm = t.imm;
  return true;
}


bool Decoder::regList(const Instruction &in, const Operand &vec, Type t,
                      bool isDst, XInst &x) {
  x.listBegin = static_cast<uint32_t>(p_.lists.size());
  x.listCount = static_cast<uint32_t>(vec.elems.size());
  unsigned bits = typeBits(t);
  for (const Operand &e : vec.elems) {
    if (e.kind == Operand::Kind::Sink) {
      if (!isDst)
        return fail("'_' in a source vector of '" + in.mnemonic + "'");
      p_.lists.push_back(kNone);
      continue;
    }
    if (isDst) {
      const RegSlot *r = regOf(e);
      if (!r || r->isPred)
        return fail("vector elements of '" + in.mnemonic +
                    "' must be registers");
      if (r->bits < bits)
        return fail("vector element register of '" + in.mnemonic + "' has " +
                    std::to_string(r->bits) + " bits; " + std::to_string(bits) +
                    " are needed");
      p_.lists.push_back(r->index);
      x.dstRegMask = maskBits(r->bits);
      x.dstTypeMask = maskBits(bits);
      x.dstSextShift = (isSigned(t) && r->bits > bits && bits < 64)
                           ? static_cast<uint8_t>(64 - bits)
                           : 0;
    } else {
      uint32_t enc;
      Instruction tmp;
      tmp.mnemonic = in.mnemonic;
      tmp.operands.push_back(e);
      if (!src(tmp, 0, t, enc))
        return false;
      p_.lists.push_back(enc);
    }
  }
  return true;
}

bool Decoder::checkMods(const Instruction &in,
                        std::initializer_list<ModId> allowed) {
  for (const Modifier &m : in.mods) {
    if (m.id == ModId::Type)
      continue;
    if (m.id == ModId::Unknown)
      return fail("unsupported modifier '." + in.unknownMods[m.value] +
                  "' in '" + in.mnemonic + "'");
    bool ok = false;
    for (ModId a : allowed)
      ok |= a == m.id;
    if (!ok) {
      std::string name = modName(m.id);
      if (m.id == ModId::Vec)
        name = "v" + std::to_string(m.value);
      else if (m.id == ModId::Count)
        name = "x" + std::to_string(m.value);
      else if (m.id == ModId::CtaGroup)
        name = "cta_group::" + std::to_string(m.value);
      else if (m.id == ModId::CollectorB) {
        static const char *const kOps[] = {"fill", "use", "lastuse", "discard"};
        name = "collector::b" + std::to_string(m.value / 4) +
               "::" + kOps[m.value % 4];
      }
      return fail("modifier '." + name + "' is not supported on '" +
                  std::string(opcodeName(in.opcode)) +
                  "' by the emulator (in '" + in.mnemonic + "')");
    }
  }
  return true;
}

bool Decoder::setRounding(const Instruction &in, XInst &x,
                          bool integerRounding) {
  for (const Modifier &m : in.mods) {
    uint8_t r = XR_None;
    switch (m.id) {
    case ModId::Rn:
      r = XR_Rn;
      break;
    case ModId::Rna:
      r = XR_Rna;
      break;
    case ModId::Rz:
      r = XR_Rz;
      break;
    case ModId::Rm:
      r = XR_Rm;
      break;
    case ModId::Rp:
      r = XR_Rp;
      break;
    case ModId::Rni:
      r = XR_Rni;
      break;
    case ModId::Rzi:
      r = XR_Rzi;
      break;
    case ModId::Rmi:
      r = XR_Rmi;
      break;
    case ModId::Rpi:
      r = XR_Rpi;
      break;
    case ModId::Rs:
      return fail("stochastic rounding (.rs) is not implemented yet in '" +
                  in.mnemonic + "'");
    default:
      continue;
    }
    if (x.rnd != XR_None)
      return fail("two rounding modifiers in '" + in.mnemonic + "'");
    if (!integerRounding && r >= XR_Rni)
      return fail("integer rounding modifier in '" + in.mnemonic + "'");
    x.rnd = r;
  }
  return true;
}


bool Decoder::decodeCall(const Instruction &in, XInst &x) {
  if (!checkMods(in, {ModId::Uni}))
    return false;
  // call{.uni} (rets), func, (args);   call func, (args);   call func;
  size_t i = 0;
  const Operand *rets = nullptr, *args = nullptr, *callee = nullptr;
  if (i < in.operands.size() && in.operands[i].kind == Operand::Kind::List)
    rets = &in.operands[i++];
  if (i < in.operands.size())
    callee = &in.operands[i++];
  if (i < in.operands.size() && in.operands[i].kind == Operand::Kind::List)
    args = &in.operands[i++];
  if (!callee)
    return fail("'call' needs a target");
  if (callee->kind != Operand::Kind::Symbol ||
      callee->sym.kind != SymbolKind::Function)
    return fail("indirect calls are not implemented yet");
  if (i != in.operands.size())
    return fail("indirect calls with a prototype are not implemented yet");
  auto it = fnIndex_.find(callee->sym.index);
  if (it == fnIndex_.end())
    return fail("internal: callee not collected");
  uint32_t ci = it->second;
  const Function &f = m_.functions[callee->sym.index];
  // CUDA's device printf: the extern vprintf(format, argument buffer).
  bool printf = !f.hasBody && f.name == "vprintf";
  if (!f.hasBody && !printf)
    return fail("call of '" + f.name +
                "', which has no body (of the extern functions only vprintf "
                "is implemented)");
  if (printf && (!args || args->elems.size() != 2 ||
                 (rets && rets->elems.size() != 1)))
    return fail("vprintf takes two arguments (the format and the argument "
                "buffer, both 64-bit addresses) and returns one value");
  if (!printf && (ci == 0 || ci == curFn_ || reaches(ci, curFn_)))
    return fail("recursive call of '" + f.name + "' is not supported");
  size_t nargs = args ? args->elems.size() : 0;
  size_t nrets = rets ? rets->elems.size() : 0;
  if (nargs != f.params.size() || nrets != f.returns.size())
    return fail("call of '" + f.name + "' passes " + std::to_string(nargs) +
                " arguments and " + std::to_string(nrets) +
                " results; the function has " +
                std::to_string(f.params.size()) + " and " +
                std::to_string(f.returns.size()));
  CallSite cs;
  cs.callee = ci;
  auto varOf = [&](const Operand &e, uint32_t &off, uint32_t &bytes) {
    if (e.kind != Operand::Kind::Symbol)
      return fail("call arguments must be .param variables");
    VarAddr a = symbolAddress(e.sym, curFn_);
    if (!a.valid || a.space != XSpace::Local)
      return fail("call arguments must be .param variables of the caller");
    off = static_cast<uint32_t>(a.addr);
    const Function &cf = m_.functions[fnList_[curFn_]];
    if (e.sym.kind == SymbolKind::LocalVar)
      bytes = static_cast<uint32_t>(cf.locals[e.sym.index].sizeBytes());
    else if (e.sym.kind == SymbolKind::Param)
      bytes = static_cast<uint32_t>(cf.params[e.sym.index].sizeBytes());
    else if (e.sym.kind == SymbolKind::Return)
      bytes = static_cast<uint32_t>(cf.returns[e.sym.index].sizeBytes());
    return true;
  };
  if (printf) {
    // argSrc: the caller's .param slots of the two addresses; retDst: the
    // return slot (if any). Executor::execVprintf formats on the host.
    for (size_t a = 0; a < 2; ++a) {
      uint32_t off, bytes = 0;
      if (!varOf(args->elems[a], off, bytes))
        return false;
      if (bytes < 8)
        return fail("vprintf's arguments are 64-bit addresses");
      cs.argSrc.push_back(off);
    }
    if (rets) {
      uint32_t off, bytes = 0;
      if (!varOf(rets->elems[0], off, bytes))
        return false;
      cs.retDst.push_back(off);
      cs.retBytes.push_back(std::min<uint32_t>(bytes, 4));
    }
    x.op = XOp::Vprintf;
    x.imm = static_cast<int64_t>(p_.calls.size());
    p_.calls.push_back(std::move(cs));
    return true;
  }
  for (size_t a = 0; a < nargs; ++a) {
    uint32_t off, bytes = 0;
    if (!varOf(args->elems[a], off, bytes))
      return false;
    if (f.params[a].space != Space::Param)
      return fail(".reg parameters are not supported in calls");
    cs.argSrc.push_back(off);
    cs.argDst.push_back(p_.functions[ci].frameOffset + paramOffset_[ci][a]);
    cs.argBytes.push_back(static_cast<uint32_t>(
        std::min<uint64_t>(bytes, f.params[a].sizeBytes())));
  }
  for (size_t r = 0; r < nrets; ++r) {
    uint32_t off, bytes = 0;
    if (!varOf(rets->elems[r], off, bytes))
      return false;
    if (f.returns[r].space != Space::Param)
      return fail(".reg return values are not supported in calls");
    cs.retDst.push_back(off);
    cs.retSrc.push_back(p_.functions[ci].frameOffset + returnOffset_[ci][r]);
    cs.retBytes.push_back(static_cast<uint32_t>(
        std::min<uint64_t>(bytes, f.returns[r].sizeBytes())));
  }
  x.op = XOp::Call;
  x.imm = static_cast<int64_t>(p_.calls.size());
  p_.calls.push_back(std::move(cs));
  return true;
}

bool Decoder::decodeInst(const Instruction &in, XInst &x) {
  Type t = in.type(0);
  auto notYet = [&]() {
    x.op = XOp::NotImplemented;
    err_ = "not implemented yet: " + in.mnemonic;
    return false;
  };
  switch (in.opcode) {
  case Opcode::Unknown:
    x.op = XOp::NotImplemented;
    err_ = "unknown instruction '" + in.mnemonic + "'";
    return false;

  // Integer and float arithmetic.
  case Opcode::Add:
    return decodeIntOrFloatBinary(in, x, XOp::IAdd, XOp::FAdd);
  case Opcode::Sub:
    return decodeIntOrFloatBinary(in, x, XOp::ISub, XOp::FSub);
  case Opcode::AddC:
    return decodeIntOrFloatBinary(in, x, XOp::IAddC, XOp::FAdd);
  case Opcode::SubC:
    return decodeIntOrFloatBinary(in, x, XOp::ISubC, XOp::FSub);
  case Opcode::Mul:
  case Opcode::Mul24:
    return decodeMulMad(in, x, false);
  case Opcode::Mad:
  case Opcode::Mad24:
  case Opcode::MadC:
    return decodeMulMad(in, x, true);
  case Opcode::Fma: {
    if (!isArithFloat(t) || in.numTypes() != 1)
      return fail("'" + in.mnemonic + "' needs one floating-point type");
    if (!checkMods(in, {ModId::Rn, ModId::Rz, ModId::Rm, ModId::Rp, ModId::Ftz,
                        ModId::Sat, ModId::Relu, ModId::Oob}))
      return false;
    if (in.has(ModId::Oob))
      return notYet();
    if (!expectOperands(in, 4, 4))
      return false;
    x.op = XOp::FFma;
    x.type = t;
    applyCommonFlags(in, x);
    if (!setRounding(in, x, false))
      return false;
    if (x.rnd == XR_None)
      return fail("'" + in.mnemonic + "' needs a rounding modifier");
    return dst(in, 0, t, x) && src(in, 1, t, x.src[0]) &&
           src(in, 2, t, x.src[1]) && src(in, 3, t, x.src[2]);
  }
  case Opcode::Div:
  case Opcode::Rem: {
    if (in.numTypes() != 1)
      return fail("'" + in.mnemonic + "' needs exactly one type");
    if (!expectOperands(in, 3, 3))
      return false;
    x.type = t;
    if (isIntType(t) && typeBits(t) >= 16) {
      if (!checkMods(in, {}))
        return false;
      x.op = in.opcode == Opcode::Div ? XOp::IDiv : XOp::IRem;
    } else if (in.opcode == Opcode::Div && (t == Type::F32 || t == Type::F64)) {
      if (!checkMods(in, {ModId::Rn, ModId::Rz, ModId::Rm, ModId::Rp,
                          ModId::Approx, ModId::Full, ModId::Ftz}))
        return false;
      x.op = XOp::FDiv;
      applyCommonFlags(in, x);
      if (!setRounding(in, x, false))
        return false;
      x.sub = in.has(ModId::Approx) ? 1 : in.has(ModId::Full) ? 2 : 0;
      if (x.sub == 0 && x.rnd == XR_None)
        return fail("'" + in.mnemonic +
                    "' needs .approx, .full or a "
                    "rounding modifier");
      if (t == Type::F64 && x.sub != 0)
        return fail("div.f64 needs a rounding modifier");
    } else {
      return fail("'" + in.mnemonic + "' has an unsupported type");
    }
    return dst(in, 0, t, x) && src(in, 1, t, x.src[0]) &&
           src(in, 2, t, x.src[1]);
  }
  case Opcode::Abs:
  case Opcode::Neg: {
    if (isIntType(t)) {
      if (!checkMods(in, {}) || !expectOperands(in, 2, 2))
        return false;
      if (!isSigned(t))
        return fail("'" + in.mnemonic + "' needs a signed type");
      x.op = in.opcode == Opcode::Abs ? XOp::IAbs : XOp::INeg;
      x.type = t;
      return dst(in, 0, t, x) && src(in, 1, t, x.src[0]);
    }
    return decodeFloatUnary(in, x,
                            in.opcode == Opcode::Abs ? XOp::FAbs : XOp::FNeg);
  }
  case Opcode::Min:
  case Opcode::Max:
    return decodeMinMax(in, x, in.opcode == Opcode::Max);
  case Opcode::Popc:
  case Opcode::Clz:
  case Opcode::Brev:
  case Opcode::Bfind:
  case Opcode::Not:
  case Opcode::Cnot: {
    if (in.numTypes() != 1)
      return fail("'" + in.mnemonic + "' needs exactly one type");
    if (!expectOperands(in, 2, 2))
      return false;
    x.type = t;
    if (in.opcode == Opcode::Not && t == Type::Pred) {
      if (!checkMods(in, {}))
        return false;
      x.op = XOp::PNot;
      return dstPred(in, 0, x.dst) && predSrc(in, 1, x, 0);
    }
    if (!checkMods(in, {ModId::Shiftamt}))
      return false;
    if (!isIntType(t))
      return fail("'" + in.mnemonic + "' needs an integer type");
    Type dt = t;
    switch (in.opcode) {
    case Opcode::Popc:
      x.op = XOp::IPopc;
      dt = Type::U32;
      break;
    case Opcode::Clz:
      x.op = XOp::IClz;
      dt = Type::U32;
      break;
    case Opcode::Brev:
      x.op = XOp::IBrev;
      break;
    case Opcode::Bfind:
      x.op = XOp::IBfind;
      dt = Type::U32;
      x.sub = in.has(ModId::Shiftamt);
      break;
    case Opcode::Not:
      x.op = XOp::INot;
      break;
    default:
      x.op = XOp::ICnot;
      break;
    }
    if (x.op != XOp::IBfind && in.has(ModId::Shiftamt))
      return fail(".shiftamt is only valid on bfind");
    return dst(in, 0, dt, x) && src(in, 1, t, x.src[0]);
  }
  case Opcode::And:
  case Opcode::Or:
  case Opcode::Xor: {
    if (!checkMods(in, {}) || in.numTypes() != 1 || !expectOperands(in, 3, 3))
      return in.numTypes() != 1
                 ? fail("'" + in.mnemonic + "' needs exactly one type")
                 : false;
    x.type = t;
    if (t == Type::Pred) {
      x.op = in.opcode == Opcode::And  ? XOp::PAnd
             : in.opcode == Opcode::Or ? XOp::POr
                                       : XOp::PXor;
      return dstPred(in, 0, x.dst) && predSrc(in, 1, x, 0) &&
             predSrc(in, 2, x, 1);
    }
    if (!isIntType(t))
      return fail("'" + in.mnemonic + "' needs a bit-size type");
    x.op = in.opcode == Opcode::And  ? XOp::IAnd
           : in.opcode == Opcode::Or ? XOp::IOr
                                     : XOp::IXor;
    return dst(in, 0, t, x) && src(in, 1, t, x.src[0]) &&
           src(in, 2, t, x.src[1]);
  }
  case Opcode::Shl:
  case Opcode::Shr: {
    if (!checkMods(in, {}) || !expectOperands(in, 3, 3))
      return false;
    if (!isIntType(t) || typeBits(t) < 16)
      return fail("'" + in.mnemonic + "' needs a 16-, 32- or 64-bit type");
    x.op = in.opcode == Opcode::Shl ? XOp::IShl : XOp::IShr;
    x.type = t;
    return dst(in, 0, t, x) && src(in, 1, t, x.src[0]) &&
           srcU32(in, 2, x.src[1]);
  }
  case Opcode::Bfe:
  case Opcode::Bfi: {
    if (!checkMods(in, {}))
      return false;
    bool isBfe = in.opcode == Opcode::Bfe;
    if (!expectOperands(in, isBfe ? 4 : 5, isBfe ? 4 : 5))
      return false;
    if (!isIntType(t) || typeBits(t) < 32)
      return fail("'" + in.mnemonic + "' needs a 32- or 64-bit type");
    x.op = isBfe ? XOp::IBfe : XOp::IBfi;
    x.type = t;
    if (isBfe)
      return dst(in, 0, t, x) && src(in, 1, t, x.src[0]) &&
             srcU32(in, 2, x.src[1]) && srcU32(in, 3, x.src[2]);
    return dst(in, 0, t, x) && src(in, 1, t, x.src[0]) &&
           src(in, 2, t, x.src[1]) && srcU32(in, 3, x.src[2]) &&
           srcU32(in, 4, x.src[3]);
  }
  case Opcode::Prmt: {
    if (!checkMods(in, {ModId::F4e, ModId::B4e, ModId::Rc8, ModId::Ecl,
                        ModId::Ecr, ModId::Rc16}))
      return false;
    if (!expectOperands(in, 4, 4) || t != Type::B32)
      return t != Type::B32 ? fail("prmt needs .b32") : false;
    x.op = XOp::IPrmt;
    x.type = t;
    x.sub = in.has(ModId::F4e)    ? 1
            : in.has(ModId::B4e)  ? 2
            : in.has(ModId::Rc8)  ? 3
            : in.has(ModId::Ecl)  ? 4
            : in.has(ModId::Ecr)  ? 5
            : in.has(ModId::Rc16) ? 6
                                  : 0;
    return dst(in, 0, t, x) && src(in, 1, t, x.src[0]) &&
           src(in, 2, t, x.src[1]) && src(in, 3, t, x.src[2]);
  }
  case Opcode::Lop3: {
    if (!checkMods(in, {ModId::And, ModId::Or}))
      return false;
    if (t != Type::B32)
      return fail("lop3 needs .b32");
    x.op = XOp::ILop3;
    x.type = t;
    bool boolForm = in.has(ModId::And) || in.has(ModId::Or);
    if (!expectOperands(in, boolForm ? 6 : 5, boolForm ? 6 : 5))
      return false;
    const Operand &lut = in.operands[4];
    if (lut.kind != Operand::Kind::Imm || lut.imm < 0 || lut.imm > 255)
      return fail("lop3's immLut must be a constant 0..255");
    x.imm = lut.imm;
    if (boolForm) {
      x.sub2 = in.has(ModId::And) ? XB_And : XB_Or;
      const Operand &d = in.operands[0];
      if (d.pairReg < 0)
        return fail("lop3." + std::string(in.has(ModId::And) ? "and" : "or") +
                    " needs a destination d|p");
      const RegSlot &q = regs_[curFn_][d.pairReg];
      if (!q.isPred)
        return fail("second destination of lop3 must be a predicate");
      x.dst2 = q.index;
      if (!dst(in, 0, t, x, true) || !predSrc(in, 5, x, 3))
        return false;
    } else if (!dst(in, 0, t, x)) {
      return false;
    }
    return src(in, 1, t, x.src[0]) && src(in, 2, t, x.src[1]) &&
           src(in, 3, t, x.src[2]);
  }
  case Opcode::Shf: {
    if (!checkMods(in, {ModId::L, ModId::R, ModId::Wrap, ModId::Clamp}))
      return false;
    if (!expectOperands(in, 4, 4) || t != Type::B32)
      return t != Type::B32 ? fail("shf needs .b32") : false;
    if (in.has(ModId::L) == in.has(ModId::R))
      return fail("shf needs exactly one of .l and .r");
    if (in.has(ModId::Wrap) == in.has(ModId::Clamp))
      return fail("shf needs exactly one of .wrap and .clamp");
    x.op = XOp::IShf;
    x.type = t;
    x.sub = static_cast<uint8_t>((in.has(ModId::R) ? 1 : 0) |
                                 (in.has(ModId::Clamp) ? 2 : 0));
    return dst(in, 0, t, x) && src(in, 1, t, x.src[0]) &&
           src(in, 2, t, x.src[1]) && srcU32(in, 3, x.src[2]);
  }
  case Opcode::Szext:
  case Opcode::Bmsk: {
    if (!checkMods(in, {ModId::Wrap, ModId::Clamp}))
      return false;
    if (!expectOperands(in, 3, 3))
      return false;
    if (in.has(ModId::Wrap) == in.has(ModId::Clamp))
      return fail("'" + in.mnemonic +
                  "' needs exactly one of .wrap and "
                  ".clamp");
    bool isSz = in.opcode == Opcode::Szext;
    if (isSz ? (t != Type::U32 && t != Type::S32) : t != Type::B32)
      return fail("'" + in.mnemonic + "' has an unsupported type");
    x.op = isSz ? XOp::ISzext : XOp::IBmsk;
    x.type = t;
    x.sub = in.has(ModId::Clamp) ? 1 : 0;
    return dst(in, 0, t, x) && src(in, 1, isSz ? t : Type::U32, x.src[0]) &&
           srcU32(in, 2, x.src[1]);
  }
  case Opcode::Dp4a:
  case Opcode::Dp2a: {
    if (!checkMods(in, {ModId::Lo, ModId::Hi}))
      return false;
    if (in.numTypes() != 2 || !expectOperands(in, 4, 4))
      return in.numTypes() != 2 ? fail("'" + in.mnemonic + "' needs two types")
                                : false;
    x.op = in.opcode == Opcode::Dp4a ? XOp::IDp4a : XOp::IDp2a;
    x.type = in.type(0);
    x.type2 = in.type(1);
    x.sub = in.has(ModId::Hi) ? 1 : 0;
    Type dt = (isSigned(x.type) || isSigned(x.type2)) ? Type::S32 : Type::U32;
    return dst(in, 0, dt, x) && src(in, 1, Type::B32, x.src[0]) &&
           src(in, 2, Type::B32, x.src[1]) && src(in, 3, dt, x.src[2]);
  }
  case Opcode::Sad: {
    if (!checkMods(in, {}) || !expectOperands(in, 4, 4))
      return false;
    if (!isIntType(t) || typeClass(t) == TypeClass::Bits)
      return fail("sad needs a signed or unsigned type");
    x.op = XOp::ISad;
    x.type = t;
    return dst(in, 0, t, x) && src(in, 1, t, x.src[0]) &&
           src(in, 2, t, x.src[1]) && src(in, 3, t, x.src[2]);
  }

  // Compare and select.
  case Opcode::Setp:
    return decodeSetp(in, x, false);
  case Opcode::Set:
    return decodeSetp(in, x, true);
  case Opcode::Selp: {
    if (!checkMods(in, {}) || in.numTypes() != 1 || !expectOperands(in, 4, 4))
      return in.numTypes() != 1 ? fail("selp needs exactly one type") : false;
    if (t == Type::Pred)
      return fail("selp.pred is not valid");
    x.op = XOp::Selp;
    x.type = t;
    return dst(in, 0, t, x) && src(in, 1, t, x.src[0]) &&
           src(in, 2, t, x.src[1]) && predSrc(in, 3, x, 2);
  }
  case Opcode::Slct: {
    if (!checkMods(in, {ModId::Ftz}) || in.numTypes() != 2 ||
        !expectOperands(in, 4, 4))
      return in.numTypes() != 2 ? fail("slct needs two types") : false;
    x.op = XOp::Slct;
    x.type = t;
    x.type2 = in.type(1);
    if (x.type2 != Type::S32 && x.type2 != Type::F32)
      return fail("slct's comparison type must be .s32 or .f32");
    applyCommonFlags(in, x);
    return dst(in, 0, t, x) && src(in, 1, t, x.src[0]) &&
           src(in, 2, t, x.src[1]) && src(in, 3, x.type2, x.src[2]);
  }

  // Float-only.
  case Opcode::Rcp:
    return decodeFloatUnary(in, x, XOp::FRcp);
  case Opcode::Sqrt:
    return decodeFloatUnary(in, x, XOp::FSqrt);
  case Opcode::Rsqrt:
    return decodeFloatUnary(in, x, XOp::FRsqrt);
  case Opcode::Ex2:
    return decodeFloatUnary(in, x, XOp::FEx2);
  case Opcode::Lg2:
    return decodeFloatUnary(in, x, XOp::FLg2);
  case Opcode::Sin:
    return decodeFloatUnary(in, x, XOp::FSin);
  case Opcode::Cos:
    return decodeFloatUnary(in, x, XOp::FCos);
  case Opcode::Tanh:
    return decodeFloatUnary(in, x, XOp::FTanh);
  case Opcode::Copysign: {
    if (!checkMods(in, {}) || !expectOperands(in, 3, 3))
      return false;
    if (t != Type::F32 && t != Type::F64)
      return fail("copysign needs .f32 or .f64");
    x.op = XOp::FCopysign;
    x.type = t;
    return dst(in, 0, t, x) && src(in, 1, t, x.src[0]) &&
           src(in, 2, t, x.src[1]);
  }
  case Opcode::Testp: {
    if (!checkMods(in, {ModId::Finite, ModId::Infinite, ModId::Number,
                        ModId::Notanumber, ModId::Normal, ModId::Subnormal}))
      return false;
    if (!expectOperands(in, 2, 2) || (t != Type::F32 && t != Type::F64))
      return (t != Type::F32 && t != Type::F64)
                 ? fail("testp needs .f32 or .f64")
                 : false;
    x.op = XOp::FTestp;
    x.type = t;
    x.sub = in.has(ModId::Finite)       ? 0
            : in.has(ModId::Infinite)   ? 1
            : in.has(ModId::Number)     ? 2
            : in.has(ModId::Notanumber) ? 3
            : in.has(ModId::Normal)     ? 4
            : in.has(ModId::Subnormal)  ? 5
                                        : 255;
    if (x.sub == 255)
      return fail("testp needs a test (.finite, .normal, ...)");
    return dstPred(in, 0, x.dst) && src(in, 1, t, x.src[0]);
  }
  case Opcode::Cvt:
    return decodeCvt(in, x);

  // Moves and addresses.
  case Opcode::Mov:
    return decodeMov(in, x);
  case Opcode::Cvta: {
    if (!checkMods(in, {ModId::To, ModId::Global, ModId::Shared,
                        ModId::SharedCta, ModId::SharedCluster, ModId::Local,
                        ModId::Const, ModId::Param, ModId::ParamEntry}))
      return false;
    if (!expectOperands(in, 2, 2) || (t != Type::U32 && t != Type::U64))
      return (t != Type::U32 && t != Type::U64)
                 ? fail("cvta needs .u32 or .u64")
                 : false;
    x.op = XOp::Cvta;
    x.type = t;
    x.sub = in.has(ModId::To) ? 1 : 0;
    if (!addressSpaceOf(in.space(), x.space))
      return fail("cvta needs a state space");
    return dst(in, 0, t, x) && src(in, 1, t, x.src[0]);
  }
  case Opcode::Mapa: {
    // mapa{.shared::cluster}.u32/.u64 d, a, b  (a generic address without
    // the state space).
    if (!checkMods(in, {ModId::SharedCluster}))
      return false;
    if (!expectOperands(in, 3, 3) || (t != Type::U32 && t != Type::U64))
      return (t != Type::U32 && t != Type::U64)
                 ? fail("mapa needs .u32 or .u64")
                 : false;
    x.op = XOp::Mapa;
    x.type = t;
    x.space = in.has(ModId::SharedCluster) ? XSpace::SharedCluster
                                           : XSpace::Generic;
    return dst(in, 0, t, x) && src(in, 1, t, x.src[0]) &&
           src(in, 2, Type::U32, x.src[1]);
  }
  case Opcode::Isspacep: {
    if (!checkMods(in, {ModId::Global, ModId::Shared, ModId::SharedCta,
                        ModId::SharedCluster, ModId::Local, ModId::Const,
                        ModId::Param, ModId::ParamEntry}))
      return false;
    if (!expectOperands(in, 2, 2))
      return false;
    x.op = XOp::Isspacep;
    if (!addressSpaceOf(in.space(), x.space))
      return fail("isspacep needs a state space");
    return dstPred(in, 0, x.dst) && src(in, 1, Type::U64, x.src[0]);
  }
  case Opcode::Ld:
  case Opcode::Ldu:
    return decodeLdSt(in, x, true);
  case Opcode::St:
    return decodeLdSt(in, x, false);
  case Opcode::Atom:
    return decodeAtom(in, x, false);
  case Opcode::Red:
    return decodeAtom(in, x, true);

  // Warp-level.
  case Opcode::Shfl: {
    if (!checkMods(
            in, {ModId::Sync, ModId::Up, ModId::Down, ModId::Bfly, ModId::Idx}))
      return false;
    if (!in.has(ModId::Sync))
      return fail("shfl without .sync is not supported (deprecated)");
    if (t != Type::B32)
      return fail("shfl.sync needs .b32");
    if (!expectOperands(in, 5, 5))
      return false;
    x.op = XOp::Shfl;
    x.type = t;
    x.flags |= XF_Collective;
    x.maskSlot = 3;
    x.sub = in.has(ModId::Up)     ? 0
            : in.has(ModId::Down) ? 1
            : in.has(ModId::Bfly) ? 2
                                  : 3;
    if (!in.has(ModId::Up) && !in.has(ModId::Down) && !in.has(ModId::Bfly) &&
        !in.has(ModId::Idx))
      return fail("shfl.sync needs a mode (.up, .down, .bfly, .idx)");
    const Operand &d = in.operands[0];
    if (d.pairReg >= 0) {
      const RegSlot &q = regs_[curFn_][d.pairReg];
      if (!q.isPred)
        return fail("second destination of shfl must be a predicate");
      x.dst2 = q.index;
    }
    return dst(in, 0, t, x, true) && src(in, 1, t, x.src[0]) &&
           srcU32(in, 2, x.src[1]) && srcU32(in, 3, x.src[2]) &&
           srcU32(in, 4, x.src[3]);
  }
  case Opcode::Vote: {
    if (!checkMods(in, {ModId::Sync, ModId::All, ModId::Any, ModId::Uni,
                        ModId::Ballot}))
      return false;
    if (!in.has(ModId::Sync))
      return fail("vote without .sync is not supported (deprecated)");
    if (!expectOperands(in, 3, 3))
      return false;
    x.op = XOp::Vote;
    x.flags |= XF_Collective;
    x.maskSlot = 1;
    x.sub = in.has(ModId::All)   ? 0
            : in.has(ModId::Any) ? 1
            : in.has(ModId::Uni) ? 2
                                 : 3;
    if (x.sub == 3) {
      if (!in.has(ModId::Ballot) || t != Type::B32)
        return fail("vote.sync needs .all, .any, .uni or .ballot.b32");
      if (!dst(in, 0, Type::B32, x))
        return false;
    } else {
      if (t != Type::Pred)
        return fail("vote.sync." +
                    std::string(x.sub == 0   ? "all"
                                : x.sub == 1 ? "any"
                                             : "uni") +
                    " needs .pred");
      if (!dstPred(in, 0, x.dst))
        return false;
    }
    return predSrc(in, 1, x, 0) && srcU32(in, 2, x.src[1]);
  }
  case Opcode::Elect: {
    if (!checkMods(in, {ModId::Sync}) || !expectOperands(in, 2, 2))
      return false;
    if (!in.has(ModId::Sync))
      return fail("elect needs .sync");
    x.op = XOp::Elect;
    x.flags |= XF_Collective;
    x.maskSlot = 0;
    const Operand &d = in.operands[0];
    if (d.pairReg < 0)
      return fail("elect.sync needs a destination d|p");
    const RegSlot &q = regs_[curFn_][d.pairReg];
    if (!q.isPred)
      return fail("second destination of elect.sync must be a predicate");
    x.dst2 = q.index;
    return dst(in, 0, Type::B32, x, true) && srcU32(in, 1, x.src[0]);
  }
  case Opcode::Activemask: {
    if (!checkMods(in, {}) || !expectOperands(in, 1, 1))
      return false;
    x.op = XOp::Activemask;
    return dst(in, 0, Type::B32, x);
  }
  case Opcode::BarWarpSync: {
    if (!checkMods(in, {}) || !expectOperands(in, 1, 1))
      return false;
    x.op = XOp::BarWarpSync;
    x.flags |= XF_Collective;
    x.maskSlot = 0;
    return srcU32(in, 0, x.src[0]);
  }
  case Opcode::Match: {
    if (!checkMods(in, {ModId::Any, ModId::All, ModId::Sync}))
      return false;
    if (t != Type::B32 && t != Type::B64)
      return fail("match.sync needs .b32 or .b64");
    if (!expectOperands(in, 3, 3))
      return false;
    x.op = XOp::Match;
    x.type = t;
    x.flags |= XF_Collective;
    x.maskSlot = 1;
    x.sub = in.has(ModId::All) ? 1 : 0;
    const Operand &d = in.operands[0];
    if (d.pairReg >= 0) {
      if (!x.sub)
        return fail("match.any has no predicate destination");
      x.dst2 = regs_[curFn_][d.pairReg].index;
    }
    return dst(in, 0, Type::B32, x) && src(in, 1, t, x.src[0]) &&
           srcU32(in, 2, x.src[1]);
  }
  case Opcode::Redux: {
    if (!checkMods(in, {ModId::Sync, ModId::Add, ModId::Min, ModId::Max,
                        ModId::And, ModId::Or, ModId::Xor}))
      return false;
    if (!expectOperands(in, 3, 3))
      return false;
    x.op = XOp::Redux;
    x.type = t;
    x.flags |= XF_Collective;
    x.maskSlot = 1;
    x.sub = in.has(ModId::Add)   ? XA_Add
            : in.has(ModId::Min) ? XA_Min
            : in.has(ModId::Max) ? XA_Max
            : in.has(ModId::And) ? XA_And
            : in.has(ModId::Or)  ? XA_Or
                                 : XA_Xor;
    bool bitOp = x.sub == XA_And || x.sub == XA_Or || x.sub == XA_Xor;
    if (bitOp ? t != Type::B32 : (t != Type::U32 && t != Type::S32))
      return fail("'" + in.mnemonic + "' has an unsupported type");
    return dst(in, 0, t, x) && src(in, 1, t, x.src[0]) &&
           srcU32(in, 2, x.src[1]);
  }

  // Barriers and ordering.
  case Opcode::Bar:
  case Opcode::Barrier:
    return decodeBar(in, x);
  case Opcode::MbarrierInit:
  case Opcode::MbarrierArrive:
  case Opcode::MbarrierArriveDrop:
  case Opcode::MbarrierExpectTx:
  case Opcode::MbarrierCompleteTx:
  case Opcode::MbarrierTestWait:
  case Opcode::MbarrierTryWait:
  case Opcode::MbarrierInval:
  case Opcode::MbarrierPendingCount:
    return decodeMbarrier(in, x);
  case Opcode::CpAsyncBulk:
  case Opcode::CpAsyncBulkCommitGroup:
  case Opcode::CpAsyncBulkWaitGroup:
  case Opcode::CpAsync:
  case Opcode::CpAsyncCommitGroup:
  case Opcode::CpAsyncWaitGroup:
  case Opcode::CpAsyncWaitAll:
    return decodeBulk(in, x);
  case Opcode::CpAsyncBulkTensor:
  case Opcode::CpAsyncBulkPrefetchTensor:
    return decodeTma(in, x);
  case Opcode::StAsync:
    return decodeStAsync(in, x);
  case Opcode::Tcgen05Alloc:
  case Opcode::Tcgen05Dealloc:
  case Opcode::Tcgen05RelinquishAllocPermit:
  case Opcode::Tcgen05Ld:
  case Opcode::Tcgen05St:
  case Opcode::Tcgen05Wait:
  case Opcode::Tcgen05Fence:
    return decodeTcgen05(in, x);
  case Opcode::Tcgen05Mma:
    return decodeTcgen05Mma(in, x);
  case Opcode::Tcgen05Commit:
    return decodeTcgen05Commit(in, x);
  case Opcode::Tcgen05Cp:
  case Opcode::Tcgen05Shift:
    return decodeTcgen05CpShift(in, x);
  case Opcode::WgmmaMmaAsync:
  case Opcode::WgmmaFence:
  case Opcode::WgmmaCommitGroup:
  case Opcode::WgmmaWaitGroup:
    return decodeWgmma(in, x);
  case Opcode::BarrierCluster: {
    if (!checkMods(in, {ModId::Arrive, ModId::Wait, ModId::Aligned,
                        ModId::Relaxed, ModId::Release, ModId::Acquire}))
      return false;
    if (!expectOperands(in, 0, 0))
      return false;
    if (in.has(ModId::Arrive) == in.has(ModId::Wait))
      return fail("barrier.cluster needs .arrive or .wait");
    x.op = in.has(ModId::Arrive) ? XOp::ClusterArrive : XOp::ClusterWait;
    if (in.has(ModId::Aligned))
      x.flags |= XF_Aligned;
    return true;
  }
  case Opcode::Membar:
  case Opcode::Fence: {
    if (!checkMods(in, {ModId::Cta,
                        ModId::Cluster,
                        ModId::Gpu,
                        ModId::Sys,
                        ModId::Gl,
                        ModId::Sc,
                        ModId::AcqRel,
                        ModId::Acquire,
                        ModId::Release,
                        ModId::Relaxed,
                        ModId::Proxy,
                        ModId::Async,
                        ModId::AsyncGlobal,
                        ModId::AsyncSharedCta,
                        ModId::AsyncSharedCluster,
                        ModId::Alias,
                        ModId::TensormapGeneric,
                        ModId::MbarrierInit,
                        ModId::Global,
                        ModId::Shared,
                        ModId::SharedCta,
                        ModId::SharedCluster,
                        ModId::OpRestrict,
                        ModId::Sync,
                        ModId::Aligned}))
      return false;
    if (in.has(ModId::TensormapGeneric) && !in.operands.empty())
      return notYet(); // fence.proxy.tensormap::generic.acquire [addr], size
    if (!expectOperands(in, 0, 0))
      return false;
    x.op = XOp::Fence;
    // 1: fence.mbarrier_init (the sanitizer's init rule); 2: a proxy fence
    // covering shared memory (fence.proxy.async, .async.shared::cta,
    // .async.shared::cluster; not .async.global), the sanitizer's proxy rule.
    x.sub = in.has(ModId::MbarrierInit) ? 1 : 0;
    if (in.has(ModId::Proxy) &&
        (in.has(ModId::Async) || in.has(ModId::AsyncSharedCta) ||
         in.has(ModId::AsyncSharedCluster)) &&
        !in.has(ModId::Global) && !in.has(ModId::AsyncGlobal))
      x.sub = 2;
    return true;
  }
  case Opcode::Setmaxnreg: {
    if (!checkMods(in, {ModId::Inc, ModId::Dec, ModId::Sync, ModId::Aligned}))
      return false;
    if (!expectOperands(in, 1, 1))
      return false;
    const Operand &n = in.operands[0];
    if (n.kind != Operand::Kind::Imm || n.imm < 24 || n.imm > 256 ||
        n.imm % 8 != 0)
      return fail("setmaxnreg needs a constant register count in 24..256, a "
                  "multiple of 8");
    if (in.has(ModId::Inc) == in.has(ModId::Dec))
      return fail("setmaxnreg needs .inc or .dec");
    x.op = XOp::Setmaxnreg;
    x.imm = n.imm;
    x.sub = in.has(ModId::Inc) ? 1 : 0;
    if (in.has(ModId::Aligned))
      x.flags |= XF_Aligned;
    return true;
  }
  case Opcode::Prefetch: {
    // prefetch{.const|.param|.global}.tensormap [a] validates the map;
    // prefetch{.global|.local}.{L1,L2}[.evict_*] [a] changes no data, but
    // its address must lie in the space (a kernel that computes it wrong
    // is reported, not silently slower).
    if (!expectOperands(in, 1, 1))
      return false;
    const bool map = in.has(ModId::Tensormap);
    x.op = map ? XOp::TmaPrefetch : XOp::Prefetch;
    x.space = XSpace::Generic;
    if (in.space() == Space::Global)
      x.space = XSpace::Global;
    else if (map && in.space() == Space::Param)
      x.space = XSpace::ParamKernel;
    else if (!map && in.space() == Space::Local)
      x.space = XSpace::Local;
    return address(in, 0, x);
  }
  case Opcode::CpAsyncBulkPrefetch: {
    // cp.async.bulk.prefetch.L2.global{.L2::cache_hint} [a], size{, policy}:
    // a prefetch of `size` bytes (a multiple of 16, from a 16-byte aligned
    // address); like prefetch, it changes no data but the whole range must
    // lie in one allocation.
    if (!checkMods(in, {ModId::L2, ModId::Global, ModId::L2CacheHint}))
      return false;
    if (!in.has(ModId::L2) || !in.has(ModId::Global))
      return fail("'" + in.mnemonic + "' needs .L2.global");
    unsigned n = in.has(ModId::L2CacheHint) ? 3 : 2;
    if (!expectOperands(in, n, n))
      return false;
    x.op = XOp::Prefetch;
    x.space = XSpace::Global;
    return address(in, 0, x) && srcU32(in, 1, x.src[1]);
  }
  case Opcode::Prefetchu:
  case Opcode::Applypriority:
  case Opcode::Discard:
  case Opcode::Nanosleep:
  case Opcode::Pmevent:
    x.op = XOp::Nop;
    return true;
  case Opcode::Griddepcontrol:
    // launch_dependents is a scheduling hint; wait orders the thread after
    // the previous grid (Executor: checked in programmatic launches).
    x.op = in.has(ModId::Wait) ? XOp::GridDepWait : XOp::Nop;
    return true;
  case Opcode::Createpolicy: {
    // The policy is an opaque hint; the emulator produces 0.
    if (in.operands.empty())
      return fail("createpolicy needs a destination");
    x.op = XOp::Mov;
    x.type = Type::B64;
    if (!dst(in, 0, Type::B64, x))
      return false;
    x.src[0] = constRow(0);
    return true;
  }

  // Control flow.
  case Opcode::Bra: {
    if (!checkMods(in, {ModId::Uni}) || !expectOperands(in, 1, 1))
      return false;
    const Operand &l = in.operands[0];
    if (l.kind != Operand::Kind::Label || l.label < 0)
      return fail("bra needs a label");
    x.op = XOp::Bra;
    x.target = p_.functions[curFn_].start + static_cast<uint32_t>(l.label);
    return true;
  }
  case Opcode::Exit:
    if (!checkMods(in, {}) || !expectOperands(in, 0, 0))
      return false;
    x.op = XOp::Exit;
    return true;
  case Opcode::Ret:
    if (!checkMods(in, {ModId::Uni}) || !expectOperands(in, 0, 0))
      return false;
    if (curFn_ == 0) {
      x.op = XOp::Exit;
    } else {
      x.op = XOp::Ret;
      x.imm = curFn_;
    }
    return true;
  case Opcode::Call:
    return decodeCall(in, x);
  case Opcode::Trap:
  case Opcode::Brkpt:
    x.op = XOp::Trap;
    err_ = in.opcode == Opcode::Trap ? "trap instruction executed"
                                     : "brkpt instruction executed";
    return false;

  default:
    return notYet();
  }
}

void Decoder::decodeFunction(uint32_t fnIdx) {
  curFn_ = fnIdx;
  const Function &f = m_.functions[fnList_[fnIdx]];
  for (const Instruction &in : f.body) {
    XInst x;
    x.inst = &in;
    x.line = in.loc.line;
    if (in.guardReg >= 0) {
      x.guard = static_cast<int32_t>(regs_[fnIdx][in.guardReg].index);
      x.guardNeg = in.guardNegated;
    }
    err_.clear();
    if (!decodeInst(in, x)) {
      XOp kind = x.op;
      x = XInst();
      x.inst = &in;
      x.line = in.loc.line;
      if (in.guardReg >= 0) {
        x.guard = static_cast<int32_t>(regs_[fnIdx][in.guardReg].index);
        x.guardNeg = in.guardNegated;
      }
      x.op = kind == XOp::NotImplemented ? XOp::NotImplemented
             : kind == XOp::Trap         ? XOp::Trap
                                         : XOp::Invalid;
      x.msg = static_cast<uint32_t>(p_.messages.size());
      p_.messages.push_back(err_);
      if (x.op != XOp::Trap)
        k_.unsupported_.push_back(m_.bufferName + ":" +
                                  std::to_string(in.loc.line) + ": " + err_);
    }
    p_.code.push_back(x);
  }
  // Falling off the end of a function returns (or exits the kernel).
  XInst end;
  end.op = fnIdx == 0 ? XOp::Exit : XOp::Ret;
  end.imm = fnIdx;
  end.line = f.body.empty() ? f.loc.line : f.body.back().loc.line;
  p_.code.push_back(end);
}

Error Decoder::run() {
  const Function &kf = m_.functions[entry_];
  k_.name_ = kf.name;
  k_.directives_ = &kf.directives;
  if (Error e = collectFunctions())
    return e;
  layoutRegisters();
  if (Error e = layoutShared())
    return e;
  layoutFrames();
  layoutParams();
  // Code addresses first (labels and calls refer to them).
  uint32_t pc = 0;
  for (size_t i = 0; i < fnList_.size(); ++i) {
    const Function &f = m_.functions[fnList_[i]];
    p_.functions[i].start = pc;
    pc += static_cast<uint32_t>(f.body.size()) + 1;
    p_.functions[i].end = pc;
  }
  for (size_t i = 0; i < fnList_.size(); ++i) {
    // Functions without bodies are only an error if called (decodeCall).
    decodeFunction(static_cast<uint32_t>(i));
  }
  // Resolve call targets now that every function has a start pc.
  for (XInst &x : p_.code)
    if (x.op == XOp::Call)
      x.target = p_.functions[p_.calls[x.imm].callee].start;
  p_.constData = &lm_.constData_;
  p_.loaded = &lm_;
  return Error::success();
}

//===----------------------------------------------------------------------===//
// Module loading
//===----------------------------------------------------------------------===//

Error nvfp4::emu::decodeModule(std::shared_ptr<const Module> module,
                               Machine::GlobalMemory &mem, LoadedModule &out,
                               std::vector<std::unique_ptr<Kernel>> &kernels) {
  return Decoder::loadModule(std::move(module), mem, out, kernels);
}

Error Decoder::loadModule(std::shared_ptr<const Module> module,
                          Machine::GlobalMemory &mem, LoadedModule &out,
                          std::vector<std::unique_ptr<Kernel>> &kernels) {
  const Module &m = *module;
  out.module_ = module;
  out.globalAddr_.assign(m.globals.size(), 0);
  out.constOffset_.assign(m.globals.size(), 0);
  // Allocate .global variables and lay out .const ones.
  for (size_t g = 0; g < m.globals.size(); ++g) {
    const Variable &v = m.globals[g];
    if (v.space == Space::Global) {
      if (v.isExtern && v.sizeBytes() == 0)
        continue;
      Expected<uint64_t> a = mem.allocate(
          v.sizeBytes(), v.name, std::max<uint32_t>(v.effectiveAlign(), 256));
      if (!a)
        return a.takeError();
      out.globalAddr_[g] = *a;
    } else if (v.space == Space::Const) {
      uint32_t al = v.effectiveAlign();
      size_t off = (out.constData_.size() + al - 1) & ~size_t(al - 1);
      if (off + v.sizeBytes() > (uint64_t(1) << 30))
        return Error::failure("constant bank too large");
      out.constData_.resize(off + v.sizeBytes());
      out.constOffset_[g] = static_cast<uint32_t>(off);
    }
  }
  // Initializers (after every address is known).
  for (size_t g = 0; g < m.globals.size(); ++g) {
    const Variable &v = m.globals[g];
    if (v.init.empty() || (v.space != Space::Global && v.space != Space::Const))
      continue;
    uint64_t elemBytes = std::max<uint64_t>(typeBits(v.type) / 8, 1);
    std::vector<uint8_t> bytes(v.sizeBytes(), 0);
    for (size_t i = 0; i < v.init.size(); ++i) {
      const InitElem &e = v.init[i];
      uint64_t val = e.bits;
      if (e.sym.kind == SymbolKind::ModuleVar) {
        const Variable &t = m.globals[e.sym.index];
        uint64_t base = 0;
        if (t.space == Space::Global)
          base = out.globalAddr_[e.sym.index];
        else if (t.space == Space::Const)
          base = out.constOffset_[e.sym.index] +
                 (e.generic ? addrspace::kConstWindow : 0);
        else
          return Error::failure(
              m.bufferName + ":" + std::to_string(v.loc.line) +
              ": initializer of '" + v.name + "' takes the address of a ." +
              spaceName(t.space) + " variable");
        val += base;
      } else if (e.sym.kind != SymbolKind::None) {
        return Error::failure(m.bufferName + ":" + std::to_string(v.loc.line) +
                              ": unsupported initializer of '" + v.name + "'");
      }
      uint64_t at = i * elemBytes;
      if (at + elemBytes > bytes.size())
        break;
      std::memcpy(bytes.data() + at, &val, elemBytes);
    }
    if (v.space == Space::Global) {
      if (!bytes.empty()) {
        uint8_t *p = mem.translate(out.globalAddr_[g], bytes.size());
        std::memcpy(p, bytes.data(), bytes.size());
      }
    } else {
      std::memcpy(out.constData_.data() + out.constOffset_[g], bytes.data(),
                  bytes.size());
    }
  }
  for (size_t f = 0; f < m.functions.size(); ++f) {
    if (!m.functions[f].isEntry || !m.functions[f].hasBody)
      continue;
    auto k = std::make_unique<Kernel>();
    auto prog = std::make_shared<Program>();
    prog->module = module;
    Decoder d(m, out, static_cast<int32_t>(f), *k, *prog);
    if (Error e = d.run())
      return e;
    k->program_ = prog;
    kernels.push_back(std::move(k));
  }
  return Error::success();
}
