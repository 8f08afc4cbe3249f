"""Where a decode call's GPU time goes: each kernel of one call (the
attention kernel, the combine kernel of a split-KV plan) and the gap
between them, as CUPTI records them (torch.profiler), so that what a
fused combine would save is measured rather than guessed
(docs/Hopper.md, "B = 1: where the time goes").

Here: ONLY=_b1_ bash bench/hopper/gen_ours.sh FOLDER (and --mla FOLDER2).
There (carry the folders): python3 bench/hopper/b1_breakdown.py OUTDIR
FOLDER... For every shape of bench/hopper/shapes.py (decode and prefill)
and MLA_SHAPES whose artifact the first folder holds: 30 calls on one stream, KV
rotated among copies beyond the L2 (ab.py's inputs); per call the
attention kernel's time, the combine's, the gap from the end of the
first to the start of the second, and the span from the start of the
first to the end of the last; medians. Then (b1.json's "gaps") the gaps
between two torch kernels, between a torch kernel and our call, and
between our call and a torch kernel (the folders' gqa_b1_kv65536), to
tell a gap of our second launch from one of any launch (the GPU drained
after each step, so these gaps include the host's launch time). Writes
b1.md and b1.json.
"""
import os
import statistics
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from ab import inputs  # noqa: E402
from ours import runtime_library  # noqa: E402
from shapes import MLA_SHAPES, SHAPES  # noqa: E402
from timing import warmups, write_report  # noqa: E402


def activities(step, reps=30, sync_each=False):
    """(start_us, end_us, name) of every GPU activity the profiler records
    (kernels, and memsets or copies if a call makes any) over `reps` calls
    of `step` after 3 warm-up calls (one a set for a rotating step:
    timing.warmups), in start order; with `sync_each` the GPU is drained
    after each call."""
    from torch.profiler import ProfilerActivity, profile
    for _ in range(warmups(step, 3)):
        step()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA], acc_events=True) as prof:
        for _ in range(reps):
            step()
            if sync_each:
                torch.cuda.synchronize()
        torch.cuda.synchronize()
    return sorted((e.time_range.start, e.time_range.end, e.name)
                  for e in prof.events()
                  if e.device_type == torch.autograd.DeviceType.CUDA)


def our_call(nvfp4, cuda, s, path):
    """A function launching the artifact at `path` on shape `s`'s inputs
    (ab.py's: decode KV rotated among copies beyond the L2) on torch's
    stream, each call on the next copy."""
    kern = nvfp4.load(path)
    sets, o, lse, args, _ = inputs(s, kern)
    ws = cuda.empty((max(kern.workspace_bytes, 1),), "u8")
    stream = torch.cuda.current_stream()
    turn = [0]

    def run():
        kern(*args(kern, sets[turn[0] % len(sets)]), out=(o, lse),
             device=cuda, workspace=ws, stream=stream)
        turn[0] += 1
    run.period = len(sets)  # timing.warmups: a call on every set first
    return run


def breakdown(run, calls=30):
    """Per call the activities it makes: a call starts at the attention
    kernel (its name ends in "_attention") and holds what follows until
    the next one."""
    groups = []
    for k in activities(run, calls):
        if k[2].endswith("_attention"):
            groups.append([])
        if groups:
            groups[-1].append(k)
    if len(groups) != calls:
        raise RuntimeError("%d attention kernels for %d calls" %
                           (len(groups), calls))
    return groups


def gaps(nvfp4, cuda, folders):
    """The gap between consecutive GPU activities of a few fixed
    sequences, to tell a gap of our second launch from one of any
    launch: two torch kernels; torch then our call; our call then torch.
    Median over 30 repetitions of (start of next - end of previous) for
    each adjacent pair, by names."""
    x = torch.zeros(1024, device="cuda")
    seqs = {"torch,torch": [lambda: x.add_(1), lambda: x.mul_(1)]}
    paths = [os.path.join(f, "gqa_b1_kv65536.nvfp4") for f in folders]
    paths = [p for p in paths if os.path.exists(p)]
    if paths:
        s = [t for t in SHAPES if t["name"] == "gqa_b1_kv65536"][0]
        ours = our_call(nvfp4, cuda, s, paths[-1])
        seqs["torch,ours"] = [lambda: x.add_(1), ours]
        seqs["ours,torch"] = [ours, lambda: x.add_(1)]
    out = {}
    for name, fns in seqs.items():
        def step(fns=fns):
            for f in fns:
                f()
        ks = activities(step, sync_each=True)
        pairs = {}
        for a, b in zip(ks, ks[1:]):
            pairs.setdefault("%s -> %s" % (a[2][:40], b[2][:40]),
                             []).append(b[0] - a[1])
        out[name] = {k: statistics.median(v) for k, v in pairs.items()}
        print(name, out[name], flush=True)
    return out


def main(argv):
    out, folders = argv[0], argv[1:]
    os.makedirs(out, exist_ok=True)
    os.environ["NVFP4_LIBRARY"] = runtime_library()
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import nvfp4
    cuda = nvfp4.Device("cuda")
    result = {"device": torch.cuda.get_device_properties(0).name,
              "rows": []}
    shapes = SHAPES + MLA_SHAPES
    for s in shapes:
        paths = [os.path.join(f, s["name"] + ".nvfp4") for f in folders]
        paths = [p for p in paths if os.path.exists(p)]
        if not paths:
            continue
        groups = breakdown(our_call(nvfp4, cuda, s, paths[0]))
        names = [k[2] for k in groups[0]]

        def median(f):
            return statistics.median(f(g) for g in groups)
        row = {"shape": s["name"], "names": names,
               "attention_us": median(lambda g: g[0][1] - g[0][0]),
               "combine_us": None}
        def comb(g):
            return next(k for k in g if k[2].endswith("_combine"))
        if any(n.endswith("_combine") for n in names):
            row["combine_us"] = median(lambda g: comb(g)[1] - comb(g)[0])
            row["gap_us"] = median(lambda g: comb(g)[0] - g[0][1])
            row["span_us"] = median(lambda g: comb(g)[1] - g[0][0])
        else:
            row["span_us"] = row["attention_us"]
        # What the first call made besides the two kernels (a copy of a
        # tensor map the first time a tensor is seen, say).
        row["others"] = [n for n in names[1:] if not n.endswith("_combine")]
        result["rows"].append(row)
        print(row, flush=True)
        torch.cuda.empty_cache()
    result["gaps"] = gaps(nvfp4, cuda, folders)
    lines = ["%s; medians of 30 calls, CUPTI (torch.profiler)" %
             result["device"], "",
             "| shape | attention kernel | combine kernel | gap | span |",
             "|---|---|---|---|---|"]
    for r in result["rows"]:
        lines.append("| %s | %.1f us | %s | %s | %.1f us |%s" % (
            r["shape"], r["attention_us"],
            "%.1f us" % r["combine_us"] if r["combine_us"] else "-",
            "%.1f us" % r["gap_us"] if "gap_us" in r else "-",
            r["span_us"],
            " also: " + ", ".join(r["others"]) if r["others"] else ""))
    write_report(out, "b1", result, lines)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
