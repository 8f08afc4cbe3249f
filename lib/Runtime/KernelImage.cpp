//===- KernelImage.cpp - PTX / cubin images and their targets -------------===//
//
// A light reader of what a loader needs to know before loading: the kind of
// image, its target, and the PTX kernel signatures. It is not a PTX parser
// (lib/Emulator has that): it reads directives and `.entry` parameter lists
// and nothing else.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Runtime/KernelImage.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

using namespace nvfp4::rt;

namespace {

// ELF facts (LLVM BinaryFormat/ELF.h).
constexpr uint16_t kEmCuda = 190;
constexpr uint8_t kElfAbiVersionCudaV2 = 8;
constexpr uint32_t kEfCudaSm = 0xff;       // before ABI version 8
constexpr uint32_t kEfCudaSmMask = 0xff00; // from ABI version 8 on
constexpr uint32_t kEfCudaSmOffset = 8;    // from ABI version 8 on
constexpr uint32_t kEfCudaAcceleratorsV1 = 0x800;
constexpr uint32_t kEfCudaAccelerators = 0x8;
// The fatbinary container's magic (fatbinary.h: FATBIN_MAGIC).
constexpr uint32_t kFatbinMagic = 0xBA55ED50;

uint16_t read16(const std::vector<uint8_t> &b, size_t at) {
  return uint16_t(b[at] | (b[at + 1] << 8));
}
uint32_t read32(const std::vector<uint8_t> &b, size_t at) {
  return uint32_t(b[at]) | (uint32_t(b[at + 1]) << 8) |
         (uint32_t(b[at + 2]) << 16) | (uint32_t(b[at + 3]) << 24);
}

bool isElf(const std::vector<uint8_t> &b) {
  return b.size() >= 4 && b[0] == 0x7f && b[1] == 'E' && b[2] == 'L' &&
         b[3] == 'F';
}

/// Replaces `//` and `/* */` comments by spaces, keeping newlines (so that
/// offsets keep their line numbers) and leaving string literals alone.
std::string stripComments(const std::string &s) {
  std::string out = s;
  size_t i = 0, n = s.size();
  while (i < n) {
    if (s[i] == '"') {
      for (++i; i < n && s[i] != '"' && s[i] != '\n'; ++i)
        if (s[i] == '\\')
          ++i;
      ++i;
    } else if (s[i] == '/' && i + 1 < n && s[i + 1] == '/') {
      for (; i < n && s[i] != '\n'; ++i)
        out[i] = ' ';
    } else if (s[i] == '/' && i + 1 < n && s[i + 1] == '*') {
      for (; i < n && !(s[i] == '*' && i + 1 < n && s[i + 1] == '/'); ++i)
        if (s[i] != '\n')
          out[i] = ' ';
      if (i < n) {
        out[i] = out[i + 1] = ' ';
        i += 2;
      }
    } else {
      ++i;
    }
  }
  return out;
}

struct Token {
  std::string text;
  unsigned line;
};

bool isPunct(char c) {
  return c == '(' || c == ')' || c == ',' || c == '[' || c == ']' || c == '{' ||
         c == '}' || c == ';';
}

std::vector<Token> tokenize(const std::string &text) {
  std::vector<Token> tokens;
  unsigned line = 1;
  size_t i = 0, n = text.size();
  while (i < n) {
    char c = text[i];
    if (c == '\n') {
      ++line;
      ++i;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (isPunct(c)) {
      tokens.push_back({std::string(1, c), line});
      ++i;
    } else if (c == '"') {
      size_t start = i++;
      while (i < n && text[i] != '"' && text[i] != '\n')
        i += text[i] == '\\' ? 2 : 1;
      if (i < n && text[i] == '"')
        ++i;
      tokens.push_back({text.substr(start, i - start), line});
    } else {
      size_t start = i;
      while (i < n && !std::isspace(static_cast<unsigned char>(text[i])) &&
             !isPunct(text[i]))
        ++i;
      tokens.push_back({text.substr(start, i - start), line});
    }
  }
  return tokens;
}

/// Bytes of a PTX fundamental type used in a `.param` declaration.
uint64_t ptxTypeBytes(const std::string &t) {
  static const struct {
    const char *name;
    uint64_t bytes;
  } types[] = {{".b8", 1},    {".u8", 1},     {".s8", 1},   {".b16", 2},
               {".u16", 2},   {".s16", 2},    {".f16", 2},  {".bf16", 2},
               {".b32", 4},   {".u32", 4},    {".s32", 4},  {".f32", 4},
               {".f16x2", 4}, {".bf16x2", 4}, {".b64", 8},  {".u64", 8},
               {".s64", 8},   {".f64", 8},    {".b128", 16}};
  for (const auto &entry : types)
    if (t == entry.name)
      return entry.bytes;
  return 0;
}

bool parseUnsigned(const std::string &s, uint64_t &value) {
  if (s.empty())
    return false;
  value = 0;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c)))
      return false;
    value = value * 10 + uint64_t(c - '0');
    if (value > (uint64_t(1) << 40))
      return false;
  }
  return true;
}

/// Parses one `.param` declaration of an entry (its tokens, without the
/// separating commas).
Expected<PtxParam> parseParam(const std::vector<Token> &toks,
                              const std::string &entry) {
  auto fail = [&](const std::string &why) {
    return makeError("cannot read a parameter of .entry ", entry, " (line ",
                     toks.empty() ? 0 : toks.front().line, "): ", why);
  };
  if (toks.empty() || toks[0].text != ".param")
    return fail("expected '.param'");
  PtxParam param;
  uint64_t elementBytes = 0, count = 1, align = 0;
  bool pointer = false;
  for (size_t i = 1; i < toks.size(); ++i) {
    const std::string &t = toks[i].text;
    if (t == ".align") {
      uint64_t a;
      if (i + 1 >= toks.size() || !parseUnsigned(toks[i + 1].text, a))
        return fail("expected a number after .align");
      if (!pointer) // `.ptr ... .align N` is the pointee's alignment
        align = a;
      ++i;
    } else if (t == ".ptr") {
      pointer = true;
    } else if (t == ".global" || t == ".shared" || t == ".const" ||
               t == ".local") {
      // address space of a .ptr parameter's pointee
    } else if (uint64_t b = ptxTypeBytes(t)) {
      elementBytes = b;
    } else if (t == "[") {
      uint64_t n;
      if (i + 2 >= toks.size() || !parseUnsigned(toks[i + 1].text, n) ||
          toks[i + 2].text != "]")
        return fail("expected '[N]' after the parameter name");
      count *= n;
      i += 2;
    } else if (!t.empty() && t[0] != '.' && param.name.empty()) {
      param.name = t;
    } else {
      return fail("unexpected '" + t + "'");
    }
  }
  if (elementBytes == 0)
    return fail("no type");
  if (param.name.empty())
    return fail("no name");
  param.bytes = elementBytes * count;
  param.align = align ? align : elementBytes;
  return param;
}

} // namespace

std::string SmTarget::str() const {
  std::string s = "sm_" + std::to_string(major) + std::to_string(minor);
  if (suffix)
    s += suffix;
  return s;
}

std::optional<SmTarget> SmTarget::parse(const std::string &name) {
  std::string digits;
  if (name.rfind("sm_", 0) == 0)
    digits = name.substr(3);
  else if (name.rfind("compute_", 0) == 0)
    digits = name.substr(8);
  else
    return std::nullopt;
  SmTarget t;
  if (!digits.empty() && (digits.back() == 'a' || digits.back() == 'f')) {
    t.suffix = digits.back();
    digits.pop_back();
  }
  if (digits.size() < 2 || digits.size() > 3)
    return std::nullopt;
  for (char c : digits)
    if (!std::isdigit(static_cast<unsigned char>(c)))
      return std::nullopt;
  unsigned sm = static_cast<unsigned>(std::stoul(digits));
  t.major = sm / 10;
  t.minor = sm % 10;
  return t;
}

const char *nvfp4::rt::stringify(ImageKind k) {
  switch (k) {
  case ImageKind::Ptx:
    return "PTX";
  case ImageKind::Cubin:
    return "cubin";
  case ImageKind::Fatbin:
    return "fatbinary";
  }
  return "?";
}

std::optional<SmTarget> nvfp4::rt::ptxTarget(const std::string &ptx) {
  std::vector<Token> toks = tokenize(stripComments(ptx));
  for (size_t i = 0; i + 1 < toks.size(); ++i)
    if (toks[i].text == ".target")
      return SmTarget::parse(toks[i + 1].text);
  return std::nullopt;
}

Expected<std::vector<PtxEntry>> nvfp4::rt::ptxEntries(const std::string &ptx) {
  std::vector<Token> toks = tokenize(stripComments(ptx));
  std::vector<PtxEntry> entries;
  for (size_t i = 0; i < toks.size(); ++i) {
    if (toks[i].text != ".entry")
      continue;
    if (i + 1 >= toks.size())
      return makeError(".entry without a name (line ", toks[i].line, ")");
    PtxEntry entry;
    entry.name = toks[++i].text;
    if (i + 1 < toks.size() && toks[i + 1].text == "(") {
      i += 2;
      std::vector<Token> current;
      bool closed = false;
      for (; i < toks.size(); ++i) {
        const std::string &t = toks[i].text;
        if (t == "," || t == ")") {
          if (!current.empty()) {
            auto param = parseParam(current, entry.name);
            if (!param)
              return param.takeError();
            entry.params.push_back(*param);
            current.clear();
          } else if (t == ",") {
            return makeError("empty parameter in .entry ", entry.name,
                             " (line ", toks[i].line, ")");
          }
          if (t == ")") {
            closed = true;
            break;
          }
        } else if (t == "{" || t == ";") {
          break;
        } else {
          current.push_back(toks[i]);
        }
      }
      if (!closed)
        return makeError("unterminated parameter list of .entry ", entry.name);
    }
    entries.push_back(std::move(entry));
  }
  return entries;
}

Expected<SmTarget> nvfp4::rt::cubinTarget(const std::vector<uint8_t> &elf) {
  if (!isElf(elf) || elf.size() < 64)
    return makeError("not an ELF file");
  if (elf[4] != 2)
    return makeError("not a 64-bit ELF file (class ", unsigned(elf[4]), ")");
  if (elf[5] != 1)
    return makeError("not a little-endian ELF file");
  if (read16(elf, 18) != kEmCuda)
    return makeError("not a CUDA ELF file (machine ", read16(elf, 18),
                     ", expected 190)");
  uint8_t abiVersion = elf[8];
  uint32_t flags = read32(elf, 48);
  unsigned sm;
  bool accelerators;
  if (abiVersion >= kElfAbiVersionCudaV2) {
    sm = (flags & kEfCudaSmMask) >> kEfCudaSmOffset;
    accelerators = flags & kEfCudaAccelerators;
  } else {
    sm = flags & kEfCudaSm;
    accelerators = flags & kEfCudaAcceleratorsV1;
  }
  if (sm < 10)
    return makeError("cubin has no SM version in its ELF flags (0x", std::hex,
                     flags, ")");
  SmTarget target;
  target.major = sm / 10;
  target.minor = sm % 10;
  target.suffix = accelerators ? 'a' : 0;
  // ptxas records its command line ("-arch sm_100a") in the .note.nv.tkinfo
  // note; the ELF flags do not always tell `a` and `f` targets apart.
  static const char needle[] = "-arch sm_";
  const char *data = reinterpret_cast<const char *>(elf.data());
  const char *end = data + elf.size();
  const char *at = std::search(data, end, needle, needle + sizeof(needle) - 1);
  if (at != end) {
    const char *p = at + sizeof(needle) - 1;
    std::string name = "sm_";
    while (p < end && (std::isalnum(static_cast<unsigned char>(*p))))
      name += *p++;
    if (auto noted = SmTarget::parse(name))
      if (noted->major == target.major && noted->minor == target.minor)
        target.suffix = noted->suffix;
  }
  return target;
}

bool nvfp4::rt::targetRunsOn(const SmTarget &target, bool isPtx,
                             unsigned ccMajor, unsigned ccMinor) {
  if (target.suffix == 'a')
    return target.major == ccMajor && target.minor == ccMinor;
  if (target.suffix == 'f' || !isPtx)
    return target.major == ccMajor && target.minor <= ccMinor;
  return ccMajor > target.major ||
         (ccMajor == target.major && ccMinor >= target.minor);
}

Error nvfp4::rt::checkImageRunsOn(const KernelImage &image, unsigned ccMajor,
                                  unsigned ccMinor,
                                  const std::string &gpuName) {
  if (!image.target || image.kind == ImageKind::Fatbin)
    return Error::success();
  if (targetRunsOn(*image.target, image.kind == ImageKind::Ptx, ccMajor,
                   ccMinor))
    return Error::success();
  SmTarget gpu{ccMajor, ccMinor, 0};
  return makeError("this kernel targets ", image.target->str(),
                   " but the GPU is ", gpu.str(), " (", gpuName,
                   "); use --backend=emulator");
}

Expected<KernelImage> KernelImage::fromFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return makeError("cannot open kernel file '", path,
                     "': ", std::strerror(errno));
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  if (in.bad())
    return makeError("cannot read kernel file '", path, "'");
  return fromBytes(std::move(bytes), path);
}

Expected<KernelImage> KernelImage::fromBytes(std::vector<uint8_t> bytes,
                                             std::string origin) {
  KernelImage image;
  image.origin = std::move(origin);
  if (bytes.empty())
    return makeError(image.origin, " is empty");
  if (isElf(bytes)) {
    auto target = cubinTarget(bytes);
    if (!target)
      return std::move(target.takeError()).withContext(image.origin);
    image.kind = ImageKind::Cubin;
    image.target = *target;
  } else if (bytes.size() >= 4 && read32(bytes, 0) == kFatbinMagic) {
    image.kind = ImageKind::Fatbin;
  } else {
    std::string text(bytes.begin(), bytes.end());
    if (text.find('\0') != std::string::npos)
      return makeError(image.origin,
                       " is neither PTX text nor a cubin or fatbinary");
    std::vector<Token> toks = tokenize(stripComments(text));
    bool hasVersion = false, hasTarget = false;
    for (size_t i = 0; i + 1 < toks.size(); ++i) {
      if (toks[i].text == ".version" && !hasVersion) {
        hasVersion = true;
        image.ptxVersion = toks[i + 1].text;
      } else if (toks[i].text == ".target" && !hasTarget) {
        hasTarget = true;
        image.target = SmTarget::parse(toks[i + 1].text);
        if (!image.target)
          return makeError(image.origin, ": unknown .target '",
                           toks[i + 1].text, "' (line ", toks[i + 1].line, ")");
      }
    }
    if (!hasVersion || !hasTarget)
      return makeError(image.origin,
                       " is neither PTX text (no .version and .target "
                       "directives) nor a cubin or fatbinary");
    auto entries = ptxEntries(text);
    if (!entries)
      return std::move(entries.takeError()).withContext(image.origin);
    image.kind = ImageKind::Ptx;
    image.entries = std::move(*entries);
  }
  image.bytes = std::move(bytes);
  return image;
}

const PtxEntry *KernelImage::findEntry(const std::string &name) const {
  for (const PtxEntry &entry : entries)
    if (entry.name == name)
      return &entry;
  return nullptr;
}

std::string KernelImage::describe() const {
  std::ostringstream os;
  os << origin << " (" << stringify(kind);
  if (kind == ImageKind::Ptx)
    os << " " << ptxVersion << ", .target "
       << (target ? target->str() : std::string("?"));
  else if (target)
    os << ", " << target->str();
  os << ")";
  return os.str();
}
