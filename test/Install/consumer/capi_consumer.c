/* The installed C API from C (NVFP4::nvfp4_c, nvfp4-c/nvfp4.h): compile an
 * nvfp4.attention_merge from text, run it on random inputs on the emulator
 * and compare with float64. test/Install/install.test runs it. */
#include "nvfp4-c/nvfp4.h"

#include <stdio.h>

static const char *kMerge =
    "func.func @merge(%o1: tensor<2x1x8x64xf32>, %l1: tensor<2x8x1xf32>,\n"
    "                 %o2: tensor<2x1x8x64xf32>, %l2: tensor<2x8x1xf32>)\n"
    "    -> (tensor<2x1x8x64xbf16>, tensor<2x8x1xf32>) {\n"
    "  %o, %lse = nvfp4.attention_merge %o1, %l1, %o2, %l2\n"
    "      : (tensor<2x1x8x64xf32>, tensor<2x8x1xf32>,\n"
    "         tensor<2x1x8x64xf32>, tensor<2x8x1xf32>)\n"
    "      -> (tensor<2x1x8x64xbf16>, tensor<2x8x1xf32>)\n"
    "  return %o, %lse : tensor<2x1x8x64xbf16>, tensor<2x8x1xf32>\n"
    "}\n";

int main(void) {
  nvfp4_kernel *k;
  nvfp4_device *d;
  int pass = 0;
  static char report[1 << 14];
  if (nvfp4_compile(kMerge, 0, NULL, &k) != NVFP4_OK ||
      nvfp4_device_create("emulator", 0, &d) != NVFP4_OK ||
      nvfp4_run_check(k, d, 1, &pass, report, sizeof report) != NVFP4_OK) {
    printf("FAIL %s\n", nvfp4_last_error());
    return 1;
  }
  printf("capi_consumer: API %d, %zu inputs, %zu outputs\n%s",
         nvfp4_api_version(), nvfp4_kernel_num_inputs(k),
         nvfp4_kernel_num_outputs(k), report);
  nvfp4_device_destroy(d);
  nvfp4_kernel_destroy(k);
  return pass ? 0 : 1;
}
