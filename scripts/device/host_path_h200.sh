#!/usr/bin/env bash
#===- host_path_h200.sh - host-lowered code on the real driver ------------===#
#
# Run from the repository root on the GPU machine (an H200), with
# build/device-host carried (scripts/device/gen_host_objects.sh makes it):
# builds the runtime standalone with libnvfp4_host_runtime and host_main
# linked with merge_sm90.o (nvfp4.attention_merge lowered whole for sm_90a:
# kernel as PTX, host code calling mgpu*), then calls the function through
# the real CUDA driver (NVFP4_BACKEND=cuda) for three seeds, and once on the
# emulator for comparison; each run compares with float64. Also the error
# path (a bad NVFP4_DEVICE ordinal), and python_torch_h200.py: the Python
# package's DLPack reader on torch CUDA tensors, and the same function
# called from Python on torch tensors. Then capi_h200.py: the C API
# without a compiler (libnvfp4_runtime.so) loads the merge saved as kernel
# artifacts (with a cubin, and PTX only) and launches it on torch tensors,
# on the default stream and on a torch stream.
#
# Usage: scripts/device/host_path_h200.sh [OUTDIR]  (default $OUT)
# Writes summary.txt (PASS/FAIL per check) and host_path.log there.
#
#===----------------------------------------------------------------------===#
set -u -o pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUTDIR="${1:-${OUT:-$ROOT/build-device-host}}"
mkdir -p "$OUTDIR"
LOG="$OUTDIR/host_path.log"
SUMMARY="$OUTDIR/summary.txt"
: >"$LOG"
: >"$SUMMARY"
pass=0
failed=0
check() { # NAME COMMAND...
  local name="$1"
  shift
  echo "== $name: $*" >>"$LOG"
  if "$@" >>"$LOG" 2>&1; then
    echo "PASS $name" >>"$SUMMARY"
    pass=$((pass + 1))
  else
    echo "FAIL $name" >>"$SUMMARY"
    failed=$((failed + 1))
  fi
}
OBJ="$ROOT/build/device-host/merge_sm90.o;$ROOT/build/device-host/merge_into_sm90.o"
BD=/tmp/nvfp4-host-build
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv >>"$LOG" 2>&1
check build bash -c "cmake -S '$ROOT/scripts/device' -B $BD -DNVFP4_HOST_OBJECTS='$OBJ' >/dev/null && cmake --build $BD -j16 --target host_main host_objects nvfp4_c_runtime"
for seed in 1 2 3; do
  check "cuda seed $seed" env NVFP4_BACKEND=cuda "$BD/bin/host_main" merge "$seed"
done
check "emulator seed 1" env NVFP4_BACKEND=emulator "$BD/bin/host_main" merge 1
check "bad ordinal is an error" bash -c "out=\$(env NVFP4_BACKEND=cuda NVFP4_DEVICE=7 '$BD/bin/host_main' merge 1 2>&1); echo \"\$out\"; ! grep -q '^PASS' <<<\"\$out\""
check "python: torch tensors" env PYTHONPATH="$ROOT/python" python3 \
  "$ROOT/scripts/device/python_torch_h200.py" "$BD/libhost_objects.so" \
  "$BD/libnvfp4_host_runtime.so"
check "python: artifacts through libnvfp4_runtime" env PYTHONPATH="$ROOT/python" \
  NVFP4_LIBRARY="$BD/libnvfp4_runtime.so" python3 \
  "$ROOT/scripts/device/capi_h200.py" "$ROOT/build/device-host/merge_sm90.nvfp4" \
  "$ROOT/build/device-host/merge_sm90_ptx.nvfp4"
echo "$pass passed, $failed failed" >>"$SUMMARY"
cat "$SUMMARY"
[ "$failed" -eq 0 ]
