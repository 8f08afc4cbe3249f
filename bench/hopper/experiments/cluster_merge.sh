#!/usr/bin/env bash
#===- cluster_merge.sh - the cluster merge against the combine kernel ------===#
#
# docs/Hopper.md, "The cluster merge". Here (after the build):
#   bash bench/hopper/experiments/cluster_merge.sh gen
# compiles the GQA decodes (without gqa_b128_kv65536, whose two input sets
# with cuDNN's do not fit the GPU) and the B = 1 MLA decodes with the
# cluster merge (the default) and without (CLUSTER_MERGE=0: the balanced
# plan and its combine kernel), the sm_90a matrix (gen_hopper_attention.sh,
# its cluster-merge cases included), and packs them with pack_report.sh.
# There (carry build/device-report.tar.xz):
#   bash bench/hopper/experiments/cluster_merge.sh run $OUT
# runs the matrix (hopper_report.sh: float64 and the emulator's bits on
# the GPU), then times both builds interleaved with ab.py (CUPTI kernel
# time, medians of 5 rounds; cuDNN beside the GQA decodes), printing the
# tables.
#
#===----------------------------------------------------------------------===#
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
cd "$ROOT"
case "${1:-}" in
gen)
  ONLY=gqa_ CLUSTER_MERGE=0 bash bench/hopper/gen_ours.sh build/ab-cm0
  ONLY=gqa_ bash bench/hopper/gen_ours.sh build/ab-cm
  rm -f build/ab-cm0/gqa_b128_kv65536.nvfp4 build/ab-cm/gqa_b128_kv65536.nvfp4
  ONLY=_b1_ CLUSTER_MERGE=0 bash bench/hopper/gen_ours.sh --mla build/ab-mla-cm0
  ONLY=_b1_ bash bench/hopper/gen_ours.sh --mla build/ab-mla-cm
  bash scripts/device/gen_hopper_attention.sh
  bash scripts/device/pack_report.sh ab-cm0 ab-cm ab-mla-cm0 ab-mla-cm
  ;;
run)
  OUT="${2:?usage: cluster_merge.sh run OUTDIR}"
  bash scripts/device/hopper_report.sh "$OUT" matrix
  python3 bench/hopper/ab.py "$OUT/ab" build/ab-cm0 build/ab-cm \
    --kind=decode --rounds=5 --cudnn
  cat "$OUT/ab/ab.md"
  python3 bench/hopper/ab.py "$OUT/abm" build/ab-mla-cm0 build/ab-mla-cm \
    --kind=mla --rounds=5
  cat "$OUT/abm/ab.md"
  ;;
*)
  echo "usage: cluster_merge.sh gen | run OUTDIR" >&2
  exit 2
  ;;
esac
