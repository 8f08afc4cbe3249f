#!/usr/bin/env bash
#===- gen_host_objects.sh - objects of host-lowered functions -------------===#
#
# Run here (the machine with LLVM/MLIR and the project build): lowers
# test/Host/Inputs/merge.mlir whole for sm_90a (nvfp4-opt --nvfp4-to-llvm,
# mlir-translate, llc) into build/device-host/merge_sm90.o (and
# merge_into.mlir into merge_into_sm90.o), which
# scripts/device/host_path_h200.sh links on the GPU machine (pass
# build/device-host in the run's carry). Also saves the same function
# compiled through the C API as kernel artifacts (merge_sm90.nvfp4 with a
# cubin, merge_sm90_ptx.nvfp4 with PTX only) for scripts/device/
# capi_h200.py, which loads them with libnvfp4_runtime.so.
#
#===----------------------------------------------------------------------===#
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="${NVFP4_BUILD_DIR:-$ROOT/build}"
LLVM=/usr/lib/llvm-22/bin
OUT="$ROOT/build/device-host"
mkdir -p "$OUT"
"$BUILD/bin/nvfp4-opt" "$ROOT/test/Host/Inputs/merge.mlir" \
  --nvfp4-to-llvm="chip=sm_90a features=+ptx80" -o "$OUT/merge_sm90.mlir"
"$LLVM/mlir-translate" --mlir-to-llvmir "$OUT/merge_sm90.mlir" -o "$OUT/merge_sm90.ll"
"$LLVM/llc" -O2 -filetype=obj -relocation-model=pic "$OUT/merge_sm90.ll" \
  -o "$OUT/merge_sm90.o"
# The same merge written into the caller's buffers (device-to-device
# copies into torch memory).
"$BUILD/bin/nvfp4-opt" "$ROOT/test/Host/Inputs/merge_into.mlir" \
  --nvfp4-to-llvm="chip=sm_90a features=+ptx80" -o "$OUT/merge_into_sm90.mlir"
"$LLVM/mlir-translate" --mlir-to-llvmir "$OUT/merge_into_sm90.mlir" \
  -o "$OUT/merge_into_sm90.ll"
"$LLVM/llc" -O2 -filetype=obj -relocation-model=pic \
  "$OUT/merge_into_sm90.ll" -o "$OUT/merge_into_sm90.o"
NVFP4_LIBRARY="$BUILD/lib/libnvfp4.so" PYTHONPATH="$ROOT/python" python3 - \
  "$ROOT/test/Host/Inputs/merge.mlir" "$OUT" <<'PY'
import sys, nvfp4
src, out = sys.argv[1], sys.argv[2]
nvfp4.compile_file(src, chip="sm_90a", features="+ptx80", cubin=1).save(
    out + "/merge_sm90.nvfp4")
nvfp4.compile_file(src, chip="sm_90a", features="+ptx80").save(
    out + "/merge_sm90_ptx.nvfp4")
PY
echo "gen_host_objects.sh: wrote $OUT/merge_sm90.o, merge_into_sm90.o, merge_sm90.nvfp4, merge_sm90_ptx.nvfp4"
