//===- wgmma_numerics.cu - how the H200's wgmma accumulates ---------------===//
//
// Runs every probe set of wgmma_numerics_gen.h on the GPU: CTA c computes
// D = C + sum_s A_s B_s^T with S chained wgmma.mma_async.m64n8kK (A and B
// from shared memory, K-major, no swizzle) and writes D[64][8] as f32 bits
// to OUTDIR/<set>.d.bin. The emulator's model of the accumulation is fitted
// to and checked against these files (docs/Emulator.md, "MMA accumulation").
//
//   nvcc -std=c++17 -O2 -arch=sm_90a wgmma_numerics.cu -o probe
//   ./probe OUTDIR [SCALE]      (SCALE multiplies the random sets' CTAs)
//
//===----------------------------------------------------------------------===//

#include "cuda_check.cuh"
#include "wgmma_numerics_gen.h"

#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

using namespace wgmma_numerics;

namespace {

constexpr unsigned kMaxSteps = 8;

__device__ uint32_t smemAddr(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// sm_90 matrix descriptor, no swizzle: start, LBO, SBO (each >> 4).
__device__ uint64_t descriptor(uint32_t start, uint32_t lbo, uint32_t sbo) {
  return uint64_t((start >> 4) & 0x3fff) | uint64_t((lbo >> 4) & 0x3fff) << 16 |
         uint64_t((sbo >> 4) & 0x3fff) << 32;
}

template <int F>
__device__ __forceinline__ void mma(float (&d)[4], uint64_t a, uint64_t b) {
#define NVFP4_PROBE_MMA(SHAPE_TYPES, TRANS)                                    \
  asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, 1, 0;\n"                   \
               " wgmma.mma_async.sync.aligned." SHAPE_TYPES                    \
               " {%0, %1, %2, %3}, %4, %5, p, 1, 1" TRANS ";\n}\n"             \
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])                \
               : "l"(a), "l"(b)                                                \
               : "memory")
  if constexpr (F == int(Format::BF16))
    NVFP4_PROBE_MMA("m64n8k16.f32.bf16.bf16", ", 0, 0");
  else if constexpr (F == int(Format::F16))
    NVFP4_PROBE_MMA("m64n8k16.f32.f16.f16", ", 0, 0");
  else if constexpr (F == int(Format::E4M3))
    NVFP4_PROBE_MMA("m64n8k32.f32.e4m3.e4m3", "");
  else
    NVFP4_PROBE_MMA("m64n8k32.f32.e5m2.e5m2", "");
#undef NVFP4_PROBE_MMA
}

// A: [cta][s][64][32 bytes], B: [cta][s][8][32 bytes], C and D: [cta][64][8].
template <int F>
__global__ void __launch_bounds__(128, 1)
probe(const uint8_t *A, const uint8_t *B, const float *C, float *D,
      unsigned steps) {
  __shared__ alignas(128) uint8_t sa[kMaxSteps * 2048];
  __shared__ alignas(128) uint8_t sb[kMaxSteps * 256];
  const unsigned cta = blockIdx.x, tid = threadIdx.x;
  const uint8_t *a = A + size_t(cta) * steps * 2048;
  const uint8_t *b = B + size_t(cta) * steps * 256;
  // Canonical K-major layout without swizzle: 8-row x 16-byte core
  // matrices, the next 16 bytes of K 128 bytes on (LBO), the next 8 rows
  // 256 bytes on (SBO).
  for (unsigned i = tid; i < steps * 2048; i += 128) {
    unsigned s = i / 2048, m = (i % 2048) / 32, kb = i % 32;
    sa[s * 2048 + (m % 8) * 16 + (m / 8) * 256 + kb % 16 + (kb / 16) * 128] = a[i];
  }
  for (unsigned i = tid; i < steps * 256; i += 128) {
    unsigned s = i / 256, n = (i % 256) / 32, kb = i % 32;
    sb[s * 256 + n * 16 + kb % 16 + (kb / 16) * 128] = b[i];
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  const unsigned w = tid / 32, g = (tid % 32) / 4, t = tid % 4;
  float d[4];
  for (int j = 0; j < 4; ++j)
    d[j] = C[(size_t(cta) * 64 + 16 * w + g + 8 * ((j >> 1) & 1)) * 8 + 2 * t + (j & 1)];
  for (unsigned s = 0; s < steps; ++s) {
    uint64_t da = descriptor(smemAddr(sa + s * 2048), 128, 256);
    uint64_t db = descriptor(smemAddr(sb + s * 256), 128, 256);
    for (int j = 0; j < 4; ++j)
      asm volatile("" : "+f"(d[j])::"memory");
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    mma<F>(d, da, db);
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    for (int j = 0; j < 4; ++j)
      asm volatile("" : "+f"(d[j])::"memory");
  }
  for (int j = 0; j < 4; ++j)
    D[(size_t(cta) * 64 + 16 * w + g + 8 * ((j >> 1) & 1)) * 8 + 2 * t + (j & 1)] = d[j];
}


std::vector<uint8_t> bytesOf(const std::vector<uint32_t> &v, unsigned e) {
  std::vector<uint8_t> out(v.size() * e);
  for (size_t i = 0; i < v.size(); ++i)
    for (unsigned j = 0; j < e; ++j)
      out[i * e + j] = uint8_t(v[i] >> (8 * j));
  return out;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s OUTDIR [SCALE]\n", argv[0]);
    return 2;
  }
  std::string outdir = argv[1];
  unsigned scale = argc > 2 ? unsigned(std::atoi(argv[2])) : 1;
  // WGMMA_TINY=1: the subnormal-range set instead (wgmma_numerics_gen.h).
  const bool tiny = std::getenv("WGMMA_TINY") != nullptr;
  for (const Set &st : tiny ? tinySets() : probeSets(scale)) {
    auto ha = bytesOf(st.a, elemBytes(st.format));
    auto hb = bytesOf(st.b, elemBytes(st.format));
    uint8_t *a, *b;
    float *c, *d;
    CHECK(cudaMalloc(&a, ha.size()));
    CHECK(cudaMalloc(&b, hb.size()));
    CHECK(cudaMalloc(&c, st.c.size() * 4));
    CHECK(cudaMalloc(&d, st.c.size() * 4));
    CHECK(cudaMemcpy(a, ha.data(), ha.size(), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(b, hb.data(), hb.size(), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(c, st.c.data(), st.c.size() * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d, 0xff, st.c.size() * 4));
    switch (st.format) {
    case Format::BF16: probe<int(Format::BF16)><<<st.ncta, 128>>>(a, b, c, d, st.steps); break;
    case Format::F16: probe<int(Format::F16)><<<st.ncta, 128>>>(a, b, c, d, st.steps); break;
    case Format::E4M3: probe<int(Format::E4M3)><<<st.ncta, 128>>>(a, b, c, d, st.steps); break;
    case Format::E5M2: probe<int(Format::E5M2)><<<st.ncta, 128>>>(a, b, c, d, st.steps); break;
    }
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<uint32_t> hd(st.c.size());
    CHECK(cudaMemcpy(hd.data(), d, hd.size() * 4, cudaMemcpyDeviceToHost));
    std::string path = outdir + "/" + st.name + ".d.bin";
    FILE *fp = std::fopen(path.c_str(), "wb");
    if (!fp || std::fwrite(hd.data(), 4, hd.size(), fp) != hd.size()) {
      std::fprintf(stderr, "cannot write %s\n", path.c_str());
      return 1;
    }
    std::fclose(fp);
    std::printf("%-14s %4u CTAs x %u steps -> %s\n", st.name.c_str(), st.ncta,
                st.steps, path.c_str());
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
    cudaFree(d);
  }
  return 0;
}
