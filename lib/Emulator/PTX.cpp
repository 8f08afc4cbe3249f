//===- PTX.cpp - Tables and helpers of the parsed PTX form ----------------===//
//
// Names and properties of the enumerations in PTX.h, and the small queries on
// instructions, variables and modules.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Emulator/PTX.h"

using namespace nvfp4::emu::ptx;

unsigned nvfp4::emu::ptx::typeBits(Type t) {
  switch (t) {
  case Type::None:
    return 0;
#define NVFP4_X(E, S, W, C)                                                    \
  case Type::E:                                                                \
    return W;
    NVFP4_PTX_TYPES(NVFP4_X)
#undef NVFP4_X
  }
  return 0;
}

TypeClass nvfp4::emu::ptx::typeClass(Type t) {
  switch (t) {
  case Type::None:
    return TypeClass::None;
#define NVFP4_X(E, S, W, C)                                                    \
  case Type::E:                                                                \
    return TypeClass::C;
    NVFP4_PTX_TYPES(NVFP4_X)
#undef NVFP4_X
  }
  return TypeClass::None;
}

const char *nvfp4::emu::ptx::typeName(Type t) {
  switch (t) {
  case Type::None:
    return "";
#define NVFP4_X(E, S, W, C)                                                    \
  case Type::E:                                                                \
    return S;
    NVFP4_PTX_TYPES(NVFP4_X)
#undef NVFP4_X
  }
  return "";
}

const char *nvfp4::emu::ptx::spaceName(Space s) {
  switch (s) {
  case Space::None:
    return "generic";
  case Space::Reg:
    return "reg";
  case Space::Const:
    return "const";
  case Space::Global:
    return "global";
  case Space::Local:
    return "local";
  case Space::Param:
    return "param";
  case Space::Shared:
    return "shared";
  case Space::SharedCluster:
    return "shared::cluster";
  case Space::Tex:
    return "tex";
  }
  return "?";
}

const char *nvfp4::emu::ptx::specialRegName(SpecialReg r) {
  switch (r) {
#define NVFP4_X(E, S, C)                                                       \
  case SpecialReg::E:                                                          \
    return S;
    NVFP4_PTX_SPECIAL_REGS(NVFP4_X)
#undef NVFP4_X
  }
  return "?";
}

bool nvfp4::emu::ptx::specialRegHasComponents(SpecialReg r) {
  switch (r) {
#define NVFP4_X(E, S, C)                                                       \
  case SpecialReg::E:                                                          \
    return C;
    NVFP4_PTX_SPECIAL_REGS(NVFP4_X)
#undef NVFP4_X
  }
  return false;
}

const char *nvfp4::emu::ptx::opcodeName(Opcode op) {
  switch (op) {
  case Opcode::Unknown:
    return "<unknown>";
#define NVFP4_X(E, S)                                                          \
  case Opcode::E:                                                              \
    return S;
    NVFP4_PTX_OPCODES(NVFP4_X)
#undef NVFP4_X
  }
  return "<unknown>";
}

const char *nvfp4::emu::ptx::modName(ModId id) {
  switch (id) {
  case ModId::Unknown:
    return "<unknown>";
  case ModId::Type:
    return "<type>";
  case ModId::Vec:
    return "v<N>";
  case ModId::Count:
    return "x<N>";
  case ModId::Dim:
    return "<N>d";
  case ModId::CtaGroup:
    return "cta_group::<N>";
  case ModId::MmaShape:
    return "m<M>n<N>k<K>";
  case ModId::CollectorB:
    return "collector::b<N>::<op>";
#define NVFP4_X(E, S)                                                          \
  case ModId::E:                                                               \
    return S;
    NVFP4_PTX_MODIFIERS(NVFP4_X)
#undef NVFP4_X
  }
  return "<unknown>";
}

bool Instruction::has(ModId id) const {
  for (const Modifier &m : mods)
    if (m.id == id)
      return true;
  return false;
}

int32_t Instruction::value(ModId id, int32_t dflt) const {
  for (const Modifier &m : mods)
    if (m.id == id)
      return m.value;
  return dflt;
}

Type Instruction::type(unsigned i) const {
  for (const Modifier &m : mods)
    if (m.id == ModId::Type) {
      if (i == 0)
        return static_cast<Type>(m.value);
      --i;
    }
  return Type::None;
}

unsigned Instruction::numTypes() const {
  unsigned n = 0;
  for (const Modifier &m : mods)
    n += m.id == ModId::Type;
  return n;
}

Space Instruction::space() const {
  for (const Modifier &m : mods) {
    switch (m.id) {
    case ModId::Global:
      return Space::Global;
    case ModId::Shared:
    case ModId::SharedCta:
      return Space::Shared;
    case ModId::SharedCluster:
      return Space::SharedCluster;
    case ModId::Local:
      return Space::Local;
    case ModId::Param:
    case ModId::ParamEntry:
    case ModId::ParamFunc:
      return Space::Param;
    case ModId::Const:
      return Space::Const;
    default:
      break;
    }
  }
  return Space::None;
}

uint64_t Variable::elementBytes() const {
  uint64_t bits = typeBits(type);
  uint64_t bytes = bits < 8 ? 1 : bits / 8;
  return bytes * (vecWidth ? vecWidth : 1);
}

uint64_t Variable::elementCount() const {
  uint64_t n = 1;
  for (uint64_t d : dims)
    n *= d;
  return n;
}

uint32_t Variable::effectiveAlign() const {
  if (align)
    return align;
  uint64_t e = elementBytes();
  return e > 16 ? 16 : static_cast<uint32_t>(e);
}

const Function *Module::findFunction(std::string_view name) const {
  int32_t i = findFunctionIndex(name);
  return i < 0 ? nullptr : &functions[i];
}

int32_t Module::findFunctionIndex(std::string_view name) const {
  for (size_t i = 0; i < functions.size(); ++i)
    if (functions[i].name == name)
      return static_cast<int32_t>(i);
  return -1;
}

std::string Module::lineText(uint32_t line) const {
  if (line == 0)
    return "";
  size_t pos = 0;
  for (uint32_t l = 1; l < line; ++l) {
    pos = source.find('\n', pos);
    if (pos == std::string::npos)
      return "";
    ++pos;
  }
  size_t end = source.find('\n', pos);
  std::string text = source.substr(
      pos, end == std::string::npos ? std::string::npos : end - pos);
  size_t b = text.find_first_not_of(" \t\r");
  size_t e = text.find_last_not_of(" \t\r");
  if (b == std::string::npos)
    return "";
  return text.substr(b, e - b + 1);
}
