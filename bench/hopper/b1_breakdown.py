"""Where a decode call's GPU time goes: each kernel of one call (the
attention kernel, the combine kernel of a split-KV plan) and the gap
between them, as CUPTI records them (torch.profiler), so that what a
fused combine would save is measured rather than guessed
(docs/Hopper.md, "B = 1: where the time goes").

Here: ONLY=_b1_ bash bench/hopper/gen_ours.sh FOLDER (and --mla FOLDER2).
There (carry the folders): python3 bench/hopper/b1_breakdown.py OUTDIR
FOLDER... For every shape of bench/hopper/shapes.py (decode) and
MLA_SHAPES whose artifact a folder holds: 30 calls on one stream, KV
rotated among copies beyond the L2 (ab.py's inputs); per call the
attention kernel's time, the combine's, the gap from the end of the
first to the start of the second, and the span from the start of the
first to the end of the last; medians. Writes b1.md and b1.json.
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
from timing import write_report  # noqa: E402


def breakdown(run, calls=30):
    """Per call: the (start_us, end_us, name) of each GPU activity the
    profiler records (kernels, and memsets or copies if the call makes
    any), grouped by call: a call starts at the attention kernel (its name
    ends in "_attention") and holds what follows until the next one."""
    from torch.profiler import ProfilerActivity, profile
    for _ in range(3):
        run()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA], acc_events=True) as prof:
        for _ in range(calls):
            run()
        torch.cuda.synchronize()
    ks = sorted((e.time_range.start, e.time_range.end, e.name)
                for e in prof.events()
                if e.device_type == torch.autograd.DeviceType.CUDA)
    groups = []
    for k in ks:
        if k[2].endswith("_attention"):
            groups.append([])
        if groups:
            groups[-1].append(k)
    if len(groups) != calls:
        raise RuntimeError("%d attention kernels for %d calls: %s" % (
            len(groups), calls, sorted(set(k[2] for k in ks))))
    return groups


def gaps(nvfp4, cuda, folders):
    """The gap between consecutive GPU activities of a few fixed
    sequences, to tell a gap of our second launch from one of any
    launch: two torch kernels; torch then our call; our call then torch.
    Median over 30 repetitions of (start of next - end of previous) for
    each adjacent pair, by names."""
    from torch.profiler import ProfilerActivity, profile
    x = torch.zeros(1024, device="cuda")
    out = {}
    path = None
    for f in folders:
        p = os.path.join(f, "gqa_b1_kv65536.nvfp4")
        if os.path.exists(p):
            path = p
    seqs = {"torch,torch": [lambda: x.add_(1), lambda: x.mul_(1)]}
    if path:
        kern = nvfp4.load(path)
        s = [t for t in SHAPES if t["name"] == "gqa_b1_kv65536"][0]
        sets, o, lse, args, check = inputs(s, kern)
        ws = cuda.empty((max(kern.workspace_bytes, 1),), "u8")
        stream = torch.cuda.current_stream()

        def ours():
            kern(*args(kern, sets[0]), out=(o, lse), device=cuda,
                 workspace=ws, stream=stream)
        seqs["torch,ours"] = [lambda: x.add_(1), ours]
        seqs["ours,torch"] = [ours, lambda: x.add_(1)]
    for name, fns in seqs.items():
        for _ in range(3):
            for f in fns:
                f()
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA],
                     acc_events=True) as prof:
            for _ in range(30):
                for f in fns:
                    f()
                torch.cuda.synchronize()
        ks = sorted((e.time_range.start, e.time_range.end, e.name)
                    for e in prof.events()
                    if e.device_type == torch.autograd.DeviceType.CUDA)
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
    shapes = [s for s in SHAPES if s["kind"] == "decode"] + MLA_SHAPES
    for s in shapes:
        paths = [os.path.join(f, s["name"] + ".nvfp4") for f in folders]
        paths = [p for p in paths if os.path.exists(p)]
        if not paths:
            continue
        kern = nvfp4.load(paths[0])
        sets, o, lse, args, check = inputs(s, kern)
        ws = cuda.empty((max(kern.workspace_bytes, 1),), "u8")
        stream = torch.cuda.current_stream()
        turn = [0]

        def run():
            kern(*args(kern, sets[turn[0] % len(sets)]), out=(o, lse),
                 device=cuda, workspace=ws, stream=stream)
            turn[0] += 1
        groups = breakdown(run)
        names = [k[2] for k in groups[0]]
        # What precedes the attention kernel in a call (a memset of the
        # workspace, say) lands in the previous group: report each name.
        row = {"shape": s["name"], "names": names}
        for i, n in enumerate(names):
            row["%s_us" % n] = statistics.median(
                g[i][1] - g[i][0] for g in groups if len(g) > i)
        comb = [i for i, n in enumerate(names) if n.endswith("_combine")]
        if comb:
            c = comb[0]
            row["gap_us"] = statistics.median(
                g[c][0] - g[0][1] for g in groups if len(g) > c)
            row["span_us"] = statistics.median(
                g[c][1] - g[0][0] for g in groups if len(g) > c)
        else:
            row["span_us"] = row["%s_us" % names[0]]
        row["attention_us"] = row["%s_us" % names[0]]
        row["combine_us"] = row["%s_us" % names[comb[0]]] if comb else None
        row["others"] = [n for i, n in enumerate(names)
                         if i != 0 and i not in comb[:1]]
        result["rows"].append(row)
        print(row, flush=True)
        del o, lse, sets
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
