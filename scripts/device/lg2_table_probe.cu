// lg2_table_probe.cu - lg2.approx.ftz.f32 on this GPU over whole binades,
// written out in full so that a model can be fitted here (docs/Hopper.md,
// "lg2.approx"): the earlier probe (ex2_lg2_probe.cu) found the results
// within 1 ulp of RN except near x = 1, and that lg2(2^e m) is not
// RN(e + lg2(m)) of the f32 lg2(m), so the hardware adds e to a wider
// lg2(m). For every mantissa m of [1, 2) (x = 2^e (1 + m 2^-23)) and each
// e of the list, writes lg2_e<E>.bin: int32 per m, the result's bits
// minus the bits of the correctly rounded log2(x) (signed ordered ulps),
// which xz compresses to a few bits an entry. Prints the counts per e.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

#include "sfu_kernels.cuh"

static int64_t ord(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u & 0x80000000u ? -int64_t(u & 0x7fffffffu) : int64_t(u);
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : ".";
  const int n = 1 << 23;
  float *din, *dout;
  cudaMalloc(&din, n * 4);
  cudaMalloc(&dout, n * 4);
  std::vector<float> x(n), h(n);
  std::vector<int32_t> d(n);
  for (int e : {0, -1, 1, -2, 2, 3, -3, 20, -20, 100, -100, 126, -126}) {
    for (int m = 0; m < n; ++m)
      x[m] = std::ldexp(1.0f + std::ldexp(float(m), -23), e);
    cudaMemcpy(din, x.data(), n * 4, cudaMemcpyHostToDevice);
    lg2All<<<(n + 255) / 256, 256>>>(din, dout, n);
    cudaMemcpy(h.data(), dout, n * 4, cudaMemcpyDeviceToHost);
    if (cudaGetLastError() != cudaSuccess) {
      std::puts("CUDA error");
      return 1;
    }
    long long rn = 0, up = 0, down = 0, far = 0;
    int64_t worst = 0;
    for (int m = 0; m < n; ++m) {
      int64_t v = ord(h[m]) - ord(float(std::log2(double(x[m]))));
      d[m] = int32_t(v);
      rn += v == 0, up += v == 1, down += v == -1, far += v > 1 || v < -1;
      if (std::llabs(v) > std::llabs(worst)) worst = v;
    }
    std::printf("lg2, x = 2^%d (1 + m 2^-23): RN %lld, +1 %lld, -1 %lld, "
                "further %lld (worst %lld)\n",
                e, rn, up, down, far, (long long)worst);
    char path[512];
    std::snprintf(path, sizeof path, "%s/lg2_e%d.bin", dir, e);
    if (FILE *f = std::fopen(path, "wb")) {
      std::fwrite(d.data(), 4, n, f);
      std::fclose(f);
    }
  }
  return 0;
}
