//===- HarnessJson.cpp - A HarnessSpec as JSON and back -------------------===//

#include "nvfp4/Runtime/HarnessJson.h"

#include <functional>
#include <limits>
#include <set>
#include <sstream>

namespace nvfp4::rt {

using json::Value;

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

namespace {

std::string strings(const std::vector<std::string> &list) {
  std::string out = "[";
  for (size_t i = 0; i < list.size(); ++i)
    out += (i ? ", " : "") + json::quote(list[i]);
  return out + "]";
}

template <typename T> std::string integers(const std::vector<T> &list) {
  std::string out = "[";
  for (size_t i = 0; i < list.size(); ++i)
    out += (i ? ", " : "") + std::to_string(list[i]);
  return out + "]";
}

std::string dim3(const Dim3 &d) {
  return "[" + std::to_string(d.x) + ", " + std::to_string(d.y) + ", " +
         std::to_string(d.z) + "]";
}

std::string launchJson(const LaunchConfig &c) {
  return "{" + launchMembersJson(c) + "}";
}

const char *argKind(HarnessArg::Kind k) {
  switch (k) {
  case HarnessArg::Kind::TensorMap:
    return "tensor_map";
  case HarnessArg::Kind::Buffer:
    return "buffer";
  case HarnessArg::Kind::Scalar:
    return "scalar";
  }
  return "?";
}

const KernelArg::Kind kScalarKinds[] = {
    KernelArg::Kind::I32, KernelArg::Kind::U32, KernelArg::Kind::I64,
    KernelArg::Kind::U64, KernelArg::Kind::F32, KernelArg::Kind::F64};

std::string argsJson(const std::vector<HarnessArg> &args) {
  std::string out = "[";
  for (size_t i = 0; i < args.size(); ++i) {
    const HarnessArg &a = args[i];
    out += i ? ", " : "";
    out += "{\"kind\": \"" + std::string(argKind(a.kind)) + "\"";
    if (a.kind == HarnessArg::Kind::Scalar) {
      out += ", \"type\": \"" + std::string(KernelArg::stringify(a.scalarType)) +
             "\", \"value\": " + json::quote(a.value) + "}";
      continue;
    }
    out += ", \"tensor\": " + json::quote(a.tensor) +
           ", \"view\": " + strings(a.view);
    if (a.kind == HarnessArg::Kind::TensorMap)
      out += ", \"box\": " + integers(a.box) + ", \"swizzle\": \"" +
             stringify(a.swizzle) + "\", \"by_pointer\": " +
             (a.byPointer ? "true" : "false");
    out += "}";
  }
  return out + "]";
}

std::string toleranceJson(const Tolerance &t) {
  std::string out = "{\"rel_l2\": " + json::number(t.relL2);
  if (t.minCos)
    out += ", \"min_cos\": " + json::number(*t.minCos);
  if (t.maxAbs)
    out += ", \"max_abs\": " + json::number(*t.maxAbs);
  return out + "}";
}

std::string tensorJson(const HarnessTensor &t) {
  std::ostringstream os;
  auto b = [](bool v) { return v ? "true" : "false"; };
  os << "{\"name\": " << json::quote(t.name) << ", \"type\": \""
     << stringify(t.type) << "\", \"shape\": " << strings(t.shape)
     << ", \"output\": " << b(t.output)
     << ", \"lengths_of\": " << json::quote(t.lengthsOf);
  if (t.tolerance)
    os << ", \"tolerance\": " << toleranceJson(*t.tolerance);
  os << ", \"absent\": " << b(t.absent)
     << ", \"same_as\": " << json::quote(t.sameAs)
     << ", \"slice_of\": " << json::quote(t.sliceOf)
     << ", \"lse\": " << b(t.lse)
     << ", \"pages_of\": " << json::quote(t.pagesOf)
     << ", \"slots_of\": " << strings(t.slotsOf)
     << ", \"cache_format\": " << json::quote(t.cacheFormat)
     << ", \"page_size_of\": " << json::quote(t.pageSizeOf)
     << ", \"fill\": " << json::quote(t.fill)
     << ", \"fill_of\": " << json::quote(t.fillOf)
     << ", \"inout\": " << b(t.inout) << ", \"workspace\": " << b(t.workspace)
     << ", \"dims\": " << integers(t.dims) << "}";
  return os.str();
}

} // namespace

std::string launchMembersJson(const LaunchConfig &c) {
  return "\"grid\": " + dim3(c.grid) + ", \"block\": " + dim3(c.block) +
         ", \"cluster\": " + dim3(c.cluster) +
         ", \"dynamic_smem\": " + std::to_string(c.dynamicSmemBytes) +
         (c.programmatic ? ", \"programmatic\": true" : "");
}

std::string harnessToJson(const HarnessSpec &spec) {
  std::ostringstream os;
  os << "{\"kernel\": " << json::quote(spec.kernel)
     << ", \"reference\": " << json::quote(spec.reference) << ", \"sizes\": {";
  bool first = true;
  for (const auto &[n, v] : spec.sizes) {
    os << (first ? "" : ", ") << json::quote(n) << ": " << v;
    first = false;
  }
  os << "}, \"settable\": "
     << strings(std::vector<std::string>(spec.settable.begin(),
                                         spec.settable.end()))
     << ", \"multiple_of\": {";
  first = true;
  for (const auto &[n, v] : spec.multipleOf) {
    os << (first ? "" : ", ") << json::quote(n) << ": " << v;
    first = false;
  }
  os << "}, \"options\": {";
  first = true;
  for (const auto &[n, v] : spec.options) {
    os << (first ? "" : ", ") << json::quote(n) << ": " << json::number(v);
    first = false;
  }
  os << "}, \"tensors\": [";
  for (size_t i = 0; i < spec.tensors.size(); ++i)
    os << (i ? ",\n  " : "\n  ") << tensorJson(spec.tensors[i]);
  os << "], \"args\": " << argsJson(spec.args)
     << ", \"launch\": " << launchJson(spec.launch) << ", \"then\": [";
  for (size_t i = 0; i < spec.then.size(); ++i)
    os << (i ? ", " : "") << "{\"kernel\": " << json::quote(spec.then[i].kernel)
       << ", \"args\": " << argsJson(spec.then[i].args)
       << ", \"launch\": " << launchJson(spec.then[i].launch) << "}";
  os << "], \"operands\": " << strings(spec.opOperands)
     << ", \"results\": " << strings(spec.opResults)
     << ", \"rel_l2_tolerance\": " << json::number(spec.relL2Tolerance) << "}";
  return os.str();
}

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

namespace {

/// Reads the members of one object: each read names its member; the first
/// failure sticks (later reads do nothing) and `done` reports it, or a
/// member no read asked for.
class ObjectReader {
public:
  ObjectReader(const Value &v, std::string path, Error &error)
      : v(v), path(std::move(path)), error(error) {
    if (!error && v.kind != Value::Kind::Object)
      error = makeError(this->path, ": expected an object, found ",
                        json::stringify(v.kind));
  }

  bool ok() const { return !error; }
  std::string at(const std::string &key) const { return path + "." + key; }

  /// The member, or null when it is absent (or after a failure).
  const Value *member(const std::string &key) {
    known.insert(key);
    if (error)
      return nullptr;
    return v.get(key);
  }

  template <typename T, typename Convert>
  void read(const std::string &key, T &out, Convert convert) {
    if (const Value *m = member(key)) {
      auto r = convert(*m, at(key));
      if (!r)
        error = r.takeError();
      else
        out = std::move(*r);
    }
  }
  void str(const std::string &key, std::string &out) {
    read(key, out, json::asString);
  }
  void boolean(const std::string &key, bool &out) {
    read(key, out, json::asBool);
  }
  void real(const std::string &key, double &out) {
    read(key, out, json::asDouble);
  }
  template <typename T> void integer(const std::string &key, T &out) {
    read(key, out, [](const Value &m, const std::string &p) -> Expected<T> {
      auto n = json::asU64(m, p);
      if (!n)
        return n.takeError();
      if (*n > uint64_t(std::numeric_limits<T>::max()))
        return makeError(p, ": ", *n, " is out of range");
      return T(*n);
    });
  }
  /// An array: `each` reads item i at path[i].
  void array(const std::string &key,
             const std::function<void(const Value &, const std::string &)>
                 &each) {
    const Value *m = member(key);
    if (!m)
      return;
    if (m->kind != Value::Kind::Array) {
      error = makeError(at(key), ": expected an array, found ",
                        json::stringify(m->kind));
      return;
    }
    for (size_t i = 0; i < m->items.size() && !error; ++i)
      each(m->items[i], at(key) + "[" + std::to_string(i) + "]");
  }
  void strings(const std::string &key, std::vector<std::string> &out) {
    out.clear();
    array(key, [&](const Value &item, const std::string &p) {
      auto s = json::asString(item, p);
      if (!s)
        error = s.takeError();
      else
        out.push_back(*s);
    });
  }
  template <typename T> void integers(const std::string &key, std::vector<T> &out) {
    out.clear();
    array(key, [&](const Value &item, const std::string &p) {
      auto n = json::asU64(item, p);
      if (!n)
        error = n.takeError();
      else if (*n > uint64_t(std::numeric_limits<T>::max()))
        error = makeError(p, ": ", *n, " is out of range");
      else
        out.push_back(T(*n));
    });
  }
  /// An object of NAME: value members.
  void map(const std::string &key,
           const std::function<void(const std::string &, const Value &,
                                    const std::string &)> &each) {
    const Value *m = member(key);
    if (!m)
      return;
    if (m->kind != Value::Kind::Object) {
      error = makeError(at(key), ": expected an object, found ",
                        json::stringify(m->kind));
      return;
    }
    for (const auto &[name, item] : m->members) {
      if (error)
        return;
      each(name, item, at(key) + "." + name);
    }
  }

  Error &err() { return error; }

  /// The failure, else an error for the first member no read named.
  void done() {
    if (error)
      return;
    for (const auto &[key, value] : v.members)
      if (!known.count(key)) {
        error = makeError(at(key), ": unknown member");
        return;
      }
  }

private:
  const Value &v;
  std::string path;
  Error &error;
  std::set<std::string> known;
};

void readDim3(ObjectReader &r, const std::string &key, Dim3 &d) {
  std::vector<uint32_t> xyz;
  r.integers(key, xyz);
  if (!r.ok() || !r.member(key))
    return;
  if (xyz.size() != 3 || !xyz[0] || !xyz[1] || !xyz[2]) {
    r.err() = makeError(r.at(key), ": expected 3 positive extents");
    return;
  }
  d = {xyz[0], xyz[1], xyz[2]};
}

void readLaunch(const Value &v, const std::string &path, Error &error,
                LaunchConfig &c) {
  ObjectReader r(v, path, error);
  readDim3(r, "grid", c.grid);
  readDim3(r, "block", c.block);
  readDim3(r, "cluster", c.cluster);
  r.integer("dynamic_smem", c.dynamicSmemBytes);
  r.boolean("programmatic", c.programmatic);
  r.done();
}

void readArgs(ObjectReader &parent, const std::string &key,
              std::vector<HarnessArg> &out) {
  out.clear();
  parent.array(key, [&](const Value &item, const std::string &p) {
    ObjectReader r(item, p, parent.err());
    HarnessArg a;
    std::string kind, swizzle = "none", type;
    r.str("kind", kind);
    if (!r.ok())
      return;
    if (kind == "scalar") {
      a.kind = HarnessArg::Kind::Scalar;
      r.str("type", type);
      r.str("value", a.value);
      bool found = false;
      for (KernelArg::Kind k : kScalarKinds)
        if (type == KernelArg::stringify(k)) {
          a.scalarType = k;
          found = true;
        }
      if (r.ok() && !found)
        r.err() = makeError(r.at("type"), ": expected i32, u32, i64, u64, "
                                          "f32 or f64, found \"",
                            type, "\"");
    } else if (kind == "buffer" || kind == "tensor_map") {
      a.kind = kind == "buffer" ? HarnessArg::Kind::Buffer
                                : HarnessArg::Kind::TensorMap;
      r.str("tensor", a.tensor);
      r.strings("view", a.view);
      if (a.kind == HarnessArg::Kind::TensorMap) {
        r.integers("box", a.box);
        r.str("swizzle", swizzle);
        r.boolean("by_pointer", a.byPointer);
        if (r.ok()) {
          auto sw = parseTmaSwizzle(swizzle);
          if (!sw)
            r.err() = makeError(r.at("swizzle"), ": ",
                                sw.takeError().message());
          else
            a.swizzle = *sw;
        }
      }
    } else {
      r.err() = makeError(r.at("kind"), ": expected \"tensor_map\", "
                                        "\"buffer\" or \"scalar\", found \"",
                          kind, "\"");
    }
    r.done();
    out.push_back(std::move(a));
  });
}

void readTensor(const Value &v, const std::string &path, Error &error,
                HarnessTensor &t) {
  ObjectReader r(v, path, error);
  std::string type = "f32";
  r.str("name", t.name);
  r.str("type", type);
  if (r.ok()) {
    auto e = parseElemType(type);
    if (!e)
      r.err() = makeError(r.at("type"), ": ", e.takeError().message());
    else
      t.type = *e;
  }
  r.strings("shape", t.shape);
  r.boolean("output", t.output);
  r.str("lengths_of", t.lengthsOf);
  if (const Value *tol = r.member("tolerance")) {
    ObjectReader tr(*tol, r.at("tolerance"), r.err());
    Tolerance tolerance;
    tr.real("rel_l2", tolerance.relL2);
    if (tr.member("min_cos")) {
      double c = 0;
      tr.real("min_cos", c);
      tolerance.minCos = c;
    }
    if (tr.member("max_abs")) {
      double m = 0;
      tr.real("max_abs", m);
      tolerance.maxAbs = m;
    }
    tr.done();
    t.tolerance = tolerance;
  }
  r.boolean("absent", t.absent);
  r.str("same_as", t.sameAs);
  r.str("slice_of", t.sliceOf);
  r.boolean("lse", t.lse);
  r.str("pages_of", t.pagesOf);
  r.strings("slots_of", t.slotsOf);
  r.str("cache_format", t.cacheFormat);
  r.str("page_size_of", t.pageSizeOf);
  r.str("fill", t.fill);
  r.str("fill_of", t.fillOf);
  r.boolean("inout", t.inout);
  r.boolean("workspace", t.workspace);
  r.integers("dims", t.dims);
  r.done();
}

} // namespace

Expected<HarnessSpec> harnessFromJson(const Value &v, const std::string &path) {
  HarnessSpec spec;
  Error error = Error::success();
  ObjectReader r(v, path, error);
  r.str("kernel", spec.kernel);
  r.str("reference", spec.reference);
  r.map("sizes", [&](const std::string &name, const Value &item,
                     const std::string &p) {
    auto n = json::asU64(item, p);
    if (!n)
      error = n.takeError();
    else
      spec.sizes[name] = *n;
  });
  std::vector<std::string> settable;
  r.strings("settable", settable);
  spec.settable.insert(settable.begin(), settable.end());
  r.map("multiple_of", [&](const std::string &name, const Value &item,
                           const std::string &p) {
    auto n = json::asU64(item, p);
    if (!n)
      error = n.takeError();
    else if (*n == 0)
      error = makeError(p, ": expected a positive tile");
    else
      spec.multipleOf[name] = *n;
  });
  r.map("options", [&](const std::string &name, const Value &item,
                       const std::string &p) {
    auto d = json::asDouble(item, p);
    if (!d)
      error = d.takeError();
    else
      spec.options[name] = *d;
  });
  r.array("tensors", [&](const Value &item, const std::string &p) {
    HarnessTensor t;
    readTensor(item, p, error, t);
    spec.tensors.push_back(std::move(t));
  });
  readArgs(r, "args", spec.args);
  if (const Value *l = r.member("launch"))
    readLaunch(*l, r.at("launch"), error, spec.launch);
  r.array("then", [&](const Value &item, const std::string &p) {
    ObjectReader tr(item, p, error);
    HarnessLaunch l;
    tr.str("kernel", l.kernel);
    readArgs(tr, "args", l.args);
    if (const Value *c = tr.member("launch"))
      readLaunch(*c, tr.at("launch"), error, l.launch);
    tr.done();
    spec.then.push_back(std::move(l));
  });
  r.strings("operands", spec.opOperands);
  r.strings("results", spec.opResults);
  r.real("rel_l2_tolerance", spec.relL2Tolerance);
  r.done();
  if (error)
    return std::move(error);
  if (Error e = verify(spec))
    return makeError(path, ": ", e.message());
  return spec;
}

} // namespace nvfp4::rt
