// Compiled to the checked-in PTX with (from this directory):
//   /usr/local/cuda/bin/nvcc -arch=sm_90a -ptx -O3 vecadd_reduce.cu -o vecadd_reduce.ptx
//
// Inputs for the emulator's end-to-end test (unittests/Emulator/EndToEndTest.cpp):
//  - vecAdd: c[i] = a[i] + b[i] over a grid-stride loop;
//  - dotReduce: each warp reduces a[i]*b[i] with shfl.sync.down, warp leaders
//    combine through shared memory after __syncthreads, and thread 0 of each
//    block adds its partial sum into *out with atomicAdd;
//  - scaleBf16: converts a[i]*s to bf16 (round to nearest even) and back.

#include <cuda_bf16.h>

extern "C" __global__ void vecAdd(const float *a, const float *b, float *c,
                                  int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * blockDim.x)
    c[i] = a[i] + b[i];
}

extern "C" __global__ void dotReduce(const float *a, const float *b,
                                     float *out, int n) {
  __shared__ float partial[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? a[i] * b[i] : 0.0f;
  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_down_sync(0xffffffffu, v, offset);
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0)
    partial[warp] = v;
  __syncthreads();
  if (warp == 0) {
    int numWarps = (blockDim.x + 31) / 32;
    v = lane < numWarps ? partial[lane] : 0.0f;
    for (int offset = 16; offset > 0; offset /= 2)
      v += __shfl_xor_sync(0xffffffffu, v, offset);
    if (lane == 0)
      atomicAdd(out, v);
  }
}

extern "C" __global__ void scaleBf16(const float *a, float s,
                                     __nv_bfloat16 *packed, float *back,
                                     int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    __nv_bfloat16 h = __float2bfloat16_rn(a[i] * s);
    packed[i] = h;
    back[i] = __bfloat162float(h);
  }
}
