#!/usr/bin/env python3
"""The SM's own rates, per clock, on the GPU this runs on (sm_90a): the
tensor cores' bf16 wgmma rate by N (64 / 128 / 256) with A from shared
memory (SS) or registers (RS) and one to three issuing warpgroups, the
SFU's ex2.approx rate, and both at once in one CTA. These are the
ceilings of docs/Hopper.md "The D 64 ceiling: the SM's own rates": a D 64 prefill
does as many exponentials as tensor-core clocks at the data sheet's
rates, so whether 70% of the matrix rate is in reach depends on what the
two pipes give together, which no data sheet says.

Usage (on the GPU machine): python3 bench/hopper/rates.py [OUTDIR]
Writes OUTDIR/rates.cu, builds it with nvcc (sm_90a) and prints a table:
per configuration the rate in flops or ex2 a clock an SM (from each
warpgroup's clock64 span, averaged over the CTAs), the SM clock (clock64
against %globaltimer) and TFLOP/s by CUDA events. The data sheet's
peaks: 4096 bf16 flops and 16 ex2 a clock an SM.
"""

import os
import subprocess
import sys

OUT = sys.argv[1] if len(sys.argv) > 1 else "/tmp/nvfp4-rates"


def wgmma_fn(n, rs):
    acc = n // 2
    regs = ",".join("%%%d" % i for i in range(acc))
    cons = ", ".join('"+f"(d[%d])' % i for i in range(acc))
    shape = "m64n%dk16.f32.bf16.bf16" % n
    if rs:
        a = "{%%%d,%%%d,%%%d,%%%d}" % (acc, acc + 1, acc + 2, acc + 3)
        ins = ('"r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db)')
        b = "%%%d" % (acc + 4)
        tail = "p, 1, 1, 1"
    else:
        a = "%%%d" % acc
        ins = '"l"(da), "l"(db)'
        b = "%%%d" % (acc + 1)
        tail = "p, 1, 1, 0, 1"
    return """
__device__ __forceinline__ void mma_%s_%d(float (&d)[%d], const uint32_t (&a)[4],
                                         uint64_t da, uint64_t db) {
  asm volatile("{\\n.reg .pred p;\\nsetp.ne.b32 p, 1, 0;\\n"
               "wgmma.mma_async.sync.aligned.%s {%s}, %s, %s, %s;\\n}\\n"
               : %s
               : %s);
}
""" % ("rs" if rs else "ss", n, acc, shape, regs, a, b, tail, cons, ins)


HEAD = r"""
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <string>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
  printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__); \
  exit(1); } } while (0)

__device__ __forceinline__ uint64_t desc(uint32_t s) {
  // K-major, 128-byte swizzle, 8-row groups 1024 bytes apart.
  return (uint64_t)((s & 0x3FFFF) >> 4) | ((uint64_t)1 << 16) |
         ((uint64_t)(1024 >> 4) << 32) | ((uint64_t)1 << 62);
}
__device__ __forceinline__ uint64_t now_ns() {
  uint64_t t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t;
}
__device__ __forceinline__ float ex2(float x) {
  float y; asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x)); return y;
}
"""

KERNEL = r"""
// WM warpgroups issue wgmma (N, RS or SS) in groups of 8 (one commit,
// then a wait), WE warpgroups run ex2 over 8 independent chains.
template <int N, bool RS, int WM, int WE>
__global__ void __launch_bounds__(128 * (WM + WE), 1)
rates(int mmaIters, int expIters, float *sink, unsigned long long *spans) {
  extern __shared__ __align__(1024) unsigned char smem[];
  uint32_t *w = reinterpret_cast<uint32_t *>(smem);
  // Small random bf16 pairs (a real kernel's power, not zeros).
  for (int i = threadIdx.x; i < 65536 / 4; i += blockDim.x) {
    uint32_t h = (i * 2654435761u) ^ (blockIdx.x * 40503u);
    uint32_t lo = 0x3c00u | (h & 0x7f), hi = 0xbc00u | ((h >> 8) & 0x7f);
    w[i] = lo | (hi << 16);
  }
  asm volatile("fence.proxy.async.shared::cta;");
  __syncthreads();
  const int wg = threadIdx.x / 128;
  uint32_t base = (uint32_t)__cvta_generic_to_shared(smem);
  uint64_t t0 = clock64(), g0 = now_ns();
  float out = 0.f;
  if (wg < WM) {
    float d[N / 2];
    for (int i = 0; i < N / 2; ++i) d[i] = 0.f;
    uint32_t a[4];
    for (int i = 0; i < 4; ++i) a[i] = 0x3c003c00u ^ (threadIdx.x * 0x00010001u & 0x003f003fu);
    uint64_t da = desc(base), db = desc(base + 32768);
    for (int it = 0; it < mmaIters; ++it) {
      asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
      for (int k = 0; k < 8; ++k)
        mma<N, RS>(d, a, da + 2 * k, db + 2 * k);
      asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
      asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    }
    for (int i = 0; i < N / 2; ++i) out += d[i];
  } else {
    float x[8];
    for (int j = 0; j < 8; ++j) x[j] = -0.001f * (threadIdx.x + j);
    for (int it = 0; it < expIters; ++it) {
#pragma unroll
      for (int j = 0; j < 8; ++j) x[j] = ex2(fmaf(x[j], -0.5f, -0.25f));
    }
    for (int j = 0; j < 8; ++j) out += x[j];
  }
  uint64_t t1 = clock64(), g1 = now_ns();
  if (out == 12345.f) sink[threadIdx.x] = out;
  if (threadIdx.x % 128 == 0) {
    unsigned long long *s = spans + 2 * (blockIdx.x * (WM + WE) + wg);
    s[0] = t1 - t0; s[1] = g1 - g0;
  }
}
"""

MAIN = r"""
template <int N, bool RS, int WM, int WE>
void run(const char *name, int sms, int mmaIters, int expIters) {
  auto k = rates<N, RS, WM, WE>;
  int threads = 128 * (WM + WE), smemBytes = 65536 + 1024;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smemBytes));
  float *sink; unsigned long long *spans;
  int nw = sms * (WM + WE);
  CK(cudaMalloc(&sink, 4096 * sizeof(float)));
  CK(cudaMalloc(&spans, 2 * nw * sizeof(unsigned long long)));
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  for (int w = 0; w < 2; ++w) k<<<sms, threads, smemBytes>>>(mmaIters, expIters, sink, spans);
  CK(cudaDeviceSynchronize());
  std::vector<float> ms;
  std::vector<unsigned long long> h(2 * nw);
  double mmaRate = 0, expRate = 0, mhz = 0;
  for (int r = 0; r < 5; ++r) {
    CK(cudaEventRecord(e0));
    k<<<sms, threads, smemBytes>>>(mmaIters, expIters, sink, spans);
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    float t; CK(cudaEventElapsedTime(&t, e0, e1)); ms.push_back(t);
  }
  CK(cudaMemcpy(h.data(), spans, h.size() * 8, cudaMemcpyDeviceToHost));
  // Per-clock rates from each warpgroup's own span (last launch).
  double mc = 0, ec = 0, clk = 0, ns = 0; int nm = 0, ne = 0;
  for (int b = 0; b < sms; ++b)
    for (int g = 0; g < WM + WE; ++g) {
      unsigned long long *s = &h[2 * (b * (WM + WE) + g)];
      clk += s[0]; ns += s[1];
      if (g < WM) { mc += s[0]; ++nm; } else { ec += s[0]; ++ne; }
    }
  mhz = clk / ns * 1000.0;
  if (nm) mmaRate = WM * (double)mmaIters * 8 * 2 * 64 * N * 16 / (mc / nm);
  if (ne) expRate = WE * (double)expIters * 8 * 128 / (ec / ne);
  std::sort(ms.begin(), ms.end());
  double flops = (double)sms * WM * mmaIters * 8 * 2 * 64 * N * 16;
  printf("| %-28s | %s | %s | %s | %.0f | %s |\n", name,
         nm ? (std::to_string((int)(mmaRate + 0.5)) + " (" + std::to_string((int)(100 * mmaRate / 4096 + 0.5)) + "%)").c_str() : "-",
         ne ? (std::to_string(expRate).substr(0, 5) + " (" + std::to_string((int)(100 * expRate / 16 + 0.5)) + "%)").c_str() : "-",
         (std::to_string((long)(nm ? mc / nm / 1000 : 0)) + " / " + std::to_string((long)(ne ? ec / ne / 1000 : 0))).c_str(),
         mhz, nm ? std::to_string((int)(flops / (ms[2] * 1e-3) / 1e12 + 0.5)).c_str() : "-");
  CK(cudaFree(sink)); CK(cudaFree(spans));
}

__global__ void clustered(int *x) {
  extern __shared__ int s[];
  if (x) x[blockIdx.x] = s[threadIdx.x];
}

// How many clusters of each size run at once with one CTA an SM (the
// cluster merge's question: are 32 clusters of 4 one wave?).
void clusters(int sms) {
  int smemBytes = 200 * 1024;
  CK(cudaFuncSetAttribute(clustered, cudaFuncAttributeMaxDynamicSharedMemorySize, smemBytes));
  CK(cudaFuncSetAttribute(clustered, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  printf("clusters at once (one CTA of 384 threads and 200 KiB an SM):");
  for (int c : {1, 2, 3, 4, 6, 8, 16}) {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(c * 64); cfg.blockDim = dim3(384);
    cfg.dynamicSmemBytes = smemBytes;
    cudaLaunchAttribute a; a.id = cudaLaunchAttributeClusterDimension;
    a.val.clusterDim.x = c; a.val.clusterDim.y = 1; a.val.clusterDim.z = 1;
    cfg.attrs = &a; cfg.numAttrs = 1;
    int n = -1;
    cudaError_t e = cudaOccupancyMaxActiveClusters(&n, clustered, &cfg);
    if (e != cudaSuccess) { cudaGetLastError(); printf(" %d: (%s)", c, cudaGetErrorString(e)); }
    else printf(" %d: %d (%d SMs)", c, n, n * c);
  }
  printf("\n\n");
}

int main() {
  cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
  int sms = p.multiProcessorCount;
  printf("%s, %d SMs\n\n", p.name, sms);
  clusters(sms);
  printf("| configuration | wgmma flops / clk / SM (of 4096) | ex2 / clk / SM (of 16) | spans, kilo-clocks (wgmma / ex2) | SM MHz | TFLOP/s (events) |\n");
  printf("|---|---|---|---|---|---|\n");
  const int M = 4000, E = 20000;
RUNS
  return 0;
}
"""

CONFIGS = []
for n in (64, 128, 256):
    for rs in (False, True):
        for wm in (1, 2, 3):
            # RS N 256 with three warpgroups: ptxas serializes (C7512).
            if not (n == 256 and rs and wm == 3):
                CONFIGS.append((n, rs, wm, 0))
for we in (1, 2, 4):
    CONFIGS.append((64, True, 0, we))
# Both at once: a D 64 prefill's two GEMMs (S: SS N 128, P V: RS N 64, or
# SS N 64 with P through shared memory) beside one or two warpgroups of
# exponentials.
for n, rs in ((64, True), (64, False), (128, False)):
    for wm, we in ((2, 1), (2, 2), (1, 1)):
        CONFIGS.append((n, rs, wm, we))


DISPATCH = r"""
// The wgmma of shape N with A from registers (RS) or shared memory.
template <int N, bool RS>
__device__ __forceinline__ void mma(float (&d)[N / 2], const uint32_t (&a)[4],
                                    uint64_t da, uint64_t db) {
  if constexpr (N == 64) { if constexpr (RS) mma_rs_64(d, a, da, db); else mma_ss_64(d, a, da, db); }
  else if constexpr (N == 128) { if constexpr (RS) mma_rs_128(d, a, da, db); else mma_ss_128(d, a, da, db); }
  else { if constexpr (RS) mma_rs_256(d, a, da, db); else mma_ss_256(d, a, da, db); }
}
"""


def main():
    os.makedirs(OUT, exist_ok=True)
    src = HEAD
    for n in (64, 128, 256):
        for rs in (False, True):
            src += wgmma_fn(n, rs)
    runs = []
    for n, rs, wm, we in CONFIGS:
        label = ("%s N %d x %d wg" % ("RS" if rs else "SS", n, wm)) if wm else ""
        if we:
            label += (" + " if label else "") + "ex2 x %d wg" % we
        runs.append('  run<%d, %s, %d, %d>("%s", sms, M, E);' %
                    (n, "true" if rs else "false", wm, we, label))
    src += DISPATCH + KERNEL + MAIN.replace("RUNS", "\n".join(runs))
    path = os.path.join(OUT, "rates.cu")
    with open(path, "w") as f:
        f.write(src)
    exe = os.path.join(OUT, "rates")
    nvcc = os.environ.get("NVCC", "/usr/local/cuda/bin/nvcc")
    subprocess.check_call([nvcc, "-O3", "-std=c++17",
                           "-gencode=arch=compute_90a,code=sm_90a",
                           "-o", exe, path])
    if os.environ.get("RATES_BUILD_ONLY"):
        return
    subprocess.check_call([exe])


if __name__ == "__main__":
    main()
