"""The H200 side of issue 16's tables, before our sm_90a kernels exist:
the two ceilings and the peers' times, measured in one run.

Run on the GPU machine (torch is there): python3 bench/hopper/peers.py
[OUTDIR] (default $OUT). Writes peers.json (every number) and peers.md
(the tables docs/Hopper.md quotes) to OUTDIR and prints peers.md.

Method (the device README's METHOD.md): CUDA events around each launch,
3 warm-ups then the median of 20 (50 for launches under 100 us); fresh
random inputs (never zeros); inputs rotated among several copies when one
set would fit in the 60 MB L2, so that decode times are HBM times.
- Ceilings: a device-to-device copy of 4 GiB (bytes read + written over
  time) and an 8192^3 bf16 matrix product on random data (TFLOP/s).
- Decode: one query token per sequence, KV lengths all equal (mixed
  lengths need varlen peers; SDPA has none). Bytes = K + V + Q + O, read
  once; achieved bandwidth over the copy ceiling. GQA (Llama-3-70B-class:
  64 query heads, 8 KV heads, D 128) and the MLA shapes (DeepSeek-V3 /
  V4: 128 query heads on one shared latent KV of D 576 / 512, absorbed,
  Dv 512): SDPA's flash and cuDNN backends where they take the shape,
  "unsupported" with the reason where they refuse it.
- Prefill: causal, Sq = Skv, TFLOP/s = 2 * 2 * B * H * S^2 * D / 2 over
  time, over the matrix ceiling.
Each backend's output on a small case is compared with a float64
reference (rel_l2 printed; a peer that fails it is marked).
"""
import math
import os
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timing import (cell, copy_ceiling, l2_copies,  # noqa: E402
                    matmul_ceiling, outdir, time_ms, write_report)

DEV = "cuda"
BACKENDS = {"flash": SDPBackend.FLASH_ATTENTION,
            "cudnn": SDPBackend.CUDNN_ATTENTION}


def ceilings():
    return copy_ceiling(), matmul_ceiling()


def reference(q, k, v, causal, scale):
    """float64 attention on the CPU (small cases), GQA by repetition."""
    q, k, v = (x.double().cpu() for x in (q, k, v))
    rep = q.shape[1] // k.shape[1]
    k = k.repeat_interleave(rep, dim=1)
    v = v.repeat_interleave(rep, dim=1)
    s = (q @ k.transpose(-1, -2)) * scale
    if causal:
        sq, skv = s.shape[-2], s.shape[-1]
        mask = torch.ones(sq, skv, dtype=torch.bool).tril()
        s = s.masked_fill(~mask, -math.inf)
    return torch.softmax(s, -1) @ v


def sdpa(backend, q, k, v, causal, scale):
    with sdpa_kernel([BACKENDS[backend]]):
        return F.scaled_dot_product_attention(
            q, k, v, is_causal=causal, scale=scale,
            enable_gqa=q.shape[1] != k.shape[1])


def sdpa_bshd(q, k, v, causal, scale):
    """SDPA's O (float32) for [B, S, H, D] inputs, by cuDNN, else flash;
    None when both refuse the shape. What our outputs are compared with."""
    qt, kt, vt = (x.transpose(1, 2) for x in (q, k, v))
    for backend in ("cudnn", "flash"):
        try:
            return sdpa(backend, qt, kt, vt, causal,
                        scale).transpose(1, 2).float()
        except Exception:
            continue
    return None


def check(backend, hq, hkv, d, dv, causal):
    """rel_l2 of the backend against float64 on a small case, or the
    backend's refusal."""
    g = torch.Generator(device=DEV).manual_seed(7)
    # Prefill checks with Sq = Skv: SDPA's is_causal aligns the mask to the
    # top left, the usual bottom-right alignment only agrees when square.
    sq = 256 if causal else 1
    q = torch.randn(2, hq, sq, d, device=DEV, generator=g).bfloat16()
    k = torch.randn(2, hkv, 256, d, device=DEV, generator=g).bfloat16()
    v = torch.randn(2, hkv, 256, dv, device=DEV, generator=g).bfloat16()
    scale = d ** -0.5
    try:
        o = sdpa(backend, q, k, v, causal, scale)
    except Exception as e:  # a backend that does not take the shape
        return None, str(e).splitlines()[0][:160]
    ref = reference(q, k, v, causal, scale)
    got = o.double().cpu()
    if torch.isnan(got).any():
        return float("nan"), "NaN in the output"
    return ((got - ref).norm() / ref.norm()).item(), ""


def decode_case(backend, b, hq, hkv, d, dv, skv, copy_tbs):
    kv_bytes = b * hkv * skv * (d + dv) * 2
    copies = l2_copies(kv_bytes)
    sets = []
    for _ in range(copies):
        q = torch.randn(b, hq, 1, d, device=DEV, dtype=torch.bfloat16)
        k = torch.randn(b, hkv, skv, d, device=DEV, dtype=torch.bfloat16)
        v = torch.randn(b, hkv, skv, dv, device=DEV, dtype=torch.bfloat16)
        sets.append((q, k, v))
    i = [0]

    def run():
        q, k, v = sets[i[0] % copies]
        i[0] += 1
        return sdpa(backend, q, k, v, False, d ** -0.5)
    run.period = copies  # timing.warmups: a call on every set first

    try:
        t = time_ms(run)
    except Exception as e:
        return {"error": str(e).splitlines()[0][:160]}
    finally:
        pass
    total = kv_bytes + b * hq * (d + dv) * 2
    tbs = total / (t * 1e-3) / 1e12
    return {"ms": t, "tb_s": tbs, "of_copy": tbs / copy_tbs}


def prefill_case(backend, b, h, s, d, mm_tflops):
    q = torch.randn(b, h, s, d, device=DEV, dtype=torch.bfloat16)
    k = torch.randn(b, h, s, d, device=DEV, dtype=torch.bfloat16)
    v = torch.randn(b, h, s, d, device=DEV, dtype=torch.bfloat16)
    try:
        t = time_ms(lambda: sdpa(backend, q, k, v, True, d ** -0.5))
    except Exception as e:
        return {"error": str(e).splitlines()[0][:160]}
    flops = 4 * b * h * s * s * d / 2
    tf = flops / (t * 1e-3) / 1e12
    return {"ms": t, "tflops": tf, "of_mm": tf / mm_tflops}


def main(out):
    os.makedirs(out, exist_ok=True)
    props = torch.cuda.get_device_properties(0)
    copy_tbs, mm_tflops = ceilings()
    result = {"device": props.name, "sms": props.multi_processor_count,
              "torch": torch.__version__,
              "cudnn": torch.backends.cudnn.version(),
              "copy_tb_s": copy_tbs, "bf16_mm_tflops": mm_tflops,
              "checks": {}, "decode": [], "prefill": []}
    # (name, hq, hkv, d, dv)
    decode_models = [("gqa-llama70b", 64, 8, 128, 128),
                     ("mla-dsv3 (absorbed)", 128, 1, 576, 512),
                     ("mqa-dsv4 (d 512)", 64, 1, 512, 512)]
    for name, hq, hkv, d, dv in decode_models:
        for backend in BACKENDS:
            err, why = check(backend, hq, hkv, d, dv, False)
            result["checks"]["%s %s" % (name, backend)] = {
                "rel_l2": err, "refused": why}
    for name, hq, hkv, d, dv in decode_models:
        for b in (1, 16, 64, 128):
            for skv in (1024, 8192, 65536):
                if b * hkv * skv * (d + dv) * 2 > 40e9:
                    continue
                row = {"model": name, "b": b, "skv": skv}
                for backend in BACKENDS:
                    key = "%s %s" % (name, backend)
                    if result["checks"][key]["refused"]:
                        row[backend] = {"error": "unsupported: " +
                                        result["checks"][key]["refused"]}
                    else:
                        row[backend] = decode_case(backend, b, hq, hkv, d,
                                                   dv, skv, copy_tbs)
                result["decode"].append(row)
                torch.cuda.empty_cache()
    for d in (64, 128, 256):
        for backend in BACKENDS:
            err, why = check(backend, 16, 16, d, d, True)
            result["checks"]["prefill d%d %s" % (d, backend)] = {
                "rel_l2": err, "refused": why}
    for d, h in ((64, 32), (128, 16), (256, 8)):
        for b, s in ((4, 4096), (1, 16384)):
            row = {"d": d, "h": h, "b": b, "s": s}
            for backend in BACKENDS:
                row[backend] = prefill_case(backend, b, h, s, d, mm_tflops)
            result["prefill"].append(row)

    lines = ["%s, %d SMs, torch %s, cuDNN %s" % (
        props.name, props.multi_processor_count, torch.__version__,
        result["cudnn"]),
        "ceilings: copy %.2f TB/s (4 GiB, read + written), bf16 matmul "
        "%.0f TFLOP/s (8192^3, random)" % (copy_tbs, mm_tflops), "",
        "checks against float64 (rel_l2, or the refusal):"]
    for k, v in result["checks"].items():
        lines.append("- %s: %s" % (k, v["refused"] or "%.2e" % v["rel_l2"]))
    lines += ["", "| decode | B | KV | SDPA flash | SDPA cuDNN |",
              "|---|---|---|---|---|"]
    for r in result["decode"]:
        lines.append("| %s | %d | %d | %s | %s |" % (
            r["model"], r["b"], r["skv"], cell(r["flash"], "tb_s", "of_copy"),
            cell(r["cudnn"], "tb_s", "of_copy")))
    lines += ["", "| prefill (causal) | D | H | B | S | SDPA flash | "
              "SDPA cuDNN |", "|---|---|---|---|---|---|---|"]
    for r in result["prefill"]:
        lines.append("| | %d | %d | %d | %d | %s | %s |" % (
            r["d"], r["h"], r["b"], r["s"],
            cell(r["flash"], "tflops", "of_mm"),
            cell(r["cudnn"], "tflops", "of_mm")))
    write_report(out, "peers", result, lines)
    return 0


if __name__ == "__main__":
    sys.exit(main(outdir()))
