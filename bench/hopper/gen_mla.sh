#!/usr/bin/env bash
#===- gen_mla.sh - the MLA decode kernels of bench/hopper/mla.py -----------===#
#
# Run here (the machine with LLVM/MLIR and the project build): compiles
# the MLA decode shapes of bench/hopper/shapes.py (MLA_SHAPES: D 576 with V
# as K's first 512 columns, paged, kv_lens) through the C API for sm_90a
# (cubin, the device plan for the H200's 132 SMs) into
# build/device-hopper-mla/NAME.nvfp4 (or FOLDER). bench/hopper/mla.py runs
# them on the GPU machine (carry build/device-hopper-mla, and build/peers
# for FlashMLA beside them). docs/Hopper.md.
#
# Usage: bench/hopper/gen_mla.sh [FOLDER]
#
#===----------------------------------------------------------------------===#
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="${NVFP4_BUILD_DIR:-$ROOT/build}"
OUT="${1:-$ROOT/build/device-hopper-mla}"
rm -rf "$OUT"
mkdir -p "$OUT"
NVFP4_LIBRARY="$BUILD/lib/libnvfp4.so" \
  PYTHONPATH="$ROOT/python:$ROOT/scripts:$ROOT/bench/hopper" \
  python3 - "$OUT" <<'PY'
import sys
import attention_matrix as am
import nvfp4
from shapes import MLA_PAGE, MLA_SHAPES

out = sys.argv[1]
for s in MLA_SHAPES:
    c = am.case(s["name"], b=s["b"], sq=1, hq=s["hq"], hkv=1, skv=s["skv"],
                d=s["d"], dv=s["dv"], vslice=True, page=MLA_PAGE, lens=True)
    k = nvfp4.compile(am.op_text(c), chip="sm_90a", features="+ptx80",
                      num_sms=132, cubin=1)
    k.save("%s/%s.nvfp4" % (out, s["name"]))
print("gen_mla.sh: wrote %d kernels to %s" % (len(MLA_SHAPES), out))
PY
