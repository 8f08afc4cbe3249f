//===- HarnessAttr.cpp - Read a kernel's nvfp4.harness attribute ----------===//
//
// The nvfp4.harness dictionary a lowering puts on its kernel (docs/Runtime.md)
// read into an rt::HarnessSpec, for nvfp4-run, the host lowering and the C
// API.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Dialect/NVFP4/Transforms/HarnessAttr.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace nvfp4;

namespace {

/// Reads the nvfp4.harness dictionary of `func` into `spec`; every problem
/// is an error on `func` naming the field, what was expected and what was
/// found.
class HarnessReader {
public:
  HarnessReader(gpu::GPUFuncOp func, rt::HarnessSpec &spec)
      : func_(func), spec_(spec) {}

  LogicalResult read(DictionaryAttr dict) {
    spec_.kernel = func_.getName().str();
    auto reference = get<StringAttr>(dict, "reference", "a string");
    if (!reference)
      return failure();
    spec_.reference = reference.getValue().str();
    auto ref = rt::findReference(spec_.reference);
    if (!ref)
      return error("reference", ref.takeError().message());

    auto sizes = get<DictionaryAttr>(dict, "sizes", "a dictionary of sizes");
    if (!sizes)
      return failure();
    for (NamedAttribute s : sizes) {
      auto v = dyn_cast<IntegerAttr>(s.getValue());
      if (!v || v.getInt() <= 0)
        return error("sizes." + s.getName().str(),
                     "expected a positive integer, found " + str(s.getValue()));
      spec_.sizes[s.getName().str()] = uint64_t(v.getInt());
    }
    if (Attribute a = dict.get("settable")) {
      auto list = dyn_cast<ArrayAttr>(a);
      if (!list)
        return error("settable", "expected an array of size names, found " +
                                     str(a));
      for (Attribute e : list) {
        auto n = dyn_cast<StringAttr>(e);
        if (!n)
          return error("settable", "expected size names (strings), found " +
                                       str(e));
        spec_.settable.insert(n.getValue().str());
      }
    }
    if (Attribute a = dict.get("multiple_of")) {
      auto d = dyn_cast<DictionaryAttr>(a);
      if (!d)
        return error("multiple_of", "expected a dictionary, found " + str(a));
      for (NamedAttribute s : d) {
        auto v = dyn_cast<IntegerAttr>(s.getValue());
        if (!v || v.getInt() <= 0)
          return error("multiple_of." + s.getName().str(),
                       "expected a positive integer, found " +
                           str(s.getValue()));
        spec_.multipleOf[s.getName().str()] = uint64_t(v.getInt());
      }
    }
    std::optional<double> relL2;
    if (Attribute a = dict.get("rel_l2")) {
      auto f = dyn_cast<FloatAttr>(a);
      if (!f || !(f.getValueAsDouble() >= 0))
        return error("rel_l2", "expected a non-negative float, found " + str(a));
      spec_.relL2Tolerance = f.getValueAsDouble();
      relL2 = spec_.relL2Tolerance;
    }

    // The reference's options: numbers, booleans as 0/1.
    if (Attribute a = dict.get("options")) {
      auto d = dyn_cast<DictionaryAttr>(a);
      if (!d)
        return error("options", "expected a dictionary, found " + str(a));
      for (NamedAttribute o : d) {
        std::string name = o.getName().str();
        const auto &known = (*ref)->options;
        if (!llvm::any_of(known, [&](const rt::ReferenceOption &r) {
              return r.name == name;
            })) {
          std::string names;
          for (const rt::ReferenceOption &r : known)
            names += (names.empty() ? "" : ", ") + r.name;
          return error("options." + name,
                       "reference '" + spec_.reference +
                           "' has no option '" + name + "' (options: " +
                           (names.empty() ? std::string("none") : names) +
                           ")");
        }
        double v;
        if (auto b = dyn_cast<BoolAttr>(o.getValue()))
          v = b.getValue() ? 1 : 0;
        else if (auto f = dyn_cast<FloatAttr>(o.getValue()))
          v = f.getValueAsDouble();
        else if (auto i = dyn_cast<IntegerAttr>(o.getValue()))
          v = double(i.getInt());
        else
          return error("options." + name,
                       "expected a number or a boolean, found " +
                           str(o.getValue()));
        spec_.options[name] = v;
      }
    }
    for (const rt::ReferenceOption &o : (*ref)->options)
      if (o.required && !spec_.options.count(o.name))
        return error("options." + o.name,
                     "missing; reference '" + spec_.reference +
                         "' needs it (" + o.description + ")");

    // Optional operands the kernel does not have, and inputs that copy
    // another (K and V as one value).
    std::set<std::string> absent;
    if (Attribute a = dict.get("absent")) {
      auto list = dyn_cast<ArrayAttr>(a);
      if (!list)
        return error("absent", "expected an array of operand names, found " +
                                   str(a));
      for (Attribute e : list) {
        auto n = dyn_cast<StringAttr>(e);
        if (!n)
          return error("absent", "expected operand names (strings), found " +
                                     str(e));
        absent.insert(n.getValue().str());
      }
    }
    std::map<std::string, std::string> same;
    if (Attribute a = dict.get("same")) {
      auto d = dyn_cast<DictionaryAttr>(a);
      if (!d)
        return error("same", "expected a dictionary {operand = \"operand\"}, "
                             "found " +
                                 str(a));
      for (NamedAttribute e : d) {
        auto n = dyn_cast<StringAttr>(e.getValue());
        if (!n)
          return error("same." + e.getName().str(),
                       "expected an operand name, found " + str(e.getValue()));
        same[e.getName().str()] = n.getValue().str();
      }
    }
    std::map<std::string, std::string> slice;
    if (Attribute a = dict.get("slice")) {
      auto d = dyn_cast<DictionaryAttr>(a);
      if (!d)
        return error("slice", "expected a dictionary {operand = \"operand\"}, "
                              "found " +
                                  str(a));
      for (NamedAttribute e : d) {
        auto n = dyn_cast<StringAttr>(e.getValue());
        if (!n)
          return error("slice." + e.getName().str(),
                       "expected an operand name, found " + str(e.getValue()));
        if (!llvm::any_of((*ref)->operands,
                          [&](const rt::ReferenceOperand &o) {
                            return o.name == e.getName().str();
                          }))
          return error("slice." + e.getName().str(),
                       "reference '" + spec_.reference +
                           "' has no operand '" + e.getName().str() + "'");
        slice[e.getName().str()] = n.getValue().str();
      }
    }
    for (const std::string &n : absent)
      if (!llvm::any_of((*ref)->operands, [&](const rt::ReferenceOperand &o) {
            return o.name == n;
          }))
        return error("absent", "reference '" + spec_.reference +
                                   "' has no operand '" + n + "'");
    for (const auto &[n, from] : same)
      if (!llvm::any_of((*ref)->operands, [&](const rt::ReferenceOperand &o) {
            return o.name == n;
          }))
        return error("same." + n, "reference '" + spec_.reference +
                                      "' has no operand '" + n + "'");

    // Element types of the reference's operands.
    auto types = get<DictionaryAttr>(dict, "types",
                                     "a dictionary operand = \"f32|bf16|f16\"");
    if (!types)
      return failure();
    for (const rt::ReferenceOperand &o : (*ref)->operands) {
      Attribute a = types.get(o.name);
      if (!a && absent.count(o.name)) {
        rt::HarnessTensor tensor{o.name, rt::ElemType::F32, o.shape, o.output,
                                 o.lengthsOf, o.tolerance};
        tensor.absent = true;
        spec_.tensors.push_back(std::move(tensor));
        continue;
      }
      auto s = dyn_cast_or_null<StringAttr>(a);
      if (!s)
        return error("types." + o.name,
                     "expected the element type of operand '" + o.name +
                         "' of reference '" + spec_.reference +
                         "' (\"f32\", \"bf16\", \"f16\", \"i32\" or \"u8\"), found " +
                         (a ? str(a) : std::string("nothing")));
      auto t = rt::parseElemType(s.getValue().str());
      if (!t)
        return error("types." + o.name, t.takeError().message());
      rt::HarnessTensor tensor{o.name, *t, o.shape, o.output, o.lengthsOf,
                               o.tolerance};
      tensor.pagesOf = o.pagesOf;
      tensor.slotsOf = o.slotsOf;
      tensor.cacheFormat = o.cacheFormat;
      tensor.pageSizeOf = o.pageSizeOf;
      tensor.fill = o.fill;
      tensor.fillOf = o.fillOf;
      tensor.inout = o.inout;
      tensor.lse = o.lse;
      tensor.absent = absent.count(o.name) != 0;
      if (auto it = same.find(o.name); it != same.end())
        tensor.sameAs = it->second;
      if (auto it = slice.find(o.name); it != slice.end())
        tensor.sliceOf = it->second;
      // The attribute's rel_l2 applies to every output.
      if (relL2 && tensor.tolerance)
        tensor.tolerance->relL2 = *relL2;
      spec_.tensors.push_back(std::move(tensor));
    }
    for (NamedAttribute t : types)
      if (!llvm::any_of((*ref)->operands, [&](const rt::ReferenceOperand &o) {
            return o.name == t.getName().str();
          }))
        return error("types." + t.getName().str(),
                     "reference '" + spec_.reference +
                         "' has no operand '" + t.getName().str() + "'");

    // Per-output thresholds: {OUT = {cos = X, rel_l2 = X, max_abs = X}}.
    if (Attribute a = dict.get("tolerances")) {
      auto d = dyn_cast<DictionaryAttr>(a);
      if (!d)
        return error("tolerances", "expected a dictionary, found " + str(a));
      for (NamedAttribute o : d) {
        std::string name = o.getName().str();
        std::string field = "tolerances." + name;
        rt::HarnessTensor *t = nullptr;
        for (rt::HarnessTensor &x : spec_.tensors)
          if (x.name == name && x.output)
            t = &x;
        if (!t)
          return error(field, "reference '" + spec_.reference +
                                  "' has no output '" + name + "'");
        auto entries = dyn_cast<DictionaryAttr>(o.getValue());
        if (!entries)
          return error(field, "expected a dictionary {cos = X, rel_l2 = X, "
                              "max_abs = X}, found " +
                                  str(o.getValue()));
        rt::Tolerance tol;
        tol.relL2 = spec_.relL2Tolerance;
        if (t->tolerance)
          tol = *t->tolerance;
        for (NamedAttribute e : entries) {
          std::string key = e.getName().str();
          auto f = dyn_cast<FloatAttr>(e.getValue());
          if (!f || !(f.getValueAsDouble() >= 0) ||
              (key != "cos" && key != "rel_l2" && key != "max_abs"))
            return error(field + "." + key,
                         "expected cos, rel_l2 or max_abs with a "
                         "non-negative float, found " +
                             str(e.getValue()));
          double v = f.getValueAsDouble();
          if (key == "cos")
            tol.minCos = v;
          else if (key == "rel_l2")
            tol.relL2 = v;
          else
            tol.maxAbs = v;
        }
        t->tolerance = tol;
      }
    }

    // The launch.
    if (failed(readDim3(dict, "grid", spec_.launch.grid, true)) ||
        failed(readDim3(dict, "block", spec_.launch.block, true)) ||
        failed(readDim3(dict, "cluster", spec_.launch.cluster, false)))
      return failure();
    if (Attribute a = dict.get("dynamic_smem")) {
      auto v = dyn_cast<IntegerAttr>(a);
      if (!v || v.getInt() < 0 || v.getInt() > 0xFFFFFFFFll)
        return error("dynamic_smem", "expected a byte count, found " + str(a));
      spec_.launch.dynamicSmemBytes = uint32_t(v.getInt());
    }

    // The arguments, one per gpu.func argument.
    auto args = get<ArrayAttr>(dict, "args", "an array of argument "
                                             "dictionaries");
    if (!args)
      return failure();
    unsigned nargs = func_.getNumArguments();
    if (args.size() != nargs)
      return error("args", "expected " + std::to_string(nargs) +
                               " entries (one per kernel argument), found " +
                               std::to_string(args.size()));
    for (unsigned i = 0; i < nargs; ++i)
      if (failed(readArg(func_, "args", i, args[i], spec_.args)))
        return failure();

    // Scratch tensors the kernels share, after the reference's operands.
    if (Attribute a = dict.get("workspace")) {
      auto list = dyn_cast<ArrayAttr>(a);
      if (!list)
        return error("workspace", "expected an array of {name, type, "
                                  "shape} dictionaries, found " +
                                      str(a));
      for (auto [w, e] : llvm::enumerate(list)) {
        std::string field = "workspace[" + std::to_string(w) + "]";
        auto d = dyn_cast<DictionaryAttr>(e);
        auto name = d ? d.getAs<StringAttr>("name") : StringAttr();
        auto type = d ? d.getAs<StringAttr>("type") : StringAttr();
        auto shape = d ? d.getAs<DenseI64ArrayAttr>("shape")
                       : DenseI64ArrayAttr();
        if (!name || !type || !shape)
          return error(field, "expected {name = \"...\", type = \"f32|i32|"
                              "bf16|f16\", shape = array<i64: ...>}, found " +
                                  str(e));
        auto t = rt::parseElemType(type.getValue().str());
        if (!t)
          return error(field + ".type", t.takeError().message());
        rt::HarnessTensor tensor;
        tensor.name = name.getValue().str();
        tensor.type = *t;
        tensor.workspace = true;
        for (int64_t x : shape.asArrayRef()) {
          if (x <= 0)
            return error(field + ".shape", "expected positive extents, "
                                           "found " +
                                               std::to_string(x));
          tensor.dims.push_back(uint64_t(x));
        }
        spec_.tensors.push_back(std::move(tensor));
      }
    }

    // Kernels launched after this one, in the same module.
    if (Attribute a = dict.get("then")) {
      auto list = dyn_cast<ArrayAttr>(a);
      if (!list)
        return error("then", "expected an array of launch dictionaries, "
                             "found " +
                                 str(a));
      auto module = func_->getParentOfType<gpu::GPUModuleOp>();
      for (auto [l, e] : llvm::enumerate(list)) {
        std::string field = "then[" + std::to_string(l) + "]";
        auto d = dyn_cast<DictionaryAttr>(e);
        auto kernel = d ? d.getAs<StringAttr>("kernel") : StringAttr();
        if (!kernel)
          return error(field, "expected {kernel = \"NAME\", grid, block, "
                              "args, ...}, found " +
                                  str(e));
        auto next = module ? module.lookupSymbol<gpu::GPUFuncOp>(kernel)
                           : gpu::GPUFuncOp();
        if (!next || !next.isKernel())
          return error(field + ".kernel",
                       "no kernel gpu.func '" + kernel.getValue().str() +
                           "' in the module of '" + spec_.kernel + "'");
        rt::HarnessLaunch launch;
        launch.kernel = kernel.getValue().str();
        if (failed(readDim3(d, "grid", launch.launch.grid, true, field)) ||
            failed(readDim3(d, "block", launch.launch.block, true, field)) ||
            failed(readDim3(d, "cluster", launch.launch.cluster, false,
                            field)))
          return failure();
        if (Attribute sm = d.get("dynamic_smem")) {
          auto v = dyn_cast<IntegerAttr>(sm);
          if (!v || v.getInt() < 0 || v.getInt() > 0xFFFFFFFFll)
            return error(field + ".dynamic_smem",
                         "expected a byte count, found " + str(sm));
          launch.launch.dynamicSmemBytes = uint32_t(v.getInt());
        }
        if (Attribute pr = d.get("programmatic")) {
          auto v = dyn_cast<BoolAttr>(pr);
          if (!v)
            return error(field + ".programmatic",
                         "expected true or false, found " + str(pr));
          launch.launch.programmatic = v.getValue();
        }
        auto largs = d.getAs<ArrayAttr>("args");
        if (!largs || largs.size() != next.getNumArguments())
          return error(field + ".args",
                       "expected " + std::to_string(next.getNumArguments()) +
                           " entries (one per argument of '" +
                           launch.kernel + "')");
        for (unsigned i = 0; i < largs.size(); ++i)
          if (failed(readArg(next, field + ".args", i, largs[i],
                             launch.args)))
            return failure();
        spec_.then.push_back(std::move(launch));
      }
    }
    // The op's operands and results as tensors (nvfp4.launch, the host
    // lowering).
    for (auto [key, out] : {std::pair{"operands", &spec_.opOperands},
                            std::pair{"results", &spec_.opResults}}) {
      Attribute a = dict.get(key);
      if (!a)
        continue;
      auto list = dyn_cast<ArrayAttr>(a);
      if (!list || !llvm::all_of(list, [](Attribute e) {
            return isa<StringAttr>(e);
          }))
        return error(key, "expected an array of tensor names, found " +
                              str(a));
      for (Attribute e : list)
        out->push_back(cast<StringAttr>(e).getValue().str());
    }
    if (rt::Error e = rt::verify(spec_))
      return error("", e.message());
    return success();
  }

private:
  static std::string str(Attribute a) {
    std::string s;
    llvm::raw_string_ostream os(s);
    a.print(os);
    return s;
  }

  LogicalResult error(const std::string &field, const std::string &message) {
    InFlightDiagnostic d = func_.emitError() << kHarnessAttr;
    if (!field.empty())
      d << "." << field;
    d << ": " << message;
    return failure();
  }

  template <typename T>
  T get(DictionaryAttr dict, const char *key, const char *expected) {
    Attribute a = dict.get(key);
    if (!a) {
      (void)error(key, std::string("missing; expected ") + expected);
      return T();
    }
    auto t = dyn_cast<T>(a);
    if (!t)
      (void)error(key, std::string("expected ") + expected + ", found " +
                           str(a));
    return t;
  }

  LogicalResult readDim3(DictionaryAttr dict, const char *key, rt::Dim3 &d,
                         bool required, const std::string &prefix = "") {
    Attribute a = dict.get(key);
    std::string field = prefix.empty() ? std::string(key) : prefix + "." + key;
    if (!a)
      return required ? error(field, "missing; expected array<i32: X, Y, Z>")
                      : success();
    auto arr = dyn_cast<DenseI32ArrayAttr>(a);
    if (!arr || arr.size() < 1 || arr.size() > 3 ||
        llvm::any_of(arr.asArrayRef(), [](int32_t v) { return v <= 0; }))
      return error(field, "expected array<i32: X[, Y, Z]> of positive "
                          "extents, found " +
                              str(a));
    d.x = uint32_t(arr[0]);
    d.y = arr.size() > 1 ? uint32_t(arr[1]) : 1;
    d.z = arr.size() > 2 ? uint32_t(arr[2]) : 1;
    return success();
  }

  LogicalResult readArg(gpu::GPUFuncOp func, const std::string &list,
                        unsigned i, Attribute attr,
                        std::vector<rt::HarnessArg> &out) {
    std::string field = list + "[" + std::to_string(i) + "]";
    auto d = dyn_cast<DictionaryAttr>(attr);
    if (!d)
      return error(field, "expected a dictionary, found " + str(attr));
    Type type = func.getArgument(i).getType();
    std::string typeStr;
    {
      llvm::raw_string_ostream os(typeStr);
      type.print(os);
    }
    rt::HarnessArg a;
    if (Attribute v = d.get("view")) {
      auto list = dyn_cast<ArrayAttr>(v);
      if (!list || list.empty() || !(d.get("tmap") || d.get("buffer")))
        return error(field + ".view",
                     "expected a non-empty array of strings (\"b*s\", \"d\") "
                     "on a tmap or buffer, found " +
                         str(v));
      for (Attribute e : list) {
        auto n = dyn_cast<StringAttr>(e);
        if (!n)
          return error(field + ".view",
                       "expected strings NAME or NAME*NAME, found " + str(e));
        a.view.push_back(n.getValue().str());
      }
    }
    if (auto t = d.getAs<StringAttr>("tmap")) {
      a.kind = rt::HarnessArg::Kind::TensorMap;
      a.tensor = t.getValue().str();
      auto box = d.getAs<DenseI64ArrayAttr>("box");
      if (!box)
        return error(field + ".box",
                     "expected array<i64: ...> (innermost first), found " +
                         (d.get("box") ? str(d.get("box")) : "nothing"));
      for (int64_t b : box.asArrayRef()) {
        if (b <= 0 || b > 256)
          return error(field + ".box", "expected extents in [1, 256], found " +
                                           std::to_string(b));
        a.box.push_back(uint32_t(b));
      }
      if (auto s = d.getAs<StringAttr>("swizzle")) {
        auto sw = rt::parseTmaSwizzle(s.getValue().str());
        if (!sw)
          return error(field + ".swizzle", sw.takeError().message());
        a.swizzle = *sw;
      }
      if (auto by = d.getAs<StringAttr>("by")) {
        if (by.getValue() != "pointer" && by.getValue() != "value")
          return error(field + ".by", "expected \"pointer\" or \"value\", "
                                      "found \"" +
                                          by.getValue().str() + "\"");
        a.byPointer = by.getValue() == "pointer";
      }
      if (a.byPointer && !isa<LLVM::LLVMPointerType>(type))
        return error(field, "a tensor map passed by pointer needs an "
                            "!llvm.ptr argument, found " +
                                typeStr);
    } else if (auto b = d.getAs<StringAttr>("buffer")) {
      a.kind = rt::HarnessArg::Kind::Buffer;
      a.tensor = b.getValue().str();
      if (!isa<MemRefType, LLVM::LLVMPointerType>(type))
        return error(field, "a buffer needs a memref or !llvm.ptr argument, "
                            "found " +
                                typeStr);
    } else if (auto s = d.getAs<StringAttr>("scalar")) {
      a.kind = rt::HarnessArg::Kind::Scalar;
      std::string t = s.getValue().str();
      if (t == "i32")
        a.scalarType = rt::KernelArg::Kind::I32;
      else if (t == "u32")
        a.scalarType = rt::KernelArg::Kind::U32;
      else if (t == "i64")
        a.scalarType = rt::KernelArg::Kind::I64;
      else if (t == "u64")
        a.scalarType = rt::KernelArg::Kind::U64;
      else if (t == "f32")
        a.scalarType = rt::KernelArg::Kind::F32;
      else if (t == "f64")
        a.scalarType = rt::KernelArg::Kind::F64;
      else
        return error(field + ".scalar",
                     "expected \"i32\", \"u32\", \"i64\", \"u64\", \"f32\" or "
                     "\"f64\", found \"" +
                         t + "\"");
      auto v = d.getAs<StringAttr>("value");
      if (!v)
        return error(field + ".value",
                     "expected a string (\"7\", \"k\" or \"k/64\"), found " +
                         (d.get("value") ? str(d.get("value")) : "nothing"));
      a.value = v.getValue().str();
      if (t == "f32" || t == "f64") {
        bool isF32 = t == "f32";
        if (isF32 ? !type.isF32() : !type.isF64())
          return error(field, "a " + t + " scalar needs an " + t +
                                  " argument, found " + typeStr);
        out.push_back(std::move(a));
        return success();
      }
      unsigned width = t == "i32" || t == "u32" ? 32 : 64;
      bool ok = type.isIndex() ? width == 64
                               : type.isInteger(width);
      if (!ok)
        return error(field, "a " + t + " scalar needs an " +
                                (width == 64 ? std::string("index or i64")
                                             : std::string("i32")) +
                                " argument, found " + typeStr);
    } else {
      return error(field, "expected one of tmap = \"TENSOR\", buffer = "
                          "\"TENSOR\" or scalar = \"i32|u32|i64|u64|f32|f64\", "
                          "found " +
                              str(attr));
    }
    out.push_back(std::move(a));
    return success();
  }

  gpu::GPUFuncOp func_;
  rt::HarnessSpec &spec_;
};

} // namespace

LogicalResult nvfp4::readHarness(gpu::GPUFuncOp func, rt::HarnessSpec &spec) {
  Attribute attr = func->getAttr(kHarnessAttr);
  if (!attr)
    return func.emitError() << "kernel '" << func.getName() << "' has no "
                            << kHarnessAttr
                            << " attribute; docs/Runtime.md describes it";
  auto dict = dyn_cast<DictionaryAttr>(attr);
  if (!dict)
    return func.emitError() << kHarnessAttr
                            << ": expected a dictionary, found " << attr;
  return HarnessReader(func, spec).read(dict);
}

/// Checks the static memref shapes of buffer arguments against the tensor
/// shapes at the resolved sizes.
LogicalResult nvfp4::checkBufferShapes(gpu::GPUFuncOp func,
                                const rt::HarnessSpec &spec,
                                const std::vector<rt::HarnessArg> &args,
                                const std::map<std::string, uint64_t> &sizes) {
  for (unsigned i = 0; i < args.size(); ++i) {
    const rt::HarnessArg &a = args[i];
    if (a.kind != rt::HarnessArg::Kind::Buffer)
      continue;
    auto memref = dyn_cast<MemRefType>(func.getArgument(i).getType());
    if (!memref)
      continue;
    const rt::HarnessTensor *t = nullptr;
    for (const rt::HarnessTensor &x : spec.tensors)
      if (x.name == a.tensor)
        t = &x;
    SmallVector<int64_t> want;
    auto dims = rt::viewDims(*t, a.view, sizes);
    if (!dims)
      return func.emitError() << kHarnessAttr << ".args[" << i
                              << "]: " << dims.takeError().message();
    for (uint64_t d : *dims)
      want.push_back(int64_t(d));
    if (memref.getRank() != int64_t(want.size()))
      return func.emitError() << kHarnessAttr << ".args[" << i << "]: tensor '"
                              << t->name << "' has rank " << want.size()
                              << " but the argument is " << memref;
    for (int64_t d = 0; d < memref.getRank(); ++d)
      if (!memref.isDynamicDim(d) && memref.getDimSize(d) != want[d])
        return func.emitError()
               << kHarnessAttr << ".args[" << i << "]: tensor '" << t->name
               << "' is [" << [&] {
                    std::string s;
                    for (int64_t w : want)
                      s += (s.empty() ? "" : "x") + std::to_string(w);
                    return s;
                  }()
               << "] at these sizes but the argument is " << memref;
  }
  return success();
}

