#!/usr/bin/env bash
#===- sass_dump.sh - SASS of PTX files, loops and wgmma waits summarized ---===#
#
# On the GPU machine (cuobjdump exists only there): assembles each PTX file
# for sm_90a with the local ptxas and writes OUTDIR/NAME.sass (cuobjdump
# -sass; NAME = the file's folder and base name) and OUTDIR/NAME.ops, per
# function:
#   - every loop (a backward branch): its length and opcode histogram;
#   - every WARPGROUP.DEPBAR.LE gsb0, 0x0 that follows a DEPBAR.LE 0x1 (the
#     intra-warpgroup overlap's wait for P V): how many MUFU / FMNMX / F2FP
#     instructions lie between the two waits (the softmax that overlaps the
#     P V GEMM) and how many after the 0x0 wait up to the next HGMMA or
#     BAR.SYNC (the softmax that does not).
# docs/Hopper.md, "Where ptxas puts the P V wait", says what it showed.
#
# Usage: scripts/device/sass_dump.sh OUTDIR FILE.ptx...
#
#===----------------------------------------------------------------------===#
set -euo pipefail
OUTDIR="$1"
shift
mkdir -p "$OUTDIR"
CUDA="${CUDA_HOME:-/usr/local/cuda}"
for ptx in "$@"; do
  name="$(basename "$(dirname "$ptx")")_$(basename "$ptx" .ptx)"
  "$CUDA/bin/ptxas" -arch=sm_90a "$ptx" -o "/tmp/$name.cubin"
  "$CUDA/bin/cuobjdump" -sass "/tmp/$name.cubin" >"$OUTDIR/$name.sass"
  python3 - "$OUTDIR/$name.sass" >"$OUTDIR/$name.ops" <<'PY'
import collections
import re
import sys

funcs = []  # (name, [(address, opcode, text)])
for line in open(sys.argv[1]):
    f = re.match(r"\s*Function : (\S+)", line)
    if f:
        funcs.append((f.group(1), []))
        continue
    m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;", line)
    if m and funcs:
        text = m.group(2)
        op = re.sub(r"^@!?U?P[T0-9]+\s+", "", text).split()[0]
        funcs[-1][1].append((int(m.group(1), 16), op, text))


def count(seg, op):
    return sum(1 for _, o, _ in seg if o.startswith(op))


for fname, ins in funcs:
    print("function %s: %d instructions" % (fname, len(ins)))
    at = {a: i for i, (a, _, _) in enumerate(ins)}
    for i, (a, op, text) in enumerate(ins):
        m = re.search(r"BRA\s+(?:\S+\s+)?0x([0-9a-f]+)", text)
        if not op.startswith("BRA") or not m:
            continue
        target = int(m.group(1), 16)
        if target >= a or target not in at:
            continue
        body = ins[at[target]:i + 1]
        hist = collections.Counter(o.split(".")[0] for _, o, _ in body)
        print("  loop %#x..%#x: %d instructions: %s" % (
            target, a, len(body),
            " ".join("%s %d" % kv for kv in hist.most_common(12))))
    last1 = None
    for i, (a, op, text) in enumerate(ins):
        if op.startswith("WARPGROUP.DEPBAR") and text.endswith("0x1"):
            last1 = i
        elif op.startswith("WARPGROUP.DEPBAR") and text.endswith("0x0"):
            if last1 is None:
                continue
            j = i
            while j < len(ins) and not ins[j][1].startswith(("HGMMA", "BAR.SYNC")):
                j += 1
            before, after = ins[last1:i], ins[i:j]
            print("  P V wait at %#x: before it (overlapping P V) MUFU %d FMNMX %d "
                  "F2FP %d; after it MUFU %d FMNMX %d F2FP %d" % (
                      a, count(before, "MUFU"), count(before, "FMNMX"),
                      count(before, "F2FP"), count(after, "MUFU"),
                      count(after, "FMNMX"), count(after, "F2FP")))
            last1 = None
PY
done
cat "$OUTDIR"/*.ops
