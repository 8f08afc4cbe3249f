// One TMA tiled 2-D load (cp.async.bulk.tensor completing on an mbarrier)
// into shared memory, copied back out byte for byte, so that a checker can
// compare the shared-memory image with the swizzle formula. Used by
// scripts/device/validate_cuda_backend.sh on a Hopper GPU (and, later, to
// ground the emulator's TMA in hardware).
//
// tma_sm90a.ptx is generated from this file with CUDA 13.0:
//   nvcc -gencode=arch=compute_90a,code=compute_90a -ptx tma.cu \
//        -o tma_sm90a.ptx
//
// Parameters: the tensor map (by value: a `const __grid_constant__
// CUtensorMap`; tma_load_2d_ptr: a pointer to a copy in global memory), the
// output buffer (kTileBytes + 16 bytes), the box's coordinates (innermost
// first, in elements, may be negative or out of bounds) and the box's bytes
// (the transaction count the mbarrier expects). out[0 .. bytes) receives the
// shared-memory tile; the u32 at out + kTileBytes the tile's shared-memory
// address (the swizzle pattern repeats every 1024 bytes of address).

#include <cuda.h>

#include <cstdint>

namespace {

constexpr uint32_t kTileBytes = 8192;

__device__ uint32_t smemAddress(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ void loadTile(const void *tensorMap, uint8_t *out, int c0, int c1,
                         uint32_t bytes) {
  __shared__ alignas(1024) uint8_t tile[kTileBytes];
  __shared__ alignas(8) uint64_t barrier;
  uint32_t bar = smemAddress(&barrier);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile(
        "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar),
        "r"(bytes)
        : "memory");
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile"
                 ".mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::
                     "r"(smemAddress(tile)),
                 "l"(tensorMap), "r"(c0), "r"(c1), "r"(bar)
                 : "memory");
  }
  uint32_t done = 0;
  while (!done)
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n"
                 "selp.u32 %0, 1, 0, p;\n"
                 "}"
                 : "=r"(done)
                 : "r"(bar)
                 : "memory");
  for (uint32_t i = threadIdx.x; i < bytes; i += blockDim.x)
    out[i] = tile[i];
  if (threadIdx.x == 0)
    *reinterpret_cast<uint32_t *>(out + kTileBytes) = smemAddress(tile);
}

} // namespace

extern "C" __global__ void tma_load_2d(const __grid_constant__ CUtensorMap map,
                                       uint8_t *out, int c0, int c1,
                                       uint32_t bytes) {
  loadTile(&map, out, c0, c1, bytes);
}

extern "C" __global__ void tma_load_2d_ptr(const CUtensorMap *map,
                                           uint8_t *out, int c0, int c1,
                                           uint32_t bytes) {
  // A tensor map in global memory is read through the tensormap proxy:
  // order it after the generic-proxy writes that put it there.
  asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" ::"l"(
                   map)
               : "memory");
  loadTile(map, out, c0, c1, bytes);
}
