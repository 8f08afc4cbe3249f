#!/usr/bin/env bash
# Run on the GPU machine from the repository root: builds and runs
# ex2_lg2_probe.cu (what ex2.approx / lg2.approx return on the H200 against
# RN; docs/Hopper.md, increment 3), writes ex2_lg2_probe.txt and the three
# difference tables to $OUT.
set -eu -o pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUTDIR="${OUT:-$ROOT/build-device-ex2}"; mkdir -p "$OUTDIR"
/usr/local/cuda/bin/nvcc -O2 -arch=sm_90a -o /tmp/ex2_lg2_probe "$ROOT/scripts/device/ex2_lg2_probe.cu"
nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv | tee "$OUTDIR/ex2_lg2_probe.txt"
/tmp/ex2_lg2_probe "$OUTDIR" | tee -a "$OUTDIR/ex2_lg2_probe.txt"
