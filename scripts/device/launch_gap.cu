// launch_gap.cu - the GPU-side gap between two kernels queued on one stream
// (docs/Hopper.md, "B = 1: where the time goes"). Kernel A (132 CTAs, like
// our persistent attention kernel) spins for a while and writes a few KiB
// a CTA; kernel B (64 CTAs of 128 threads, like the combine) reads them.
// Each records its first CTA start and last CTA end with %globaltimer. The
// pairs are queued behind a 2 ms kernel so that the host is never the
// bound; the gap is B's first start minus A's last end, median of 40 pairs.
// Variants: A's dynamic shared memory (0 or 214,016 bytes as ours), B
// launched with programmatic stream serialization (PDL: griddepcontrol.wait
// first) and A triggering its dependents at its start.
#include "cuda_check.cuh"
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>


struct Span {
  unsigned long long start, end, waited;
};

__device__ unsigned long long now() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void sleeper(unsigned long long ns) {
  unsigned long long t0 = now();
  while (now() - t0 < ns) {
  }
}

__global__ void kernelA(Span *spans, int it, unsigned long long ns,
                        float *partials, int trigger) {
  // The dynamic shared memory only occupies the SM (as ours does).
  __shared__ float smem[384];
  unsigned long long t0 = now();
  if (threadIdx.x == 0)
    atomicMin(&spans[it].start, t0);
  if (trigger)
    asm volatile("griddepcontrol.launch_dependents;");
  while (now() - t0 < ns) {
  }
  smem[threadIdx.x] = float(threadIdx.x);
  __syncthreads();
  for (int i = threadIdx.x; i < 1024; i += blockDim.x)
    partials[blockIdx.x * 1024 + i] = smem[i % blockDim.x] + float(it);
  __syncthreads();
  if (threadIdx.x == 0)
    atomicMax(&spans[it].end, now());
}

__global__ void kernelB(Span *spans, int it, const float *partials,
                        float *out, int pdl) {
  unsigned long long t0 = now();
  if (threadIdx.x == 0)
    atomicMin(&spans[it].start, t0);
  if (pdl)
    asm volatile("griddepcontrol.wait;" ::: "memory");
  if (threadIdx.x == 0)
    atomicMin(&spans[it].waited, now());
  float s = 0;
  for (int k = 0; k < 132; ++k)
    s += partials[k * 1024 + blockIdx.x * 16 + threadIdx.x % 16];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.x == 0)
    atomicMax(&spans[it].end, now());
}

int main() {
  const int pairs = 40;
  Span *dA, *dB;
  float *partials, *out;
  CHECK(cudaMalloc(&dA, pairs * sizeof(Span)));
  CHECK(cudaMalloc(&dB, pairs * sizeof(Span)));
  CHECK(cudaMalloc(&partials, 132 * 1024 * sizeof(float)));
  CHECK(cudaMalloc(&out, 64 * 128 * sizeof(float)));
  CHECK(cudaFuncSetAttribute(kernelA,
                             cudaFuncAttributeMaxDynamicSharedMemorySize,
                             214016));
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  struct Variant {
    const char *name;
    int smem, threads, pdl, trigger;
    unsigned long long ns;
  } variants[] = {
      {"A smem 0, 256 threads, 10 us", 0, 256, 0, 0, 10000},
      {"A smem 214016, 256 threads, 10 us", 214016, 256, 0, 0, 10000},
      {"A smem 214016, 384 threads, 10 us", 214016, 384, 0, 0, 10000},
      {"A smem 214016, 256 threads, 80 us", 214016, 256, 0, 0, 80000},
      {"PDL: B waits, A no trigger, smem 214016", 214016, 256, 1, 0, 10000},
      {"PDL: B waits, A triggers at start, smem 214016", 214016, 256, 1, 1,
       10000},
      {"PDL: B waits, A triggers at start, smem 0", 0, 256, 1, 1, 10000},
  };
  std::printf("| variant | gap A end -> B start | B start -> wait done | "
              "A | B |\n|---|---|---|---|---|\n");
  for (const Variant &v : variants) {
    std::vector<Span> init(pairs, Span{~0ull, 0, ~0ull});
    CHECK(cudaMemcpy(dA, init.data(), pairs * sizeof(Span),
                     cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dB, init.data(), pairs * sizeof(Span),
                     cudaMemcpyHostToDevice));
    sleeper<<<1, 32, 0, stream>>>(2000000);
    for (int it = 0; it < pairs; ++it) {
      kernelA<<<132, v.threads, v.smem, stream>>>(dA, it, v.ns, partials,
                                                  v.trigger);
      cudaLaunchConfig_t cfg = {};
      cfg.gridDim = dim3(64);
      cfg.blockDim = dim3(128);
      cfg.stream = stream;
      cudaLaunchAttribute attr[1];
      attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
      attr[0].val.programmaticStreamSerializationAllowed = 1;
      cfg.attrs = attr;
      cfg.numAttrs = v.pdl ? 1 : 0;
      CHECK(cudaLaunchKernelEx(&cfg, kernelB, dB, it, (const float *)partials,
                               out, v.pdl));
    }
    CHECK(cudaStreamSynchronize(stream));
    std::vector<Span> a(pairs), b(pairs);
    CHECK(cudaMemcpy(a.data(), dA, pairs * sizeof(Span),
                     cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(b.data(), dB, pairs * sizeof(Span),
                     cudaMemcpyDeviceToHost));
    std::vector<double> gap, wait, la, lb;
    for (int it = 2; it < pairs; ++it) {
      gap.push_back((double(b[it].start) - double(a[it].end)) / 1000);
      wait.push_back((double(b[it].waited) - double(b[it].start)) / 1000);
      la.push_back((double(a[it].end) - double(a[it].start)) / 1000);
      lb.push_back((double(b[it].end) - double(b[it].start)) / 1000);
    }
    auto med = [](std::vector<double> x) {
      std::sort(x.begin(), x.end());
      return x[x.size() / 2];
    };
    std::printf("| %s | %.2f us | %.2f us | %.2f us | %.2f us |\n", v.name,
                med(gap), med(wait), med(la), med(lb));
  }
  return 0;
}
