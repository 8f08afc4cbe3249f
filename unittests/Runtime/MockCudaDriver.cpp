//===- MockCudaDriver.cpp - A stand-in libcuda for tests without a GPU ----===//
//
// A shared library that exports the CUDA driver entry points the cuda
// backend resolves (under the same symbol names: cuda.h's macros map
// cuMemAlloc to cuMemAlloc_v2 here exactly as in the backend), so that the
// backend's whole call sequence (loading, initialization, memory, modules,
// tensor maps, launch attributes, error reporting) runs in CI through
// NVFP4_CUDA_DRIVER_LIB=<this library>. It checks what the real driver
// checks where the backend must get it right (dynamic shared memory above
// 48 KiB needs the opt-in attribute; a cluster must divide the grid; more
// than 8 CTAs a cluster needs the non-portable attribute).
//
// It runs no GPU code. The kernels of test/Runtime/Inputs are executed on
// the host, by name, so that scripts and tests exercise their whole
// plumbing (arguments, buffers, output files, checkers) without a GPU:
//   saxpy(f32 a, u64 x, u64 y, u32 n): y[i] = fmaf(a, x[i], y[i]), i < n
//   params(...), launch_info(out): as launch.cu describes
//   tma_load_2d / tma_load_2d_ptr: the box copy with the swizzle, as tma.cu
//   fault(...): the launch succeeds, cuCtxSynchronize reports
//               CUDA_ERROR_ILLEGAL_ADDRESS
// every other kernel does nothing. (The host versions share the kernels'
// specifications, not hardware behaviour: passing here proves plumbing.)
// Parameter layouts come from the PTX
// `.entry` (lib/Runtime's KernelImage reader).
//
// Environment:
//   NVFP4_MOCK_CC=9.0          compute capability (default 9.0)
//   NVFP4_MOCK_GPU_NAME=NAME   device name (default "Mock H200")
//   NVFP4_MOCK_DEVICES=N       device count (default 1)
//   NVFP4_MOCK_FAIL=SYMBOL:CODE  that entry point returns CUresult CODE
//   NVFP4_MOCK_RECORD=PATH     append a line per tensor-map encode and
//                              launch (with every parameter's bytes)
// A PTX image containing MOCK_JIT_ERROR fails to load with a JIT log.
//
// This is a test double, not a validation of GPU behaviour:
// scripts/device/validate_cuda_backend.sh does that on a real GPU.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Runtime/KernelImage.h"

#include <cuda.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#define MOCK_API extern "C" __attribute__((visibility("default")))

namespace {

struct Function {
  std::string name;
  std::vector<std::pair<size_t, size_t>> params; // offset, size
  int maxDynamicSmem = 48 * 1024;
  int nonPortableCluster = 0;
};

struct Module {
  std::vector<uint8_t> image;
  bool isPtx = false;
  std::vector<Function *> functions;
};

struct TensorMapRecord {
  int type;
  unsigned rank;
  uintptr_t address;
  uint64_t dims[5];
  uint64_t strides[4];
  uint32_t box[5];
  int swizzle;
};

struct State {
  bool initialized = false;
  bool contextCurrent = false;
  bool pendingFault = false;
  /// Live allocations in allocation order: base -> (bytes, index).
  std::map<uintptr_t, std::pair<size_t, unsigned>> allocations;
  unsigned allocationCount = 0;
  unsigned tensorMapCount = 0;
  std::map<unsigned, TensorMapRecord> tensorMaps;
};

State &state() {
  static State s;
  return s;
}

/// The CUresult NVFP4_MOCK_FAIL asks `symbol` to return, or success.
CUresult injected(const char *symbol) {
  const char *spec = std::getenv("NVFP4_MOCK_FAIL");
  if (!spec)
    return CUDA_SUCCESS;
  std::string s = spec;
  size_t colon = s.find(':');
  if (colon == std::string::npos || s.substr(0, colon) != symbol)
    return CUDA_SUCCESS;
  return static_cast<CUresult>(std::atoi(s.c_str() + colon + 1));
}

#define MOCK_CHECK(symbol)                                                     \
  if (CUresult injectedResult = injected(symbol))                              \
    return injectedResult;

std::string recordPath() {
  const char *p = std::getenv("NVFP4_MOCK_RECORD");
  return p ? p : "";
}

void record(const std::string &line) {
  std::string path = recordPath();
  if (path.empty())
    return;
  if (FILE *f = std::fopen(path.c_str(), "a")) {
    std::fprintf(f, "%s\n", line.c_str());
    std::fclose(f);
  }
}

/// "buf#2+64" for an address inside the third allocation, else hex.
std::string describeAddress(uintptr_t p) {
  State &s = state();
  auto it = s.allocations.upper_bound(p);
  if (it != s.allocations.begin()) {
    --it;
    if (p < it->first + it->second.first)
      return "buf#" + std::to_string(it->second.second) + "+" +
             std::to_string(p - it->first);
  }
  char text[32];
  std::snprintf(text, sizeof(text), "0x%llx", (unsigned long long)p);
  return text;
}

bool validRange(uintptr_t p, size_t bytes) {
  State &s = state();
  auto it = s.allocations.upper_bound(p);
  if (it == s.allocations.begin())
    return false;
  --it;
  return p >= it->first && p + bytes <= it->first + it->second.first;
}

void ccFromEnv(int &major, int &minor) {
  major = 9;
  minor = 0;
  if (const char *cc = std::getenv("NVFP4_MOCK_CC"))
    std::sscanf(cc, "%d.%d", &major, &minor);
}

template <typename T> T param(void **params, size_t i) {
  T v;
  std::memcpy(&v, params[i], sizeof(T));
  return v;
}

} // namespace

MOCK_API CUresult CUDAAPI cuGetErrorName(CUresult error, const char **str) {
  switch (error) {
  case CUDA_SUCCESS:
    *str = "CUDA_SUCCESS";
    return CUDA_SUCCESS;
  case CUDA_ERROR_INVALID_VALUE:
    *str = "CUDA_ERROR_INVALID_VALUE";
    return CUDA_SUCCESS;
  case CUDA_ERROR_OUT_OF_MEMORY:
    *str = "CUDA_ERROR_OUT_OF_MEMORY";
    return CUDA_SUCCESS;
  case CUDA_ERROR_NOT_INITIALIZED:
    *str = "CUDA_ERROR_NOT_INITIALIZED";
    return CUDA_SUCCESS;
  case CUDA_ERROR_NO_DEVICE:
    *str = "CUDA_ERROR_NO_DEVICE";
    return CUDA_SUCCESS;
  case CUDA_ERROR_INVALID_PTX:
    *str = "CUDA_ERROR_INVALID_PTX";
    return CUDA_SUCCESS;
  case CUDA_ERROR_NOT_FOUND:
    *str = "CUDA_ERROR_NOT_FOUND";
    return CUDA_SUCCESS;
  case CUDA_ERROR_ILLEGAL_ADDRESS:
    *str = "CUDA_ERROR_ILLEGAL_ADDRESS";
    return CUDA_SUCCESS;
  case CUDA_ERROR_INVALID_CLUSTER_SIZE:
    *str = "CUDA_ERROR_INVALID_CLUSTER_SIZE";
    return CUDA_SUCCESS;
  case CUDA_ERROR_INVALID_CONTEXT:
    *str = "CUDA_ERROR_INVALID_CONTEXT";
    return CUDA_SUCCESS;
  default:
    *str = nullptr;
    return CUDA_ERROR_INVALID_VALUE;
  }
}

MOCK_API CUresult CUDAAPI cuGetErrorString(CUresult error, const char **str) {
  switch (error) {
  case CUDA_ERROR_INVALID_VALUE:
    *str = "invalid argument";
    return CUDA_SUCCESS;
  case CUDA_ERROR_NO_DEVICE:
    *str = "no CUDA-capable device is detected";
    return CUDA_SUCCESS;
  case CUDA_ERROR_INVALID_PTX:
    *str = "a PTX JIT compilation failed";
    return CUDA_SUCCESS;
  case CUDA_ERROR_NOT_FOUND:
    *str = "named symbol not found";
    return CUDA_SUCCESS;
  case CUDA_ERROR_ILLEGAL_ADDRESS:
    *str = "an illegal memory access was encountered";
    return CUDA_SUCCESS;
  case CUDA_ERROR_OUT_OF_MEMORY:
    *str = "out of memory";
    return CUDA_SUCCESS;
  default:
    *str = nullptr;
    return CUDA_ERROR_INVALID_VALUE;
  }
}

MOCK_API CUresult CUDAAPI cuInit(unsigned int flags) {
  MOCK_CHECK("cuInit");
  if (flags != 0)
    return CUDA_ERROR_INVALID_VALUE;
  state().initialized = true;
  return CUDA_SUCCESS;
}

MOCK_API CUresult CUDAAPI cuDriverGetVersion(int *version) {
  MOCK_CHECK("cuDriverGetVersion");
  *version = 13000;
  return CUDA_SUCCESS;
}

MOCK_API CUresult CUDAAPI cuDeviceGetCount(int *count) {
  MOCK_CHECK("cuDeviceGetCount");
  if (!state().initialized)
    return CUDA_ERROR_NOT_INITIALIZED;
  const char *n = std::getenv("NVFP4_MOCK_DEVICES");
  *count = n ? std::atoi(n) : 1;
  return CUDA_SUCCESS;
}

MOCK_API CUresult CUDAAPI cuDeviceGet(CUdevice *device, int ordinal) {
  MOCK_CHECK("cuDeviceGet");
  *device = ordinal;
  return CUDA_SUCCESS;
}

MOCK_API CUresult CUDAAPI cuDeviceGetName(char *name, int len, CUdevice) {
  MOCK_CHECK("cuDeviceGetName");
  const char *n = std::getenv("NVFP4_MOCK_GPU_NAME");
  std::snprintf(name, static_cast<size_t>(len), "%s", n ? n : "Mock H200");
  return CUDA_SUCCESS;
}

MOCK_API CUresult CUDAAPI cuDeviceGetAttribute(int *value,
                                               CUdevice_attribute attr,
                                               CUdevice) {
  MOCK_CHECK("cuDeviceGetAttribute");
  int major, minor;
  ccFromEnv(major, minor);
  switch (attr) {
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
    *value = major;
    return CUDA_SUCCESS;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
    *value = minor;
    return CUDA_SUCCESS;
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
    *value = 132;
    return CUDA_SUCCESS;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
    *value = 232448;
    return CUDA_SUCCESS;
  default:
    return CUDA_ERROR_INVALID_VALUE;
  }
}

MOCK_API CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice) {
  MOCK_CHECK("cuDevicePrimaryCtxRetain");
  // A fresh context: record names (buf#N, tmap#N) count from 0 and 1 again.
  state().allocationCount = 0;
  state().tensorMapCount = 0;
  *ctx = reinterpret_cast<CUcontext>(0x1);
  return CUDA_SUCCESS;
}

MOCK_API CUresult CUDAAPI cuDevicePrimaryCtxRelease(CUdevice) {
  // The last release destroys the primary context, and a fault with it.
  state().pendingFault = false;
  state().contextCurrent = false;
  return CUDA_SUCCESS;
}

MOCK_API CUresult CUDAAPI cuCtxSetCurrent(CUcontext ctx) {
  MOCK_CHECK("cuCtxSetCurrent");
  state().contextCurrent = ctx != nullptr;
  return CUDA_SUCCESS;
}

MOCK_API CUresult CUDAAPI cuCtxSynchronize(void) {
  MOCK_CHECK("cuCtxSynchronize");
  if (state().pendingFault)
    return CUDA_ERROR_ILLEGAL_ADDRESS;
  return CUDA_SUCCESS;
}

MOCK_API CUresult CUDAAPI cuMemAlloc(CUdeviceptr *ptr, size_t bytes) {
  MOCK_CHECK("cuMemAlloc");
  if (!state().contextCurrent)
    return CUDA_ERROR_INVALID_CONTEXT;
  if (bytes == 0)
    return CUDA_ERROR_INVALID_VALUE;
  void *p = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (!p)
    return CUDA_ERROR_OUT_OF_MEMORY;
  State &s = state();
  s.allocations[reinterpret_cast<uintptr_t>(p)] = {bytes, s.allocationCount++};
  *ptr = reinterpret_cast<CUdeviceptr>(p);
  return CUDA_SUCCESS;
}

MOCK_API CUresult CUDAAPI cuMemFree(CUdeviceptr ptr) {
  MOCK_CHECK("cuMemFree");
  auto &allocs = state().allocations;
  auto it = allocs.find(static_cast<uintptr_t>(ptr));
  if (it == allocs.end())
    return CUDA_ERROR_INVALID_VALUE;
  std::free(reinterpret_cast<void *>(it->first));
  allocs.erase(it);
  return CUDA_SUCCESS;
}

MOCK_API CUresult CUDAAPI cuMemcpyHtoD(CUdeviceptr dst, const void *src,
                                       size_t bytes) {
  MOCK_CHECK("cuMemcpyHtoD");
  if (!validRange(static_cast<uintptr_t>(dst), bytes))
    return CUDA_ERROR_INVALID_VALUE;
  std::memcpy(reinterpret_cast<void *>(dst), src, bytes);
  return CUDA_SUCCESS;
}

MOCK_API CUresult CUDAAPI cuMemcpyDtoH(void *dst, CUdeviceptr src,
                                       size_t bytes) {
  MOCK_CHECK("cuMemcpyDtoH");
  if (!validRange(static_cast<uintptr_t>(src), bytes))
    return CUDA_ERROR_INVALID_VALUE;
  std::memcpy(dst, reinterpret_cast<const void *>(src), bytes);
  return CUDA_SUCCESS;
}

MOCK_API CUresult CUDAAPI cuModuleLoadDataEx(CUmodule *module,
                                             const void *image,
                                             unsigned int numOptions,
                                             CUjit_option *options,
                                             void **values) {
  MOCK_CHECK("cuModuleLoadDataEx");
  const auto *bytes = static_cast<const uint8_t *>(image);
  auto *m = new Module;
  if (bytes[0] == 0x7f && bytes[1] == 'E') {
    // Cubin: its size is where the section header table ends (ELF64:
    // e_shoff at 40, e_shentsize at 58, e_shnum at 60).
    uint64_t shoff;
    uint16_t shentsize, shnum;
    std::memcpy(&shoff, bytes + 40, 8);
    std::memcpy(&shentsize, bytes + 58, 2);
    std::memcpy(&shnum, bytes + 60, 2);
    m->image.assign(bytes, bytes + shoff + uint64_t(shentsize) * shnum);
  } else {
    size_t n = std::strlen(static_cast<const char *>(image));
    m->image.assign(bytes, bytes + n);
    m->isPtx = true;
  }
  std::string text(m->image.begin(), m->image.end());
  if (m->isPtx && text.find("MOCK_JIT_ERROR") != std::string::npos) {
    for (unsigned i = 0; i < numOptions; ++i)
      if (options[i] == CU_JIT_ERROR_LOG_BUFFER)
        std::snprintf(static_cast<char *>(values[i]), 64,
                      "ptxas fatal   : mock JIT error");
    delete m;
    return CUDA_ERROR_INVALID_PTX;
  }
  *module = reinterpret_cast<CUmodule>(m);
  return CUDA_SUCCESS;
}

MOCK_API CUresult CUDAAPI cuModuleUnload(CUmodule module) {
  auto *m = reinterpret_cast<Module *>(module);
  for (Function *f : m->functions)
    delete f;
  delete m;
  return CUDA_SUCCESS;
}

MOCK_API CUresult CUDAAPI cuModuleGetFunction(CUfunction *function,
                                              CUmodule module,
                                              const char *name) {
  MOCK_CHECK("cuModuleGetFunction");
  auto *m = reinterpret_cast<Module *>(module);
  auto *f = new Function;
  f->name = name;
  if (m->isPtx) {
    std::string text(m->image.begin(), m->image.end());
    auto entries = nvfp4::rt::ptxEntries(text);
    if (!entries) {
      (void)entries.takeError();
      delete f;
      return CUDA_ERROR_INVALID_PTX;
    }
    bool found = false;
    for (const auto &e : *entries) {
      if (e.name != name)
        continue;
      found = true;
      size_t offset = 0;
      for (const auto &p : e.params) {
        offset = (offset + p.align - 1) / p.align * p.align;
        f->params.push_back({offset, p.bytes});
        offset += p.bytes;
      }
    }
    if (!found) {
      delete f;
      return CUDA_ERROR_NOT_FOUND;
    }
  } else {
    std::string bytes(m->image.begin(), m->image.end());
    if (bytes.find(name) == std::string::npos) {
      delete f;
      return CUDA_ERROR_NOT_FOUND;
    }
    // The mock reads no cubin metadata; it knows saxpy's layout.
    if (f->name == "saxpy")
      f->params = {{0, 4}, {8, 8}, {16, 8}, {24, 4}};
  }
  m->functions.push_back(f);
  *function = reinterpret_cast<CUfunction>(f);
  return CUDA_SUCCESS;
}

MOCK_API CUresult CUDAAPI cuFuncGetParamInfo(CUfunction function, size_t index,
                                             size_t *offset, size_t *size) {
  MOCK_CHECK("cuFuncGetParamInfo");
  auto *f = reinterpret_cast<Function *>(function);
  if (index >= f->params.size())
    return CUDA_ERROR_INVALID_VALUE;
  *offset = f->params[index].first;
  if (size)
    *size = f->params[index].second;
  return CUDA_SUCCESS;
}

MOCK_API CUresult CUDAAPI cuFuncGetAttribute(int *value,
                                             CUfunction_attribute attr,
                                             CUfunction function) {
  MOCK_CHECK("cuFuncGetAttribute");
  auto *f = reinterpret_cast<Function *>(function);
  switch (attr) {
  case CU_FUNC_ATTRIBUTE_NUM_REGS:
    *value = 32;
    return CUDA_SUCCESS;
  case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES:
    *value =
        f->name == "tma_load_2d" || f->name == "tma_load_2d_ptr" ? 8200 : 0;
    return CUDA_SUCCESS;
  case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
    *value = 1024;
    return CUDA_SUCCESS;
  default:
    return CUDA_ERROR_INVALID_VALUE;
  }
}

MOCK_API CUresult CUDAAPI cuFuncSetAttribute(CUfunction function,
                                             CUfunction_attribute attr,
                                             int value) {
  MOCK_CHECK("cuFuncSetAttribute");
  auto *f = reinterpret_cast<Function *>(function);
  if (attr == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) {
    if (value < 0 || value > 232448)
      return CUDA_ERROR_INVALID_VALUE;
    f->maxDynamicSmem = value;
    record("set " + f->name + " max_dynamic_smem=" + std::to_string(value));
    return CUDA_SUCCESS;
  }
  if (attr == CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED) {
    f->nonPortableCluster = value;
    record("set " + f->name + " non_portable_cluster=" + std::to_string(value));
    return CUDA_SUCCESS;
  }
  return CUDA_ERROR_INVALID_VALUE;
}

MOCK_API CUresult CUDAAPI cuTensorMapEncodeTiled(
    CUtensorMap *map, CUtensorMapDataType type, cuuint32_t rank, void *address,
    const cuuint64_t *dims, const cuuint64_t *strides, const cuuint32_t *box,
    const cuuint32_t *elementStrides, CUtensorMapInterleave interleave,
    CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2,
    CUtensorMapFloatOOBfill oob) {
  MOCK_CHECK("cuTensorMapEncodeTiled");
  if (rank < 1 || rank > 5 || reinterpret_cast<uintptr_t>(address) % 16 != 0)
    return CUDA_ERROR_INVALID_VALUE;
  unsigned id = ++state().tensorMapCount;
  std::string line =
      "encode tmap#" + std::to_string(id) +
      " type=" + std::to_string(int(type)) + " rank=" + std::to_string(rank) +
      " addr=" + describeAddress(reinterpret_cast<uintptr_t>(address));
  auto join = [](auto *values, unsigned n) {
    std::string s;
    for (unsigned i = 0; i < n; ++i)
      s += (i ? "," : "") + std::to_string(values[i]);
    return s;
  };
  line += " dims=" + join(dims, rank) + " strides=" + join(strides, rank - 1) +
          " box=" + join(box, rank) +
          " elemstrides=" + join(elementStrides, rank) +
          " interleave=" + std::to_string(int(interleave)) +
          " swizzle=" + std::to_string(int(swizzle)) +
          " l2=" + std::to_string(int(l2)) + " oob=" + std::to_string(int(oob));
  record(line);
  TensorMapRecord rec{};
  rec.type = int(type);
  rec.rank = rank;
  rec.address = reinterpret_cast<uintptr_t>(address);
  for (unsigned i = 0; i < rank; ++i) {
    rec.dims[i] = dims[i];
    rec.box[i] = box[i];
    if (i + 1 < rank)
      rec.strides[i] = strides[i];
  }
  rec.swizzle = int(swizzle);
  state().tensorMaps[id] = rec;
  std::memset(map, 0, sizeof(*map));
  std::snprintf(reinterpret_cast<char *>(map), sizeof(*map), "MOCKTMAP#%u", id);
  return CUDA_SUCCESS;
}

MOCK_API CUresult CUDAAPI cuLaunchKernelEx(const CUlaunchConfig *config,
                                           CUfunction function, void **params,
                                           void **extra) {
  MOCK_CHECK("cuLaunchKernelEx");
  auto *f = reinterpret_cast<Function *>(function);
  if (extra)
    return CUDA_ERROR_INVALID_VALUE;
  if (static_cast<int>(config->sharedMemBytes) > f->maxDynamicSmem)
    return CUDA_ERROR_INVALID_VALUE;
  unsigned cx = 1, cy = 1, cz = 1;
  bool cluster = false, programmatic = false;
  for (unsigned i = 0; i < config->numAttrs; ++i) {
    if (config->attrs[i].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
      cluster = true;
      cx = config->attrs[i].value.clusterDim.x;
      cy = config->attrs[i].value.clusterDim.y;
      cz = config->attrs[i].value.clusterDim.z;
    } else if (config->attrs[i].id ==
               CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION) {
      programmatic =
          config->attrs[i].value.programmaticStreamSerializationAllowed;
    } else {
      return CUDA_ERROR_INVALID_VALUE;
    }
  }
  if (config->gridDimX % cx || config->gridDimY % cy || config->gridDimZ % cz)
    return CUDA_ERROR_INVALID_CLUSTER_SIZE;
  if (cx * cy * cz > 8 && !f->nonPortableCluster)
    return CUDA_ERROR_INVALID_CLUSTER_SIZE;
  char head[256];
  std::snprintf(head, sizeof(head),
                "launch %s grid=%u,%u,%u block=%u,%u,%u smem=%u cluster=%s",
                f->name.c_str(), config->gridDimX, config->gridDimY,
                config->gridDimZ, config->blockDimX, config->blockDimY,
                config->blockDimZ, config->sharedMemBytes,
                cluster ? (std::to_string(cx) + "," + std::to_string(cy) + "," +
                           std::to_string(cz))
                              .c_str()
                        : "none");
  std::string line0 = head;
  if (programmatic)
    line0 += " programmatic";
  if (config->hStream) {
    char stream[48];
    std::snprintf(stream, sizeof(stream), " stream=%p",
                  static_cast<void *>(config->hStream));
    line0 += stream;
  }
  record(line0);
  for (size_t i = 0; i < f->params.size(); ++i) {
    const auto *p = static_cast<const uint8_t *>(params[i]);
    size_t size = f->params[i].second;
    std::string line = "  param " + std::to_string(i) + " (" +
                       std::to_string(size) + " bytes): ";
    if (size == 128 && std::memcmp(p, "MOCKTMAP#", 9) == 0) {
      line += "tmap#" + std::string(reinterpret_cast<const char *>(p) + 9);
    } else if (size == 8 && validRange(param<uint64_t>(params, i), 1)) {
      line += describeAddress(param<uint64_t>(params, i));
      const auto *target =
          reinterpret_cast<const char *>(param<uint64_t>(params, i));
      if (std::memcmp(target, "MOCKTMAP#", 9) == 0)
        line += " -> tmap#" + std::string(target + 9);
    } else {
      char hex[4];
      for (size_t b = 0; b < size; ++b) {
        std::snprintf(hex, sizeof(hex), "%02x", p[b]);
        line += hex;
      }
    }
    record(line);
  }
  if (f->name == "saxpy" && f->params.size() == 4) {
    float a = param<float>(params, 0);
    auto *x = reinterpret_cast<const float *>(param<uint64_t>(params, 1));
    auto *y = reinterpret_cast<float *>(param<uint64_t>(params, 2));
    uint32_t n = param<uint32_t>(params, 3);
    uint64_t threads = uint64_t(config->gridDimX) * config->blockDimX;
    if (!validRange(reinterpret_cast<uintptr_t>(x), n * 4) ||
        !validRange(reinterpret_cast<uintptr_t>(y), n * 4)) {
      state().pendingFault = true;
      return CUDA_SUCCESS;
    }
    for (uint64_t i = 0; i < n && i < threads; ++i)
      y[i] = std::fma(a, x[i], y[i]);
  } else if (f->name == "params" && f->params.size() == 9) {
    auto *out = reinterpret_cast<uint64_t *>(param<uint64_t>(params, 8));
    out[0] = param<uint8_t>(params, 0);
    out[1] = param<uint16_t>(params, 1);
    out[2] = param<uint32_t>(params, 2);
    out[3] = uint64_t(int64_t(param<int32_t>(params, 3)));
    out[4] = param<uint64_t>(params, 4);
    out[5] = param<uint64_t>(params, 5);
    out[6] = param<uint32_t>(params, 6);
    out[7] = param<uint64_t>(params, 7);
  } else if (f->name == "launch_info" && f->params.size() == 1) {
    auto *out = reinterpret_cast<uint32_t *>(param<uint64_t>(params, 0));
    unsigned smem = config->sharedMemBytes;
    for (unsigned z = 0; z < config->gridDimZ; ++z)
      for (unsigned y = 0; y < config->gridDimY; ++y)
        for (unsigned x = 0; x < config->gridDimX; ++x) {
          unsigned cta = x + config->gridDimX * (y + config->gridDimY * z);
          uint32_t *rec = out + 8 * cta;
          rec[0] = x;
          rec[1] = y;
          rec[2] = (x % cx) + cx * ((y % cy) + cy * (z % cz));
          rec[3] = cx * cy * cz;
          rec[4] = x / cx;
          rec[5] = smem;
          rec[6] = smem ? 0xFF : 0;
          rec[7] = config->blockDimX;
        }
  } else if ((f->name == "tma_load_2d" || f->name == "tma_load_2d_ptr") &&
             f->params.size() == 5) {
    const char *blob =
        f->name == "tma_load_2d"
            ? static_cast<const char *>(params[0])
            : reinterpret_cast<const char *>(param<uint64_t>(params, 0));
    auto it =
        state().tensorMaps.find(static_cast<unsigned>(std::atoi(blob + 9)));
    if (std::memcmp(blob, "MOCKTMAP#", 9) != 0 ||
        it == state().tensorMaps.end()) {
      state().pendingFault = true;
      return CUDA_SUCCESS;
    }
    const TensorMapRecord &t = it->second;
    auto *out = reinterpret_cast<uint8_t *>(param<uint64_t>(params, 1));
    int c0 = param<int32_t>(params, 2), c1 = param<int32_t>(params, 3);
    const uint32_t kTileBytes = 8192, base = 0x400; // a 1024-aligned tile
    const unsigned elem = t.type == CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 ||
                                  t.type == CU_TENSOR_MAP_DATA_TYPE_FLOAT16 ||
                                  t.type == CU_TENSOR_MAP_DATA_TYPE_UINT16
                              ? 2
                              : 4;
    // CU_TENSOR_MAP_SWIZZLE_32B/64B/128B = 1/2/3 XOR bits [7, 7+n) into
    // bits [4, 4+n) of the shared-memory address.
    unsigned bits = t.swizzle >= 1 && t.swizzle <= 3 ? unsigned(t.swizzle) : 0;
    for (uint32_t r = 0; r < t.box[1]; ++r)
      for (uint32_t e = 0; e < t.box[0]; ++e) {
        int64_t gx = int64_t(c0) + e, gy = int64_t(c1) + r;
        bool inside = gx >= 0 && gy >= 0 && uint64_t(gx) < t.dims[0] &&
                      uint64_t(gy) < t.dims[1];
        for (unsigned k = 0; k < elem; ++k) {
          uint32_t address = base + (r * t.box[0] + e) * elem + k;
          uint32_t swizzled =
              address ^ (((address >> 7) & ((1u << bits) - 1)) << 4);
          out[swizzled - base] =
              inside ? reinterpret_cast<const uint8_t *>(
                           t.address)[gy * t.strides[0] + gx * elem + k]
                     : 0;
        }
      }
    std::memcpy(out + kTileBytes, &base, 4);
  } else if (f->name == "fault") {
    state().pendingFault = true;
  }
  return CUDA_SUCCESS;
}

MOCK_API CUresult CUDAAPI cuEventCreate(CUevent *event, unsigned int) {
  *event = reinterpret_cast<CUevent>(new int(0));
  return CUDA_SUCCESS;
}
MOCK_API CUresult CUDAAPI cuEventRecord(CUevent, CUstream) {
  return CUDA_SUCCESS;
}
MOCK_API CUresult CUDAAPI cuEventSynchronize(CUevent) { return CUDA_SUCCESS; }
MOCK_API CUresult CUDAAPI cuEventElapsedTime(float *ms, CUevent, CUevent) {
  *ms = 0.25f;
  return CUDA_SUCCESS;
}
MOCK_API CUresult CUDAAPI cuEventDestroy(CUevent event) {
  delete reinterpret_cast<int *>(event);
  return CUDA_SUCCESS;
}
