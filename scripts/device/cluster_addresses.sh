#!/usr/bin/env bash
# On a machine with an NVIDIA GPU (sm_90 or later) and CUDA 13: builds and
# runs cluster_addresses.cu (shared::cluster address layout, mapa, NaN
# propagation), writing the report to $OUT (or the current directory).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-.}
nvcc=${CUDA_HOME:-/usr/local/cuda}/bin/nvcc
"$nvcc" -O1 -arch=sm_90a -o /tmp/cluster_addresses "$here/cluster_addresses.cu"
/tmp/cluster_addresses 0 | tee "$out/cluster_addresses.txt"
for mode in 1 2 3 4; do
  /tmp/cluster_addresses $mode 2>&1 | grep -E "^mode|mode load|failed" | tee -a "$out/cluster_addresses.txt" || true
done
