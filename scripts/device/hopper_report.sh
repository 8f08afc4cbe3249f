#!/usr/bin/env bash
#===- hopper_report.sh - the H200 matrix and benchmarks in one script ------===#
#
# Run from the repository root on the GPU machine, with the artifacts made
# here on the machine with MLIR carried (docs/Hopper.md):
#   matrix  scripts/device/hopper_attention.sh: every kernel of the sm_90a
#           attention matrix against float64 on the GPU, and against the
#           emulator element by element (carry build/device-hopper, from
#           scripts/device/gen_hopper_attention.sh);
#   bench   bench/hopper/ours.py: GQA decode and causal prefill timed beside
#           SDPA's backends, with the ceilings of the same run (carry
#           build/device-hopper-bench, from bench/hopper/gen_ours.sh);
#   mla     bench/hopper/mla.py: the MLA decode kernels beside FlashMLA on
#           the same tensors, with the SM-fill model (carry
#           build/device-hopper-mla from bench/hopper/gen_mla.sh, and
#           build/peers from scripts/peers/gen_flashmla_sources.sh);
#   v4      bench/hopper/v4.py: DeepSeek-V4's sparse decode over the MODEL1
#           fp8 cache beside FlashMLA's sparse decode (carry
#           build/device-hopper-v4 from bench/hopper/gen_ours.sh --v4, and
#           build/peers).
# Writes OUTDIR/matrix/ (hopper_attention.txt), OUTDIR/bench/ (ours.md,
# ours.json), OUTDIR/mla/ (mla.md, mla.json), OUTDIR/v4/ (v4.md, v4.json)
# and OUTDIR/report.md (the
# parts run, with the GPU's name and driver). The parts' folders and
# the working tree exceed what one device call carries (64 MiB), so carry
# build/device-report.tar.xz from scripts/device/pack_report.sh instead
# (about 3 MB, unpacked into build/ first) and every part runs in one
# call (about 7-8 minutes: matrix 2-3.5, mla and bench 2.5, v4 1-2);
# without it, carry the folders themselves a part or two a call.
#
# Usage: scripts/device/hopper_report.sh [OUTDIR [PART...]]
#        (default $OUT, all parts)
# Exit status 0 when every float64 check passed and the benchmarks ran.
#
#===----------------------------------------------------------------------===#
set -u -o pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUTDIR="${1:-${OUT:-$ROOT/build-device-hopper-report}}"
shift || true
PARTS="${*:-matrix bench mla v4}"
mkdir -p "$OUTDIR"
status=0
# Every artifact folder in one archive (scripts/device/pack_report.sh):
# unpacked into build/ first, so that one call can run every part.
# The folders it holds replace any left from an earlier call.
if [[ -f "$ROOT/build/device-report.tar.xz" ]]; then
  for f in $(tar -tJf "$ROOT/build/device-report.tar.xz" | cut -d/ -f1 |
    sort -u); do
    rm -rf "${ROOT:?}/build/$f"
  done
  tar -C "$ROOT/build" -xJf "$ROOT/build/device-report.tar.xz" || {
    echo "hopper_report.sh: cannot unpack build/device-report.tar.xz" >&2
    exit 1
  }
fi
has() { [[ " $PARTS " == *" $1 "* ]]; }
LIB=/tmp/nvfp4-hopper-build/libnvfp4_runtime.so
if has matrix; then
  mkdir -p "$OUTDIR/matrix"
  bash "$ROOT/scripts/device/hopper_attention.sh" "$OUTDIR/matrix" \
    >"$OUTDIR/matrix/log.txt" 2>&1 || status=1
fi
# hopper_attention.sh builds the runtime library there; without it the
# benchmarks build their own.
[[ -f "$LIB" ]] && export NVFP4_LIBRARY="$LIB"
if has bench; then
  mkdir -p "$OUTDIR/bench"
  python3 "$ROOT/bench/hopper/ours.py" "$OUTDIR/bench" \
    >"$OUTDIR/bench/log.txt" 2>&1 || status=1
fi
if has mla; then
  mkdir -p "$OUTDIR/mla"
  python3 "$ROOT/bench/hopper/mla.py" "$OUTDIR/mla" \
    >"$OUTDIR/mla/log.txt" 2>&1 || status=1
fi
if has v4; then
  mkdir -p "$OUTDIR/v4"
  python3 "$ROOT/bench/hopper/v4.py" "$OUTDIR/v4" \
    >"$OUTDIR/v4/log.txt" 2>&1 || status=1
fi
{
  echo "# The sm_90a attention kernels on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null)"
  if has matrix; then
    echo
    echo "## Against float64 and the emulator (scripts/device/hopper_attention.sh)"
    echo
    grep -E '^(PASS|FAIL)|kernels:' "$OUTDIR/matrix/hopper_attention.txt" 2>/dev/null
  fi
  if has bench; then
    echo
    echo "## Times beside SDPA (bench/hopper/ours.py)"
    echo
    cat "$OUTDIR/bench/ours.md" 2>/dev/null
  fi
  if has mla; then
    echo
    echo "## MLA decode beside FlashMLA (bench/hopper/mla.py)"
    echo
    cat "$OUTDIR/mla/mla.md" 2>/dev/null
  fi
  if has v4; then
    echo
    echo "## DeepSeek-V4 sparse decode beside FlashMLA (bench/hopper/v4.py)"
    echo
    cat "$OUTDIR/v4/v4.md" 2>/dev/null
  fi
} >"$OUTDIR/report.md"
cat "$OUTDIR/report.md"
exit $status
