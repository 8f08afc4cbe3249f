#!/usr/bin/env python3
"""SM fill of the sm_90a decode kernels: the plan model beside the
emulator's per-CTA counters for the same shapes (issue 16; docs/Hopper.md,
"Increment 5").

bench/hopper/mla.py and ours.py print shapes.sm_fill (the balanced plan
the kernel computes, in Python) next to the H200's times. This checks that
model against what the kernel does: each shape is lowered for sm_90a and
132 SMs and run on the emulator (nvfp4-run --chip=sm_90a --cta-stats),
whose per-CTA wgmma counts (A in shared memory and in registers, one per
warpgroup instruction) are a fixed number per KV tile, so

  SM fill (emulator) = sum of per-CTA wgmmas / (132 x the busiest CTA's)

must equal the model's on the kv_lens nvfp4-run drew (it prints them).
The shapes are small MLA decodes (D 576, V = K's first 512 columns, 64 or
128 heads, 64-key pages, kv_lens) and GQA decodes (D 128, kv_lens) that
emulate in seconds; the model covers the benchmarks' large ones.

  bench/hopper/fill.py [--build DIR | --nvfp4-run PATH] [--only SUBSTR]

(test/Runtime/hopper-fill.test runs it in CI.)

Exit status 0 when every shape's model equals the emulator's figure.
"""
import argparse
import csv
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import attention_matrix as am  # noqa: E402
from shapes import MLA_PAGE, sm_fill  # noqa: E402

SMS = 132
SHAPES = [{"name": "mla_h%d_b%d_kv%d" % (hq, b, skv), "b": b, "hq": hq,
           "skv": skv, "d": 576, "dv": 512}
          for hq, b, skv in ((128, 1, 1024), (128, 2, 2048), (64, 4, 1024),
                             (64, 3, 3000), (128, 4, 700))]
# GQA decodes (one consumer warpgroup, 128-key tiles over the plan's
# 64-key blocks), the kind of SHAPES' decode rows.
SHAPES += [{"name": "gqa_h%d_%d_b%d_kv%d" % (hq, hkv, b, skv), "b": b,
            "hq": hq, "hkv": hkv, "skv": skv, "d": 128}
           for hq, hkv, b, skv in ((64, 8, 2, 1024), (16, 2, 3, 1500))]


def emulate(run, s, tmp):
    if "dv" in s:
        c = am.case(s["name"], b=s["b"], sq=1, hq=s["hq"], hkv=1,
                    skv=s["skv"], d=s["d"], dv=s["dv"], vslice=True,
                    page=MLA_PAGE, lens=True)
    else:
        c = am.case(s["name"], b=s["b"], sq=1, hq=s["hq"], hkv=s["hkv"],
                    skv=s["skv"], d=s["d"], lens=True)
    path = os.path.join(tmp, s["name"] + ".mlir")
    stats = path + ".csv"
    with open(path, "w") as f:
        f.write(am.op_text(c))
    r = subprocess.run([run, "--backend=emulator", "--chip=sm_90a", path,
                        "--num-sms=%d" % SMS, "--cta-stats=" + stats],
                       capture_output=True, text=True)
    out = r.stdout + r.stderr
    if r.returncode != 0:
        sys.exit("fill.py: nvfp4-run failed on %s:\n%s" % (s["name"],
                                                           out[-3000:]))
    m = re.search(r"tensor kv_lens: .*: ([0-9,]+)", out)
    lens = [int(x) for x in m.group(1).split(",")] if m else None
    work = []
    with open(stats) as f:
        for row in csv.DictReader(f):
            if row["kernel"].endswith("_combine"):
                continue
            work.append(int(row["wgmmas_smem_a"]) + int(row["wgmmas_reg_a"]))
    busiest = max(work)
    fill = sum(work) / (SMS * busiest) if busiest else 0.0
    return fill, lens, out.strip().splitlines()[-1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.environ.get(
        "NVFP4_BUILD_DIR", os.path.join(ROOT, "build")))
    ap.add_argument("--nvfp4-run", default="")
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    run = args.nvfp4_run or os.path.join(args.build, "bin", "nvfp4-run")
    print("| shape | kv_lens | SM fill, model | SM fill, emulator | "
          "numerics |")
    print("|---|---|---|---|---|")
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for s in SHAPES:
            if args.only not in s["name"]:
                continue
            fill, lens, verdict = emulate(run, s, tmp)
            model = sm_fill(s, lens, SMS)
            same = abs(model - fill) < 1e-9
            bad += not same or not verdict.startswith("PASS")
            print("| %s | %s | %.4f | %.4f%s | %s |" % (
                s["name"], ",".join(map(str, lens or [])), model, fill,
                "" if same else " (differs)", verdict.split(" ")[0]),
                flush=True)
    print("fill.py: %s" % ("model = counters" if not bad else
                           "%d shapes differ or fail" % bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
