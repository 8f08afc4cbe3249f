#!/usr/bin/env bash
# How fast sm_90a turns e4m3 + UE8M0 into bf16, four sequences, on the GPU
# machine, with the SASS each form becomes (scripts/device/dequant_rate.cu;
# docs/Hopper.md, "The fp8 gather's conversions"). On the GPU machine:
#   bash scripts/device/dequant_rate.sh   (writes $OUT/dequant_rate.md)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${OUT:-/tmp/dequant-rate}"
mkdir -p "$OUT"
nvcc -O3 -arch=sm_90a -o /tmp/dequant_rate "$HERE/dequant_rate.cu"
{
  /tmp/dequant_rate
  echo
  echo "SASS of each loop body (the conversion and integer opcodes):"
  echo
  cuobjdump -sass /tmp/dequant_rate | awk '
    /Function :/ { f = $3 }
    /F2F|F2FP|HMUL2|HFMA2|I2F|LOP3|PRMT|SHF|IADD3|FMUL/ {
      if (match($0, /[A-Z][A-Z0-9_.]+ /)) c[f " " substr($0, RSTART, RLENGTH - 1)]++
    }
    END { for (k in c) print c[k], k }' | sort -k2 -k1rn
} | tee "$OUT/dequant_rate.md"
