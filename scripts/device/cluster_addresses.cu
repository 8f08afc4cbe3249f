// Probes, on a Hopper GPU with clusters, how shared-memory addresses look:
//  - cvta.to.shared of a __shared__ variable and of dynamic shared memory in
//    each CTA of a cluster of 2 (and 4);
//  - mapa.shared::cluster of that address for every target rank;
//  - %cluster_ctarank, %clusterid, %cluster_nctarank;
//  - whether ld.shared::cluster through the mapa address of the peer reads
//    the peer's value, and whether an address with bit 24 flipped does.
// And how NaN operands propagate through f32/bf16 arithmetic and
// conversions (the emulator canonicalises NaN results; this checks which
// payloads hardware keeps).
// The emulator's choices are documented in docs/Emulator.md.
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <cstdlib>
#include <cuda.h>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
  std::printf("%s failed: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)

__shared__ uint32_t probe2_var[4];
__global__ void __cluster_dims__(2, 1, 1) probe2(uint32_t *out, int mode) {
  uint32_t *var = probe2_var;
  extern __shared__ uint32_t dyn[];
  uint32_t rank, nrank, own, ownDyn;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(nrank));
  asm volatile("cvta.to.shared.u64 %0, %1;" : "=l"(*(uint64_t *)&out[64]) : "l"((uint64_t)var));
  own = (uint32_t)__cvta_generic_to_shared(var);
  ownDyn = (uint32_t)__cvta_generic_to_shared(dyn);
  var[0] = 1000 + rank;
  asm volatile("barrier.cluster.arrive.aligned; barrier.cluster.wait.aligned;");
  if (threadIdx.x == 0) {
    uint32_t *o = out + rank * 32;
    o[0] = rank;
    o[1] = nrank;
    o[2] = own;
    o[3] = ownDyn;
    for (uint32_t r = 0; r < nrank; ++r) {
      uint32_t m;
      asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(m) : "r"(own), "r"(r));
      o[4 + r] = m;
      uint32_t v;
      asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(m));
      o[8 + r] = v;
    }
    // Own address read as shared::cluster, and with bit 24 flipped.
    uint32_t v0, v1;
    asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v0) : "r"(own));
    o[12] = v0;
    asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v1) : "r"(own ^ (1u << 24)));
    o[13] = v1;
    uint32_t mdyn;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(mdyn) : "r"(ownDyn), "r"(rank ^ 1));
    o[14] = mdyn;
    // Generic mapa of a generic pointer.
    uint64_t g;
    asm volatile("mapa.u64 %0, %1, %2;" : "=l"(g) : "l"((uint64_t)var), "r"(rank ^ 1));
    o[16] = (uint32_t)g;
    o[17] = (uint32_t)(g >> 32);
    // mov of the symbol; cvta.shared of the rank-less offset; ld.shared
    // (shared::cta) with and without the rank bits (selected by `mode`,
    // one per process: a fault ends the context).
    uint32_t movv, lv = 0;
    uint64_t gen0;
    asm volatile("mov.u32 %0, probe2_var;" : "=r"(movv));
    o[20] = movv;
    asm volatile("cvta.shared.u64 %0, %1;" : "=l"(gen0) : "l"((uint64_t)(own & 0xffffff)));
    o[21] = (uint32_t)gen0;
    o[22] = (uint32_t)(gen0 >> 32);
    if (mode == 1)
      asm volatile("ld.shared.u32 %0, [%1];" : "=r"(lv) : "r"(own & 0xffffff));
    if (mode == 2)
      asm volatile("ld.shared.u32 %0, [%1];" : "=r"(lv) : "r"(own));
    if (mode == 3)
      asm volatile("ld.shared.u32 %0, [%1];" : "=r"(lv) : "r"(own ^ (1u << 24)));
    if (mode == 4)
      lv = *(volatile uint32_t *)gen0;
    o[23] = lv;
    o[18] = (uint32_t)((uint64_t)var);
    o[19] = (uint32_t)((uint64_t)var >> 32);
  }
  asm volatile("barrier.cluster.arrive.aligned; barrier.cluster.wait.aligned;");
}

__global__ void __cluster_dims__(4, 1, 1) probe4(uint32_t *out) {
  __shared__ uint32_t var[4];
  uint32_t rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  uint32_t own = (uint32_t)__cvta_generic_to_shared(var);
  if (threadIdx.x == 0) {
    uint32_t *o = out + rank * 8;
    o[0] = rank;
    o[1] = own;
    for (uint32_t r = 0; r < 4; ++r) {
      uint32_t m;
      asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(m) : "r"(own), "r"(r));
      o[2 + r] = m;
    }
  }
  asm volatile("barrier.cluster.arrive.aligned; barrier.cluster.wait.aligned;");
}

// NaN behaviour: out[i] for a fixed list of operations on NaN inputs with
// payloads.
__global__ void nanprobe(const uint32_t *in, uint32_t *out) {
  float a = __uint_as_float(in[0]); // 0x7fa00001 (signalling, payload)
  float b = __uint_as_float(in[1]); // 0xffc12345 (quiet, negative, payload)
  float one = __uint_as_float(in[2]);
  uint32_t r;
  int i = 0;
#define F32OP(expr) { float x; asm volatile(expr : "=f"(x) : "f"(a), "f"(one)); out[i++] = __float_as_uint(x); \
                      asm volatile(expr : "=f"(x) : "f"(b), "f"(one)); out[i++] = __float_as_uint(x); }
  F32OP("add.rn.f32 %0, %1, %2;");
  F32OP("mul.rn.f32 %0, %1, %2;");
  F32OP("fma.rn.f32 %0, %1, %2, %2;");
  F32OP("min.f32 %0, %1, %2;");
  F32OP("max.f32 %0, %1, %2;");
  F32OP("min.NaN.f32 %0, %1, %2;");
  F32OP("abs.f32 %0, %1;");
  F32OP("neg.f32 %0, %1;");
  F32OP("mov.f32 %0, %1;");
  F32OP("ex2.approx.f32 %0, %1;");
  F32OP("rcp.approx.f32 %0, %1;");
  F32OP("sqrt.rn.f32 %0, %1;");
  F32OP("add.rn.ftz.f32 %0, %1, %2;");
  F32OP("div.rn.f32 %0, %1, %2;");
  // conversions
  { uint16_t h; asm volatile("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(a)); out[i++] = h;
    asm volatile("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(b)); out[i++] = h; }
  { uint16_t h; asm volatile("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(a)); out[i++] = h;
    asm volatile("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(b)); out[i++] = h; }
  { uint32_t p; asm volatile("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(p) : "f"(a), "f"(b)); out[i++] = p; }
  { double d; asm volatile("cvt.f64.f32 %0, %1;" : "=d"(d) : "f"(a)); uint64_t u; memcpy(&u, &d, 8);
    out[i++] = (uint32_t)u; out[i++] = (uint32_t)(u >> 32); }
  { uint16_t h = 0x7f81; float f; asm volatile("cvt.f32.bf16 %0, %1;" : "=f"(f) : "h"(h)); out[i++] = __float_as_uint(f); }
  { uint16_t h = 0xffc3; float f; asm volatile("cvt.f32.bf16 %0, %1;" : "=f"(f) : "h"(h)); out[i++] = __float_as_uint(f); }
  { uint16_t h; asm volatile("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(h) : "f"(a), "f"(one)); out[i++] = h; }
  { uint16_t h; asm volatile("cvt.rn.satfinite.e5m2x2.f32 %0, %1, %2;" : "=h"(h) : "f"(a), "f"(one)); out[i++] = h; }
  { uint16_t x = 0x7fc1, y = 0x3f80; uint16_t z;
    asm volatile("add.rn.bf16 %0, %1, %2;" : "=h"(z) : "h"(x), "h"(y)); out[i++] = z; }
  { uint16_t x = 0x7e01, y = 0x3c00; uint16_t z;
    asm volatile("add.rn.f16 %0, %1, %2;" : "=h"(z) : "h"(x), "h"(y)); out[i++] = z; }
  out[63] = i;
  (void)r;
}

int main(int argc, char **argv) {
  int mode = argc > 1 ? atoi(argv[1]) : 0;
  uint32_t *d;
  CK(cudaMalloc(&d, 4096));
  CK(cudaMemset(d, 0xff, 4096));
  CK(cudaFuncSetAttribute(probe2, cudaFuncAttributeMaxDynamicSharedMemorySize, 1024));
  probe2<<<2, 32, 1024>>>(d, mode);
  std::printf("mode %d (0 none, 1 ld.shared [offset], 2 ld.shared [own cvta], 3 ld.shared [own ^ bit24], 4 generic cvta.shared(offset))\n", mode);
  CK(cudaDeviceSynchronize());
  uint32_t h[256];
  CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  const char *names[] = {"rank", "nctarank", "cvta.to.shared(var)", "cvta.to.shared(dyn)",
                         "mapa(var,0)", "mapa(var,1)", "-", "-", "ld.cluster(mapa 0)",
                         "ld.cluster(mapa 1)", "-", "-", "ld.cluster(own)", "ld.cluster(own^bit24)",
                         "mapa(dyn,peer)", "-", "mapa.u64 lo", "mapa.u64 hi", "generic var lo",
                         "generic var hi", "mov.u32 symbol", "cvta.shared(off) lo",
                         "cvta.shared(off) hi", "mode load"};
  for (int c = 0; c < 2; ++c)
    for (int k = 0; k < 24; ++k)
      if (names[k][0] != '-')
        std::printf("cluster2 cta%d %-24s 0x%08x\n", c, names[k], h[c * 32 + k]);
  CK(cudaMemset(d, 0xff, 4096));
  probe4<<<4, 32>>>(d);
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  for (int c = 0; c < 4; ++c)
    std::printf("cluster4 cta%u own 0x%08x mapa 0x%08x 0x%08x 0x%08x 0x%08x\n", h[c * 8],
                h[c * 8 + 1], h[c * 8 + 2], h[c * 8 + 3], h[c * 8 + 4], h[c * 8 + 5]);
  uint32_t in[3] = {0x7fa00001u, 0xffc12345u, 0x3f800000u};
  uint32_t *din;
  CK(cudaMalloc(&din, 16));
  CK(cudaMemcpy(din, in, 12, cudaMemcpyHostToDevice));
  CK(cudaMemset(d, 0, 4096));
  nanprobe<<<1, 1>>>(din, d);
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  const char *ops[] = {"add", "mul", "fma", "min", "max", "min.NaN", "abs", "neg", "mov",
                       "ex2.approx", "rcp.approx", "sqrt.rn", "add.ftz", "div.rn"};
  int i = 0;
  for (const char *op : ops) {
    std::printf("nan %-12s a=0x7fa00001 -> 0x%08x   b=0xffc12345 -> 0x%08x\n", op, h[i], h[i + 1]);
    i += 2;
  }
  std::printf("nan cvt.rn.bf16.f32 a -> 0x%04x b -> 0x%04x\n", h[i], h[i + 1]); i += 2;
  std::printf("nan cvt.rn.f16.f32 a -> 0x%04x b -> 0x%04x\n", h[i], h[i + 1]); i += 2;
  std::printf("nan cvt.rn.bf16x2.f32 (a,b) -> 0x%08x\n", h[i]); i += 1;
  std::printf("nan cvt.f64.f32 a -> 0x%08x%08x\n", h[i + 1], h[i]); i += 2;
  std::printf("nan cvt.f32.bf16 0x7f81 -> 0x%08x\n", h[i]); i += 1;
  std::printf("nan cvt.f32.bf16 0xffc3 -> 0x%08x\n", h[i]); i += 1;
  std::printf("nan cvt.rn.satfinite.e4m3x2.f32 (a,1) -> 0x%04x\n", h[i]); i += 1;
  std::printf("nan cvt.rn.satfinite.e5m2x2.f32 (a,1) -> 0x%04x\n", h[i]); i += 1;
  std::printf("nan add.rn.bf16 0x7fc1+1 -> 0x%04x\n", h[i]); i += 1;
  std::printf("nan add.rn.f16 0x7e01+1 -> 0x%04x\n", h[i]); i += 1;
  std::printf("count %u (expect %d)\n", h[63], i);
  return 0;
}
