//===- HostRuntime.cpp - mgpu* entry points over the runtime's Device -----===//
//
// What host-lowered nvfp4 code calls (nvfp4/Runtime/HostRuntime.h), on one
// process-wide Device chosen by NVFP4_BACKEND. Every Device operation is
// synchronous, so streams and events are tokens. docs/Host.md.
//
//===----------------------------------------------------------------------===//

#include "nvfp4/Runtime/HostRuntime.h"

#include "nvfp4/Runtime/Device.h"
#include "nvfp4/Runtime/EmulatorDevice.h"
#include "nvfp4/Runtime/Harness.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

using namespace nvfp4;
using namespace nvfp4::rt;

namespace {

struct Module {
  ModuleHandle handle;
};

struct Function {
  FunctionHandle handle;
  std::string name;
  std::vector<KernelParamInfo> params;
};

struct State {
  std::mutex mutex;
  bool created = false;
  std::unique_ptr<Device> device;
  unsigned ordinal = 0;
  std::string error;
  /// Device allocations: start -> bytes.
  std::map<uint64_t, uint64_t> allocations;
  /// Tensor maps in device memory, by their bytes.
  TensorMapCache tensorMaps;
  std::vector<std::unique_ptr<Module>> modules;
  std::vector<std::unique_ptr<Function>> functions;
  char stream = 0, event = 0; // the addresses are the handles
};

State &state() {
  static State *s = new State(); // never destroyed: calls may come at exit
  return *s;
}

/// Keeps the first error and prints it once.
void fail(State &s, const std::string &message) {
  if (!s.error.empty())
    return;
  s.error = message;
  std::fprintf(stderr, "nvfp4 host runtime: error: %s\n", message.c_str());
}

/// The device, created at the first call; null after an error.
Device *device(State &s) {
  if (!s.created) {
    s.created = true;
    const char *env = std::getenv("NVFP4_BACKEND");
    std::string name = env && *env ? env : "cuda";
    auto kind = parseBackendKind(name);
    if (!kind) {
      fail(s, "NVFP4_BACKEND: " + kind.takeError().message());
      return nullptr;
    }
    if (const char *o = std::getenv("NVFP4_DEVICE"))
      s.ordinal = unsigned(std::strtoul(o, nullptr, 10));
    DeviceOptions options;
    options.ordinal = s.ordinal;
    auto d = createDevice(*kind, options);
    if (!d) {
      fail(s, "cannot create the " + name + " device: " +
                  d.takeError().message());
      return nullptr;
    }
    s.device = std::move(*d);
  }
  return s.device.get();
}

/// Whether [p, p + bytes) lies in one device allocation.
bool isDevice(State &s, uint64_t p, uint64_t bytes) {
  auto it = s.allocations.upper_bound(p);
  if (it == s.allocations.begin())
    return false;
  --it;
  return p >= it->first && p + bytes <= it->first + it->second;
}

/// The end of the allocation `p` starts in when [p, p + bytes) runs past
/// it; 0 when it does not (or p is in none).
uint64_t overrun(State &s, uint64_t p, uint64_t bytes) {
  auto it = s.allocations.upper_bound(p);
  if (it == s.allocations.begin())
    return 0;
  --it;
  uint64_t end = it->first + it->second;
  return p >= it->first && p < end && p + bytes > end ? end : 0;
}

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(v));
  return buf;
}

uint64_t addr(const void *p) { return uint64_t(reinterpret_cast<uintptr_t>(p)); }
void *ptr(uint64_t a) { return reinterpret_cast<void *>(uintptr_t(a)); }

void *loadModule(std::vector<uint8_t> bytes, const char *what) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  Device *d = device(s);
  if (!d)
    return nullptr;
  auto image = KernelImage::fromBytes(std::move(bytes), what);
  if (!image) {
    fail(s, image.takeError().message());
    return nullptr;
  }
  auto m = d->loadModule(*image);
  if (!m) {
    fail(s, "cannot load the " + std::string(what) + ": " +
                m.takeError().message());
    return nullptr;
  }
  s.modules.push_back(std::make_unique<Module>(Module{*m}));
  return s.modules.back().get();
}

void launch(void *function, const Dim3 &cluster, const Dim3 &grid,
            const Dim3 &block, int32_t smem, void **params) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  Device *d = device(s);
  if (!d || !s.error.empty() || !function) {
    fail(s, "launch skipped: no kernel (an earlier error)");
    return;
  }
  auto *f = static_cast<Function *>(function);
  std::vector<KernelArg> args;
  for (size_t i = 0; i < f->params.size(); ++i) {
    const void *p = params[i];
    switch (f->params[i].bytes) {
    case 1:
      args.push_back(KernelArg::u8(*static_cast<const uint8_t *>(p)));
      break;
    case 2:
      args.push_back(KernelArg::u16(*static_cast<const uint16_t *>(p)));
      break;
    case 4:
      args.push_back(KernelArg::u32(*static_cast<const uint32_t *>(p)));
      break;
    case 8:
      args.push_back(KernelArg::u64(*static_cast<const uint64_t *>(p)));
      break;
    case kTensorMapBytes: {
      TensorMapBlob blob;
      std::memcpy(blob.bytes.data(), p, kTensorMapBytes);
      args.push_back(KernelArg::tensorMap(blob));
      break;
    }
    default:
      fail(s, f->name + ": parameter " + std::to_string(i) + " has " +
                  std::to_string(f->params[i].bytes) +
                  " bytes; the host runtime passes 1, 2, 4, 8 or 128");
      return;
    }
  }
  LaunchConfig config;
  config.grid = grid;
  config.block = block;
  config.cluster = cluster;
  config.dynamicSmemBytes = uint32_t(smem);
  auto timing = d->launch(f->handle, config, args);
  if (!timing)
    fail(s, "launching " + f->name + ": " + timing.takeError().message());
}

template <typename T> void fill(void *dst, T value, size_t count) {
  std::vector<T> values(count, value);
  mgpuMemcpy(dst, values.data(), count * sizeof(T), nullptr);
}

Dim3 dim3(intptr_t x, intptr_t y, intptr_t z) {
  return Dim3{uint32_t(x), uint32_t(y), uint32_t(z)};
}

} // namespace

extern "C" {

const char *nvfp4HostError(void) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.error.empty() ? nullptr : s.error.c_str();
}

void nvfp4HostClearError(void) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.error.clear();
}

const char *nvfp4HostBackend(void) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  Device *d = device(s);
  return d ? stringify(d->kind()) : nullptr;
}

void *mgpuMemAlloc(uint64_t sizeBytes, void *, int8_t isHostShared) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  Device *d = device(s);
  if (!d)
    return nullptr;
  if (isHostShared) {
    fail(s, "mgpuMemAlloc: host-shared memory (gpu.alloc host_shared) is "
            "not supported");
    return nullptr;
  }
  auto p = d->allocate(sizeBytes ? sizeBytes : 1);
  if (!p) {
    fail(s, "mgpuMemAlloc(" + std::to_string(sizeBytes) +
                "): " + p.takeError().message());
    return nullptr;
  }
  s.allocations[*p] = sizeBytes ? sizeBytes : 1;
  // The emulator poisons new memory (NaN in bf16, f16 and f32), so that an
  // output element a kernel never writes shows up in the check.
  if (d->kind() == BackendKind::Emulator && sizeBytes) {
    std::vector<uint8_t> poison(sizeBytes, 0xFF);
    if (Error e = d->copyToDevice(*p, poison.data(), sizeBytes))
      fail(s, "mgpuMemAlloc: " + e.message());
  }
  return ptr(*p);
}

void mgpuMemFree(void *p, void *) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!p || !s.device)
    return;
  auto it = s.allocations.find(addr(p));
  if (it == s.allocations.end()) {
    fail(s, "mgpuMemFree: not an allocation of mgpuMemAlloc");
    return;
  }
  s.allocations.erase(it);
  if (Error e = s.device->free(addr(p)))
    fail(s, "mgpuMemFree: " + e.message());
}

void mgpuMemcpy(void *dst, void *src, size_t bytes, void *) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (bytes == 0)
    return;
  Device *d = device(s);
  if (!d)
    return;
  // The cuda backend copies between any addresses (unified addressing):
  // the caller's device memory (a torch tensor) is not in the registry.
  if (d->kind() == BackendKind::Cuda) {
    if (Error e = d->copyUnified(addr(dst), addr(src), bytes))
      fail(s, "mgpuMemcpy: " + e.message());
    return;
  }
  // The emulator's device addresses are the registry's; a range that
  // starts in an allocation and runs past its end is an error, not host
  // memory.
  for (void *p : {dst, src})
    if (uint64_t end = overrun(s, addr(p), bytes)) {
      fail(s, "mgpuMemcpy: " + std::to_string(bytes) + " bytes at 0x" +
                  hex(addr(p)) + " run " +
                  std::to_string(addr(p) + bytes - end) +
                  " bytes past the end of their device allocation");
      return;
    }
  bool toDevice = isDevice(s, addr(dst), bytes);
  bool fromDevice = isDevice(s, addr(src), bytes);
  Error e = Error::success();
  if (toDevice && fromDevice) {
    e = copyOnDevice(*d, addr(dst), addr(src), bytes);
  } else if (toDevice) {
    e = d->copyToDevice(addr(dst), src, bytes);
  } else if (fromDevice) {
    e = d->copyToHost(dst, addr(src), bytes);
  } else {
    std::memmove(dst, src, bytes);
  }
  if (e)
    fail(s, "mgpuMemcpy: " + e.message());
}

void mgpuMemset32(void *dst, unsigned int value, size_t count, void *) {
  fill<uint32_t>(dst, value, count);
}

void mgpuMemset16(void *dst, unsigned short value, size_t count, void *) {
  fill<uint16_t>(dst, value, count);
}

void *mgpuStreamCreate(void) { return &state().stream; }
void mgpuStreamDestroy(void *) {}
void mgpuStreamSynchronize(void *) {}
void mgpuStreamWaitEvent(void *, void *) {}
void *mgpuEventCreate(void) { return &state().event; }
void mgpuEventDestroy(void *) {}
void mgpuEventSynchronize(void *) {}
void mgpuEventRecord(void *, void *) {}

void mgpuSetDefaultDevice(int32_t device) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.created && unsigned(device) != s.ordinal)
    fail(s, "mgpuSetDefaultDevice: the device is already created");
  s.ordinal = unsigned(device);
}

void *mgpuModuleLoad(void *data, size_t size) {
  auto *p = static_cast<const uint8_t *>(data);
  return loadModule(std::vector<uint8_t>(p, p + size), "embedded cubin");
}

void *mgpuModuleLoadJIT(void *data, int) {
  auto *p = static_cast<const uint8_t *>(data);
  return loadModule(std::vector<uint8_t>(p, p + std::strlen(
                                                    static_cast<char *>(data))),
                    "embedded PTX");
}

void mgpuModuleUnload(void *) {
  // Modules live as long as the Device (Device.h has no unload).
}

void *mgpuModuleGetFunction(void *module, const char *name) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!module || !s.device)
    return nullptr; // the load failed and said why
  auto f = s.device->getFunction(static_cast<Module *>(module)->handle, name);
  if (!f) {
    fail(s, f.takeError().message());
    return nullptr;
  }
  auto params = s.device->getParams(*f);
  if (!params || !*params) {
    fail(s, std::string("cannot tell the parameters of ") + name);
    return nullptr;
  }
  s.functions.push_back(
      std::make_unique<Function>(Function{*f, name, std::move(**params)}));
  return s.functions.back().get();
}

void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t smem, void *, void **params,
                      void **, size_t) {
  launch(function, Dim3{}, dim3(gridX, gridY, gridZ),
         dim3(blockX, blockY, blockZ), smem, params);
}

void mgpuLaunchClusterKernel(void *function, intptr_t clusterX,
                             intptr_t clusterY, intptr_t clusterZ,
                             intptr_t gridX, intptr_t gridY, intptr_t gridZ,
                             intptr_t blockX, intptr_t blockY,
                             intptr_t blockZ, int32_t smem, void *,
                             void **params, void **) {
  launch(function, dim3(clusterX, clusterY, clusterZ),
         dim3(gridX, gridY, gridZ), dim3(blockX, blockY, blockZ), smem,
         params);
}

void *nvfp4TensorMapEncodeTiledMemref(int64_t rank, void *descriptor,
                                      int64_t dataType, int64_t interleave,
                                      int64_t swizzle, int64_t l2Promotion,
                                      int64_t oobFill, int64_t *boxDims) {
  return mgpuTensorMapEncodeTiledMemref(rank, descriptor, dataType,
                                        interleave, swizzle, l2Promotion,
                                        oobFill, boxDims);
}

void *mgpuTensorMapEncodeTiledMemref(int64_t rank, void *descriptor,
                                     int64_t dataType, int64_t interleave,
                                     int64_t swizzle, int64_t l2Promotion,
                                     int64_t oobFill, int64_t *boxDims) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  Device *d = device(s);
  if (!d)
    return nullptr;
  if (rank < 1 || rank > int64_t(kTmaMaxRank) || dataType < 0 ||
      dataType > int64_t(TmaDataType::BF16)) {
    fail(s, "mgpuTensorMapEncodeTiledMemref: rank " + std::to_string(rank) +
                ", data type " + std::to_string(dataType) +
                " (expected rank 1..5 and a type up to bf16)");
    return nullptr;
  }
  // {allocated, aligned, offset, sizes[rank], strides[rank]}
  auto *words = static_cast<int64_t *>(descriptor);
  uint64_t aligned = uint64_t(words[1]);
  int64_t offset = words[2];
  const int64_t *sizes = words + 3, *strides = words + 3 + rank;
  TensorMapDesc desc;
  desc.dataType = TmaDataType(dataType);
  desc.rank = unsigned(rank);
  uint64_t bytes = elementBits(desc.dataType) / 8;
  desc.globalAddress = aligned + uint64_t(offset) * bytes;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t dim = rank - 1 - i; // innermost first
    desc.globalDims[i] = uint64_t(sizes[dim]);
    desc.boxDims[i] = uint32_t(boxDims[dim]);
    if (i > 0)
      desc.globalStrides[i - 1] = uint64_t(strides[dim]) * bytes;
  }
  if (strides[rank - 1] != 1) {
    fail(s, "mgpuTensorMapEncodeTiledMemref: the innermost dimension must "
            "be contiguous (stride 1)");
    return nullptr;
  }
  desc.interleave = TmaInterleave(interleave);
  desc.swizzle = TmaSwizzle(swizzle);
  desc.l2Promotion = TmaL2Promotion(l2Promotion);
  desc.oobFill = TmaOobFill(oobFill);
  auto blob = encodeTensorMapCached(*d, desc, &s.tensorMaps);
  if (!blob) {
    fail(s, "mgpuTensorMapEncodeTiledMemref: " + blob.takeError().message());
    return nullptr;
  }
  auto p = tensorMapCopy(*d, *blob, &s.tensorMaps);
  if (!p) {
    fail(s, "mgpuTensorMapEncodeTiledMemref: " + p.takeError().message());
    return nullptr;
  }
  return ptr(*p);
}

} // extern "C"
