// cvt_subnormal_probe.cu - f32 -> bf16x2 / f16x2 conversions and f32
// multiplies of subnormal and tiny inputs on this GPU (docs/Emulator.md,
// "lg2.approx as measured": the fp8 kernels' O is +0 on the GPU where the
// emulator gives -0). Prints, per input bits, the hardware's results:
//   cvt.rn.bf16x2.f32, cvt.rn.f16x2.f32, mul.rn.f32 x 1, mul.rn.ftz.f32 x 1.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

__global__ void conv(const uint32_t *in, uint32_t *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  uint32_t x = in[i], bf, hf, m, mf;
  asm volatile("cvt.rn.bf16x2.f32 %0, %1, %1;" : "=r"(bf) : "f"(__uint_as_float(x)));
  asm volatile("cvt.rn.f16x2.f32 %0, %1, %1;" : "=r"(hf) : "f"(__uint_as_float(x)));
  asm volatile("mul.rn.f32 %0, %1, 0f3F800000;" : "=r"(m) : "f"(__uint_as_float(x)));
  asm volatile("mul.rn.ftz.f32 %0, %1, 0f3F800000;" : "=r"(mf) : "f"(__uint_as_float(x)));
  out[4 * i] = bf & 0xffff;
  out[4 * i + 1] = hf & 0xffff;
  out[4 * i + 2] = m;
  out[4 * i + 3] = mf;
}

int main() {
  const uint32_t xs[] = {0x80000001u, 0x80000100u, 0x80004000u, 0x80007fffu,
                         0x80008000u, 0x80010000u, 0x807fffffu, 0x00000001u,
                         0x00008000u, 0x00010000u, 0x80800000u, 0x80000000u};
  const int n = sizeof xs / 4;
  uint32_t *din, *dout, h[4 * n];
  cudaMalloc(&din, sizeof xs);
  cudaMalloc(&dout, sizeof h);
  cudaMemcpy(din, xs, sizeof xs, cudaMemcpyHostToDevice);
  conv<<<1, 32>>>(din, dout, n);
  cudaMemcpy(h, dout, sizeof h, cudaMemcpyDeviceToHost);
  std::printf("x          bf16  f16   mul.rn     mul.rn.ftz\n");
  for (int i = 0; i < n; ++i)
    std::printf("%08x   %04x  %04x  %08x   %08x\n", xs[i], h[4 * i],
                h[4 * i + 1], h[4 * i + 2], h[4 * i + 3]);
  return cudaGetLastError() != cudaSuccess;
}
