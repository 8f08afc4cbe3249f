#!/usr/bin/env python3
"""Runs nvfp4.attention configurations through the lowering and nvfp4-run.

Each case is one `nvfp4.attention` op in a function of its own; nvfp4-run
lowers it (nvfp4-lower-attention), compiles the kernel, runs it on the
emulator with seeded inputs and checks O and the LSE against the float64
reference (docs/Attention.md thresholds). With --ptxas the PTX nvfp4-run
compiled and ran (its --emit-ptx, every option included) is also assembled
for the chip and must have zero spills and no stack frame; --nvfp4-opt
reads the schedule attributes into --table's columns.

  scripts/attention_matrix.py --set=ci --nvfp4-run=build/bin/nvfp4-run \
      [--nvfp4-opt=build/bin/nvfp4-opt --ptxas=/usr/local/cuda/bin/ptxas] \
      [--table=FILE] [--only=SUBSTRING] [--jobs=N]

--set=ci is the share CI runs (test/Runtime/attention-matrix.test); --set=full
is the larger sweep (docs/AttentionLowering.md). --table writes the ptxas
registers / shared memory / TMEM columns per configuration as Markdown.
Prints one line per case and ends with "attention matrix: N of M passed".
Exits non-zero when a case fails.
"""

import argparse
import concurrent.futures
import itertools
import os
import re
import subprocess
import sys
import tempfile


# Bytes per page of the quantized cache layouts (nvfp4/Support/KvCacheFormat.h).
CACHE_PAGE_BYTES = {
    "deepseek_v4_fp8": lambda ps: -(-ps * 584 // 576) * 576,
    "deepseek_v32_fp8": lambda ps: ps * 656,
}


def op_text(c):
    """The function holding the case's nvfp4.attention."""
    B, Sq, Hq, Skv, Hkv, D, Dv = (c[k] for k in
                                  ("b", "sq", "hq", "skv", "hkv", "d", "dv"))
    T, To = c.get("t", "bf16"), c.get("to", c.get("t", "bf16"))
    q = f"tensor<{B}x{Sq}x{Hq}x{D}x{T}>"
    k = f"tensor<{B}x{Skv}x{Hkv}x{D}x{T}>"
    v = f"tensor<{B}x{Skv}x{Hkv}x{Dv}x{T}>"
    ps = c.get("page")
    if ps:
        # A paged cache: Skv = MaxPages x PageSize, and a few more pages in
        # the cache than the block table uses.
        mp = -(-Skv // ps)
        npages = B * mp + 3
        k = f"tensor<{npages}x{ps}x{Hkv}x{D}x{T}>"
        v = f"tensor<{npages}x{ps}x{Hkv}x{Dv}x{T}>"
    topk = c.get("topk")
    if topk:
        # Sparse top-k: Skv is TopK; the cache holds `slots` rows in pages
        # of `cache_page` (64 unless given), and the indices span them all.
        cp = c.get("cache_page", 64)
        npages = -(-c.get("slots", 1000) // cp)
        k = f"tensor<{npages}x{cp}x{Hkv}x{D}x{T}>"
        v = f"tensor<{npages}x{cp}x{Hkv}x{Dv}x{T}>"
    fmt = c.get("cache")
    if fmt:
        # A quantized cache (kv_cache): K = V, the raw bytes of npages pages.
        cp = c.get("cache_page", 64)
        npages = -(-c.get("slots", 1000) // cp)
        k = v = f"tensor<{npages}x{CACHE_PAGE_BYTES[fmt](cp)}xi8>"
    # to="fp4": O as NVFP4 (o_scale), with a third result: its swizzled
    # scale factors [round_up(B * Sq, 128), Hq * Dv / 16].
    fp4 = To == "fp4"
    o = f"tensor<{B}x{Sq}x{Hq}x{Dv}x{'f4E2M1FN' if fp4 else To}>"
    lse = f"tensor<{B}x{Hq}x{Sq}xf32>"
    results = [o, lse]
    if fp4:
        results.append(f"tensor<{-(-B * Sq // 128) * 128}x"
                       f"{-(-Hq * Dv // 64) * 4}xf8E4M3FN>")
    same = c.get("same", False)
    # V as the leading Dv columns of K's rows (absorbed MLA): a slice of K.
    vslice = c.get("vslice", False)
    args = [f"%q: {q}", f"%k: {k}"] + ([] if same or vslice else
                                        [f"%v: {v}"])
    operands = ["%q", "%k", "%k" if same else "%v"]
    types = [q, k, k if same else v]
    body = ""
    if vslice:
        dims = k[len("tensor<"):].split("x")[:3]
        body = ("  %%v = tensor.extract_slice %%k[0, 0, 0, 0] [%s, %s, %s, %d] "
                "[1, 1, 1, 1]\n      : %s to %s\n" % (dims[0], dims[1], dims[2],
                                                      Dv, k, v))
    opt = ""
    if c.get("sink"):
        args.append(f"%s: tensor<{Hq}xf32>")
        types.append(f"tensor<{Hq}xf32>")
        opt += " sink(%s)"
    if c.get("lens"):
        args.append(f"%l: tensor<{B}xi32>")
        types.append(f"tensor<{B}xi32>")
        opt += " kv_lens(%l)"
    if ps:
        args.append(f"%bt: tensor<{B}x{mp}xi32>")
        types.append(f"tensor<{B}x{mp}xi32>")
        opt += " block_table(%bt)"
    if topk:
        args.append(f"%ix: tensor<{B}x{Sq}x{topk}xi32>")
        types.append(f"tensor<{B}x{Sq}x{topk}xi32>")
        opt += " indices(%ix)"
    if fmt:
        opt += ' kv_cache(<"%s", page_size = %d>)' % (fmt, cp)
    ex = c.get("extra")
    if ex:
        # A second key set (the DeepSeek-V4 layer's compressed cache).
        np2 = -(-ex["slots"] // ex["page"])
        k2 = f"tensor<{np2}x{CACHE_PAGE_BYTES[fmt](ex['page'])}xi8>"
        i2 = f"tensor<{B}x{Sq}x{ex['topk']}xi32>"
        args += [f"%kv2: {k2}", f"%ix2: {i2}"]
        types += [k2, i2]
        opt += " extra(%kv2, %ix2)"
        if ex.get("lens"):
            args.append(f"%l2: tensor<{B}xi32>")
            types.append(f"tensor<{B}xi32>")
            opt += " extra_lens(%l2)"
        opt += ' extra_kv_cache(<"%s", page_size = %d>)' % (fmt, ex["page"])
    if fp4:
        args.append("%gs: tensor<f32>")
        types.append("tensor<f32>")
        opt += " o_scale(%gs)"
    opt += " softmax_scale(%.9g)" % (1.0 / D ** 0.5)
    if c.get("causal"):
        opt += " causal"
    if c.get("window"):
        opt += " window(%d)" % c["window"]
    if c.get("splits"):
        opt += " num_splits(%d)" % c["splits"]
    res = ", ".join(results)
    names = ", ".join(["%o", "%lse", "%sf"][:len(results)])
    return (f"func.func @{c['name']}({', '.join(args)}) -> ({res}) {{\n"
            f"{body}"
            f"  {names} = nvfp4.attention {', '.join(operands)}{opt}\n"
            f"      : ({', '.join(types)}) -> ({res})\n"
            f"  return {names} : {res}\n}}\n")


def case(name, **kw):
    kw["name"] = name
    kw.setdefault("dv", kw["d"])
    if "topk" in kw:
        kw["skv"] = kw["topk"]
    return kw


def ci_cases():
    """One case per row of the acceptance matrix, each with several KV
    tiles and lengths that are not multiples of the 128-key tile (kv_lens
    holds Skv, random lengths and 1)."""
    return [
        # Decode, MQA / GQA / MHA, head dims 64, 128, 256.
        case("mqa_d128_sink_lens", b=3, sq=1, hq=128, hkv=1, skv=400, d=128,
             sink=True, lens=True),
        case("mqa_d64_plain", b=2, sq=1, hq=64, hkv=1, skv=300, d=64),
        case("mqa_d256_kv_same", b=2, sq=1, hq=16, hkv=1, skv=390, d=256,
             same=True, sink=True, lens=True),
        case("gqa8_d128_window", b=2, sq=1, hq=16, hkv=2, skv=500, d=128,
             window=130, lens=True),
        case("gqa6_d64_causal_sink", b=3, sq=1, hq=18, hkv=3, skv=333, d=64,
             causal=True, sink=True, lens=True),
        case("mha_d256_dv128", b=2, sq=1, hq=4, hkv=4, skv=300, d=256,
             dv=128, sink=True),
        case("mha_d64_dv256_f16", b=2, sq=1, hq=2, hkv=2, skv=270, d=64,
             dv=256, t="f16", lens=True),
        # Decode with two queries (speculative decoding), causal + window.
        case("mqa_sq2_causal_window", b=2, sq=2, hq=64, hkv=1, skv=450, d=128,
             causal=True, window=200, sink=True, lens=True),
        # Prefill: queries along M, several row blocks.
        case("prefill_causal_d128", b=1, sq=300, hq=2, hkv=1, skv=300, d=128,
             causal=True),
        case("prefill_causal_window_lens", b=2, sq=260, hq=1, hkv=1, skv=400,
             d=64, causal=True, window=100, lens=True, sink=True),
        case("prefill_gqa_window_only", b=1, sq=140, hq=4, hkv=2, skv=400,
             d=128, window=150),
        case("prefill_d256_f16_bf16out", b=1, sq=200, hq=1, hkv=1, skv=330,
             d=256, t="f16", to="bf16", causal=True, lens=True),
        # Head dim 512: D and Dv split across two CTAs, partial S exchanged
        # (128-key tiles with K = V, 64-key tiles with a separate V).
        case("mqa_d512_kv_same_sink", b=2, sq=1, hq=128, hkv=1, skv=300,
             d=512, same=True, sink=True, lens=True),
        case("gqa_d512_sq2_causal_window", b=1, sq=2, hq=16, hkv=2, skv=270,
             d=512, causal=True, window=100, lens=True),
        case("prefill_d512_causal", b=1, sq=150, hq=1, hkv=1, skv=200, d=512,
             causal=True, sink=True),
        # D = 512 with Dv = 256 (no Dv split): Q fills 128 KiB, so only one
        # stage of 64 keys fits, and with it one S buffer (P V of each tile
        # before the next S).
        case("gqa_d512_dv256_one_stage", b=2, sq=1, hq=8, hkv=2, skv=300,
             d=512, dv=256, lens=True),
        # Dv = 512 with D = 64: the pair cannot split D, so both CTAs
        # compute S and share Q and K tiles by multicast.
        case("gqa_d64_dv512_multicast", b=2, sq=1, hq=8, hkv=2, skv=300,
             d=64, dv=512, sink=True, lens=True),
        # Work split (the cases above use the default: balanced over 148
        # SMs, which splits these small problems into one-tile pieces).
        # Whole units (no split-KV, no combine):
        case("whole_gqa_causal_sink", b=3, sq=2, hq=16, hkv=2, skv=450,
             d=128, causal=True, sink=True, lens=True, splits=1),
        # Uniform splits, more parts than tiles (empty parts, lse = -inf):
        case("uniform8_mqa_sink", b=2, sq=1, hq=64, hkv=1, skv=300, d=128,
             sink=True, lens=True, splits=8),
        case("uniform3_d512_window", b=2, sq=1, hq=16, hkv=1, skv=700,
             d=512, same=True, window=300, lens=True, splits=3),
        # Balanced over few SMs: partitions span several units (sequences
        # straddle partitions), mixed lengths, with and without kv_lens.
        case("balanced5_gqa_mixed", b=5, sq=1, hq=16, hkv=2, skv=1000,
             d=128, sink=True, lens=True, sms=5),
        case("balanced3_static_prefill", b=2, sq=150, hq=2, hkv=1, skv=400,
             d=64, causal=True, sms=3),
        # A static prefill with many row blocks a partition: whole units in
        # the plan's own order (plan::localOrder, a unit-order table).
        case("ordered4_static_prefill", b=2, sq=300, hq=4, hkv=2, skv=320,
             d=64, causal=True, sms=4),
        case("balanced7_d512_sink", b=3, sq=1, hq=128, hkv=1, skv=900,
             d=512, same=True, sink=True, lens=True, sms=14),
        # Paged KV: every page size, shuffled block tables, lengths that are
        # not multiples of the page.
        case("paged16_gqa_sink", b=3, sq=1, hq=16, hkv=2, skv=300, d=128,
             page=16, sink=True, lens=True),
        case("paged64_mqa_window", b=2, sq=2, hq=64, hkv=1, skv=520, d=128,
             page=64, causal=True, window=200, lens=True, sms=6),
        case("paged128_prefill_causal", b=2, sq=130, hq=2, hkv=1, skv=384,
             d=64, page=128, causal=True, lens=True, splits=1),
        case("paged256_d512_kv_same", b=2, sq=1, hq=128, hkv=1, skv=600,
             d=512, same=True, page=256, sink=True, lens=True, sms=8),
        # Pieces split in the middle of 128-key tiles (the plan's 64-key
        # granule, chosen when it fills the partitions better): static plan
        # (static_plan_keys = 64), device plans with a D = 512 pair and with
        # causal + window.
        case("fine_static_mqa_sink", b=1, sq=1, hq=64, hkv=1, skv=896, d=128,
             sink=True, sms=6),
        case("fine_device_d512", b=2, sq=1, hq=128, hkv=1, skv=1000, d=512,
             same=True, lens=True, sms=24),
        case("fine_device_gqa_causal_window", b=2, sq=2, hq=16, hkv=2,
             skv=900, d=128, causal=True, window=300, lens=True, sms=10),
        # MLA head dims: absorbed decode (D = 576, V = K's first 512
        # columns, no copy; the pair splits D as 320 + 256) paged, and the
        # prefill shape D = 192 / Dv = 128 causal.
        case("mla576_decode_paged", b=3, sq=1, hq=128, hkv=1, skv=700,
             d=576, dv=512, vslice=True, page=64, sink=True, lens=True,
             sms=10),
        case("mla576_sq2_causal", b=2, sq=2, hq=64, hkv=1, skv=400, d=576,
             dv=512, vslice=True, causal=True, lens=True),
        case("mla192_prefill_causal", b=1, sq=260, hq=4, hkv=4, skv=300,
             d=192, dv=128, causal=True, lens=True),
        # Sparse top-k (indices: slots of a cache of pages spanning all of
        # it, -1 entries, repeats, a row of -1 only; kv_lens = top-k
        # lengths): MTP decodes at DeepSeek's head dims, top-k not a
        # multiple of 64, split-KV balanced, uniform and whole.
        case("sparse_mqa_d128_mtp", b=3, sq=2, hq=64, hkv=1, topk=200,
             d=128, slots=1000, sink=True, lens=True),
        case("sparse_v4_d512_kv_same", b=2, sq=2, hq=128, hkv=1, topk=300,
             d=512, same=True, slots=2000, cache_page=256, sink=True,
             lens=True, sms=16),
        case("sparse_v32_mla576", b=2, sq=1, hq=128, hkv=1, topk=640,
             d=576, dv=512, vslice=True, slots=3000, sink=True, sms=10),
        case("sparse_gqa_separate_v", b=2, sq=1, hq=16, hkv=2, topk=100,
             d=128, dv=64, slots=500, lens=True, splits=3),
        case("sparse_topk2048", b=1, sq=1, hq=64, hkv=1, topk=2048, d=64,
             slots=5000, sink=True),
        case("sparse_topk64_whole", b=2, sq=2, hq=32, hkv=1, topk=64,
             d=256, same=True, slots=300, lens=True, splits=1),
        # DeepSeek's fp8 caches (kv_cache): V4 MODEL1 (584 B/token, pages
        # padded to 576 B, UE8M0 scales after the rows) and V3.2 (656
        # B/token, f32 scales in the row; D = 576, Dv = 512), dequantized to
        # bf16 by warps 6-7; MTP, sink, top-k lengths, split-KV.
        case("fp8_v4_mtp_sink", b=2, sq=2, hq=64, hkv=1, topk=200, d=512,
             same=True, cache="deepseek_v4_fp8", slots=1000, sink=True,
             lens=True),
        case("fp8_v4_page256_h128", b=2, sq=1, hq=128, hkv=1, topk=300,
             d=512, same=True, cache="deepseek_v4_fp8", cache_page=256,
             slots=2000, sink=True, sms=12),
        case("fp8_v32_mtp", b=2, sq=2, hq=64, hkv=1, topk=260, d=576,
             dv=512, same=True, cache="deepseek_v32_fp8", slots=1500,
             sink=True, lens=True, splits=3),
        case("fp8_v32_whole_h128", b=1, sq=1, hq=128, hkv=1, topk=192,
             d=576, dv=512, same=True, cache="deepseek_v32_fp8",
             cache_page=32, slots=700, splits=1),
        # The DeepSeek-V4 decode layer as one op: the sliding-window list
        # (128 entries, its own lengths) and a compressed cache (extra: own
        # page size, top-k lengths) in one softmax with the sink; MTP.
        case("dsv4_layer_csa_mtp", b=2, sq=2, hq=128, hkv=1, topk=128,
             d=512, same=True, cache="deepseek_v4_fp8", cache_page=64,
             slots=600, sink=True, lens=True,
             extra=dict(topk=300, slots=1500, page=256, lens=True), sms=16),
        case("dsv4_layer_hca_static", b=2, sq=1, hq=64, hkv=1, topk=128,
             d=512, same=True, cache="deepseek_v4_fp8", cache_page=64,
             slots=400, sink=True, extra=dict(topk=100, slots=300, page=64)),
        # NVFP4 output (o_scale, issue 14): quantized in the epilogue of
        # whole units (one and two CTAs per unit, several tiles, prefill
        # with more than 128 tokens: two scale-factor row tiles), in the
        # combine kernel of split units, over paged, sparse and fp8 caches.
        case("fp4out_whole_gqa_causal_sink", b=3, sq=2, hq=16, hkv=2,
             skv=450, d=128, causal=True, sink=True, lens=True, splits=1,
             to="fp4"),
        case("fp4out_whole_d512_pair", b=2, sq=1, hq=64, hkv=1, skv=300,
             d=512, same=True, sink=True, lens=True, splits=1, to="fp4"),
        case("fp4out_prefill_two_sf_tiles", b=2, sq=130, hq=2, hkv=1,
             skv=300, d=64, causal=True, splits=1, to="fp4"),
        case("fp4out_balanced_mqa_d128", b=3, sq=1, hq=64, hkv=1, skv=400,
             d=128, sink=True, lens=True, to="fp4"),
        case("fp4out_split_d512_sink", b=2, sq=1, hq=128, hkv=1, skv=900,
             d=512, same=True, sink=True, lens=True, sms=14, to="fp4"),
        case("fp4out_paged64_window", b=2, sq=2, hq=64, hkv=1, skv=520,
             d=128, page=64, causal=True, window=200, lens=True, sms=6,
             to="fp4"),
        case("fp4out_sparse_mtp", b=3, sq=2, hq=64, hkv=1, topk=200, d=128,
             slots=1000, sink=True, lens=True, to="fp4"),
        case("fp4out_fp8_v4_layer", b=2, sq=2, hq=64, hkv=1, topk=128,
             d=512, same=True, cache="deepseek_v4_fp8", cache_page=64,
             slots=600, sink=True, lens=True,
             extra=dict(topk=300, slots=1500, page=256, lens=True), sms=16,
             to="fp4"),
    ]


def hopper_takes(c):
    """Whether the sm_90a kernel takes case c so far (docs/Hopper.md):
    dense, paged or sparse (top-k indices) bf16/f16 caches, a bf16/f16 O,
    head dims up to 256, and
    beyond when V is a prefix of K (MLA; Dv > 256 split across two
    consumer warpgroups): a separate V of D > 256 leaves room for one K/V
    stage only, which sm_90a refuses."""
    fits = c["d"] <= 256 or c.get("same") or c.get("vslice")
    return c.get("to") != "fp4" and fits


def hopper_cases():
    """Shapes that exercise the sm_90a kernel's own choices: one consumer
    warpgroup (the rows fit 64) and two (128 rows), the 64-key tile of
    D > 128, MHA prefill with several row blocks per sequence, the Dv
    split across warpgroups with one and two head blocks."""
    return [
        case("h_gqa8_one_consumer", b=2, sq=1, hq=8, hkv=1, skv=400, d=128,
             sink=True, lens=True),
        case("h_rows80_two_consumers", b=2, sq=5, hq=16, hkv=1, skv=300,
             d=64, causal=True, lens=True),
        # D 64: three consumer warpgroups of a 192-row tile. GQA (96
        # queries x 2 heads a CTA, five row blocks, the last partly
        # filled), causal from a KV offset (Skv > Sq), a sink, kv_lens and
        # a device-made balanced split; then MHA with whole units of up to
        # 6 tiles (more than the ring's 3 stages).
        case("h_d64_rows192_causal", b=2, sq=450, hq=2, hkv=1, skv=520,
             d=64, causal=True, sink=True, lens=True, sms=4),
        case("h_d64_rows192_whole", b=1, sq=400, hq=2, hkv=2, skv=700,
             d=64, causal=True, splits=1),
        case("h_mha_prefill_whole_f16", b=2, sq=200, hq=2, hkv=2, skv=333,
             d=128, t="f16", causal=True, sink=True, splits=1),
        case("h_d192_dv128_vslice", b=1, sq=40, hq=4, hkv=1, skv=290, d=192,
             dv=128, vslice=True, causal=True),
        case("h_paged64_d256_window", b=2, sq=2, hq=32, hkv=2, skv=520,
             d=256, page=64, causal=True, window=200, lens=True, sms=6),
        # Dv > 256: two consumer warpgroups split Dv and share 64 rows (P
        # handed over through shared memory); 128 heads are two head
        # blocks per query.
        case("h_v4_h64_balanced", b=4, sq=1, hq=64, hkv=1, skv=700, d=512,
             same=True, sink=True, lens=True, sms=12),
        case("h_mla576_h128_mtp_whole", b=2, sq=2, hq=128, hkv=1, skv=520,
             d=576, dv=512, vslice=True, page=64, causal=True, lens=True,
             splits=1),
        case("h_dv384_uniform_window", b=2, sq=1, hq=8, hkv=1, skv=400,
             d=128, dv=384, window=250, splits=2),
        # MHA prefill with the Dv split: the rows are queries, the last row
        # block's rows past Sq are padding, so warpgroup 1 uses the final m
        # only under a condition. LLVM sank that shared-memory load past
        # the bar.arrive that returns the hand-over buffer until the named
        # barriers' inline PTX clobbered memory (the sanitizer's race;
        # docs/Hopper.md, "Inline PTX and LLVM's code motion").
        case("h_mha512_prefill_handover", b=1, sq=100, hq=2, hkv=2, skv=200,
             d=512, same=True, causal=True, sink=True, lens=True),
        # Sparse with two consumer warpgroups and 128-key tiles (two keys
        # a gathering lane), the ring cycled on 4 SMs.
        case("h_sparse_h128_d128", b=2, sq=1, hq=128, hkv=1, topk=700,
             d=128, slots=3000, sink=True, lens=True, sms=4),
        # The cluster merge (docs/Hopper.md, "The cluster merge"): equal
        # units split into N pieces, one a CTA of an N-CTA cluster, merged
        # through distributed shared memory (no combine kernel). N = 4
        # pieces of 2 tiles (1000 keys: the last partly filled); an MTP
        # decode whose window leaves some rows no key in some pieces; the
        # Dv split (two
        # warpgroups' columns, four 128-column chunks a row); three
        # consumer warpgroups (192 rows, 64-column chunks); the last two
        # with whole tiles only (Skv a multiple of the tile: no V zeroed in
        # the prologue, AttentionSchedule::zeroV). Each on twice as many
        # SMs as its clusters fill (the plan's rule).
        case("h_cluster_merge_gqa_sink", b=1, sq=1, hq=8, hkv=2, skv=1000,
             d=128, sink=True, sms=16),
        case("h_cluster_merge_mtp_window", b=2, sq=2, hq=16, hkv=2,
             skv=1200, d=128, causal=True, window=700, sink=True, sms=32),
        case("h_cluster_merge_mla_dv_split", b=1, sq=1, hq=16, hkv=1,
             skv=640, d=576, dv=512, vslice=True, sink=True, sms=8),
        case("h_cluster_merge_d64_rows192", b=1, sq=3, hq=64, hkv=1,
             skv=768, d=64, sms=8),
        # Dv 192: 64-column chunks (three a row).
        case("h_cluster_merge_dv192", b=1, sq=1, hq=8, hkv=2, skv=600,
             d=192, sink=True, sms=16),
        # One sequence with kv_lens (its length below Skv: pieces of one
        # tile and empty ones), pages of 64 keys.
        case("h_cluster_merge_lens_paged", b=1, sq=1, hq=16, hkv=2,
             skv=1500, d=128, page=64, lens=True, sink=True, sms=32),
        # Two sequences on 16 SMs: 4 pieces a unit would fill all of
        # them, so the plan cuts 2 (at most half of the SMs).
        case("h_cluster_merge_b2_halved", b=2, sq=1, hq=16, hkv=2,
             skv=1024, d=128, sink=True, sms=16),
    ]


def full_cases():
    """The larger sweep: head dims x heads per KV head x options x
    decode/prefill."""
    out = []
    for d, (hq, hkv), (causal, window, sink), sq in itertools.product(
            (64, 128, 256, 512), ((8, 8), (16, 2), (64, 1), (128, 1)),
            ((False, None, False), (True, None, True), (True, 130, False),
             (False, 200, True)),
            (1, 2, 200)):
        if sq == 200 and hq // hkv > 16:
            continue  # prefill with 64+ heads per KV head: many CTAs, slow
        name = "d%d_h%dx%d_sq%d_%s%s%s" % (
            d, hq, hkv, sq, "c" if causal else "", "w%d" % window if window
            else "", "s" if sink else "")
        out.append(case(name, b=2, sq=sq, hq=hq, hkv=hkv, skv=390, d=d,
                        causal=causal, window=window, sink=sink, lens=True,
                        same=(d >= 256)))
    # Long prefill: query lengths in the thousands (16 and 32 row blocks).
    out.append(case("prefill_2k_gqa_causal", b=1, sq=2048, hq=2, hkv=1,
                    skv=2048, d=128, causal=True))
    out.append(case("prefill_4k_window_sink", b=1, sq=4096, hq=1, hkv=1,
                    skv=4096, d=64, causal=True, window=1024, sink=True))
    # D 64 in 192-row CTAs (sm_90a's three consumer warpgroups) beside the
    # CI matrix's two: paged with pages smaller than a tile, a window and a
    # sink, an MTP decode of 3 x 64 heads, f16 non-causal, GQA 4.
    out += [
        case("rows192_paged16_prefill", b=2, sq=300, hq=2, hkv=2, skv=300,
             d=64, page=16, causal=True, lens=True),
        case("rows192_paged64_window_sink", b=1, sq=400, hq=1, hkv=1,
             skv=520, d=64, page=64, causal=True, window=150, sink=True),
        case("rows192_mtp3_h64", b=2, sq=3, hq=64, hkv=1, skv=400, d=64,
             causal=True, lens=True),
        case("rows192_f16_noncausal", b=1, sq=250, hq=3, hkv=1, skv=333,
             d=64, t="f16", sink=True),
        case("rows192_gqa4_whole", b=1, sq=200, hq=8, hkv=2, skv=260, d=64,
             causal=True, splits=1),
    ]
    return out


PTXAS_RE = re.compile(r"Used (\d+) registers")
SPILL_RE = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, "
                      r"(\d+) bytes spill loads")


def run_case(c, args, tmp):
    path = os.path.join(tmp, c["name"] + ".mlir")
    with open(path, "w") as f:
        f.write(op_text(c))
    info = {}
    cmd = [args.nvfp4_run, "--backend=emulator", "--chip=" + args.chip, path]
    sms = args.num_sms or c.get("sms")
    if sms:
        cmd.append("--num-sms=%d" % sms)
    if args.poly_exp2 is not None:
        cmd.append("--poly-exp2=%d" % args.poly_exp2)
    if args.cluster_merge is not None:
        cmd.append("--cluster-merge=%d" % args.cluster_merge)
    if args.p_shared is not None:
        cmd.append("--p-shared=%d" % args.p_shared)
    if args.schedules:
        # Explored schedules (nvfp4-run --schedules): every one must pass.
        cmd.append("--schedules=%d" % args.schedules)
    if args.mma_numerics:
        cmd.append("--mma-numerics=" + args.mma_numerics)
    ptx = os.path.join(tmp, c["name"] + ".ptx")
    if args.ptxas:
        # The PTX nvfp4-run compiled and ran (its options included), for
        # ptxas below: no second compile through nvfp4-opt.
        cmd.append("--emit-ptx=" + ptx)
    r = subprocess.run(cmd, capture_output=True, text=True)
    lines = (r.stdout + r.stderr).strip().splitlines()
    verdict = lines[-1] if lines else "(no output)"
    ok = r.returncode == 0 and verdict.startswith("PASS")
    for line in lines:
        m = re.search(r"(\d+) warp instructions", line)
        if m:
            info["warp_instructions"] = int(m.group(1))
    if args.ptxas:
        r3 = subprocess.run([args.ptxas, "-v", "-arch=" + args.chip, ptx, "-o",
                             os.devnull], capture_output=True, text=True) \
            if os.path.exists(ptx) else r
        text = r3.stdout + r3.stderr
        # Every kernel of the module (the attention kernel and, with
        # split-KV, its combine kernel): the most registers, all spills.
        regs = PTXAS_RE.findall(text)
        spills = SPILL_RE.findall(text)
        if r3.returncode != 0 or not regs or not spills:
            ok = False
            verdict += " | ptxas failed: " + text.strip()[-300:]
        else:
            info["regs"] = max(int(x) for x in regs)
            stack, st, ld = (sum(int(x[i]) for x in spills)
                             for i in range(3))
            info["spills"] = st + ld
            info["stack"] = stack
            # A paged kernel's bad-block-table guard calls vprintf (device
            # printf), whose argument buffer and call need a stack frame;
            # any other stack is a defect, and spills always are.
            with open(ptx) as f:
                printf = "vprintf" in f.read()
            if st or ld or (stack and not printf):
                ok = False
            # ptxas serializes wgmma it cannot prove warpgroup-uniform
            # (C7520 and the like): a performance defect of the sm_90a
            # kernel.
            if "wgmma.mma_async instructions are serialized" in text:
                ok = False
                verdict += " | ptxas serializes wgmma"
            verdict += " | ptxas %d kernels, %d regs, %d bytes spilled, %d " \
                "stack" % (len(regs), info["regs"], st + ld, stack)
    if args.table and args.nvfp4_opt:
        sched = subprocess.run([args.nvfp4_opt, path,
                                "--nvfp4-lower-attention=chip=" + args.chip],
                               capture_output=True, text=True).stdout
        m = re.search(r"nvfp4.schedule = \{([^}]*)\}", sched)
        if m:
            for kv in m.group(1).split(","):
                k, v = kv.split("=")
                v = v.strip()
                info[k.strip()] = (int(v.split(":")[0]) if v[0].isdigit()
                                   else v.strip('"'))
    return ok, verdict, info


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--set", choices=("ci", "full"), default="ci")
    ap.add_argument("--chip", choices=("sm_100a", "sm_90a"), default="sm_100a",
                    help="the kernels' target (nvfp4-run --chip); sm_90a "
                    "runs the cases the Hopper kernel takes (docs/Hopper.md) "
                    "and Hopper-specific ones")
    ap.add_argument("--nvfp4-run", required=True)
    ap.add_argument("--nvfp4-opt")
    ap.add_argument("--ptxas")
    ap.add_argument("--only", default="")
    ap.add_argument("--schedules", type=int, default=0,
                    help="run each case under N explored schedules "
                    "(nvfp4-run --schedules=N) instead of the deterministic "
                    "one")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--mma-numerics", choices=("auto", "exact", "hardware"),
                    help="how the emulator's MMAs round (nvfp4-run "
                    "--mma-numerics; docs/Emulator.md, \"MMA accumulation\")")
    ap.add_argument("--table")
    ap.add_argument("--num-splits", type=int,
                    help="force num_splits(N) on every case")
    ap.add_argument("--num-sms", type=int,
                    help="nvfp4-run --num-sms: the SM count the balanced "
                    "split-KV plan is for")
    ap.add_argument("--poly-exp2", type=int,
                    help="nvfp4-run --poly-exp2 (sm_90a): of every 8 of P's "
                    "exponentials, how many on the FMA pipe")
    ap.add_argument("--cluster-merge", type=int,
                    help="nvfp4-run --cluster-merge (sm_90a): the most pieces "
                    "of a unit a cluster merges (0: the combine kernel)")
    ap.add_argument("--p-shared", type=int, choices=(0, 1),
                    help="nvfp4-run --p-shared (sm_90a): P V's P from "
                    "registers (0) or shared memory (1)")
    ap.add_argument("--print", metavar="NAME",
                    help="print the MLIR of one case and exit")
    args = ap.parse_args()
    cases = ci_cases() if args.set == "ci" else full_cases()
    if args.chip == "sm_90a":
        cases = [c for c in cases if hopper_takes(c)]
        if args.set == "ci":
            cases += hopper_cases()
    if args.num_splits:
        for c in cases:
            c["splits"] = args.num_splits
    if args.print:
        for c in cases:
            if c["name"] == args.print:
                sys.stdout.write(op_text(c))
                return 0
        print("no case named " + args.print, file=sys.stderr)
        return 2
    cases = [c for c in cases if args.only in c["name"]]
    passed = 0
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            results = list(pool.map(lambda c: run_case(c, args, tmp), cases))
    for c, (ok, verdict, info) in zip(cases, results):
        passed += ok
        print("%s %s %s" % ("ok" if ok else "FAIL", c["name"], verdict))
        rows.append((c, info))
    print("attention matrix: %d of %d passed" % (passed, len(cases)))
    if args.table:
        with open(args.table, "w") as f:
            f.write("| case | B | Sq | Hq/Hkv | D/Dv | options | grid | "
                    "KV tile | stages | smem bytes | TMEM cols (S buffers x "
                    "columns at S / O at; P over S) | regs "
                    "(cap; softmax/other) | spills | MMAs per KV tile |\n")
            f.write("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
            for c, i in rows:
                opts = ",".join(x for x in (
                    "sink" if c.get("sink") else "",
                    "lens" if c.get("lens") else "",
                    "causal" if c.get("causal") else "",
                    "window=%d" % c["window"] if c.get("window") else "",
                    "K=V" if c.get("same") else "", c.get("t", "")) if x)
                f.write("| %s | %d | %d | %d/%d | %d/%d | %s | %dx%dx%d | "
                        "%s | %s | %s | %s (%sx%s at %s / %s) | %s (%s; %s/%s) "
                        "| %s | %s |\n"
                        % (c["name"], c["b"], c["sq"], c["hq"], c["hkv"],
                           c["d"], c["dv"], opts or "-",
                           i.get("row_blocks", 0) * i.get("dv_split", 1),
                           c["hkv"], c["b"],
                           i.get("kv_tile", "?"),
                           i.get("stages", "?"), i.get("smem_bytes", "?"),
                           i.get("tmem_columns", "?"), i.get("s_buffers", "?"),
                           i.get("kv_tile", "?"), i.get("tmem_s", "?"),
                           i.get("tmem_o", "?"),
                           i.get("regs", "?"), i.get("max_regs", "?"),
                           i.get("softmax_regs", "?"), i.get("other_regs", "?"),
                           i.get("spills", "?"),
                           i.get("mmas_per_tile", "?")))
    return 0 if passed == len(cases) else 1


if __name__ == "__main__":
    sys.exit(main())
