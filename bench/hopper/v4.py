"""DeepSeek-V4's sparse decode on the GPU: our sm_90a kernels beside
FlashMLA's sm90 sparse fp8 decode, on the same tensors in the same run
(issue 16: "DeepSeek-V4 ... shapes"; docs/Hopper.md).

Here first: bash bench/hopper/gen_ours.sh --v4 (compiles V4_SHAPES of
bench/hopper/shapes.py into build/device-hopper-v4) and, for FlashMLA,
bash scripts/peers/gen_flashmla_sources.sh (build/peers). There (carry
build/device-hopper-v4 and build/peers): python3 bench/hopper/v4.py
[OUTDIR [KERNELS]]; builds libnvfp4_runtime.so (as ours.py) unless
$NVFP4_LIBRARY names one, and FlashMLA's sparse decode
(flashmla.build_sparse); writes v4.json and v4.md to OUTDIR (default $OUT).

Per shape (B sequences, one query token each, 64 or 128 heads, D = Dv =
512 with V inside K, a per-head sink): one cache in DeepSeek-V4's MODEL1
fp8 layout (64-token pages of 64 x 576-byte rows, 448 e4m3 and 64 bf16
values each, then 64 x 8 bytes of UE8M0 scales; our pages are padded to
37,440 bytes, which FlashMLA reads through its block stride), each
sequence's top-k indices drawn from its own context. Both kernels read
the same bytes. The "_lens" shapes also pass kv_lens (every sequence's
whole top-k, so the output and FlashMLA's call are unchanged): our plan
is then made on the device, as when an engine passes top-k lengths.
Correctness: our O against a float32 reference of the dequantized keys
for sequence 0 (rel_l2) and against FlashMLA's O for all. Times: CUDA events around whole calls and CUPTI kernel time (ours:
the attention and combine kernels; FlashMLA: its scheduling, decode and
combine kernels), median of 20 after 3 warm-ups, the index sets rotated
among copies so that the rows gathered total >= 4x the L2. Bytes = the
gathered rows (584 bytes a key) + indices + Q + O, over the copy ceiling
of the same run; FLOPs = 2 B topk H (D + Dv), over the bf16 matmul
ceiling.
"""
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from timing import (l2_copies, outdir, rates_cell,  # noqa: E402
                    report_head, rotating, timed, write_report)
from shapes import V4_PAGE, V4_SHAPES, selected  # noqa: E402
import ours  # noqa: E402

ROW = 576             # a token's e4m3 and bf16 values
NOPE, ROPE = 448, 64  # e4m3 values, bf16 values
SCALES = 8            # bytes of scale record a token (7 used)
TOKEN = ROW + SCALES  # 584


def make_cache(npages, page_bytes, seed):
    """A MODEL1 cache of `npages` pages (u8): e4m3 values of N(0, 1),
    bf16 values in [-2, 2], scales 2^-6 .. 2^1, padding 0xff."""
    g = torch.Generator(device="cuda").manual_seed(seed)
    cache = torch.full((npages, page_bytes), 0xff, dtype=torch.uint8,
                       device="cuda")
    rows = cache[:, :V4_PAGE * ROW].view(npages, V4_PAGE, ROW)
    rows[..., :NOPE] = torch.randn(npages, V4_PAGE, NOPE, device="cuda",
                                   generator=g).to(
        torch.float8_e4m3fn).view(torch.uint8)
    rope = (torch.rand(npages, V4_PAGE, ROPE, device="cuda", generator=g)
            * 4 - 2).bfloat16()
    rows[..., NOPE:] = rope.view(torch.uint8).view(npages, V4_PAGE, 2 * ROPE)
    sc = cache[:, V4_PAGE * ROW:V4_PAGE * TOKEN].view(npages, V4_PAGE,
                                                       SCALES)
    sc[...] = torch.randint(121, 129, (npages, V4_PAGE, SCALES),
                            device="cuda", generator=g, dtype=torch.uint8)
    return cache


def keys(cache, slots):
    """float32 keys [len(slots), 512] of `slots` (page * 64 + offset)."""
    page, off = slots // V4_PAGE, slots % V4_PAGE
    rows = cache[:, :V4_PAGE * ROW].view(-1, V4_PAGE, ROW)[page, off]
    nope = rows[:, :NOPE].contiguous().view(torch.float8_e4m3fn).float()
    sc = cache[:, V4_PAGE * ROW:V4_PAGE * TOKEN].view(
        -1, V4_PAGE, SCALES)[page, off, :NOPE // 64].float()
    nope = nope.view(-1, NOPE // 64, 64) * torch.exp2(sc - 127)[..., None]
    rope = rows[:, NOPE:].contiguous().view(torch.bfloat16).float()
    return torch.cat([nope.reshape(-1, NOPE), rope], 1)


def make(s, seed):
    """q, sink and one index set [B, 1, topk] (each sequence's from its
    own context of s["ctx"] tokens)."""
    b, hq, topk, ctx = s["b"], s["hq"], s["topk"], s["ctx"]
    g = torch.Generator(device="cuda").manual_seed(seed)
    q = torch.randn(b, 1, hq, s["d"], device="cuda", generator=g).bfloat16()
    sink = torch.randn(hq, device="cuda", generator=g)
    idx = torch.stack([torch.randperm(ctx, device="cuda", generator=g)[:topk]
                       + i * ctx for i in range(b)])
    return q, sink, idx.int().view(b, 1, topk).contiguous()


def reference(q, sink, idx, cache, scale):
    """float32 O of sequence 0 with the sink in the denominator: [hq, 512]."""
    k = keys(cache, idx[0, 0].long())
    s = (q[0, 0].float() @ k.T) * scale                    # [hq, topk]
    m = torch.maximum(s.max(-1).values, sink)
    p = torch.exp(s - m[:, None])
    return (p @ k) / (p.sum(-1) + torch.exp(sink - m))[:, None]


def main(out):
    os.makedirs(out, exist_ok=True)
    nvfp4, cuda, kernels, props, copy_tbs, mm_tflops = ours.peer_session(
        "device-hopper-v4")
    try:
        import flashmla
        mod, secs = flashmla.build_sparse()
        fm_status = "built in %.0f s" % secs
    except Exception as e:  # reported, not fatal
        mod = None
        fm_status = "build failed: %s" % str(e).splitlines()[0][:300]
    result = {"device": props.name, "sms": props.multi_processor_count,
              "copy_tb_s": copy_tbs, "bf16_mm_tflops": mm_tflops,
              "flashmla": fm_status, "rows": []}
    print(fm_status, flush=True)
    stream = torch.cuda.current_stream()
    for s in selected(V4_SHAPES):
        b, hq, topk, d = s["b"], s["hq"], s["topk"], s["d"]
        scale = d ** -0.5
        k = nvfp4.load(os.path.join(kernels, s["name"] + ".nvfp4"))
        shapes = dict((i.name, i.shape) for i in k.inputs)
        npages, page_bytes = shapes["kv"]
        cache = make_cache(npages, page_bytes, 7)
        # FlashMLA's view: [pages, 64, 1, 584] u8 with the pages' stride.
        fm_cache = cache.as_strided((npages, V4_PAGE, 1, TOKEN),
                                    (page_bytes, TOKEN, TOKEN, 1))
        gathered = b * topk * TOKEN
        copies = l2_copies(gathered)
        sets = [make(s, 100 + i) for i in range(copies)]
        o = torch.empty(b, 1, hq, d, device="cuda", dtype=torch.bfloat16)
        lse = torch.empty(b, hq, 1, device="cuda", dtype=torch.float32)
        ws = cuda.empty((max(k.workspace_bytes, 1),), "u8")
        names = [i.name for i in k.inputs]
        kv_i8 = cache.view(torch.int8)

        # kv_lens (the "_lens" shapes): every sequence's whole top-k.
        lens = torch.full((b,), topk, device="cuda", dtype=torch.int32)

        def call(q, sink, idx):
            by = {"q": q, "kv": kv_i8, "sink": sink, "indices": idx,
                  "kv_lens": lens}
            k(*[by[n] for n in names], out=(o, lse), device=cuda,
              workspace=ws, stream=stream)

        def fcall(q, sink, idx):
            return mod.sparse_decode_fwd(q, fm_cache, idx, None, sink, None,
                                         None, None, None, None, d, scale)
        row = {"shape": s}
        o.fill_(float("nan"))
        call(*sets[0])
        ref = reference(*sets[0], cache, scale)
        got = o[0, 0].float()
        row["rel_l2_vs_f32"] = ((got - ref).norm() / ref.norm()).item()
        if mod is not None:
            try:
                fo = fcall(*sets[0])[0]
                row["rel_l2_vs_flashmla"] = (
                    (o.float() - fo.float()).norm() /
                    fo.float().norm()).item()
                row["flashmla_rel_l2_vs_f32"] = (
                    (fo[0, 0].float() - ref).norm() / ref.norm()).item()
            except Exception as e:
                row["flashmla_error"] = str(e).splitlines()[0][:300]
        total = gathered + b * topk * 4 + 2 * b * hq * d * 2
        flops = 2 * b * topk * hq * 2 * d
        row["ours"] = timed(rotating(call, sets), total, flops)
        if mod is not None and "flashmla_error" not in row:
            row["flashmla"] = timed(rotating(fcall, sets), total, flops)
        result["rows"].append(row)
        print(row, flush=True)
        del sets, cache, fm_cache, kv_i8
        torch.cuda.empty_cache()

    def perf(r):
        return rates_cell(r, copy_tbs, mm_tflops)
    lines = report_head(props, "FlashMLA sparse decode: %s" % fm_status,
                        copy_tbs, mm_tflops) + [
             "| Hq | B | top-k | ours: kernels | FlashMLA: kernels | "
             "FlashMLA / ours (kernels) | ours: call | FlashMLA: call | "
             "rel_l2 ours vs f32 / FlashMLA vs f32 / ours vs FlashMLA |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in result["rows"]:
        s, fm = r["shape"], r.get("flashmla")
        lines.append("| %d | %d | %d | %.3f ms | %s | %s | %s | %s | "
                     "%.1e / %s / %s |" % (
                         s["hq"], s["b"], s["topk"], r["ours"]["kernel_ms"],
                         "—" if fm is None else "%.3f ms" % fm["kernel_ms"],
                         "—" if fm is None else "%.2fx" % (
                             fm["kernel_ms"] / r["ours"]["kernel_ms"]),
                         perf(r["ours"]), perf(fm), r["rel_l2_vs_f32"],
                         "%.1e" % r["flashmla_rel_l2_vs_f32"]
                         if "flashmla_rel_l2_vs_f32" in r else
                         r.get("flashmla_error", "—"),
                         "%.1e" % r["rel_l2_vs_flashmla"]
                         if "rel_l2_vs_flashmla" in r else "—"))
    write_report(out, "v4", result, lines)
    return 0


if __name__ == "__main__":
    sys.exit(main(outdir()))
