#!/usr/bin/env bash
#===- gen_ours.sh - our sm_90a attention kernels for bench/hopper/ ---------===#
#
# Run here (LLVM/MLIR and the project build): compiles benchmark shapes
# through the C API for sm_90a, the balanced split-KV plan for the H200's
# 132 SMs, cubins included, into FOLDER/NAME.nvfp4; carry that folder to
# the GPU machine (docs/Hopper.md):
#   gen_ours.sh [FOLDER]        SHAPES of bench/hopper/shapes.py (GQA decode,
#                               causal prefill) for bench/hopper/ours.py,
#                               default build/device-hopper-bench;
#   gen_ours.sh --mla [FOLDER]  MLA_SHAPES (D 576, V = K's first 512
#                               columns, 64-key pages, kv_lens) for
#                               bench/hopper/mla.py, default
#                               build/device-hopper-mla (bench/hopper/
#                               gen_mla.sh runs this);
#   gen_ours.sh --v4 [FOLDER]   V4_SHAPES (DeepSeek-V4's sparse decode over
#                               the MODEL1 fp8 cache, sink) for
#                               bench/hopper/v4.py, default
#                               build/device-hopper-v4.
# NUM_SMS=N in the environment plans for N SMs instead of the H200's 132
# (the balanced plan's partition count; for plan experiments with
# bench/hopper/ab.py); MIN_PIECE_KEYS=N sets the plan's shortest share
# (nvfp4-lower-attention's min-piece-keys, default 256; 0: no floor);
# POLY_EXP2=N computes N of every 8 of P's exponentials on the FMA pipe
# (nvfp4-lower-attention's poly-exp2; default -1: the pass's rule);
# CLUSTER_MERGE=N sets the most pieces a cluster merges instead of the
# combine kernel (nvfp4-lower-attention's cluster-merge, default 8; 0:
# never); P_SHARED=0|1 reads P V's P from registers or shared memory
# (nvfp4-lower-attention's p-shared; default -1: the pass's rule).
# ONLY=SUBSTRING compiles only the shapes whose names hold it.
#
#===----------------------------------------------------------------------===#
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="${NVFP4_BUILD_DIR:-$ROOT/build}"
KIND=ours
if [[ "${1:-}" == "--mla" || "${1:-}" == "--v4" ]]; then
  KIND="${1#--}"
  shift
fi
DEFAULT="$ROOT/build/device-hopper-bench"
[[ "$KIND" == mla ]] && DEFAULT="$ROOT/build/device-hopper-mla"
[[ "$KIND" == v4 ]] && DEFAULT="$ROOT/build/device-hopper-v4"
OUT="${1:-$DEFAULT}"
mkdir -p "$OUT"
rm -f "$OUT"/*.nvfp4
NVFP4_LIBRARY="$BUILD/lib/libnvfp4.so" \
  PYTHONPATH="$ROOT/python:$ROOT/scripts:$ROOT/bench/hopper" \
  python3 - "$OUT" "$KIND" "${NUM_SMS:-132}" "${ONLY:-}" \
  "${MIN_PIECE_KEYS:-256}" "${POLY_EXP2:--1}" "${CLUSTER_MERGE:-8}" \
  "${P_SHARED:--1}" <<'PY'
import sys
import attention_matrix as am
import nvfp4
from shapes import MLA_PAGE, MLA_SHAPES, SHAPES, V4_PAGE, V4_SHAPES

out, kind, only = sys.argv[1], sys.argv[2], sys.argv[4]
sms, min_piece_keys = int(sys.argv[3]), int(sys.argv[5])
poly_exp2, cluster_merge = int(sys.argv[6]), int(sys.argv[7])
p_shared = int(sys.argv[8])
cases = []
if kind == "v4":
    for s in V4_SHAPES:
        cases.append(am.case(s["name"], b=s["b"], sq=1, hq=s["hq"], hkv=1,
                             topk=s["topk"], d=s["d"], same=True,
                             cache="deepseek_v4_fp8", cache_page=V4_PAGE,
                             slots=s["b"] * s["ctx"], sink=True,
                             lens=s.get("lens", False)))
elif kind == "mla":
    for s in MLA_SHAPES:
        cases.append(am.case(s["name"], b=s["b"], sq=1, hq=s["hq"], hkv=1,
                             skv=s["skv"], d=s["d"], dv=s["dv"], vslice=True,
                             page=MLA_PAGE, lens=True))
else:
    for s in SHAPES:
        cases.append(am.case(s["name"], b=s["b"], sq=s["sq"], hq=s["hq"],
                             hkv=s["hkv"], skv=s["skv"], d=s["d"],
                             causal=s.get("causal", False)))
cases = [c for c in cases if only in c["name"]]
for c in cases:
    k = nvfp4.compile(am.op_text(c), chip="sm_90a", features="+ptx80",
                      num_sms=sms, min_piece_keys=min_piece_keys,
                      poly_exp2=poly_exp2, cluster_merge=cluster_merge,
                      p_shared=p_shared,
                      cubin=1)
    k.save("%s/%s.nvfp4" % (out, c["name"]))
print("gen_ours.sh: wrote %d kernels to %s" % (len(cases), out))
PY
