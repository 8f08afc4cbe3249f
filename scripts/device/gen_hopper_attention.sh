#!/usr/bin/env bash
#===- gen_hopper_attention.sh - sm_90a attention kernels as artifacts ------===#
#
# Run here (the machine with LLVM/MLIR and the project build): compiles the
# sm_90a cases of the attention matrix (scripts/attention_matrix.py
# --chip=sm_90a, the CI set) through the C API for sm_90a with a cubin, the
# balanced split-KV plan for the H200's 132 SMs, into
# build/device-hopper/NAME.nvfp4 (docs/CAPI.md, kernel artifacts).
# scripts/device/hopper_attention.sh runs them on the GPU machine (pass
# build/device-hopper in the run's carry). docs/Hopper.md.
#
# Usage: scripts/device/gen_hopper_attention.sh [--only=SUBSTRING]
# P_SHARED=0|1 in the environment compiles with nvfp4-lower-attention's
# p-shared (default -1: the pass's rule; docs/Hopper.md, "P through shared
# memory").
#
#===----------------------------------------------------------------------===#
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="${NVFP4_BUILD_DIR:-$ROOT/build}"
OUT="$ROOT/build/device-hopper"
rm -rf "$OUT"
mkdir -p "$OUT"
NVFP4_LIBRARY="$BUILD/lib/libnvfp4.so" \
  PYTHONPATH="$ROOT/python:$ROOT/scripts" python3 - "$OUT" "$@" <<'PY'
import os
import sys
import attention_matrix as am
import nvfp4

out = sys.argv[1]
only = ""
for a in sys.argv[2:]:
    if a.startswith("--only="):
        only = a[len("--only="):]
cases = [c for c in am.ci_cases() if am.hopper_takes(c)] + am.hopper_cases()
n = 0
for c in cases:
    if only not in c["name"]:
        continue
    # V as a slice of K stays one: the C API takes the extract_slice, and
    # the kernel's inputs are q and k (docs/CAPI.md).
    k = nvfp4.compile(am.op_text(c), chip="sm_90a", features="+ptx80",
                      num_sms=132, p_shared=int(os.environ.get("P_SHARED",
                                                               "-1")),
                      cubin=1)
    k.save("%s/%s.nvfp4" % (out, c["name"]))
    n += 1
print("gen_hopper_attention.sh: wrote %d artifacts to %s" % (n, out))
PY
