/*===- capi_test.c - The C API from C -------------------------------------===*
 *
 * test/CAPI/capi.test builds and runs it (docs/CAPI.md's worked example):
 *   capi_test check FILE.mlir SEED   compile, run on random inputs, compare
 *                                    with float64 (nvfp4_run_check)
 *   capi_test launch                 compile a small GQA decode from text,
 *                                    launch it on buffers of our own and
 *                                    compare with a float64 attention in C
 *   capi_test errors                 bad input: every error names its
 *                                    argument, nothing launches
 *===----------------------------------------------------------------------===*/

#include "nvfp4-c/nvfp4.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                            \
  do {                                                                         \
    nvfp4_status s_ = (call);                                                  \
    if (s_ != NVFP4_OK) {                                                      \
      printf("FAIL %s: status %d: %s\n", #call, (int)s_, nvfp4_last_error()); \
      return 1;                                                                \
    }                                                                          \
  } while (0)

static int check(const char *path, unsigned long long seed) {
  nvfp4_kernel *k;
  nvfp4_device *d;
  CHECK(nvfp4_compile_file(path, "num-sms=148", &k));
  printf("metadata %s\n", nvfp4_kernel_metadata(k));
  CHECK(nvfp4_device_create("emulator", 0, &d));
  int pass = 0;
  static char report[1 << 16];
  CHECK(nvfp4_run_check(k, d, seed, &pass, report, sizeof report));
  printf("%s", report);
  nvfp4_device_destroy(d);
  nvfp4_kernel_destroy(k);
  return pass ? 0 : 1;
}

/* A small GQA decode: B = 2, one query, Hq = 8 over Hkv = 2, Skv = 256,
 * D = 64, a sink, per-sequence lengths. */
static const char *kGqa =
    "func.func @gqa(%q: tensor<2x1x8x64xbf16>, %k: tensor<2x256x2x64xbf16>,\n"
    "               %v: tensor<2x256x2x64xbf16>, %sink: tensor<8xf32>,\n"
    "               %lens: tensor<2xi32>)\n"
    "    -> (tensor<2x1x8x64xbf16>, tensor<2x8x1xf32>) {\n"
    "  %o, %lse = nvfp4.attention %q, %k, %v sink(%sink) kv_lens(%lens)\n"
    "      softmax_scale(0.125)\n"
    "      : (tensor<2x1x8x64xbf16>, tensor<2x256x2x64xbf16>,\n"
    "         tensor<2x256x2x64xbf16>, tensor<8xf32>, tensor<2xi32>)\n"
    "      -> (tensor<2x1x8x64xbf16>, tensor<2x8x1xf32>)\n"
    "  return %o, %lse : tensor<2x1x8x64xbf16>, tensor<2x8x1xf32>\n"
    "}\n";

enum { B = 2, HQ = 8, HKV = 2, SKV = 256, D = 64 };

static uint64_t state = 0x9e3779b97f4a7c15ull;
static double uniform(void) { /* in [-1, 1), full mantissa */
  state = state * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(state >> 11) / 4503599627370496.0 - 1.0;
}
static uint16_t toBf16(double x) { /* round to nearest even */
  float f = (float)x;
  uint32_t u;
  memcpy(&u, &f, 4);
  u += 0x7fff + ((u >> 16) & 1);
  return (uint16_t)(u >> 16);
}
static double fromBf16(uint16_t h) {
  uint32_t u = (uint32_t)h << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

static void *upload(nvfp4_device *d, const void *src, size_t bytes) {
  void *p = NULL;
  if (nvfp4_malloc(d, bytes, &p) != NVFP4_OK ||
      nvfp4_copy_to_device(d, p, src, bytes) != NVFP4_OK)
    return NULL;
  return p;
}

static int launch(void) {
  static uint16_t q[B * HQ * D], k[B * SKV * HKV * D], v[B * SKV * HKV * D],
      o[B * HQ * D];
  static float sink[HQ], lse[B * HQ];
  int32_t lens[B] = {256, 77};
  for (size_t i = 0; i < sizeof q / 2; ++i)
    q[i] = toBf16(uniform());
  for (size_t i = 0; i < sizeof k / 2; ++i) {
    k[i] = toBf16(uniform());
    v[i] = toBf16(uniform());
  }
  for (int h = 0; h < HQ; ++h)
    sink[h] = (float)uniform();

  nvfp4_kernel *kern;
  nvfp4_device *d;
  CHECK(nvfp4_compile(kGqa, 0, NULL, &kern));
  CHECK(nvfp4_device_create("emulator", 0, &d));
  int64_t sq[] = {B, 1, HQ, D}, skv[] = {B, SKV, HKV, D}, ssink[] = {HQ},
          slens[] = {B}, slse[] = {B, HQ, 1};
  nvfp4_tensor in[5] = {
      {upload(d, q, sizeof q), NVFP4_BF16, 4, sq, NULL},
      {upload(d, k, sizeof k), NVFP4_BF16, 4, skv, NULL},
      {upload(d, v, sizeof v), NVFP4_BF16, 4, skv, NULL},
      {upload(d, sink, sizeof sink), NVFP4_F32, 1, ssink, NULL},
      {upload(d, lens, sizeof lens), NVFP4_I32, 1, slens, NULL}};
  /* Outputs poisoned: an element the kernel does not write stays NaN. */
  memset(o, 0xff, sizeof o);
  memset(lse, 0xff, sizeof lse);
  nvfp4_tensor out[2] = {{upload(d, o, sizeof o), NVFP4_BF16, 4, sq, NULL},
                         {upload(d, lse, sizeof lse), NVFP4_F32, 3, slse,
                          NULL}};
  CHECK(nvfp4_launch(kern, d, in, 5, out, 2, NULL, 0, NULL));
  CHECK(nvfp4_copy_to_host(d, o, out[0].data, sizeof o));
  CHECK(nvfp4_copy_to_host(d, lse, out[1].data, sizeof lse));

  /* float64 attention: row (b, h) over keys j < lens[b], sink in the
   * denominator. */
  double err2 = 0, ref2 = 0, lseErr = 0;
  int nan = 0;
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < HQ; ++h) {
      int g = h / (HQ / HKV);
      double s[SKV], m = sink[h];
      for (int j = 0; j < lens[b]; ++j) {
        double dot = 0;
        for (int c = 0; c < D; ++c)
          dot += fromBf16(q[(b * HQ + h) * D + c]) *
                 fromBf16(k[((b * SKV + j) * HKV + g) * D + c]);
        s[j] = 0.125 * dot;
        m = s[j] > m ? s[j] : m;
      }
      double z = exp(sink[h] - m);
      for (int j = 0; j < lens[b]; ++j)
        z += exp(s[j] - m);
      for (int c = 0; c < D; ++c) {
        double acc = 0;
        for (int j = 0; j < lens[b]; ++j)
          acc += exp(s[j] - m) * fromBf16(v[((b * SKV + j) * HKV + g) * D + c]);
        double ref = acc / z, got = fromBf16(o[(b * HQ + h) * D + c]);
        nan += isnan(got);
        err2 += (got - ref) * (got - ref);
        ref2 += ref * ref;
      }
      double l = m + log(z), got = lse[b * HQ + h];
      nan += isnan(got);
      lseErr = fabs(got - l) > lseErr ? fabs(got - l) : lseErr;
    }
  double rel = sqrt(err2 / ref2);
  int pass = !nan && rel < 1e-2 && lseErr < 1e-4;
  printf("launch: %s rel_l2=%.3g lse_max_abs=%.3g nan=%d\n",
         pass ? "PASS" : "FAIL", rel, lseErr, nan);
  /* Again on a stream with the caller's workspace (the emulator runs it
   * before returning): the same bytes. */
  static uint16_t o2[B * HQ * D];
  void *ws = NULL;
  CHECK(nvfp4_malloc(d, nvfp4_kernel_workspace_bytes(kern), &ws));
  CHECK(nvfp4_copy_to_device(d, out[0].data, o2, sizeof o2)); /* zeros */
  CHECK(nvfp4_launch(kern, d, in, 5, out, 2, ws,
                     nvfp4_kernel_workspace_bytes(kern), (void *)0x5a0));
  CHECK(nvfp4_copy_to_host(d, o2, out[0].data, sizeof o2));
  printf("stream: %s\n", memcmp(o, o2, sizeof o) ? "DIFFERENT" : "same");
  nvfp4_free(d, ws);
  for (int i = 0; i < 5; ++i)
    nvfp4_free(d, in[i].data);
  nvfp4_free(d, out[0].data);
  nvfp4_free(d, out[1].data);
  nvfp4_device_destroy(d);
  nvfp4_kernel_destroy(kern);
  return pass ? 0 : 1;
}

/* Calls that must fail with `status`; prints the message. */
#define EXPECT(call, status)                                                   \
  do {                                                                         \
    nvfp4_status s_ = (call);                                                  \
    printf("%s -> %d: %s\n", #call, (int)s_, nvfp4_last_error());              \
    if (s_ != (status))                                                        \
      failures++;                                                              \
  } while (0)

static int errors(void) {
  int failures = 0;
  nvfp4_kernel *k = NULL;
  nvfp4_device *d = NULL;
  EXPECT(nvfp4_compile(NULL, 0, NULL, &k), NVFP4_ERROR_INVALID_ARGUMENT);
  EXPECT(nvfp4_compile("func.func @f(", 0, NULL, &k), NVFP4_ERROR_COMPILE);
  EXPECT(nvfp4_compile(kGqa, 0, "num-sms=0", &k),
         NVFP4_ERROR_INVALID_ARGUMENT);
  EXPECT(nvfp4_compile(kGqa, 0, "min-piece-keys=-1", &k),
         NVFP4_ERROR_INVALID_ARGUMENT);
  EXPECT(nvfp4_compile(kGqa, 0, "poly-exp2=9", &k),
         NVFP4_ERROR_INVALID_ARGUMENT);
  EXPECT(nvfp4_compile(kGqa, 0, "cluster-merge=9", &k),
         NVFP4_ERROR_INVALID_ARGUMENT);
  EXPECT(nvfp4_compile(kGqa, 0, "p-shared=2", &k),
         NVFP4_ERROR_INVALID_ARGUMENT);
  EXPECT(nvfp4_compile(kGqa, 0, "colour=blue", &k),
         NVFP4_ERROR_INVALID_ARGUMENT);
  EXPECT(nvfp4_compile(kGqa, 0, "function=nope", &k),
         NVFP4_ERROR_INVALID_ARGUMENT);
  EXPECT(nvfp4_compile_file("/nonexistent.mlir", NULL, &k),
         NVFP4_ERROR_INVALID_ARGUMENT);
  EXPECT(nvfp4_device_create("gpu", 0, &d), NVFP4_ERROR_INVALID_ARGUMENT);
  CHECK(nvfp4_compile(kGqa, 0, NULL, &k));
  CHECK(nvfp4_device_create("emulator", 0, &d));
  void *p = NULL;
  CHECK(nvfp4_malloc(d, 1 << 20, &p));
  int64_t sq[] = {B, 1, HQ, D}, skv[] = {B, SKV, HKV, D}, ssink[] = {HQ},
          slens[] = {B}, slse[] = {B, HQ, 1}, bad[] = {B, 1, HQ, 32},
          strides[] = {HQ * D * 2, HQ * D * 2, D * 2, 2};
  nvfp4_tensor in[5] = {{p, NVFP4_BF16, 4, sq, NULL},
                        {p, NVFP4_BF16, 4, skv, NULL},
                        {p, NVFP4_BF16, 4, skv, NULL},
                        {p, NVFP4_F32, 1, ssink, NULL},
                        {p, NVFP4_I32, 1, slens, NULL}};
  nvfp4_tensor out[2] = {{p, NVFP4_BF16, 4, sq, NULL},
                         {p, NVFP4_F32, 3, slse, NULL}};
  EXPECT(nvfp4_launch(k, d, in, 4, out, 2, NULL, 0, NULL),
         NVFP4_ERROR_INVALID_ARGUMENT);
  EXPECT(nvfp4_launch(k, d, NULL, 5, out, 2, NULL, 0, NULL),
         NVFP4_ERROR_INVALID_ARGUMENT);
  in[1].dtype = NVFP4_F32;
  EXPECT(nvfp4_launch(k, d, in, 5, out, 2, NULL, 0, NULL),
         NVFP4_ERROR_INVALID_ARGUMENT);
  in[1].dtype = NVFP4_BF16;
  in[0].shape = bad;
  EXPECT(nvfp4_launch(k, d, in, 5, out, 2, NULL, 0, NULL),
         NVFP4_ERROR_INVALID_ARGUMENT);
  in[0].shape = sq;
  out[0].strides = strides;
  EXPECT(nvfp4_launch(k, d, in, 5, out, 2, NULL, 0, NULL),
         NVFP4_ERROR_INVALID_ARGUMENT);
  out[0].strides = NULL;
  out[1].data = NULL;
  EXPECT(nvfp4_launch(k, d, in, 5, out, 2, NULL, 0, NULL),
         NVFP4_ERROR_INVALID_ARGUMENT);
  out[1].data = p;
  in[3].rank = 1 << 20;
  EXPECT(nvfp4_launch(k, d, in, 5, out, 2, NULL, 0, NULL),
         NVFP4_ERROR_INVALID_ARGUMENT);
  in[3].rank = 1;
  in[4].dtype = 99;
  EXPECT(nvfp4_launch(k, d, in, 5, out, 2, NULL, 0, NULL),
         NVFP4_ERROR_INVALID_ARGUMENT);
  in[4].dtype = NVFP4_I32;
  EXPECT(nvfp4_launch(k, d, in, 5, out, 2, NULL, 0, (void *)1),
         NVFP4_ERROR_INVALID_ARGUMENT);
  EXPECT(nvfp4_launch(NULL, d, in, 5, out, 2, NULL, 0, NULL),
         NVFP4_ERROR_INVALID_ARGUMENT);
  EXPECT(nvfp4_launch(k, d, in, 5, out, 2, p, 16, NULL),
         NVFP4_ERROR_INVALID_ARGUMENT);
  /* Every tensor at p: the outputs overlap the inputs. */
  EXPECT(nvfp4_launch(k, d, in, 5, out, 2, NULL, 0, NULL),
         NVFP4_ERROR_INVALID_ARGUMENT);
  nvfp4_tensor_info info;
  EXPECT(nvfp4_kernel_tensor(k, 1, 2, &info), NVFP4_ERROR_INVALID_ARGUMENT);
  CHECK(nvfp4_kernel_tensor(k, 0, 1, &info));
  printf("input 1: %s %s rank %d [%lld, %lld, %lld, %lld]\n", info.name,
         nvfp4_dtype_name(info.dtype), info.rank, (long long)info.shape[0],
         (long long)info.shape[1], (long long)info.shape[2],
         (long long)info.shape[3]);
  printf("api version %d, %d failures\n", nvfp4_api_version(), failures);
  nvfp4_free(d, p);
  nvfp4_device_destroy(d);
  nvfp4_kernel_destroy(k);
  return failures ? 1 : 0;
}

int main(int argc, char **argv) {
  if (argc >= 4 && !strcmp(argv[1], "check"))
    return check(argv[2], strtoull(argv[3], NULL, 10));
  if (argc >= 2 && !strcmp(argv[1], "launch"))
    return launch();
  if (argc >= 2 && !strcmp(argv[1], "errors"))
    return errors();
  fprintf(stderr, "usage: capi_test check FILE SEED | launch | errors\n");
  return 2;
}
