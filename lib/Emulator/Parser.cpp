//===- Parser.cpp - PTX text to the in-memory module ----------------------===//
//
// A hand-written lexer and recursive-descent parser for the PTX that LLVM's
// NVPTX backend and nvcc emit. The lexer turns the whole text into tokens
// first (each with its line and column); the parser then builds the
// ptx::Module, resolving registers (block-scoped), variables, functions and
// labels (block-scoped, forward references allowed) as it goes.
//
// Every diagnostic names the line and column and says what was expected and
// what was found. The parser never throws and never aborts on bad input: the
// fuzzer in fuzz/ptx_parser_fuzzer.cpp drives it with arbitrary bytes.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Emulator/Parser.h"

#include <cstdlib>
#include <cstring>
#include <unordered_map>

using namespace nvfp4::emu;
using namespace nvfp4::emu::ptx;

namespace {

//===----------------------------------------------------------------------===//
// Lexer
//===----------------------------------------------------------------------===//

enum class Tok : uint8_t {
  Eof,
  Ident,   ///< foo, $L__BB0_2, _
  Dot,     ///< .name (text excludes the dot; may contain "::")
  Reg,     ///< %name (text includes the %)
  Int,     ///< integer literal (value in ival)
  F32Bits, ///< 0fXXXXXXXX (bits in ival)
  F64Bits, ///< 0dXXXXXXXXXXXXXXXX (bits in ival)
  Float,   ///< decimal floating-point literal (value in fval)
  String,  ///< "..." (text excludes the quotes)
  Punct,   ///< one punctuation character in punct
};

struct Token {
  Tok kind = Tok::Eof;
  char punct = 0;
  std::string_view text;
  uint64_t ival = 0;
  double fval = 0;
  uint32_t line = 1, col = 1;
  uint32_t endCol = 1; ///< column just past the token (same line)
  bool isUnsigned = false;
};

bool isIdentStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
         c == '$';
}
bool isIdentChar(char c) { return isIdentStart(c) || (c >= '0' && c <= '9'); }
bool isDigit(char c) { return c >= '0' && c <= '9'; }
int hexValue(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

std::string formatLoc(std::string_view buffer, uint32_t line, uint32_t col) {
  std::string s(buffer);
  s += ':';
  s += std::to_string(line);
  s += ':';
  s += std::to_string(col);
  return s;
}

class Lexer {
public:
  Lexer(std::string_view text, std::string_view buffer)
      : text_(text), buffer_(buffer) {}

  /// Tokenizes everything; on failure returns the error.
  Error run(std::vector<Token> &out) {
    while (true) {
      if (Error e = skipSpaceAndComments())
        return e;
      Token t;
      t.line = line_;
      t.col = col();
      if (pos_ >= text_.size()) {
        t.kind = Tok::Eof;
        t.endCol = t.col;
        out.push_back(t);
        return Error::success();
      }
      if (Error e = lexOne(t))
        return e;
      t.endCol = col();
      out.push_back(t);
    }
  }

private:
  uint32_t col() const { return static_cast<uint32_t>(pos_ - lineStart_) + 1; }

  Error error(uint32_t line, uint32_t c, const std::string &msg) {
    return Error::failure(formatLoc(buffer_, line, c) + ": error: " + msg);
  }

  char peek(size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }

  void advance() {
    if (text_[pos_] == '\n') {
      ++line_;
      lineStart_ = pos_ + 1;
    }
    ++pos_;
  }

  Error skipSpaceAndComments() {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' ||
          c == '\v') {
        advance();
        continue;
      }
      if (c == '/' && peek(1) == '/') {
        while (pos_ < text_.size() && text_[pos_] != '\n')
          ++pos_;
        continue;
      }
      if (c == '/' && peek(1) == '*') {
        uint32_t l = line_, cc = col();
        advance();
        advance();
        bool closed = false;
        while (pos_ < text_.size()) {
          if (text_[pos_] == '*' && peek(1) == '/') {
            advance();
            advance();
            closed = true;
            break;
          }
          advance();
        }
        if (!closed)
          return error(l, cc, "unterminated /* comment");
        continue;
      }
      break;
    }
    return Error::success();
  }

  std::string describeChar(char c) {
    if (c >= 0x20 && c < 0x7f)
      return std::string("'") + c + "'";
    char buf[16];
    snprintf(buf, sizeof(buf), "byte 0x%02x", static_cast<unsigned char>(c));
    return buf;
  }

  Error lexOne(Token &t) {
    size_t start = pos_;
    char c = text_[pos_];
    if (isIdentStart(c)) {
      while (pos_ < text_.size() && isIdentChar(text_[pos_]))
        ++pos_;
      t.kind = Tok::Ident;
      t.text = text_.substr(start, pos_ - start);
      return Error::success();
    }
    if (c == '%') {
      ++pos_;
      if (pos_ >= text_.size() || !isIdentChar(text_[pos_]))
        return error(t.line, t.col,
                     "expected a register name after '%', found " +
                         (pos_ >= text_.size() ? std::string("end of file")
                                               : describeChar(text_[pos_])));
      while (pos_ < text_.size() && isIdentChar(text_[pos_]))
        ++pos_;
      t.kind = Tok::Reg;
      t.text = text_.substr(start, pos_ - start);
      return Error::success();
    }
    if (c == '.') {
      ++pos_;
      if (pos_ >= text_.size() || !isIdentChar(text_[pos_]))
        return error(t.line, t.col,
                     "expected a directive or modifier name after '.', found " +
                         (pos_ >= text_.size() ? std::string("end of file")
                                               : describeChar(text_[pos_])));
      while (true) {
        while (pos_ < text_.size() && isIdentChar(text_[pos_]))
          ++pos_;
        // "::" continues the name (.shared::cluster, .cta_group::1).
        if (peek() == ':' && peek(1) == ':' && isIdentChar(peek(2))) {
          pos_ += 2;
          continue;
        }
        break;
      }
      t.kind = Tok::Dot;
      t.text = text_.substr(start + 1, pos_ - start - 1);
      return Error::success();
    }
    if (isDigit(c))
      return lexNumber(t);
    if (c == '"') {
      ++pos_;
      while (pos_ < text_.size() && text_[pos_] != '"' && text_[pos_] != '\n') {
        if (text_[pos_] == '\\' && pos_ + 1 < text_.size() &&
            text_[pos_ + 1] != '\n')
          ++pos_;
        ++pos_;
      }
      if (pos_ >= text_.size() || text_[pos_] != '"')
        return error(t.line, t.col, "unterminated string literal");
      t.kind = Tok::String;
      t.text = text_.substr(start + 1, pos_ - start - 1);
      ++pos_;
      return Error::success();
    }
    static const char kPunct[] = ",;:[]{}()+-*/!@|<>=~&^%?";
    if (c != '\0' && std::strchr(kPunct, c)) {
      ++pos_;
      t.kind = Tok::Punct;
      t.punct = c;
      t.text = text_.substr(start, 1);
      return Error::success();
    }
    return error(t.line, t.col, "unexpected character " + describeChar(c));
  }

  Error lexNumber(Token &t) {
    size_t start = pos_;
    char c1 = peek(1);
    // Hex floats: 0f + 8 hex digits, 0d + 16 hex digits.
    if (text_[pos_] == '0' &&
        (c1 == 'f' || c1 == 'F' || c1 == 'd' || c1 == 'D')) {
      bool isDouble = c1 == 'd' || c1 == 'D';
      unsigned want = isDouble ? 16 : 8;
      pos_ += 2;
      uint64_t bits = 0;
      unsigned n = 0;
      while (pos_ < text_.size() && hexValue(text_[pos_]) >= 0) {
        bits = (bits << 4) | static_cast<uint64_t>(hexValue(text_[pos_]));
        ++pos_;
        ++n;
      }
      if (n != want || (pos_ < text_.size() && isIdentChar(text_[pos_])))
        return error(t.line, t.col,
                     std::string("expected exactly ") + std::to_string(want) +
                         " hex digits in the " + (isDouble ? "0d" : "0f") +
                         " floating-point constant '" +
                         std::string(text_.substr(
                             start, std::min<size_t>(pos_ - start + 1, 40))) +
                         "'");
      t.kind = isDouble ? Tok::F64Bits : Tok::F32Bits;
      t.ival = bits;
      t.text = text_.substr(start, pos_ - start);
      return Error::success();
    }
    // Decimal floating point: digits '.' digits [e[+-]digits] or digits e ...
    size_t p = pos_;
    while (p < text_.size() && isDigit(text_[p]))
      ++p;
    bool isFloat = false;
    if (p < text_.size() && text_[p] == '.' && p + 1 < text_.size() &&
        isDigit(text_[p + 1]))
      isFloat = true;
    else if (p < text_.size() && (text_[p] == 'e' || text_[p] == 'E') &&
             p + 1 < text_.size() &&
             (isDigit(text_[p + 1]) ||
              ((text_[p + 1] == '+' || text_[p + 1] == '-') &&
               p + 2 < text_.size() && isDigit(text_[p + 2]))))
      isFloat = true;
    if (isFloat) {
      if (text_[p] == '.') {
        ++p;
        while (p < text_.size() && isDigit(text_[p]))
          ++p;
      }
      if (p < text_.size() && (text_[p] == 'e' || text_[p] == 'E')) {
        size_t q = p + 1;
        if (q < text_.size() && (text_[q] == '+' || text_[q] == '-'))
          ++q;
        if (q < text_.size() && isDigit(text_[q])) {
          p = q;
          while (p < text_.size() && isDigit(text_[p]))
            ++p;
        }
      }
      std::string s(text_.substr(start, p - start));
      pos_ = p;
      if (pos_ < text_.size() && isIdentChar(text_[pos_]))
        return error(t.line, t.col,
                     "invalid character " + describeChar(text_[pos_]) +
                         " after the floating-point constant '" + s + "'");
      t.kind = Tok::Float;
      t.fval = std::strtod(s.c_str(), nullptr);
      t.text = text_.substr(start, pos_ - start);
      return Error::success();
    }
    // Integers: 0x.., 0b.., 0[0-7]*, [1-9][0-9]*, optional U suffix.
    unsigned base = 10;
    if (text_[pos_] == '0' && (c1 == 'x' || c1 == 'X')) {
      base = 16;
      pos_ += 2;
    } else if (text_[pos_] == '0' && (c1 == 'b' || c1 == 'B')) {
      base = 2;
      pos_ += 2;
    } else if (text_[pos_] == '0' && isDigit(c1)) {
      base = 8;
      pos_ += 1;
    }
    size_t digitsStart = pos_;
    uint64_t v = 0;
    bool overflow = false;
    while (pos_ < text_.size()) {
      int d = hexValue(text_[pos_]);
      if (d < 0 || d >= static_cast<int>(base))
        break;
      if (v > (UINT64_MAX - static_cast<uint64_t>(d)) / base)
        overflow = true;
      v = v * base + static_cast<uint64_t>(d);
      ++pos_;
    }
    if (pos_ == digitsStart && base != 10 && base != 8)
      return error(t.line, t.col,
                   std::string("expected ") + (base == 16 ? "hex" : "binary") +
                       " digits after '" + std::string(text_.substr(start, 2)) +
                       "'");
    if (pos_ < text_.size() && (text_[pos_] == 'U' || text_[pos_] == 'u')) {
      t.isUnsigned = true;
      ++pos_;
    }
    if (pos_ < text_.size() && isIdentChar(text_[pos_]))
      return error(t.line, t.col,
                   "invalid character " + describeChar(text_[pos_]) +
                       " in the integer constant '" +
                       std::string(text_.substr(start, pos_ - start + 1)) +
                       "'");
    if (overflow)
      return error(t.line, t.col,
                   "integer constant '" +
                       std::string(text_.substr(start, pos_ - start)) +
                       "' does not fit in 64 bits");
    t.kind = Tok::Int;
    t.ival = v;
    t.text = text_.substr(start, pos_ - start);
    return Error::success();
  }

  std::string_view text_;
  std::string_view buffer_;
  size_t pos_ = 0;
  size_t lineStart_ = 0;
  uint32_t line_ = 1;
};

//===----------------------------------------------------------------------===//
// Name tables
//===----------------------------------------------------------------------===//

struct Tables {
  std::unordered_map<std::string_view, Opcode> opcodes;
  std::unordered_map<std::string_view, ModId> mods;
  std::unordered_map<std::string_view, Type> types;
  std::unordered_map<std::string_view, SpecialReg> sregs;

  Tables() {
#define NVFP4_X(E, S) opcodes.emplace(S, Opcode::E);
    NVFP4_PTX_OPCODES(NVFP4_X)
#undef NVFP4_X
#define NVFP4_X(E, S) mods.emplace(S, ModId::E);
    NVFP4_PTX_MODIFIERS(NVFP4_X)
#undef NVFP4_X
#define NVFP4_X(E, S, W, C) types.emplace(S, Type::E);
    NVFP4_PTX_TYPES(NVFP4_X)
#undef NVFP4_X
#define NVFP4_X(E, S, C) sregs.emplace(S, SpecialReg::E);
    NVFP4_PTX_SPECIAL_REGS(NVFP4_X)
#undef NVFP4_X
  }
};

const Tables &tables() {
  static const Tables t;
  return t;
}

/// Parses a decimal number occupying all of `s`; false if it is not one or
/// exceeds `max`.
bool parseDecimal(std::string_view s, int64_t max, int32_t &out) {
  if (s.empty() || s.size() > 9)
    return false;
  int64_t v = 0;
  for (char c : s) {
    if (!isDigit(c))
      return false;
    v = v * 10 + (c - '0');
  }
  if (v > max)
    return false;
  out = static_cast<int32_t>(v);
  return true;
}

/// Classifies one modifier piece (without the dot).
Modifier classifyModifier(std::string_view piece, bool &known) {
  known = true;
  const Tables &tb = tables();
  auto ti = tb.types.find(piece);
  if (ti != tb.types.end())
    return {ModId::Type, static_cast<int32_t>(ti->second)};
  auto mi = tb.mods.find(piece);
  if (mi != tb.mods.end())
    return {mi->second, 0};
  int32_t n = 0;
  if (piece.size() >= 2 && piece[0] == 'v' &&
      parseDecimal(piece.substr(1), 64, n))
    return {ModId::Vec, n};
  if (piece.size() >= 2 && piece[0] == 'x' &&
      parseDecimal(piece.substr(1), 1024, n))
    return {ModId::Count, n};
  if (piece.size() == 2 && piece[1] == 'd' && piece[0] >= '1' &&
      piece[0] <= '5')
    return {ModId::Dim, piece[0] - '0'};
  if (piece.size() > 11 && piece.substr(0, 11) == "cta_group::" &&
      parseDecimal(piece.substr(11), 16, n))
    return {ModId::CtaGroup, n};
  // collector::bN::{fill,use,lastuse,discard} (tcgen05.mma.ws)
  if (piece.size() > 12 && piece.substr(0, 12) == "collector::b") {
    std::string_view rest = piece.substr(12);
    size_t sep = rest.find("::");
    static constexpr std::pair<std::string_view, CollectorOp> kOps[] = {
        {"fill", CollectorFill},
        {"use", CollectorUse},
        {"lastuse", CollectorLastuse},
        {"discard", CollectorDiscard}};
    if (sep != std::string_view::npos &&
        parseDecimal(rest.substr(0, sep), 1023, n))
      for (const auto &[name, op] : kOps)
        if (rest.substr(sep + 2) == name)
          return {ModId::CollectorB, n * 4 + op};
  }
  // mMnN[kK]
  if (piece.size() >= 4 && piece[0] == 'm') {
    size_t nPos = piece.find('n');
    if (nPos != std::string_view::npos && nPos > 1) {
      size_t kPos = piece.find('k', nPos);
      int32_t m = 0, nn = 0, k = 0;
      std::string_view ms = piece.substr(1, nPos - 1);
      std::string_view ns = piece.substr(
          nPos + 1,
          (kPos == std::string_view::npos ? piece.size() : kPos) - nPos - 1);
      bool ok = parseDecimal(ms, 1023, m) && parseDecimal(ns, 1023, nn);
      if (ok && kPos != std::string_view::npos)
        ok = parseDecimal(piece.substr(kPos + 1), 1023, k);
      if (ok)
        return {ModId::MmaShape, (m << 20) | (nn << 10) | k};
    }
  }
  known = false;
  return {ModId::Unknown, 0};
}

//===----------------------------------------------------------------------===//
// Parser
//===----------------------------------------------------------------------===//

/// A name visible in a block: a register or a function-scope variable.
struct ScopeEntry {
  enum Kind : uint8_t { Register, Local } kind;
  int32_t index;
};

/// A label use waiting for its definition.
struct PendingLabel {
  std::string name;
  int32_t instr;
  int32_t operand;
  SourceLoc loc;
};

struct Block {
  std::unordered_map<std::string, ScopeEntry> names;
  std::unordered_map<std::string, int32_t> labels; ///< name -> Label index
  std::vector<PendingLabel> pending;
};

class Parser {
public:
  Parser(std::vector<Token> toks, std::string_view buffer,
         const ParseLimits &limits, Module &m)
      : toks_(std::move(toks)), buffer_(buffer), limits_(limits), m_(m) {}

  Error parseModule();

private:
  //--- token helpers -------------------------------------------------------
  const Token &cur() const { return toks_[pos_]; }
  const Token &peekTok(size_t n = 1) const {
    size_t i = pos_ + n;
    return i < toks_.size() ? toks_[i] : toks_.back();
  }
  void next() {
    if (pos_ + 1 < toks_.size())
      ++pos_;
  }
  bool isPunct(char c) const {
    return cur().kind == Tok::Punct && cur().punct == c;
  }
  bool isDot(std::string_view s) const {
    return cur().kind == Tok::Dot && cur().text == s;
  }
  bool consumePunct(char c) {
    if (!isPunct(c))
      return false;
    next();
    return true;
  }

  static std::string describe(const Token &t) {
    switch (t.kind) {
    case Tok::Eof:
      return "end of file";
    case Tok::Ident:
      return "identifier '" + std::string(t.text) + "'";
    case Tok::Dot:
      return "'." + std::string(t.text) + "'";
    case Tok::Reg:
      return "register '" + std::string(t.text) + "'";
    case Tok::Int:
      return "integer '" + std::string(t.text) + "'";
    case Tok::F32Bits:
    case Tok::F64Bits:
    case Tok::Float:
      return "floating-point constant '" + std::string(t.text) + "'";
    case Tok::String:
      return "string \"" + std::string(t.text.substr(0, 40)) + "\"";
    case Tok::Punct:
      return std::string("'") + t.punct + "'";
    }
    return "?";
  }

  Error errorAt(const Token &t, const std::string &msg) {
    return Error::failure(formatLoc(buffer_, t.line, t.col) +
                          ": error: " + msg);
  }
  Error errorAt(SourceLoc l, const std::string &msg) {
    return Error::failure(formatLoc(buffer_, l.line, l.col) +
                          ": error: " + msg);
  }
  Error expected(const std::string &what) {
    return errorAt(cur(), "expected " + what + ", found " + describe(cur()));
  }
  Error expectPunct(char c, const char *context) {
    if (consumePunct(c))
      return Error::success();
    return expected(std::string("'") + c + "' " + context);
  }
  static SourceLoc locOf(const Token &t) { return {t.line, t.col}; }

  //--- module level --------------------------------------------------------
  Error parseVersion();
  Error parseTarget();
  Error parseAddressSize();
  Error skipLine(uint32_t line);
  Error skipBalancedSection();
  Error parseTopLevelDecl();
  Error parseFunction(bool isEntry, const Token &kw, bool visible,
                      bool isExtern, bool weak);
  Error parseParamList(std::vector<Variable> &out, bool isReturn);
  Error parseParam(Variable &v);
  Error parseFunctionDirectives(FunctionDirectives &d);
  Error parseDims(Variable &v);
  Error parseVarDecls(Space space, bool isExtern, bool visible, bool weak,
                      bool common, std::vector<Variable> *moduleOut);
  Error parseInitializer(Variable &v);
  Error parseInitList(Variable &v, unsigned depth);
  Error parseInitElem(Variable &v);

  //--- function bodies -----------------------------------------------------
  Error parseBody();
  Error parseBlockContents(unsigned depth);
  Error closeBlock(bool isFunctionBlock);
  Error parseRegDecl();
  Error parseStatement();
  Error parseInstruction(int32_t guard, bool negated, const Token &guardTok);
  Error parseMnemonic(Instruction &inst);
  Error parseOperand(Instruction &inst, Operand &op, bool allowList,
                     unsigned depth);
  Error parseAddress(Instruction &inst, Operand &op, unsigned depth);
  Error parseVectorOperand(Instruction &inst, Operand &op, unsigned depth);
  Error parseNameOperand(Instruction &inst, Operand &op, bool allowOffset);
  Error parseSpecialOrRegister(Operand &op);
  Error lookupRegister(const Token &t, int32_t &reg);
  bool lookupName(std::string_view name, ScopeEntry &out) const;
  bool lookupSymbol(std::string_view name, SymbolRef &out) const;

  //--- constant expressions ------------------------------------------------
  Error parseConstExpr(int64_t &v, unsigned depth);
  Error parseBinary(int64_t &v, int prec, unsigned depth);
  Error parseUnary(int64_t &v, unsigned depth);
  Error parseInt32(uint32_t &v, const char *what);

  std::vector<Token> toks_;
  size_t pos_ = 0;
  std::string_view buffer_;
  const ParseLimits &limits_;
  Module &m_;
  uint64_t moduleRegs_ = 0;

  // Per-function state.
  Function *fn_ = nullptr;
  std::vector<Block> blocks_;
  int32_t curInstrForLabel_ = -1;
};

//===----------------------------------------------------------------------===//
// Module level
//===----------------------------------------------------------------------===//

Error Parser::parseModule() {
  while (cur().kind != Tok::Eof) {
    const Token &t = cur();
    if (t.kind != Tok::Dot)
      return expected("a directive such as .version, .target, .entry, .func "
                      "or a variable declaration");
    if (t.text == "version") {
      if (Error e = parseVersion())
        return e;
    } else if (t.text == "target") {
      if (Error e = parseTarget())
        return e;
    } else if (t.text == "address_size") {
      if (Error e = parseAddressSize())
        return e;
    } else if (t.text == "file" || t.text == "loc") {
      uint32_t line = t.line;
      next();
      if (Error e = skipLine(line))
        return e;
    } else if (t.text == "section") {
      if (Error e = skipBalancedSection())
        return e;
    } else if (t.text == "pragma") {
      next();
      if (cur().kind != Tok::String)
        return expected("a string after .pragma");
      next();
      if (Error e = expectPunct(';', "after .pragma"))
        return e;
    } else {
      if (Error e = parseTopLevelDecl())
        return e;
    }
  }
  if (m_.versionMajor == 0)
    return errorAt(toks_.front(), "missing .version directive");
  return Error::success();
}

Error Parser::parseVersion() {
  next();
  const Token &t = cur();
  if (t.kind == Tok::Float) {
    // "8.8" lexes as a decimal float; split the text.
    std::string_view s = t.text;
    size_t dot = s.find('.');
    int32_t maj = 0, min = 0;
    if (dot == std::string_view::npos ||
        !parseDecimal(s.substr(0, dot), 99, maj) ||
        !parseDecimal(s.substr(dot + 1), 99, min))
      return expected("a version number MAJOR.MINOR after .version");
    m_.versionMajor = static_cast<uint32_t>(maj);
    m_.versionMinor = static_cast<uint32_t>(min);
    next();
    return Error::success();
  }
  return expected("a version number MAJOR.MINOR after .version");
}

Error Parser::parseTarget() {
  next();
  while (true) {
    if (cur().kind != Tok::Ident)
      return expected("a target name such as sm_100a after .target");
    m_.targets.emplace_back(cur().text);
    next();
    if (!consumePunct(','))
      break;
  }
  return Error::success();
}

Error Parser::parseAddressSize() {
  next();
  if (cur().kind != Tok::Int || (cur().ival != 32 && cur().ival != 64))
    return expected("32 or 64 after .address_size");
  m_.addressSize = static_cast<uint32_t>(cur().ival);
  next();
  return Error::success();
}

Error Parser::skipLine(uint32_t line) {
  while (cur().kind != Tok::Eof && cur().line == line)
    next();
  return Error::success();
}

Error Parser::skipBalancedSection() {
  // .section name { ... }
  next();
  while (cur().kind != Tok::Eof && !isPunct('{'))
    next();
  if (!isPunct('{'))
    return expected("'{' after .section");
  unsigned depth = 0;
  do {
    if (isPunct('{'))
      ++depth;
    else if (isPunct('}'))
      --depth;
    else if (cur().kind == Tok::Eof)
      return expected("'}' closing .section");
    next();
  } while (depth > 0);
  return Error::success();
}

Error Parser::parseTopLevelDecl() {
  bool visible = false, isExtern = false, weak = false, common = false;
  while (cur().kind == Tok::Dot) {
    std::string_view s = cur().text;
    if (s == "visible")
      visible = true;
    else if (s == "extern")
      isExtern = true;
    else if (s == "weak")
      weak = true;
    else if (s == "common")
      common = true;
    else
      break;
    next();
  }
  if (cur().kind != Tok::Dot)
    return expected("'.entry', '.func' or a state space after the linkage "
                    "directives");
  const Token kw = cur();
  std::string_view s = kw.text;
  if (s == "entry" || s == "func") {
    next();
    return parseFunction(s == "entry", kw, visible, isExtern, weak);
  }
  Space space;
  if (s == "global")
    space = Space::Global;
  else if (s == "const")
    space = Space::Const;
  else if (s == "shared")
    space = Space::Shared;
  else if (s == "tex")
    space = Space::Tex;
  else if (s == "alias" || s == "callprototype")
    return errorAt(kw, "the ." + std::string(s) +
                           " directive is not supported by the emulator");
  else
    return errorAt(kw, "expected a module-level directive (.version, "
                       ".target, .address_size, .entry, .func, .global, "
                       ".const, .shared), found " +
                           describe(kw));
  next();
  return parseVarDecls(space, isExtern, visible, weak, common, &m_.globals);
}

Error Parser::parseFunction(bool isEntry, const Token &kw, bool visible,
                            bool isExtern, bool weak) {
  Function f;
  f.isEntry = isEntry;
  f.isVisible = visible;
  f.isExtern = isExtern;
  f.isWeak = weak;
  f.loc = locOf(kw);
  if (!isEntry && isPunct('(')) {
    if (Error e = parseParamList(f.returns, /*isReturn=*/true))
      return e;
  }
  if (cur().kind != Tok::Ident)
    return expected(std::string("a function name after .") +
                    (isEntry ? "entry" : "func"));
  f.name = std::string(cur().text);
  const Token nameTok = cur();
  next();
  if (isPunct('(')) {
    if (Error e = parseParamList(f.params, /*isReturn=*/false))
      return e;
  }
  if (Error e = parseFunctionDirectives(f.directives))
    return e;

  // Merge with an earlier declaration of the same name.
  int32_t existing = m_.findFunctionIndex(f.name);
  if (existing >= 0 && m_.functions[existing].hasBody && isPunct('{'))
    return errorAt(nameTok, "redefinition of function '" + f.name + "'");
  if (existing >= 0 && m_.functions[existing].isEntry != isEntry)
    return errorAt(nameTok, "'" + f.name +
                                "' was declared before as a different kind of "
                                "function");
  for (const Variable &v : f.params)
    for (const Variable &w : f.returns)
      if (v.name == w.name)
        return errorAt(v.loc, "parameter '" + v.name +
                                  "' has the same name as a return value");
  int32_t index;
  if (existing >= 0) {
    index = existing;
    if (isPunct('{')) {
      Function &old = m_.functions[index];
      old.params = std::move(f.params);
      old.returns = std::move(f.returns);
      old.directives = std::move(f.directives);
      old.isVisible |= visible;
      old.loc = f.loc;
    }
  } else {
    index = static_cast<int32_t>(m_.functions.size());
    m_.functions.push_back(std::move(f));
  }
  if (consumePunct(';'))
    return Error::success();
  if (!isPunct('{'))
    return expected("'{' or ';' after the function header");
  fn_ = &m_.functions[index];
  fn_->hasBody = true;
  Error e = parseBody();
  fn_ = nullptr;
  return e;
}

Error Parser::parseParamList(std::vector<Variable> &out, bool isReturn) {
  if (Error e = expectPunct('(', "to start the parameter list"))
    return e;
  if (consumePunct(')'))
    return Error::success();
  while (true) {
    Variable v;
    if (Error e = parseParam(v))
      return e;
    for (const Variable &w : out)
      if (w.name == v.name)
        return errorAt(v.loc, "duplicate parameter '" + v.name + "'");
    out.push_back(std::move(v));
    if (consumePunct(','))
      continue;
    if (consumePunct(')'))
      break;
    return expected(std::string("',' or ')' in the ") +
                    (isReturn ? "return" : "parameter") + " list");
  }
  return Error::success();
}

Error Parser::parseParam(Variable &v) {
  if (cur().kind != Tok::Dot || (cur().text != "param" && cur().text != "reg"))
    return expected("'.param' or '.reg' to start a parameter");
  v.space = cur().text == "param" ? Space::Param : Space::Reg;
  next();
  while (cur().kind == Tok::Dot) {
    std::string_view s = cur().text;
    const Token t = cur();
    if (s == "align") {
      next();
      uint32_t a = 0;
      if (Error e = parseInt32(a, "an alignment after .align"))
        return e;
      if (a == 0 || (a & (a - 1)) || a > (1u << 16))
        return errorAt(t, "alignment must be a power of two up to 65536");
      if (v.isPtr)
        v.ptrAlign = a;
      else
        v.align = a;
      continue;
    }
    if (s == "ptr") {
      v.isPtr = true;
      next();
      continue;
    }
    if (v.isPtr &&
        (s == "global" || s == "shared" || s == "const" || s == "local")) {
      v.ptrSpace = s == "global"   ? Space::Global
                   : s == "shared" ? Space::Shared
                   : s == "const"  ? Space::Const
                                   : Space::Local;
      next();
      continue;
    }
    if (s.size() >= 2 && s[0] == 'v') {
      int32_t n;
      if (parseDecimal(s.substr(1), 64, n) && (n == 2 || n == 4 || n == 8)) {
        v.vecWidth = static_cast<uint32_t>(n);
        next();
        continue;
      }
    }
    auto ti = tables().types.find(s);
    if (ti == tables().types.end())
      return expected("a type, .align or .ptr in the parameter declaration");
    if (v.type != Type::None)
      return errorAt(t, "parameter has two types");
    v.type = ti->second;
    next();
  }
  if (v.type == Type::None)
    return expected("a type in the parameter declaration");
  if (cur().kind != Tok::Ident && cur().kind != Tok::Reg)
    return expected("a parameter name");
  v.name = std::string(cur().text);
  v.loc = locOf(cur());
  next();
  return parseDims(v);
}

Error Parser::parseInt32(uint32_t &v, const char *what) {
  if (cur().kind != Tok::Int || cur().ival > 0xffffffffull)
    return expected(what);
  v = static_cast<uint32_t>(cur().ival);
  next();
  return Error::success();
}

Error Parser::parseFunctionDirectives(FunctionDirectives &d) {
  while (cur().kind == Tok::Dot) {
    std::string_view s = cur().text;
    const Token t = cur();
    auto readDims = [&](uint32_t(&out)[3]) -> Error {
      next();
      for (unsigned i = 0; i < 3; ++i) {
        if (Error e = parseInt32(
                out[i],
                ("a thread or CTA count after ." + std::string(s)).c_str()))
          return e;
        if (!consumePunct(','))
          break;
      }
      return Error::success();
    };
    if (s == "maxntid") {
      if (Error e = readDims(d.maxntid))
        return e;
    } else if (s == "reqntid") {
      if (Error e = readDims(d.reqntid))
        return e;
    } else if (s == "reqnctapercluster") {
      if (Error e = readDims(d.reqnctapercluster))
        return e;
    } else if (s == "maxnreg" || s == "minnctapersm" || s == "maxnctapersm" ||
               s == "maxclusterrank" || s == "abi_preserve" ||
               s == "abi_preserve_control") {
      next();
      uint32_t v = 0;
      if (Error e = parseInt32(v, ("a count after ." + std::string(s)).c_str()))
        return e;
      if (s == "maxnreg")
        d.maxnreg = v;
      else if (s == "minnctapersm")
        d.minnctapersm = v;
      else if (s == "maxnctapersm")
        d.maxnctapersm = v;
      else if (s == "maxclusterrank")
        d.maxclusterrank = v;
    } else if (s == "explicitcluster") {
      d.explicitCluster = true;
      next();
    } else if (s == "noreturn") {
      d.noreturn = true;
      next();
    } else if (s == "blocksareclusters") {
      d.blocksAreClusters = true;
      next();
    } else if (s == "pragma") {
      next();
      if (cur().kind != Tok::String)
        return expected("a string after .pragma");
      d.pragmas.emplace_back(cur().text);
      next();
      if (Error e = expectPunct(';', "after .pragma"))
        return e;
    } else {
      return errorAt(t, "expected a function directive (.maxntid, .reqntid, "
                        ".maxnreg, .reqnctapercluster, .explicitcluster, "
                        "...), '{' or ';', found " +
                            describe(t));
    }
  }
  return Error::success();
}

Error Parser::parseDims(Variable &v) {
  uint64_t total = v.elementBytes();
  while (isPunct('[')) {
    next();
    if (consumePunct(']')) {
      v.dims.push_back(0);
      continue;
    }
    int64_t n;
    const Token t = cur();
    if (Error e = parseConstExpr(n, 0))
      return e;
    if (n <= 0)
      return errorAt(t, "array dimension must be positive, found " +
                            std::to_string(n));
    if (static_cast<uint64_t>(n) > limits_.maxVariableBytes ||
        total > limits_.maxVariableBytes / static_cast<uint64_t>(n))
      return errorAt(t, "variable '" + v.name + "' is too large (limit " +
                            std::to_string(limits_.maxVariableBytes) +
                            " bytes)");
    total *= static_cast<uint64_t>(n);
    v.dims.push_back(static_cast<uint64_t>(n));
    if (Error e = expectPunct(']', "after the array dimension"))
      return e;
  }
  for (size_t i = 1; i < v.dims.size(); ++i)
    if (v.dims[i] == 0)
      return errorAt(v.loc, "only the first array dimension of '" + v.name +
                                "' may be left unsized");
  return Error::success();
}

Error Parser::parseVarDecls(Space space, bool isExtern, bool visible, bool weak,
                            bool common, std::vector<Variable> *moduleOut) {
  Variable proto;
  proto.space = space;
  proto.isExtern = isExtern;
  proto.isVisible = visible;
  proto.isWeak = weak;
  proto.isCommon = common;
  while (cur().kind == Tok::Dot) {
    std::string_view s = cur().text;
    const Token t = cur();
    if (s == "align") {
      next();
      uint32_t a = 0;
      if (Error e = parseInt32(a, "an alignment after .align"))
        return e;
      if (a == 0 || (a & (a - 1)) || a > (1u << 16))
        return errorAt(t, "alignment must be a power of two up to 65536");
      proto.align = a;
      continue;
    }
    if (s.size() >= 2 && s[0] == 'v') {
      int32_t n;
      if (parseDecimal(s.substr(1), 64, n) && (n == 2 || n == 4 || n == 8)) {
        proto.vecWidth = static_cast<uint32_t>(n);
        next();
        continue;
      }
    }
    if (s == "ptr") {
      next();
      continue;
    }
    auto ti = tables().types.find(s);
    if (ti == tables().types.end())
      return expected("a type or .align in the variable declaration");
    if (proto.type != Type::None)
      return errorAt(t, "variable declaration has two types");
    proto.type = ti->second;
    next();
  }
  if (proto.type == Type::None)
    return expected(std::string("a type in the .") + spaceName(space) +
                    " declaration");
  if (proto.type == Type::Pred)
    return errorAt(cur(), "variables of type .pred must be in the .reg space");
  while (true) {
    if (cur().kind != Tok::Ident && cur().kind != Tok::Reg)
      return expected("a variable name");
    Variable v = proto;
    v.name = std::string(cur().text);
    v.loc = locOf(cur());
    next();
    if (isPunct('<'))
      return errorAt(cur(), "parameterized names (name<N>) are only allowed "
                            "for registers");
    if (Error e = parseDims(v))
      return e;
    if (consumePunct('=')) {
      if (isExtern)
        return errorAt(v.loc, "extern variable '" + v.name +
                                  "' cannot have an initializer");
      if (Error e = parseInitializer(v))
        return e;
    }
    if (!v.dims.empty() && v.dims[0] == 0) {
      // Unsized: from the initializer, or extern (dynamic shared memory).
      if (!v.init.empty()) {
        uint64_t inner = 1;
        for (size_t i = 1; i < v.dims.size(); ++i)
          inner *= v.dims[i];
        uint64_t n = (v.init.size() / v.vecWidth + inner - 1) / inner;
        v.dims[0] = n ? n : 1;
      } else if (!isExtern) {
        return errorAt(v.loc,
                       "array '" + v.name + "' has no size and no initializer");
      }
    }
    if (!v.init.empty() && v.init.size() > v.elementCount() * v.vecWidth)
      return errorAt(v.loc, "too many initializers for '" + v.name + "' (" +
                                std::to_string(v.init.size()) + " for " +
                                std::to_string(v.elementCount() * v.vecWidth) +
                                " elements)");
    if (moduleOut) {
      for (const Variable &w : *moduleOut)
        if (w.name == v.name) {
          if (w.isExtern || v.isExtern)
            goto skipDuplicate;
          return errorAt(v.loc, "redefinition of '" + v.name + "'");
        }
      if (m_.findFunctionIndex(v.name) >= 0)
        return errorAt(v.loc, "'" + v.name + "' is already a function");
      moduleOut->push_back(std::move(v));
    skipDuplicate:;
    } else {
      Block &b = blocks_.back();
      if (b.names.count(v.name))
        return errorAt(v.loc, "redefinition of '" + v.name + "' in this block");
      int32_t idx = static_cast<int32_t>(fn_->locals.size());
      b.names.emplace(v.name, ScopeEntry{ScopeEntry::Local, idx});
      fn_->locals.push_back(std::move(v));
    }
    if (consumePunct(','))
      continue;
    break;
  }
  return expectPunct(';', "after the variable declaration");
}

Error Parser::parseInitializer(Variable &v) {
  if (isPunct('{'))
    return parseInitList(v, 0);
  return parseInitElem(v);
}

Error Parser::parseInitList(Variable &v, unsigned depth) {
  if (depth > limits_.maxNesting)
    return errorAt(cur(), "initializer nested too deeply");
  next(); // '{'
  if (consumePunct('}'))
    return Error::success();
  while (true) {
    if (isPunct('{')) {
      if (Error e = parseInitList(v, depth + 1))
        return e;
    } else if (Error e = parseInitElem(v)) {
      return e;
    }
    if (v.init.size() > (uint64_t(1) << 24))
      return errorAt(cur(), "initializer of '" + v.name + "' is too long");
    if (consumePunct(','))
      continue;
    return expectPunct('}', "or ',' in the initializer list");
  }
}

Error Parser::parseInitElem(Variable &v) {
  InitElem el;
  const Token t = cur();
  unsigned bits = typeBits(v.type);
  uint64_t mask = bits >= 64 ? ~uint64_t(0) : ((uint64_t(1) << bits) - 1);
  bool isF = isFloat(v.type);
  auto fromDouble = [&](double d) -> Error {
    if (v.type == Type::F32) {
      float f = static_cast<float>(d);
      uint32_t u;
      std::memcpy(&u, &f, 4);
      el.bits = u;
    } else if (v.type == Type::F64) {
      std::memcpy(&el.bits, &d, 8);
    } else {
      return errorAt(t, std::string("floating-point initializer for a .") +
                            typeName(v.type) + " variable");
    }
    return Error::success();
  };
  if (t.kind == Tok::F32Bits || t.kind == Tok::F64Bits ||
      t.kind == Tok::Float) {
    next();
    double d;
    if (t.kind == Tok::F32Bits) {
      uint32_t u = static_cast<uint32_t>(t.ival);
      float f;
      std::memcpy(&f, &u, 4);
      d = f;
      if (v.type == Type::F32 || (!isF && bits == 32)) {
        el.bits = u;
        v.init.push_back(el);
        return Error::success();
      }
    } else if (t.kind == Tok::F64Bits) {
      std::memcpy(&d, &t.ival, 8);
      if (v.type == Type::F64 || (!isF && bits == 64)) {
        el.bits = t.ival;
        v.init.push_back(el);
        return Error::success();
      }
    } else {
      d = t.fval;
    }
    if (Error e = fromDouble(d))
      return e;
    v.init.push_back(el);
    return Error::success();
  }
  if (t.kind == Tok::Ident) {
    bool isGeneric = t.text == "generic" && peekTok().kind == Tok::Punct &&
                     peekTok().punct == '(';
    const Token nameTok = isGeneric ? peekTok(2) : t;
    if (nameTok.kind != Tok::Ident)
      return errorAt(nameTok, "expected a variable name in generic(), found " +
                                  describe(nameTok));
    SymbolRef ref;
    if (!lookupSymbol(nameTok.text, ref))
      return errorAt(nameTok, "use of undeclared identifier '" +
                                  std::string(nameTok.text) + "'");
    if (isGeneric) {
      next();
      next();
      next();
      if (Error e = expectPunct(')', "after the name in generic("))
        return e;
    } else {
      next();
    }
    el.sym = ref;
    el.generic = isGeneric;
    int64_t off = 0;
    if (isPunct('+') || isPunct('-')) {
      bool neg = isPunct('-');
      next();
      if (Error e = parseUnary(off, 0))
        return e;
      if (neg)
        off = static_cast<int64_t>(0 - static_cast<uint64_t>(off));
    }
    el.bits = static_cast<uint64_t>(off);
    if (bits < 32)
      return errorAt(t, "an address initializer needs a 32- or 64-bit "
                        "variable");
    v.init.push_back(el);
    return Error::success();
  }
  int64_t val;
  if (Error e = parseConstExpr(val, 0))
    return e;
  if (isF) {
    if (Error e = fromDouble(static_cast<double>(val)))
      return e;
  } else {
    el.bits = static_cast<uint64_t>(val) & mask;
  }
  v.init.push_back(el);
  return Error::success();
}

//===----------------------------------------------------------------------===//
// Constant expressions (integers; PTX 4.5.4)
//===----------------------------------------------------------------------===//

Error Parser::parseConstExpr(int64_t &v, unsigned depth) {
  return parseBinary(v, 0, depth);
}

namespace {
int binaryPrec(const Token &t) {
  if (t.kind != Tok::Punct)
    return -1;
  switch (t.punct) {
  case '*':
  case '/':
  case '%':
    return 10;
  case '+':
  case '-':
    return 9;
  case '&':
    return 6;
  case '^':
    return 5;
  case '|':
    return 4;
  default:
    return -1;
  }
}
} // namespace

Error Parser::parseBinary(int64_t &v, int prec, unsigned depth) {
  if (depth > limits_.maxNesting)
    return errorAt(cur(), "expression nested too deeply");
  if (Error e = parseUnary(v, depth + 1))
    return e;
  while (true) {
    // Shifts are two tokens: "<<" and ">>".
    int p = binaryPrec(cur());
    bool shl =
        isPunct('<') && peekTok().kind == Tok::Punct && peekTok().punct == '<';
    bool shr =
        isPunct('>') && peekTok().kind == Tok::Punct && peekTok().punct == '>';
    if (shl || shr)
      p = 8;
    if (p < 0 || p < prec)
      return Error::success();
    const Token op = cur();
    next();
    if (shl || shr)
      next();
    int64_t rhs;
    if (Error e = parseBinary(rhs, p + 1, depth + 1))
      return e;
    uint64_t a = static_cast<uint64_t>(v), b = static_cast<uint64_t>(rhs);
    if (shl || shr) {
      if (b >= 64)
        v = shr && v < 0 ? -1 : 0;
      else
        v = shl ? static_cast<int64_t>(a << b) : (v >> b);
      continue;
    }
    switch (op.punct) {
    case '*':
      v = static_cast<int64_t>(a * b);
      break;
    case '+':
      v = static_cast<int64_t>(a + b);
      break;
    case '-':
      v = static_cast<int64_t>(a - b);
      break;
    case '&':
      v = static_cast<int64_t>(a & b);
      break;
    case '^':
      v = static_cast<int64_t>(a ^ b);
      break;
    case '|':
      v = static_cast<int64_t>(a | b);
      break;
    case '/':
    case '%':
      if (rhs == 0)
        return errorAt(op, "division by zero in a constant expression");
      if (v == INT64_MIN && rhs == -1)
        v = op.punct == '/' ? INT64_MIN : 0;
      else
        v = op.punct == '/' ? v / rhs : v % rhs;
      break;
    }
  }
}

Error Parser::parseUnary(int64_t &v, unsigned depth) {
  if (depth > limits_.maxNesting)
    return errorAt(cur(), "expression nested too deeply");
  if (isPunct('-') || isPunct('~') || isPunct('!') || isPunct('+')) {
    char c = cur().punct;
    next();
    if (Error e = parseUnary(v, depth + 1))
      return e;
    if (c == '-')
      v = static_cast<int64_t>(0 - static_cast<uint64_t>(v));
    else if (c == '~')
      v = ~v;
    else if (c == '!')
      v = !v;
    return Error::success();
  }
  if (consumePunct('(')) {
    if (Error e = parseBinary(v, 0, depth + 1))
      return e;
    return expectPunct(')', "to close the parenthesized expression");
  }
  if (cur().kind == Tok::Int) {
    v = static_cast<int64_t>(cur().ival);
    next();
    return Error::success();
  }
  return expected("an integer constant");
}

//===----------------------------------------------------------------------===//
// Function bodies
//===----------------------------------------------------------------------===//

bool Parser::lookupName(std::string_view name, ScopeEntry &out) const {
  std::string key(name);
  for (auto it = blocks_.rbegin(); it != blocks_.rend(); ++it) {
    auto f = it->names.find(key);
    if (f != it->names.end()) {
      out = f->second;
      return true;
    }
  }
  return false;
}

bool Parser::lookupSymbol(std::string_view name, SymbolRef &out) const {
  ScopeEntry se;
  if (fn_ && lookupName(name, se) && se.kind == ScopeEntry::Local) {
    out = {SymbolKind::LocalVar, se.index};
    return true;
  }
  if (fn_) {
    for (size_t i = 0; i < fn_->params.size(); ++i)
      if (fn_->params[i].name == name) {
        out = {SymbolKind::Param, static_cast<int32_t>(i)};
        return true;
      }
    for (size_t i = 0; i < fn_->returns.size(); ++i)
      if (fn_->returns[i].name == name) {
        out = {SymbolKind::Return, static_cast<int32_t>(i)};
        return true;
      }
  }
  for (size_t i = 0; i < m_.globals.size(); ++i)
    if (m_.globals[i].name == name) {
      out = {SymbolKind::ModuleVar, static_cast<int32_t>(i)};
      return true;
    }
  int32_t f = m_.findFunctionIndex(name);
  if (f >= 0) {
    out = {SymbolKind::Function, f};
    return true;
  }
  return false;
}

Error Parser::parseBody() {
  next(); // '{'
  blocks_.clear();
  blocks_.emplace_back();
  // Parameters of .reg space are registers.
  for (size_t i = 0; i < fn_->params.size(); ++i) {
    const Variable &p = fn_->params[i];
    if (p.space == Space::Reg) {
      int32_t idx = static_cast<int32_t>(fn_->regs.size());
      fn_->regs.push_back({p.name, p.type, p.loc});
      blocks_.back().names.emplace(p.name,
                                   ScopeEntry{ScopeEntry::Register, idx});
    }
  }
  if (Error e = parseBlockContents(0))
    return e;
  return Error::success();
}

Error Parser::parseBlockContents(unsigned depth) {
  if (depth > limits_.maxNesting)
    return errorAt(cur(), "blocks nested too deeply");
  while (true) {
    if (cur().kind == Tok::Eof)
      return expected("'}' to close the function body");
    if (isPunct('}')) {
      next();
      return closeBlock(depth == 0);
    }
    if (isPunct('{')) {
      next();
      blocks_.emplace_back();
      if (Error e = parseBlockContents(depth + 1))
        return e;
      continue;
    }
    if (Error e = parseStatement())
      return e;
  }
}

Error Parser::closeBlock(bool isFunctionBlock) {
  Block b = std::move(blocks_.back());
  blocks_.pop_back();
  for (PendingLabel &p : b.pending) {
    auto it = b.labels.find(p.name);
    if (it != b.labels.end()) {
      Operand &op = fn_->body[p.instr].operands[p.operand];
      op.kind = Operand::Kind::Label;
      op.label = fn_->labels[it->second].target;
      continue;
    }
    if (!isFunctionBlock) {
      blocks_.back().pending.push_back(std::move(p));
      continue;
    }
    // Functions may be referenced before they are declared.
    int32_t f = m_.findFunctionIndex(p.name);
    if (f >= 0) {
      Operand &op = fn_->body[p.instr].operands[p.operand];
      op.kind = Operand::Kind::Symbol;
      op.sym = {SymbolKind::Function, f};
      continue;
    }
    return errorAt(p.loc, "use of undeclared identifier '" + p.name + "'");
  }
  return Error::success();
}

Error Parser::parseRegDecl() {
  next(); // .reg
  Type type = Type::None;
  while (cur().kind == Tok::Dot) {
    std::string_view s = cur().text;
    if (s.size() >= 2 && s[0] == 'v' && isDigit(s[1]))
      return errorAt(cur(), "vector registers (.reg .v" +
                                std::string(s.substr(1)) +
                                ") are not supported by the emulator");
    auto ti = tables().types.find(s);
    if (ti == tables().types.end())
      return expected("a register type after .reg");
    if (type != Type::None)
      return errorAt(cur(), "register declaration has two types");
    type = ti->second;
    next();
  }
  if (type == Type::None)
    return expected("a register type after .reg");
  if (typeBits(type) > 64 && type != Type::B128)
    return errorAt(cur(), std::string("registers of type .") + typeName(type) +
                              " are not supported");
  while (true) {
    if (cur().kind != Tok::Reg && cur().kind != Tok::Ident)
      return expected("a register name in the .reg declaration");
    const Token nameTok = cur();
    std::string base(nameTok.text);
    next();
    uint64_t count = 0;
    bool ranged = false;
    if (consumePunct('<')) {
      if (cur().kind != Tok::Int)
        return expected("a register count inside '<...>'");
      count = cur().ival;
      next();
      if (Error e = expectPunct('>', "after the register count"))
        return e;
      ranged = true;
    } else {
      count = 1;
    }
    if (count > limits_.maxRegistersPerFunction ||
        fn_->regs.size() + count > limits_.maxRegistersPerFunction)
      return errorAt(nameTok,
                     "too many registers in function '" + fn_->name +
                         "' (limit " +
                         std::to_string(limits_.maxRegistersPerFunction) + ")");
    if (moduleRegs_ + count > limits_.maxRegistersPerModule)
      return errorAt(nameTok,
                     "too many registers in the module (limit " +
                         std::to_string(limits_.maxRegistersPerModule) + ")");
    moduleRegs_ += count;
    Block &b = blocks_.back();
    for (uint64_t i = 0; i < count; ++i) {
      std::string name = ranged ? base + std::to_string(i) : base;
      if (b.names.count(name))
        return errorAt(nameTok, "redefinition of register '" + name + "'");
      int32_t idx = static_cast<int32_t>(fn_->regs.size());
      fn_->regs.push_back({name, type, locOf(nameTok)});
      b.names.emplace(std::move(name), ScopeEntry{ScopeEntry::Register, idx});
    }
    if (consumePunct(','))
      continue;
    break;
  }
  return expectPunct(';', "after the register declaration");
}

Error Parser::parseStatement() {
  const Token t = cur();
  if (t.kind == Tok::Dot) {
    std::string_view s = t.text;
    if (s == "reg")
      return parseRegDecl();
    if (s == "local" || s == "shared" || s == "param" || s == "const" ||
        s == "global") {
      Space sp = s == "local"    ? Space::Local
                 : s == "shared" ? Space::Shared
                 : s == "param"  ? Space::Param
                 : s == "const"  ? Space::Const
                                 : Space::Global;
      next();
      return parseVarDecls(sp, false, false, false, false, nullptr);
    }
    if (s == "pragma") {
      next();
      if (cur().kind != Tok::String)
        return expected("a string after .pragma");
      fn_->directives.pragmas.emplace_back(cur().text);
      next();
      return expectPunct(';', "after .pragma");
    }
    if (s == "loc" || s == "file") {
      next();
      return skipLine(t.line);
    }
    return errorAt(t, "expected an instruction, a label or a declaration "
                      "(.reg, .local, .shared, .param), found " +
                          describe(t));
  }
  // Label definition.
  if (t.kind == Tok::Ident && peekTok().kind == Tok::Punct &&
      peekTok().punct == ':') {
    next();
    next();
    Block &b = blocks_.back();
    std::string name(t.text);
    if (b.labels.count(name))
      return errorAt(t, "redefinition of label '" + name + "'");
    int32_t idx = static_cast<int32_t>(fn_->labels.size());
    fn_->labels.push_back(
        {name, static_cast<int32_t>(fn_->body.size()), locOf(t)});
    b.labels.emplace(std::move(name), idx);
    return Error::success();
  }
  // Guard predicate.
  if (isPunct('@')) {
    const Token at = cur();
    next();
    bool neg = consumePunct('!');
    if (cur().kind != Tok::Reg && cur().kind != Tok::Ident)
      return expected("a predicate register after '@'");
    const Token predTok = cur();
    int32_t reg = -1;
    if (Error e = lookupRegister(predTok, reg))
      return e;
    if (fn_->regs[reg].type != Type::Pred)
      return errorAt(predTok, "guard '" + std::string(predTok.text) +
                                  "' is not a .pred register");
    next();
    return parseInstruction(reg, neg, at);
  }
  if (t.kind != Tok::Ident)
    return expected("an instruction, a label or a declaration");
  return parseInstruction(-1, false, t);
}

Error Parser::lookupRegister(const Token &t, int32_t &reg) {
  ScopeEntry se;
  if (!lookupName(t.text, se) || se.kind != ScopeEntry::Register)
    return errorAt(t,
                   "use of undeclared register '" + std::string(t.text) + "'");
  reg = se.index;
  return Error::success();
}

Error Parser::parseMnemonic(Instruction &inst) {
  const Token first = cur();
  // Collect the dotted pieces that touch the opcode.
  std::vector<std::string_view> pieces;
  pieces.push_back(first.text);
  uint32_t endCol = first.endCol, line = first.line;
  next();
  while (cur().kind == Tok::Dot && cur().line == line && cur().col == endCol) {
    pieces.push_back(cur().text);
    endCol = cur().endCol;
    next();
  }
  inst.mnemonic = std::string(pieces[0]);
  for (size_t i = 1; i < pieces.size(); ++i) {
    inst.mnemonic += '.';
    inst.mnemonic += pieces[i];
  }
  // Longest dotted prefix that names an opcode. A piece "a::b" matches as "a".
  const Tables &tb = tables();
  size_t matched = 0;
  bool lastHadQualifier = false;
  std::string key;
  for (size_t n = std::min<size_t>(pieces.size(), 5); n >= 1; --n) {
    key.clear();
    bool qual = false, usable = true;
    for (size_t i = 0; i < n; ++i) {
      std::string_view p = pieces[i];
      size_t q = p.find("::");
      if (q != std::string_view::npos) {
        if (i + 1 != n) {
          usable = false;
          break;
        }
        p = p.substr(0, q);
        qual = true;
      }
      if (i)
        key += '.';
      key += p;
    }
    if (!usable)
      continue;
    auto it = tb.opcodes.find(key);
    if (it != tb.opcodes.end()) {
      inst.opcode = it->second;
      matched = n;
      lastHadQualifier = qual;
      break;
    }
  }
  size_t firstMod = matched;
  if (matched == 0) {
    inst.opcode = Opcode::Unknown;
    firstMod = 1;
  } else if (lastHadQualifier) {
    firstMod = matched - 1; // record "wait::ld" as a modifier too
  }
  for (size_t i = firstMod; i < pieces.size(); ++i) {
    bool known;
    Modifier m = classifyModifier(pieces[i], known);
    if (!known) {
      m.value = static_cast<int32_t>(inst.unknownMods.size());
      inst.unknownMods.emplace_back(pieces[i]);
    }
    inst.mods.push_back(m);
  }
  return Error::success();
}

Error Parser::parseInstruction(int32_t guard, bool negated,
                               const Token &startTok) {
  if (cur().kind != Tok::Ident)
    return expected("an instruction mnemonic");
  Instruction inst;
  inst.loc = locOf(startTok);
  inst.guardReg = guard;
  inst.guardNegated = negated;
  if (Error e = parseMnemonic(inst))
    return e;
  int32_t instrIndex = static_cast<int32_t>(fn_->body.size());
  curInstrForLabel_ = instrIndex;
  std::vector<PendingLabel> pending;
  if (!isPunct(';')) {
    while (true) {
      Operand op;
      size_t before = blocks_.back().pending.size();
      if (Error e = parseOperand(inst, op, inst.opcode == Opcode::Call, 0))
        return e;
      // parseOperand queues label uses with operand index -1; patch it.
      for (size_t i = before; i < blocks_.back().pending.size(); ++i)
        blocks_.back().pending[i].operand =
            static_cast<int32_t>(inst.operands.size());
      inst.operands.push_back(std::move(op));
      if (consumePunct(','))
        continue;
      break;
    }
  }
  if (!isPunct(';'))
    return expected("',' or ';' after the operand of '" + inst.mnemonic + "'");
  next();
  fn_->body.push_back(std::move(inst));
  return Error::success();
}

Error Parser::parseSpecialOrRegister(Operand &op) {
  const Token t = cur();
  ScopeEntry se;
  if (lookupName(t.text, se)) {
    if (se.kind != ScopeEntry::Register)
      return errorAt(t, "'" + std::string(t.text) + "' is not a register");
    op.kind = Operand::Kind::Register;
    op.reg = se.index;
    next();
    return Error::success();
  }
  if (t.kind == Tok::Reg) {
    auto it = tables().sregs.find(t.text.substr(1));
    if (it != tables().sregs.end()) {
      op.kind = Operand::Kind::Special;
      op.sreg = it->second;
      next();
      if (specialRegHasComponents(op.sreg)) {
        if (cur().kind != Tok::Dot || cur().line != t.line ||
            cur().col != t.endCol)
          return errorAt(cur(), "expected a component .x, .y or .z after '" +
                                    std::string(t.text) + "', found " +
                                    describe(cur()));
        std::string_view c = cur().text;
        if (c == "x")
          op.comp = 0;
        else if (c == "y")
          op.comp = 1;
        else if (c == "z")
          op.comp = 2;
        else
          return errorAt(cur(), "expected a component .x, .y or .z after '" +
                                    std::string(t.text) + "', found " +
                                    describe(cur()));
        next();
      }
      return Error::success();
    }
    std::string_view name = t.text.substr(1);
    if (name.size() > 6 && name.substr(0, 6) == "envreg")
      return errorAt(t, "special register '" + std::string(t.text) +
                            "' is not supported by the emulator");
    return errorAt(t,
                   "use of undeclared register '" + std::string(t.text) + "'");
  }
  return errorAt(t, "use of undeclared register '" + std::string(t.text) + "'");
}

Error Parser::parseNameOperand(Instruction &inst, Operand &op,
                               bool allowOffset) {
  (void)inst;
  const Token t = cur();
  if (t.kind == Tok::Ident && t.text == "_") {
    op.kind = Operand::Kind::Sink;
    next();
    return Error::success();
  }
  ScopeEntry se;
  if (t.kind == Tok::Reg ||
      (lookupName(t.text, se) && se.kind == ScopeEntry::Register))
    return parseSpecialOrRegister(op);
  SymbolRef ref;
  if (lookupSymbol(t.text, ref)) {
    op.kind = Operand::Kind::Symbol;
    op.sym = ref;
    next();
    if (allowOffset && (isPunct('+') || isPunct('-'))) {
      bool neg = isPunct('-');
      next();
      int64_t off;
      if (Error e = parseUnary(off, 0))
        return e;
      op.imm = neg ? static_cast<int64_t>(0 - static_cast<uint64_t>(off)) : off;
    }
    return Error::success();
  }
  if (t.text == "generic" && peekTok().kind == Tok::Punct &&
      peekTok().punct == '(') {
    next();
    next();
    const Token nt = cur();
    if (nt.kind != Tok::Ident || !lookupSymbol(nt.text, ref))
      return errorAt(nt, "expected a variable name in generic(), found " +
                             describe(nt));
    next();
    if (Error e = expectPunct(')', "after the name in generic("))
      return e;
    op.kind = Operand::Kind::Symbol;
    op.sym = ref;
    op.generic = true;
    return Error::success();
  }
  // A label, possibly defined later in this or an enclosing block.
  op.kind = Operand::Kind::Label;
  op.label = -1;
  blocks_.back().pending.push_back(
      {std::string(t.text), curInstrForLabel_, -1, locOf(t)});
  next();
  return Error::success();
}

Error Parser::parseOperand(Instruction &inst, Operand &op, bool allowList,
                           unsigned depth) {
  if (depth > limits_.maxNesting)
    return errorAt(cur(), "operand nested too deeply");
  const Token t = cur();
  op.loc = locOf(t);
  if (consumePunct('!')) {
    if (cur().kind != Tok::Reg && cur().kind != Tok::Ident)
      return expected("a predicate register after '!'");
    if (Error e = parseSpecialOrRegister(op))
      return e;
    if (op.kind != Operand::Kind::Register ||
        fn_->regs[op.reg].type != Type::Pred)
      return errorAt(t, "'!' applies only to predicate registers");
    op.negated = true;
    return Error::success();
  }
  if (isPunct('[')) {
    return parseAddress(inst, op, depth);
  }
  if (isPunct('{'))
    return parseVectorOperand(inst, op, depth);
  if (allowList && isPunct('(')) {
    next();
    op.kind = Operand::Kind::List;
    if (consumePunct(')'))
      return Error::success();
    while (true) {
      Operand e;
      if (Error err = parseOperand(inst, e, false, depth + 1))
        return err;
      if (e.kind == Operand::Kind::Label)
        return errorAt(e.loc, "use of undeclared identifier in the argument "
                              "list");
      op.elems.push_back(std::move(e));
      if (consumePunct(','))
        continue;
      return expectPunct(')', "or ',' in the argument list");
    }
  }
  switch (t.kind) {
  case Tok::Reg:
  case Tok::Ident: {
    if (Error e = parseNameOperand(inst, op, true))
      return e;
    if (op.kind == Operand::Kind::Register && isPunct('|')) {
      next();
      Operand second;
      if (cur().kind != Tok::Reg && cur().kind != Tok::Ident)
        return expected("a predicate register after '|'");
      if (Error e = parseSpecialOrRegister(second))
        return e;
      if (second.kind != Operand::Kind::Register)
        return errorAt(second.loc, "expected a register after '|'");
      op.pairReg = second.reg;
    } else if (op.kind == Operand::Kind::Sink && isPunct('|')) {
      next();
      Operand second;
      if (Error e = parseSpecialOrRegister(second))
        return e;
      if (second.kind != Operand::Kind::Register)
        return errorAt(second.loc, "expected a register after '|'");
      op.pairReg = second.reg;
    }
    return Error::success();
  }
  case Tok::F32Bits:
    op.kind = Operand::Kind::FloatImm;
    op.fbits = t.ival;
    op.isDouble = false;
    next();
    return Error::success();
  case Tok::F64Bits:
    op.kind = Operand::Kind::FloatImm;
    op.fbits = t.ival;
    op.isDouble = true;
    next();
    return Error::success();
  case Tok::Float: {
    op.kind = Operand::Kind::FloatImm;
    std::memcpy(&op.fbits, &t.fval, 8);
    op.isDouble = true;
    next();
    return Error::success();
  }
  default:
    break;
  }
  if (t.kind == Tok::Punct && t.punct == '-' &&
      (peekTok().kind == Tok::F32Bits || peekTok().kind == Tok::F64Bits ||
       peekTok().kind == Tok::Float)) {
    next();
    Operand inner;
    if (Error e = parseOperand(inst, inner, false, depth + 1))
      return e;
    op = inner;
    op.loc = locOf(t);
    if (op.isDouble) {
      op.fbits ^= uint64_t(1) << 63;
    } else {
      op.fbits ^= uint64_t(1) << 31;
    }
    return Error::success();
  }
  if (t.kind == Tok::Int ||
      (t.kind == Tok::Punct &&
       (t.punct == '-' || t.punct == '(' || t.punct == '~' || t.punct == '!' ||
        t.punct == '+'))) {
    int64_t v;
    if (Error e = parseConstExpr(v, depth))
      return e;
    op.kind = Operand::Kind::Imm;
    op.imm = v;
    return Error::success();
  }
  return expected("an operand (register, constant, address, vector or "
                  "label) for '" +
                  inst.mnemonic + "'");
}

Error Parser::parseVectorOperand(Instruction &inst, Operand &op,
                                 unsigned depth) {
  next(); // '{'
  op.kind = Operand::Kind::Vector;
  while (true) {
    Operand e;
    if (Error err = parseOperand(inst, e, false, depth + 1))
      return err;
    if (e.kind == Operand::Kind::Label)
      return errorAt(e.loc, "use of undeclared identifier in a vector "
                            "operand");
    op.elems.push_back(std::move(e));
    if (op.elems.size() > 1024)
      return errorAt(cur(), "vector operand has too many elements");
    if (consumePunct(','))
      continue;
    return expectPunct('}', "or ',' in the vector operand");
  }
}

Error Parser::parseAddress(Instruction &inst, Operand &op, unsigned depth) {
  next(); // '['
  op.kind = Operand::Kind::Address;
  const Token t = cur();
  Operand base;
  base.loc = locOf(t);
  bool haveBase = false;
  if (t.kind == Tok::Reg || (t.kind == Tok::Ident && t.text != "generic")) {
    if (Error e = parseNameOperand(inst, base, false))
      return e;
    if (base.kind == Operand::Kind::Label)
      return errorAt(t, "use of undeclared identifier '" + std::string(t.text) +
                            "' in an address");
    if (base.kind == Operand::Kind::Sink || base.kind == Operand::Kind::Special)
      return errorAt(t, "expected a register or variable as the address "
                        "base, found " +
                            describe(t));
    haveBase = true;
  } else if (t.kind == Tok::Ident) {
    // generic(sym)
    if (Error e = parseNameOperand(inst, base, false))
      return e;
    haveBase = true;
  }
  int64_t offset = 0;
  if (haveBase) {
    while (isPunct('+') || isPunct('-')) {
      bool neg = isPunct('-');
      next();
      int64_t v;
      if (Error e = parseUnary(v, depth + 1))
        return e;
      uint64_t u = static_cast<uint64_t>(v);
      offset = static_cast<int64_t>(static_cast<uint64_t>(offset) +
                                    (neg ? 0 - u : u));
    }
  } else {
    if (Error e = parseConstExpr(offset, depth + 1))
      return e;
    base.kind = Operand::Kind::Imm;
    base.imm = 0;
  }
  op.imm = offset;
  op.elems.push_back(std::move(base));
  while (consumePunct(',')) {
    Operand extra;
    if (Error e = parseOperand(inst, extra, false, depth + 1))
      return e;
    if (extra.kind == Operand::Kind::Label)
      return errorAt(extra.loc, "use of undeclared identifier in an address");
    op.elems.push_back(std::move(extra));
  }
  return expectPunct(']', "to close the address");
}

} // namespace

Expected<std::unique_ptr<Module>>
nvfp4::emu::parseModule(std::string_view text, std::string_view bufferName,
                        const ParseLimits &limits) {
  auto m = std::make_unique<Module>();
  m->bufferName = std::string(bufferName);
  m->source = std::string(text);
  std::vector<Token> toks;
  Lexer lexer(m->source, bufferName);
  if (Error e = lexer.run(toks))
    return e;
  Parser p(std::move(toks), bufferName, limits, *m);
  if (Error e = p.parseModule())
    return e;
  return m;
}
