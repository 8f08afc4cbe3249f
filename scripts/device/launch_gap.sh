#!/usr/bin/env bash
# The GPU-side gap between two kernels queued on one stream, with and
# without programmatic dependent launch (scripts/device/launch_gap.cu;
# docs/Hopper.md, "B = 1: where the time goes"). On the GPU machine:
#   bash scripts/device/launch_gap.sh   (writes $OUT/launch_gap.md)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${OUT:-/tmp/launch-gap}"
mkdir -p "$OUT"
nvcc -O2 -arch=sm_90a -o /tmp/launch_gap "$HERE/launch_gap.cu"
/tmp/launch_gap | tee "$OUT/launch_gap.md"
