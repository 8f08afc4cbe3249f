#!/usr/bin/env bash
#===- gen_host_objects.sh - objects of host-lowered functions -------------===#
#
# Run here (the machine with LLVM/MLIR and the project build): lowers
# test/Host/Inputs/merge.mlir whole for sm_90a (nvfp4-opt --nvfp4-to-llvm,
# mlir-translate, llc) into build/device-host/merge_sm90.o, which
# scripts/device/host_path_h200.sh links on the GPU machine (pass
# build/device-host in the run's carry).
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
echo "gen_host_objects.sh: wrote $OUT/merge_sm90.o"
