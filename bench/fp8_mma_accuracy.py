#!/usr/bin/env python3
"""Why fp8 caches are dequantized to bf16 before a bf16 MMA (docs/Attention.md,
"Quantized caches"): the attention output's cosine against float64 on the
dequantized cache, for the two ways to use tcgen05 with an e4m3 cache:

  dequant  K, V dequantized to bf16 (exact: e4m3 x a power of two), Q bf16,
           P rounded to bf16 for P V (what the lowering does);
  f8f6f4   kind::mxf8f6f4 with the cache's scales folded in: both operands of
           an f8f6f4 MMA are 8-bit, so Q must be e4m3 (with a UE8M0 scale per
           32 values, the MX recipe) and P must be e4m3 for P V.

Pure Python (no numpy), seeded; prints one line per method:
  python3 bench/fp8_mma_accuracy.py [--trials N] [--keys N] [--heads N]
"""

import argparse
import math
import random


def e4m3_values():
    out = []
    for b in range(256):
        e, m = (b >> 3) & 15, b & 7
        if e == 15 and m == 7:
            continue
        v = m / 8 * 2 ** -6 if e == 0 else (1 + m / 8) * 2 ** (e - 7)
        out.append(-v if b & 128 else v)
    return sorted(set(out))


E4M3 = e4m3_values()
E4M3_POS = [v for v in E4M3 if v >= 0]


def round_e4m3(x):
    """Round to nearest e4m3 (saturating at 448), ties to the larger."""
    a = min(abs(x), 448.0)
    lo, hi = 0, len(E4M3_POS) - 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if E4M3_POS[mid] <= a:
            lo = mid
        else:
            hi = mid
    r = E4M3_POS[lo] if a - E4M3_POS[lo] < E4M3_POS[hi] - a else E4M3_POS[hi]
    return math.copysign(r, x)


def round_bf16(x):
    if x == 0:
        return 0.0
    e = math.floor(math.log2(abs(x)))
    q = 2 ** (e - 7)
    return round(x / q) * q


def mx_e4m3(vec, block=32):
    """MX: per block a power-of-two scale (amax -> at most 448), values e4m3."""
    out = []
    for i in range(0, len(vec), block):
        blk = vec[i:i + block]
        amax = max(abs(v) for v in blk) or 1.0
        s = 2.0 ** math.ceil(math.log2(amax / 448))
        out += [round_e4m3(v / s) * s for v in blk]
    return out


def attention(q, keys, scale, p_round):
    s = [scale * sum(a * b for a, b in zip(q, k)) for k in keys]
    m = max(s)
    w = [math.exp(x - m) for x in s]
    z = sum(w)
    pw = [p_round(x) for x in w]
    d = len(keys[0])
    return [sum(pw[j] * keys[j][c] for j in range(len(keys))) / z
            for c in range(d)]


def cosine(a, b):
    dot = sum(x * y for x, y in zip(a, b))
    return dot / math.sqrt(sum(x * x for x in a) * sum(y * y for y in b))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", type=int, default=3)
    ap.add_argument("--keys", type=int, default=128)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--dim", type=int, default=512)
    args = ap.parse_args()
    rng = random.Random(1)
    d = args.dim
    worst = {"dequant": 1.0, "f8f6f4": 1.0}
    for _ in range(args.trials):
        # The cache: e4m3 values times a power-of-two scale per 64 (V4).
        keys = []
        for _ in range(args.keys):
            row = []
            for g in range(d // 64):
                s = 2.0 ** rng.randint(-6, 1)
                row += [rng.choice(E4M3) * s for _ in range(64)]
            keys.append(row)
        rms = math.sqrt(sum(x * x for k in keys for x in k) / (len(keys) * d))
        scale = 1 / (math.sqrt(d) * rms)
        for _ in range(args.heads):
            q = [round_bf16(rng.gauss(0, 1)) for _ in range(d)]
            exact = attention(q, keys, scale, lambda x: x)
            deq = attention(q, keys, scale, round_bf16)
            f8 = attention(mx_e4m3(q), keys, scale,
                           lambda x: round_e4m3(x * 448) / 448)
            worst["dequant"] = min(worst["dequant"], cosine(exact, deq))
            worst["f8f6f4"] = min(worst["f8f6f4"], cosine(exact, f8))
    for k, v in worst.items():
        print("%-8s worst cosine %.7f over %d rows (threshold 0.9999)" %
              (k, v, args.trials * args.heads))


if __name__ == "__main__":
    main()
