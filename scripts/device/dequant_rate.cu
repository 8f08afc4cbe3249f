// dequant_rate.cu - how fast a warp turns e4m3 bytes with a UE8M0 scale
// into bf16 on sm_90a, for the sequences the sm_90a fp8 gather could use
// (docs/Hopper.md, "The fp8 gather: four warps"). Each loop iteration
// converts 16 bytes (what a gather lane holds) into 8 bf16x2 words and
// folds them into an accumulator:
//   0 f32 path (ours until now): cvt.rn.f16x2.e4m3x2, cvt.f32.f16,
//     mul.f32 by the scale, cvt.rn.bf16x2.f32;
//   1 bf16 multiply: cvt.rn.f16x2.e4m3x2, cvt.f32.f16, cvt.rn.bf16x2.f32,
//     mul.rn.bf16x2 by the scale (rounds twice for a non-power-of-2 scale);
//   2 integer: prmt each byte into the high byte of a half, the magnitude
//     shifted into bf16's exponent and mantissa (a bf16 2^-120 times the
//     e4m3 value, subnormals included), one mul.rn.bf16x2 by 2^(E - 7),
//     and the NaN test (magnitude 0x7f) the fallback needs;
//   3 half then integer: cvt.rn.f16x2.e4m3x2, the f16 bits shifted into
//     bf16's (2^-112 times the value), mul.rn.bf16x2, the NaN test.
// Two launches each: 4 blocks of 256 threads a SM (the pipes' rate) and one
// block of 64 threads a SM (two warps, as the gather runs). Prints a
// markdown table of e4m3 values converted a clock a SM.
#include "block_clocks.cuh"
#include <cuda_runtime.h>
#include <cstdio>

constexpr int kIters = 2048;

__device__ __forceinline__ unsigned prmt(unsigned a, unsigned sel) {
  unsigned d;
  asm("prmt.b32 %0, %1, 0, %2;" : "=r"(d) : "r"(a), "r"(sel));
  return d;
}

__device__ __forceinline__ unsigned mulbf2(unsigned a, unsigned b) {
  unsigned d;
  asm("mul.rn.bf16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
  return d;
}

__device__ __forceinline__ unsigned e4m3x2ToF16x2(unsigned short v) {
  unsigned d;
  asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(d) : "h"(v));
  return d;
}

__device__ __forceinline__ float f16ToF32(unsigned h, int hi) {
  float f;
  unsigned short s = hi ? h >> 16 : h & 0xffff;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(s));
  return f;
}

__device__ __forceinline__ unsigned packBf16(float lo, float hi) {
  unsigned d;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(d) : "f"(hi), "f"(lo));
  return d;
}

// One word (4 e4m3 values) into two bf16x2 words; returns their xor and
// ors a NaN flag into `nan`.
template <int Form>
__device__ __forceinline__ unsigned word(unsigned w, float scale,
                                         unsigned factor, unsigned &nan) {
  if constexpr (Form == 0 || Form == 1) {
    unsigned out = 0;
    for (int h = 0; h < 2; ++h) {
      unsigned f16 = e4m3x2ToF16x2((unsigned short)(w >> (16 * h)));
      float a = f16ToF32(f16, 0), b = f16ToF32(f16, 1);
      if constexpr (Form == 0)
        out ^= packBf16(a * scale, b * scale);
      else
        out ^= mulbf2(packBf16(a, b), factor);
    }
    return out;
  } else if constexpr (Form == 2) {
    unsigned out = 0;
    for (int h = 0; h < 2; ++h) {
      // bytes 2h, 2h + 1 into bits 15..8 and 31..24
      unsigned z = prmt(w, h ? 0x3424 : 0x1404);
      unsigned bits = (z & 0x80008000u) | ((z >> 4) & 0x07f007f0u);
      nan |= ((bits & 0x07f007f0u) + 0x00100010u) & 0x08000800u;
      out ^= mulbf2(bits, factor);
    }
    return out;
  } else {
    unsigned out = 0;
    for (int h = 0; h < 2; ++h) {
      unsigned f16 = e4m3x2ToF16x2((unsigned short)(w >> (16 * h)));
      unsigned bits = (f16 & 0x80008000u) | ((f16 >> 3) & 0x0fff0fffu);
      nan |= ((f16 & 0x7c007c00u) + 0x04000400u) & 0x80008000u;
      out ^= mulbf2(bits, factor);
    }
    return out;
  }
}

template <int Form>
__global__ void rate(unsigned *out, long long *clocks, unsigned seed) {
  unsigned w[4] = {0x3a2c1b04u ^ seed, 0x45362718u, 0x0c7e5d4bu, 0x99aabbccu};
  float scale = __uint_as_float((120u + seed) << 23);
  unsigned factor = 0x3c003c00u + seed; // bf16x2 2^-7
  unsigned acc = 0, nan = 0;
  __syncthreads();
  long long t0 = clock64();
#pragma unroll 2
  for (int i = 0; i < kIters; ++i) {
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      acc ^= word<Form>(w[k], scale, factor, nan);
      w[k] += 0x01010101u;
    }
  }
  __syncthreads();
  long long t1 = clock64();
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc ^ nan;
  if (threadIdx.x == 0)
    clocks[blockIdx.x] = t1 - t0;
}

template <int Form> double measure(int sms, int threads, int perSm) {
  double mean = meanBlockClocks(rate<Form>, sms * perSm, threads);
  return double(perSm) * threads * kIters * 16 / mean;
}

template <int Form> void row(const char *name, int sms) {
  std::printf("| %s | %.1f | %.1f |\n", name, measure<Form>(sms, 256, 4),
              measure<Form>(sms, 64, 1));
}

int main() {
  cudaDeviceProp prop;
  int sms = deviceSms(prop);
  std::printf("%s, %d SMs\n\n| sequence | values / clock / SM, 32 warps a "
              "SM | values / clock / SM, 2 warps a SM |\n|---|---|---|\n",
              prop.name, sms);
  row<0>("0 f32: cvt e4m3x2, cvt f32, mul.f32, cvt bf16x2", sms);
  row<1>("1 cvt e4m3x2, cvt f32, cvt bf16x2, mul.bf16x2", sms);
  row<2>("2 integer: prmt, shift, mask, mul.bf16x2, NaN test", sms);
  row<3>("3 cvt e4m3x2, shift, mask, mul.bf16x2, NaN test", sms);
  return 0;
}
