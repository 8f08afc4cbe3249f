//===- Artifact.cpp - The nvfp4 C API: saving and loading kernels ---------===//
//
// nvfp4_kernel_artifact / save / load / load_file (include/nvfp4-c/nvfp4.h):
// a compiled kernel as versioned JSON text that a library without MLIR
// (libnvfp4_runtime.so) launches and checks as the compiling one does. It
// holds the function's inputs and outputs, which input each kernel tensor
// is, the kernel's whole harness (HarnessJson.h), the PTX and, when there
// is one, the cubin in base64. The loader trusts nothing: every member is
// checked (type, range, the harness's verify, the slots against the
// harness's tensors) before the kernel exists. docs/CAPI.md has the format.
//
//===----------------------------------------------------------------------===//

#include "CAPIInternal.h"

#include "nvfp4/Runtime/HarnessJson.h"
#include "nvfp4/Runtime/Json.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

using namespace nvfp4;
using namespace nvfp4::capi;
using rt::json::Value;

namespace {

constexpr const char *kFormat = "nvfp4-kernel";
constexpr uint64_t kVersion = 1;

const char kBase64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string base64(const std::string &bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t n = uint32_t(uint8_t(bytes[i])) << 16;
    if (i + 1 < bytes.size())
      n |= uint32_t(uint8_t(bytes[i + 1])) << 8;
    if (i + 2 < bytes.size())
      n |= uint8_t(bytes[i + 2]);
    out += kBase64[(n >> 18) & 63];
    out += kBase64[(n >> 12) & 63];
    out += i + 1 < bytes.size() ? kBase64[(n >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? kBase64[n & 63] : '=';
  }
  return out;
}

rt::Expected<std::string> unbase64(const std::string &text,
                                   const std::string &path) {
  if (text.size() % 4)
    return rt::makeError(path, ": base64 text of ", text.size(),
                         " characters (not a multiple of 4)");
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (size_t i = 0; i < text.size(); i += 4) {
    uint32_t n = 0;
    int pad = 0;
    for (int j = 0; j < 4; ++j) {
      char c = text[i + j];
      const char *p = c ? std::strchr(kBase64, c) : nullptr;
      bool last = i + 4 == text.size();
      if (c == '=' && last && j >= 2 && (j == 3 || text[i + 3] == '=')) {
        ++pad;
        n <<= 6;
        continue;
      }
      if (!p || pad)
        return rt::makeError(path, ": not base64 at character ", i + j);
      n = (n << 6) | uint32_t(p - kBase64);
    }
    out += char(n >> 16);
    if (pad < 2)
      out += char((n >> 8) & 0xff);
    if (pad < 1)
      out += char(n & 0xff);
  }
  return out;
}

std::string slotsJson(const std::vector<TensorSlot> &slots) {
  std::string out = "[";
  for (size_t i = 0; i < slots.size(); ++i) {
    out += (i ? ", " : "") + std::string("{\"name\": ") +
           rt::json::quote(slots[i].name) + ", \"dtype\": \"" +
           dtypeName(slots[i].dtype) + "\", \"shape\": [";
    for (size_t d = 0; d < slots[i].shape.size(); ++d)
      out += (d ? ", " : "") + std::to_string(slots[i].shape[d]);
    out += "]}";
  }
  return out + "]";
}

/// The failure of a load: `what` under "artifact".
nvfp4_status bad(const std::string &what) {
  return fail(NVFP4_ERROR_INVALID_ARGUMENT, "artifact: " + what);
}

nvfp4_status readSlots(const Value *v, const std::string &path,
                       std::vector<TensorSlot> &out) {
  if (!v || v->kind != Value::Kind::Array)
    return bad(path + ": expected an array");
  for (size_t i = 0; i < v->items.size(); ++i) {
    std::string at = path + "[" + std::to_string(i) + "]";
    const Value &item = v->items[i];
    if (item.kind != Value::Kind::Object || item.members.size() != 3 ||
        !item.get("name") || !item.get("dtype") || !item.get("shape"))
      return bad(at + ": expected {\"name\", \"dtype\", \"shape\"}");
    TensorSlot s;
    auto name = rt::json::asString(*item.get("name"), at + ".name");
    auto dtype = rt::json::asString(*item.get("dtype"), at + ".dtype");
    if (!name)
      return bad(name.takeError().message());
    if (!dtype)
      return bad(dtype.takeError().message());
    s.name = *name;
    s.dtype = -1;
    for (int32_t d = 0; d <= NVFP4_I8; ++d)
      if (*dtype == dtypeName(d))
        s.dtype = d;
    if (s.dtype < 0)
      return bad(at + ".dtype: unknown dtype \"" + *dtype + "\"");
    const Value &shape = *item.get("shape");
    if (shape.kind != Value::Kind::Array || shape.items.size() > 8)
      return bad(at + ".shape: expected an array of at most 8 extents");
    for (size_t d = 0; d < shape.items.size(); ++d) {
      auto n = rt::json::asU64(shape.items[d],
                               at + ".shape[" + std::to_string(d) + "]");
      if (!n)
        return bad(n.takeError().message());
      if (*n == 0 || *n > (uint64_t(1) << 40))
        return bad(at + ".shape[" + std::to_string(d) + "]: " +
                   std::to_string(*n) + " is not in [1, 2^40]");
      s.shape.push_back(int64_t(*n));
    }
    out.push_back(std::move(s));
  }
  return NVFP4_OK;
}

nvfp4_status load(const std::string &text, nvfp4_kernel **out) {
  auto doc = rt::json::parse(text);
  if (!doc)
    return bad(doc.takeError().message());
  if (doc->kind != Value::Kind::Object)
    return bad("expected a JSON object");
  const Value *format = doc->get("format");
  if (!format || format->kind != Value::Kind::String ||
      format->text != kFormat)
    return bad("not an nvfp4 kernel (its \"format\" is not \"" +
               std::string(kFormat) + "\")");
  const Value *version = doc->get("version");
  auto v = version ? rt::json::asU64(*version, "version")
                   : rt::Expected<uint64_t>(rt::makeError("version: missing"));
  if (!v)
    return bad(v.takeError().message());
  if (*v != kVersion)
    return fail(NVFP4_ERROR_UNSUPPORTED,
                "artifact: format version " + std::to_string(*v) +
                    "; this library reads version " + std::to_string(kVersion));
  static const char *const known[] = {"format",  "version", "api_version",
                                      "function", "inputs", "outputs",
                                      "input_of", "harness", "ptx", "cubin"};
  for (const auto &[key, value] : doc->members)
    if (std::find(std::begin(known), std::end(known), key) == std::end(known))
      return bad(key + ": unknown member");

  auto k = std::make_unique<nvfp4_kernel>();
  auto str = [&](const char *key, std::string &field,
                 bool required) -> nvfp4_status {
    const Value *m = doc->get(key);
    if (!m)
      return required ? bad(std::string(key) + ": missing") : NVFP4_OK;
    auto s = rt::json::asString(*m, key);
    if (!s)
      return bad(s.takeError().message());
    field = *s;
    return NVFP4_OK;
  };
  std::string cubin;
  if (nvfp4_status s = str("function", k->function, true))
    return s;
  if (nvfp4_status s = str("ptx", k->ptx, true))
    return s;
  if (nvfp4_status s = str("cubin", cubin, false))
    return s;
  auto bytes = unbase64(cubin, "cubin");
  if (!bytes)
    return bad(bytes.takeError().message());
  k->cubin = std::move(*bytes);
  if (nvfp4_status s = readSlots(doc->get("inputs"), "inputs", k->inputs))
    return s;
  if (nvfp4_status s = readSlots(doc->get("outputs"), "outputs", k->outputs))
    return s;
  const Value *inputOf = doc->get("input_of");
  if (!inputOf || inputOf->kind != Value::Kind::Object)
    return bad("input_of: expected an object of tensor: input index");
  for (const auto &[name, index] : inputOf->members) {
    auto n = rt::json::asU64(index, "input_of." + name);
    if (!n)
      return bad(n.takeError().message());
    k->inputOf[name] = size_t(*n);
  }
  const Value *harness = doc->get("harness");
  if (!harness)
    return bad("harness: missing");
  auto spec = rt::harnessFromJson(*harness, "harness");
  if (!spec)
    return bad(spec.takeError().message());
  k->spec = std::move(*spec);
  auto sizes = rt::resolveSizes(k->spec, {});
  if (!sizes)
    return bad("harness: " + sizes.takeError().message());
  k->sizes = std::move(*sizes);
  return finishKernel(std::move(k), out, /*fromArtifact=*/true);
}

} // namespace

std::string capi::artifactOf(const nvfp4_kernel &k) {
  std::string out = "{\"format\": \"" + std::string(kFormat) +
                    "\", \"version\": " + std::to_string(kVersion) +
                    ", \"api_version\": " + std::to_string(NVFP4_API_VERSION) +
                    ",\n\"function\": " + rt::json::quote(k.function) +
                    ",\n\"inputs\": " + slotsJson(k.inputs) +
                    ",\n\"outputs\": " + slotsJson(k.outputs) +
                    ",\n\"input_of\": {";
  bool first = true;
  for (const auto &[name, index] : k.inputOf) {
    out += (first ? "" : ", ") + rt::json::quote(name) + ": " +
           std::to_string(index);
    first = false;
  }
  out += "},\n\"harness\": " + rt::harnessToJson(k.spec) +
         ",\n\"ptx\": " + rt::json::quote(k.ptx);
  if (!k.cubin.empty())
    out += ",\n\"cubin\": \"" + base64(k.cubin) + "\"";
  return out + "}\n";
}

extern "C" {

const char *nvfp4_kernel_artifact(const nvfp4_kernel *k, size_t *size) {
  if (size)
    *size = k ? k->artifact.size() : 0;
  return k ? k->artifact.c_str() : "";
}

nvfp4_status nvfp4_kernel_save(const nvfp4_kernel *k, const char *path) {
  if (!k || !path)
    return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                !k ? "kernel is null" : "path is null");
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file)
    return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                std::string("path: cannot write '") + path + "'");
  file.write(k->artifact.data(), std::streamsize(k->artifact.size()));
  file.close();
  if (!file)
    return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                std::string("path: writing '") + path + "' failed");
  return ok();
}

nvfp4_status nvfp4_kernel_load(const void *data, size_t size,
                               nvfp4_kernel **kernel) {
  if (!data || !kernel)
    return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                !data ? "data is null" : "kernel is null");
  *kernel = nullptr;
  return load(std::string(static_cast<const char *>(data), size), kernel);
}

nvfp4_status nvfp4_kernel_load_file(const char *path, nvfp4_kernel **kernel) {
  if (!path || !kernel)
    return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                !path ? "path is null" : "kernel is null");
  *kernel = nullptr;
  std::ifstream file(path, std::ios::binary);
  if (!file)
    return fail(NVFP4_ERROR_INVALID_ARGUMENT,
                std::string("path: cannot read '") + path + "'");
  std::ostringstream text;
  text << file.rdbuf();
  return load(text.str(), kernel);
}

} // extern "C"
