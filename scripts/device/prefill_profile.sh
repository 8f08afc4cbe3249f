#!/usr/bin/env bash
#===- prefill_profile.sh - Nsight Compute: our prefill beside cuDNN's ------===#
#
# On the GPU machine: bash scripts/device/prefill_profile.sh OUTDIR FOLDER
# SHAPE (FOLDER from `ONLY=SHAPE bash bench/hopper/gen_ours.sh FOLDER` here,
# carried; SHAPE a prefill name of bench/hopper/shapes.py, e.g.
# prefill_d128_b4_s4096). Runs bench/hopper/ours.py on that shape twice
# under ncu (timed by events: NVFP4_BENCH_NO_CUPTI=1, since CUPTI and ncu
# exclude each other): once for our attention kernel's fourth launch, once
# for SDPA's cuDNN kernel's fourth, each with the speed-of-light, compute,
# warp-state, scheduler and source sections. Writes OUTDIR/{ours,cudnn}
# .ncu-rep, OUTDIR/{ours,cudnn}.txt (the sections' details),
# OUTDIR/{ours,cudnn}-sass.csv and OUTDIR/{ours,cudnn}-summary.txt
# (scripts/device/stall_summary.py). docs/Hopper.md.
#
#===----------------------------------------------------------------------===#
set -euo pipefail
out="$1" folder="$2" shape="$3"
here="$(dirname "${BASH_SOURCE[0]}")"
mkdir -p "$out"
profile() { # NAME REGEX
  ONLY="$shape" NVFP4_BENCH_NO_CUPTI=1 ncu --clock-control none \
    --kernel-name "regex:$2" --launch-skip 3 --launch-count 1 \
    --section SpeedOfLight --section ComputeWorkloadAnalysis \
    --section SchedulerStats --section WarpStateStats \
    --section LaunchStats --section Occupancy \
    --section SourceCounters -f -o "$out/$1" \
    python3 bench/hopper/ours.py "$out/run-$1" "$folder" \
    > "$out/$1.log" 2>&1 || { tail -20 "$out/$1.log"; return 0; }
  ncu -i "$out/$1.ncu-rep" --page details > "$out/$1.txt" 2>&1 || true
  ncu -i "$out/$1.ncu-rep" --page source --csv --print-source sass \
    > "$out/$1-sass.csv" 2>/dev/null || true
  python3 "$here/stall_summary.py" "$out/$1-sass.csv" \
    > "$out/$1-summary.txt" 2>&1 || true
}
profile ours "${shape}_attention\$"
profile cudnn "cudnn|sdpa|fmha"
