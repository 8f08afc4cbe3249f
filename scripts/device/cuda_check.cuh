// cuda_check.cuh - CHECK(call) for the CUDA runtime API in the device
// probes (launch_gap.cu, ex2_rate.cu, dequant_rate.cu, wgmma_numerics.cu):
// on an error, the call, where, and the runtime's message, then exit 1.
#pragma once
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CHECK(x)                                                              \
  do {                                                                        \
    cudaError_t e_ = (x);                                                     \
    if (e_ != cudaSuccess) {                                                  \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x,          \
                   cudaGetErrorString(e_));                                   \
      std::exit(1);                                                           \
    }                                                                         \
  } while (0)
