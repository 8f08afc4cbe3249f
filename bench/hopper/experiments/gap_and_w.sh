#!/usr/bin/env bash
# On the GPU machine, after 73690b2 (Python enqueues on torch's default
# stream instead of launching and waiting): each kernel and the gap
# of every decode shape without and with PDL (b1_breakdown.py on
# build/cmb-new2-* and build/cmb-new3-*), the host time of a call
# (host_overhead.py), and the combine's rows a warp as a power of two
# (build/cmb-new4-mla, 4243e9d) against three or four (build/cmb-new3-mla,
# 8ceb61e) on the 24 MLA shapes (ab.py). Here: the folders built with
# bench/hopper/gen_ours.sh (ONLY=gqa_ for GQA, --mla for MLA) at the
# commits bench/hopper/experiments/combine_ab.sh lists and at 4243e9d.
# docs/Hopper.md, "The combine rebuilt, timed".
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
OUT="${OUT:-/tmp/gap-and-w}"
H="$ROOT/bench/hopper"
B="$ROOT/build"
mkdir -p "$OUT/mla" "$OUT/b1-new2" "$OUT/b1-new3"
for v in new2 new3; do
  python3 "$H/b1_breakdown.py" "$OUT/b1-$v" "$B/cmb-$v-gqa" "$B/cmb-$v-mla" \
    2>&1 | grep -A40 "^NVIDIA"
done
python3 "$H/host_overhead.py" "$OUT" "$B/cmb-new3-gqa/gqa_b1_kv1024.nvfp4" \
  2>&1 | head -12
python3 "$H/ab.py" "$OUT/mla" "$B"/cmb-new{3,4}-mla --kind=mla 2>&1 |
  grep -A40 "^NVIDIA"
