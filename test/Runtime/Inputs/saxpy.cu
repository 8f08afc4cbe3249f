// saxpy for the cuda backend's validation on a Hopper GPU
// (scripts/device/validate_cuda_backend.sh) and the runtime's lit tests.
//
// saxpy_sm90a.ptx is generated from this file with CUDA 13.0:
//   nvcc -gencode=arch=compute_90a,code=compute_90a -ptx saxpy.cu \
//        -o saxpy_sm90a.ptx
// (-arch=sm_90a works too; the -gencode form names the PTX target alone.)

extern "C" __global__ void saxpy(float a, const float *x, float *y,
                                 unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}
