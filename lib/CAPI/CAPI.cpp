//===- CAPI.cpp - The nvfp4 C API -----------------------------------------===//
//
// include/nvfp4-c/nvfp4.h over the compiler (in-process MLIR: the op's
// lowering, then the device pipeline to PTX) and the runtime (Device,
// launchHarness, runHarness). A kernel is the function's one nvfp4 op with
// its harness (docs/Runtime.md): the harness says how to launch it, and
// its `operands` / `results` say which of the function's arguments and
// results each kernel tensor is. docs/CAPI.md.
//
//===----------------------------------------------------------------------===//

#include "nvfp4-c/nvfp4.h"

#include "nvfp4/Dialect/NVFP4/IR/NVFP4Dialect.h"
#include "nvfp4/Dialect/NVFP4/Transforms/HarnessAttr.h"
#include "nvfp4/InitAll.h"
#include "nvfp4/Pipelines/Pipelines.h"
#include "nvfp4/Runtime/Device.h"
#include "nvfp4/Runtime/EmulatorDevice.h"
#include "nvfp4/Runtime/Harness.h"
#include "nvfp4/Support/InputNesting.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <unistd.h>

#include <atomic>
#include <cstring>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

using namespace mlir;
using namespace nvfp4;

namespace {

thread_local std::string lastError;

nvfp4_status fail(nvfp4_status status, const std::string &message) {
  lastError = message;
  return status;
}

nvfp4_status ok() {
  lastError.clear();
  return NVFP4_OK;
}

const char *const kDtypeNames[] = {"f32", "bf16", "f16", "i32", "u8", "i8"};

std::optional<int32_t> dtypeOf(Type t) {
  if (t.isF32())
    return NVFP4_F32;
  if (t.isBF16())
    return NVFP4_BF16;
  if (t.isF16())
    return NVFP4_F16;
  if (t.isSignlessInteger(32) || t.isSignedInteger(32))
    return NVFP4_I32;
  if (t.isUnsignedInteger(8))
    return NVFP4_U8;
  if (t.isSignlessInteger(8) || t.isSignedInteger(8))
    return NVFP4_I8;
  return std::nullopt;
}


unsigned dtypeBytes(int32_t d) {
  return d == NVFP4_F32 || d == NVFP4_I32 ? 4
         : d == NVFP4_BF16 || d == NVFP4_F16 ? 2
                                            : 1;
}

std::string shapeStr(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

std::string jsonString(const std::string &s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
      continue;
    }
    out += c;
  }
  return out + "\"";
}

/// One argument or result of the compiled function.
struct TensorSlot {
  std::string name; ///< the kernel's tensor
  int32_t dtype = NVFP4_F32;
  std::vector<int64_t> shape;
  uint64_t bytes() const {
    uint64_t n = dtypeBytes(dtype);
    for (int64_t d : shape)
      n *= uint64_t(d);
    return n;
  }
};

std::atomic<uint64_t> nextKernelId{1};

} // namespace

struct nvfp4_kernel {
  uint64_t id = nextKernelId++;
  std::string function;
  rt::HarnessSpec spec;
  std::map<std::string, uint64_t> sizes;
  std::string ptx, cubin;
  std::unique_ptr<rt::KernelImage> image;      ///< the PTX
  std::unique_ptr<rt::KernelImage> cubinImage; ///< with cubin=1
  std::vector<TensorSlot> inputs, outputs;
  /// For each tensor name of the kernel, the input it is (op operands
  /// that are the same argument share it).
  std::map<std::string, size_t> inputOf;
  uint64_t workspaceBytes = 0;
  /// Each workspace tensor's offset in the scratch (workspaceLayout).
  std::map<std::string, uint64_t> workspaceOffsets;
  std::string metadata;
};

struct nvfp4_device {
  std::unique_ptr<rt::Device> device;
  /// Tensor maps in device memory, reused by every launch that encodes the
  /// same map (freed with the device).
  rt::TensorMapCache tensorMaps;
  /// Modules loaded on this device, by kernel id.
  std::map<uint64_t, rt::ModuleHandle> modules;
};

namespace {

/// Workspace tensors, each 256-byte aligned, in spec order: their offsets
/// and the bytes of them all.
uint64_t workspaceLayout(const nvfp4_kernel &k,
                         std::map<std::string, uint64_t> &offsets) {
  uint64_t bytes = 0;
  for (const rt::HarnessTensor &t : k.spec.tensors) {
    if (!t.workspace)
      continue;
    bytes = (bytes + 255) / 256 * 256;
    offsets[t.name] = bytes;
    bytes += rt::tensorElements(t, k.sizes) * rt::elemBytes(t.type);
  }
  return bytes;
}

std::string metadataJson(const nvfp4_kernel &k) {
  std::ostringstream os;
  auto tensors = [&](const std::vector<TensorSlot> &slots) {
    os << "[";
    for (size_t i = 0; i < slots.size(); ++i) {
      os << (i ? ", " : "") << "{\"name\": " << jsonString(slots[i].name)
         << ", \"dtype\": \"" << kDtypeNames[slots[i].dtype]
         << "\", \"shape\": [";
      for (size_t d = 0; d < slots[i].shape.size(); ++d)
        os << (d ? ", " : "") << slots[i].shape[d];
      os << "]}";
    }
    os << "]";
  };
  auto dim3 = [&](const rt::Dim3 &d) {
    os << "[" << d.x << ", " << d.y << ", " << d.z << "]";
  };
  auto args = [&](const std::vector<rt::HarnessArg> &list) {
    os << "[";
    for (size_t i = 0; i < list.size(); ++i) {
      const rt::HarnessArg &a = list[i];
      os << (i ? ", " : "") << "{";
      switch (a.kind) {
      case rt::HarnessArg::Kind::TensorMap: {
        os << "\"kind\": \"tensor_map\", \"tensor\": " << jsonString(a.tensor)
           << ", \"by_pointer\": " << (a.byPointer ? "true" : "false")
           << ", \"box\": [";
        for (size_t b = 0; b < a.box.size(); ++b)
          os << (b ? ", " : "") << a.box[b];
        os << "], \"swizzle\": " << int(a.swizzle);
        break;
      }
      case rt::HarnessArg::Kind::Buffer:
        os << "\"kind\": \"buffer\", \"tensor\": " << jsonString(a.tensor);
        break;
      case rt::HarnessArg::Kind::Scalar:
        os << "\"kind\": \"scalar\", \"type\": \""
           << rt::KernelArg::stringify(a.scalarType)
           << "\", \"value\": " << jsonString(a.value);
        break;
      }
      os << "}";
    }
    os << "]";
  };
  auto launch = [&](const std::string &kernel, const rt::LaunchConfig &c,
                    const std::vector<rt::HarnessArg> &list) {
    os << "{\"kernel\": " << jsonString(kernel) << ", \"grid\": ";
    dim3(c.grid);
    os << ", \"block\": ";
    dim3(c.block);
    os << ", \"cluster\": ";
    dim3(c.cluster);
    os << ", \"dynamic_smem\": " << c.dynamicSmemBytes << ", \"args\": ";
    args(list);
    os << "}";
  };
  os << "{\"api_version\": " << NVFP4_API_VERSION
     << ", \"function\": " << jsonString(k.function)
     << ", \"reference\": " << jsonString(k.spec.reference)
     << ", \"inputs\": ";
  tensors(k.inputs);
  os << ", \"outputs\": ";
  tensors(k.outputs);
  os << ", \"workspace_bytes\": " << k.workspaceBytes << ", \"workspace\": [";
  bool first = true;
  for (const rt::HarnessTensor &t : k.spec.tensors)
    if (t.workspace) {
      os << (first ? "" : ", ") << "{\"name\": " << jsonString(t.name)
         << ", \"offset\": " << k.workspaceOffsets.at(t.name)
         << ", \"bytes\": "
         << rt::tensorElements(t, k.sizes) * rt::elemBytes(t.type) << "}";
      first = false;
    }
  os << "], \"sizes\": {";
  first = true;
  for (auto &[n, v] : k.sizes) {
    os << (first ? "" : ", ") << jsonString(n) << ": " << v;
    first = false;
  }
  os << "}, \"launches\": [";
  launch(k.spec.kernel, k.spec.launch, k.spec.args);
  for (const rt::HarnessLaunch &l : k.spec.then) {
    os << ", ";
    launch(l.kernel, l.launch, l.args);
  }
  os << "]}";
  return os.str();
}

/// Parses `name=value` options.
nvfp4_status parseOptions(const char *text, NVFP4ToLLVMOptions &pipeline,
                          std::string &function, bool &cubin) {
  if (!text)
    return NVFP4_OK;
  std::istringstream in(text);
  std::string item, passOptions;
  while (in >> item) {
    size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                  "options: expected NAME=VALUE, got '" + item + "'");
    std::string name = item.substr(0, eq);
    if (name == "function") {
      function = item.substr(eq + 1);
      continue;
    }
    if (name == "cubin") {
      std::string v = item.substr(eq + 1);
      if (v != "0" && v != "1")
        return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                    "options: cubin must be 0 or 1, got '" + v + "'");
      cubin = v == "1";
      continue;
    }
    if (name != "num-sms" && name != "chip" && name != "features" &&
        name != "cta-group" && name != "opt-level")
      return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                  "options: unknown option '" + name +
                      "' (expected num-sms, chip, features, cta-group, "
                      "opt-level, cubin or function)");
    passOptions += item + " ";
  }
  std::string errors;
  llvm::raw_string_ostream es(errors);
  if (failed(pipeline.parseFromString(passOptions, es)))
    return fail(NVFP4_ERROR_INVALID_ARGUMENT, "options: " + errors);
  if (auto e = validateNVVMTarget(pipeline.chip, pipeline.features,
                                  pipeline.optLevel))
    return fail(NVFP4_ERROR_INVALID_ARGUMENT, "options: " + *e);
  if (pipeline.numSms < 1)
    return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                "options: num-sms must be at least 1");
  return NVFP4_OK;
}

nvfp4_status compile(std::unique_ptr<llvm::MemoryBuffer> buffer,
                     const char *options, nvfp4_kernel **out) {
  NVFP4ToLLVMOptions pipeline;
  std::string wanted;
  bool cubin = false;
  if (nvfp4_status s = parseOptions(options, pipeline, wanted, cubin))
    return s;
  if (auto bad = findInputHazard(buffer->getBuffer()))
    return fail(NVFP4_ERROR_COMPILE,
                buffer->getBufferIdentifier().str() + ":" +
                    std::to_string(bad->line) + ":" +
                    std::to_string(bad->column) + ": " + bad->message);

  DialectRegistry registry;
  registerCompilerDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  context.printOpOnDiagnostic(false);
  std::string diagnostics;
  llvm::raw_string_ostream ds(diagnostics);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  SourceMgrDiagnosticHandler handler(sourceMgr, &context, ds);
  auto compileError = [&](const std::string &what) {
    return fail(NVFP4_ERROR_COMPILE,
                what + (diagnostics.empty() ? "" : ":\n" + diagnostics));
  };

  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context));
  if (!module)
    return compileError("cannot parse the MLIR input");

  // The function: the named one, else the only public one.
  func::FuncOp func;
  std::string names;
  for (auto f : module->getOps<func::FuncOp>()) {
    if (f.isExternal() || f.isPrivate())
      continue;
    names += (names.empty() ? "" : ", ") + f.getName().str();
    if (wanted.empty() ? !func : f.getName() == wanted) {
      if (func && wanted.empty())
        return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                    "the input has several public functions (" + names +
                        "...): choose one with function=NAME");
      func = f;
    }
  }
  if (!wanted.empty() && !func)
    return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                "no public func.func named '" + wanted + "' (functions: " +
                    (names.empty() ? std::string("none") : names) + ")");
  if (!func)
    return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                "the input has no public func.func with a body");
  Block &body = func.getBody().front();
  Operation *op = nullptr;
  for (Operation &o : body.without_terminator()) {
    if (op || !isa<NVFP4Dialect>(o.getDialect()))
      return fail(NVFP4_ERROR_UNSUPPORTED,
                  "function '" + func.getName().str() +
                      "': the C API compiles a function whose body is one "
                      "nvfp4 op on its arguments, found " +
                      o.getName().getStringRef().str() +
                      (op ? " after an nvfp4 op" : "") +
                      "; nvfp4-to-llvm lowers any function (docs/Host.md)");
    op = &o;
  }
  if (!op)
    return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                "function '" + func.getName().str() + "' has no nvfp4 op");
  for (Value v : op->getOperands())
    if (!isa<BlockArgument>(v) ||
        cast<BlockArgument>(v).getOwner() != &body)
      return fail(NVFP4_ERROR_UNSUPPORTED,
                  "function '" + func.getName().str() +
                      "': every operand of the nvfp4 op must be an argument "
                      "of the function");
  Operation *ret = body.getTerminator();
  for (Value v : ret->getOperands())
    if (v.getDefiningOp() != op)
      return fail(NVFP4_ERROR_UNSUPPORTED,
                  "function '" + func.getName().str() +
                      "' must return results of its nvfp4 op only");
  std::string functionName = func.getName().str();

  // The kernel (and its harness).
  {
    PassManager pm(&context, ModuleOp::getOperationName());
    SM100ToCubinOptions lower;
    lower.stopAfter = "attention";
    lower.numSms = pipeline.numSms;
    lower.ctaGroup = pipeline.ctaGroup;
    if (failed(buildSM100ToCubinPipeline(pm, lower)) ||
        failed(pm.run(*module)))
      return compileError("lowering " + op->getName().getStringRef().str() +
                          " failed");
  }
  auto kernelRef = op->getAttrOfType<SymbolRefAttr>("nvfp4.kernel");
  auto kernelFunc =
      kernelRef ? SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(
                      op, kernelRef)
                : gpu::GPUFuncOp();
  if (!kernelFunc)
    return compileError("the lowering built no kernel");
  auto k = std::make_unique<nvfp4_kernel>();
  k->function = functionName;
  if (failed(readHarness(kernelFunc, k->spec)))
    return compileError("the kernel's nvfp4.harness cannot be read");
  if (k->spec.opOperands.size() != op->getNumOperands() ||
      k->spec.opResults.size() != op->getNumResults())
    return fail(NVFP4_ERROR_UNSUPPORTED,
                op->getName().getStringRef().str() +
                    " is not supported by the C API yet: its lowering does "
                    "not name the op's operands and results (docs/Host.md)");
  auto sizes = rt::resolveSizes(k->spec, {});
  if (!sizes)
    return fail(NVFP4_ERROR_COMPILE, sizes.takeError().message());
  k->sizes = *sizes;

  // The function's arguments and results as kernel tensors.
  auto slot = [&](Value v, const std::string &name, const std::string &what,
                  TensorSlot &s) -> nvfp4_status {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    Type element = type ? type.getElementType() : Type();
    // NVFP4 data and scale factors travel as bytes: e2m1 packed two per
    // byte (the innermost extent halved), e4m3 one per byte.
    bool fp4 = element && isa<Float4E2M1FNType>(element);
    bool fp8 = element && isa<Float8E4M3FNType>(element);
    int32_t dtype = -1;
    if (fp4 || fp8)
      dtype = NVFP4_U8;
    else if (element)
      dtype = dtypeOf(element).value_or(-1);
    if (!type || !type.hasStaticShape() || dtype < 0 ||
        (fp4 && (type.getRank() == 0 || type.getShape().back() % 2)))
      return fail(NVFP4_ERROR_UNSUPPORTED,
                  what + " (" + name +
                      "): the C API takes static tensors of f32, bf16, "
                      "f16, i32, i8, ui8, f8E4M3FN (as u8) or f4E2M1FN (as "
                      "u8, two per byte, an even innermost extent)");
    s.name = name;
    s.dtype = dtype;
    s.shape.assign(type.getShape().begin(), type.getShape().end());
    if (fp4)
      s.shape.back() /= 2;
    return NVFP4_OK;
  };
  for (BlockArgument arg : body.getArguments()) {
    std::string name;
    for (auto [j, operand] : llvm::enumerate(op->getOperands()))
      if (operand == arg) {
        if (name.empty())
          name = k->spec.opOperands[j];
        k->inputOf[k->spec.opOperands[j]] = arg.getArgNumber();
      }
    if (name.empty())
      return fail(NVFP4_ERROR_UNSUPPORTED,
                  "argument " + std::to_string(arg.getArgNumber()) +
                      " of '" + functionName +
                      "' is not an operand of its nvfp4 op");
    TensorSlot s;
    if (nvfp4_status st = slot(arg, name,
                               "argument " +
                                   std::to_string(arg.getArgNumber()),
                               s))
      return st;
    k->inputs.push_back(std::move(s));
  }
  for (auto [i, v] : llvm::enumerate(ret->getOperands())) {
    TensorSlot s;
    if (nvfp4_status st =
            slot(v, k->spec.opResults[cast<OpResult>(v).getResultNumber()],
                 "result " + std::to_string(i), s))
      return st;
    k->outputs.push_back(std::move(s));
  }
  if (k->outputs.size() != op->getNumResults())
    return fail(NVFP4_ERROR_UNSUPPORTED,
                "function '" + functionName +
                    "' must return every result of its nvfp4 op, once, in "
                    "order");
  for (auto [i, v] : llvm::enumerate(ret->getOperands()))
    if (cast<OpResult>(v).getResultNumber() != i)
      return fail(NVFP4_ERROR_UNSUPPORTED,
                  "function '" + functionName +
                      "' must return the results of its nvfp4 op in order");

  // Each argument and result holds its kernel tensor's bytes.
  for (const auto *slots : {&k->inputs, &k->outputs})
    for (const TensorSlot &s : *slots)
      for (const rt::HarnessTensor &t : k->spec.tensors)
        if (t.name == s.name &&
            rt::tensorElements(t, k->sizes) * rt::elemBytes(t.type) !=
                s.bytes())
          return fail(NVFP4_ERROR_UNSUPPORTED,
                      "tensor '" + s.name + "' of the kernel holds " +
                          std::to_string(rt::tensorElements(t, k->sizes) *
                                         rt::elemBytes(t.type)) +
                          " bytes but the function's is " +
                          std::to_string(s.bytes()));

  // The device code: PTX, and with cubin=1 the cubin (ptxas), the PTX then
  // written on the way to a temporary file.
  llvm::SmallString<128> ptxPath;
  if (cubin) {
    int fd;
    if (llvm::sys::fs::createTemporaryFile("nvfp4-capi", "ptx", fd, ptxPath))
      return fail(NVFP4_ERROR_COMPILE, "cannot create a temporary file");
    ::close(fd);
  }
  llvm::scope_exit removePtx([&] {
    if (!ptxPath.empty())
      llvm::sys::fs::remove(ptxPath);
  });
  {
    SM100ToCubinOptions device;
    copyDeviceOptions(pipeline, device);
    device.format = cubin ? "bin" : "isa";
    device.ptxFile = std::string(ptxPath.str());
    PassManager pm(&context, ModuleOp::getOperationName());
    if (failed(buildSM100ToCubinPipeline(pm, device)) ||
        failed(pm.run(*module)))
      return compileError("compiling the kernel failed");
  }
  StringRef kernelModule = kernelRef.getRootReference();
  k->ptx = serializedObject(*module, kernelModule,
                            gpu::CompilationTarget::Assembly);
  auto imageOf = [&](const std::string &bytes, const char *what,
                     std::unique_ptr<rt::KernelImage> &out) -> nvfp4_status {
    if (bytes.empty())
      return compileError(std::string("compiling produced no ") + what);
    auto image = rt::KernelImage::fromBytes(
        std::vector<uint8_t>(bytes.begin(), bytes.end()),
        functionName + " (" + what + ")");
    if (!image)
      return fail(NVFP4_ERROR_COMPILE, image.takeError().message());
    out = std::make_unique<rt::KernelImage>(std::move(*image));
    return NVFP4_OK;
  };
  if (cubin) {
    if (auto file = llvm::MemoryBuffer::getFile(ptxPath, /*IsText=*/true))
      k->ptx = (*file)->getBuffer().str();
    k->cubin = serializedObject(*module, kernelModule,
                                gpu::CompilationTarget::Binary);
    if (nvfp4_status s = imageOf(k->cubin, "cubin", k->cubinImage))
      return s;
  }
  if (nvfp4_status s = imageOf(k->ptx, "PTX", k->image))
    return s;
  k->workspaceBytes = workspaceLayout(*k, k->workspaceOffsets);
  k->metadata = metadataJson(*k);
  *out = k.release();
  return ok();
}

nvfp4_status checkTensor(const nvfp4_tensor &t, const TensorSlot &want,
                         const std::string &what) {
  std::string prefix = what + " (" + want.name + "): ";
  std::string expected = std::string(kDtypeNames[want.dtype]) + " " +
                         shapeStr(want.shape);
  if (!t.data)
    return fail(NVFP4_ERROR_INVALID_ARGUMENT, prefix + "data is null");
  if (t.dtype < 0 || t.dtype > NVFP4_I8)
    return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                prefix + "unknown dtype " + std::to_string(t.dtype));
  if (t.rank < 0 || t.rank > 64 || (t.rank > 0 && !t.shape))
    return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                prefix + "bad rank " + std::to_string(t.rank) +
                    " or null shape");
  std::vector<int64_t> shape(t.shape, t.shape + t.rank);
  if (t.dtype != want.dtype || shape != want.shape)
    return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                prefix + "expected " + expected + ", got " +
                    kDtypeNames[t.dtype] + " " + shapeStr(shape));
  if (t.strides) {
    int64_t stride = 1;
    for (int32_t d = t.rank - 1; d >= 0; --d) {
      if (shape[d] != 1 && t.strides[d] != stride) {
        std::vector<int64_t> strides(t.strides, t.strides + t.rank);
        return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                    prefix + "expected a contiguous row-major tensor, got "
                             "strides " +
                        shapeStr(strides));
      }
      stride *= shape[d];
    }
  }
  return NVFP4_OK;
}

/// A report into the caller's buffer, NUL-terminated, truncated to fit.
void copyReport(const std::string &text, char *report, size_t size) {
  if (!report || !size)
    return;
  size_t n = std::min(text.size(), size - 1);
  std::memcpy(report, text.data(), n);
  report[n] = 0;
}

/// The checks every call on a kernel's inputs and outputs starts with:
/// the counts, and the arrays present when they have entries.
nvfp4_status checkCounts(const nvfp4_kernel &k, size_t numInputs,
                         size_t numOutputs, bool inputsNull,
                         bool outputsNull) {
  if (numInputs != k.inputs.size() || numOutputs != k.outputs.size())
    return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                "expected " + std::to_string(k.inputs.size()) +
                    " inputs and " + std::to_string(k.outputs.size()) +
                    " outputs for '" + k.function + "', got " +
                    std::to_string(numInputs) + " and " +
                    std::to_string(numOutputs));
  if ((numInputs && inputsNull) || (numOutputs && outputsNull))
    return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                inputsNull ? "inputs is null" : "outputs is null");
  return NVFP4_OK;
}

rt::ModuleHandle *moduleFor(nvfp4_kernel *k, nvfp4_device *d,
                            nvfp4_status &status) {
  auto it = d->modules.find(k->id);
  if (it != d->modules.end())
    return &it->second;
  // The cuda backend loads the cubin when there is one (no JIT); the
  // emulator runs PTX.
  const rt::KernelImage &image =
      k->cubinImage && d->device->kind() == rt::BackendKind::Cuda
          ? *k->cubinImage
          : *k->image;
  auto m = d->device->loadModule(image);
  if (!m) {
    status = fail(NVFP4_ERROR_DEVICE, m.takeError().message());
    return nullptr;
  }
  return &(d->modules[k->id] = *m);
}

} // namespace

extern "C" {

int nvfp4_api_version(void) { return NVFP4_API_VERSION; }

const char *nvfp4_last_error(void) { return lastError.c_str(); }

const char *nvfp4_dtype_name(int dtype) {
  if (dtype < 0 || dtype > NVFP4_I8)
    return nullptr;
  return kDtypeNames[dtype];
}

nvfp4_status nvfp4_compile(const char *mlir, size_t size, const char *options,
                           nvfp4_kernel **kernel) {
  if (!mlir || !kernel)
    return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                !mlir ? "mlir is null" : "kernel is null");
  *kernel = nullptr;
  if (size == 0)
    size = std::strlen(mlir);
  return compile(llvm::MemoryBuffer::getMemBufferCopy(
                     llvm::StringRef(mlir, size), "<input>"),
                 options, kernel);
}

nvfp4_status nvfp4_compile_file(const char *path, const char *options,
                                nvfp4_kernel **kernel) {
  if (!path || !kernel)
    return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                !path ? "path is null" : "kernel is null");
  *kernel = nullptr;
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!file)
    return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                std::string("path: cannot read '") + path +
                    "': " + file.getError().message());
  return compile(std::move(*file), options, kernel);
}

void nvfp4_kernel_destroy(nvfp4_kernel *kernel) { delete kernel; }

size_t nvfp4_kernel_num_inputs(const nvfp4_kernel *k) {
  return k ? k->inputs.size() : 0;
}

size_t nvfp4_kernel_num_outputs(const nvfp4_kernel *k) {
  return k ? k->outputs.size() : 0;
}

nvfp4_status nvfp4_kernel_tensor(const nvfp4_kernel *k, int isOutput,
                                 size_t index, nvfp4_tensor_info *info) {
  if (!k || !info)
    return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                !k ? "kernel is null" : "info is null");
  const auto &slots = isOutput ? k->outputs : k->inputs;
  if (index >= slots.size())
    return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                "index: " + std::to_string(index) + " is not below the " +
                    std::to_string(slots.size()) +
                    (isOutput ? " outputs" : " inputs"));
  const TensorSlot &s = slots[index];
  if (s.shape.size() > 8)
    return fail(NVFP4_ERROR_UNSUPPORTED, "rank above 8");
  info->name = s.name.c_str();
  info->dtype = s.dtype;
  info->rank = int32_t(s.shape.size());
  std::memset(info->shape, 0, sizeof info->shape);
  std::copy(s.shape.begin(), s.shape.end(), info->shape);
  return ok();
}

const char *nvfp4_kernel_ptx(const nvfp4_kernel *k) {
  return k ? k->ptx.c_str() : "";
}

const void *nvfp4_kernel_cubin(const nvfp4_kernel *k, size_t *size) {
  if (size)
    *size = k ? k->cubin.size() : 0;
  return k && !k->cubin.empty() ? k->cubin.data() : nullptr;
}

const char *nvfp4_kernel_metadata(const nvfp4_kernel *k) {
  return k ? k->metadata.c_str() : "";
}

uint64_t nvfp4_kernel_workspace_bytes(const nvfp4_kernel *k) {
  return k ? k->workspaceBytes : 0;
}

nvfp4_status nvfp4_device_create(const char *backend, int ordinal,
                                 nvfp4_device **device) {
  if (!backend || !device)
    return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                !backend ? "backend is null" : "device is null");
  *device = nullptr;
  auto kind = rt::parseBackendKind(backend);
  if (!kind)
    return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                "backend: " + kind.takeError().message());
  if (ordinal < 0)
    return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                "ordinal: expected >= 0, got " + std::to_string(ordinal));
  rt::DeviceOptions options;
  options.ordinal = unsigned(ordinal);
  auto d = rt::createDevice(*kind, options);
  if (!d)
    return fail(NVFP4_ERROR_DEVICE, d.takeError().message());
  auto out = std::make_unique<nvfp4_device>();
  out->device = std::move(*d);
  *device = out.release();
  return ok();
}

void nvfp4_device_destroy(nvfp4_device *device) { delete device; }

const char *nvfp4_device_backend(const nvfp4_device *d) {
  return d ? rt::stringify(d->device->kind()) : "";
}

nvfp4_status nvfp4_malloc(nvfp4_device *d, size_t bytes, void **ptr) {
  if (!d || !ptr)
    return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                !d ? "device is null" : "ptr is null");
  *ptr = nullptr;
  auto p = d->device->allocate(bytes ? bytes : 1);
  if (!p)
    return fail(NVFP4_ERROR_DEVICE, "bytes: " + p.takeError().message());
  *ptr = reinterpret_cast<void *>(uintptr_t(*p));
  return ok();
}

nvfp4_status nvfp4_free(nvfp4_device *d, void *ptr) {
  if (!d)
    return fail(NVFP4_ERROR_INVALID_ARGUMENT, "device is null");
  if (!ptr)
    return ok();
  if (rt::Error e = d->device->free(uint64_t(uintptr_t(ptr))))
    return fail(NVFP4_ERROR_INVALID_ARGUMENT, "ptr: " + e.message());
  return ok();
}

nvfp4_status nvfp4_copy_to_device(nvfp4_device *d, void *dst,
                                  const void *src, size_t bytes) {
  if (!d || !dst || !src)
    return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                !d ? "device is null" : !dst ? "dst is null" : "src is null");
  if (rt::Error e = d->device->copyToDevice(uint64_t(uintptr_t(dst)), src,
                                            bytes))
    return fail(NVFP4_ERROR_DEVICE, e.message());
  return ok();
}

nvfp4_status nvfp4_copy_to_host(nvfp4_device *d, void *dst, const void *src,
                                size_t bytes) {
  if (!d || !dst || !src)
    return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                !d ? "device is null" : !dst ? "dst is null" : "src is null");
  if (rt::Error e =
          d->device->copyToHost(dst, uint64_t(uintptr_t(src)), bytes))
    return fail(NVFP4_ERROR_DEVICE, e.message());
  return ok();
}

nvfp4_status nvfp4_launch(nvfp4_kernel *k, nvfp4_device *d,
                          const nvfp4_tensor *inputs, size_t numInputs,
                          const nvfp4_tensor *outputs, size_t numOutputs,
                          void *workspace, size_t workspaceBytes,
                          void *stream) {
  if (!k || !d)
    return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                !k ? "kernel is null" : "device is null");
  if (nvfp4_status s = checkCounts(*k, numInputs, numOutputs, !inputs,
                                   !outputs))
    return s;
  for (size_t i = 0; i < numInputs; ++i)
    if (nvfp4_status s = checkTensor(inputs[i], k->inputs[i],
                                     "input " + std::to_string(i)))
      return s;
  for (size_t i = 0; i < numOutputs; ++i)
    if (nvfp4_status s = checkTensor(outputs[i], k->outputs[i],
                                     "output " + std::to_string(i)))
      return s;
  if (workspace && workspaceBytes < k->workspaceBytes)
    return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                "workspace: " + std::to_string(workspaceBytes) +
                    " bytes, the kernel needs " +
                    std::to_string(k->workspaceBytes));

  std::map<std::string, rt::DevicePtr> tensors;
  for (auto &[name, input] : k->inputOf)
    tensors[name] = uint64_t(uintptr_t(inputs[input].data));
  for (size_t i = 0; i < numOutputs; ++i)
    tensors[k->outputs[i].name] = uint64_t(uintptr_t(outputs[i].data));
  if (stream && k->workspaceBytes && !workspace)
    return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                "workspace: a launch on a stream needs the caller's scratch (" +
                    std::to_string(k->workspaceBytes) +
                    " bytes): the call cannot free its own before the "
                    "kernels run");
  uint64_t scratch = uint64_t(uintptr_t(workspace));
  bool ownScratch = false;
  if (k->workspaceBytes && !workspace) {
    auto p = d->device->allocate(k->workspaceBytes);
    if (!p)
      return fail(NVFP4_ERROR_DEVICE,
                  "the workspace: " + p.takeError().message());
    scratch = *p;
    ownScratch = true;
  }
  for (auto &[name, offset] : k->workspaceOffsets)
    tensors[name] = scratch + offset;

  nvfp4_status status = NVFP4_OK;
  rt::ModuleHandle *module = moduleFor(k, d, status);
  rt::Error e = rt::Error::success();
  if (module)
    e = rt::launchHarness(k->spec, *d->device, *module, tensors, k->sizes,
                          nullptr, {}, stream, &d->tensorMaps);
  if (ownScratch)
    (void)d->device->free(scratch);
  if (!module)
    return status;
  if (e)
    return fail(NVFP4_ERROR_DEVICE, e.message());
  return ok();
}

nvfp4_status nvfp4_run_check(nvfp4_kernel *k, nvfp4_device *d, uint64_t seed,
                             int *pass, char *report, size_t reportSize) {
  if (!k || !d || !pass)
    return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                !k ? "kernel is null" : !d ? "device is null" : "pass is null");
  *pass = 0;
  rt::HarnessRunOptions options;
  options.sizes = k->sizes;
  options.seed = seed;
  options.origin = k->function;
  std::ostringstream os;
  auto result = rt::runHarness(k->spec, *k->image, *d->device, options, os);
  copyReport(os.str(), report, reportSize);
  if (!result)
    return fail(NVFP4_ERROR_DEVICE, result.takeError().message());
  *pass = *result ? 1 : 0;
  return ok();
}

nvfp4_status nvfp4_make_inputs(const nvfp4_kernel *k, uint64_t seed,
                               void *const *inputs, size_t numInputs) {
  if (!k)
    return fail(NVFP4_ERROR_INVALID_ARGUMENT, "kernel is null");
  if (nvfp4_status s =
          checkCounts(*k, numInputs, k->outputs.size(), !inputs, false))
    return s;
  for (size_t i = 0; i < numInputs; ++i)
    if (!inputs[i])
      return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                  "input " + std::to_string(i) + " (" + k->inputs[i].name +
                      "): data is null");
  auto made = rt::makeInputs(k->spec, k->sizes, seed);
  if (!made)
    return fail(NVFP4_ERROR_DEVICE, made.takeError().message());
  for (size_t i = 0; i < numInputs; ++i) {
    const TensorSlot &slot = k->inputs[i];
    for (size_t t = 0; t < k->spec.tensors.size(); ++t)
      if (k->spec.tensors[t].name == slot.name) {
        const std::vector<uint8_t> &bytes = (*made)[t];
        if (bytes.size() != slot.bytes())
          return fail(NVFP4_ERROR_UNSUPPORTED,
                      "input " + std::to_string(i) + " (" + slot.name +
                          "): the reference makes " +
                          std::to_string(bytes.size()) + " bytes, not " +
                          std::to_string(slot.bytes()));
        std::memcpy(inputs[i], bytes.data(), bytes.size());
      }
  }
  return ok();
}

nvfp4_status nvfp4_check_outputs(const nvfp4_kernel *k,
                                 const void *const *inputs, size_t numInputs,
                                 const void *const *outputs,
                                 size_t numOutputs, int *pass, char *report,
                                 size_t reportSize) {
  if (!k || !pass)
    return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                !k ? "kernel is null" : "pass is null");
  *pass = 0;
  if (nvfp4_status s = checkCounts(*k, numInputs, numOutputs, !inputs,
                                   !outputs))
    return s;
  for (size_t i = 0; i < numInputs; ++i)
    if (!inputs[i])
      return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                  "input " + std::to_string(i) + " (" + k->inputs[i].name +
                      "): data is null");
  for (size_t i = 0; i < numOutputs; ++i)
    if (!outputs[i])
      return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                  "output " + std::to_string(i) + " (" + k->outputs[i].name +
                      "): data is null");
  const rt::HarnessSpec &spec = k->spec;
  std::vector<std::vector<double>> operands(spec.tensors.size());
  std::vector<std::vector<uint8_t>> outs(spec.tensors.size());
  for (size_t i = 0; i < spec.tensors.size(); ++i) {
    const rt::HarnessTensor &t = spec.tensors[i];
    uint64_t n = rt::tensorElements(t, k->sizes);
    if (t.absent || t.workspace)
      continue;
    if (t.output) {
      for (size_t o = 0; o < k->outputs.size(); ++o)
        if (k->outputs[o].name == t.name) {
          auto *p = static_cast<const uint8_t *>(outputs[o]);
          outs[i].assign(p, p + n * rt::elemBytes(t.type));
        }
      continue;
    }
    auto it = k->inputOf.find(t.name);
    if (it == k->inputOf.end())
      return fail(NVFP4_ERROR_UNSUPPORTED,
                  "the reference's input '" + t.name +
                      "' is none of the function's arguments");
    operands[i] = rt::decode(static_cast<const uint8_t *>(inputs[it->second]),
                             n, t.type);
  }
  std::ostringstream os;
  auto result = rt::checkOutputs(spec, k->sizes, std::move(operands), outs,
                                 std::nullopt, os);
  copyReport(os.str(), report, reportSize);
  if (!result)
    return fail(NVFP4_ERROR_INVALID_ARGUMENT, result.takeError().message());
  *pass = *result ? 1 : 0;
  return ok();
}

} // extern "C"
