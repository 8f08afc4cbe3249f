#!/usr/bin/env bash
# The combine over the split units only (a compile-time plan's table,
# docs/AttentionLowering.md "Combine") against the grid over every unit:
# GQA decode and causal prefill (static plans), timed in one run.
# Here: bash bench/hopper/gen_ours.sh build/device-hopper-bench at ff801be
# (every unit) and bash bench/hopper/gen_ours.sh build/ab-list after the
# change. There (carry both):
#   bash bench/hopper/experiments/combine_listed.sh
set -u
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
OUT="${OUT:-/tmp/combine-listed}"
cd "$ROOT"
python3 bench/hopper/ab.py "$OUT/ab" build/device-hopper-bench build/ab-list \
  --kind=all
mkdir -p build/pf-list
cp build/ab-list/prefill_* build/pf-list/
python3 bench/hopper/b1_breakdown.py "$OUT/split" build/pf-list
cat "$OUT/ab/ab.md" "$OUT/split/b1.md"
