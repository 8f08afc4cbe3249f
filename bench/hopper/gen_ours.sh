#!/usr/bin/env bash
#===- gen_ours.sh - our sm_90a attention kernels for bench/hopper/ours.py --===#
#
# Run here (LLVM/MLIR and the project build): compiles the benchmark shapes
# of bench/hopper/ours.py (SHAPES there) through the C API for sm_90a, the
# balanced split-KV plan for the H200's 132 SMs, cubins included, into
# build/device-hopper-bench/NAME.nvfp4; carry that folder to the GPU
# machine and run python3 bench/hopper/ours.py there (docs/Hopper.md).
# Usage: gen_ours.sh [FOLDER] (default build/device-hopper-bench).
#
#===----------------------------------------------------------------------===#
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="${NVFP4_BUILD_DIR:-$ROOT/build}"
OUT="${1:-$ROOT/build/device-hopper-bench}"
mkdir -p "$OUT"
rm -f "$OUT"/*.nvfp4
NVFP4_LIBRARY="$BUILD/lib/libnvfp4.so" \
  PYTHONPATH="$ROOT/python:$ROOT/scripts:$ROOT/bench/hopper" python3 - "$OUT" <<'PY'
import sys
import attention_matrix as am
import nvfp4
from shapes import SHAPES

out = sys.argv[1]
for s in SHAPES:
    c = am.case(s["name"], b=s["b"], sq=s["sq"], hq=s["hq"], hkv=s["hkv"],
                skv=s["skv"], d=s["d"], causal=s.get("causal", False))
    k = nvfp4.compile(am.op_text(c), chip="sm_90a", features="+ptx80",
                      num_sms=132, cubin=1)
    k.save("%s/%s.nvfp4" % (out, s["name"]))
print("gen_ours.sh: wrote %d kernels to %s" % (len(SHAPES), out))
PY
