"""What separates the attention kernel from the combine kernel of one
split-KV call (docs/Hopper.md, "B = 1: where the time goes"): a timeline of
the host's API calls and the GPU's activities (torch.profiler, CPU and
CUDA) for a few calls queued behind a 20 ms sleep kernel, so that the host
is far ahead of the GPU when the kernels run.

Here: ONLY=gqa_ bash bench/hopper/gen_ours.sh FOLDER. There (carry it):
python3 bench/hopper/gap_probe.py OUTDIR FOLDER [SHAPE...] (default
gqa_b1_kv65536 gqa_b128_kv1024). Writes OUTDIR/gap_probe.txt: per shape
the timeline from the first call's launch on (microseconds from the first
attention kernel's start; host rows marked CPU) and, per call, the gap
from the attention kernel's end to the combine's start and from the
combine's host launch to its start.
"""
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from b1_breakdown import our_call  # noqa: E402
from ours import runtime_library  # noqa: E402
from shapes import SHAPES  # noqa: E402


def probe(nvfp4, cuda, shape, path, calls=4):
    from torch.profiler import ProfilerActivity, profile
    run = our_call(nvfp4, cuda, shape, path)
    for _ in range(3):
        run()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                 acc_events=True) as prof:
        torch.cuda._sleep(40_000_000)
        for _ in range(calls):
            run()
        torch.cuda.synchronize()
    rows = []
    for e in prof.events():
        gpu = e.device_type == torch.autograd.DeviceType.CUDA
        rows.append((e.time_range.start, e.time_range.end,
                     "GPU" if gpu else "CPU", e.name))
    rows.sort()
    att = [r for r in rows if r[2] == "GPU" and r[3].endswith("_attention")]
    comb = [r for r in rows if r[2] == "GPU" and r[3].endswith("_combine")]
    t0 = att[0][0] if att else 0
    first_launch = min((r[0] for r in rows if r[2] == "CPU" and
                        "aunch" in r[3]), default=rows[0][0])
    lines = ["## %s (%s)" % (shape["name"], path), ""]
    for a, b, dev, name in rows:
        if b < first_launch - 50:
            continue
        lines.append("%10.1f %10.1f %s %s" % (a - t0, b - t0, dev, name[:90]))
    lines.append("")
    launches = [r for r in rows if r[2] == "CPU" and "aunch" in r[3]]
    for i, (a, c) in enumerate(zip(att, comb)):
        # The host launch just before the combine's start that is not the
        # attention's (the second launch API call of each call).
        host = [r for r in launches if r[0] < c[0]]
        lines.append("call %d: attention end -> combine start %.1f us; "
                     "last host launch call before it ended %.1f us before"
                     % (i, c[0] - a[1], c[0] - host[-1][1] if host else -1))
    lines.append("")
    return lines


def main(argv):
    out, folder = argv[0], argv[1]
    names = argv[2:] or ["gqa_b1_kv65536", "gqa_b128_kv1024"]
    os.makedirs(out, exist_ok=True)
    os.environ["NVFP4_LIBRARY"] = runtime_library()
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import nvfp4
    cuda = nvfp4.Device("cuda")
    lines = [torch.cuda.get_device_properties(0).name, ""]
    for n in names:
        s = [t for t in SHAPES if t["name"] == n][0]
        lines += probe(nvfp4, cuda, s, os.path.join(folder, n + ".nvfp4"))
    text = "\n".join(lines) + "\n"
    with open(os.path.join(out, "gap_probe.txt"), "w") as f:
        f.write(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
