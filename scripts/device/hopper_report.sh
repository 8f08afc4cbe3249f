#!/usr/bin/env bash
#===- hopper_report.sh - the H200 matrix and benchmark in one run ---------===#
#
# Run from the repository root on the GPU machine, with build/device-hopper
# (scripts/device/gen_hopper_attention.sh) and build/device-hopper-bench
# (bench/hopper/gen_ours.sh) carried from the machine with MLIR. Runs, in
# one device call (docs/Hopper.md):
#   1. scripts/device/hopper_attention.sh: every kernel of the sm_90a
#      attention matrix against float64 on the GPU, and against the
#      emulator element by element;
#   2. bench/hopper/ours.py: our kernels timed beside SDPA's backends, with
#      the ceilings of the same run.
# Writes OUTDIR/matrix/ (hopper_attention.txt), OUTDIR/bench/ (ours.md,
# ours.json) and OUTDIR/report.md (both, with the GPU's name and driver).
#
# Usage: scripts/device/hopper_report.sh [OUTDIR]   (default $OUT)
# Exit status 0 when every float64 check passed and the benchmark ran.
#
#===----------------------------------------------------------------------===#
set -u -o pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUTDIR="${1:-${OUT:-$ROOT/build-device-hopper-report}}"
mkdir -p "$OUTDIR/matrix" "$OUTDIR/bench"
status=0
bash "$ROOT/scripts/device/hopper_attention.sh" "$OUTDIR/matrix" \
  >"$OUTDIR/matrix/log.txt" 2>&1 || status=1
# hopper_attention.sh built the runtime library there.
NVFP4_LIBRARY=/tmp/nvfp4-hopper-build/libnvfp4_runtime.so \
  python3 "$ROOT/bench/hopper/ours.py" "$OUTDIR/bench" \
  >"$OUTDIR/bench/log.txt" 2>&1 || status=1
{
  echo "# The sm_90a attention kernels on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null)"
  echo
  echo "## Against float64 and the emulator (scripts/device/hopper_attention.sh)"
  echo
  grep -E '^(PASS|FAIL)|kernels:' "$OUTDIR/matrix/hopper_attention.txt" 2>/dev/null
  echo
  echo "## Times beside SDPA (bench/hopper/ours.py)"
  echo
  cat "$OUTDIR/bench/ours.md" 2>/dev/null
} >"$OUTDIR/report.md"
cat "$OUTDIR/report.md"
exit $status
