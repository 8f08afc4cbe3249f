"""Our sm_90a attention kernels on the H200, timed beside SDPA's flash and
cuDNN backends in the same run (issue 16's tables, docs/Hopper.md).

Here first: bash bench/hopper/gen_ours.sh (compiles bench/hopper/shapes.py
for sm_90a into build/device-hopper-bench). There (carry
build/device-hopper-bench): python3 bench/hopper/ours.py [OUTDIR
[KERNELS]] (KERNELS: the folder of artifacts, default
build/device-hopper-bench, e.g. a variant gen_ours.sh wrote elsewhere); builds
libnvfp4_runtime.so (scripts/device/CMakeLists.txt) unless $NVFP4_LIBRARY
names one, writes ours.json and ours.md to OUTDIR (default $OUT).
ONLY=SUBSTRING in the environment times only the shapes whose names hold
it (as gen_ours.sh's ONLY).

Method (peers.py's): CUDA events around each launch on torch's current
stream (our kernels through the C API with a preallocated workspace:
the attention kernel and, for split units, the combine kernel), 3
warm-ups, the median of 20 (50 under 100 us); random bf16 inputs; decode
inputs rotated among copies totalling >= 4x the 60 MB L2. Each of our
outputs is compared with SDPA's (cuDNN, else flash) on the same inputs
(rel_l2; bf16 rounding gives ~2e-3), so a fast wrong kernel shows. Decode
bytes = K + V + Q + O once; prefill FLOPs = 4 B H S^2 D / 2 (causal).
Decode rows also give the SM fill of the balanced split-KV plan
(shapes.sm_fill, which bench/hopper/fill.py checks against the
emulator's per-CTA counters).
"""
import os
import subprocess
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from timing import (cell, copy_ceiling, kernel_ms, l2_copies,  # noqa: E402
                    matmul_ceiling, outdir, rotating, time_ms,
                    write_report)
from shapes import SHAPES, selected, sm_fill  # noqa: E402
import peers  # noqa: E402


def runtime_library():
    lib = os.environ.get("NVFP4_LIBRARY")
    if lib:
        return lib
    bd = "/tmp/nvfp4-bench-build"
    subprocess.run(["cmake", "-S", os.path.join(ROOT, "scripts", "device"),
                    "-B", bd], check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["cmake", "--build", bd, "-j16", "--target",
                    "nvfp4_c_runtime"], check=True, stdout=subprocess.DEVNULL)
    return os.path.join(bd, "libnvfp4_runtime.so")


def peer_session(default_folder):
    """What a script timing our artifacts beside a peer starts with: the
    runtime library built (runtime_library) and loaded, the cuda Device,
    the artifacts' folder (argv[2], else `default_folder` under build/), the
    GPU's properties and the run's two ceilings:
    (nvfp4, device, folder, props, copy TB/s, matmul TFLOP/s)."""
    os.environ["NVFP4_LIBRARY"] = runtime_library()
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import nvfp4
    cuda = nvfp4.Device("cuda")
    folder = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
        ROOT, "build", default_folder)
    props = torch.cuda.get_device_properties(0)
    return nvfp4, cuda, folder, props, copy_ceiling(), matmul_ceiling()


def ours(nvfp4, cuda, kernels, s, copy_tbs, mm_tflops):
    path = os.path.join(kernels, s["name"] + ".nvfp4")
    k = nvfp4.load(path)
    b, sq, hq, hkv, skv, d = (s[x] for x in ("b", "sq", "hq", "hkv", "skv",
                                             "d"))
    kv_bytes = b * hkv * skv * 2 * d * 2
    copies = 1
    if s["kind"] == "decode":
        copies = l2_copies(kv_bytes)
    sets = []
    for _ in range(copies):
        q = torch.randn(b, sq, hq, d, device="cuda", dtype=torch.bfloat16)
        kk = torch.randn(b, skv, hkv, d, device="cuda", dtype=torch.bfloat16)
        v = torch.randn(b, skv, hkv, d, device="cuda", dtype=torch.bfloat16)
        sets.append((q, kk, v))
    o = torch.empty(b, sq, hq, d, device="cuda", dtype=torch.bfloat16)
    lse = torch.empty(b, hq, sq, device="cuda", dtype=torch.float32)
    ws = cuda.empty((max(k.workspace_bytes, 1),), "u8")
    stream = torch.cuda.current_stream()
    i = [0]

    def run():
        q, kk, v = sets[i[0] % copies]
        i[0] += 1
        k(q, kk, v, out=(o, lse), device=cuda, workspace=ws, stream=stream)
    run.period = copies  # timing.warmups: a call on every set first

    # Against SDPA on the first set.
    o.fill_(float("nan"))
    q, kk, v = sets[0]
    k(q, kk, v, out=(o, lse), device=cuda, workspace=ws, stream=stream)
    ref = peers.sdpa_bshd(q, kk, v, s.get("causal", False), d ** -0.5)
    got = o.float()
    rel = float("nan") if ref is None else (
        (got - ref).norm() / ref.norm()).item()
    t = time_ms(run)
    row = {"ms": t, "kernel_ms": kernel_ms(run), "rel_l2_vs_sdpa": rel,
           "grid": [l["grid"][0] for l in k.metadata["launches"]],
           "block": k.metadata["launches"][0]["block"][0]}
    if s["kind"] == "decode":
        total = kv_bytes + b * hq * 2 * d * 2
        row["tb_s"] = total / (t * 1e-3) / 1e12
        row["of_copy"] = row["tb_s"] / copy_tbs
    else:
        row["tflops"] = 4 * b * hq * sq * skv * d / 2 / (t * 1e-3) / 1e12
        row["of_mm"] = row["tflops"] / mm_tflops
    del sets
    torch.cuda.empty_cache()
    return row


def sdpa_kernel_ms(s):
    """cuDNN's kernel time (kernel_ms) on the shape, inputs in SDPA's
    [B, H, S, D] layout, a decode's rotated among copies beyond the L2 as
    ours are (until 2026-12-07 one copy: a B = 1 decode's KV of 4-32 MB
    stayed in the L2 for cuDNN and not for ours); None where it refuses."""
    b, sq, hq, hkv, skv, d = (s[x] for x in ("b", "sq", "hq", "hkv", "skv",
                                             "d"))
    copies = 1
    if s["kind"] == "decode":
        copies = l2_copies(b * hkv * skv * 2 * d * 2)
    sets = [(torch.randn(b, hq, sq, d, device="cuda", dtype=torch.bfloat16),
             torch.randn(b, hkv, skv, d, device="cuda", dtype=torch.bfloat16),
             torch.randn(b, hkv, skv, d, device="cuda", dtype=torch.bfloat16))
            for _ in range(copies)]
    def cudnn(q, k, v):
        peers.sdpa("cudnn", q, k, v, s.get("causal", False), d ** -0.5)
    try:
        return kernel_ms(rotating(cudnn, sets))
    except Exception:
        return None


def main(out):
    os.makedirs(out, exist_ok=True)
    nvfp4, cuda, kernels, props, copy_tbs, mm_tflops = peer_session(
        "device-hopper-bench")
    result = {"device": props.name, "sms": props.multi_processor_count,
              "torch": torch.__version__, "copy_tb_s": copy_tbs,
              "bf16_mm_tflops": mm_tflops, "rows": []}
    for s in selected(SHAPES):
        row = {"shape": s,
               "ours": ours(nvfp4, cuda, kernels, s, copy_tbs, mm_tflops),
               "sm_fill_model": (sm_fill(s, sms=props.multi_processor_count)
                                 if s["kind"] == "decode" else None)}
        row["cudnn_kernel_ms"] = sdpa_kernel_ms(s)
        for backend in peers.BACKENDS:
            if s["kind"] == "decode":
                row[backend] = peers.decode_case(backend, s["b"], s["hq"],
                                                 s["hkv"], s["d"], s["d"],
                                                 s["skv"], copy_tbs)
            else:
                row[backend] = peers.prefill_case(backend, s["b"], s["hq"],
                                                  s["sq"], s["d"], mm_tflops)
        result["rows"].append(row)
        print(row, flush=True)
        torch.cuda.empty_cache()


    def speed(r, peer):
        if "error" in r[peer]:
            return "—"
        return "%.2fx" % (r[peer]["ms"] / r["ours"]["ms"])
    lines = ["%s, %d SMs, torch %s" % (props.name, props.multi_processor_count,
                                       torch.__version__),
             "ceilings: copy %.2f TB/s, bf16 matmul %.0f TFLOP/s" % (
                 copy_tbs, mm_tflops), "",
             "Event-timed calls (host launch included) and, in the last "
             "three columns, the kernels' GPU time alone (CUPTI).", "",
             "| shape | B | Sq | Hq/Hkv | D | KV | ours | rel_l2 vs SDPA | "
             "SDPA flash | SDPA cuDNN | flash / ours | cuDNN / ours | "
             "ours, kernels | cuDNN, kernels | cuDNN / ours (kernels) | "
             "SM fill (model) |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
             "---|"]
    for r in result["rows"]:
        s = r["shape"]
        key, ratio = (("tb_s", "of_copy") if s["kind"] == "decode" else
                      ("tflops", "of_mm"))
        ko, kc = r["ours"]["kernel_ms"], r["cudnn_kernel_ms"]
        if s["kind"] == "decode":
            total = s["b"] * s["hkv"] * s["skv"] * 2 * s["d"] * 2 + \
                s["b"] * s["hq"] * 2 * s["d"] * 2
            perf = lambda t: "%.2f TB/s (%.0f%%)" % (
                total / (t * 1e-3) / 1e12,
                100 * total / (t * 1e-3) / 1e12 / copy_tbs)
        else:
            fl = 4 * s["b"] * s["hq"] * s["sq"] * s["skv"] * s["d"] / 2
            perf = lambda t: "%.0f TFLOP/s (%.0f%%)" % (
                fl / (t * 1e-3) / 1e12,
                100 * fl / (t * 1e-3) / 1e12 / mm_tflops)
        kcell = lambda t: "—" if not t else "%.3f ms, %s" % (t, perf(t))
        fill = r.get("sm_fill_model")
        lines.append("| %s | %d | %d | %d/%d | %d | %d | %s | %.1e | %s | %s "
                     "| %s | %s | %s | %s | %s | %s |" % (
                         s["kind"] + (" causal" if s.get("causal") else ""),
                         s["b"], s["sq"], s["hq"], s["hkv"], s["d"], s["skv"],
                         cell(r["ours"], key, ratio),
                         r["ours"]["rel_l2_vs_sdpa"],
                         cell(r["flash"], key, ratio),
                         cell(r["cudnn"], key, ratio), speed(r, "flash"),
                         speed(r, "cudnn"), kcell(ko), kcell(kc),
                         "—" if not kc else "%.2fx" % (kc / ko),
                         "—" if fill is None else "%.2f" % fill))
    write_report(out, "ours", result, lines)
    return 0


if __name__ == "__main__":
    sys.exit(main(outdir()))
