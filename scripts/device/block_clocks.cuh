// block_clocks.cuh - the rate probes' launcher (ex2_rate.cu,
// dequant_rate.cu): runs `kernel(out, clocks, 0)` on `blocks` blocks of
// `threads` threads, once to warm up and once timed, where each block's
// thread 0 writes its loop's clock64 span to clocks[blockIdx.x] and every
// thread one word to out; returns the blocks' mean span in clocks. Also
// deviceSms: device 0's properties and SM count.
#pragma once
#include "cuda_check.cuh"
#include <vector>

template <typename Kernel>
double meanBlockClocks(Kernel kernel, int blocks, int threads) {
  unsigned *out;
  long long *clocks;
  CHECK(cudaMalloc(&out, sizeof(unsigned) * blocks * threads));
  CHECK(cudaMalloc(&clocks, sizeof(long long) * blocks));
  kernel<<<blocks, threads>>>(out, clocks, 0); // warm-up
  CHECK(cudaDeviceSynchronize());
  kernel<<<blocks, threads>>>(out, clocks, 0);
  CHECK(cudaDeviceSynchronize());
  std::vector<long long> c(blocks);
  CHECK(cudaMemcpy(c.data(), clocks, sizeof(long long) * blocks,
                   cudaMemcpyDeviceToHost));
  double mean = 0;
  for (long long v : c)
    mean += double(v) / blocks;
  CHECK(cudaFree(out));
  CHECK(cudaFree(clocks));
  return mean;
}

/// Device 0's properties into `prop`; returns its SM count.
inline int deviceSms(cudaDeviceProp &prop) {
  CHECK(cudaGetDeviceProperties(&prop, 0));
  return prop.multiProcessorCount;
}
