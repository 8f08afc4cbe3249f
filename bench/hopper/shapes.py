"""The shapes bench/hopper/ours.py times (and gen_ours.sh compiles): the
decode and prefill shapes of peers.py that the sm_90a kernel takes so far
(docs/Hopper.md: D <= 256; the MLA shapes wait for the Dv split)."""

SHAPES = []
# GQA decode, Llama-3-70B class: 64 query heads on 8 KV heads, D 128, one
# query token per sequence, equal lengths.
for b in (1, 16, 64, 128):
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
