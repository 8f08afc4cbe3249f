//===- Harness.cpp - Run a kernel and check it against a reference --------===//

#include "nvfp4/Runtime/Harness.h"
#include "nvfp4/Runtime/Fill.h"

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
  uint64_t n = 1;
  for (const std::string &d : t.shape)
    n *= sizes.at(d);
  return n;
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

} // namespace

Error nvfp4::rt::verify(const HarnessSpec &spec) {
  auto ref = findReference(spec.reference);
  if (!ref)
    return ref.takeError();
  const Reference &r = **ref;
  if (spec.tensors.size() != r.operands.size())
    return makeError("reference '", r.name, "' has ", r.operands.size(),
                     " operands but ", spec.tensors.size(),
                     " tensor types are given");
  for (size_t i = 0; i < r.operands.size(); ++i) {
    const ReferenceOperand &o = r.operands[i];
    const HarnessTensor &t = spec.tensors[i];
    if (t.name != o.name)
      return makeError("operand ", i, " of reference '", r.name, "' is '",
                       o.name, "', found '", t.name, "'");
    for (const std::string &d : t.shape)
      if (!spec.sizes.count(d))
        return makeError("tensor '", t.name, "' has shape ",
                         joinShape(t.shape), " but size '", d,
                         "' is not declared in sizes");
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
  for (size_t i = 0; i < spec.args.size(); ++i) {
    const HarnessArg &a = spec.args[i];
    std::string where = "argument " + std::to_string(i) + ": ";
    if (a.kind == HarnessArg::Kind::Scalar) {
      if (Error e = evalScalar(a.value, spec.sizes).takeError())
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
    if (a.kind == HarnessArg::Kind::TensorMap) {
      if (a.box.size() != t->shape.size())
        return makeError(where, "the tensor map of '", t->name, "' (rank ",
                         t->shape.size(), ") needs ", t->shape.size(),
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

void nvfp4::rt::printHarnessPlan(const HarnessSpec &spec,
                                 const HarnessRunOptions &o,
                                 std::ostream &os) {
  const Reference *ref = *findReference(spec.reference);
  os << "nvfp4-run: kernel " << spec.kernel << " from " << o.origin
     << ", reference " << ref->name << " (" << ref->description << ")\n";
  os << "nvfp4-run: sizes";
  for (const auto &[n, v] : o.sizes)
    os << " " << n << "=" << v;
  os << ", seed " << o.seed << ", rel_l2 tolerance "
     << o.relL2Tolerance.value_or(spec.relL2Tolerance) << "\n";
  const LaunchConfig &l = spec.launch;
  os << "nvfp4-run: grid=" << l.grid.str() << " block=" << l.block.str()
     << " cluster=" << l.cluster.str() << " smem=" << l.dynamicSmemBytes
     << "\n";
  for (size_t i = 0; i < spec.tensors.size(); ++i) {
    const HarnessTensor &t = spec.tensors[i];
    os << "  tensor " << t.name << ": " << stringify(t.type) << " [";
    for (size_t d = 0; d < t.shape.size(); ++d)
      os << (d ? "," : "") << o.sizes.at(t.shape[d]);
    os << "] " << (t.output ? "output, poisoned" : "input, seed ")
       << (t.output ? "" : std::to_string(o.seed + i)) << "\n";
  }
  for (size_t i = 0; i < spec.args.size(); ++i) {
    const HarnessArg &a = spec.args[i];
    os << "  arg " << i << ": ";
    switch (a.kind) {
    case HarnessArg::Kind::TensorMap:
      os << "tmap " << a.tensor << " box=";
      for (size_t d = 0; d < a.box.size(); ++d)
        os << (d ? "," : "") << a.box[d];
      os << " swizzle=" << stringify(a.swizzle)
         << (a.byPointer ? ", by pointer" : ", by value");
      break;
    case HarnessArg::Kind::Buffer:
      os << "buf " << a.tensor;
      break;
    case HarnessArg::Kind::Scalar: {
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

  // Tensors: inputs from the seed (operand i from seed + i), outputs
  // poisoned.
  std::vector<std::vector<uint8_t>> host(spec.tensors.size());
  std::vector<DevicePtr> addr(spec.tensors.size());
  for (size_t i = 0; i < spec.tensors.size(); ++i) {
    const HarnessTensor &t = spec.tensors[i];
    uint64_t n = elements(t, sizes);
    std::vector<uint8_t> &bytes = host[i];
    bytes.resize(n * elemBytes(t.type));
    if (t.output) {
      for (uint64_t e = 0; e < n; ++e) {
        if (t.type == ElemType::F32)
          std::memcpy(&bytes[e * 4], &kPoison32, 4);
        else
          std::memcpy(&bytes[e * 2], &kPoison16, 2);
      }
    } else {
      FillType ft = t.type == ElemType::F32    ? FillType::F32
                    : t.type == ElemType::BF16 ? FillType::BF16
                                               : FillType::F16;
      if (Error e = fillRandom(bytes.data(), bytes.size(), o.seed + i, ft))
        return std::move(e).withContext("tensor '" + t.name + "'");
    }
    auto p = device.allocate(bytes.size());
    if (!p)
      return fail(std::move(p.takeError()).withContext("tensor '" + t.name +
                                                       "'"));
    owned.push_back(*p);
    addr[i] = *p;
    if (Error e = device.copyToDevice(*p, bytes.data(), bytes.size()))
      return fail(std::move(e).withContext("tensor '" + t.name + "'"));
  }
  auto indexOf = [&](const std::string &name) {
    for (size_t i = 0; i < spec.tensors.size(); ++i)
      if (spec.tensors[i].name == name)
        return i;
    return size_t(0);
  };

  // The kernel.
  auto module = device.loadModule(image);
  if (!module)
    return fail(module.takeError());
  auto function = device.getFunction(*module, spec.kernel);
  if (!function)
    return fail(function.takeError());

  // Arguments.
  std::vector<KernelArg> args;
  for (const HarnessArg &a : spec.args) {
    switch (a.kind) {
    case HarnessArg::Kind::Buffer:
      args.push_back(KernelArg::pointer(addr[indexOf(a.tensor)]));
      break;
    case HarnessArg::Kind::Scalar: {
      auto v = evalScalar(a.value, sizes);
      if (!v)
        return fail(v.takeError());
      auto arg = scalarArg(a.scalarType, *v);
      if (!arg)
        return fail(arg.takeError());
      args.push_back(*arg);
      break;
    }
    case HarnessArg::Kind::TensorMap: {
      size_t ti = indexOf(a.tensor);
      const HarnessTensor &t = spec.tensors[ti];
      TensorMapDesc d;
      d.dataType = t.type == ElemType::F32    ? TmaDataType::F32
                   : t.type == ElemType::BF16 ? TmaDataType::BF16
                                              : TmaDataType::F16;
      d.rank = static_cast<unsigned>(t.shape.size());
      d.globalAddress = addr[ti];
      // Row-major tensor: TMA dimension 0 is the innermost (last) one.
      uint64_t stride = elemBytes(t.type);
      for (unsigned r = 0; r < d.rank; ++r) {
        uint64_t extent = sizes.at(t.shape[d.rank - 1 - r]);
        d.globalDims[r] = extent;
        if (r > 0)
          d.globalStrides[r - 1] = stride;
        stride *= extent;
        d.boxDims[r] = a.box[r];
      }
      d.swizzle = a.swizzle;
      auto blob = device.encodeTensorMap(d);
      if (!blob)
        return fail(std::move(blob.takeError())
                        .withContext("the tensor map of '" + t.name + "'"));
      if (!a.byPointer) {
        args.push_back(KernelArg::tensorMap(*blob));
        break;
      }
      auto copy = device.allocate(kTensorMapBytes);
      if (!copy)
        return fail(copy.takeError());
      owned.push_back(*copy);
      if (Error e =
              device.copyToDevice(*copy, blob->bytes.data(), kTensorMapBytes))
        return fail(std::move(e));
      args.push_back(KernelArg::pointer(*copy));
      break;
    }
    }
  }

  auto timing = device.launch(*function, spec.launch, args);
  if (!timing)
    return fail(timing.takeError());
  os << "nvfp4-run: " << spec.kernel << " finished: " << std::fixed
     << std::setprecision(3);
  if (timing->deviceMs)
    os << *timing->deviceMs << " ms on the device, ";
  os << timing->wallMs << " ms wall clock\n";
  os.unsetf(std::ios::fixed);
  std::string report = device.lastLaunchReport();
  if (!report.empty())
    os << "nvfp4-run: " << report << "\n";

  // The reference and the comparison.
  std::vector<std::vector<double>> operands(spec.tensors.size());
  for (size_t i = 0; i < spec.tensors.size(); ++i) {
    const HarnessTensor &t = spec.tensors[i];
    uint64_t n = elements(t, sizes);
    if (t.output)
      operands[i].assign(n, 0.0);
    else
      operands[i] = decode(host[i].data(), n, t.type);
  }
  ref.compute(sizes, operands);

  double tol = o.relL2Tolerance.value_or(spec.relL2Tolerance);
  Metrics all;
  bool first = true, pass = true;
  for (size_t i = 0; i < spec.tensors.size(); ++i) {
    const HarnessTensor &t = spec.tensors[i];
    if (!t.output)
      continue;
    if (Error e = device.copyToHost(host[i].data(), addr[i], host[i].size()))
      return fail(std::move(e).withContext("tensor '" + t.name + "'"));
    Metrics m =
        compare(decode(host[i].data(), elements(t, sizes), t.type), operands[i]);
    os << "nvfp4-run: output " << t.name << ": " << m.count << " elements, "
       << verdictLine(m, tol) << "\n";
    pass = pass && passes(m, tol);
    // The final line reports the worst output.
    if (first || !passes(m, tol) || m.relL2 > all.relL2) {
      if (first || passes(all, tol))
        all = m;
    }
    first = false;
  }
  for (DevicePtr p : owned)
    (void)device.free(p);
  os << verdictLine(all, tol) << "\n";
  return pass;
}
