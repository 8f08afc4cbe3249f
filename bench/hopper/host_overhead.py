"""Where a whole call of one of our kernels spends its host time (issue 16:
our event-timed calls cost 0.2-0.35 ms against FlashMLA's 0.06 ms).

There (carry build/device-hopper-bench): python3 bench/hopper/host_overhead.py
[OUTDIR [KERNEL]] (an artifact; default gen_ours.sh's GQA decode of B 1,
KV 1024). Prints, per call, the median wall time of: the whole Python
call (Kernel.__call__), a bound launch of the same tensors (Kernel.bind),
the conversion of its tensors alone (nvfp4._tensor), nvfp4_launch called
with the converted arguments, and a torch kernel launch for scale; then the
cProfile of 300 whole calls (the Python functions that take the time).
Writes host_overhead.txt to OUTDIR. With HOST_LOOP=N in the environment
it only calls nvfp4_launch N times, for `perf record` to attribute the C
side's time.
"""
import cProfile
import io
import os
import pstats
import statistics
import sys
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from ours import runtime_library  # noqa: E402
from timing import outdir  # noqa: E402


def per_call_us(fn, n=300, reps=7):
    """Median over `reps` of the mean host time of `n` calls (the GPU is
    synchronized only between repetitions)."""
    out = []
    for _ in range(reps):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        out.append((time.perf_counter() - t0) / n * 1e6)
    torch.cuda.synchronize()
    return statistics.median(out)


def main(out):
    os.makedirs(out, exist_ok=True)
    os.environ["NVFP4_LIBRARY"] = runtime_library()
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import nvfp4
    path = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
        ROOT, "build", "device-hopper-bench", "gqa_b1_kv1024.nvfp4")
    name = os.path.basename(path)
    k = nvfp4.load(path)
    cuda = nvfp4.Device("cuda")
    ins = [torch.randn(*i.shape, device="cuda").to(torch.bfloat16)
           if i.dtype == "bf16" else torch.zeros(*i.shape, device="cuda",
                                                 dtype=torch.int32)
           for i in k.inputs]
    outs = [torch.empty(*o.shape, device="cuda",
                        dtype=torch.bfloat16 if o.dtype == "bf16"
                        else torch.float32) for o in k.outputs]
    ws = cuda.empty((max(k.workspace_bytes, 1),), "u8")
    stream = torch.cuda.current_stream()
    # The handle Kernel.__call__ passes (torch's default stream, handle 0,
    # as CU_STREAM_LEGACY: the C API reads NULL as "launch and wait").
    handle = nvfp4._stream_handle(stream)

    def whole():
        k(*ins, out=tuple(outs), device=cuda, workspace=ws, stream=stream)

    bound = k.bind(*ins, out=tuple(outs), device=cuda, workspace=ws,
                   stream=stream)

    def convert(keep):
        # What Kernel.__call__ does before nvfp4_launch.
        return (nvfp4._tensors(ins, "input", k.inputs, cuda, keep),
                nvfp4._tensors(outs, "output", k.outputs, cuda, keep))

    held = []  # what the arrays c_only passes point at
    a_in, a_out = convert(held)
    lib = nvfp4._library()

    def c_only():
        lib.nvfp4_launch(k._handle, cuda._handle, a_in, len(ins), a_out,
                         len(outs), ws.ptr, ws.nbytes, handle)

    loop = int(os.environ.get("HOST_LOOP", "0"))
    if loop:
        # Only nvfp4_launch, `loop` times: for a sampling profiler
        # (perf record) to attribute its host time.
        for i in range(loop):
            c_only()
            if i % 1000 == 999:
                torch.cuda.synchronize()
        torch.cuda.synchronize()
        return 0
    x = torch.empty(1, device="cuda")
    whole()
    torch.cuda.synchronize()
    lines = ["kernel %s on %s" % (name, torch.cuda.get_device_name()),
             "host time a call, median of 7 x 300 calls (us):",
             "  whole Kernel.__call__  %8.1f" % per_call_us(whole),
             "  bound launch (bind)    %8.1f" % per_call_us(bound),
             "  tensor conversion      %8.1f" % per_call_us(
                 lambda: convert([])),
             "  nvfp4_launch alone     %8.1f" % per_call_us(c_only),
             "  torch x.add_(1)        %8.1f" % per_call_us(lambda: x.add_(1)),
             ""]
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(300):
        whole()
    prof.disable()
    torch.cuda.synchronize()
    s = io.StringIO()
    pstats.Stats(prof, stream=s).sort_stats("tottime").print_stats(15)
    lines.append(s.getvalue())
    text = "\n".join(lines)
    with open(os.path.join(out, "host_overhead.txt"), "w") as f:
        f.write(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(outdir()))
