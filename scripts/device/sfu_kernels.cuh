// sfu_kernels.cuh - one thread per input: out[i] = ex2.approx.ftz /
// lg2.approx.ftz of in[i] (the probes ex2_lg2_probe.cu and
// lg2_table_probe.cu; docs/Hopper.md, increment 3).
#pragma once

__global__ void ex2All(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float r;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(in[i]));
    out[i] = r;
  }
}

__global__ void lg2All(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float r;
    asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(in[i]));
    out[i] = r;
  }
}
