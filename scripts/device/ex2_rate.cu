// ex2_rate.cu - the SFU's exponential rate on sm_90a for the three forms a
// softmax could use: ex2.approx.ftz.f32 (one result an instruction) and the
// packed ex2.approx.f16x2 / ex2.approx.ftz.bf16x2 (two). If a packed form
// gave two results a lane a clock, D 64 prefill's SFU bound would halve
// (docs/Hopper.md, "Packed exponentials"). Each thread runs 8 independent
// chains x = 2^-x (a fixed point near 0.64: no overflow, no subnormals);
// each block times its loop with clock64, all blocks resident at once, so
// results / (clocks x SMs) is the rate a SM. Also an FFMA chain as the
// FP32 pipe's yardstick. Prints a markdown table.
#include "block_clocks.cuh"
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>


constexpr int kIters = 4096;
constexpr int kChains = 8;

template <int Form>
__device__ __forceinline__ unsigned step(unsigned x) {
  unsigned y;
  if constexpr (Form == 0) {
    asm volatile("{ .reg .f32 t; neg.f32 t, %1; ex2.approx.ftz.f32 %0, t; }"
                 : "=r"(y) : "r"(x));
  } else if constexpr (Form == 1) {
    asm volatile("{ .reg .b32 t; xor.b32 t, %1, 0x80008000; "
                 "ex2.approx.f16x2 %0, t; }"
                 : "=r"(y) : "r"(x));
  } else if constexpr (Form == 2) {
    asm volatile("{ .reg .b32 t; xor.b32 t, %1, 0x80008000; "
                 "ex2.approx.ftz.bf16x2 %0, t; }"
                 : "=r"(y) : "r"(x));
  } else {
    asm volatile("fma.rn.f32 %0, %1, 0f3F000000, 0f3E800000;"
                 : "=r"(y) : "r"(x));
  }
  return y;
}

template <int Form>
__global__ void rate(unsigned *out, long long *clocks, unsigned seed) {
  unsigned x[kChains];
  for (int c = 0; c < kChains; ++c)
    x[c] = Form == 0 || Form == 3 ? __float_as_uint(0.5f + 0.01f * c)
           : Form == 1            ? 0x38003800u + c
                                  : 0x3f003f00u + c;
  x[0] ^= seed; // opaque to the compiler; seed is 0
  __syncthreads();
  long long t0 = clock64();
#pragma unroll 4
  for (int i = 0; i < kIters; ++i)
#pragma unroll
    for (int c = 0; c < kChains; ++c)
      x[c] = step<Form>(x[c]);
  __syncthreads();
  long long t1 = clock64();
  unsigned acc = 0;
  for (int c = 0; c < kChains; ++c)
    acc ^= x[c];
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
  if (threadIdx.x == 0)
    clocks[blockIdx.x] = t1 - t0;
}

template <int Form>
void measure(const char *name, int resultsPerOp, int sms) {
  const int threads = 256, perSm = 4, blocks = sms * perSm;
  double mean = meanBlockClocks(rate<Form>, blocks, threads);
  double ops = double(perSm) * threads * kIters * kChains;
  std::printf("| %s | %.1f | %.1f |\n", name, ops / mean,
              ops * resultsPerOp / mean);
}

int main() {
  cudaDeviceProp prop;
  int sms = deviceSms(prop);
  std::printf("%s, %d SMs; 4 blocks of 256 threads a SM, 8 chains a "
              "thread\n\n",
              prop.name, sms);
  std::printf("| form | instructions / clock / SM | exponentials / clock / "
              "SM |\n|---|---|---|\n");
  measure<0>("ex2.approx.ftz.f32 (+ neg)", 1, sms);
  measure<1>("ex2.approx.f16x2 (+ xor)", 2, sms);
  measure<2>("ex2.approx.ftz.bf16x2 (+ xor)", 2, sms);
  measure<3>("fma.rn.f32 (yardstick)", 1, sms);
  return 0;
}
