#!/usr/bin/env bash
# The rate probes' runner on the GPU machine (ex2_rate.sh, dequant_rate.sh):
# builds scripts/device/NAME.cu for sm_90a, runs it and appends, per
# kernel, how many of each opcode matching REGEX its SASS holds; writes
# $OUT/NAME.md (OUT defaults to /tmp/NAME).
#   bash scripts/device/rate_probe.sh NAME REGEX "WHAT THE OPCODES ARE"
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
NAME="$1" REGEX="$2" WHAT="$3"
OUT="${OUT:-/tmp/$NAME}"
mkdir -p "$OUT"
nvcc -O3 -arch=sm_90a -o "/tmp/$NAME" "$HERE/$NAME.cu"
{
  "/tmp/$NAME"
  echo
  echo "SASS of each loop body ($WHAT):"
  echo
  cuobjdump -sass "/tmp/$NAME" | awk -v re="$REGEX" '
    /Function :/ { f = $3 }
    $0 ~ re {
      if (match($0, /[A-Z][A-Z0-9_.]+ /)) c[f " " substr($0, RSTART, RLENGTH - 1)]++
    }
    END { for (k in c) print c[k], k }' | sort -k2 -k1rn
} | tee "$OUT/$NAME.md"
