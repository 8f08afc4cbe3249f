#!/usr/bin/env bash
#===- p_shared.sh - P V's P from shared memory against registers ----------===#
#
# docs/Hopper.md, "P through shared memory". Here (after the build):
#   bash bench/hopper/experiments/p_shared.sh gen
# compiles the causal prefills of bench/hopper/shapes.py (D 64, 128, 256)
# with P in registers (P_SHARED=0, build/ab-preg) and in shared memory
# (P_SHARED=1, build/ab-psh; D 256 does not overlap its softmax, so its
# kernels are the same in both: the run's control), the sm_90a matrix with
# P_SHARED=1 (gen_hopper_attention.sh: its two- and three-consumer kernels
# take P from shared memory), and packs them with pack_report.sh.
# There (carry build/device-report.tar.xz):
#   bash bench/hopper/experiments/p_shared.sh run $OUT
# runs the matrix (hopper_report.sh: float64 and the emulator's bits on
# the GPU), times both builds interleaved with ab.py (CUPTI kernel time,
# medians of 5 rounds, cuDNN's kernel beside them) and then rates.py (the
# SFU's rate beside SS N 64, P V's shape with P in shared memory).
#
#===----------------------------------------------------------------------===#
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
cd "$ROOT"
case "${1:-}" in
gen)
  ONLY=prefill_d P_SHARED=0 bash bench/hopper/gen_ours.sh build/ab-preg
  ONLY=prefill_d P_SHARED=1 bash bench/hopper/gen_ours.sh build/ab-psh
  P_SHARED=1 bash scripts/device/gen_hopper_attention.sh
  bash scripts/device/pack_report.sh ab-preg ab-psh
  ;;
run)
  OUT="${2:?usage: p_shared.sh run OUTDIR}"
  python3 bench/hopper/ab.py "$OUT/ab" build/ab-preg build/ab-psh \
    --kind=prefill --rounds=5 --cudnn
  cat "$OUT/ab/ab.md"
  bash scripts/device/hopper_report.sh "$OUT" matrix
  python3 bench/hopper/rates.py "$OUT/rates"
  ;;
*)
  echo "usage: p_shared.sh gen | run OUTDIR" >&2
  exit 2
  ;;
esac
