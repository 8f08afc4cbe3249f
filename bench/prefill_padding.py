#!/usr/bin/env python3
"""The padding rows of causal prefills: MMA work issued over the causal
triangle's, with the partly filled row block last (unshifted) and first
(AttentionSchedule::queryShift; docs/AttentionLowering.md, "The partly
filled row block"), for the prefill shapes of bench/hopper/shapes.py; then
the emulator's counters of a small causal prefill on sm_90a against the
same model (S wgmma instructions: tiles x consumers x D / 16).

  python3 bench/prefill_padding.py [--nvfp4-run=build/bin/nvfp4-run]
"""

import argparse
import csv
import math
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))


def shift_of(sq, qpc):
    """AttentionSchedule::queryShift: the partly filled block's padding."""
    return (qpc - sq % qpc) % qpc


def tiles(sq, qpc, tile, shift):
    """KV tiles each query block of a causal prefill (Skv = Sq) visits."""
    out = []
    for q in range(math.ceil(sq / qpc)):
        i0 = q * qpc - shift
        i1 = min(i0 + qpc, sq)
        out.append(math.ceil(i1 / tile))
    return out


def issued_over_useful(sq, qpc, tile, shift):
    issued = sum(qpc * n * tile for n in tiles(sq, qpc, tile, shift))
    return issued / (sq * (sq + 1) / 2)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--nvfp4-run",
                    default=os.path.join(ROOT, "build", "bin", "nvfp4-run"))
    args = ap.parse_args()
    print("| shape | rows a block | padding rows | issued / useful, last | "
          "first | work saved |")
    print("|---|---|---|---|---|---|")
    # bench/hopper/shapes.py's causal prefills: D 64 in 192-row blocks
    # (three consumer warpgroups), D 128 / 256 in 128.
    for d, qpc in ((64, 192), (128, 128), (256, 128)):
        for b, sq in ((4, 4096), (1, 16384)):
            tile = 128 if d <= 128 else 64
            shift = shift_of(sq, qpc)
            a = issued_over_useful(sq, qpc, tile, 0)
            f = issued_over_useful(sq, qpc, tile, shift)
            print("| prefill D %d, B %d, S %d | %d | %d | %.4f | %.4f | "
                  "%.1f%% |" % (d, b, sq, qpc, shift, a, f,
                                100 * (1 - f / a)))
    import attention_matrix as am
    sq, heads, d, qpc = 1000, 2, 64, 192
    case = am.case("padding", b=1, sq=sq, hq=heads, hkv=heads, skv=sq, d=d,
                   causal=True)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "padding.mlir")
        with open(path, "w") as f:
            f.write(am.op_text(case))
        stats = os.path.join(tmp, "stats.csv")
        subprocess.check_call(
            [args.nvfp4_run, "--backend=emulator", "--chip=sm_90a",
             "--num-sms=8", path, "--cta-stats=" + stats],
            stdout=subprocess.DEVNULL)
        with open(stats) as f:
            counted = sum(int(r["wgmmas_smem_a"]) for r in csv.DictReader(f)
                          if r["kernel"].endswith("_attention"))
    shift = shift_of(sq, qpc)
    per = 3 * d // 16  # consumers x S wgmma a tile
    model = heads * per * sum(tiles(sq, qpc, 128, shift))
    before = heads * per * sum(tiles(sq, qpc, 128, 0))
    print("\nemulator, B 1, %d heads, Sq = Skv = %d, D %d, sm_90a: %d S "
          "wgmma counted, model %d (%s), unshifted model %d" %
          (heads, sq, d, counted, model,
           "equal" if counted == model else "DIFFERENT", before))
    return 0 if counted == model else 1


if __name__ == "__main__":
    sys.exit(main())
