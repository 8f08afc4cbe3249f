//===- CAPI.cpp - The nvfp4 C API: kernels, devices, launches -------------===//
//
// include/nvfp4-c/nvfp4.h over the runtime (Device, launchHarness,
// runHarness); plain C++, so libnvfp4_runtime.so builds it without MLIR.
// A kernel is the function's one nvfp4 op with its harness
// (docs/Runtime.md): the harness says how to launch it, and its `operands`
// / `results` say which of the function's arguments and results each kernel
// tensor is. Compile.cpp makes kernels from MLIR, Artifact.cpp from saved
// artifacts. docs/CAPI.md.
//
//===----------------------------------------------------------------------===//

#include "CAPIInternal.h"

#include "nvfp4/Runtime/HarnessJson.h"
#include "nvfp4/Runtime/Json.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <sstream>

using namespace nvfp4;
using namespace nvfp4::capi;

namespace {

thread_local std::string lastError;

const char *const kDtypeNames[] = {"f32", "bf16", "f16", "i32", "u8", "i8"};

std::string shapeStr(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

std::atomic<uint64_t> nextKernelId{1};

} // namespace

nvfp4_status capi::fail(nvfp4_status status, const std::string &message) {
  lastError = message;
  return status;
}

nvfp4_status capi::ok() {
  lastError.clear();
  return NVFP4_OK;
}

const char *capi::dtypeName(int32_t d) { return kDtypeNames[d]; }

unsigned capi::dtypeBytes(int32_t d) {
  return d == NVFP4_F32 || d == NVFP4_I32 ? 4
         : d == NVFP4_BF16 || d == NVFP4_F16 ? 2
                                            : 1;
}

uint64_t TensorSlot::bytes() const {
  uint64_t n = dtypeBytes(dtype);
  for (int64_t d : shape)
    n *= uint64_t(d);
  return n;
}

uint64_t capi::newKernelId() { return nextKernelId++; }

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
      os << (i ? ", " : "") << "{\"name\": " << rt::json::quote(slots[i].name)
         << ", \"dtype\": \"" << kDtypeNames[slots[i].dtype]
         << "\", \"shape\": [";
      for (size_t d = 0; d < slots[i].shape.size(); ++d)
        os << (d ? ", " : "") << slots[i].shape[d];
      os << "]}";
    }
    os << "]";
  };
  auto args = [&](const std::vector<rt::HarnessArg> &list) {
    os << "[";
    for (size_t i = 0; i < list.size(); ++i) {
      const rt::HarnessArg &a = list[i];
      os << (i ? ", " : "") << "{";
      switch (a.kind) {
      case rt::HarnessArg::Kind::TensorMap: {
        os << "\"kind\": \"tensor_map\", \"tensor\": " << rt::json::quote(a.tensor)
           << ", \"by_pointer\": " << (a.byPointer ? "true" : "false")
           << ", \"box\": [";
        for (size_t b = 0; b < a.box.size(); ++b)
          os << (b ? ", " : "") << a.box[b];
        os << "], \"swizzle\": " << int(a.swizzle);
        break;
      }
      case rt::HarnessArg::Kind::Buffer:
        os << "\"kind\": \"buffer\", \"tensor\": " << rt::json::quote(a.tensor);
        break;
      case rt::HarnessArg::Kind::Scalar:
        os << "\"kind\": \"scalar\", \"type\": \""
           << rt::KernelArg::stringify(a.scalarType)
           << "\", \"value\": " << rt::json::quote(a.value);
        break;
      }
      os << "}";
    }
    os << "]";
  };
  auto launch = [&](const std::string &kernel, const rt::LaunchConfig &c,
                    const std::vector<rt::HarnessArg> &list) {
    os << "{\"kernel\": " << rt::json::quote(kernel) << ", "
       << rt::launchMembersJson(c) << ", \"args\": ";
    args(list);
    os << "}";
  };
  os << "{\"api_version\": " << NVFP4_API_VERSION
     << ", \"function\": " << rt::json::quote(k.function)
     << ", \"reference\": " << rt::json::quote(k.spec.reference)
     << ", \"inputs\": ";
  tensors(k.inputs);
  os << ", \"outputs\": ";
  tensors(k.outputs);
  os << ", \"workspace_bytes\": " << k.workspaceBytes << ", \"workspace\": [";
  bool first = true;
  for (const rt::HarnessTensor &t : k.spec.tensors)
    if (t.workspace) {
      os << (first ? "" : ", ") << "{\"name\": " << rt::json::quote(t.name)
         << ", \"offset\": " << k.workspaceOffsets.at(t.name)
         << ", \"bytes\": "
         << rt::tensorElements(t, k.sizes) * rt::elemBytes(t.type) << "}";
      first = false;
    }
  os << "], \"sizes\": {";
  first = true;
  for (auto &[n, v] : k.sizes) {
    os << (first ? "" : ", ") << rt::json::quote(n) << ": " << v;
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

/// How a message names a kernel's argument: "input 2 (v)".
std::string argName(const char *kind, size_t index, const std::string &name) {
  return std::string(kind) + " " + std::to_string(index) + " (" + name + ")";
}

/// `kind` ("input" / "output") `index` of the kernel, slot `want`. Every
/// launch checks each tensor, so the messages are formatted only on failure
/// (a launch's host time is docs/Hopper.md's "Host time of one call").
nvfp4_status checkTensor(const nvfp4_tensor &t, const TensorSlot &want,
                         const char *kind, size_t index) {
  auto prefix = [&] { return argName(kind, index, want.name) + ": "; };
  if (!t.data)
    return fail(NVFP4_ERROR_INVALID_ARGUMENT, prefix() + "data is null");
  if (t.dtype < 0 || t.dtype > NVFP4_I8)
    return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                prefix() + "unknown dtype " + std::to_string(t.dtype));
  if (t.rank < 0 || t.rank > 64 || (t.rank > 0 && !t.shape))
    return fail(NVFP4_ERROR_INVALID_ARGUMENT, prefix() + "bad rank " +
                                                  std::to_string(t.rank) +
                                                  " or null shape");
  const int64_t *shape = t.shape;
  if (t.dtype != want.dtype || size_t(t.rank) != want.shape.size() ||
      !std::equal(shape, shape + t.rank, want.shape.begin()))
    return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                prefix() + "expected " + kDtypeNames[want.dtype] + " " +
                    shapeStr(want.shape) + ", got " + kDtypeNames[t.dtype] +
                    " " +
                    shapeStr(std::vector<int64_t>(shape, shape + t.rank)));
  if (t.strides) {
    int64_t stride = 1;
    for (int32_t d = t.rank - 1; d >= 0; --d) {
      if (shape[d] != 1 && t.strides[d] != stride) {
        std::vector<int64_t> strides(t.strides, t.strides + t.rank);
        return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                    prefix() +
                        "expected a contiguous row-major tensor, got "
                        "strides " +
                        shapeStr(strides));
      }
      stride *= shape[d];
    }
  }
  return NVFP4_OK;
}

/// No output shares a byte with another tensor or the workspace, nor the
/// workspace with an input: the kernels read their inputs while they write
/// the outputs and the workspace, so on a GPU an overlap is a race with a
/// silent wrong answer. Inputs may share memory (K and V one tensor). The
/// one exception is an output that starts as an input (outs(%init)) passed
/// as that same buffer: updated in place.
nvfp4_status checkOverlaps(const nvfp4_kernel &k, const nvfp4_tensor *inputs,
                           const nvfp4_tensor *outputs, const void *workspace) {
  struct Range {
    uint64_t lo, hi;
    int64_t input = -1;    ///< the input's index, or -1
    int64_t output = -1;   ///< the output's index, or -1 (the workspace)
    int64_t startsAs = -1; ///< an output: the input it starts as, or -1
  };
  std::vector<Range> ranges;
  ranges.reserve(k.inputs.size() + k.outputs.size() + 1);
  auto add = [&](const void *data, uint64_t bytes) -> Range & {
    uint64_t lo = uint64_t(uintptr_t(data));
    return ranges.emplace_back(Range{lo, lo + bytes});
  };
  // The message's name of a range (formatted only for a message).
  auto what = [&](const Range &r) {
    if (r.input >= 0)
      return argName("input", r.input, k.inputs[r.input].name);
    if (r.output >= 0)
      return argName("output", r.output, k.outputs[r.output].name);
    return std::string("the workspace");
  };
  for (size_t i = 0; i < k.inputs.size(); ++i)
    add(inputs[i].data, k.inputs[i].bytes()).input = int64_t(i);
  for (size_t o = 0; o < k.outputs.size(); ++o) {
    Range &r = add(outputs[o].data, k.outputs[o].bytes());
    r.output = int64_t(o);
    auto it = k.inputOf.find(k.outputs[o].name);
    if (it != k.inputOf.end())
      r.startsAs = int64_t(it->second);
  }
  if (workspace)
    add(workspace, k.workspaceBytes);
  for (size_t a = 0; a < ranges.size(); ++a) {
    const Range &w = ranges[a];
    if (w.input >= 0)
      continue; // only what is written can clash
    for (size_t b = 0; b < ranges.size(); ++b) {
      const Range &r = ranges[b];
      bool written = r.input < 0;
      if (a == b || (written && b < a) || w.lo >= r.hi || r.lo >= w.hi ||
          w.hi == w.lo || r.hi == r.lo)
        continue;
      if (r.input >= 0 && r.input == w.startsAs && r.lo == w.lo)
        continue; // updated in place
      return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                  what(w) + ": overlaps " + what(r) +
                      "; an output or the workspace must not share memory "
                      "with another tensor (only an output that starts as "
                      "an input may be that same buffer)");
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

/// Every entry of a caller's array of host buffers is set; the error names
/// the first that is not ("input 2 (v): data is null").
nvfp4_status checkHostData(const void *const *data, size_t n,
                           const std::vector<TensorSlot> &slots,
                           const char *what) {
  for (size_t i = 0; i < n; ++i)
    if (!data[i])
      return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                  argName(what, i, slots[i].name) + ": data is null");
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

nvfp4_status capi::finishKernel(std::unique_ptr<nvfp4_kernel> k,
                                nvfp4_kernel **out, bool fromArtifact) {
  // A compiled function that does not fit the kernel is unsupported; an
  // artifact that does not is a bad artifact.
  auto reject = [&](nvfp4_status status, const std::string &message) {
    return fromArtifact
               ? fail(NVFP4_ERROR_INVALID_ARGUMENT, "artifact: " + message)
               : fail(status, message);
  };
  // Every tensor is at most 2^40 bytes (so that no size product wraps).
  for (const rt::HarnessTensor &t : k->spec.tensors) {
    if (t.absent)
      continue;
    __uint128_t bytes = rt::elemBytes(t.type);
    bool tooBig = false;
    auto times = [&](uint64_t n) {
      bytes *= n;
      tooBig |= bytes > (__uint128_t(1) << 40);
    };
    if (t.workspace)
      for (uint64_t d : t.dims)
        times(d);
    else
      for (const std::string &name : t.shape)
        times(k->sizes.count(name) ? k->sizes.at(name) : 0);
    if (tooBig)
      return reject(NVFP4_ERROR_UNSUPPORTED,
                  "tensor '" + t.name + "' of the kernel is over 2^40 bytes");
  }
  // Each argument and result is a kernel tensor and holds its bytes.
  for (const auto *slots : {&k->inputs, &k->outputs})
    for (const TensorSlot &s : *slots) {
      const rt::HarnessTensor *tensor = nullptr;
      for (const rt::HarnessTensor &t : k->spec.tensors)
        if (t.name == s.name && !t.workspace && !t.absent)
          tensor = &t;
      // An input may also be an inout output's initial value (outs(%init)).
      if (!tensor || (tensor->output != (slots == &k->outputs) &&
                      !(tensor->inout && slots == &k->inputs)))
        return reject(NVFP4_ERROR_UNSUPPORTED,
                    "tensor '" + s.name + "' is not an " +
                        (slots == &k->outputs ? "output" : "input") +
                        " of the kernel");
      uint64_t bytes =
          rt::tensorElements(*tensor, k->sizes) * rt::elemBytes(tensor->type);
      if (bytes != s.bytes())
        return reject(NVFP4_ERROR_UNSUPPORTED,
                    "tensor '" + s.name + "' of the kernel holds " +
                        std::to_string(bytes) + " bytes but the function's is " +
                        std::to_string(s.bytes()));
    }
  for (const auto &[name, input] : k->inputOf) {
    if (input >= k->inputs.size())
      return reject(NVFP4_ERROR_UNSUPPORTED,
                    "tensor '" + name + "' is input " +
                        std::to_string(input) + " of " +
                        std::to_string(k->inputs.size()));
    // The input holds the tensor's bytes (one argument may be two op
    // operands, K = V, so the names may differ).
    for (const rt::HarnessTensor &t : k->spec.tensors)
      if (t.name == name && !t.workspace && !t.absent &&
          rt::tensorElements(t, k->sizes) * rt::elemBytes(t.type) !=
              k->inputs[input].bytes())
        return reject(NVFP4_ERROR_UNSUPPORTED,
                      "tensor '" + name + "' is " +
                          argName("input", input, k->inputs[input].name) +
                          ", which holds " +
                          std::to_string(k->inputs[input].bytes()) +
                          " bytes, not the tensor's " +
                          std::to_string(rt::tensorElements(t, k->sizes) *
                                         rt::elemBytes(t.type)));
  }
  // Every input the kernel reads is an argument (or a slice of one).
  for (const rt::HarnessTensor &t : k->spec.tensors)
    if (!t.output && !t.workspace && !t.absent && !k->inputOf.count(t.name) &&
        (t.sliceOf.empty() || !k->inputOf.count(t.sliceOf)))
      return reject(NVFP4_ERROR_UNSUPPORTED,
                  "the kernel's input '" + t.name +
                      "' is none of the function's arguments");

  auto imageOf = [&](const std::string &bytes, const char *what,
                     std::unique_ptr<rt::KernelImage> &image) -> nvfp4_status {
    if (bytes.empty())
      return reject(NVFP4_ERROR_COMPILE, std::string("there is no ") + what);
    auto made = rt::KernelImage::fromBytes(
        std::vector<uint8_t>(bytes.begin(), bytes.end()),
        k->function + " (" + what + ")");
    if (!made)
      return reject(NVFP4_ERROR_COMPILE, made.takeError().message());
    image = std::make_unique<rt::KernelImage>(std::move(*made));
    return NVFP4_OK;
  };
  if (!k->cubin.empty())
    if (nvfp4_status s = imageOf(k->cubin, "cubin", k->cubinImage))
      return s;
  if (nvfp4_status s = imageOf(k->ptx, "PTX", k->image))
    return s;
  k->workspaceBytes = workspaceLayout(*k, k->workspaceOffsets);
  k->metadata = metadataJson(*k);
  k->artifact = artifactOf(*k);
  *out = k.release();
  return ok();
}

extern "C" {

int nvfp4_api_version(void) { return NVFP4_API_VERSION; }

const char *nvfp4_last_error(void) { return lastError.c_str(); }

const char *nvfp4_dtype_name(int dtype) {
  if (dtype < 0 || dtype > NVFP4_I8)
    return nullptr;
  return kDtypeNames[dtype];
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
    if (nvfp4_status s = checkTensor(inputs[i], k->inputs[i], "input", i))
      return s;
  for (size_t i = 0; i < numOutputs; ++i)
    if (nvfp4_status s = checkTensor(outputs[i], k->outputs[i], "output", i))
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
  if (nvfp4_status s = checkOverlaps(*k, inputs, outputs, workspace))
    return s;
  // An output that starts as an input (the grouped matmul's outs(%init):
  // the rows outside its groups) gets the input's bytes first, unless it
  // is the same buffer.
  for (size_t o = 0; o < numOutputs; ++o) {
    auto it = k->inputOf.find(k->outputs[o].name);
    if (it == k->inputOf.end() || inputs[it->second].data == outputs[o].data)
      continue;
    if (stream)
      return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                  argName("output", o, k->outputs[o].name) +
                      ": starts as input " + std::to_string(it->second) +
                      "; on a stream pass the same buffer as both (the call "
                      "cannot order a copy on the stream)");
    uint64_t bytes = k->outputs[o].bytes();
    uint64_t from = uint64_t(uintptr_t(inputs[it->second].data));
    uint64_t to = uint64_t(uintptr_t(outputs[o].data));
    if (rt::Error e = rt::copyOnDevice(*d->device, to, from, bytes))
      return fail(NVFP4_ERROR_DEVICE,
                  argName("output", o, k->outputs[o].name) +
                      ": copying its initial value: " + e.message());
  }
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
  if (nvfp4_status s = checkHostData(inputs, numInputs, k->inputs, "input"))
    return s;
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
                      argName("input", i, slot.name) +
                          ": the reference makes " +
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
  if (nvfp4_status s = checkHostData(inputs, numInputs, k->inputs, "input"))
    return s;
  if (nvfp4_status s =
          checkHostData(outputs, numOutputs, k->outputs, "output"))
    return s;
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
      // An inout output's initial values: its input (outs(%init)).
      auto init = k->inputOf.find(t.name);
      if (t.inout && init != k->inputOf.end())
        operands[i] = rt::decode(
            static_cast<const uint8_t *>(inputs[init->second]), n, t.type);
      continue;
    }
    auto it = k->inputOf.find(t.name);
    if (it == k->inputOf.end() && !t.sliceOf.empty()) {
      // The leading columns of an earlier input's rows.
      const rt::HarnessTensor *src = nullptr;
      size_t si = 0;
      for (size_t j = 0; j < i; ++j)
        if (spec.tensors[j].name == t.sliceOf) {
          src = &spec.tensors[j];
          si = j;
        }
      if (!src)
        return fail(NVFP4_ERROR_UNSUPPORTED,
                    "the reference's input '" + t.name + "' slices '" +
                        t.sliceOf + "', which is no earlier input");
      uint64_t w = k->sizes.at(t.shape.back());
      uint64_t ws = k->sizes.at(src->shape.back());
      operands[i].resize(n);
      for (uint64_t r = 0; r < n / w; ++r)
        std::copy_n(operands[si].begin() + r * ws, w,
                    operands[i].begin() + r * w);
      continue;
    }
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
