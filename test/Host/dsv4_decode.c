/*===- dsv4_decode.c - Host-lowered DeepSeek-V4 decode, called from C -----===*
 *
 * The worked example of docs/Host.md, in C: examples/dsv4_decode.mlir
 * lowered whole (nvfp4-opt --nvfp4-to-llvm, mlir-translate, llc) and linked
 * with libnvfp4_host_runtime. Fresh random inputs go to device memory with
 * mgpuMemAlloc / mgpuMemcpy, `_mlir_ciface_dsv4_decode` is called once, its
 * two results come back (and are freed: the caller owns them), and the C
 * API checks them against the float64 reference of the same function
 * (nvfp4_compile_file + nvfp4_check_outputs). test/Host/dsv4-decode.test
 * builds and runs it; NVFP4_BACKEND picks the device.
 *
 *   dsv4_decode EXAMPLE.mlir [SEED]
 *===----------------------------------------------------------------------===*/

#include "nvfp4-c/nvfp4.h"
#include "nvfp4/Runtime/HostRuntime.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { B = 4, HQ = 128, SKV = 4096, D = 512 };

/* Memref descriptors as the C interface passes them. */
typedef struct { void *allocated, *aligned; int64_t offset, sizes[4], strides[4]; } MemRef4;
typedef struct { void *allocated, *aligned; int64_t offset, sizes[3], strides[3]; } MemRef3;
typedef struct { void *allocated, *aligned; int64_t offset, sizes[1], strides[1]; } MemRef1;
typedef struct { MemRef4 o; MemRef3 lse; } Results;

void _mlir_ciface_dsv4_decode(Results *, MemRef4 *, MemRef4 *, MemRef1 *,
                              MemRef1 *);

static uint64_t state;
static double uniform(void) { /* [-1, 1), full mantissa */
  state = state * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(state >> 11) / 4503599627370496.0 - 1.0;
}
static uint16_t bf16(double x) { /* round to nearest even */
  float f = (float)x;
  uint32_t u;
  memcpy(&u, &f, 4);
  return (uint16_t)((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}

static void *upload(const void *src, size_t bytes) {
  void *p = mgpuMemAlloc(bytes, NULL, 0);
  if (p)
    mgpuMemcpy(p, (void *)src, bytes, NULL);
  return p;
}

static void describe4(MemRef4 *m, void *p, const int64_t *shape) {
  m->allocated = m->aligned = p;
  m->offset = 0;
  int64_t stride = 1;
  for (int i = 3; i >= 0; --i) {
    m->sizes[i] = shape[i];
    m->strides[i] = stride;
    stride *= shape[i];
  }
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: dsv4_decode EXAMPLE.mlir [SEED]\n");
    return 2;
  }
  state = 0x9e3779b97f4a7c15ull ^ (argc > 2 ? strtoull(argv[2], NULL, 10) : 1);
  size_t nq = (size_t)B * HQ * D, nkv = (size_t)B * SKV * D;
  uint16_t *q = malloc(2 * nq), *kv = malloc(2 * nkv), *o = malloc(2 * nq);
  float sink[HQ], *lse = malloc(4 * B * HQ);
  int32_t lens[B] = {SKV, 2049, 1, 777}; /* full, several tiles, one key */
  for (size_t i = 0; i < nq; ++i)
    q[i] = bf16(uniform());
  for (size_t i = 0; i < nkv; ++i)
    kv[i] = bf16(uniform());
  for (int h = 0; h < HQ; ++h)
    sink[h] = (float)uniform();

  int64_t sq[4] = {B, 1, HQ, D}, skv[4] = {B, SKV, 1, D};
  MemRef4 dq, dkv;
  describe4(&dq, upload(q, 2 * nq), sq);
  describe4(&dkv, upload(kv, 2 * nkv), skv);
  MemRef1 dsink = {0}, dlens = {0};
  dsink.allocated = dsink.aligned = upload(sink, sizeof sink);
  dsink.sizes[0] = HQ;
  dsink.strides[0] = 1;
  dlens.allocated = dlens.aligned = upload(lens, sizeof lens);
  dlens.sizes[0] = B;
  dlens.strides[0] = 1;
  Results r;
  memset(&r, 0, sizeof r);
  if (!nvfp4HostError())
    _mlir_ciface_dsv4_decode(&r, &dq, &dkv, &dsink, &dlens);
  if (nvfp4HostError()) {
    printf("FAIL the host runtime: %s\n", nvfp4HostError());
    return 1;
  }
  printf("backend %s\n", nvfp4HostBackend());
  mgpuMemcpy(o, r.o.aligned, 2 * nq, NULL);
  mgpuMemcpy(lse, r.lse.aligned, 4 * B * HQ, NULL);
  mgpuMemFree(r.o.allocated, NULL);
  mgpuMemFree(r.lse.allocated, NULL);

  /* The float64 check: the same function through the C API. */
  nvfp4_kernel *k;
  int pass = 0;
  static char report[1 << 14];
  const void *inputs[4] = {q, kv, sink, lens}, *outputs[2] = {o, lse};
  if (nvfp4_compile_file(argv[1], NULL, &k) != NVFP4_OK ||
      nvfp4_check_outputs(k, inputs, 4, outputs, 2, &pass, report,
                          sizeof report) != NVFP4_OK) {
    printf("FAIL %s\n", nvfp4_last_error());
    return 1;
  }
  printf("%s", report);
  nvfp4_kernel_destroy(k);
  return pass ? 0 : 1;
}
