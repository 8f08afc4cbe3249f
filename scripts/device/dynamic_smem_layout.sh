#!/usr/bin/env bash
# On a machine with an NVIDIA GPU and CUDA 13: builds and runs
# dynamic_smem_layout.cu (see its header), writing the report to $OUT (or
# the current directory). Exit status 0 when the extern form does not overlap.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-.}
nvcc=${CUDA_HOME:-/usr/local/cuda}/bin/nvcc
"$nvcc" -O1 -o /tmp/dynamic_smem_layout "$here/dynamic_smem_layout.cu" -lcuda
/tmp/dynamic_smem_layout | tee "$out/dynamic_smem_layout.txt"
