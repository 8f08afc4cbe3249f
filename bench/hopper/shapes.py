"""The shapes bench/hopper/ours.py times (and gen_ours.sh compiles): the
decode and prefill shapes of peers.py (GQA decode, causal prefill); the
MLA decode shapes bench/hopper/mla.py times beside FlashMLA (and
gen_mla.sh compiles); and DeepSeek-V4's sparse fp8 decode, which
bench/hopper/v4.py times beside FlashMLA's (gen_ours.sh --v4)."""

import random

SHAPES = []
# GQA decode, Llama-3-70B class: 64 query heads on 8 KV heads, D 128, one
# query token per sequence, equal lengths.
for b in (1, 2, 4, 16, 64, 128):
    for skv in (1024, 8192, 65536):
        SHAPES.append({"name": "gqa_b%d_kv%d" % (b, skv), "kind": "decode",
                       "b": b, "sq": 1, "hq": 64, "hkv": 8, "skv": skv,
                       "d": 128})
# Causal prefill, Sq = Skv, MHA.
for d, h in ((64, 32), (128, 16), (256, 8)):
    for b, s in ((4, 4096), (1, 16384)):
        SHAPES.append({"name": "prefill_d%d_b%d_s%d" % (d, b, s),
                       "kind": "prefill", "b": b, "sq": s, "hq": h,
                       "hkv": h, "skv": s, "d": d, "causal": True})

# MLA decode (DeepSeek-V3's absorbed attention, FlashMLA's shapes): one KV
# head of D 576 whose first 512 columns are V, 64 or 128 query heads, one
# query token per sequence, paged in 64-key pages through a block table,
# kv_lens (all equal to KV, then mixed). bench/hopper/mla.py times these beside
# FlashMLA on the same tensors.
MLA_PAGE = 64
MLA_SHAPES = []
for hq in (128, 64):
    for b in (1, 16, 64, 128):
        for skv in (1024, 8192, 65536):
            MLA_SHAPES.append({"name": "mla_h%d_b%d_kv%d" % (hq, b, skv),
                               "b": b, "hq": hq, "skv": skv, "d": 576,
                               "dv": 512})
# Mixed lengths, as a serving batch has them (the kernels plan on the
# device from kv_lens; FlashMLA's scheduler gets the same lengths): B
# sequences of 1K-32K keys drawn uniformly with a fixed seed, and a long
# tail, one sequence of 64K among 63 of 1K. "skv" is the longest (the
# block table's width), "lens" every sequence's.
for hq in (128, 64):
    for b in (16, 64, 128):
        rng = random.Random(1000 + b)
        lens = [rng.randint(1024, 32768) for _ in range(b)]
        MLA_SHAPES.append({"name": "mla_h%d_b%d_mix1k_32k" % (hq, b),
                           "b": b, "hq": hq, "skv": max(lens), "lens": lens,
                           "kv_label": "1K-32K, mean %.1fK" % (
                               sum(lens) / b / 1024),
                           "d": 576, "dv": 512})
    MLA_SHAPES.append({"name": "mla_h%d_b64_tail64k" % hq, "b": 64,
                       "hq": hq, "skv": 65536, "lens": [65536] + [1024] * 63,
                       "kv_label": "one 64K, 63 x 1K", "d": 576,
                       "dv": 512})


# DeepSeek-V4's sparse decode (FlashMLA's MODEL1 fp8 cache: 448 e4m3 + 64
# bf16 values and 7 UE8M0 scales a token, 64-token pages; D = Dv = 512, V
# inside K, a per-head sink): 64 or 128 query heads, one query token per
# sequence, top-k keys per query gathered by index from that sequence's
# own context. The contexts hold at least 2^20 tokens in all (600 MB of
# cache, ten times the L2), so that gathered rows come from HBM.
# bench/hopper/v4.py times these beside FlashMLA's sparse decode.
V4_PAGE = 64
V4_SHAPES = []
for hq in (128, 64):
    for b, topk in ((1, 1024), (16, 1024), (64, 1024), (128, 1024),
                    (64, 2048)):
        V4_SHAPES.append({"name": "v4_h%d_b%d_k%d" % (hq, b, topk), "b": b,
                          "hq": hq, "topk": topk,
                          "ctx": max(32768, (1 << 20) // b), "d": 512})
# The same with kv_lens (every sequence's top-k length, here the whole
# top-k, so that FlashMLA's call and the output are unchanged): the plan is
# made on the device, as an engine passing DeepSeek-V4's topk_length gets.
for hq in (128, 64):
    for b, topk in ((64, 1024), (128, 1024)):
        V4_SHAPES.append({"name": "v4_h%d_b%d_k%d_lens" % (hq, b, topk),
                          "b": b, "hq": hq, "topk": topk,
                          "ctx": max(32768, (1 << 20) // b), "d": 512,
                          "lens": True})


def selected(shapes):
    """The shapes whose names hold $ONLY (all without it): the benchmark
    scripts' filter, as gen_ours.sh's ONLY."""
    import os
    only = os.environ.get("ONLY", "")
    return [s for s in shapes if only in s["name"]]


def lens_of(s):
    """The KV length of each sequence of shape `s`: its "lens" when the
    lengths are mixed, else B x KV."""
    return s.get("lens") or [s["skv"]] * s["b"]


def sm_fill(s, lens=None, sms=132, min_piece_keys=256, cluster_merge=8):
    """SM fill of the sm_90a kernel's balanced plan on decode shape `s` (an
    MLA shape of MLA_SHAPES, V = K's first `dv` columns, or a GQA one of
    SHAPES, V of its own): the KV tiles the busiest of `sms` CTAs
    multiplies against the mean. Units are (sequence, KV head, block of
    64 query heads under the Dv split, else 128) in 64-key blocks or whole
    KV tiles (128 keys up to D and Dv 128, else 64;
    plan::preferFineGranule picks), a piece's work
    the tiles it touches, the overhead AttentionSchedule's for the
    granule, no CTA's share below `min_piece_keys` keys (plan::minPieceSlots,
    the kernels' default 256: bench/hopper/gen_ours.sh's MIN_PIECE_KEYS
    builds others), or of the cluster merge where the plan takes it (at
    most `cluster_merge` pieces a unit; 0 never); `lens` the sequences'
    lengths (default all KV). The formulas
    the kernel computes (plan::balancedPlan; its Python copy in
    bench/split_kv.py)."""
    import os
    import sys
    sys.path.insert(0, os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    from split_kv import balanced_plan, min_piece_slots, prefer_fine
    d = s["d"]
    dv = s.get("dv", d)
    mla = "dv" in s                         # V is a slice of K
    group = s["hq"] // s.get("hkv", 1)
    # A CTA's rows: 64 under the Dv split (Dv > 256), else 128.
    cap = 64 if dv > 256 else 128
    rows, head_blocks = min(group, cap), -(-group // cap)
    tile = 128 if d <= 128 and dv <= 128 else 64
    lens = lens or [s["skv"]] * s["b"]
    hkv = s.get("hkv", 1)

    # Several head blocks: head block 0's units over its share of the CTAs,
    # every head block's CTAs taking the same pieces (plan::mirroredPlan).
    copies = head_blocks if sms % head_blocks == 0 else 1
    parts = sms // copies

    def units(keys):
        return [-(-n // keys) for _ in range(head_blocks // copies)
                for n in lens for _ in range(hkv)]

    # The cluster merge instead (clusterMergePieces in
    # AttentionSchedule.cpp; docs/Hopper.md "The cluster merge"): equal
    # units cut into N pieces of whole tiles, N x units CTAs on at most
    # half of the SMs, pieces of at most 512 KiB, a CTA's merge (rows x Dv
    # in f32) at most 48 KiB.
    n_units = len(lens) * hkv * head_blocks
    tiles = -(-lens[0] // tile)
    key_bytes = (d if mla else d + dv) * 2
    n = min(cluster_merge, sms // (2 * n_units), tiles)
    if (len(set(lens)) == 1 and head_blocks == 1 and n >= 2 and
            -(-tiles // n) * tile * key_bytes <= 512 * 1024 and
            rows * dv * 4 <= 48 * 1024):
        return n_units * tiles / (sms * -(-tiles // n))

    def overhead(keys):
        kb = keys * (d if mla else d + dv) * 2
        return max(1, (rows * d * 2 + rows * dv * 4 + kb // 2) // kb)
    # The granule: 64-key blocks where they balance better than whole
    # tiles (plan::preferFineGranule), else tiles.
    block = 64
    if tile > block and not prefer_fine(sum(units(tile)), sum(units(block)),
                                        parts):
        block = tile
    plan = balanced_plan(units(block), overhead(block), parts,
                         min_piece_slots(block, min_piece_keys))
    work = [sum(-(-t1 * block // tile) - t0 * block // tile
                for _, t0, t1 in pieces if t1 > t0) for pieces in plan] * copies
    busiest = max(work)
    return sum(work) / (sms * busiest) if busiest else 0.0
