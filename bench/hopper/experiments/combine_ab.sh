#!/usr/bin/env bash
# The split-KV combine's rebuilds timed against each other in one run on the
# GPU machine (docs/Hopper.md, "The combine rebuilt, timed"). Here, with the
# library built at each commit (gen_ours.sh: ONLY=gqa_ for the GQA decode
# shapes, --mla for the 24 MLA shapes):
#   build/cmb-old-{gqa,mla}    4981180 (a warp four rows, three passes)
#   build/cmb-new-{gqa,mla}    e4bb1d4 (a CTA a row, all rows)
#   build/cmb-new2-{gqa,mla}   a warp a row when rows are many, no PDL
#   build/cmb-new3-{gqa,mla}   the same, launched programmatically (PDL)
# There (carry the eight folders):
#   bash bench/hopper/experiments/combine_ab.sh
# Writes $OUT/gap (scripts/device/launch_gap.sh), $OUT/dec and $OUT/mla
# (ab.py), $OUT/b1-* (b1_breakdown.py of each build).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
OUT="${OUT:-/tmp/combine-ab}"
B="$ROOT/build"
H="$ROOT/bench/hopper"
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv
OUT="$OUT/gap" bash "$ROOT/scripts/device/launch_gap.sh" || true
mkdir -p "$OUT/dec" "$OUT/mla"
python3 "$H/ab.py" "$OUT/dec" "$B"/cmb-{old,new,new2,new3}-gqa \
  --kind=decode 2>&1 | grep -A40 "^NVIDIA"
python3 "$H/ab.py" "$OUT/mla" "$B"/cmb-{old,new,new2,new3}-mla \
  --kind=mla 2>&1 | grep -A40 "^NVIDIA"
# b1_breakdown.py times the first folder holding a shape: one run per build.
for v in new2 new3; do
  python3 "$H/b1_breakdown.py" "$OUT/b1-$v" "$B/cmb-$v-gqa" "$B/cmb-$v-mla" \
    2>&1 | grep -A40 "^NVIDIA"
done
