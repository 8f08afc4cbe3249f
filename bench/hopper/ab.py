"""Two or more builds of our sm_90a kernels timed against each other in one
run, interleaved (docs/Hopper.md: a schedule change is kept only when it
wins here, since separate runs of the same kernel differ by up to 11%).

Here: bash bench/hopper/gen_ours.sh FOLDER with each build (e.g.
build/ab-base from the commit before a change, build/device-hopper-bench
after it). There (carry the folders): python3 bench/hopper/ab.py OUTDIR
FOLDER... [--kind=prefill|decode|all|mla] [--rounds=N] [--cudnn]. For
every shape
of bench/hopper/shapes.py (of the kind asked, default prefill; mla:
MLA_SHAPES, from bash bench/hopper/gen_ours.sh --mla FOLDER, on mla.py's
paged inputs) that every folder holds: each variant's output against
SDPA's on the same inputs (rel_l2; mla: sequence 0 against mla.py's
float32 reference), then N rounds (default 5), each timing every variant
in turn:
its kernels' GPU time by CUPTI over 10 calls (timing.kernel_ms; CUDA
events around back-to-back calls would count the host's launch time,
which exceeds a short kernel's); the median over the rounds. With --cudnn
(GQA and prefill shapes) SDPA's cuDNN backend runs on the same rotated
inputs as one more variant, "cudnn", in the same rounds, so that a
change's ratio to the peer comes from one run. Writes ab.md and ab.json
to OUTDIR.
"""
import os
import statistics
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from ours import runtime_library  # noqa: E402
from shapes import MLA_SHAPES, SHAPES  # noqa: E402
from timing import (kernel_ms, l2_copies, matmul_ceiling,  # noqa: E402
                    rotating, write_report)
import peers  # noqa: E402


def inputs(s, kern):
    """The input copies of shape `s` (decode KV rotated among copies
    totalling >= 4x the 60 MB L2, as ours.py, so that no variant reads a
    cache-hot KV), O and LSE, the arguments of a kernel for one copy, and
    the rel_l2 of an O against the reference."""
    b, hq, skv, d = (s[x] for x in ("b", "hq", "skv", "d"))
    if "dv" in s:                       # MLA: mla.py's paged inputs
        import mla
        dv = s["dv"]
        npages = dict((i.name, i.shape) for i in kern.inputs)["k"][0]
        sets = [mla.make(s, npages, 100 + i)
                for i in range(l2_copies(b * skv * d * 2))]
        ref = mla.reference(s, *sets[0][:3])
        names = [i.name for i in kern.inputs]

        def args(k, c):
            by = dict(zip(("q", "k", "block_table", "kv_lens"), c))
            return [by[n] for n in names]

        def check(o):
            return ((o[0, 0].float() - ref).norm() / ref.norm()).item()
        o = torch.empty(b, 1, hq, dv, device="cuda", dtype=torch.bfloat16)
        lse = torch.empty(b, hq, 1, device="cuda", dtype=torch.float32)
        return sets, o, lse, args, check
    sq, hkv = s["sq"], s["hkv"]
    copies = 1
    if s["kind"] == "decode":
        copies = l2_copies(b * hkv * skv * 2 * d * 2)
    sets = [tuple(torch.randn(*shape, device="cuda", dtype=torch.bfloat16)
                  for shape in ((b, sq, hq, d), (b, skv, hkv, d),
                                (b, skv, hkv, d)))
            for _ in range(copies)]
    ref = peers.sdpa_bshd(*sets[0], s.get("causal", False), d ** -0.5)

    def check(o):
        if ref is None:
            return float("nan")
        return ((o.float() - ref).norm() / ref.norm()).item()
    o = torch.empty(b, sq, hq, d, device="cuda", dtype=torch.bfloat16)
    lse = torch.empty(b, hq, sq, device="cuda", dtype=torch.float32)
    return sets, o, lse, (lambda k, c: c), check


def main(argv):
    out, folders = argv[0], [a for a in argv[1:] if not a.startswith("--")]
    opts = dict((a[2:].split("=", 1) + [""])[:2] for a in argv[1:]
                if a.startswith("--"))
    kind, rounds = opts.get("kind", "prefill"), int(opts.get("rounds", "5"))
    with_cudnn = "cudnn" in opts and kind != "mla"
    os.makedirs(out, exist_ok=True)
    os.environ["NVFP4_LIBRARY"] = runtime_library()
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import nvfp4
    cuda = nvfp4.Device("cuda")
    mm = matmul_ceiling()
    names = [os.path.basename(os.path.normpath(f)) for f in folders]
    names += ["cudnn"] if with_cudnn else []
    result = {"device": torch.cuda.get_device_properties(0).name,
              "bf16_mm_tflops": mm, "variants": names, "rows": []}
    shapes = MLA_SHAPES if kind == "mla" else [
        s for s in SHAPES if kind == "all" or s["kind"] == kind]
    for s in shapes:
        paths = [os.path.join(f, s["name"] + ".nvfp4") for f in folders]
        if not all(os.path.exists(p) for p in paths):
            continue
        sets, o, lse, args, check = inputs(s, nvfp4.load(paths[0]))
        copies = len(sets)
        stream = torch.cuda.current_stream()
        runs, rels = [], []
        for p in paths:
            kern = nvfp4.load(p)
            ws = cuda.empty((max(kern.workspace_bytes, 1),), "u8")

            turn = [0]

            def run(kern=kern, ws=ws, turn=turn):
                kern(*args(kern, sets[turn[0] % copies]), out=(o, lse),
                     device=cuda, workspace=ws, stream=stream)
                turn[0] += 1
            run.period = copies  # timing.warmups: a call on every set first
            o.fill_(float("nan"))
            kern(*args(kern, sets[0]), out=(o, lse), device=cuda,
                 workspace=ws, stream=stream)
            torch.cuda.synchronize()
            rels.append(check(o))
            for _ in range(max(3, copies)):
                run()
            runs.append(run)
        if with_cudnn:
            # SDPA takes [B, H, S, D]; its cuDNN backend, on the same
            # rotated copies as ours.
            def cudnn(q, k, v):
                return peers.sdpa("cudnn", q, k, v, s.get("causal", False),
                                  s["d"] ** -0.5)
            views = [tuple(x.transpose(1, 2).contiguous() for x in c)
                     for c in sets]
            try:
                rels.append(check(cudnn(*views[0]).transpose(1, 2)))
            except Exception as e:  # cuDNN refuses the shape: no row
                print("cudnn: %s: %s" % (s["name"], e), flush=True)
                continue
            runs.append(rotating(cudnn, views))
        times = [[] for _ in runs]
        for _ in range(rounds):
            for i, run in enumerate(runs):
                times[i].append(kernel_ms(run, reps=10, warmup=1))
        med = [statistics.median(t) for t in times]
        b, hq, skv, d = (s[x] for x in ("b", "hq", "skv", "d"))
        fl = 2 * b * hq * s.get("sq", 1) * skv * (d + s.get("dv", d))
        fl /= 2 if s.get("causal") else 1
        row = {"shape": s, "ms": med, "rounds": times, "rel_l2": rels,
               "tflops": [fl / (t * 1e-3) / 1e12 for t in med]}
        result["rows"].append(row)
        print(row, flush=True)
        del o, lse, sets, check
        torch.cuda.empty_cache()
    lines = ["%s, bf16 matmul %.0f TFLOP/s; kernel time (CUPTI), medians "
             "of %d interleaved rounds of 10 calls" % (result["device"], mm,
                                                      rounds), "",
             "| shape | " + " | ".join(names) + " | " +
             " | ".join("%s / %s" % (names[0], n) for n in names[1:]) +
             " | rel_l2 vs the reference |",
             "|---|" + "---|" * (2 * len(names))]
    for r in result["rows"]:
        cells = ["%.3f ms, %.0f TFLOP/s (%.0f%%)" % (t, f, 100 * f / mm)
                 if r["shape"].get("kind") == "prefill" else "%.4f ms" % t
                 for t, f in zip(r["ms"], r["tflops"])]
        ratios = ["%.3fx" % (r["ms"][0] / t) for t in r["ms"][1:]]
        lines.append("| %s | %s | %s | %s |" % (
            r["shape"]["name"], " | ".join(cells), " | ".join(ratios),
            " ".join("%.1e" % x for x in r["rel_l2"])))
    write_report(out, "ab", result, lines)
    bad = [r for r in result["rows"] if not all(x < 1e-2 for x in r["rel_l2"])]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
