#!/usr/bin/env bash
#===- v4_profile.sh - Nsight Compute's stall samples of one V4 kernel ------===#
#
# On the GPU machine: bash scripts/device/v4_profile.sh OUTDIR FOLDER SHAPE
# (FOLDER from `bash bench/hopper/gen_ours.sh --v4 FOLDER` here, carried;
# SHAPE a name of bench/hopper/shapes.py's V4_SHAPES, e.g.
# v4_h128_b128_k1024). Profiles the attention kernel of that shape's fourth
# launch in bench/hopper/v4.py (timed by events: NVFP4_BENCH_NO_CUPTI=1,
# since CUPTI and ncu exclude each other) with the warp-state and source
# sections, and writes OUTDIR/prof.ncu-rep, OUTDIR/sass.csv (the SASS with
# its stall samples) and OUTDIR/summary.txt (scripts/device/stall_summary.py:
# the samples by stall reason, for the kernel and for each role, and the
# SASS lines with the most). docs/Hopper.md.
#
#===----------------------------------------------------------------------===#
set -euo pipefail
out="$1" folder="$2" shape="$3"
mkdir -p "$out"
ONLY="$shape" NVFP4_BENCH_NO_CUPTI=1 ncu --clock-control none \
  --kernel-name "regex:${shape}_attention\$" --launch-skip 3 --launch-count 1 \
  --section WarpStateStats --section SourceCounters -f -o "$out/prof" \
  python3 bench/hopper/v4.py "$out/v4" "$folder" > "$out/ncu.log" 2>&1
ncu -i "$out/prof.ncu-rep" --page source --csv --print-source sass \
  > "$out/sass.csv"
python3 "$(dirname "${BASH_SOURCE[0]}")/stall_summary.py" "$out/sass.csv" \
  > "$out/summary.txt"
