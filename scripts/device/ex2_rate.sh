#!/usr/bin/env bash
# The SFU's exponential rate for ex2.approx f32 / f16x2 / bf16x2 on the GPU
# machine, with the SASS each form becomes (scripts/device/ex2_rate.cu;
# docs/Hopper.md, "Packed exponentials"). On the GPU machine:
#   bash scripts/device/ex2_rate.sh   (writes $OUT/ex2_rate.md)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${OUT:-/tmp/ex2-rate}"
mkdir -p "$OUT"
nvcc -O3 -arch=sm_90a -o /tmp/ex2_rate "$HERE/ex2_rate.cu"
{
  /tmp/ex2_rate
  echo
  echo "SASS of each loop body (MUFU and what feeds it):"
  echo
  cuobjdump -sass /tmp/ex2_rate | awk '
    /Function :/ { f = $3 }
    /MUFU|HADD2|LOP3|F2FP|PRMT|FFMA|FADD/ {
      if (match($0, /[A-Z][A-Z0-9_.]+ /)) c[f " " substr($0, RSTART, RLENGTH - 1)]++
    }
    END { for (k in c) print c[k], k }' | sort -k2 -k1rn
} | tee "$OUT/ex2_rate.md"
