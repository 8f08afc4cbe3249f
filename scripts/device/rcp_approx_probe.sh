#!/usr/bin/env bash
# Run on the GPU machine from the repository root: builds and runs
# rcp_approx_probe.cu, writes rcp_bitmap.bin and rcp_probe.txt to $OUT.
set -eu -o pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUTDIR="${OUT:-$ROOT/build-device-rcp}"; mkdir -p "$OUTDIR"
/usr/local/cuda/bin/nvcc -O2 -arch=sm_90a -o /tmp/rcp_probe "$ROOT/scripts/device/rcp_approx_probe.cu"
nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv | tee "$OUTDIR/rcp_probe.txt"
/tmp/rcp_probe "$OUTDIR/rcp_bitmap.bin" | tee -a "$OUTDIR/rcp_probe.txt"
