//===- artifact_fuzzer.cpp - libFuzzer target for kernel artifacts -------===//
//
// Feeds fuzzed bytes to nvfp4_kernel_load (lib/CAPI/Artifact.cpp: the JSON
// reader of lib/Runtime/Json.cpp, the harness reader of HarnessJson.cpp,
// then the checks every kernel passes). Loading must succeed or fail with
// a message; a kernel that loads must answer every query, and its own
// artifact must load again to the same bytes (a fixed point). Crashes,
// sanitizer reports, hangs and broken invariants are bugs. Nothing runs a
// kernel (that is the emulator's fuzzer's job: scripts/fuzz.sh ptx).
//
// Build and run with scripts/fuzz.sh artifact (seeds: artifacts saved by
// the project build's libnvfp4.so).
//
//===----------------------------------------------------------------------===//

#include "nvfp4-c/nvfp4.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  nvfp4_kernel *k = nullptr;
  if (nvfp4_kernel_load(data, size, &k) != NVFP4_OK) {
    if (k || !*nvfp4_last_error())
      __builtin_trap(); // no kernel, and a message saying why
    return 0;
  }
  for (int out = 0; out < 2; ++out) {
    size_t n = out ? nvfp4_kernel_num_outputs(k) : nvfp4_kernel_num_inputs(k);
    for (size_t i = 0; i < n; ++i) {
      nvfp4_tensor_info info;
      if (nvfp4_kernel_tensor(k, out, i, &info) != NVFP4_OK)
        continue;
      if (!info.name || info.rank < 0 || info.rank > 8 ||
          !nvfp4_dtype_name(info.dtype))
        __builtin_trap();
    }
  }
  (void)std::strlen(nvfp4_kernel_metadata(k));
  (void)std::strlen(nvfp4_kernel_ptx(k));
  size_t cubinSize = 0;
  (void)nvfp4_kernel_cubin(k, &cubinSize);
  (void)nvfp4_kernel_workspace_bytes(k);
  size_t artifactSize = 0;
  const char *artifact = nvfp4_kernel_artifact(k, &artifactSize);
  std::string first(artifact, artifactSize);
  nvfp4_kernel *again = nullptr;
  if (nvfp4_kernel_load(first.data(), first.size(), &again) != NVFP4_OK)
    __builtin_trap(); // its own artifact must load
  size_t againSize = 0;
  const char *second = nvfp4_kernel_artifact(again, &againSize);
  if (std::string(second, againSize) != first)
    __builtin_trap(); // and be a fixed point
  nvfp4_kernel_destroy(again);
  nvfp4_kernel_destroy(k);
  return 0;
}
