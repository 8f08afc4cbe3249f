// Where does ptxas put a zero-sized `.shared` variable? Loads two PTX
// kernels that each store the shared-window addresses of a "dynamic shared
// memory" symbol and of a static 32-byte shared array:
//   internal: `.shared .align 16 .b8 dyn;`      (what LLVM 22 emits for an
//             internal zero-sized global, i.e. upstream's lowering of
//             gpu.dynamic_shared_memory)
//   extern:   `.extern .shared .align 1024 .b8 dyn[];` (after
//             nvfp4-extern-dynamic-shared-memory; nvcc's extern __shared__)
// and reports whether the dynamic region overlaps the static array.
// Built and run by scripts/device/dynamic_smem_layout.sh.
#include <cuda.h>
#include <cstdio>
#include <cstdlib>
#include <string>

#define CHECK(x)                                                               \
  do {                                                                         \
    CUresult r = (x);                                                          \
    if (r != CUDA_SUCCESS) {                                                   \
      const char *n = nullptr;                                                 \
      cuGetErrorName(r, &n);                                                   \
      std::fprintf(stderr, "%s failed: %s\n", #x, n ? n : "?");                \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

static std::string ptx(const char *decl) {
  return std::string(".version 8.0\n.target sm_90a\n.address_size 64\n") +
         decl +
         "\n.shared .align 8 .b8 st[32];\n"
         ".visible .entry k(.param .u64 out) {\n"
         "  .reg .b64 %rd<4>; .reg .b32 %r<4>;\n"
         "  ld.param.u64 %rd1, [out];\n"
         "  cvta.to.global.u64 %rd1, %rd1;\n"
         "  mov.u32 %r1, dyn;\n  mov.u32 %r2, st;\n"
         "  st.global.u32 [%rd1], %r1;\n  st.global.u32 [%rd1+4], %r2;\n"
         "  ret;\n}\n";
}

int main() {
  CHECK(cuInit(0));
  CUdevice dev;
  CHECK(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CHECK(cuCtxSetCurrent(ctx));
  const char *forms[2][2] = {
      {"internal", ".shared .align 16 .b8 dyn;"},
      {"extern", ".extern .shared .align 1024 .b8 dyn[];"}};
  int overlaps[2];
  for (int i = 0; i < 2; ++i) {
    std::string text = ptx(forms[i][1]);
    CUmodule mod;
    CHECK(cuModuleLoadData(&mod, text.c_str()));
    CUfunction fn;
    CHECK(cuModuleGetFunction(&fn, mod, "k"));
    CUdeviceptr out;
    CHECK(cuMemAlloc(&out, 8));
    void *args[] = {&out};
    CHECK(cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, /*dynamic smem=*/1024, nullptr,
                         args, nullptr));
    CHECK(cuCtxSynchronize());
    unsigned addr[2];
    CHECK(cuMemcpyDtoH(addr, out, 8));
    // The dynamic region is [dyn, dyn + 1024); the static array [st, st + 32).
    overlaps[i] = addr[0] < addr[1] + 32 && addr[1] < addr[0] + 1024;
    std::printf("%-8s dyn=0x%05x st=0x%05x  dynamic region %s the static array\n",
                forms[i][0], addr[0], addr[1],
                overlaps[i] ? "OVERLAPS" : "does not overlap");
    CHECK(cuMemFree(out));
    CHECK(cuModuleUnload(mod));
  }
  std::printf("RESULT internal_overlaps=%d extern_overlaps=%d\n", overlaps[0],
              overlaps[1]);
  return overlaps[1] ? 1 : 0;
}
