#!/usr/bin/env bash
#===- wgmma_numerics.sh - capture how the H200's wgmma accumulates ---------===#
#
# Run from the repository root on the GPU machine (an H200; CUDA 13, CMake,
# python3). Two captures, one archive:
#   1. the accumulation probe (wgmma_numerics.cu over wgmma_numerics_gen.h's
#      sets: designed and random full-mantissa problems for bf16, f16, e4m3
#      and e5m2, one instruction and eight chained): numerics/<set>.d.bin;
#   2. the differential corpus's full-mantissa wgmma cases (*_rand), through
#      differential.sh --only=_rand: h200/<case>.d.bin.
# docs/Emulator.md ("MMA accumulation") says how the files are used.
# (The probe alone with WGMMA_TINY=1 runs one set of subnormal-range sums
# instead: docs/Emulator.md, "lg2.approx as measured".)
#
# Usage: scripts/device/wgmma_numerics.sh [SCALE] [OUTDIR]
#   SCALE multiplies the random sets' CTAs (default 8; the committed files
#   are the first 16 CTAs of each set, which do not depend on SCALE).
#   OUTDIR defaults to $OUT, else ./build-device-numerics; written there:
#   wgmma_numerics.tar.gz and the differential run's archive.
#
#===----------------------------------------------------------------------===#
set -eu -o pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
SCALE="${1:-8}"
OUTDIR="${2:-${OUT:-$ROOT/build-device-numerics}}"
mkdir -p "$OUTDIR"
CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/nvfp4-numerics.XXXXXX")"
mkdir -p "$WORK/numerics"
"$CUDA_HOME/bin/nvcc" -std=c++17 -O2 -gencode arch=compute_90a,code=sm_90a \
  -I"$ROOT/scripts/device" "$ROOT/scripts/device/wgmma_numerics.cu" -o "$WORK/probe"
"$WORK/probe" "$WORK/numerics" "$SCALE" | tee "$WORK/probe.txt"
nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv >"$WORK/environment.txt" 2>&1 || true
(cd "$WORK" && tar czf "$OUTDIR/wgmma_numerics.tar.gz" numerics probe.txt environment.txt)
status=0
bash "$ROOT/scripts/device/differential.sh" --only=_rand "$OUTDIR" || status=$?
ls -l "$OUTDIR"
exit $status
