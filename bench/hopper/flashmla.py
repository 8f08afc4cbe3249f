"""FlashMLA's sm90 dense decode on the H200: the MLA rows of docs/Hopper.md.

Run on the GPU machine with build/peers carried
(scripts/peers/gen_flashmla_sources.sh makes it here):
    python3 bench/hopper/flashmla.py [OUTDIR]
Builds FlashMLA's bf16 dense decode, its scheduling-metadata and combine
kernels with our binding (bench/hopper/flashmla_binding.cpp) through
torch's extension builder, checks it against float64 on a small paged
case, then times the MLA decode shapes next to the copy and bf16 matmul
ceilings measured in the same run (CUDA events, median of 20 after 3 warm-ups; KV rotated
among copies totalling >= 4x the L2). Bytes = the KV rows each sequence
reads (576 bf16 a key) + Q + O; FLOPs = 2 B S H (D + Dv). Writes
flashmla.json and flashmla.md.
"""
import math
import os
import sys
import time

import torch
from torch.utils.cpp_extension import load

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timing import (copy_ceiling, l2_copies, matmul_ceiling,  # noqa: E402
                    outdir as report_dir, time_ms, write_report)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))
SRC = os.path.join(ROOT, "build", "peers", "flashmla", "csrc")
PAGE = 64


def build():
    """FlashMLA's sm90 bf16 dense decode with our binding: (module, seconds)."""
    return _build("flashmla_sm90_decode", os.environ.get(
        "FLASHMLA_BUILD", "/tmp/flashmla-build"),
        [os.path.join(ROOT, "bench", "hopper", "flashmla_binding.cpp"),
         os.path.join(SRC, "sm90/decode/dense/instantiations/bf16.cu")])


def build_sparse():
    """FlashMLA's sm90 sparse fp8 decode (DeepSeek-V4's MODEL1 cache and
    V3.2's, 64 or 128 heads) with our binding; the SM100 kernels its
    dispatcher names are stubs (flashmla_sparse_stubs.cpp):
    (module, seconds)."""
    inst = os.path.join(SRC, "sm90/decode/sparse_fp8/instantiations")
    return _build("flashmla_sm90_sparse_decode", "/tmp/flashmla-sparse-build",
                  [os.path.join(ROOT, "bench", "hopper", n) for n in
                   ("flashmla_sparse_binding.cpp",
                    "flashmla_sparse_stubs.cpp")] +
                  [os.path.join(inst, n) for n in
                   ("model1_persistent_h64.cu", "model1_persistent_h128.cu",
                    "v32_persistent_h64.cu", "v32_persistent_h128.cu")])


def _build(name, build_dir, sources):
    t0 = time.time()
    os.makedirs(build_dir, exist_ok=True)
    flags = ["-O3", "-std=c++20", "-DNDEBUG", "-D_USE_MATH_DEFINES",
             "-DFLASH_MLA_DISABLE_FP16", "-Wno-deprecated-declarations",
             "-U__CUDA_NO_HALF_OPERATORS__", "-U__CUDA_NO_HALF_CONVERSIONS__",
             "-U__CUDA_NO_HALF2_OPERATORS__",
             "-U__CUDA_NO_BFLOAT16_CONVERSIONS__", "--expt-relaxed-constexpr",
             "--expt-extended-lambda", "--use_fast_math",
             "-gencode", "arch=compute_90a,code=sm_90a", "--threads", "8"]
    mod = load(
        name=name,
        sources=sources + [
            os.path.join(SRC, "smxx/decode/combine/combine.cu"),
            os.path.join(SRC, "smxx/decode/get_decoding_sched_meta/"
                         "get_decoding_sched_meta.cu")],
        extra_include_paths=[SRC, os.path.join(SRC, "kerutils", "include"),
                             os.path.join(SRC, "sm90"),
                             os.path.join(SRC, "cutlass", "include"),
                             os.path.join(SRC, "cutlass", "tools", "util",
                                          "include")],
        # CUTLASS includes libcu++ (cuda/std/...), which CUDA 13 keeps in
        # include/cccl: the host compiler of the binding needs it too.
        extra_cflags=["-I" + os.path.join(os.environ.get(
                          "CUDA_HOME", "/usr/local/cuda"), "include", "cccl"),
                      "-O3", "-std=c++20", "-DNDEBUG",
                      "-DFLASH_MLA_DISABLE_FP16",
                      "-Wno-deprecated-declarations"],
        extra_cuda_cflags=flags,
        build_directory=build_dir,
        verbose=False)
    return mod, time.time() - t0


def make(b, s, hq, d, seed):
    g = torch.Generator(device="cuda").manual_seed(seed)
    blocks = b * math.ceil(s / PAGE)
    q = torch.randn(b, 1, hq, d, device="cuda", generator=g).bfloat16()
    kv = torch.randn(blocks, PAGE, 1, d, device="cuda", generator=g).bfloat16()
    table = torch.randperm(blocks, device="cuda", generator=g).int().view(b, -1)
    lens = torch.full((b,), s, dtype=torch.int32, device="cuda")
    return q, kv, table, lens


def run(mod, q, kv, table, lens, dv):
    d = q.shape[-1]
    out, lse, _, _ = mod.dense_decode_fwd(q, kv, dv, lens, table,
                                          d ** -0.5, False, None, None)
    return out, lse


def check(mod, d, dv, hq):
    b, s = 2, 300
    q, kv, table, lens = make(b, s, hq, d, 11)
    out, _ = run(mod, q, kv, table, lens, dv)
    keys = kv.view(-1, d)[(table.long().unsqueeze(-1) * PAGE +
                           torch.arange(PAGE, device="cuda")).view(b, -1)[:, :s]]
    qd = q.double().cpu()[:, 0]                      # [b, hq, d]
    kd = keys.double().cpu()                         # [b, s, d]
    p = torch.softmax(qd @ kd.transpose(1, 2) * d ** -0.5, -1)
    ref = p @ kd[..., :dv]                           # [b, hq, dv]
    got = out.double().cpu().reshape(b, hq, dv)
    if torch.isnan(got).any():
        return float("nan")
    return ((got - ref).norm() / ref.norm()).item()


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    mod, secs = build()
    copy, mm = copy_ceiling(), matmul_ceiling()
    result = {"build_s": secs, "copy_tb_s": copy, "bf16_mm_tflops": mm,
              "checks": {}, "rows": []}
    # FlashMLA's sm90 dense decode takes D 576 only (an assertion, not an
    # error, refuses 512: it aborts the process); DeepSeek-V4's D 512 goes
    # through its sparse fp8 decode, another interface.
    models = [("mla-dsv3 (absorbed, D 576, Dv 512)", 128, 576, 512),
              ("mla-dsv3, 64 heads", 64, 576, 512)]
    lines = ["FlashMLA sm90 dense decode (built in %.0f s); ceilings in the "
             "same run: copy %.2f TB/s, bf16 matmul %.0f TFLOP/s" %
             (secs, copy, mm)]
    for name, hq, d, dv in models:
        try:
            err = check(mod, d, dv, hq)
        except Exception as e:
            err = None
            result["checks"][name] = str(e).splitlines()[0][:200]
        else:
            result["checks"][name] = err
        lines.append("- check %s: %s" % (name, result["checks"][name]))
    lines += ["", "| shape | B | KV | FlashMLA | bandwidth (of copy) | "
              "rate (of matmul) |", "|---|---|---|---|---|---|"]
    for name, hq, d, dv in models:
        if not isinstance(result["checks"][name], float):
            continue
        for b in (1, 16, 64, 128):
            for s in (1024, 8192, 65536):
                kv_bytes = b * s * d * 2
                copies = l2_copies(kv_bytes)
                sets = [make(b, s, hq, d, 100 + i) for i in range(copies)]
                i = [0]

                def step():
                    q, kv, table, lens = sets[i[0] % copies]
                    i[0] += 1
                    run(mod, q, kv, table, lens, dv)
                step.period = copies  # timing.warmups
                t = time_ms(step)
                total = kv_bytes + b * hq * (d + dv) * 2
                tbs = total / (t * 1e-3) / 1e12
                # S = Q K^T over D and O = P V over Dv: 2 (D + Dv) FLOPs a
                # head and key. 128 heads on one KV make it compute-bound.
                tfl = 2 * b * s * hq * (d + dv) / (t * 1e-3) / 1e12
                result["rows"].append({"model": name, "b": b, "skv": s,
                                       "ms": t, "tb_s": tbs,
                                       "of_copy": tbs / copy, "tflops": tfl,
                                       "of_mm": tfl / mm})
                lines.append("| %s | %d | %d | %.3f ms | %.2f TB/s (%.0f%%) "
                             "| %.0f TFLOP/s (%.0f%%) |" %
                             (name, b, s, t, tbs, 100 * tbs / copy, tfl,
                              100 * tfl / mm))
                del sets
                torch.cuda.empty_cache()
    write_report(outdir, "flashmla", result, lines)
    return 0


if __name__ == "__main__":
    sys.exit(main(report_dir()))
