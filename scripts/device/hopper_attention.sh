#!/usr/bin/env bash
#===- hopper_attention.sh - the sm_90a attention kernels on the H200 -------===#
#
# Run from the repository root on the GPU machine (an H200: sm_90a; CUDA 13,
# CMake, python3; no LLVM/MLIR), with build/device-hopper carried from
# scripts/device/gen_hopper_attention.sh. Builds libnvfp4_runtime.so
# (scripts/device/CMakeLists.txt) and runs
# scripts/device/hopper_attention_h200.py on every artifact there: each
# kernel against float64 on the GPU, and its outputs on the GPU against the
# emulator's for the same inputs, element by element. docs/Hopper.md.
#
# Usage: scripts/device/hopper_attention.sh [OUTDIR]   (default $OUT)
#   Writes OUTDIR/hopper_attention.txt (one line per check, then the
#   counts); exit status 0 when every float64 check passed.
#
#===----------------------------------------------------------------------===#
set -u -o pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUTDIR="${1:-${OUT:-$ROOT/build-device-hopper}}"
mkdir -p "$OUTDIR"
BD=/tmp/nvfp4-hopper-build
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv \
  >"$OUTDIR/hopper_attention.txt" 2>&1
cmake -S "$ROOT/scripts/device" -B "$BD" >"$OUTDIR/build.log" 2>&1 &&
  cmake --build "$BD" -j16 --target nvfp4_c_runtime >>"$OUTDIR/build.log" 2>&1 ||
  { echo "build failed: $OUTDIR/build.log"; tail -20 "$OUTDIR/build.log"; exit 1; }
shopt -s nullglob
ARTIFACTS=("$ROOT"/build/device-hopper/*.nvfp4)
if [[ ${#ARTIFACTS[@]} == 0 ]]; then
  echo "no artifacts in build/device-hopper: run scripts/device/gen_hopper_attention.sh first and carry build/device-hopper"
  exit 1
fi
NVFP4_LIBRARY="$BD/libnvfp4_runtime.so" PYTHONPATH="$ROOT/python" \
  python3 "$ROOT/scripts/device/hopper_attention_h200.py" "${ARTIFACTS[@]}" |
  tee -a "$OUTDIR/hopper_attention.txt"
