//===- CAPIInternal.h - What the C API's files share ------------*- C++ -*-===//
//
// The C API is three files: CAPI.cpp (kernels, devices, launches, checks:
// plain C++ over the runtime), Artifact.cpp (nvfp4_kernel_save / load) and
// Compile.cpp (nvfp4_compile: MLIR). libnvfp4.so has all three;
// libnvfp4_runtime.so, for machines without MLIR, has NoCompiler.cpp in
// place of Compile.cpp. docs/CAPI.md.
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_LIB_CAPI_CAPIINTERNAL_H
#define NVFP4_LIB_CAPI_CAPIINTERNAL_H

#include "nvfp4-c/nvfp4.h"

#include "nvfp4/Runtime/Device.h"
#include "nvfp4/Runtime/Harness.h"
#include "nvfp4/Runtime/KernelImage.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace nvfp4::capi {

/// Records `message` as this thread's last error; returns `status`.
nvfp4_status fail(nvfp4_status status, const std::string &message);
/// Clears the last error; returns NVFP4_OK.
nvfp4_status ok();

/// "f32", ..., "i8" for a valid nvfp4_dtype.
const char *dtypeName(int32_t dtype);
unsigned dtypeBytes(int32_t dtype);

/// One argument or result of the compiled function.
struct TensorSlot {
  std::string name; ///< the kernel's tensor
  int32_t dtype = NVFP4_F32;
  std::vector<int64_t> shape;
  uint64_t bytes() const;
};

uint64_t newKernelId();

} // namespace nvfp4::capi

struct nvfp4_kernel {
  uint64_t id = nvfp4::capi::newKernelId();
  std::string function;
  nvfp4::rt::HarnessSpec spec;
  std::map<std::string, uint64_t> sizes;
  std::string ptx, cubin;
  std::unique_ptr<nvfp4::rt::KernelImage> image;      ///< the PTX
  std::unique_ptr<nvfp4::rt::KernelImage> cubinImage; ///< with cubin=1
  std::vector<nvfp4::capi::TensorSlot> inputs, outputs;
  /// For each tensor name of the kernel, the input it is (op operands
  /// that are the same argument share it).
  std::map<std::string, size_t> inputOf;
  uint64_t workspaceBytes = 0;
  /// Each workspace tensor's offset in the scratch (workspaceLayout).
  std::map<std::string, uint64_t> workspaceOffsets;
  std::string metadata;
  std::string artifact; ///< nvfp4_kernel_artifact's bytes, made on demand
};

struct nvfp4_device {
  std::unique_ptr<nvfp4::rt::Device> device;
  /// Tensor maps in device memory, reused by every launch that encodes the
  /// same map (freed with the device).
  nvfp4::rt::TensorMapCache tensorMaps;
  /// Modules loaded on this device, by kernel id.
  std::map<uint64_t, nvfp4::rt::ModuleHandle> modules;
};

namespace nvfp4::capi {

/// The kernel as an artifact (Artifact.cpp; nvfp4_kernel_artifact).
std::string artifactOf(const nvfp4_kernel &k);

/// Completes a kernel whose function, spec, sizes, slots, inputOf, PTX
/// (and cubin) are set: checks that every slot names a tensor of the spec
/// holding the slot's bytes and that inputOf is in range, loads the images,
/// lays out the workspace and writes the metadata; then hands it to *out.
/// The compiler and the artifact loader (`fromArtifact`: failures are then
/// NVFP4_ERROR_INVALID_ARGUMENT, "artifact: ...") both end here.
nvfp4_status finishKernel(std::unique_ptr<nvfp4_kernel> k, nvfp4_kernel **out,
                          bool fromArtifact);

} // namespace nvfp4::capi

#endif // NVFP4_LIB_CAPI_CAPIINTERNAL_H
