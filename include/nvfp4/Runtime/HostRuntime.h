/*===- HostRuntime.h - Entry points of host-lowered nvfp4 code ----*- C -*-===//
 *
 * libnvfp4_host_runtime implements the `mgpu*` functions that upstream
 * MLIR's gpu-to-llvm lowering calls (module load, launch with and without a
 * cluster, memory, streams, tensor-map encoding) on the runtime's Device
 * (nvfp4/Runtime/Device.h): the CUDA driver or the PTX emulator. Link a
 * host-lowered object (nvfp4-opt --nvfp4-to-llvm, docs/Host.md) with it.
 *
 * The backend is chosen once, at the first call, by the environment:
 * NVFP4_BACKEND=cuda (the default) or NVFP4_BACKEND=emulator, and
 * NVFP4_DEVICE=N for the GPU ordinal. Debian does not package upstream's
 * libmlir_cuda_runtime, and the emulator needs these entry points anyway.
 *
 * Errors: the mgpu* functions have no error result (upstream prints and
 * continues). Here the first error is kept, printed once to stderr, and
 * every later launch is skipped until nvfp4HostClearError(); check
 * nvfp4HostError() after calling host-lowered code.
 *
 *===----------------------------------------------------------------------===*/

#ifndef NVFP4_RUNTIME_HOSTRUNTIME_H
#define NVFP4_RUNTIME_HOSTRUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The first error since the last nvfp4HostClearError(), or NULL. */
const char *nvfp4HostError(void);
void nvfp4HostClearError(void);
/* "cuda" or "emulator" (creates the device if needed); NULL when it cannot
 * be created (nvfp4HostError() says why). */
const char *nvfp4HostBackend(void);

/* Device memory and copies (also what host-lowered code calls). On the
 * emulator, new memory is poisoned (all bytes 0xFF: NaN in bf16, f16 and
 * f32), so an output element no kernel writes fails a check. mgpuMemcpy
 * copies in the direction its pointers say: an address inside an
 * allocation of mgpuMemAlloc is device memory, anything else host memory. */
void *mgpuMemAlloc(uint64_t sizeBytes, void *stream, int8_t isHostShared);
void mgpuMemFree(void *ptr, void *stream);
void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, void *stream);
void mgpuMemset32(void *dst, unsigned int value, size_t count, void *stream);
void mgpuMemset16(void *dst, unsigned short value, size_t count,
                  void *stream);

/* Streams and events: every operation completes before it returns, so
 * these only keep upstream's calls valid. */
void *mgpuStreamCreate(void);
void mgpuStreamDestroy(void *stream);
void mgpuStreamSynchronize(void *stream);
void mgpuStreamWaitEvent(void *stream, void *event);
void *mgpuEventCreate(void);
void mgpuEventDestroy(void *event);
void mgpuEventSynchronize(void *event);
void mgpuEventRecord(void *event, void *stream);
void mgpuSetDefaultDevice(int32_t device);

/* Modules: a cubin/fatbin (mgpuModuleLoad) or null-terminated PTX
 * (mgpuModuleLoadJIT; the only kind the emulator runs). */
void *mgpuModuleLoad(void *data, size_t gpuBlobSize);
void *mgpuModuleLoadJIT(void *data, int optLevel);
void mgpuModuleUnload(void *module);
void *mgpuModuleGetFunction(void *module, const char *name);
void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t smem, void *stream,
                      void **params, void **extra, size_t paramsCount);
void mgpuLaunchClusterKernel(void *function, intptr_t clusterX,
                             intptr_t clusterY, intptr_t clusterZ,
                             intptr_t gridX, intptr_t gridY, intptr_t gridZ,
                             intptr_t blockX, intptr_t blockY,
                             intptr_t blockZ, int32_t smem, void *stream,
                             void **params, void **extra);

/* A tensor map over a ranked memref descriptor ({allocated, aligned,
 * offset, sizes[rank], strides[rank]}), box dims outermost first, in
 * device memory; the same map asked for twice is the same pointer (one
 * allocation per distinct map, freed at exit). */
void *mgpuTensorMapEncodeTiledMemref(int64_t tensorRank,
                                     void *rankedDescriptor,
                                     int64_t tensorDataType,
                                     int64_t interleave, int64_t swizzle,
                                     int64_t l2Promotion, int64_t oobFill,
                                     int64_t *inputBoxDims);

/* The same for the element types upstream's encoder maps to the wrong
 * CUDA type (i8, which it encodes as bf16): nvfp4-lower-host calls it with
 * the data type explicit. */
void *nvfp4TensorMapEncodeTiledMemref(int64_t tensorRank,
                                      void *rankedDescriptor,
                                      int64_t tensorDataType,
                                      int64_t interleave, int64_t swizzle,
                                      int64_t l2Promotion, int64_t oobFill,
                                      int64_t *inputBoxDims);

#ifdef __cplusplus
}
#endif

#endif /* NVFP4_RUNTIME_HOSTRUNTIME_H */
