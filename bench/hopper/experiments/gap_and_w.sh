#!/usr/bin/env bash
# On the GPU machine: the host / GPU timeline around the combine's launch
# (bench/hopper/gap_probe.py on build/cmb-new3-gqa) and the combine's rows
# a warp as a power of two (build/cmb-new4-mla, 4243e9d) against three or
# four (build/cmb-new3-mla, 8ceb61e) on the 24 MLA shapes (ab.py). Here:
# ONLY=gqa_ bash bench/hopper/gen_ours.sh build/cmb-new3-gqa and
# bash bench/hopper/gen_ours.sh --mla build/cmb-new{3,4}-mla at those
# commits. docs/Hopper.md, "The combine rebuilt, timed".
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
OUT="${OUT:-/tmp/gap-and-w}"
H="$ROOT/bench/hopper"
mkdir -p "$OUT/mla"
python3 "$H/gap_probe.py" "$OUT" "$ROOT/build/cmb-new3-gqa" 2>&1 |
  grep -v " CPU \(aten\|cudaStream\|cudaGetDevice\|cudaDeviceGet\|cudaPeek\|cudaGetLastError\)" |
  head -200
python3 "$H/ab.py" "$OUT/mla" "$ROOT"/build/cmb-new{3,4}-mla --kind=mla 2>&1 |
  grep -A40 "^NVIDIA"
