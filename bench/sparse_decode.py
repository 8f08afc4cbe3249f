#!/usr/bin/env python3
"""Sparse top-k decode over DeepSeek's fp8 caches (issue 13), per example.

For each input (default: examples/dsv4_pro_csa_layer.mlir and
examples/dsv4_flash_hca_layer.mlir) one emulator run (nvfp4-run
--cta-stats) gives:

  bytes / minimum  = (TMA bytes + bytes loaded by ld of the attention
                      kernel + bytes the combine kernel loads) / minimum,
                      the minimum being Q once plus, for every query row,
                      each visible key's data and scale bytes once and
                      each index entry it uses (4 bytes) once;
  SM fill          = total P V work / (SMs x the busiest CTA's), from the
                     per-CTA counts of P V MMAs (one per 16-key chunk);
  FLOPs per byte   = useful tensor-core FLOPs (2 Hq (D + Dv) per visible
                     key and query row) / bytes read, next to a B200's
                     ratio of dense bf16 FLOP/s to HBM bytes/s (2.25e15 /
                     8e12 = 281): above it the decode is compute-bound;
                     and the FLOPs the issued MMAs do / the useful ones
                     (padding of M = 128 rows beyond the heads, of the
                     last tile of a key set, of the tile between the two
                     key sets).

The visible keys are recounted here from the harness's seeded fills
(rt::fillLengths, rt::fillIndices, re-implemented below; the run's
printed lengths are checked against them).

The last column is a lower bound, not a measurement: the least bytes /
minimum that any key-split plan reaching SM fill >= 0.90 must read on that
shape, over CTA pairs (this kernel) and over clusters of 16 CTAs that
share Q by multicast and reduce a row's pieces in distributed shared
memory (no such kernel exists yet).

Each input is measured as written (split-KV balanced over the SMs) and
with num_splits(1) (one CTA pair per query row: the gathers, indices and
scales alone, no partial results).

  bench/sparse_decode.py [--build DIR] [--sms N] [INPUT.mlir ...]
"""
import argparse
import math
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MASK = (1 << 64) - 1
# Per layout: data bytes per token (e4m3 + bf16), scale bytes per token.
LAYOUT = {"deepseek_v4_fp8": (448 + 64 * 2, 7),
          "deepseek_v32_fp8": (512 + 64 * 2, 16)}


class SplitMix64:
    def __init__(self, seed):
        self.s = seed & MASK

    def next(self):
        self.s = (self.s + 0x9E3779B97F4A7C15) & MASK
        z = self.s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)


def fill_lengths(n, bound, seed):
    rng = SplitMix64(seed)
    out = [1 + rng.next() % bound for _ in range(n)]
    if n >= 2:
        out[0], out[n - 1] = bound, 1
    if n >= 3 and bound >= 4:
        lo, hi = bound // 2 + 1, bound - 1
        v = lo + rng.next() % (hi - lo + 1)
        out[1] = v - 1 if v % 2 == 0 else v
    return out


def fill_indices(n, row, slots, seed):
    rng = SplitMix64(seed)
    out = [-1] * n
    for i in range(n):
        r, t = rng.next(), i % row
        if r % 8 == 0:
            continue
        if r % 8 == 1 and t > 0:
            out[i] = out[i - 1 - (r >> 8) % t]
        else:
            out[i] = (r >> 8) % slots
    for r in range(0, -(-n // row)):
        if r % 2 == 1:
            out[r * row + row - 1] = -1
        if r == 1 and n >= 2 * row:
            out[row:2 * row] = [-1] * row
    return out


def measure(run, path, sms, tmp, whole=False):
    if whole:
        # The same op without split-KV (num_splits(1)): what the gathers,
        # indices and scales cost alone.
        with open(path) as f:
            text = f.read()
        path = os.path.join(tmp, "whole_" + os.path.basename(path))
        with open(path, "w") as f:
            f.write(re.sub(r"(softmax_scale\([^)]*\))", r"\1 num_splits(1)",
                           text, count=1) if "num_splits" not in text
                    else text)
    csv = os.path.join(tmp, os.path.basename(path) + ".csv")
    r = subprocess.run([run, "--backend=emulator", path, "--num-sms=%d" % sms,
                        "--cta-stats=" + csv], capture_output=True, text=True)
    out = r.stdout + r.stderr
    if r.returncode != 0:
        sys.exit("nvfp4-run failed on %s:\n%s" % (path, out[-3000:]))
    sizes = dict((k, int(v)) for k, v in re.findall(
        r"(\w+)=(\d+)", re.search(r"nvfp4-run: sizes (.*?),", out).group(1)))
    layout = re.search(r"a (\w+) cache", out).group(1)
    # Tensor order (the seeds are 1 + the tensor's index): q kv sink kv_lens
    # indices kv2 kv_lens2 indices2 o lse.
    names = re.findall(r"^  tensor (\w+):", out, re.M)
    seed = {n: 1 + i for i, n in enumerate(names)}
    B, Sq, Hq, D, Dv = (sizes[k] for k in ("b", "sq", "hq", "d", "dv"))
    sets = [("kv_lens", "indices", sizes["topk"], sizes["np"] * sizes["ps"])]
    if "topk2" in sizes:
        sets.append(("kv_lens2", "indices2", sizes["topk2"],
                     sizes["np2"] * sizes["ps2"]))
    visible = [0] * (B * Sq)
    entries = [0] * (B * Sq)
    for lens_name, idx_name, topk, slots in sets:
        if "tensor %s: i32 [%d] input" % (lens_name, B) in out:
            lens = fill_lengths(B, topk, seed[lens_name])
            printed = re.search(r"tensor %s: .*: ([0-9,]+)" % lens_name, out)
            if [int(x) for x in printed.group(1).split(",")] != lens:
                sys.exit("lengths differ from fillLengths for " + lens_name)
        else:
            lens = [topk] * B
        idx = fill_indices(B * Sq * topk, topk, slots, seed[idx_name])
        for b in range(B):
            for i in range(Sq):
                row = idx[(b * Sq + i) * topk:(b * Sq + i + 1) * topk]
                visible[b * Sq + i] += sum(1 for t in range(lens[b])
                                           if row[t] >= 0)
                entries[b * Sq + i] += lens[b]
    data, scales = LAYOUT[layout]
    minimum = (B * Sq * Hq * D * 2 + sum(visible) * (data + scales)
               + 4 * sum(entries))
    reports = re.findall(r"(\d+) TMA bytes loaded, (\d+) bytes loaded by ld",
                         out)
    read = int(reports[0][0]) + int(reports[0][1]) + sum(
        int(ld) for _, ld in reports[1:])
    per_cta, smem_a, tmem_a = [], 0, 0
    with open(csv) as f:
        next(f)
        for line in f:
            kernel, cta, sa, ta, tma = line.strip().split(",")[:5]
            if kernel.endswith("_combine"):
                continue
            per_cta.append(int(ta))
            smem_a += int(sa)
            tmem_a += int(ta)
    busiest = max(per_cta)
    fill = sum(per_cta) / (sms * busiest) if busiest else 0.0
    sched = subprocess.run(
        [os.path.join(os.path.dirname(run), "nvfp4-opt"), path,
         "--nvfp4-lower-attention"], capture_output=True, text=True).stdout
    tile = int(re.search(r"kv_tile = (\d+)", sched).group(1))
    dv_split = int(re.search(r"dv_split = (\d+)", sched).group(1))
    # S: M = 128, N = tile, K = 16 per MMA; P V: N = Dv / dv_split.
    issued = 2 * 128 * 16 * (smem_a * tile + tmem_a * Dv // dv_split)
    useful = 2 * Hq * (D + Dv) * sum(visible)
    name = os.path.relpath(path, ROOT) if path.startswith(ROOT) else (
        os.path.basename(path)[len("whole_"):] + ", num_splits(1)")
    # The least bytes / minimum of any plan reaching SM fill >= 0.90 on this
    # shape that splits rows by keys over clusters of `cluster` CTAs, each
    # cluster reading its row's Q once (multicast) and reducing its pieces
    # in distributed shared memory, pieces in different clusters writing an
    # f32 partial O the combine reads back (bench/split_kv.py's
    # bytes_floor, docs/AttentionLowering.md "Why fill >= 0.90 and bytes <=
    # 1.02 cannot both hold", on these rows: work in 16-key chunks of index
    # entries per row). cluster 2: this kernel's pairs; 16: the largest
    # cluster SM100 launches.
    rows = B * Sq
    chunks = [-(-e // 16) for e in entries]
    floors = {}
    for cluster in (2, 16):
        W, clusters = sum(chunks), sms // cluster
        R = -(-math.ceil(0.9 * sms - 1e-9) // cluster)
        q_bytes, partial = Hq * D * 2, Hq * Dv * 4
        if R > clusters or W == 0:
            floors[cluster] = math.inf
            continue
        cap = cluster * W / (0.9 * sms)
        pieces = [max(1, math.ceil(c / cap)) for c in chunks]
        balance = sum((n - 1) * q_bytes + n * partial
                      for n in pieces if n > 1)
        count = ((R - rows) * q_bytes + (R - rows + 1) * partial
                 if R > rows else 0)
        floors[cluster] = (minimum + max(balance, count)) / minimum
    return dict(name=name, layout=layout, floors=floors,
                verdict=out.strip().splitlines()[-1], B=B, Sq=Sq, Hq=Hq,
                keys=sum(visible), entries=sum(entries), read=read,
                minimum=minimum, fill=fill, useful=useful, issued=issued)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("inputs", nargs="*", default=[
        os.path.join(ROOT, "examples", "dsv4_pro_csa_layer.mlir"),
        os.path.join(ROOT, "examples", "dsv4_flash_hca_layer.mlir")])
    ap.add_argument("--build", default=os.environ.get(
        "NVFP4_BUILD_DIR", os.path.join(ROOT, "build")))
    ap.add_argument("--sms", type=int, default=148)
    args = ap.parse_args()
    run = os.path.join(args.build, "bin", "nvfp4-run")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for path in args.inputs:
            rows.append(measure(run, path, args.sms, tmp))
            rows.append(measure(run, path, args.sms, tmp, whole=True))
    print("| example | B x Sq, heads | visible keys / index entries | bytes "
          "read / minimum | SM fill | useful FLOPs / byte (B200: 281) | "
          "issued / useful MMA FLOPs | floor at fill 0.90: pairs, clusters "
          "of 16 | result |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print("| %s | %d x %d, %d | %d / %d | %d / %d = %.3f | %.3f | %.0f | "
              "%.2f | %.2f, %.2f | %s |" % (
                  r["name"], r["B"], r["Sq"], r["Hq"], r["keys"],
                  r["entries"], r["read"], r["minimum"],
                  r["read"] / r["minimum"], r["fill"],
                  r["useful"] / r["read"], r["issued"] / r["useful"],
                  r["floors"][2], r["floors"][16],
                  r["verdict"].split(" ")[0]))


if __name__ == "__main__":
    main()
