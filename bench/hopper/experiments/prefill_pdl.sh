#!/usr/bin/env bash
# The causal prefill at S = 16K ran 8-12% slower on 2026-12-06 than in the
# A/B of 2026-12-05, with S = 4K unchanged (docs/Hopper.md, "The H200 run
# of 2026-12-06"). Between the two builds only the combine kernel changed
# (rebuilt, programmatic) and the attention kernel gained
# griddepcontrol.launch_dependents. This times both builds in one run with
# programmatic launch on and off, and splits a call into its kernels.
# Here: ONLY=prefill_d bash bench/hopper/gen_ours.sh build/ab-base at
# 989b1b0 (before), ONLY=prefill_d bash bench/hopper/gen_ours.sh
# build/pf-new at HEAD. There (carry both):
#   bash bench/hopper/experiments/prefill_pdl.sh
set -u
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
OUT="${OUT:-/tmp/prefill-pdl}"
cd "$ROOT"
python3 bench/hopper/ab.py "$OUT/ab" build/ab-base build/pf-new --kind=prefill
NVFP4_PDL=0 python3 bench/hopper/ab.py "$OUT/ab_nopdl" build/ab-base \
  build/pf-new --kind=prefill
python3 bench/hopper/b1_breakdown.py "$OUT/split_base" build/ab-base
python3 bench/hopper/b1_breakdown.py "$OUT/split_new" build/pf-new
NVFP4_PDL=0 python3 bench/hopper/b1_breakdown.py "$OUT/split_new_nopdl" \
  build/pf-new
for f in ab ab_nopdl split_base split_new split_new_nopdl; do
  echo "== $f"
  cat "$OUT/$f/"*.md
done
