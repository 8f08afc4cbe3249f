"""Our sm_90a MLA decode kernels on the H200 beside FlashMLA, on the same
tensors in the same run (issue 16, docs/Hopper.md "Increment 5").

Here first: bash bench/hopper/gen_mla.sh (compiles MLA_SHAPES of
bench/hopper/shapes.py into build/device-hopper-mla) and, for FlashMLA,
bash scripts/peers/gen_flashmla_sources.sh (build/peers). There (carry
build/device-hopper-mla and build/peers): python3 bench/hopper/mla.py
[OUTDIR [KERNELS]]; builds libnvfp4_runtime.so (as ours.py) unless
$NVFP4_LIBRARY names one, and FlashMLA (as flashmla.py) when build/peers is
there and FLASHMLA=0 is not set; ONLY=SUBSTRING times only the shapes
whose names hold it; writes mla.json and mla.md to OUTDIR (default $OUT).

Per shape (B sequences of KV keys each, 64 or 128 query heads, D 576 with
V = K's first 512 columns, 64-key pages in a random block table, kv_lens):
both kernels read the same q, paged KV, table and lengths. Correctness:
our O against a float32 reference for the first sequence (rel_l2) and
against FlashMLA's O for all (rel_l2; bf16 rounding gives ~2e-3), so a
fast wrong kernel shows. Times: CUDA events around whole calls (ours
through the C API with a preallocated workspace: the attention and the
combine kernels) and CUPTI kernel time, median of 20 after 3 warm-ups,
KV rotated among copies totalling >= 4x the 60 MB L2. Bytes = the KV rows
each sequence reads (576 bf16 a key) + Q + O, over the copy ceiling of
the same run; FLOPs = 2 B KV H (D + Dv), over the bf16 matmul ceiling.
SM fill (model) = the keys the busiest CTA multiplies against the mean,
from the balanced plan the kernel computes (shapes.sm_fill; checked
against the emulator's per-CTA wgmma counters by bench/hopper/fill.py)
for 132 SMs.
"""
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from timing import (l2_copies, outdir, rates_cell,  # noqa: E402
                    report_head, rotating, timed, write_report)
from shapes import (MLA_PAGE, MLA_SHAPES, lens_of, selected,  # noqa: E402
                    sm_fill)
import ours  # noqa: E402

def flashmla_module():
    if os.environ.get("FLASHMLA") == "0":
        return None, "not built (FLASHMLA=0)"
    if not os.path.isdir(os.path.join(ROOT, "build", "peers", "flashmla")):
        return None, "build/peers not carried"
    try:
        import flashmla
        mod, secs = flashmla.build()
        return mod, "built in %.0f s" % secs
    except Exception as e:  # a build failure is reported, not fatal
        return None, "build failed: %s" % str(e).splitlines()[0][:200]


def make(s, npages, seed):
    b, hq, skv, d = (s[x] for x in ("b", "hq", "skv", "d"))
    g = torch.Generator(device="cuda").manual_seed(seed)
    mp = -(-skv // MLA_PAGE)
    q = torch.randn(b, 1, hq, d, device="cuda", generator=g).bfloat16()
    kv = torch.randn(npages, MLA_PAGE, 1, d, device="cuda",
                     generator=g).bfloat16()
    table = torch.randperm(npages, device="cuda", generator=g)[:b * mp]
    table = table.int().view(b, mp).contiguous()
    lens = torch.tensor(lens_of(s), dtype=torch.int32, device="cuda")
    return q, kv, table, lens


def reference(s, q, kv, table):
    """float32 O of sequence 0: [hq, dv]."""
    skv, d, dv = lens_of(s)[0], s["d"], s["dv"]
    rows = (table[0].long().unsqueeze(-1) * MLA_PAGE +
            torch.arange(MLA_PAGE, device="cuda")).view(-1)[:skv]
    keys = kv.view(-1, d)[rows].float()              # [skv, d]
    p = torch.softmax(q[0, 0].float() @ keys.T * d ** -0.5, -1)
    return p @ keys[:, :dv]


def main(out):
    os.makedirs(out, exist_ok=True)
    nvfp4, cuda, kernels, props, copy_tbs, mm_tflops = ours.peer_session(
        "device-hopper-mla")
    mod, fm_status = flashmla_module()
    result = {"device": props.name, "sms": props.multi_processor_count,
              "copy_tb_s": copy_tbs, "bf16_mm_tflops": mm_tflops,
              "flashmla": fm_status, "rows": []}
    stream = torch.cuda.current_stream()
    for s in selected(MLA_SHAPES):
        b, hq, skv, d, dv = (s[x] for x in ("b", "hq", "skv", "d", "dv"))
        k = nvfp4.load(os.path.join(kernels, s["name"] + ".nvfp4"))
        npages = dict((i.name, i.shape) for i in k.inputs)["k"][0]
        keys = sum(lens_of(s))
        kv_bytes = keys * d * 2
        copies = l2_copies(kv_bytes)
        sets = [make(s, npages, 100 + i) for i in range(copies)]
        o = torch.empty(b, 1, hq, dv, device="cuda", dtype=torch.bfloat16)
        lse = torch.empty(b, hq, 1, device="cuda", dtype=torch.float32)
        ws = cuda.empty((max(k.workspace_bytes, 1),), "u8")
        names = [i.name for i in k.inputs]

        def call(q, kv, table, lens):
            by = {"q": q, "k": kv, "kv_lens": lens, "block_table": table}
            k(*[by[n] for n in names], out=(o, lse), device=cuda,
              workspace=ws, stream=stream)
        row = {"shape": s, "sm_fill_model": sm_fill(s, lens_of(s))}
        o.fill_(float("nan"))
        call(*sets[0])
        ref = reference(s, *sets[0][:3])
        got = o[0, 0].float()
        row["rel_l2_vs_f32"] = ((got - ref).norm() / ref.norm()).item()
        if mod is not None:
            import flashmla
            fo, _ = flashmla.run(mod, *sets[0], dv)
            mine = o.float().reshape(b, hq, dv)
            theirs = fo.float().reshape(b, hq, dv)
            row["rel_l2_vs_flashmla"] = (
                (mine - theirs).norm() / theirs.norm()).item()
            del fo, mine, theirs
        total = kv_bytes + b * hq * (d + dv) * 2
        flops = 2 * keys * hq * (d + dv)
        row["ours"] = timed(rotating(call, sets), total, flops)
        if mod is not None:
            row["flashmla"] = timed(rotating(
                lambda q, kv, table, lens: flashmla.run(mod, q, kv, table,
                                                        lens, dv), sets),
                total, flops)
        result["rows"].append(row)
        print(row, flush=True)
        del sets
        torch.cuda.empty_cache()

    def perf(r):
        return rates_cell(r, copy_tbs, mm_tflops)
    lines = report_head(props, "FlashMLA: %s" % fm_status, copy_tbs,
                        mm_tflops) + [
             "| Hq | B | KV | ours | FlashMLA | FlashMLA / ours | ours, "
             "kernels | FlashMLA, kernels | SM fill (model) | rel_l2 vs "
             "f32 / FlashMLA |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in result["rows"]:
        s, fm = r["shape"], r.get("flashmla")
        lines.append("| %d | %d | %s | %s | %s | %s | %.3f ms | %s | %.2f | "
                     "%.1e / %s |" % (
                         s["hq"], s["b"], s.get("kv_label", s["skv"]),
                         perf(r["ours"]),
                         perf(fm), "—" if fm is None else "%.2fx" % (
                             fm["ms"] / r["ours"]["ms"]),
                         r["ours"]["kernel_ms"],
                         "—" if fm is None else "%.3f ms" % fm["kernel_ms"],
                         r["sm_fill_model"], r["rel_l2_vs_f32"],
                         "—" if fm is None else "%.1e" %
                         r["rel_l2_vs_flashmla"]))
    write_report(out, "mla", result, lines)
    return 0


if __name__ == "__main__":
    sys.exit(main(outdir()))
