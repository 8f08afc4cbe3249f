//===- RunOptions.cpp - nvfp4-run's command line --------------------------===//

#include "nvfp4/Runtime/RunOptions.h"
#include "nvfp4/Support/Ex2Poly.h"
#include "nvfp4/Support/SplitKvPlan.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <set>

using namespace nvfp4::rt;

namespace {

// Launch limits of compute capability 9.0 and 10.0 (CUDA Programming Guide,
// "Features and Technical Specifications", Table 21).
constexpr uint64_t kMaxGridX = 2147483647ull;
constexpr uint64_t kMaxGridYZ = 65535;
constexpr uint64_t kMaxBlockXY = 1024;
constexpr uint64_t kMaxBlockZ = 64;
constexpr uint64_t kMaxBlockThreads = 1024;
// Largest (non-portable) thread-block cluster on SM90/SM100.
constexpr uint64_t kMaxClusterCtas = 16;
// Device buffers larger than this are certainly a typo (1 TiB).
constexpr uint64_t kMaxBufferBytes = uint64_t(1) << 40;

std::vector<std::string> split(const std::string &s, char sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t at = s.find(sep, start);
    parts.push_back(s.substr(start, at - start));
    if (at == std::string::npos)
      return parts;
    start = at + 1;
  }
}

bool startsWith(const std::string &s, const std::string &prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

/// An emulator numerics mode (emu::MmaNumerics, emu::ApproxNumerics):
/// auto, exact or hardware; false for anything else.
template <typename Mode> bool parseNumerics(const std::string &s, Mode &mode) {
  if (s == "auto")
    mode = Mode::Auto;
  else if (s == "exact")
    mode = Mode::Exact;
  else if (s == "hardware")
    mode = Mode::Hardware;
  else
    return false;
  return true;
}

/// Decimal or 0x-hexadecimal, no sign, no overflow.
bool parseU64(const std::string &s, uint64_t &value) {
  if (s.empty())
    return false;
  unsigned base = 10;
  size_t i = 0;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    i = 2;
  }
  value = 0;
  for (; i < s.size(); ++i) {
    char c = static_cast<char>(std::tolower(static_cast<unsigned char>(s[i])));
    unsigned digit;
    if (c >= '0' && c <= '9')
      digit = unsigned(c - '0');
    else if (base == 16 && c >= 'a' && c <= 'f')
      digit = unsigned(c - 'a' + 10);
    else
      return false;
    if (value > (std::numeric_limits<uint64_t>::max() - digit) / base)
      return false;
    value = value * base + digit;
  }
  return true;
}

/// An optionally negative integer in [min, max].
bool parseSigned(const std::string &s, int64_t min, int64_t max,
                 int64_t &value) {
  bool negative = !s.empty() && s[0] == '-';
  uint64_t magnitude;
  if (!parseU64(negative ? s.substr(1) : s, magnitude))
    return false;
  if (negative) {
    // |min| computed without overflow: -(min + 1) + 1.
    if (magnitude > uint64_t(-(min + 1)) + 1)
      return false;
    value = magnitude == 0 ? 0 : -static_cast<int64_t>(magnitude - 1) - 1;
    return true;
  }
  if (magnitude > uint64_t(max))
    return false;
  value = static_cast<int64_t>(magnitude);
  return true;
}

bool isValidName(const std::string &name) {
  if (name.empty() ||
      !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_'))
    return false;
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' ||
          c == '-'))
      return false;
  return true;
}

Expected<std::vector<uint64_t>> parseList(const std::string &text,
                                          const std::string &key) {
  std::vector<uint64_t> values;
  for (const std::string &part : split(text, ',')) {
    uint64_t v;
    if (!parseU64(part, v))
      return makeError("expected ", key,
                       "= to be a comma-separated list of non-negative "
                       "integers, got '",
                       text, "'");
    values.push_back(v);
  }
  return values;
}

Expected<KernelArg> parseScalar(const std::string &kind,
                                const std::string &value) {
  auto bad = [&](const char *expected) {
    return makeError("expected ", expected, " after '", kind, ":', got '",
                     value, "'");
  };
  if (kind[0] == 'u') {
    uint64_t v;
    bool ok = parseU64(value, v);
    if (kind == "u8")
      return ok && v <= 0xFF
                 ? KernelArg::u8(uint8_t(v))
                 : Expected<KernelArg>(bad("an integer in [0, 255]"));
    if (kind == "u16")
      return ok && v <= 0xFFFF
                 ? KernelArg::u16(uint16_t(v))
                 : Expected<KernelArg>(bad("an integer in [0, 65535]"));
    if (kind == "u32")
      return ok && v <= 0xFFFFFFFFull
                 ? KernelArg::u32(uint32_t(v))
                 : Expected<KernelArg>(bad("an integer in [0, 2^32-1]"));
    return ok ? KernelArg::u64(v)
              : Expected<KernelArg>(bad("an integer in [0, 2^64-1]"));
  }
  if (kind[0] == 'i') {
    int64_t v;
    if (kind == "i8")
      return parseSigned(value, -128, 127, v)
                 ? KernelArg::i8(int8_t(v))
                 : Expected<KernelArg>(bad("an integer in [-128, 127]"));
    if (kind == "i16")
      return parseSigned(value, -32768, 32767, v)
                 ? KernelArg::i16(int16_t(v))
                 : Expected<KernelArg>(bad("an integer in [-32768, 32767]"));
    if (kind == "i32")
      return parseSigned(value, std::numeric_limits<int32_t>::min(),
                         std::numeric_limits<int32_t>::max(), v)
                 ? KernelArg::i32(int32_t(v))
                 : Expected<KernelArg>(bad("an integer in [-2^31, 2^31-1]"));
    return parseSigned(value, std::numeric_limits<int64_t>::min(),
                       std::numeric_limits<int64_t>::max(), v)
               ? KernelArg::i64(v)
               : Expected<KernelArg>(bad("an integer in [-2^63, 2^63-1]"));
  }
  // f32 / f64: strtof/strtod, the whole text consumed.
  if (value.empty() || std::isspace(static_cast<unsigned char>(value[0])))
    return bad("a number");
  errno = 0;
  char *end = nullptr;
  if (kind == "f32") {
    float f = std::strtof(value.c_str(), &end);
    if (*end != '\0')
      return bad("a number");
    if (errno == ERANGE && std::isinf(f))
      return bad("a number in the f32 range");
    return KernelArg::f32(f);
  }
  double d = std::strtod(value.c_str(), &end);
  if (*end != '\0')
    return bad("a number");
  if (errno == ERANGE && std::isinf(d))
    return bad("a number in the f64 range");
  return KernelArg::f64(d);
}

bool isScalarKind(const std::string &kind) {
  static const std::set<std::string> kinds = {
      "u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64", "f32", "f64"};
  return kinds.count(kind) != 0;
}

Expected<TensorMapSpec> parseTensorMap(const std::vector<std::string> &fields) {
  // fields[0] == "tmap"
  if (fields.size() < 2 || fields[1].empty())
    return makeError("expected tmap:BUFFER:dtype=..:dims=..:box=..");
  TensorMapSpec spec;
  spec.buffer = fields[1];
  std::set<std::string> seen;
  std::vector<uint64_t> dims, strides, box, elemStrides;
  bool haveStrides = false, haveElemStrides = false, haveType = false;
  for (size_t i = 2; i < fields.size(); ++i) {
    const std::string &field = fields[i];
    size_t eq = field.find('=');
    if (eq == std::string::npos)
      return makeError("expected KEY=VALUE in the tensor map, got '", field,
                       "'");
    std::string key = field.substr(0, eq), value = field.substr(eq + 1);
    if (!seen.insert(key).second)
      return makeError("tensor-map key '", key, "' given twice");
    TensorMapDesc &d = spec.desc;
    if (key == "dtype") {
      auto t = parseTmaDataType(value);
      if (!t)
        return t.takeError();
      d.dataType = *t;
      haveType = true;
    } else if (key == "dims" || key == "strides" || key == "box" ||
               key == "elemstrides") {
      auto list = parseList(value, key);
      if (!list)
        return list.takeError();
      if (key == "dims")
        dims = *list;
      else if (key == "strides")
        strides = *list, haveStrides = true;
      else if (key == "box")
        box = *list;
      else
        elemStrides = *list, haveElemStrides = true;
    } else if (key == "swizzle") {
      auto s = parseTmaSwizzle(value);
      if (!s)
        return s.takeError();
      d.swizzle = *s;
    } else if (key == "interleave") {
      auto v = parseTmaInterleave(value);
      if (!v)
        return v.takeError();
      d.interleave = *v;
    } else if (key == "oob") {
      auto v = parseTmaOobFill(value);
      if (!v)
        return v.takeError();
      d.oobFill = *v;
    } else if (key == "l2") {
      auto v = parseTmaL2Promotion(value);
      if (!v)
        return v.takeError();
      d.l2Promotion = *v;
    } else if (key == "offset") {
      if (!parseU64(value, spec.offset))
        return makeError("expected offset= to be a byte count, got '", value,
                         "'");
    } else if (key == "by") {
      if (value == "value")
        spec.byPointer = false;
      else if (value == "pointer")
        spec.byPointer = true;
      else
        return makeError("expected by=value or by=pointer, got '", value, "'");
    } else {
      return makeError("unknown tensor-map key '", key,
                       "' (expected dtype, dims, strides, box, elemstrides, "
                       "swizzle, interleave, oob, l2, offset or by)");
    }
  }
  if (!haveType)
    return makeError("the tensor map needs dtype=TYPE");
  if (dims.empty())
    return makeError("the tensor map needs dims=D0[,D1,...]");
  if (box.empty())
    return makeError("the tensor map needs box=B0[,B1,...]");
  size_t rank = dims.size();
  if (rank > kTmaMaxRank)
    return makeError("expected 1 to 5 dims, got ", rank);
  if (box.size() != rank)
    return makeError("expected ", rank, " box sizes (one per dim), got ",
                     box.size());
  if (rank > 1 && !haveStrides)
    return makeError("the tensor map needs strides= (", rank - 1,
                     " byte strides, of dims 1..", rank - 1, ")");
  if (haveStrides && strides.size() != rank - 1)
    return makeError("expected ", rank - 1, " byte strides (of dims 1..",
                     rank - 1, "), got ", strides.size());
  if (haveElemStrides && elemStrides.size() != rank)
    return makeError("expected ", rank, " element strides, got ",
                     elemStrides.size());
  TensorMapDesc &d = spec.desc;
  d.rank = static_cast<unsigned>(rank);
  for (size_t i = 0; i < rank; ++i) {
    if (box[i] > 0xFFFFFFFFull)
      return makeError("expected box[", i, "] in [1, 256], got ", box[i]);
    d.globalDims[i] = dims[i];
    d.boxDims[i] = static_cast<uint32_t>(box[i]);
    if (haveElemStrides) {
      if (elemStrides[i] > 0xFFFFFFFFull)
        return makeError("expected elemstrides[", i, "] in [1, 8], got ",
                         elemStrides[i]);
      d.elementStrides[i] = static_cast<uint32_t>(elemStrides[i]);
    }
  }
  for (size_t i = 0; i + 1 < rank; ++i)
    d.globalStrides[i] = strides[i];
  // The buffer's base is at least 256-byte aligned; the offset decides the
  // alignment of the global address.
  d.globalAddress = spec.offset;
  if (Error e = validate(d))
    return std::move(e);
  return spec;
}

} // namespace

uint64_t ArgSpec::paramBytes() const {
  switch (kind) {
  case Kind::Buffer:
  case Kind::Pointer:
    return 8;
  case Kind::Scalar:
    return scalar.size();
  case Kind::TensorMap:
    return tmap.byPointer ? 8 : kTensorMapBytes;
  }
  return 0;
}

const BufferSpec *RunOptions::findBuffer(const std::string &name) const {
  for (const BufferSpec &b : buffers)
    if (b.name == name)
      return &b;
  return nullptr;
}

Expected<Dim3> nvfp4::rt::parseDim3(const std::string &text,
                                    const std::string &what) {
  std::vector<std::string> parts = split(text, ',');
  Dim3 dim;
  uint32_t *fields[3] = {&dim.x, &dim.y, &dim.z};
  if (parts.size() > 3)
    return makeError(what, "=", text, ": expected X[,Y,Z], got ", parts.size(),
                     " values");
  for (size_t i = 0; i < parts.size(); ++i) {
    uint64_t v;
    if (!parseU64(parts[i], v) || v == 0 || v > 0xFFFFFFFFull)
      return makeError(what, "=", text,
                       ": expected positive integers X[,Y,Z], got '", parts[i],
                       "'");
    *fields[i] = static_cast<uint32_t>(v);
  }
  return dim;
}

Expected<BufferSpec> nvfp4::rt::parseBufferSpec(const std::string &text) {
  std::vector<std::string> fields = split(text, ':');
  if (!fields.empty() && fields[0] == "buf")
    fields.erase(fields.begin());
  BufferSpec spec;
  spec.text = text;
  if (fields.size() < 3)
    return makeError("expected NAME:BYTES:INIT with INIT one of file=PATH, "
                     "seed=N:TYPE, zero, poison");
  spec.name = fields[0];
  if (!isValidName(spec.name))
    return makeError("expected a buffer name of letters, digits, '_', '.' "
                     "and '-' starting with a letter or '_', got '",
                     spec.name, "'");
  if (!parseU64(fields[1], spec.bytes) || spec.bytes == 0 ||
      spec.bytes > kMaxBufferBytes)
    return makeError("expected a positive byte count for buffer '", spec.name,
                     "', got '", fields[1], "'");
  size_t next = 3;
  const std::string &init = fields[2];
  if (init == "zero") {
    spec.init = BufferInit::Zero;
  } else if (init == "poison") {
    spec.init = BufferInit::Poison;
  } else if (startsWith(init, "file=")) {
    spec.init = BufferInit::File;
    spec.file = init.substr(5);
    if (spec.file.empty())
      return makeError("expected a path after file= for buffer '", spec.name,
                       "'");
  } else if (startsWith(init, "seed=")) {
    spec.init = BufferInit::Seed;
    if (!parseU64(init.substr(5), spec.seed))
      return makeError("expected seed=N with N a non-negative integer, got '",
                       init, "'");
    if (fields.size() < 4)
      return makeError("expected seed=N:TYPE with TYPE one of f32, bf16, "
                       "f16, i32, u8");
    auto type = parseFillType(fields[3]);
    if (!type)
      return type.takeError();
    spec.seedType = *type;
    next = 4;
    if (spec.bytes % fillTypeBytes(spec.seedType) != 0)
      return makeError("buffer '", spec.name, "' of ", spec.bytes,
                       " bytes is not a whole number of ",
                       stringify(spec.seedType), " elements (",
                       fillTypeBytes(spec.seedType), " bytes each)");
  } else {
    return makeError("unknown initial contents '", init, "' for buffer '",
                     spec.name,
                     "' (expected file=PATH, seed=N:TYPE, zero or poison)");
  }
  for (size_t i = next; i < fields.size(); ++i) {
    const std::string &field = fields[i];
    std::string *target = nullptr;
    std::string value;
    if (startsWith(field, "out=")) {
      target = &spec.outPath;
      value = field.substr(4);
    } else if (startsWith(field, "dump-init=")) {
      target = &spec.dumpInitPath;
      value = field.substr(10);
    } else {
      return makeError("unknown buffer option '", field,
                       "' (expected out=PATH or dump-init=PATH)");
    }
    if (value.empty())
      return makeError("expected a path in '", field, "'");
    if (!target->empty())
      return makeError("buffer option '", field.substr(0, field.find('=')),
                       "' given twice");
    *target = value;
  }
  return spec;
}

Expected<ArgSpec> nvfp4::rt::parseArgSpec(const std::string &text,
                                          std::vector<BufferSpec> &buffers) {
  std::vector<std::string> fields = split(text, ':');
  ArgSpec arg;
  arg.text = text;
  const std::string &kind = fields[0];
  if (kind == "buf") {
    auto buffer = parseBufferSpec(text);
    if (!buffer)
      return buffer.takeError();
    arg.kind = ArgSpec::Kind::Buffer;
    arg.bufferIndex = buffers.size();
    buffers.push_back(std::move(*buffer));
    return arg;
  }
  if (kind == "ptr") {
    if (fields.size() != 2 || fields[1].empty())
      return makeError("expected ptr:NAME[+OFFSET]");
    arg.kind = ArgSpec::Kind::Pointer;
    std::string ref = fields[1];
    size_t plus = ref.find('+');
    arg.pointerBuffer = ref.substr(0, plus);
    if (plus != std::string::npos &&
        !parseU64(ref.substr(plus + 1), arg.pointerOffset))
      return makeError("expected ptr:NAME+OFFSET with OFFSET a byte count, "
                       "got '",
                       ref, "'");
    return arg;
  }
  if (isScalarKind(kind)) {
    if (fields.size() != 2)
      return makeError("expected ", kind, ":VALUE");
    auto value = parseScalar(kind, fields[1]);
    if (!value)
      return value.takeError();
    arg.kind = ArgSpec::Kind::Scalar;
    arg.scalar = *value;
    return arg;
  }
  if (kind == "tmap") {
    auto tmap = parseTensorMap(fields);
    if (!tmap)
      return tmap.takeError();
    arg.kind = ArgSpec::Kind::TensorMap;
    arg.tmap = std::move(*tmap);
    return arg;
  }
  return makeError("unknown argument kind '", kind,
                   "' (expected buf, ptr, u8, u16, u32, u64, i8, i16, i32, "
                   "i64, f32, f64 or tmap)");
}

Expected<RunOptions>
nvfp4::rt::parseRunOptions(const std::vector<std::string> &args) {
  RunOptions options;
  std::set<std::string> given;
  bool haveGrid = false, haveBlock = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &a = args[i];
    if (a == "-h" || a == "--help" || a == "-help") {
      options.help = true;
      continue;
    }
    if (!startsWith(a, "-") || a == "-") {
      if (!options.input.empty())
        return makeError("more than one input file ('", options.input,
                         "' and '", a, "')");
      options.input = a;
      continue;
    }
    std::string name = a, value;
    bool hasValue = false;
    size_t eq = a.find('=');
    if (eq != std::string::npos) {
      name = a.substr(0, eq);
      value = a.substr(eq + 1);
      hasValue = true;
    }
    if (startsWith(name, "--") == false)
      return makeError("unknown option '", a, "' (see --help)");
    std::string option = name.substr(2);
    static const std::set<std::string> withValue = {"backend",
                                                    "kernel",
                                                    "grid",
                                                    "block",
                                                    "cluster",
                                                    "smem",
                                                    "arg",
                                                    "buf",
                                                    "device",
                                                    "k",
                                                    "size",
                                                    "seed",
                                                    "emit-ptx",
                                                    "rel-l2-tol",
                                                    "max-warp-instructions",
                                                    "num-sms",
                                                    "min-piece-keys",
                                                    "poly-exp2",
                                                    "cluster-merge",
                                                    "p-shared",
                                                    "chip",
                                                    "cta-group",
                                                    "set-input",
                                                    "cta-stats",
                                                    "schedule-seed",
                                                    "schedules",
                                                    "replace-ptx",
                                                    "mma-numerics",
                                                    "approx-numerics"};
    if (option == "dry-run") {
      if (hasValue)
        return makeError("--dry-run takes no value");
      options.dryRun = true;
      continue;
    }
    if (option == "no-sanitize") {
      if (hasValue)
        return makeError("--no-sanitize takes no value");
      options.sanitize = false;
      continue;
    }
    if (option == "no-input-checks") {
      if (hasValue)
        return makeError("--no-input-checks takes no value");
      options.checkInputs = false;
      given.insert(option);
      continue;
    }
    if (!withValue.count(option))
      return makeError("unknown option '", name, "' (see --help)");
    if (!hasValue) {
      if (i + 1 >= args.size())
        return makeError(name, " needs a value");
      value = args[++i];
    }
    if (option != "arg" && option != "buf" && option != "size" &&
        option != "set-input" && !given.insert(option).second)
      return makeError(name, " given twice");
    if (option == "backend") {
      auto backend = parseBackendKind(value);
      if (!backend)
        return std::move(backend.takeError()).withContext(name + "=" + value);
      options.backend = *backend;
    } else if (option == "kernel") {
      if (value.empty())
        return makeError("--kernel needs a kernel name");
      options.kernel = value;
    } else if (option == "grid" || option == "block" || option == "cluster") {
      auto dim = parseDim3(value, name);
      if (!dim)
        return dim.takeError();
      if (option == "grid") {
        options.launch.grid = *dim;
        haveGrid = true;
      } else if (option == "block") {
        options.launch.block = *dim;
        haveBlock = true;
      } else {
        options.launch.cluster = *dim;
      }
    } else if (option == "smem") {
      uint64_t bytes;
      if (!parseU64(value, bytes) || bytes > 0xFFFFFFFFull)
        return makeError("--smem=", value,
                         ": expected a byte count of dynamic shared memory");
      options.launch.dynamicSmemBytes = static_cast<uint32_t>(bytes);
    } else if (option == "device") {
      uint64_t ordinal;
      if (!parseU64(value, ordinal) || ordinal > 1024)
        return makeError("--device=", value, ": expected a GPU ordinal");
      options.deviceOrdinal = static_cast<unsigned>(ordinal);
    } else if (option == "k" || option == "size") {
      std::string size = "k", number = value;
      if (option == "size") {
        size_t at = value.find('=');
        if (at == std::string::npos || at == 0)
          return makeError("--size=", value, ": expected NAME=N");
        size = value.substr(0, at);
        number = value.substr(at + 1);
      }
      uint64_t n;
      if (!parseU64(number, n) || n == 0)
        return makeError(name, "=", value, ": expected a positive integer");
      if (!options.sizes.emplace(size, n).second)
        return makeError("size ", size, " given twice");
    } else if (option == "seed") {
      if (!parseU64(value, options.seed))
        return makeError("--seed=", value, ": expected an unsigned integer");
    } else if (option == "max-warp-instructions") {
      if (!parseU64(value, options.maxWarpInstructions))
        return makeError("--max-warp-instructions=", value,
                         ": expected an unsigned integer");
    } else if (option == "num-sms") {
      if (!parseU64(value, options.numSms) || options.numSms == 0 ||
          options.numSms > 100000)
        return makeError("--num-sms=", value,
                         ": expected an SM count in [1, 100000]");
    } else if (option == "min-piece-keys") {
      uint64_t keys = 0;
      if (!parseU64(value, keys) ||
          keys > uint64_t(nvfp4::plan::kMaxMinPieceKeys))
        return makeError("--min-piece-keys=", value,
                         ": expected a key count in [0, 2^30]");
      options.minPieceKeys = keys;
    } else if (option == "poly-exp2") {
      uint64_t n = 0;
      if (!parseU64(value, n) || n > uint64_t(nvfp4::kPolyExp2Max))
        return makeError("--poly-exp2=", value,
                         ": expected a count of 8 exponentials in [0, ",
                         nvfp4::kPolyExp2Max, "]");
      options.polyExp2 = n;
    } else if (option == "cluster-merge") {
      uint64_t n = 0;
      if (!parseU64(value, n) || n > uint64_t(nvfp4::plan::kMaxClusterMerge))
        return makeError("--cluster-merge=", value,
                         ": expected a piece count in [0, ",
                         nvfp4::plan::kMaxClusterMerge, "]");
      options.clusterMerge = n;
    } else if (option == "p-shared") {
      if (value != "0" && value != "1")
        return makeError("--p-shared=", value,
                         ": expected 0 (P in registers) or 1 (P in shared "
                         "memory)");
      options.pShared = value == "1";
    } else if (option == "chip") {
      if (value != "sm_100a" && value != "sm_90a")
        return makeError("--chip=", value,
                         ": expected sm_100a (tcgen05) or sm_90a (wgmma)");
      options.chip = value;
    } else if (option == "cta-group") {
      if (!parseU64(value, options.ctaGroup) || options.ctaGroup > 2)
        return makeError("--cta-group=", value,
                         ": expected 0 (by shape), 1 or 2");
    } else if (option == "set-input") {
      // NAME[INDEX]=VALUE
      size_t open = value.find('['), close = value.find(']');
      RunOptions::InputSet set;
      char *end = nullptr;
      bool ok = open != std::string::npos && open > 0 &&
                close != std::string::npos && close > open + 1 &&
                close + 1 < value.size() && value[close + 1] == '=' &&
                parseU64(value.substr(open + 1, close - open - 1), set.index);
      if (ok) {
        std::string v = value.substr(close + 2);
        set.value = std::strtod(v.c_str(), &end);
        ok = !v.empty() && end && *end == 0 && std::isfinite(set.value);
      }
      if (!ok)
        return makeError("--set-input=", value,
                         ": expected NAME[INDEX]=VALUE (a flat element "
                         "index and a finite number)");
      set.tensor = value.substr(0, open);
      options.inputSets.push_back(set);
      given.insert(option);
    } else if (option == "schedule-seed") {
      if (!parseU64(value, options.scheduleSeed))
        return makeError("--schedule-seed=", value,
                         ": expected an unsigned integer (0: the "
                         "deterministic schedule)");
    } else if (option == "schedules") {
      if (!parseU64(value, options.schedules) || options.schedules == 0 ||
          options.schedules > 100000)
        return makeError("--schedules=", value,
                         ": expected a count in [1, 100000]");
    } else if (option == "approx-numerics" || option == "mma-numerics") {
      bool known = option == "mma-numerics"
                       ? parseNumerics(value, options.mmaNumerics)
                       : parseNumerics(value, options.approxNumerics);
      if (!known)
        return makeError("--", option, "=", value,
                         ": expected auto, exact or hardware");
    } else if (option == "replace-ptx") {
      if (value.empty())
        return makeError("--replace-ptx needs a file name");
      options.replacePtx = value;
    } else if (option == "cta-stats") {
      if (value.empty())
        return makeError("--cta-stats needs a file name");
      options.ctaStats = value;
    } else if (option == "emit-ptx") {
      if (value.empty())
        return makeError("--emit-ptx needs a file name");
      options.emitPtx = value;
    } else if (option == "rel-l2-tol") {
      char *end = nullptr;
      double t = std::strtod(value.c_str(), &end);
      if (value.empty() || *end || !(t >= 0))
        return makeError("--rel-l2-tol=", value,
                         ": expected a non-negative number");
      options.relL2Tolerance = t;
    } else if (option == "arg") {
      auto arg = parseArgSpec(value, options.buffers);
      if (!arg)
        return std::move(arg.takeError()).withContext("--arg=" + value);
      options.args.push_back(std::move(*arg));
    } else if (option == "buf") {
      auto buffer = parseBufferSpec(value);
      if (!buffer)
        return std::move(buffer.takeError()).withContext("--buf=" + value);
      options.buffers.push_back(std::move(*buffer));
    }
  }
  if (options.help)
    return options;

  if (options.input.empty())
    return makeError("no input file (expected a PTX, cubin or fatbinary "
                     "file; see --help)");
  // An external kernel needs its launch shape; the MLIR-input mode takes it
  // from the kernel's nvfp4.harness attribute.
  bool mlirInput =
      options.input.size() >= 5 &&
      options.input.compare(options.input.size() - 5, 5, ".mlir") == 0;
  if (mlirInput) {
    // The launch and the arguments come from the kernel's nvfp4.harness
    // attribute.
    for (const char *o : {"grid", "block", "cluster", "smem"})
      if (given.count(o))
        return makeError("--", o, " is not used with MLIR input: the launch "
                         "comes from the kernel's nvfp4.harness attribute");
    if (!options.args.empty() || !options.buffers.empty())
      return makeError(options.args.empty() ? "--buf" : "--arg",
                       " is not used with MLIR input: the arguments come "
                       "from the kernel's nvfp4.harness attribute");
    return options;
  }
  for (const char *o :
       {"k", "seed", "emit-ptx", "rel-l2-tol", "num-sms", "min-piece-keys",
        "poly-exp2", "cluster-merge", "p-shared", "chip", "cta-group",
        "set-input", "no-input-checks", "cta-stats", "schedules",
        "replace-ptx"})
    if (given.count(o))
      return makeError("--", o, " is for MLIR input only (", options.input,
                       " is not a .mlir file)");
  if (!options.sizes.empty())
    return makeError("--size is for MLIR input only (", options.input,
                     " is not a .mlir file)");
  if (!haveGrid && !mlirInput)
    return makeError("missing --grid=X[,Y,Z]");
  if (!haveBlock && !mlirInput)
    return makeError("missing --block=X[,Y,Z]");

  const LaunchConfig &l = options.launch;
  if (l.grid.x > kMaxGridX || l.grid.y > kMaxGridYZ || l.grid.z > kMaxGridYZ)
    return makeError("--grid=", l.grid.str(),
                     ": expected x <= 2^31-1 and "
                     "y, z <= 65535");
  if (l.block.x > kMaxBlockXY || l.block.y > kMaxBlockXY ||
      l.block.z > kMaxBlockZ || l.block.product() > kMaxBlockThreads)
    return makeError("--block=", l.block.str(),
                     ": expected at most 1024 "
                     "threads (x, y <= 1024, z <= 64), got ",
                     l.block.product());
  if (l.cluster.product() > kMaxClusterCtas)
    return makeError("--cluster=", l.cluster.str(), ": expected at most ",
                     kMaxClusterCtas, " CTAs a cluster, got ",
                     l.cluster.product());
  const char *axes = "xyz";
  const uint32_t grid[3] = {l.grid.x, l.grid.y, l.grid.z};
  const uint32_t cluster[3] = {l.cluster.x, l.cluster.y, l.cluster.z};
  for (int i = 0; i < 3; ++i)
    if (grid[i] % cluster[i] != 0)
      return makeError("--grid=", l.grid.str(),
                       " is not a multiple of --cluster=", l.cluster.str(),
                       " in ", axes[i]);

  std::set<std::string> names, outs;
  for (const BufferSpec &b : options.buffers) {
    if (!names.insert(b.name).second)
      return makeError("buffer '", b.name, "' declared twice");
    for (const std::string *path : {&b.outPath, &b.dumpInitPath})
      if (!path->empty() && !outs.insert(*path).second)
        return makeError("two buffers write the file '", *path, "'");
  }
  for (ArgSpec &arg : options.args) {
    if (arg.kind == ArgSpec::Kind::Pointer) {
      const BufferSpec *b = options.findBuffer(arg.pointerBuffer);
      if (!b)
        return makeError("--arg=", arg.text, ": no buffer named '",
                         arg.pointerBuffer,
                         "' (declare it with --buf or "
                         "--arg=buf:...)");
      if (arg.pointerOffset >= b->bytes)
        return makeError("--arg=", arg.text, ": offset ", arg.pointerOffset,
                         " is past the end of buffer '", b->name, "' (",
                         b->bytes, " bytes)");
    } else if (arg.kind == ArgSpec::Kind::TensorMap) {
      const BufferSpec *b = options.findBuffer(arg.tmap.buffer);
      if (!b)
        return makeError("--arg=", arg.text, ": no buffer named '",
                         arg.tmap.buffer,
                         "' (declare it with --buf or "
                         "--arg=buf:...)");
      uint64_t need = arg.tmap.offset + footprintBytes(arg.tmap.desc);
      if (need > b->bytes)
        return makeError("--arg=", arg.text, ": the tensor map spans ", need,
                         " bytes (offset ", arg.tmap.offset, " + ",
                         footprintBytes(arg.tmap.desc), ") but buffer '",
                         b->name, "' has ", b->bytes);
    }
  }
  return options;
}

std::string nvfp4::rt::runUsage() {
  return R"(usage: nvfp4-run [options] INPUT
       nvfp4-run [--backend=B] [--k=N] [--seed=N] [MLIR options] KERNEL.mlir

Runs one kernel of INPUT (PTX text, a cubin or a fatbinary) once. An .mlir
input is compiled, run with seeded inputs and checked against a float64
reference (see "MLIR input" below).

options:
  --backend=cuda|emulator   where to run (default cuda)
  --kernel=NAME             the kernel (default: the PTX's only .entry)
  --grid=X[,Y,Z]            grid size in CTAs (required)
  --block=X[,Y,Z]           CTA size in threads (required)
  --cluster=X[,Y,Z]         thread-block cluster (default 1,1,1 = none)
  --smem=BYTES              dynamic shared memory per CTA (default 0)
  --arg=SPEC                the next kernel argument, in parameter order
  --buf=NAME:BYTES:INIT[:out=PATH][:dump-init=PATH]
                            a device buffer that is not itself a parameter
                            (for tmap: and ptr: arguments)
  --device=N                GPU ordinal (default 0)
  --dry-run                 check everything and print the launch, run nothing
  --max-warp-instructions=N emulator: stop a launch after N warp
                            instructions (default 0: no limit)
  --no-sanitize             emulator: no happens-before / tcgen05 fence
                            checks (docs/Emulator.md, "The sanitizer")
  --mma-numerics=MODE       emulator: how MMAs round (docs/Emulator.md,
                            "MMA accumulation"): auto (default: wgmma as
                            the H200 measures, tcgen05.mma exact), exact,
                            hardware (tcgen05.mma under the assumed model)
  --approx-numerics=MODE    emulator: how ex2.approx.f32 and lg2.approx.f32
                            round (docs/Emulator.md, "ex2.approx as the
                            H200", "lg2.approx as measured"): auto
                            (default: as sm_90 measures in sm_90a modules,
                            the nearest float elsewhere), exact, hardware
                            (sm_90's in every module)
  --schedule-seed=N         emulator: explore the schedule seeded by N
                            (shuffled warp order, TMA copies completing out
                            of issue order or as late as possible, MMAs at
                            random points; default 0: deterministic)
  -h, --help                this text

argument SPECs:
  buf:NAME:BYTES:INIT[:out=PATH][:dump-init=PATH]
        a device buffer of BYTES bytes, passed as a pointer. INIT is
        file=PATH (raw bytes, exactly BYTES of them), seed=N:TYPE (random,
        never zero; TYPE f32, bf16, f16, i32 or u8), zero, or poison (0xFF
        bytes). out=PATH writes the buffer to PATH after the launch;
        dump-init=PATH writes its initial contents before the launch.
  ptr:NAME[+OFFSET]
        the address of a buffer declared elsewhere (plus OFFSET bytes)
  u8:V u16:V u32:V u64:V i8:V i16:V i32:V i64:V f32:V f64:V
        a scalar (integers in decimal or 0x hex)
  tmap:BUF:dtype=T:dims=D0,D1,..:strides=S1,..:box=B0,B1,..[:KEY=VALUE...]
        a TMA tensor map of buffer BUF (cuTensorMapEncodeTiled). dims and
        box in elements, innermost first; strides are the byte strides of
        dims 1..rank-1. Optional keys: elemstrides=E0,.. (default 1s),
        swizzle=none|32B|64B|128B|128B_atom_32B|128B_atom_32B_flip_8B|
        128B_atom_64B (default none), interleave=none|16B|32B, oob=zero|nan,
        l2=none|64B|128B|256B, offset=BYTES (into BUF), by=value|pointer
        (default value: the 128-byte map itself is the parameter, as a
        `const __grid_constant__ CUtensorMap`; pointer: a device copy's
        address). T: u8 u16 u32 i32 u64 i64 f16 bf16 f32 f64 tf32 f32_ftz
        tf32_ftz u4x16_align8b u4x16_align16b u6x16_align16b.

MLIR input (the kernel's gpu.func carries an nvfp4.harness attribute that
names the reference, the launch and each argument; docs/Runtime.md):
  --kernel=NAME             the gpu.func (default: the only one with
                            nvfp4.harness)
  --k=N, --size=NAME=N      problem sizes the kernel lets the caller set
                            (GEMM examples: k, default 512, a multiple of 64)
  --seed=N                  inputs: operand i is filled from seed N+i
                            (default 1); outputs start as NaN (0x7fc0dead)
  --rel-l2-tol=X            PASS threshold on rel_l2 (default: the
                            attribute's rel_l2, else 1e-4)
  --emit-ptx=FILE           also write the compiled PTX to FILE
  --dry-run                 compile and print the plan, run nothing
  --num-sms=N               nvfp4.attention: the SM count the balanced
                            split-KV plan spreads the work over (default 148,
                            a B200; nvfp4-lower-attention's num-sms)
  --min-piece-keys=N        nvfp4.attention: the smallest share in keys
                            the balanced plan gives a CTA (default 256; 0:
                            no floor; at most 2^30; nvfp4-lower-attention's
                            option)
  --poly-exp2=N             nvfp4.attention on sm_90a: of every 8
                            exponentials of P, N by a cubic on the FMA pipe
                            rather than the SFU (0-8; default: the pass's
                            rule; nvfp4-lower-attention's option)
  --cluster-merge=N         nvfp4.attention on sm_90a: the most pieces of
                            a unit a cluster merges in distributed shared
                            memory instead of a combine kernel (0-8;
                            default 8; 0: never; nvfp4-lower-attention's
                            option)
  --p-shared=0|1            nvfp4.attention on sm_90a: P V reads P from
                            registers (0) or shared memory (1) where the
                            consumers overlap the softmax and take turns
                            (default: the pass's rule, registers;
                            nvfp4-lower-attention's option)
  --chip=CHIP               the chip the kernels are built for: sm_100a
                            (default: tcgen05) or sm_90a (Hopper: wgmma;
                            nvfp4.attention only, docs/Hopper.md)
  --cta-group=N             nvfp4.scaled_matmul: 1 single CTAs, 2 CTA pairs
                            (cta_group::2), 0 by shape (default)
  --set-input=NAME[I]=V     set element I (flat, row-major) of input NAME to
                            V after the fill (i32 and f32 inputs), e.g. a
                            block-table entry outside the cache; repeatable
  --no-input-checks         skip the reference's input checks (block-table
                            entries and lengths of a paged cache) and let
                            the kernel see what they would refuse
  --schedules=N             emulator: run and check N schedules, seeds
                            --schedule-seed (default 1 here) and the N - 1
                            after it; PASS only if every one passes
  --replace-ptx=FILE        run FILE's PTX instead of the compiled PTX (the
                            harness still comes from the MLIR input)
  --cta-stats=FILE          emulator: write every launch's per-CTA counters
                            (kernel, CTA, tcgen05.mma with A in shared
                            memory and in tensor memory, TMA bytes) as CSV
  The last line is PASS or FAIL with cos=, rel_l2=, max_abs= and nan= (the
  count of NaN/Inf outputs, which fail the check); exit 0 only on PASS.

exit status: 0 success, 1 the run failed (no driver, a CUDA error, a
kernel the GPU cannot run, a fault on the emulator), 2 bad arguments or
input files.
)";
}
