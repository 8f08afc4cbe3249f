// Kernels that check how nvfp4-run launches: every scalar width lands in
// its parameter, and cluster dimensions and dynamic shared memory reach the
// kernel. Used by scripts/device/validate_cuda_backend.sh on a Hopper GPU.
//
// launch_sm90a.ptx is generated from this file with CUDA 13.0:
//   nvcc -gencode=arch=compute_90a,code=compute_90a -ptx launch.cu \
//        -o launch_sm90a.ptx

#include <cstdint>

// Writes its scalar parameters to out[0..7] (each widened to 64 bits; the
// floats as their bit patterns).
extern "C" __global__ void params(uint8_t a8, uint16_t a16, uint32_t a32,
                                  int32_t i32, uint64_t a64, int64_t i64,
                                  float f32, double f64, uint64_t *out) {
  if (threadIdx.x != 0 || blockIdx.x != 0)
    return;
  out[0] = a8;
  out[1] = a16;
  out[2] = a32;
  out[3] = static_cast<uint64_t>(static_cast<int64_t>(i32));
  out[4] = a64;
  out[5] = static_cast<uint64_t>(i64);
  out[6] = __float_as_uint(f32);
  out[7] = static_cast<uint64_t>(__double_as_longlong(f64));
}

// One record of 8 words per CTA (linear CTA index): ctaid.x, ctaid.y,
// %cluster_ctarank, %cluster_nctarank, %clusterid.x, %dynamic_smem_size,
// the sum of the first and last dynamic shared-memory bytes after thread 0
// wrote 0x5A and 0xA5 there (0xFF when the memory is really there), and
// blockDim.x. A cluster barrier makes every CTA of a cluster wait for the
// others, so a cluster that was not co-scheduled would hang, not pass.
extern "C" __global__ void launch_info(uint32_t *out) {
  extern __shared__ uint8_t dynamicSmem[];
  uint32_t rank, nrank, clusterX, dsmem;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(nrank));
  asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(clusterX));
  asm volatile("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dsmem));
  if (threadIdx.x == 0 && dsmem > 0) {
    dynamicSmem[0] = 0x5A;
    dynamicSmem[dsmem - 1] = 0xA5;
  }
  __syncthreads();
  asm volatile("barrier.cluster.arrive.aligned;\n"
               "barrier.cluster.wait.aligned;" ::: "memory");
  if (threadIdx.x != 0)
    return;
  uint32_t cta = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  uint32_t *rec = out + 8 * cta;
  rec[0] = blockIdx.x;
  rec[1] = blockIdx.y;
  rec[2] = rank;
  rec[3] = nrank;
  rec[4] = clusterX;
  rec[5] = dsmem;
  rec[6] = dsmem > 0 ? dynamicSmem[0] + dynamicSmem[dsmem - 1] : 0;
  rec[7] = blockDim.x;
}
