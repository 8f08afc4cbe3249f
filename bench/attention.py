#!/usr/bin/env python3
"""Attention figures of issue 5, measured side by side in one run.

For an nvfp4.attention input (default examples/dsv4_decode.mlir):
  1. compile latency: nvfp4-opt from the op to PTX + sm_100a cubin (the whole
     pipeline incl. ptxas), and ptxas alone on the same PTX; median of N;
  2. emulator time: nvfp4-run --backend=emulator (lower, compile, run, check),
     the launch's wall time and the whole command's; median of R;
  3. structural efficiency from the emulator's counters of one run:
     global bytes read by TMA / the minimum (Q once, and each visible K/V
     byte once per KV head: sum over sequences of L_b x (D [+ Dv]) x 2 bytes
     per KV head), and tcgen05.mma count / two minima, per 128-row block
     and KV head (M = 128, K = 16, N <= 256 per instruction):
       for the schedule's KV tiles (kv_tile keys, from nvfp4.schedule):
         ceil(L/kv_tile) x D/16 for S = Q K^T plus ceil(L/16) x
         ceil(Dv/256) for O = P V -- what no redundant or narrower-than-
         needed MMA means for those tiles;
       for 256-key tiles (the widest N): ceil(L/256) x D/16 plus the same
         P V count -- what a schedule with S tiles of 256 keys would need.

  bench/attention.py [--runs N] [--emu-runs R] [--build DIR] [INPUT.mlir]

--emu-runs 0 measures the compile latency only.
"""
import argparse
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def timed(cmd):
    t0 = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True)
    dt = (time.perf_counter() - t0) * 1e3
    if r.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), (r.stdout + r.stderr)[-2000:]))
    return dt, r.stdout + r.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("input", nargs="?",
                    default=os.path.join(ROOT, "examples", "dsv4_decode.mlir"))
    ap.add_argument("--runs", type=int, default=11)
    ap.add_argument("--emu-runs", type=int, default=3)
    ap.add_argument("--build", default=os.environ.get(
        "NVFP4_BUILD_DIR", os.path.join(ROOT, "build")))
    args = ap.parse_args()
    opt = os.path.join(args.build, "bin", "nvfp4-opt")
    run = os.path.join(args.build, "bin", "nvfp4-run")
    ptxas = os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"),
                         "bin", "ptxas")
    name = os.path.relpath(args.input, ROOT)

    with tempfile.TemporaryDirectory() as tmp:
        ptx, cubin = os.path.join(tmp, "a.ptx"), os.path.join(tmp, "a.cubin")
        full, alone = [], []
        for _ in range(args.runs):
            dt, _ = timed([opt, args.input, "--nvfp4-sm100-to-cubin=ptx-file=%s "
                           "cubin-file=%s" % (ptx, cubin), "-o", os.devnull])
            full.append(dt)
            dt, _ = timed([ptxas, "-arch=sm_100a", ptx, "-o",
                           os.path.join(tmp, "b.cubin")])
            alone.append(dt)
    f, a = statistics.median(full), statistics.median(alone)
    print("%s" % name)
    print("  compile, nvfp4.attention -> cubin: %.1f ms (ptxas alone %.1f ms, "
          "%.2fx; median of %d; fastest %.1f ms, slowest %.1f ms)"
          % (f, a, f / a, args.runs, min(full), max(full)))

    if args.emu_runs == 0:
        return  # compile latency only
    walls, launches, out = [], [], ""
    for _ in range(args.emu_runs):
        dt, out = timed([run, "--backend=emulator", args.input])
        walls.append(dt)
        m = re.search(r"finished: ([0-9.]+) ms wall clock", out)
        launches.append(float(m.group(1)))
    verdict = out.strip().splitlines()[-1]
    print("  emulator: launch %.2f s, whole nvfp4-run %.2f s (median of %d); %s"
          % (statistics.median(launches) / 1e3, statistics.median(walls) / 1e3,
             args.emu_runs, verdict))

    sizes = dict((k, int(v)) for k, v in
                 re.findall(r"(\w+)=(\d+)", re.search(r"nvfp4-run: sizes (.*?),",
                                                    out).group(1)))
    m = re.search(r"tensor kv_lens: .*: ([0-9,]+)", out)
    lens = ([int(x) for x in m.group(1).split(",")] if m
            else [sizes["skv"]] * sizes["b"])
    # V read from K's tiles: the same value, or K's leading columns (MLA).
    same = ("input, a copy of k" in out or
            "input, the leading columns of k" in out)
    # The attention kernel's report first, then the combine kernel's (with
    # split-KV): MMAs and TMA bytes of the first, bytes loaded by ld of the
    # second (the partial results).
    reports = re.findall(r"(\d+) MMAs, (\d+) TMA bytes loaded, (\d+) bytes "
                         r"loaded by ld", out)
    mmas, tma = int(reports[0][0]), int(reports[0][1])
    partials = sum(int(r[2]) for r in reports[1:])
    B, Sq, Hq, Hkv, D, Dv = (sizes[k] for k in ("b", "sq", "hq", "hkv", "d", "dv"))
    r = subprocess.run([opt, args.input, "--nvfp4-lower-attention"],
                       capture_output=True, text=True, check=True)
    kv_tile = int(re.search(r"kv_tile = (\d+)", r.stdout).group(1))
    esize = 2
    min_bytes = B * Sq * Hq * D * esize + Hkv * sum(lens) * (D + (0 if same else Dv)) * esize
    row_blocks = math.ceil(Sq * (Hq // Hkv) / 128)

    def min_mmas(s_keys):
        return Hkv * row_blocks * sum(
            math.ceil(L / s_keys) * (D // 16)
            + math.ceil(L / 16) * math.ceil(Dv / 256) for L in lens)
    tiles, wide = min_mmas(kv_tile), min_mmas(256)
    print("  kv_lens %s, K = V: %s, kv_tile %d" % (",".join(map(str, lens)),
                                                 same, kv_tile))
    print("  global bytes read by TMA: %d / minimum %d = %.3f; with the "
          "combine kernel's loads (%d): %.3f (target 1.0)"
          % (tma, min_bytes, tma / min_bytes, partials,
             (tma + partials) / min_bytes))
    print("  tcgen05.mma: %d / minimum for %d-key tiles %d = %.3f (target 1.0); "
          "/ minimum for 256-key tiles %d = %.3f"
          % (mmas, kv_tile, tiles, mmas / tiles, wide, mmas / wide))


if __name__ == "__main__":
    main()
