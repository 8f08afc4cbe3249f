"""What bench/hopper's scripts share: event timing and the two ceilings
(METHOD.md of the device tools: CUDA events, warm-ups, the median), where
their reports go and how they are written."""
import json
import math
import os
import sys

import torch


def outdir():
    """The report directory: the first argument, else $OUT."""
    return sys.argv[1] if len(sys.argv) > 1 else os.environ.get(
        "OUT", "bench-hopper-out")


def write_report(out, stem, result, lines):
    """Writes STEM.json (every number) and STEM.md (the table lines) to
    `out` and prints the table."""
    with open(os.path.join(out, stem + ".json"), "w") as f:
        json.dump(result, f, indent=1)
    text = "\n".join(lines) + "\n"
    with open(os.path.join(out, stem + ".md"), "w") as f:
        f.write(text)
    print(text)


def cell(r, key, ratio):
    """A table cell of one measurement `r` (time_ms's "ms" with the rate
    under `key`, "tb_s" or "tflops", and its share of a ceiling under
    `ratio`), or "—" for a refusal."""
    if "error" in r:
        return "—"
    return "%.3f ms, %.2f %s (%.0f%%)" % (
        r["ms"], r[key], "TB/s" if key == "tb_s" else "TFLOP/s",
        100 * r[ratio])


def l2_copies(nbytes):
    """How many copies of `nbytes` of inputs to rotate among so that they
    total >= 4x the H200's 60 MB L2 (at most 16): a small decode then reads
    HBM, not the L2."""
    return min(16, max(1, math.ceil(4 * 60e6 / nbytes)))


def warmups(fn, warmup):
    """`warmup`, or more for a step that rotates among input sets (its
    `period`, set by rotating()): one call on every set first, so that no
    timed call is the first on its tensors (our first call on new tensors
    encodes and copies their tensor maps: a host cost, docs/Hopper.md "The
    report of 2026-12-08")."""
    return max(warmup, getattr(fn, "period", 0))


def time_ms(fn, reps=20, warmup=3):
    """Median of `reps` event-timed calls after `warmup` calls (at least
    one a set for a rotating step); 50 calls when the median is under 100
    us."""
    for _ in range(warmups(fn, warmup)):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    times.sort()
    med = times[len(times) // 2]
    if med < 0.1 and reps < 50:
        return time_ms(fn, reps=50, warmup=0)
    return med


def copy_ceiling():
    """TB/s of a 4 GiB device-to-device copy, bytes read plus written."""
    n = 1 << 31  # bf16 elements: 4 GiB
    src = torch.randn(n // 1024, 1024, device="cuda", dtype=torch.bfloat16)
    dst = torch.empty_like(src)
    t = time_ms(lambda: dst.copy_(src))
    return 2 * src.numel() * 2 / (t * 1e-3) / 1e12


def matmul_ceiling():
    """TFLOP/s of an 8192^3 bf16 matrix product on random data."""
    a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    t = time_ms(lambda: a @ b)
    return 2 * 8192 ** 3 / (t * 1e-3) / 1e12


def kernel_ms(fn, reps=20, warmup=3):
    """The GPU time of the kernels one call of `fn` launches: the time at
    least one of them runs, as CUPTI records them (torch.profiler), over
    `reps` calls after `warmup`, divided by `reps`. Unlike time_ms it
    leaves out the host's launch overhead and the gaps between kernels.
    Overlapping kernels count once: a kernel launched programmatically
    (our split-KV combine) starts while the one before it runs and waits
    in griddepcontrol.wait, so a sum of durations would count that wait
    (docs/Hopper.md, "The combine rebuilt, timed").
    NVFP4_BENCH_NO_CUPTI=1 in the environment times whole calls with
    events instead (time_ms), for runs under Nsight Compute (ncu), whose
    profiler CUPTI cannot share."""
    if os.environ.get("NVFP4_BENCH_NO_CUPTI"):
        return time_ms(fn)
    from torch.profiler import ProfilerActivity, profile
    for _ in range(warmups(fn, warmup)):
        fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(reps):
            fn()
        torch.cuda.synchronize()
    spans = sorted((e.time_range.start, e.time_range.end)
                   for e in prof.events()
                   if e.device_type == torch.autograd.DeviceType.CUDA)
    if not spans:
        raise RuntimeError("the profiler recorded no kernel")
    return busy_us(spans) / reps / 1000.0


def busy_us(spans):
    """The length of the union of the (start, end) intervals `spans`,
    sorted by start."""
    total, start, end = 0.0, spans[0][0], spans[0][1]
    for a, b in spans[1:]:
        if a > end:
            total += end - start
            start, end = a, b
        else:
            end = max(end, b)
    return total + end - start


def rotating(call, sets):
    """A step that calls `call(*set)` on the next of `sets` each time (the
    input copies a benchmark rotates among to keep the L2 cold)."""
    turn = [0]

    def step():
        call(*sets[turn[0] % len(sets)])
        turn[0] += 1
    step.period = len(sets)
    return step


def timed(step, nbytes, flops):
    """Event-timed and CUPTI times of `step` with its rates: {"ms",
    "kernel_ms", "tb_s", "tflops"} for `nbytes` moved and `flops` done."""
    ms = time_ms(step)
    return {"ms": ms, "kernel_ms": kernel_ms(step),
            "tb_s": nbytes / (ms * 1e-3) / 1e12,
            "tflops": flops / (ms * 1e-3) / 1e12}


def rates_cell(r, copy_tbs, mm_tflops):
    """A table cell of timed(): time, bandwidth and rate with their shares
    of the run's ceilings; "—" for none."""
    if r is None:
        return "—"
    return "%.3f ms, %.2f TB/s (%.0f%%), %.0f TFLOP/s (%.0f%%)" % (
        r["ms"], r["tb_s"], 100 * r["tb_s"] / copy_tbs, r["tflops"],
        100 * r["tflops"] / mm_tflops)


def report_head(props, peer, copy_tbs, mm_tflops):
    """The first lines of a peer table: the GPU, torch and the peer's
    build status (`peer`), the run's ceilings, what the columns time."""
    return ["%s, %d SMs, torch %s; %s" % (
                props.name, props.multi_processor_count, torch.__version__,
                peer),
            "ceilings: copy %.2f TB/s, bf16 matmul %.0f TFLOP/s" % (
                copy_tbs, mm_tflops), "",
            "Event-timed whole calls; kernel columns: CUPTI GPU time.", ""]
