//===- Device.h - The runtime's device interface ----------------*- C++ -*-===//
//
// One interface for executing kernels, with a backend per way of running
// them: `cuda` (the CUDA driver API, CudaDevice.h) and `emulator` (the PTX
// emulator of lib/Emulator, EmulatorDevice.h). nvfp4-run and the tests
// talk to a Device and never to a backend directly.
//
// Every operation is synchronous: when it returns, its effects are visible
// (launch returns after the kernel finished).
//
//===----------------------------------------------------------------------===//

#ifndef NVFP4_RUNTIME_DEVICE_H
#define NVFP4_RUNTIME_DEVICE_H

#include "nvfp4/Runtime/Error.h"
#include "nvfp4/Runtime/KernelImage.h"
#include "nvfp4/Runtime/TensorMap.h"

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace nvfp4::rt {

/// A device address (CUdeviceptr on the cuda backend; an address in the
/// emulated global memory on the emulator).
using DevicePtr = uint64_t;

/// A loaded module; valid until its Device is destroyed.
struct ModuleHandle {
  uint64_t value = 0;
};
/// A kernel of a loaded module; valid until its Device is destroyed.
struct FunctionHandle {
  uint64_t value = 0;
};

/// A grid, block or cluster extent.
struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  uint64_t product() const { return uint64_t(x) * y * z; }
  /// "(4,1,1)".
  std::string str() const;
  bool operator==(const Dim3 &o) const {
    return x == o.x && y == o.y && z == o.z;
  }
};

/// How a kernel is launched. A cluster of (1,1,1) launches without a cluster
/// attribute (the kernel's own `.reqnctapercluster`, if any, applies).
struct LaunchConfig {
  Dim3 grid;
  Dim3 block;
  Dim3 cluster;
  uint32_t dynamicSmemBytes = 0;
  /// Launched with programmatic stream serialization (CUDA's programmatic
  /// dependent launch): the kernel's CTAs may start before the previous
  /// kernel on the stream has finished, and must execute
  /// `griddepcontrol.wait` before they touch its results. Only the CUDA
  /// device uses it (NVFP4_PDL=0 in the environment turns it off); the
  /// emulator runs launches one after another.
  bool programmatic = false;
};

/// One kernel argument: the bytes of a `.param`, with what they mean.
class KernelArg {
public:
  enum class Kind {
    Pointer, ///< a DevicePtr (8 bytes)
    U8,
    U16,
    U32,
    U64,
    I8,
    I16,
    I32,
    I64,
    F32,
    F64,
    TensorMap, ///< a 128-byte tensor map passed by value (align 64)
  };

  static KernelArg pointer(DevicePtr p) { return make(Kind::Pointer, p); }
  static KernelArg u8(uint8_t v) { return make(Kind::U8, v); }
  static KernelArg u16(uint16_t v) { return make(Kind::U16, v); }
  static KernelArg u32(uint32_t v) { return make(Kind::U32, v); }
  static KernelArg u64(uint64_t v) { return make(Kind::U64, v); }
  static KernelArg i8(int8_t v) { return make(Kind::I8, v); }
  static KernelArg i16(int16_t v) { return make(Kind::I16, v); }
  static KernelArg i32(int32_t v) { return make(Kind::I32, v); }
  static KernelArg i64(int64_t v) { return make(Kind::I64, v); }
  static KernelArg f32(float v) { return make(Kind::F32, v); }
  static KernelArg f64(double v) { return make(Kind::F64, v); }
  static KernelArg tensorMap(const TensorMapBlob &blob) {
    return make(Kind::TensorMap, blob);
  }

  Kind kind() const { return kind_; }
  /// Bytes of the parameter value (1, 2, 4, 8 or 128).
  size_t size() const { return size_; }
  /// Natural alignment of the parameter (its size; 64 for a tensor map).
  size_t alignment() const { return kind_ == Kind::TensorMap ? 64 : size_; }
  /// The value's bytes, little endian, 64-byte aligned.
  const void *data() const { return storage_.data(); }
  /// "u32", "pointer", "tensor map", ...
  static const char *stringify(Kind k);

private:
  template <typename T> static KernelArg make(Kind kind, const T &value) {
    static_assert(sizeof(T) <= kTensorMapBytes, "argument too large");
    KernelArg a;
    a.kind_ = kind;
    a.size_ = sizeof(T);
    std::memcpy(a.storage_.data(), &value, sizeof(T));
    return a;
  }
  Kind kind_ = Kind::U8;
  size_t size_ = 0;
  alignas(kTensorMapAlign) std::array<uint8_t, kTensorMapBytes> storage_{};
};

/// A kernel's parameter layout as the backend knows it.
struct KernelParamInfo {
  uint64_t offset = 0;
  uint64_t bytes = 0;
};

/// Static facts about a kernel, for the launch report. Fields a backend
/// cannot tell are left empty.
struct FunctionInfo {
  std::optional<uint32_t> registers;
  std::optional<uint32_t> staticSmemBytes;
  std::optional<uint32_t> maxThreadsPerBlock;
};

/// How long a launch took.
struct LaunchTiming {
  /// Host wall clock from submitting the launch until it completed.
  double wallMs = 0;
  /// Device time between events around the kernel, when the backend has it.
  std::optional<double> deviceMs;
};

class Device;

/// Prints nvfp4-run's lines about a finished launch: "nvfp4-run: KERNEL
/// finished: [X ms on the device, ]Y ms wall clock" and the backend's
/// report (Device::lastLaunchReport), if any.
void printLaunch(std::ostream &os, const std::string &kernel,
                 const LaunchTiming &timing, const Device &device);

/// The execution backends.
enum class BackendKind { Cuda, Emulator };
const char *stringify(BackendKind k);
/// "cuda" or "emulator"; anything else is an error listing both.
Expected<BackendKind> parseBackendKind(const std::string &s);

/// The runtime's device: memory, modules, tensor maps and launches.
class Device {
public:
  virtual ~Device();

  /// Which backend this is.
  virtual BackendKind kind() const = 0;
  /// One line naming the device: "NVIDIA H200 (sm_90, 132 SMs), driver
  /// 13.0" for the cuda backend.
  virtual std::string name() const = 0;

  /// Allocates `bytes` (> 0) of device memory, aligned to at least 256 bytes.
  virtual Expected<DevicePtr> allocate(uint64_t bytes) = 0;
  /// Frees memory returned by allocate. Memory still allocated when the
  /// Device is destroyed is freed then.
  virtual Error free(DevicePtr ptr) = 0;
  virtual Error copyToDevice(DevicePtr dst, const void *src,
                             uint64_t bytes) = 0;
  virtual Error copyToHost(void *dst, DevicePtr src, uint64_t bytes) = 0;
  /// Copies between any two addresses, host or device, in any direction,
  /// device memory this Device did not allocate included (another
  /// runtime's, such as PyTorch's): the host runtime's mgpuMemcpy, whose
  /// callers do not say which side is which. The cuda backend uses
  /// cuMemcpy under unified addressing; the default is an error (the
  /// emulator's device addresses mean nothing outside it: its caller sorts
  /// them with copyToDevice / copyToHost).
  virtual Error copyUnified(uint64_t dst, uint64_t src, uint64_t bytes) {
    return makeError("the ", stringify(kind()),
                     " backend cannot copy between unsorted addresses");
  }

  /// Loads an image. A backend refuses what it cannot run with a clear
  /// message (the cuda backend: an image whose target does not run on the
  /// GPU, see checkImageRunsOn; the emulator: anything but PTX).
  virtual Expected<ModuleHandle> loadModule(const KernelImage &image) = 0;
  /// The kernel `name` of a loaded module; an unknown name is an error
  /// naming it.
  virtual Expected<FunctionHandle> getFunction(ModuleHandle module,
                                               const std::string &name) = 0;
  /// The kernel's parameters (offset and size of each), or nullopt when the
  /// backend cannot tell.
  virtual Expected<std::optional<std::vector<KernelParamInfo>>>
  getParams(FunctionHandle function) = 0;
  /// Registers, static shared memory and the like, as far as known.
  virtual Expected<FunctionInfo> getFunctionInfo(FunctionHandle function) = 0;

  /// Encodes a tensor map for kernels run by this backend. The result is
  /// passed by value (KernelArg::tensorMap) or copied by the caller into
  /// 64-byte aligned device memory and passed by pointer.
  virtual Expected<TensorMapBlob>
  encodeTensorMap(const TensorMapDesc &desc) = 0;

  /// Launches `function` and waits for it to finish. `args` are the kernel's
  /// parameters in order.
  virtual Expected<LaunchTiming> launch(FunctionHandle function,
                                        const LaunchConfig &config,
                                        const std::vector<KernelArg> &args) = 0;

  /// Enqueues the launch on `stream` (a CUstream on the cuda backend) and
  /// returns without waiting; the caller orders and synchronizes. The
  /// default runs launch(), which waits: the emulator's behaviour (every
  /// operation completes when it returns, so any stream order holds).
  virtual Error launchOn(FunctionHandle function, const LaunchConfig &config,
                         const std::vector<KernelArg> &args, void *stream) {
    auto timing = launch(function, config, args);
    return timing ? Error::success() : timing.takeError();
  }
  /// One line of backend-specific facts about the last successful launch
  /// (the emulator: instructions executed, wall time, rate), or empty.
  virtual std::string lastLaunchReport() const { return {}; }
};

/// Copies `bytes` between two device addresses of `device`: copyUnified on
/// the cuda backend (any device memory, another runtime's too), through a
/// host buffer elsewhere (the emulator).
Error copyOnDevice(Device &device, DevicePtr dst, DevicePtr src,
                   uint64_t bytes);

/// Options for creating a device.
struct DeviceOptions {
  /// GPU ordinal (cuda backend).
  unsigned ordinal = 0;
};

/// Creates a device of the given backend. `cuda`: fails with "no CUDA driver
/// (libcuda.so.1) on this machine" where the driver library cannot be
/// loaded. `emulator`: the PTX emulator (EmulatorDevice.h) with default
/// settings.
Expected<std::unique_ptr<Device>> createDevice(BackendKind kind,
                                               const DeviceOptions &options);

} // namespace nvfp4::rt

#endif // NVFP4_RUNTIME_DEVICE_H
