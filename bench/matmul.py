#!/usr/bin/env python3
"""Dense NVFP4 GEMMs (nvfp4.scaled_matmul, issue 14): single CTAs against
CTA pairs (cta_group::2), side by side in one run.

For each shape, nvfp4-run runs the kernel on the emulator three times,
with --cta-group=1, =2 and 0 (the lowering's choice by shape), each checked
against float64 (a figure is reported only for a PASS), with --cta-stats:

  tiles           the kernel's tiles (128 x BN single, 256 x 256 pairs; a
                  decode-sized A of at most 64 rows swaps the operands:
                  128 weight rows x the tokens rounded up to 16)
  TMA / minimum   global bytes the TMA loads / the bytes of A, B and their
                  scale factors (each once): what the tiling re-reads
  busiest SM      the busiest SM's MMA work in 128 x 256 x 64 units (a
                  pair's 256 x 256 x 64 MMA is one unit on each of its two
                  SMs): the kernel's time, MMA-bound
  SM fill         total MMA work / (SMs x the busiest SM's)
  MMA / minimum   the MMA FLOPs issued / 2 M N K (tile padding)

  bench/matmul.py [--build DIR] [--sms N] [MxNxK ...]
"""
import argparse
import csv
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# A DeepSeek-V4 projection prefill chunk (1024 tokens, hidden 4096 to the
# 1024-wide q LoRA), two square ones (64 and 256 pair tiles), and the
# test's ragged shape, and a decode projection (16 tokens, DeepSeek-V4's
# 7168 x 4096 weight). K is kept small where it only scales the run time.
SHAPES = ["1024x1024x4096", "2048x2048x1024", "4096x4096x256", "600x520x1056",
          "16x7168x4096"]


def mlir(m, n, k):
    up = lambda x, r: -(-x // r) * r
    sfa = f"tensor<{up(m, 128)}x{up(k // 16, 4)}xf8E4M3FN>"
    sfb = f"tensor<{up(n, 128)}x{up(k // 16, 4)}xf8E4M3FN>"
    a, b = f"tensor<{m}x{k}xf4E2M1FN>", f"tensor<{n}x{k}xf4E2M1FN>"
    d = f"tensor<{m}x{n}xf32>"
    return (f"func.func @mm(%a: {a}, %sa: {sfa}, %ga: tensor<f32>, %b: {b}, "
            f"%sb: {sfb}, %gb: tensor<f32>) -> {d} {{\n"
            f"  %d = nvfp4.scaled_matmul %a, %sa, %ga, %b, %sb, %gb : ({a}, "
            f"{sfa}, tensor<f32>, {b}, {sfb}, tensor<f32>) -> {d}\n"
            f"  return %d : {d}\n}}\n")


def run(build, path, sms, group):
    stats = path + ".%d.csv" % group
    out = subprocess.run(
        [os.path.join(build, "bin", "nvfp4-run"), "--backend=emulator", path,
         "--num-sms=%d" % sms, "--cta-group=%d" % group,
         "--cta-stats=" + stats], capture_output=True, text=True)
    text = out.stdout + out.stderr
    if out.returncode != 0 or not re.search(r"^PASS", text, re.M):
        sys.exit("nvfp4-run failed:\n" + text[-3000:])
    pair = "cluster=(2,1,1)" in text
    a_rows = int(re.search(r"tmap a as \[m,kh\] box=128,(\d+)", text).group(1))
    b_rows = int(re.search(r"tmap b as \[n,kh\] box=128,(\d+)", text).group(1))
    with open(stats) as f:
        rows = list(csv.DictReader(f))
    os.unlink(stats)
    tma = sum(int(r["tma_bytes"]) for r in rows)
    mmas = [int(r["mmas_smem_a"]) for r in rows]
    if pair:
        # The leader issues; each MMA is 256 x 256 x 64: one 128 x 256 x 64
        # unit on each SM of the pair.
        per_sm = [mmas[i - i % 2] for i in range(len(mmas))]
        block_n = 2 * b_rows
        flops = sum(mmas) * 256 * 256 * 64 * 2
    else:
        # Swapped: the MMA's N is A's box (the tokens).
        block_n = a_rows if a_rows < 128 else b_rows
        per_sm = [x * block_n / 256 for x in mmas]
        flops = sum(mmas) * 128 * block_n * 64 * 2
    return pair, a_rows < 128, block_n, tma, per_sm, flops


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--sms", type=int, default=148)
    ap.add_argument("shapes", nargs="*", default=SHAPES)
    args = ap.parse_args()
    print("%-16s %-18s %7s %9s %11s %8s %8s" % (
        "M x N x K", "schedule", "tiles", "TMA/min", "busiest SM", "SM fill",
        "MMA/min"))
    with tempfile.TemporaryDirectory() as tmp:
        for shape in args.shapes:
            m, n, k = (int(x) for x in shape.split("x"))
            path = os.path.join(tmp, "mm.mlir")
            with open(path, "w") as f:
                f.write(mlir(m, n, k))
            up = lambda x, r: -(-x // r) * r
            minimum = (m + n) * k // 2 + (up(m, 128) + up(n, 128)) * up(
                k // 16, 4)
            for group in (1, 2, 0):
                pair, swap, block_n, tma, per_sm, flops = run(
                    args.build, path, args.sms, group)
                if swap:
                    tiles = -(-n // 128)
                    name = "1 CTA swapped %d" % block_n
                else:
                    tiles = (-(-m // (256 if pair else 128))) * -(-n // block_n)
                    name = ("pairs 256x256" if pair else
                            "1 CTA 128x%d" % block_n)
                if group == 0:
                    name = "by shape: " + ("pairs" if pair else
                                           "swapped" if swap else "1 CTA")
                fill = sum(per_sm) / (args.sms * max(per_sm))
                print("%-16s %-18s %7d %9.3f %11.1f %8.3f %8.2f" % (
                    shape, name, tiles, tma / minimum, max(per_sm), fill,
                    flops / (2.0 * m * n * k)))


if __name__ == "__main__":
    main()
