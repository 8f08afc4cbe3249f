#!/usr/bin/env python3
"""DeepSeek-V4 MoE expert GEMMs (nvfp4.grouped_scaled_matmul, issue 14).

For each kernel of examples/dsv4_moe_experts.mlir, one emulator run
(nvfp4-run --cta-stats; the result is checked against float64, so a figure
is reported only for a PASS) gives:

  MMAs / minimum   = the tcgen05.mma FLOPs issued (MMAs x 128 x BN x 64 x 2,
                     BN the MMA's N) / the useful ones (sum over experts of
                     m_g x N x K x 2): the padding of the tiles (decode
                     experts hold at most 32 tokens: the swapped schedule
                     makes them the MMA's N of 32, rows of the weights its
                     M) and the N and K tails;
  SM fill          = total MMAs / (SMs x the busiest CTA's MMAs): 1 when
                     every SM does as much as the busiest;
  tiles per CTA    = the busiest CTA's 128 x BN tiles (its MMAs / (K / 64)).

The experts' token counts are the harness's (rt::fillGroupSizes, printed).

  bench/moe.py [--build DIR] [--sms N]
"""
import argparse
import csv
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLE = os.path.join(ROOT, "examples", "dsv4_moe_experts.mlir")
KERNELS = ["moe_decode_grouped_matmul", "moe_prefill_grouped_matmul"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--sms", type=int, default=148)
    args = ap.parse_args()
    print("%-28s %-34s %9s %8s %9s" % ("kernel", "tokens per expert",
                                       "MMAs/min", "SM fill", "tiles/CTA"))
    for kernel in KERNELS:
        stats = "/tmp/nvfp4-moe-%s.csv" % kernel
        out = subprocess.run(
            [os.path.join(args.build, "bin", "nvfp4-run"), "--backend=emulator",
             EXAMPLE, "--kernel=" + kernel, "--num-sms=%d" % args.sms,
             "--cta-stats=" + stats], capture_output=True, text=True)
        text = out.stdout + out.stderr
        if out.returncode != 0 or not re.search(r"^PASS", text, re.M):
            sys.exit("nvfp4-run failed:\n" + text)
        sizes = dict(re.findall(r"\b(\w+)=(\d+)", re.search(
            r"nvfp4-run: sizes (.*), seed", text).group(1)))
        n, k = int(sizes["n"]), int(sizes["k"])
        counts = [int(x) for x in re.search(
            r"group sizes from seed \d+: ([\d,]+)", text).group(1).split(",")]
        a_rows = int(re.search(r"tmap a as \[e,m,kh\] box=128,(\d+)",
                               text).group(1)) if "tmap a as [e,m,kh]" in text \
            else 128
        b_rows = int(re.search(r"tmap b as \[e,n,kh\] box=128,(\d+)",
                               text).group(1))
        # The MMA is 128 x N x 64: N is B's rows, or (the swapped decode
        # schedule, tokens as the MMA's B) A's.
        block_n = a_rows if a_rows < 128 else b_rows
        with open(stats) as f:
            per_cta = [int(r["mmas_smem_a"]) for r in csv.DictReader(f)]
        os.unlink(stats)
        mmas = sum(per_cta)
        issued = mmas * 128 * block_n * 64 * 2
        useful = sum(counts) * n * k * 2
        fill = mmas / (args.sms * max(per_cta))
        print("%-28s %-34s %9.2f %8.3f %9d" % (
            kernel, ",".join(map(str, counts)), issued / useful, fill,
            max(per_cta) // (k // 64)))


if __name__ == "__main__":
    main()
