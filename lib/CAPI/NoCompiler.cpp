//===- NoCompiler.cpp - nvfp4_compile in libnvfp4_runtime.so --------------===//
//
// libnvfp4_runtime.so runs kernels compiled elsewhere (nvfp4_kernel_load)
// and has no MLIR, so compiling is a valid request it cannot do.
//
//===----------------------------------------------------------------------===//

#include "CAPIInternal.h"

using namespace nvfp4::capi;

namespace {
nvfp4_status noCompiler(nvfp4_kernel **kernel) {
  if (kernel)
    *kernel = nullptr;
  return fail(NVFP4_ERROR_UNSUPPORTED,
              "this is libnvfp4_runtime, which has no compiler: compile with "
              "libnvfp4 (nvfp4_compile), save the kernel (nvfp4_kernel_save) "
              "and load it here (nvfp4_kernel_load_file)");
}
} // namespace

extern "C" {

nvfp4_status nvfp4_compile(const char *, size_t, const char *,
                           nvfp4_kernel **kernel) {
  return noCompiler(kernel);
}

nvfp4_status nvfp4_compile_file(const char *, const char *,
                                nvfp4_kernel **kernel) {
  return noCompiler(kernel);
}

} // extern "C"
