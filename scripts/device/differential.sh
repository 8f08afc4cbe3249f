#!/usr/bin/env bash
#===- differential.sh - capture the differential corpus on a GPU ------------===#
#
# Run from the repository root on the GPU machine (an H200; CUDA 13, CMake,
# a C++17 compiler and python3; no LLVM, no network). It builds the
# standalone nvfp4-run with both backends (scripts/device/CMakeLists.txt),
# runs every case of test/Differential/manifest.py with --backend=cuda,
# then with --backend=emulator, and prints the comparison (the same one the
# CI replay makes against the committed outputs). docs/Differential.md.
#
# Usage: scripts/device/differential.sh [--only=LIST] [OUTDIR]
#   --only=LIST runs only the cases whose names contain one of LIST's
#   comma-separated substrings (e.g. --only=wgmma_ for the wgmma cases,
#   whose outputs are also checked against A B + C computed on the host;
#   --only=tma_store_ for the TMA stores, checked against a host model).
#   OUTDIR defaults to $OUT, else ./build-device-differential. Written
#   there: differential.tar.gz holding h200/<case>.<buffer>.bin (copy into
#   test/Differential/ and extract), compare.txt and run logs.
#
#===----------------------------------------------------------------------===#
set -u -o pipefail
ONLY=()
case "${1:-}" in --only=*) ONLY=("$1"); shift ;; esac
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUTDIR="${1:-${OUT:-$ROOT/build-device-differential}}"
mkdir -p "$OUTDIR"
OUTDIR="$(cd "$OUTDIR" && pwd)"
CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/nvfp4-differential.XXXXXX")"
DRIVER="$ROOT/test/Differential/differential.py"

{
  date -u
  command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv
  git -C "$ROOT" log -1 --format='commit %H %s' 2>/dev/null || true
} | tee "$WORK/environment.txt"

generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
if ! { cmake -S "$ROOT/scripts/device" -B "$WORK/build" "${generator[@]}" \
         -DCMAKE_BUILD_TYPE=Release -DNVFP4_CUDA_ROOT="$CUDA_HOME" >"$WORK/build.log" 2>&1 &&
       cmake --build "$WORK/build" --parallel "$(nproc)" >>"$WORK/build.log" 2>&1; }; then
  tail -30 "$WORK/build.log"
  echo "build failed"
  exit 1
fi
RUN="$WORK/build/bin/nvfp4-run"

python3 "$DRIVER" run "${ONLY[@]}" --nvfp4-run="$RUN" --backend=cuda --outdir="$WORK/h200" 2>&1 | tee "$WORK/run-cuda.txt"
python3 "$DRIVER" run "${ONLY[@]}" --nvfp4-run="$RUN" --backend=emulator --outdir="$WORK/emulator" 2>&1 | tee "$WORK/run-emulator.txt"
python3 "$DRIVER" compare "${ONLY[@]}" --ref="$WORK/h200" --test="$WORK/emulator" >"$WORK/compare.txt" 2>&1
status=$?
# The wgmma cases' H200 outputs against A B + C (the layouts and fragments),
# the TMA store cases' against the model of the store.
python3 "$DRIVER" wgmma-reference "${ONLY[@]}" --ref="$WORK/h200" >>"$WORK/compare.txt" 2>&1 || status=1
python3 "$DRIVER" tma-store-reference "${ONLY[@]}" --ref="$WORK/h200" >>"$WORK/compare.txt" 2>&1 || status=1
rm -rf "$WORK/h200/inputs"
(cd "$WORK" && tar czf "$OUTDIR/differential.tar.gz" h200 environment.txt run-cuda.txt \
   run-emulator.txt compare.txt)
cp "$WORK/compare.txt" "$OUTDIR/compare.txt"
grep -v '^approx' "$WORK/compare.txt" | head -150
grep '^approx' "$WORK/compare.txt"
ls -l "$OUTDIR"
exit $status
