//===- Harness.cpp - Run a kernel and check it against a reference --------===//

#include "nvfp4/Runtime/Harness.h"

#include "nvfp4/Runtime/Fill.h"
#include "nvfp4/Support/KvCacheFormat.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iomanip>

using namespace nvfp4::rt;

namespace {

const HarnessTensor *findTensor(const HarnessSpec &s, const std::string &n) {
  for (const HarnessTensor &t : s.tensors)
    if (t.name == n)
      return &t;
  return nullptr;
}

std::string joinShape(const std::vector<std::string> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? "," : "") + shape[i];
  return s + "]";
}

bool parseUnsigned(const std::string &s, uint64_t &v) {
  if (s.empty() || s.size() > 19)
    return false;
  v = 0;
  for (char c : s) {
    if (c < '0' || c > '9')
      return false;
    v = v * 10 + uint64_t(c - '0');
  }
  return true;
}

uint64_t elements(const HarnessTensor &t,
                  const std::map<std::string, uint64_t> &sizes) {
  return tensorElements(t, sizes);
}

/// The slots a tensor of top-k indices names: the product of its
/// slotsOf sizes.
uint64_t slotCount(const HarnessTensor &t,
                   const std::map<std::string, uint64_t> &sizes) {
  uint64_t n = 1;
  for (const std::string &s : t.slotsOf)
    n *= sizes.at(s);
  return n;
}

bool isFloatKind(KernelArg::Kind k) {
  return k == KernelArg::Kind::F32 || k == KernelArg::Kind::F64;
}

std::vector<std::string> split(const std::string &s, char sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t at = s.find(sep, start);
    parts.push_back(s.substr(start, at == std::string::npos ? at : at - start));
    if (at == std::string::npos)
      return parts;
    start = at + 1;
  }
}

/// SplitMix64 (Steele, Lea, Flood, OOPSLA 2014).
struct SplitMix64 {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
};

TmaDataType tmaType(ElemType t) {
  switch (t) {
  case ElemType::F32:
    return TmaDataType::F32;
  case ElemType::BF16:
    return TmaDataType::BF16;
  case ElemType::F16:
    return TmaDataType::F16;
  case ElemType::I32:
    return TmaDataType::I32;
  case ElemType::U8:
    return TmaDataType::U8;
  }
  return TmaDataType::F32;
}

std::string joinValues(const std::vector<int32_t> &v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? "," : "") + std::to_string(v[i]);
  return s;
}

Expected<KernelArg> scalarArg(KernelArg::Kind kind, uint64_t v) {
  switch (kind) {
  case KernelArg::Kind::I32:
  case KernelArg::Kind::U32:
    if (v > 0x7fffffffull)
      return makeError("scalar value ", v, " does not fit in 32 bits");
    return kind == KernelArg::Kind::I32 ? KernelArg::i32(int32_t(v))
                                        : KernelArg::u32(uint32_t(v));
  case KernelArg::Kind::I64:
    return KernelArg::i64(int64_t(v));
  case KernelArg::Kind::U64:
    return KernelArg::u64(v);
  default:
    return makeError("scalar arguments are i32, u32, i64 or u64");
  }
}

FillType fillTypeOf(ElemType t) {
  return t == ElemType::F32    ? FillType::F32
         : t == ElemType::BF16 ? FillType::BF16
         : t == ElemType::I32  ? FillType::I32
         : t == ElemType::U8   ? FillType::U8
                               : FillType::F16;
}

/// Fills input `i` with its named fill (ReferenceOperand::fill).
Error fillNamed(const HarnessSpec &spec, std::vector<std::vector<uint8_t>> &host,
                const std::map<std::string, uint64_t> &sizes, uint64_t seed,
                size_t i) {
  const HarnessTensor &t = spec.tensors[i];
  std::vector<uint8_t> &bytes = host[i];
  if (t.fill == "nvfp4_input") {
    uint64_t k = sizes.at(t.shape.back());
    return fillNvfp4Input(bytes.data(), elements(t, sizes) / k, k, seed + i,
                          fillTypeOf(t.type));
  }
  if (t.fill == "e4m3_scales") {
    if (Error e = fillRandom(bytes.data(), bytes.size(), seed + i,
                             FillType::U8))
      return e;
    for (uint8_t &b : bytes)
      b = uint8_t(b % 0x7F); // [0, 0x7E]: finite, non-negative
    return Error::success();
  }
  if (t.fill == "group_sizes_masked" || t.fill == "group_sizes_contiguous") {
    if (t.type != ElemType::I32 || !sizes.count(t.fillOf))
      return makeError("group sizes are i32 bounded by a size");
    std::vector<int32_t> v = fillGroupSizes(
        bytes.size() / 4, sizes.at(t.fillOf),
        t.fill == "group_sizes_masked", seed + i);
    std::memcpy(bytes.data(), v.data(), bytes.size());
    return Error::success();
  }
  if (t.fill == "encode_scale") {
    if (t.type != ElemType::F32 || (!t.fillOf.empty() && bytes.size() != 4))
      return makeError("a tensor scale is f32 (one, when derived from an "
                       "input)");
    float gs;
    if (t.fillOf.empty()) {
      // Positive full-mantissa scales in [2^-2, 2^12).
      std::vector<uint8_t> r(bytes.size());
      (void)fillRandom(r.data(), r.size(), seed + i, FillType::F32);
      for (size_t e = 0; e < bytes.size() / 4; ++e) {
        float u;
        std::memcpy(&u, &r[4 * e], 4);
        gs = std::ldexp(1.0f + std::fabs(u), int((seed + e) % 14) - 2);
        std::memcpy(&bytes[4 * e], &gs, 4);
      }
      return Error::success();
    } else {
      size_t j = 0;
      while (j < i && spec.tensors[j].name != t.fillOf)
        ++j;
      if (j == i)
        return makeError("the scale's input '", t.fillOf,
                         "' is not an earlier operand");
      gs = fillEncodeScale(host[j].data(), elements(spec.tensors[j], sizes),
                           seed + j, fillTypeOf(spec.tensors[j].type));
    }
    std::memcpy(bytes.data(), &gs, 4);
    return Error::success();
  }
  if (t.fill == "attention_o_scale") {
    // An NVFP4 attention output's encode scale: the engines' 448 * 6 /
    // amax with amax the largest |V| (O is a convex combination of V's
    // rows, so no block saturates; a quantized cache's values reach 448 *
    // 2, KvCacheFormat::fill), times a full-mantissa factor in [0.5, 1).
    size_t j = 0;
    while (j < i && spec.tensors[j].name != t.fillOf)
      ++j;
    if (t.type != ElemType::F32 || bytes.size() != 4 || j == i)
      return makeError("an attention output scale is one f32 after its V "
                       "operand");
    const HarnessTensor &v = spec.tensors[j];
    double amax = 896;
    if (v.type != ElemType::U8) {
      amax = 0;
      for (double x : decode(host[j].data(), elements(v, sizes), v.type))
        if (std::isfinite(x))
          amax = std::max(amax, std::fabs(x));
    }
    std::vector<uint8_t> r(4);
    (void)fillRandom(r.data(), r.size(), seed + i, FillType::F32);
    float u;
    std::memcpy(&u, r.data(), 4);
    float gs = float(448.0 * 6.0 / (amax > 0 ? amax : 1.0)) *
               (0.5f + std::fabs(u) * 0.4999f);
    std::memcpy(bytes.data(), &gs, 4);
    return Error::success();
  }
  return makeError("unknown fill '", t.fill, "'");
}

} // namespace

Error nvfp4::rt::verify(const HarnessSpec &spec) {
  auto ref = findReference(spec.reference);
  if (!ref)
    return ref.takeError();
  const Reference &r = **ref;
  size_t operands = 0;
  for (const HarnessTensor &t : spec.tensors) {
    if (t.workspace)
      continue;
    if (operands != size_t(&t - spec.tensors.data()))
      return makeError("workspace tensors must follow the reference's "
                       "operands, found '", t.name, "' after one");
    ++operands;
  }
  if (operands != r.operands.size())
    return makeError("reference '", r.name, "' has ", r.operands.size(),
                     " operands but ", operands, " tensor types are given");
  for (const HarnessTensor &t : spec.tensors) {
    if (!t.workspace)
      continue;
    if (t.dims.empty() ||
        std::any_of(t.dims.begin(), t.dims.end(),
                    [](uint64_t d) { return d == 0; }))
      return makeError("workspace '", t.name,
                       "' needs a shape of positive extents");
    for (const HarnessTensor &u : spec.tensors)
      if (&u != &t && u.name == t.name)
        return makeError("workspace '", t.name,
                         "' has the name of another tensor");
  }
  for (size_t i = 0; i < r.operands.size(); ++i) {
    const ReferenceOperand &o = r.operands[i];
    const HarnessTensor &t = spec.tensors[i];
    if (t.name != o.name)
      return makeError("operand ", i, " of reference '", r.name, "' is '",
                       o.name, "', found '", t.name, "'");
    // An absent operand has no shape to size (a sparse kernel without a
    // second key set names none of its sizes).
    for (const std::string &d : t.shape)
      if (!t.absent && !spec.sizes.count(d))
        return makeError("tensor '", t.name, "' has shape ",
                         joinShape(t.shape), " but size '", d,
                         "' is not declared in sizes");
    if (t.absent && (t.output || !o.optional))
      return makeError("tensor '", t.name, "' cannot be absent: reference '",
                       r.name, "' needs it");
    if (!t.sameAs.empty()) {
      const HarnessTensor *src = findTensor(spec, t.sameAs);
      size_t at = src ? size_t(src - spec.tensors.data()) : i;
      if (t.output || at >= i || src->output || src->absent)
        return makeError("tensor '", t.name, "' can copy only an earlier "
                         "input, found '", t.sameAs, "'");
      if (src->type != t.type || elements(*src, spec.sizes) !=
                                     elements(t, spec.sizes))
        return makeError("tensor '", t.name, "' copies '", t.sameAs,
                         "': expected the same type and element count");
    }
    if (!t.sliceOf.empty()) {
      const HarnessTensor *src = findTensor(spec, t.sliceOf);
      size_t at = src ? size_t(src - spec.tensors.data()) : i;
      if (t.output || at >= i || src->output || src->absent ||
          t.shape.empty() || src->shape.empty())
        return makeError("tensor '", t.name, "' can slice only an earlier "
                         "input, found '", t.sliceOf, "'");
      uint64_t w = spec.sizes.at(t.shape.back()),
               ws = spec.sizes.at(src->shape.back());
      if (src->type != t.type || w > ws ||
          elements(*src, spec.sizes) / ws != elements(t, spec.sizes) / w)
        return makeError("tensor '", t.name, "' slices '", t.sliceOf,
                         "': expected the same type and rows, and rows at "
                         "most as wide");
    }
  }
  for (const auto &[name, value] : spec.options) {
    bool known = false;
    for (const ReferenceOption &o : r.options)
      known = known || o.name == name;
    if (!known) {
      std::string names;
      for (const ReferenceOption &o : r.options)
        names += (names.empty() ? "" : ", ") + o.name;
      return makeError("reference '", r.name, "' has no option '", name,
                       "' (options: ", names.empty() ? "none" : names, ")");
    }
    if (spec.sizes.count(name))
      return makeError("option '", name, "' has the name of a size");
  }
  for (const ReferenceOption &o : r.options)
    if (o.required && !spec.options.count(o.name))
      return makeError("reference '", r.name, "' needs option '", o.name,
                       "' (", o.description, ")");
  // Inputs filled with lengths or page numbers bounded by a size: the size
  // exists and the tensor is i32.
  for (const HarnessTensor &t : spec.tensors)
    for (auto [size, what] : {std::pair(&t.lengthsOf, "lengths up to"),
                              std::pair(&t.pagesOf, "pages of")}) {
      if (size->empty() || t.absent)
        continue;
      if (!spec.sizes.count(*size))
        return makeError("tensor '", t.name, "' holds ", what, " size '",
                         *size, "', which is not declared in sizes");
      if (t.type != ElemType::I32)
        return makeError("tensor '", t.name, "' holds ",
                         std::string(what).substr(0, std::string(what).find(' ')),
                         ": its type must be i32, found ", stringify(t.type));
    }
  for (const HarnessTensor &t : spec.tensors)
    for (const std::string &size : t.slotsOf) {
      if (t.absent)
        break;
      if (!spec.sizes.count(size))
        return makeError("tensor '", t.name, "' holds slots of size '", size,
                         "', which is not declared in sizes");
      if (t.type != ElemType::I32)
        return makeError("tensor '", t.name, "' holds slots: its type must "
                         "be i32, found ",
                         stringify(t.type));
    }
  for (const std::string &s : spec.settable)
    if (!spec.sizes.count(s))
      return makeError("settable size '", s, "' is not declared in sizes");
  for (const auto &[s, m] : spec.multipleOf) {
    if (!spec.sizes.count(s))
      return makeError("multiple_of names size '", s,
                       "', which is not declared in sizes");
    if (m == 0)
      return makeError("multiple_of ", s, " must be positive");
  }
  for (size_t l = 0; l <= spec.then.size(); ++l) {
    const std::vector<HarnessArg> &args =
        l == 0 ? spec.args : spec.then[l - 1].args;
    std::string launch = l == 0 ? std::string()
                                : "kernel '" + spec.then[l - 1].kernel + "' ";
    if (Error e = verifyArgs(spec, args, launch))
      return e;
  }
  return Error::success();
}

Error nvfp4::rt::verifyArgs(const HarnessSpec &spec,
                            const std::vector<HarnessArg> &argList,
                            const std::string &launch) {
  for (size_t i = 0; i < argList.size(); ++i) {
    const HarnessArg &a = argList[i];
    std::string where = launch + "argument " + std::to_string(i) + ": ";
    if (a.kind == HarnessArg::Kind::Scalar) {
      Error e = isFloatKind(a.scalarType)
                    ? evalFloat(a.value, spec.sizes, spec.options).takeError()
                    : evalScalar(a.value, spec.sizes).takeError();
      if (e)
        return std::move(e).withContext(where.substr(0, where.size() - 2));
      continue;
    }
    const HarnessTensor *t = findTensor(spec, a.tensor);
    if (!t)
      return makeError(where, "unknown tensor '", a.tensor, "' (expected ",
                       [&] {
                         std::string n;
                         for (const HarnessTensor &x : spec.tensors)
                           n += (n.empty() ? "" : ", ") + x.name;
                         return n;
                       }(),
                       ")");
    if (t->absent)
      return makeError(where, "tensor '", a.tensor, "' is absent");
    if (t->workspace && (a.kind != HarnessArg::Kind::Buffer || !a.view.empty()))
      return makeError(where, "workspace '", a.tensor,
                       "' can only be passed as a buffer without a view");
    auto dims = viewDims(*t, a.view, spec.sizes);
    if (!dims)
      return std::move(dims.takeError())
          .withContext(where.substr(0, where.size() - 2));
    if (a.kind == HarnessArg::Kind::TensorMap) {
      if (a.box.size() != dims->size())
        return makeError(where, "the tensor map of '", t->name, "' (rank ",
                         dims->size(), ") needs ", dims->size(),
                         " box sizes, found ", a.box.size());
      if (t->output)
        return makeError(where, "a tensor map over output '", t->name,
                         "' (TMA loads only read inputs)");
    }
  }
  return Error::success();
}

Expected<std::map<std::string, uint64_t>>
nvfp4::rt::resolveSizes(const HarnessSpec &spec,
                        const std::map<std::string, uint64_t> &overrides) {
  std::map<std::string, uint64_t> sizes = spec.sizes;
  for (const auto &[name, value] : overrides) {
    if (!sizes.count(name))
      return makeError("--", name, ": kernel '", spec.kernel,
                       "' has no size '", name, "'");
    if (!spec.settable.count(name))
      return makeError("--", name, "=", value, ": kernel '", spec.kernel,
                       "' fixes ", name, " = ", sizes[name]);
    sizes[name] = value;
  }
  for (const auto &[name, value] : sizes) {
    if (value == 0)
      return makeError(name, " = 0: sizes must be positive");
    auto m = spec.multipleOf.find(name);
    if (m != spec.multipleOf.end() && value % m->second)
      return makeError(name, " = ", value, " is not a multiple of ",
                       m->second, " (kernel '", spec.kernel,
                       "' works in tiles of ", m->second, ")");
  }
  return sizes;
}

Expected<uint64_t>
nvfp4::rt::evalScalar(const std::string &value,
                      const std::map<std::string, uint64_t> &sizes) {
  std::string num = value, den;
  size_t slash = value.find('/');
  if (slash != std::string::npos) {
    num = value.substr(0, slash);
    den = value.substr(slash + 1);
  }
  uint64_t n = 0, d = 1;
  if (!parseUnsigned(num, n)) {
    auto it = sizes.find(num);
    if (it == sizes.end())
      return makeError("scalar value '", value,
                       "': expected an integer, a size name or NAME/INT");
    n = it->second;
  }
  if (slash != std::string::npos && (!parseUnsigned(den, d) || d == 0))
    return makeError("scalar value '", value,
                     "': expected a positive integer after '/'");
  if (n % d)
    return makeError("scalar value '", value, "' = ", n, "/", d,
                     " is not an integer");
  return n / d;
}

Expected<double>
nvfp4::rt::evalFloat(const std::string &value,
                     const std::map<std::string, uint64_t> &sizes,
                     const ReferenceOptions &options) {
  double result = 1;
  char op = '*';
  size_t start = 0;
  while (true) {
    size_t at = value.find_first_of("*/", start);
    std::string f = value.substr(start, at == std::string::npos ? at
                                                                 : at - start);
    if (f.empty())
      return makeError("scalar value '", value,
                       "': expected factors joined by '*' or '/'");
    double v;
    if (f == "log2e") {
      v = 1.4426950408889634;
    } else if (f == "ln2") {
      v = 0.6931471805599453;
    } else if (options.count(f)) {
      v = options.at(f);
    } else if (sizes.count(f)) {
      v = double(sizes.at(f));
    } else {
      // A decimal number: a digit or '.' first, all characters consumed.
      char *end = nullptr;
      bool number = f[0] == '.' || (f[0] >= '0' && f[0] <= '9');
      v = number ? std::strtod(f.c_str(), &end) : 0;
      if (!number || !end || *end != 0)
        return makeError("scalar value '", value, "': '", f,
                         "' is not a number, an option, a size, log2e or "
                         "ln2");
    }
    result = op == '*' ? result * v : result / v;
    if (at == std::string::npos)
      break;
    op = value[at];
    start = at + 1;
  }
  if (!std::isfinite(result))
    return makeError("scalar value '", value, "' = ", result,
                     " is not finite");
  return result;
}

Expected<std::vector<uint64_t>>
nvfp4::rt::viewDims(const HarnessTensor &t,
                    const std::vector<std::string> &view,
                    const std::map<std::string, uint64_t> &sizes) {
  std::vector<uint64_t> dims;
  if (t.workspace)
    return t.dims;
  if (view.empty()) {
    for (const std::string &d : t.shape)
      dims.push_back(sizes.count(d) ? sizes.at(d) : 0);
    return dims;
  }
  std::vector<std::string> names;
  for (const std::string &v : view) {
    uint64_t n = 1;
    for (const std::string &d : split(v, '*')) {
      names.push_back(d);
      n *= sizes.count(d) ? sizes.at(d) : 0;
    }
    dims.push_back(n);
  }
  if (names != t.shape) {
    std::string shown = "[";
    for (size_t i = 0; i < view.size(); ++i)
      shown += (i ? "," : "") + view[i];
    return makeError("view ", shown + "]", " of tensor '", t.name,
                     "' must group its dimensions ", joinShape(t.shape),
                     " in order");
  }
  return dims;
}

Tolerance nvfp4::rt::toleranceOf(const HarnessSpec &spec,
                                 const HarnessTensor &t,
                                 std::optional<double> relL2Override) {
  Tolerance tol;
  tol.relL2 = spec.relL2Tolerance;
  if (t.tolerance)
    tol = *t.tolerance;
  if (relL2Override)
    tol.relL2 = *relL2Override;
  return tol;
}

std::vector<int32_t> nvfp4::rt::fillGroupSizes(size_t groups, uint64_t bound,
                                               bool masked, uint64_t seed) {
  SplitMix64 rng{seed};
  std::vector<int32_t> out(groups, 0);
  uint64_t left = bound; // contiguous: rows not yet taken (128-aligned)
  for (size_t g = 0; g < groups; ++g) {
    uint64_t cap = masked ? bound : left;
    uint64_t v = 0;
    switch (g % 4) {
    case 0:
      v = 0;
      break;
    case 1:
      v = masked ? bound : std::min<uint64_t>(cap, 1 + rng.next() % 300);
      break;
    case 2:
      v = std::min<uint64_t>(cap, 1);
      break;
    default:
      v = cap ? 1 + rng.next() % cap : 0;
      if (!masked)
        v = std::min<uint64_t>(v, 1 + rng.next() % 200);
      break;
    }
    if (!masked && g + 1 == groups)
      v = cap; // the last group takes the rest
    out[g] = int32_t(v);
    if (!masked)
      left -= std::min(left, (v + 127) / 128 * 128);
  }
  return out;
}

std::vector<int32_t> nvfp4::rt::fillLengths(size_t n, uint64_t bound,
                                            uint64_t seed) {
  SplitMix64 rng{seed};
  std::vector<int32_t> out(n);
  for (size_t i = 0; i < n; ++i)
    out[i] = int32_t(1 + rng.next() % bound);
  if (n >= 2) {
    out[0] = int32_t(bound);
    out[n - 1] = 1;
  }
  if (n >= 3 && bound >= 4) {
    uint64_t lo = bound / 2 + 1, hi = bound - 1;
    uint64_t v = lo + rng.next() % (hi - lo + 1);
    if (v % 2 == 0)
      --v;
    out[1] = int32_t(v);
  }
  return out;
}

std::vector<int32_t> nvfp4::rt::fillPages(size_t n, uint64_t pages,
                                          uint64_t seed) {
  SplitMix64 rng{seed};
  std::vector<int32_t> perm(pages);
  for (uint64_t i = 0; i < pages; ++i)
    perm[i] = int32_t(i);
  // Fisher-Yates.
  for (uint64_t i = pages; i > 1; --i)
    std::swap(perm[i - 1], perm[rng.next() % i]);
  std::vector<int32_t> out(n);
  for (size_t i = 0; i < n; ++i)
    out[i] = pages ? perm[i % pages] : 0;
  return out;
}

std::vector<int32_t> nvfp4::rt::fillIndices(size_t n, uint64_t row,
                                            uint64_t slots, uint64_t seed) {
  SplitMix64 rng{seed};
  std::vector<int32_t> out(n, -1);
  if (row == 0 || slots == 0)
    return out;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t r = rng.next(), t = i % row;
    if (r % 8 == 0)
      continue; // -1
    if (r % 8 == 1 && t > 0)
      out[i] = out[i - 1 - (r >> 8) % t]; // an earlier entry of the row
    else
      out[i] = int32_t((r >> 8) % slots);
  }
  for (size_t r = 0; r * row < n; ++r) {
    if (r % 2 == 1)
      out[r * row + row - 1] = -1;
    if (r == 1 && n >= 2 * row)
      std::fill_n(out.begin() + row, row, -1);
  }
  return out;
}

std::vector<float> nvfp4::rt::fillLse(size_t n, uint64_t seed) {
  SplitMix64 rng{seed};
  std::vector<float> out(n);
  for (size_t i = 0; i < n; ++i) {
    uint64_t r = rng.next();
    out[i] = (i == 0 || r % 4 == 0)
                 ? -INFINITY
                 : float(-4.0 + 8.0 * double(r >> 11) / double(1ull << 53));
  }
  return out;
}

uint64_t nvfp4::rt::tensorElements(
    const HarnessTensor &t, const std::map<std::string, uint64_t> &sizes) {
  uint64_t n = 1;
  if (t.workspace) {
    for (uint64_t d : t.dims)
      n *= d;
    return n;
  }
  for (const std::string &d : t.shape)
    n *= sizes.at(d);
  return n;
}

void nvfp4::rt::printHarnessPlan(const HarnessSpec &spec,
                                 const HarnessRunOptions &o,
                                 std::ostream &os) {
  const Reference *ref = *findReference(spec.reference);
  os << "nvfp4-run: kernel " << spec.kernel << " from " << o.origin
     << ", reference " << ref->name << " (" << ref->description << ")\n";
  os << "nvfp4-run: sizes";
  for (const auto &[n, v] : o.sizes)
    os << " " << n << "=" << v;
  os << ", seed " << o.seed;
  // The default threshold, when an output uses it.
  bool usesDefault = o.relL2Tolerance.has_value();
  for (const HarnessTensor &t : spec.tensors)
    usesDefault = usesDefault || (t.output && !t.tolerance);
  if (usesDefault)
    os << ", rel_l2 tolerance "
       << o.relL2Tolerance.value_or(spec.relL2Tolerance);
  os << "\n";
  if (!spec.options.empty()) {
    os << "nvfp4-run: options";
    for (const auto &[n, v] : spec.options)
      os << " " << n << "=" << std::setprecision(9) << v;
    os << std::setprecision(6) << "\n";
  }
  const LaunchConfig &l = spec.launch;
  os << "nvfp4-run: grid=" << l.grid.str() << " block=" << l.block.str()
     << " cluster=" << l.cluster.str() << " smem=" << l.dynamicSmemBytes
     << "\n";
  for (size_t i = 0; i < spec.tensors.size(); ++i) {
    const HarnessTensor &t = spec.tensors[i];
    os << "  tensor " << t.name << ": " << stringify(t.type) << " [";
    if (t.workspace)
      for (size_t d = 0; d < t.dims.size(); ++d)
        os << (d ? "," : "") << t.dims[d];
    else
      for (size_t d = 0; d < t.shape.size(); ++d) {
        auto it = o.sizes.find(t.shape[d]);
        os << (d ? "," : "");
        if (it != o.sizes.end())
          os << it->second;
        else
          os << t.shape[d]; // an absent tensor's undeclared size
      }
    os << "] ";
    if (t.workspace) {
      os << "workspace, poisoned";
    } else if (t.absent) {
      os << "absent";
    } else if (!t.sameAs.empty()) {
      os << "input, a copy of " << t.sameAs;
    } else if (!t.sliceOf.empty()) {
      os << "input, the leading columns of " << t.sliceOf << "'s rows";
    } else if (t.output && t.inout) {
      os << "output, initially random from seed " << o.seed + i
         << " (what the kernel does not write must keep it)";
      if (t.tolerance || o.relL2Tolerance)
        os << ", PASS if " << describe(toleranceOf(spec, t, o.relL2Tolerance));
    } else if (t.output) {
      os << "output, poisoned";
      if (t.tolerance || o.relL2Tolerance)
        os << ", PASS if " << describe(toleranceOf(spec, t, o.relL2Tolerance));
    } else if (t.lse) {
      os << "input, log-sum-exps in [-4,4] or -inf from seed " << o.seed + i;
    } else if (!t.pagesOf.empty()) {
      os << "input, distinct pages in [0," << t.pagesOf << ") from seed "
         << o.seed + i;
    } else if (!t.cacheFormat.empty()) {
      os << "input, a " << t.cacheFormat << " cache from seed " << o.seed + i;
    } else if (!t.slotsOf.empty()) {
      os << "input, top-k slots in [0," << slotCount(t, o.sizes)
         << ") or -1 from seed " << o.seed + i;
    } else if (t.fill == "nvfp4_input") {
      os << "input, NVFP4 quantizer blocks (ties, zeros, NaN, inf, "
            "subnormals) from seed "
         << o.seed + i;
    } else if (t.fill == "encode_scale") {
      os << "input, a tensor scale"
         << (t.fillOf.empty() ? std::string(" from seed ") +
                                    std::to_string(o.seed + i)
                              : " for " + t.fillOf);
    } else if (t.fill == "e4m3_scales") {
      os << "input, e4m3 codes in [0, 0x7E] from seed " << o.seed + i;
    } else if (t.fill == "group_sizes_masked" ||
               t.fill == "group_sizes_contiguous") {
      os << "input, group sizes from seed " << o.seed + i << ": "
         << joinValues(fillGroupSizes(elements(t, o.sizes),
                                      o.sizes.at(t.fillOf),
                                      t.fill == "group_sizes_masked",
                                      o.seed + i));
    } else if (!t.lengthsOf.empty()) {
      os << "input, lengths in [1," << t.lengthsOf << "] from seed "
         << o.seed + i << ": "
         << joinValues(fillLengths(elements(t, o.sizes),
                                   o.sizes.at(t.lengthsOf), o.seed + i));
    } else {
      os << "input, seed " << o.seed + i;
    }
    os << "\n";
  }
  for (const InputOverride &v : o.overrides)
    os << "  set " << v.tensor << "[" << v.index << "] = " << v.value << "\n";
  printArgs(spec, spec.args, o, os);
  for (const HarnessLaunch &l : spec.then) {
    os << "nvfp4-run: then kernel " << l.kernel
       << ": grid=" << l.launch.grid.str() << " block=" << l.launch.block.str()
       << " cluster=" << l.launch.cluster.str()
       << " smem=" << l.launch.dynamicSmemBytes
       << (l.launch.programmatic ? " programmatic" : "") << "\n";
    printArgs(spec, l.args, o, os);
  }
}

void nvfp4::rt::printArgs(const HarnessSpec &spec,
                          const std::vector<HarnessArg> &argList,
                          const HarnessRunOptions &o, std::ostream &os) {
  for (size_t i = 0; i < argList.size(); ++i) {
    const HarnessArg &a = argList[i];
    os << "  arg " << i << ": ";
    switch (a.kind) {
    case HarnessArg::Kind::TensorMap:
      os << "tmap " << a.tensor << (a.view.empty() ? "" : " as ")
         << (a.view.empty() ? "" : joinShape(a.view)) << " box=";
      for (size_t d = 0; d < a.box.size(); ++d)
        os << (d ? "," : "") << a.box[d];
      os << " swizzle=" << stringify(a.swizzle)
         << (a.byPointer ? ", by pointer" : ", by value");
      break;
    case HarnessArg::Kind::Buffer:
      os << "buf " << a.tensor << (a.view.empty() ? "" : " as ")
         << (a.view.empty() ? "" : joinShape(a.view));
      break;
    case HarnessArg::Kind::Scalar: {
      if (isFloatKind(a.scalarType)) {
        auto v = evalFloat(a.value, o.sizes, spec.options);
        double x = v ? *v : 0;
        if (a.scalarType == KernelArg::Kind::F32)
          x = float(x);
        os << KernelArg::stringify(a.scalarType) << " " << a.value << " = "
           << std::setprecision(9) << x << std::setprecision(6);
        break;
      }
      auto v = evalScalar(a.value, o.sizes);
      os << KernelArg::stringify(a.scalarType) << " " << a.value << " = "
         << (v ? *v : 0);
      break;
    }
    }
    os << "\n";
  }
}

Expected<bool> nvfp4::rt::runHarness(const HarnessSpec &spec,
                                     const KernelImage &image, Device &device,
                                     const HarnessRunOptions &o,
                                     std::ostream &os) {
  auto refOr = findReference(spec.reference);
  if (!refOr)
    return refOr.takeError();
  const Reference &ref = **refOr;
  const std::map<std::string, uint64_t> &sizes = o.sizes;

  std::vector<DevicePtr> owned;
  auto fail = [&](Error e) -> Error {
    for (DevicePtr p : owned)
      (void)device.free(p);
    return e;
  };

  // Tensors: inputs from the seed (operand i from seed + i), outputs and
  // workspace poisoned.
  auto made = makeInputs(spec, sizes, o.seed);
  if (!made)
    return made.takeError();
  std::vector<std::vector<uint8_t>> host = std::move(*made);
  std::vector<DevicePtr> addr(spec.tensors.size());
  // --set-input: single elements the fill would never produce.
  for (const InputOverride &v : o.overrides) {
    const HarnessTensor *t = findTensor(spec, v.tensor);
    if (!t || t->output || t->workspace || t->absent)
      return fail(makeError("--set-input: '", v.tensor,
                            "' is not an input of kernel '", spec.kernel,
                            "'"));
    size_t ti = size_t(t - spec.tensors.data());
    uint64_t n = elements(*t, sizes);
    if (v.index >= n)
      return fail(makeError("--set-input: ", v.tensor, "[", v.index,
                            "] is outside its ", n, " elements"));
    if (t->type == ElemType::I32) {
      if (v.value != std::floor(v.value) || v.value < INT32_MIN ||
          v.value > INT32_MAX)
        return fail(makeError("--set-input: ", v.value,
                              " is not an i32 value"));
      int32_t x = int32_t(v.value);
      std::memcpy(&host[ti][v.index * 4], &x, 4);
    } else if (t->type == ElemType::F32) {
      float x = float(v.value);
      std::memcpy(&host[ti][v.index * 4], &x, 4);
    } else {
      return fail(makeError("--set-input: tensor '", v.tensor, "' is ",
                            stringify(t->type),
                            "; only i32 and f32 inputs can be set"));
    }
  }
  // The inputs as the reference sees them (outputs and workspace empty).
  const size_t nOperands = ref.operands.size();
  std::vector<std::vector<double>> operands(nOperands);
  for (size_t i = 0; i < nOperands; ++i) {
    const HarnessTensor &t = spec.tensors[i];
    if (!t.absent && (!t.output || t.inout))
      operands[i] = decode(host[i].data(), elements(t, sizes), t.type);
  }
  // The reference's input checks (a block-table entry outside the cache,
  // say): the kernel would read out of bounds.
  if (o.checkInputs && ref.validate)
    if (Error e = ref.validate(sizes, operands))
      return fail(std::move(e).withContext(
          "the inputs of kernel '" + spec.kernel +
          "' (nvfp4-run checks them before the launch; "
          "--no-input-checks runs it anyway)"));
  for (size_t i = 0; i < spec.tensors.size(); ++i) {
    const HarnessTensor &t = spec.tensors[i];
    if (t.absent)
      continue;
    auto p = device.allocate(host[i].size());
    if (!p)
      return fail(std::move(p.takeError()).withContext("tensor '" + t.name +
                                                       "'"));
    owned.push_back(*p);
    addr[i] = *p;
    if (Error e = device.copyToDevice(*p, host[i].data(), host[i].size()))
      return fail(std::move(e).withContext("tensor '" + t.name + "'"));
  }
  // The kernels.
  auto module = device.loadModule(image);
  if (!module)
    return fail(module.takeError());
  std::map<std::string, DevicePtr> tensors;
  for (size_t i = 0; i < spec.tensors.size(); ++i)
    if (!spec.tensors[i].absent)
      tensors[spec.tensors[i].name] = addr[i];
  if (Error e = launchHarness(spec, device, *module, tensors, sizes, &os,
                              o.afterLaunch))
    return fail(std::move(e));

  // The kernel's outputs back.
  for (size_t i = 0; i < nOperands; ++i) {
    const HarnessTensor &t = spec.tensors[i];
    if (!t.output)
      continue;
    if (Error e = device.copyToHost(host[i].data(), addr[i], host[i].size()))
      return fail(std::move(e).withContext("tensor '" + t.name + "'"));
  }
  for (DevicePtr p : owned)
    (void)device.free(p);
  owned.clear();
  return checkOutputs(spec, sizes, std::move(operands), host,
                      o.relL2Tolerance, os);
}

Error nvfp4::rt::launchHarness(
    const HarnessSpec &spec, Device &device, ModuleHandle module,
    const std::map<std::string, DevicePtr> &tensors,
    const std::map<std::string, uint64_t> &sizes, std::ostream *os,
    const std::function<void(const std::string &)> &afterLaunch,
    void *stream, TensorMapCache *cache) {
  std::vector<DevicePtr> owned; // device copies of tensor maps
  auto release = [&] {
    for (DevicePtr p : owned)
      (void)device.free(p);
  };
  auto address = [&](const std::string &name) -> Expected<DevicePtr> {
    auto it = tensors.find(name);
    if (it == tensors.end())
      return makeError("no buffer for tensor '", name, "' of kernel '",
                       spec.kernel, "'");
    return it->second;
  };

  // Arguments of one launch.
  auto makeArgs = [&](const std::vector<HarnessArg> &argList)
      -> Expected<std::vector<KernelArg>> {
    std::vector<KernelArg> args;
    for (const HarnessArg &a : argList) {
      switch (a.kind) {
      case HarnessArg::Kind::Buffer: {
        auto p = address(a.tensor);
        if (!p)
          return p.takeError();
        args.push_back(KernelArg::pointer(*p));
        break;
      }
      case HarnessArg::Kind::Scalar: {
        if (isFloatKind(a.scalarType)) {
          auto f = evalFloat(a.value, sizes, spec.options);
          if (!f)
            return f.takeError();
          args.push_back(a.scalarType == KernelArg::Kind::F32
                             ? KernelArg::f32(float(*f))
                             : KernelArg::f64(*f));
          break;
        }
        auto v = evalScalar(a.value, sizes);
        if (!v)
          return v.takeError();
        auto arg = scalarArg(a.scalarType, *v);
        if (!arg)
          return arg.takeError();
        args.push_back(*arg);
        break;
      }
      case HarnessArg::Kind::TensorMap: {
        const HarnessTensor *t = findTensor(spec, a.tensor);
        auto p = address(a.tensor);
        if (!t || !p)
          return makeError("no tensor '", a.tensor, "' for a tensor map");
        auto dims = viewDims(*t, a.view, sizes);
        if (!dims)
          return dims.takeError();
        TensorMapDesc d;
        d.dataType = tmaType(t->type);
        d.rank = static_cast<unsigned>(dims->size());
        d.globalAddress = *p;
        // Row-major tensor: TMA dimension 0 is the innermost (last) one.
        uint64_t stride = elemBytes(t->type);
        for (unsigned r = 0; r < d.rank; ++r) {
          uint64_t extent = (*dims)[d.rank - 1 - r];
          d.globalDims[r] = extent;
          if (r > 0)
            d.globalStrides[r - 1] = stride;
          stride *= extent;
          d.boxDims[r] = a.box[r];
        }
        d.swizzle = a.swizzle;
        auto blob = encodeTensorMapCached(device, d, cache);
        if (!blob)
          return std::move(blob.takeError())
              .withContext("the tensor map of '" + t->name + "'");
        if (!a.byPointer) {
          args.push_back(KernelArg::tensorMap(*blob));
          break;
        }
        auto copy = tensorMapCopy(device, *blob, cache, /*defer=*/true);
        if (!copy)
          return copy.takeError();
        if (!cache)
          owned.push_back(*copy);
        args.push_back(KernelArg::pointer(*copy));
        break;
      }
      }
    }
    return args;
  };

  // The launches, in order (the spec's first launch, then spec.then),
  // without copying their argument lists.
  struct LaunchRef {
    const std::string &kernel;
    const std::vector<HarnessArg> &args;
    const LaunchConfig &launch;
  };
  std::vector<LaunchRef> launches = {{spec.kernel, spec.args, spec.launch}};
  for (const HarnessLaunch &l : spec.then)
    launches.push_back({l.kernel, l.args, l.launch});
  for (const LaunchRef &l : launches) {
    auto function = device.getFunction(module, l.kernel);
    if (!function) {
      release();
      return function.takeError();
    }
    auto args = makeArgs(l.args);
    if (cache) {
      // The launch's new tensor-map copies, written together.
      Error flushed = flushTensorMapCopies(device, *cache);
      if (args && flushed)
        args = std::move(flushed);
      else
        (void)flushed;
    }
    if (!args) {
      release();
      return args.takeError();
    }
    if (stream) {
      if (Error e = device.launchOn(*function, l.launch, *args, stream)) {
        release();
        return std::move(e).withContext("kernel '" + l.kernel + "'");
      }
    } else {
      auto timing = device.launch(*function, l.launch, *args);
      if (!timing) {
        release();
        return std::move(timing.takeError())
            .withContext("kernel '" + l.kernel + "'");
      }
      if (os)
        printLaunch(*os, l.kernel, *timing, device);
    }
    if (afterLaunch)
      afterLaunch(l.kernel);
  }
  release();
  return Error::success();
}

Expected<bool> nvfp4::rt::checkOutputs(
    const HarnessSpec &spec, const std::map<std::string, uint64_t> &sizes,
    std::vector<std::vector<double>> operands,
    const std::vector<std::vector<uint8_t>> &outputs,
    std::optional<double> relL2Override, std::ostream &os) {
  auto refOr = findReference(spec.reference);
  if (!refOr)
    return refOr.takeError();
  const Reference &ref = **refOr;
  const size_t nOperands = ref.operands.size();
  if (operands.size() < nOperands || outputs.size() < nOperands)
    return makeError("checkOutputs: expected ", nOperands,
                     " operands and output slots");
  for (size_t i = 0; i < nOperands; ++i) {
    const HarnessTensor &t = spec.tensors[i];
    if (t.output && !t.inout)
      operands[i].assign(elements(t, sizes), 0.0);
    if (t.output &&
        outputs[i].size() != elements(t, sizes) * elemBytes(t.type))
      return makeError("output '", t.name, "': expected ",
                       elements(t, sizes) * elemBytes(t.type), " bytes, got ",
                       outputs[i].size());
  }
  // A reference that checks the outputs itself computes what it needs
  // there (compute's values would be computed for nothing).
  if (!ref.check)
    if (Error e = ref.compute(sizes, spec.options, operands))
      return std::move(e).withContext("reference '" + ref.name + "'");

  // The kernel's outputs, decoded.
  std::vector<std::vector<double>> kernel(nOperands);
  for (size_t i = 0; i < nOperands; ++i) {
    const HarnessTensor &t = spec.tensors[i];
    if (t.output)
      kernel[i] = decode(outputs[i].data(), elements(t, sizes), t.type);
  }
  // One line per output (or per check of a reference that checks them
  // itself); the final line repeats the first failing one, else the one
  // closest to its threshold.
  std::vector<OutputCheck> checks;
  if (ref.check) {
    auto own = ref.check(sizes, spec.options, operands, kernel);
    if (!own)
      return std::move(own.takeError())
          .withContext("reference '" + ref.name + "'");
    checks = std::move(*own);
  } else {
    for (size_t i = 0; i < nOperands; ++i) {
      const HarnessTensor &t = spec.tensors[i];
      if (!t.output)
        continue;
      Tolerance tol = toleranceOf(spec, t, relL2Override);
      Metrics m = compare(kernel[i], operands[i]);
      std::string detail = std::to_string(m.count) + " elements";
      if (m.equalInfinities)
        detail += ", " + std::to_string(m.equalInfinities) +
                  " infinite as in the reference";
      bool ok = passes(m, tol);
      checks.push_back(
          {t.name, detail, ok, verdictLine(m, tol),
           ok ? (tol.relL2 > 0 ? m.relL2 / tol.relL2 : m.relL2) : 0});
    }
  }
  const OutputCheck *final = nullptr;
  bool pass = true;
  for (const OutputCheck &c : checks) {
    os << "nvfp4-run: output " << c.name << ": " << c.detail << ", "
       << c.verdict << "\n";
    if (pass && (!c.pass || !final || c.score > final->score))
      final = &c;
    pass = pass && c.pass;
  }
  os << (final ? final->verdict : verdictLine(Metrics(), Tolerance())) << "\n";
  return pass;
}

Expected<std::vector<std::vector<uint8_t>>>
nvfp4::rt::makeInputs(const HarnessSpec &spec,
                      const std::map<std::string, uint64_t> &sizes,
                      uint64_t seed) {
  std::vector<std::vector<uint8_t>> host(spec.tensors.size());
  for (size_t i = 0; i < spec.tensors.size(); ++i) {
    const HarnessTensor &t = spec.tensors[i];
    if (t.absent)
      continue;
    uint64_t n = elements(t, sizes);
    std::vector<uint8_t> &bytes = host[i];
    bytes.resize(n * elemBytes(t.type));
    if (!t.sameAs.empty()) {
      const HarnessTensor *src = findTensor(spec, t.sameAs);
      const std::vector<uint8_t> &from = host[size_t(src - spec.tensors.data())];
      if (from.size() != bytes.size())
        return (makeError("tensor '", t.name, "' copies '", t.sameAs,
                              "' but has ", bytes.size(), " bytes, not ",
                              from.size()));
      bytes = from;
    } else if (!t.sliceOf.empty()) {
      const HarnessTensor *src = findTensor(spec, t.sliceOf);
      const std::vector<uint8_t> &from = host[size_t(src - spec.tensors.data())];
      size_t eb = elemBytes(t.type);
      size_t w = sizes.at(t.shape.back()), ws = sizes.at(src->shape.back());
      for (size_t r = 0; r < n / w; ++r)
        std::memcpy(&bytes[r * w * eb], &from[r * ws * eb], w * eb);
    } else if (t.output && t.inout) {
      if (Error e = fillRandom(bytes.data(), bytes.size(), seed + i,
                               fillTypeOf(t.type)))
        return (std::move(e).withContext("tensor '" + t.name + "'"));
    } else if (t.output || t.workspace) {
      for (uint64_t e = 0; e < n; ++e) {
        if (elemBytes(t.type) == 1)
          bytes[e] = kPoisonByte;
        else if (elemBytes(t.type) == 4)
          std::memcpy(&bytes[e * 4], &kPoison32, 4);
        else
          std::memcpy(&bytes[e * 2], &kPoison16, 2);
      }
    } else if (t.lse) {
      if (t.type != ElemType::F32)
        return (makeError("tensor '", t.name, "' holds log-sum-exps: its "
                              "type must be f32, found ",
                              stringify(t.type)));
      std::vector<float> lse = fillLse(n, seed + i);
      std::memcpy(bytes.data(), lse.data(), bytes.size());
    } else if (!t.pagesOf.empty()) {
      std::vector<int32_t> pages =
          fillPages(n, sizes.at(t.pagesOf), seed + i);
      std::memcpy(bytes.data(), pages.data(), bytes.size());
    } else if (!t.cacheFormat.empty()) {
      const KvCacheFormat *f = findKvCacheFormat(t.cacheFormat);
      const std::string &pagesOf = t.shape.front();
      if (!f || t.type != ElemType::U8 || !sizes.count(t.pageSizeOf) ||
          n != uint64_t(sizes.at(pagesOf)) *
                   uint64_t(f->pageBytes(int64_t(sizes.at(t.pageSizeOf)))))
        return (makeError("tensor '", t.name, "' holds a ",
                              t.cacheFormat, " cache: expected u8, size ",
                              t.pageSizeOf, " and ", pagesOf,
                              " pages of the layout's bytes"));
      f->fill(bytes.data(), int64_t(sizes.at(pagesOf)),
              int64_t(sizes.at(t.pageSizeOf)), seed + i);
    } else if (!t.slotsOf.empty()) {
      std::vector<int32_t> idx = fillIndices(
          n, sizes.at(t.shape.back()), slotCount(t, sizes), seed + i);
      std::memcpy(bytes.data(), idx.data(), bytes.size());
    } else if (!t.lengthsOf.empty()) {
      std::vector<int32_t> lens =
          fillLengths(n, sizes.at(t.lengthsOf), seed + i);
      std::memcpy(bytes.data(), lens.data(), bytes.size());
    } else if (!t.fill.empty()) {
      if (Error e = fillNamed(spec, host, sizes, seed, i))
        return (std::move(e).withContext("tensor '" + t.name + "'"));
    } else {
      FillType ft = t.type == ElemType::F32    ? FillType::F32
                    : t.type == ElemType::BF16 ? FillType::BF16
                    : t.type == ElemType::I32  ? FillType::I32
                    : t.type == ElemType::U8   ? FillType::U8
                                               : FillType::F16;
      if (Error e = fillRandom(bytes.data(), bytes.size(), seed + i, ft))
        return std::move(e).withContext("tensor '" + t.name + "'");
    }
  }
  return host;
}

std::vector<uint8_t> nvfp4::rt::tensorMapKey(const TensorMapDesc &desc) {
  std::vector<uint8_t> key;
  auto put = [&](const auto &field) {
    const auto *p = reinterpret_cast<const uint8_t *>(&field);
    key.insert(key.end(), p, p + sizeof(field));
  };
  put(desc.dataType);
  put(desc.rank);
  put(desc.globalAddress);
  put(desc.globalDims);
  put(desc.globalStrides);
  put(desc.boxDims);
  put(desc.elementStrides);
  put(desc.interleave);
  put(desc.swizzle);
  put(desc.l2Promotion);
  put(desc.oobFill);
  return key;
}

Expected<TensorMapBlob>
nvfp4::rt::encodeTensorMapCached(Device &device, const TensorMapDesc &desc,
                                 TensorMapCache *cache) {
  if (!cache)
    return device.encodeTensorMap(desc);
  std::vector<uint8_t> key = tensorMapKey(desc);
  auto hit = cache->encoded.find(key);
  if (hit != cache->encoded.end())
    return hit->second;
  auto blob = device.encodeTensorMap(desc);
  if (!blob)
    return blob;
  if (cache->encoded.size() >= TensorMapCache::kMaxEncoded)
    cache->encoded.clear();
  cache->encoded.emplace(std::move(key), *blob);
  return blob;
}

Expected<DevicePtr> nvfp4::rt::tensorMapCopy(Device &device,
                                             const TensorMapBlob &blob,
                                             TensorMapCache *cache,
                                             bool defer) {
  std::vector<uint8_t> key(blob.bytes.begin(), blob.bytes.end());
  if (!cache) {
    auto copy = device.allocate(kTensorMapBytes);
    if (!copy)
      return copy.takeError();
    if (Error e =
            device.copyToDevice(*copy, blob.bytes.data(), kTensorMapBytes)) {
      (void)device.free(*copy);
      return std::move(e);
    }
    return *copy;
  }
  auto hit = cache->copies.find(key);
  if (hit != cache->copies.end()) {
    // A copy still pending is written now for a caller that will not flush.
    auto waiting =
        defer ? cache->pending.end() : cache->pending.find(hit->second);
    if (waiting != cache->pending.end()) {
      if (Error e =
              device.copyToDevice(hit->second, key.data(), kTensorMapBytes)) {
        cache->pending.erase(waiting);
        cache->copies.erase(hit);
        return std::move(e);
      }
      cache->pending.erase(waiting);
    }
    return hit->second;
  }
  if (cache->slabs.empty() || cache->slabUsed == TensorMapCache::kSlabMaps) {
    auto slab = device.allocate(TensorMapCache::kSlabMaps * kTensorMapBytes);
    if (!slab)
      return slab.takeError();
    cache->slabs.push_back(*slab);
    cache->slabUsed = 0;
  }
  DevicePtr copy = cache->slabs.back() + cache->slabUsed * kTensorMapBytes;
  if (!defer) {
    if (Error e = device.copyToDevice(copy, key.data(), kTensorMapBytes))
      return std::move(e);
  }
  ++cache->slabUsed;
  cache->copies[key] = copy;
  if (defer)
    cache->pending[copy] = std::move(key);
  return copy;
}

Error nvfp4::rt::flushTensorMapCopies(Device &device, TensorMapCache &cache) {
  Error failed = Error::success();
  auto startsBlock = [&](DevicePtr p) {
    return std::find(cache.slabs.begin(), cache.slabs.end(), p) !=
           cache.slabs.end();
  };
  for (auto it = cache.pending.begin(); it != cache.pending.end();) {
    // A run of adjacent slots of one block: one copy (two blocks may be
    // adjacent in memory, but a copy may not span two allocations).
    DevicePtr start = it->first;
    std::vector<uint8_t> bytes;
    auto end = it;
    for (; end != cache.pending.end() && end->first == start + bytes.size() &&
           (bytes.empty() || !startsBlock(end->first));
         ++end)
      bytes.insert(bytes.end(), end->second.begin(), end->second.end());
    if (!failed)
      failed = device.copyToDevice(start, bytes.data(), bytes.size());
    it = end;
  }
  if (failed) {
    // Forget every pending copy: the next launch on these maps makes new
    // ones (their slots are left unused).
    for (const auto &[ptr, key] : cache.pending)
      cache.copies.erase(key);
  }
  cache.pending.clear();
  return failed;
}
