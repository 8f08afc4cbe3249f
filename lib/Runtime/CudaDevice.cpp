//===- CudaDevice.cpp - The CUDA driver backend ---------------------------===//
//
// cuda.h is included for its types and enums only: no function it declares
// is called directly. The driver library is opened with dlopen and each
// entry point is looked up with dlsym under the name that cuda.h's
// compatibility macros map the call to (cuMemAlloc -> cuMemAlloc_v2, ...),
// so the build never links libcuda.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Runtime/CudaDevice.h"

#include <cuda.h>
#include <dlfcn.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <sstream>

using namespace nvfp4::rt;

//===----------------------------------------------------------------------===//
// Our enums are the driver's
//===----------------------------------------------------------------------===//

static_assert(unsigned(TmaDataType::U8) == CU_TENSOR_MAP_DATA_TYPE_UINT8);
static_assert(unsigned(TmaDataType::U16) == CU_TENSOR_MAP_DATA_TYPE_UINT16);
static_assert(unsigned(TmaDataType::U32) == CU_TENSOR_MAP_DATA_TYPE_UINT32);
static_assert(unsigned(TmaDataType::I32) == CU_TENSOR_MAP_DATA_TYPE_INT32);
static_assert(unsigned(TmaDataType::U64) == CU_TENSOR_MAP_DATA_TYPE_UINT64);
static_assert(unsigned(TmaDataType::I64) == CU_TENSOR_MAP_DATA_TYPE_INT64);
static_assert(unsigned(TmaDataType::F16) == CU_TENSOR_MAP_DATA_TYPE_FLOAT16);
static_assert(unsigned(TmaDataType::F32) == CU_TENSOR_MAP_DATA_TYPE_FLOAT32);
static_assert(unsigned(TmaDataType::F64) == CU_TENSOR_MAP_DATA_TYPE_FLOAT64);
static_assert(unsigned(TmaDataType::BF16) == CU_TENSOR_MAP_DATA_TYPE_BFLOAT16);
static_assert(unsigned(TmaDataType::F32Ftz) ==
              CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ);
static_assert(unsigned(TmaDataType::TF32) == CU_TENSOR_MAP_DATA_TYPE_TFLOAT32);
static_assert(unsigned(TmaDataType::TF32Ftz) ==
              CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ);
static_assert(unsigned(TmaDataType::U4x16Align8B) ==
              CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B);
static_assert(unsigned(TmaDataType::U4x16Align16B) ==
              CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN16B);
static_assert(unsigned(TmaDataType::U6x16Align16B) ==
              CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B);
static_assert(unsigned(TmaInterleave::None) == CU_TENSOR_MAP_INTERLEAVE_NONE);
static_assert(unsigned(TmaInterleave::B16) == CU_TENSOR_MAP_INTERLEAVE_16B);
static_assert(unsigned(TmaInterleave::B32) == CU_TENSOR_MAP_INTERLEAVE_32B);
static_assert(unsigned(TmaSwizzle::None) == CU_TENSOR_MAP_SWIZZLE_NONE);
static_assert(unsigned(TmaSwizzle::B32) == CU_TENSOR_MAP_SWIZZLE_32B);
static_assert(unsigned(TmaSwizzle::B64) == CU_TENSOR_MAP_SWIZZLE_64B);
static_assert(unsigned(TmaSwizzle::B128) == CU_TENSOR_MAP_SWIZZLE_128B);
static_assert(unsigned(TmaSwizzle::B128Atom32B) ==
              CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B);
static_assert(unsigned(TmaSwizzle::B128Atom32BFlip8B) ==
              CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B_FLIP_8B);
static_assert(unsigned(TmaSwizzle::B128Atom64B) ==
              CU_TENSOR_MAP_SWIZZLE_128B_ATOM_64B);
static_assert(unsigned(TmaL2Promotion::None) ==
              CU_TENSOR_MAP_L2_PROMOTION_NONE);
static_assert(unsigned(TmaL2Promotion::B64) ==
              CU_TENSOR_MAP_L2_PROMOTION_L2_64B);
static_assert(unsigned(TmaL2Promotion::B128) ==
              CU_TENSOR_MAP_L2_PROMOTION_L2_128B);
static_assert(unsigned(TmaL2Promotion::B256) ==
              CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
static_assert(unsigned(TmaOobFill::None) == CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
static_assert(unsigned(TmaOobFill::NaN) ==
              CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA);
// CUDA 13 declares CUtensorMap alignas(128); kernels need 64 (PTX
// cp.async.bulk.tensor: "tensorMap ... aligned to 64 bytes").
static_assert(sizeof(CUtensorMap) == kTensorMapBytes);
static_assert(sizeof(CUdeviceptr) == sizeof(DevicePtr));

namespace {

//===----------------------------------------------------------------------===//
// The driver's entry points
//===----------------------------------------------------------------------===//

// X(member, cuda.h declaration, exported symbol). The declaration gives the
// type; cuda.h's macros turn e.g. cuMemAlloc into cuMemAlloc_v2 there, and
// the symbol is spelled out to match.
#define NVFP4_CUDA_REQUIRED(X)                                                 \
  X(init, cuInit, "cuInit")                                                    \
  X(driverGetVersion, cuDriverGetVersion, "cuDriverGetVersion")                \
  X(deviceGetCount, cuDeviceGetCount, "cuDeviceGetCount")                      \
  X(deviceGet, cuDeviceGet, "cuDeviceGet")                                     \
  X(deviceGetName, cuDeviceGetName, "cuDeviceGetName")                         \
  X(deviceGetAttribute, cuDeviceGetAttribute, "cuDeviceGetAttribute")          \
  X(primaryCtxRetain, cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain")    \
  X(primaryCtxRelease, cuDevicePrimaryCtxRelease,                              \
    "cuDevicePrimaryCtxRelease_v2")                                            \
  X(ctxSetCurrent, cuCtxSetCurrent, "cuCtxSetCurrent")                         \
  X(ctxSynchronize, cuCtxSynchronize, "cuCtxSynchronize")                      \
  X(moduleLoadDataEx, cuModuleLoadDataEx, "cuModuleLoadDataEx")                \
  X(moduleUnload, cuModuleUnload, "cuModuleUnload")                            \
  X(moduleGetFunction, cuModuleGetFunction, "cuModuleGetFunction")             \
  X(funcGetAttribute, cuFuncGetAttribute, "cuFuncGetAttribute")                \
  X(funcSetAttribute, cuFuncSetAttribute, "cuFuncSetAttribute")                \
  X(memAlloc, cuMemAlloc, "cuMemAlloc_v2")                                     \
  X(memFree, cuMemFree, "cuMemFree_v2")                                        \
  X(memcpyHtoD, cuMemcpyHtoD, "cuMemcpyHtoD_v2")                               \
  X(memcpyDtoH, cuMemcpyDtoH, "cuMemcpyDtoH_v2")                               \
  X(tensorMapEncodeTiled, cuTensorMapEncodeTiled, "cuTensorMapEncodeTiled")    \
  X(launchKernelEx, cuLaunchKernelEx, "cuLaunchKernelEx")                      \
  X(getErrorName, cuGetErrorName, "cuGetErrorName")                            \
  X(getErrorString, cuGetErrorString, "cuGetErrorString")

// Entry points the backend works without (older drivers): parameter
// checking and device-side timing.
#define NVFP4_CUDA_OPTIONAL(X)                                                 \
  X(funcGetParamInfo, cuFuncGetParamInfo, "cuFuncGetParamInfo")                \
  X(eventCreate, cuEventCreate, "cuEventCreate")                               \
  X(eventRecord, cuEventRecord, "cuEventRecord")                               \
  X(eventSynchronize, cuEventSynchronize, "cuEventSynchronize")                \
  X(eventElapsedTime, cuEventElapsedTime, "cuEventElapsedTime_v2")             \
  X(eventDestroy, cuEventDestroy, "cuEventDestroy_v2")                         \
  X(memcpy, cuMemcpy, "cuMemcpy")

struct DriverApi {
  void *library = nullptr;
  std::string libraryName;
#define NVFP4_MEMBER(member, decl, symbol) decltype(&::decl) member = nullptr;
  NVFP4_CUDA_REQUIRED(NVFP4_MEMBER)
  NVFP4_CUDA_OPTIONAL(NVFP4_MEMBER)
#undef NVFP4_MEMBER

  /// "CUDA_ERROR_INVALID_VALUE (invalid argument)".
  std::string describe(CUresult r) const {
    const char *name = nullptr, *text = nullptr;
    if (getErrorName)
      getErrorName(r, &name);
    if (getErrorString)
      getErrorString(r, &text);
    // The toolkit's stub library cannot name its own result: name it.
    if (!name && r == CUDA_ERROR_STUB_LIBRARY) {
      name = "CUDA_ERROR_STUB_LIBRARY";
      text = "the library loaded is the CUDA toolkit's stub, not a driver";
    }
    std::ostringstream os;
    if (name)
      os << name;
    else
      os << "CUresult " << static_cast<int>(r);
    if (text)
      os << " (" << text << ")";
    return os.str();
  }

  /// Success, or "CALL failed: CUDA_ERROR_... (...)".
  Error check(CUresult r, const char *call) const {
    if (r == CUDA_SUCCESS)
      return Error::success();
    return makeError(call, " failed: ", describe(r));
  }
};

Expected<DriverApi> loadDriver() {
  DriverApi api;
  api.libraryName = cudaDriverLibraryName();
  dlerror();
  api.library = dlopen(api.libraryName.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!api.library) {
    const char *why = dlerror();
    return makeError("no CUDA driver (", api.libraryName,
                     ") on this machine: ", why ? why : "dlopen failed");
  }
  auto lookup = [&](const char *symbol) { return dlsym(api.library, symbol); };
#define NVFP4_REQUIRED(member, decl, symbol)                                   \
  api.member = reinterpret_cast<decltype(api.member)>(lookup(symbol));         \
  if (!api.member)                                                             \
    return makeError(                                                          \
        api.libraryName, " has no ", symbol,                                   \
        ": it is not a CUDA driver, or one older than CUDA 12 "                \
        "(cuTensorMapEncodeTiled and cuLaunchKernelEx need 12.0)");
  NVFP4_CUDA_REQUIRED(NVFP4_REQUIRED)
#undef NVFP4_REQUIRED
#define NVFP4_OPTIONAL(member, decl, symbol)                                   \
  api.member = reinterpret_cast<decltype(api.member)>(lookup(symbol));
  NVFP4_CUDA_OPTIONAL(NVFP4_OPTIONAL)
#undef NVFP4_OPTIONAL
  // Drivers before 12.8 export only the first version of the event timer.
  if (!api.eventElapsedTime)
    api.eventElapsedTime = reinterpret_cast<decltype(api.eventElapsedTime)>(
        lookup("cuEventElapsedTime"));
  return api;
}

//===----------------------------------------------------------------------===//
// The device
//===----------------------------------------------------------------------===//

/// Where dynamic shared memory beyond this needs an opt-in attribute.
constexpr unsigned kDefaultDynamicSmemLimit = 48 * 1024;
/// The largest cluster launched without the non-portable attribute.
constexpr unsigned kPortableClusterCtas = 8;
/// Bytes of each JIT log buffer.
constexpr size_t kJitLogBytes = 1 << 16;

class CudaDevice final : public Device {
public:
  explicit CudaDevice(DriverApi api) : api_(std::move(api)) {}
  ~CudaDevice() override;

  Error initialize(unsigned ordinal);

  BackendKind kind() const override { return BackendKind::Cuda; }
  std::string name() const override;
  Expected<DevicePtr> allocate(uint64_t bytes) override;
  Error free(DevicePtr ptr) override;
  Error copyToDevice(DevicePtr dst, const void *src, uint64_t bytes) override;
  Error copyToHost(void *dst, DevicePtr src, uint64_t bytes) override;
  Error copyUnified(uint64_t dst, uint64_t src, uint64_t bytes) override;
  Expected<ModuleHandle> loadModule(const KernelImage &image) override;
  Expected<FunctionHandle> getFunction(ModuleHandle module,
                                       const std::string &name) override;
  Expected<std::optional<std::vector<KernelParamInfo>>>
  getParams(FunctionHandle function) override;
  Expected<FunctionInfo> getFunctionInfo(FunctionHandle function) override;
  Expected<TensorMapBlob> encodeTensorMap(const TensorMapDesc &desc) override;
  Expected<LaunchTiming> launch(FunctionHandle function,
                                const LaunchConfig &config,
                                const std::vector<KernelArg> &args) override;
  Error launchOn(FunctionHandle function, const LaunchConfig &config,
                 const std::vector<KernelArg> &args, void *stream) override;

private:
  /// Checks the launch and enqueues it on `stream` (cuLaunchKernelEx).
  Error submit(FunctionHandle function, const LaunchConfig &config,
               const std::vector<KernelArg> &args, CUstream stream);
  Expected<int> attribute(CUdevice_attribute attr, const char *what);
  Expected<CUfunction> lookup(FunctionHandle function) const;
  Error checkRange(DevicePtr ptr, uint64_t bytes, const char *what) const;

  DriverApi api_;
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  bool contextRetained_ = false;
  std::string gpuName_;
  int ccMajor_ = 0, ccMinor_ = 0, smCount_ = 0, maxSmemOptin_ = 0;
  int driverVersion_ = 0;
  /// Programmatic dependent launch for launches that ask for it, unless
  /// NVFP4_PDL=0 (to time a kernel pair with and without it).
  bool pdlEnabled_ = [] {
    const char *v = std::getenv("NVFP4_PDL");
    return !v || std::string(v) != "0";
  }();
  /// Live allocations: address -> bytes.
  std::map<DevicePtr, uint64_t> allocations_;
  struct LoadedModule {
    CUmodule module;
    std::string origin;
  };
  std::vector<LoadedModule> modules_;
  struct LoadedFunction {
    CUfunction function;
    std::string name;
    /// Its attributes, read once (getFunctionInfo).
    std::optional<FunctionInfo> info;
    /// The dynamic shared memory it has been allowed so far
    /// (CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES; 0: the default).
    uint64_t smemAllowed = 0;
  };
  std::vector<LoadedFunction> functions_;
  /// (module, name) -> function handle: a launch looks its kernel up on
  /// every call (the C API, the runner), which must neither call the
  /// driver again nor grow functions_.
  std::map<std::pair<uint64_t, std::string>, uint64_t> functionIndex_;
};

CudaDevice::~CudaDevice() {
  if (!contextRetained_)
    return;
  // Errors are ignored here: after a failed kernel the context is unusable
  // and every call reports the same sticky error.
  for (auto &[ptr, bytes] : allocations_)
    api_.memFree(static_cast<CUdeviceptr>(ptr));
  for (LoadedModule &m : modules_)
    api_.moduleUnload(m.module);
  api_.primaryCtxRelease(device_);
  // The library stays loaded: unloading the driver at exit is not safe.
}

Expected<int> CudaDevice::attribute(CUdevice_attribute attr, const char *what) {
  int value = 0;
  if (Error e = api_.check(api_.deviceGetAttribute(&value, attr, device_),
                           "cuDeviceGetAttribute"))
    return std::move(e).withContext(what);
  return value;
}

Error CudaDevice::initialize(unsigned ordinal) {
  if (Error e = api_.check(api_.init(0), "cuInit"))
    return e;
  if (Error e = api_.check(api_.driverGetVersion(&driverVersion_),
                           "cuDriverGetVersion"))
    return e;
  int count = 0;
  if (Error e = api_.check(api_.deviceGetCount(&count), "cuDeviceGetCount"))
    return e;
  if (count == 0)
    return makeError("the CUDA driver found no GPU");
  if (ordinal >= static_cast<unsigned>(count))
    return makeError("no GPU ", ordinal, ": the CUDA driver found ", count);
  if (Error e = api_.check(api_.deviceGet(&device_, static_cast<int>(ordinal)),
                           "cuDeviceGet"))
    return e;
  char name[256] = {};
  if (Error e = api_.check(api_.deviceGetName(name, sizeof(name) - 1, device_),
                           "cuDeviceGetName"))
    return e;
  gpuName_ = name;
  struct {
    CUdevice_attribute attr;
    int *out;
    const char *what;
  } attrs[] = {
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &ccMajor_,
       "compute capability major"},
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &ccMinor_,
       "compute capability minor"},
      {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &smCount_,
       "multiprocessor count"},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, &maxSmemOptin_,
       "shared memory per block (opt-in)"},
  };
  for (auto &a : attrs) {
    auto value = attribute(a.attr, a.what);
    if (!value)
      return value.takeError();
    *a.out = *value;
  }
  if (Error e = api_.check(api_.primaryCtxRetain(&context_, device_),
                           "cuDevicePrimaryCtxRetain"))
    return e;
  contextRetained_ = true;
  return api_.check(api_.ctxSetCurrent(context_), "cuCtxSetCurrent");
}

std::string CudaDevice::name() const {
  std::ostringstream os;
  os << gpuName_ << " ("
     << SmTarget{unsigned(ccMajor_), unsigned(ccMinor_), 0}.str() << ", "
     << smCount_ << " SMs), driver " << driverVersion_ / 1000 << "."
     << (driverVersion_ % 1000) / 10;
  return os.str();
}

Error CudaDevice::checkRange(DevicePtr ptr, uint64_t bytes,
                             const char *what) const {
  auto it = allocations_.upper_bound(ptr);
  if (it != allocations_.begin()) {
    --it;
    if (ptr >= it->first && ptr + bytes <= it->first + it->second &&
        ptr + bytes >= ptr)
      return Error::success();
  }
  return makeError(what, " of ", bytes, " bytes at 0x", std::hex, ptr,
                   " is outside every allocation of this device");
}

Expected<DevicePtr> CudaDevice::allocate(uint64_t bytes) {
  if (bytes == 0)
    return makeError("cannot allocate 0 bytes");
  CUdeviceptr ptr = 0;
  if (Error e = api_.check(api_.memAlloc(&ptr, bytes), "cuMemAlloc"))
    return std::move(e).withContext("allocating " + std::to_string(bytes) +
                                    " bytes");
  allocations_[ptr] = bytes;
  return static_cast<DevicePtr>(ptr);
}

Error CudaDevice::free(DevicePtr ptr) {
  auto it = allocations_.find(ptr);
  if (it == allocations_.end())
    return makeError("free of 0x", std::hex, ptr,
                     ", which this device did not allocate");
  allocations_.erase(it);
  return api_.check(api_.memFree(static_cast<CUdeviceptr>(ptr)), "cuMemFree");
}

Error CudaDevice::copyToDevice(DevicePtr dst, const void *src, uint64_t bytes) {
  if (Error e = checkRange(dst, bytes, "copy to the device"))
    return e;
  return api_.check(api_.memcpyHtoD(static_cast<CUdeviceptr>(dst), src, bytes),
                    "cuMemcpyHtoD");
}

Error CudaDevice::copyToHost(void *dst, DevicePtr src, uint64_t bytes) {
  if (Error e = checkRange(src, bytes, "copy to the host"))
    return e;
  return api_.check(api_.memcpyDtoH(dst, static_cast<CUdeviceptr>(src), bytes),
                    "cuMemcpyDtoH");
}

Error CudaDevice::copyUnified(uint64_t dst, uint64_t src, uint64_t bytes) {
  if (!api_.memcpy)
    return makeError("this CUDA driver has no cuMemcpy");
  return api_.check(api_.memcpy(static_cast<CUdeviceptr>(dst),
                                static_cast<CUdeviceptr>(src), bytes),
                    "cuMemcpy");
}

Expected<ModuleHandle> CudaDevice::loadModule(const KernelImage &image) {
  if (Error e = checkImageRunsOn(image, unsigned(ccMajor_), unsigned(ccMinor_),
                                 gpuName_))
    return std::move(e);
  std::vector<uint8_t> bytes = image.bytes;
  if (image.kind == ImageKind::Ptx)
    bytes.push_back(0); // the driver reads PTX as a C string
  std::string errorLog(kJitLogBytes, '\0'), infoLog(kJitLogBytes, '\0');
  CUjit_option options[] = {
      CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
      CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {errorLog.data(), reinterpret_cast<void *>(kJitLogBytes),
                    infoLog.data(), reinterpret_cast<void *>(kJitLogBytes)};
  CUmodule module = nullptr;
  CUresult r = api_.moduleLoadDataEx(&module, bytes.data(), 4, options, values);
  if (r != CUDA_SUCCESS) {
    std::string log = errorLog.c_str();
    std::ostringstream os;
    os << "cuModuleLoadDataEx failed: " << api_.describe(r) << " loading "
       << image.describe();
    if (r == CUDA_ERROR_NO_BINARY_FOR_GPU)
      os << "; it has no code for this GPU ("
         << SmTarget{unsigned(ccMajor_), unsigned(ccMinor_), 0}.str() << ", "
         << gpuName_ << ")";
    if (!log.empty())
      os << "\n" << log;
    return Error::failure(os.str());
  }
  modules_.push_back({module, image.origin});
  return ModuleHandle{modules_.size()};
}

Expected<FunctionHandle> CudaDevice::getFunction(ModuleHandle module,
                                                 const std::string &name) {
  if (module.value == 0 || module.value > modules_.size())
    return makeError("unknown module handle ", module.value);
  auto known = functionIndex_.find({module.value, name});
  if (known != functionIndex_.end())
    return FunctionHandle{known->second};
  const LoadedModule &m = modules_[module.value - 1];
  CUfunction function = nullptr;
  CUresult r = api_.moduleGetFunction(&function, m.module, name.c_str());
  if (r == CUDA_ERROR_NOT_FOUND)
    return makeError("no kernel named '", name, "' in ", m.origin,
                     " (cuModuleGetFunction: ", api_.describe(r), ")");
  if (Error e = api_.check(r, "cuModuleGetFunction"))
    return std::move(e);
  functions_.push_back({function, name, std::nullopt, 0});
  functionIndex_[{module.value, name}] = functions_.size();
  return FunctionHandle{functions_.size()};
}

Expected<CUfunction> CudaDevice::lookup(FunctionHandle function) const {
  if (function.value == 0 || function.value > functions_.size())
    return makeError("unknown function handle ", function.value);
  return functions_[function.value - 1].function;
}

Expected<std::optional<std::vector<KernelParamInfo>>>
CudaDevice::getParams(FunctionHandle function) {
  auto f = lookup(function);
  if (!f)
    return f.takeError();
  if (!api_.funcGetParamInfo)
    return std::optional<std::vector<KernelParamInfo>>();
  std::vector<KernelParamInfo> params;
  // cuFuncGetParamInfo answers CUDA_ERROR_INVALID_VALUE past the last one.
  // Any other answer means the driver cannot tell for this kernel: the
  // caller then skips the check rather than failing the run.
  for (size_t i = 0; i < 65536; ++i) {
    size_t offset = 0, size = 0;
    CUresult r = api_.funcGetParamInfo(*f, i, &offset, &size);
    if (r == CUDA_ERROR_INVALID_VALUE)
      return std::optional<std::vector<KernelParamInfo>>(std::move(params));
    if (r != CUDA_SUCCESS)
      break;
    params.push_back({offset, size});
  }
  return std::optional<std::vector<KernelParamInfo>>();
}

Expected<FunctionInfo> CudaDevice::getFunctionInfo(FunctionHandle function) {
  auto f = lookup(function);
  if (!f)
    return f.takeError();
  LoadedFunction &loaded = functions_[function.value - 1];
  if (loaded.info)
    return *loaded.info;
  FunctionInfo info;
  struct {
    CUfunction_attribute attr;
    std::optional<uint32_t> *out;
  } attrs[] = {
      {CU_FUNC_ATTRIBUTE_NUM_REGS, &info.registers},
      {CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, &info.staticSmemBytes},
      {CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &info.maxThreadsPerBlock},
  };
  for (auto &a : attrs) {
    int value = 0;
    if (Error e = api_.check(api_.funcGetAttribute(&value, a.attr, *f),
                             "cuFuncGetAttribute"))
      return std::move(e);
    *a.out = static_cast<uint32_t>(value);
  }
  loaded.info = info;
  return info;
}

Expected<TensorMapBlob> CudaDevice::encodeTensorMap(const TensorMapDesc &desc) {
  if (Error e = validate(desc))
    return std::move(e);
  cuuint64_t dims[kTmaMaxRank], strides[kTmaMaxRank - 1];
  cuuint32_t box[kTmaMaxRank], elementStrides[kTmaMaxRank];
  for (unsigned i = 0; i < desc.rank; ++i) {
    dims[i] = desc.globalDims[i];
    box[i] = desc.boxDims[i];
    elementStrides[i] = desc.elementStrides[i];
    if (i + 1 < desc.rank)
      strides[i] = desc.globalStrides[i];
  }
  CUtensorMap map;
  CUresult r = api_.tensorMapEncodeTiled(
      &map, static_cast<CUtensorMapDataType>(desc.dataType), desc.rank,
      reinterpret_cast<void *>(static_cast<uintptr_t>(desc.globalAddress)),
      dims, strides, box, elementStrides,
      static_cast<CUtensorMapInterleave>(desc.interleave),
      static_cast<CUtensorMapSwizzle>(desc.swizzle),
      static_cast<CUtensorMapL2promotion>(desc.l2Promotion),
      static_cast<CUtensorMapFloatOOBfill>(desc.oobFill));
  if (Error e = api_.check(r, "cuTensorMapEncodeTiled"))
    return std::move(e).withContext("encoding the tensor map " +
                                    describe(desc));
  TensorMapBlob blob;
  std::memcpy(blob.bytes.data(), &map, sizeof(map));
  return blob;
}

Error CudaDevice::submit(FunctionHandle function, const LaunchConfig &config,
                         const std::vector<KernelArg> &args, CUstream stream) {
  auto f = lookup(function);
  if (!f)
    return f.takeError();
  auto info = getFunctionInfo(function);
  if (!info)
    return info.takeError();
  uint64_t staticSmem = info->staticSmemBytes.value_or(0);
  uint64_t dynamicSmem = config.dynamicSmemBytes;
  if (staticSmem + dynamicSmem > uint64_t(maxSmemOptin_))
    return makeError(dynamicSmem,
                     " bytes of dynamic shared memory (--smem) "
                     "plus the kernel's ",
                     staticSmem, " static bytes exceed the GPU's limit of ",
                     maxSmemOptin_, " bytes per block");
  if (info->maxThreadsPerBlock &&
      config.block.product() > *info->maxThreadsPerBlock)
    return makeError("a block of ", config.block.product(),
                     " threads exceeds the kernel's limit of ",
                     *info->maxThreadsPerBlock,
                     " (its registers or __launch_bounds__)");
  // Above 48 KiB a kernel takes dynamic shared memory only after opting in
  // (once per kernel and size: the attribute stays set).
  uint64_t &allowed = functions_[function.value - 1].smemAllowed;
  if (dynamicSmem > kDefaultDynamicSmemLimit && dynamicSmem > allowed) {
    if (Error e =
            api_.check(api_.funcSetAttribute(
                           *f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                           static_cast<int>(dynamicSmem)),
                       "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)"))
      return std::move(e);
    allowed = dynamicSmem;
  }

  CUlaunchAttribute attrs[2] = {};
  CUlaunchConfig launch = {};
  launch.gridDimX = config.grid.x;
  launch.gridDimY = config.grid.y;
  launch.gridDimZ = config.grid.z;
  launch.blockDimX = config.block.x;
  launch.blockDimY = config.block.y;
  launch.blockDimZ = config.block.z;
  launch.sharedMemBytes = config.dynamicSmemBytes;
  launch.hStream = stream;
  if (config.cluster.product() > 1) {
    if (ccMajor_ < 9)
      return makeError(
          "thread-block clusters need compute capability 9.0 "
          "or newer; the GPU is ",
          SmTarget{unsigned(ccMajor_), unsigned(ccMinor_), 0}.str());
    if (config.cluster.product() > kPortableClusterCtas) {
      if (Error e = api_.check(
              api_.funcSetAttribute(
                  *f, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1),
              "cuFuncSetAttribute(NON_PORTABLE_CLUSTER_SIZE_ALLOWED)"))
        return std::move(e);
    }
    CUlaunchAttribute &a = attrs[launch.numAttrs++];
    a.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    a.value.clusterDim.x = config.cluster.x;
    a.value.clusterDim.y = config.cluster.y;
    a.value.clusterDim.z = config.cluster.z;
  }
  // Programmatic dependent launch (sm_90 and newer): the kernel may start
  // while the previous one drains; it waits for it with griddepcontrol.wait.
  if (config.programmatic && ccMajor_ >= 9 && pdlEnabled_) {
    CUlaunchAttribute &a = attrs[launch.numAttrs++];
    a.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    a.value.programmaticStreamSerializationAllowed = 1;
  }
  launch.attrs = launch.numAttrs ? attrs : nullptr;

  std::vector<void *> params;
  params.reserve(args.size());
  for (const KernelArg &a : args)
    params.push_back(const_cast<void *>(a.data()));

  CUresult r = api_.launchKernelEx(&launch, *f, params.data(), nullptr);
  if (r != CUDA_SUCCESS)
    return makeError(
        "cuLaunchKernelEx failed: ", api_.describe(r),
        " launching grid=", config.grid.str(), " block=", config.block.str(),
        " cluster=", config.cluster.str(), " smem=", config.dynamicSmemBytes);
  return Error::success();
}

Error CudaDevice::launchOn(FunctionHandle function, const LaunchConfig &config,
                           const std::vector<KernelArg> &args, void *stream) {
  return submit(function, config, args, static_cast<CUstream>(stream));
}

Expected<LaunchTiming> CudaDevice::launch(FunctionHandle function,
                                          const LaunchConfig &config,
                                          const std::vector<KernelArg> &args) {
  // Device-side timing when the driver has events; the host clock always.
  CUevent start = nullptr, stop = nullptr;
  bool events = api_.eventCreate && api_.eventRecord && api_.eventSynchronize &&
                api_.eventElapsedTime && api_.eventDestroy;
  if (events) {
    if (Error e = api_.check(api_.eventCreate(&start, CU_EVENT_DEFAULT),
                             "cuEventCreate"))
      return std::move(e);
    if (Error e = api_.check(api_.eventCreate(&stop, CU_EVENT_DEFAULT),
                             "cuEventCreate"))
      return std::move(e);
  }
  auto destroyEvents = [&] {
    if (start)
      api_.eventDestroy(start);
    if (stop)
      api_.eventDestroy(stop);
  };

  LaunchTiming timing;
  auto t0 = std::chrono::steady_clock::now();
  if (events)
    if (Error e =
            api_.check(api_.eventRecord(start, nullptr), "cuEventRecord")) {
      destroyEvents();
      return std::move(e);
    }
  if (Error e = submit(function, config, args, nullptr)) {
    destroyEvents();
    return std::move(e);
  }
  if (events)
    if (Error e =
            api_.check(api_.eventRecord(stop, nullptr), "cuEventRecord")) {
      destroyEvents();
      return std::move(e);
    }
  CUresult r = api_.ctxSynchronize();
  auto t1 = std::chrono::steady_clock::now();
  if (r != CUDA_SUCCESS) {
    destroyEvents();
    return makeError("the kernel failed: cuCtxSynchronize: ", api_.describe(r));
  }
  timing.wallMs = std::chrono::duration<double, std::milli>(t1 - t0).count();
  if (events) {
    float ms = 0;
    if (api_.eventElapsedTime(&ms, start, stop) == CUDA_SUCCESS)
      timing.deviceMs = ms;
  }
  destroyEvents();
  return timing;
}

} // namespace

std::string nvfp4::rt::cudaDriverLibraryName() {
  const char *env = std::getenv(kCudaDriverLibEnv);
  if (env && *env)
    return env;
  return kCudaDriverLibDefault;
}

Expected<std::unique_ptr<Device>>
nvfp4::rt::createCudaDevice(const DeviceOptions &options) {
  auto api = loadDriver();
  if (!api)
    return api.takeError();
  auto device = std::make_unique<CudaDevice>(std::move(*api));
  if (Error e = device->initialize(options.ordinal))
    return std::move(e);
  return std::unique_ptr<Device>(std::move(device));
}
