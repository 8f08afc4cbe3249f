#!/usr/bin/env bash
# Regenerates the committed PTX of the differential corpus from its CUDA
# sources (CUDA 13 nvcc; docs/Differential.md). Run from anywhere.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
NVCC="${NVCC:-${CUDA_HOME:-/usr/local/cuda}/bin/nvcc}"
# wgmma.cu is written from manifest.WGMMA_VARIANTS.
python3 gen_wgmma.py
for cu in *.cu; do
  "$NVCC" -gencode=arch=compute_90a,code=compute_90a -O3 -ptx "$cu" -o "${cu%.cu}.ptx"
  # ptxas must accept it for the H200 (the driver JIT-compiles the PTX).
  "${NVCC%/nvcc}/ptxas" -arch=sm_90a "${cu%.cu}.ptx" -o /dev/null
done
