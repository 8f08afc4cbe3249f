//===- CudaDevice.h - The CUDA driver backend -------------------*- C++ -*-===//
//
// The `cuda` backend of Device. It does not link libcuda: the driver is
// loaded at run time with dlopen (so the runtime builds and its tests run on
// machines without a GPU driver), and every entry point it uses is resolved
// by name, with the `_v2` names where cuda.h maps a call to one. Every call's
// result is checked; a failure names the call and the CUresult
// ("cuModuleLoadDataEx failed: CUDA_ERROR_INVALID_PTX (a PTX JIT compilation
// failed)", followed by the JIT log when there is one).
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_RUNTIME_CUDADEVICE_H
#define NVFP4_RUNTIME_CUDADEVICE_H

#include "nvfp4/Runtime/Device.h"

#include <memory>
#include <string>

namespace nvfp4::rt {

/// The environment variable that overrides the driver library's name (for
/// tests, and for a driver installed outside the loader's path).
inline constexpr const char *kCudaDriverLibEnv = "NVFP4_CUDA_DRIVER_LIB";
/// The driver library loaded when the variable is unset or empty.
inline constexpr const char *kCudaDriverLibDefault = "libcuda.so.1";

/// The driver library's name: $NVFP4_CUDA_DRIVER_LIB, else "libcuda.so.1".
std::string cudaDriverLibraryName();

/// Loads the driver, initializes it and makes the primary context of GPU
/// `options.ordinal` current. Fails with "no CUDA driver (libcuda.so.1) on
/// this machine: <dlerror>" when the library cannot be loaded, and names
/// the missing entry point when the library lacks one.
Expected<std::unique_ptr<Device>>
createCudaDevice(const DeviceOptions &options);

} // namespace nvfp4::rt

#endif // NVFP4_RUNTIME_CUDADEVICE_H
