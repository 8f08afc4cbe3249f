#!/usr/bin/env python3
"""SM fill and bytes of split-KV attention (issue 11), per shape.

For DeepSeek-V4-Pro decode (128 query heads, one KV head, D = Dv = 512,
K = V, a sink) at batch B and KV lengths L (uniform: every sequence L keys,
no kv_lens, the plan computed at compile time; "mixed": kv_lens filled by
nvfp4-run's fillLengths up to L, the plan computed on the device):

  SM fill = total KV work / (SMs x the work of the busiest CTA)

with work counted in 16-key chunks of K/V processed, from the emulator's
per-CTA counters (nvfp4-run --cta-stats: tcgen05.mma with A in tensor
memory, the P V MMAs, one per chunk and CTA of a pair); the plan splits at
128-key tiles or 64-key blocks, so "best possible" is the bound whole
tiles or blocks allow, the better of the two; and

  bytes = (TMA bytes of the attention kernel + bytes the combine kernel
           loads) / minimum (Q once + each visible K byte once)

from the emulator's launch reports. Shapes too large to emulate (more than
--emulate-keys keys in all, or a cache that would not fit in memory) get
the same figures from a model: the balanced plan in Python
(include/nvfp4/Support/SplitKvPlan.h, the formulas the kernel computes)
and the bytes the plan implies. For every emulated shape the model is
checked against the counters (per CTA tiles, and bytes): "model = counters".

The last two columns are lower bounds, not measurements: the least
bytes / minimum that ANY key-split plan reaching SM fill >= 0.90 must read
on that shape (bytes_floor below; the argument is in
docs/AttentionLowering.md, "Why fill >= 0.90 and bytes <= 1.02 cannot both
hold"), for clusters of 2 CTAs (this kernel's D = 512 pair) and of 16 (the
largest cluster SM100 launches).

  bench/split_kv.py [--build DIR] [--sms N] [--emulate-keys K] [--only B,L]
                    [--model-only]
"""
import argparse
import math
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

HQ, D, DV, KV_TILE = 128, 512, 512, 128
BLOCK = 64                               # AttentionSchedule::planKeys
CHUNK = 16                               # keys per chunk (one P V MMA)
ELEM = 2
Q_BYTES = HQ * D * ELEM                  # per sequence (Sq = 1)
ROW_BYTES = D * ELEM                     # one key of K = V
# AttentionSchedule::overheadBlocks / overheadTiles: (Q + partial O bytes)
# in blocks or tiles of K/V bytes.
def overhead(keys):
    return max(1, (HQ * D * ELEM + HQ * DV * 4 + keys * D * ELEM // 2)
               // (keys * D * ELEM))


def prefer_fine(coarse, fine, parts):
    """plan::preferFineGranule."""
    cf = max(1, -(-fine // parts))
    cc = max(1, -(-coarse // parts))
    return 16 * fine * cc >= 16 * coarse * cf + parts * cf * cc


def split_mix(state):
    """SplitMix64 as nvfp4::rt (Harness.cpp): yields successive outputs."""
    mask = (1 << 64) - 1
    while True:
        state = (state + 0x9E3779B97F4A7C15) & mask
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        yield z ^ (z >> 31)


def fill_lengths(n, bound, seed):
    """rt::fillLengths."""
    rng = split_mix(seed)
    out = [1 + next(rng) % bound for _ in range(n)]
    if n >= 2:
        out[0], out[n - 1] = bound, 1
    if n >= 3 and bound >= 4:
        lo, hi = bound // 2 + 1, bound - 1
        v = lo + next(rng) % (hi - lo + 1)
        out[1] = v - 1 if v % 2 == 0 else v
    return out


MIN_PIECE_KEYS = 256                     # plan::kDefaultMinPieceKeys


def min_piece_slots(granule, min_piece_keys=MIN_PIECE_KEYS):
    """plan::minPieceSlots."""
    return max(1, -(-min_piece_keys // granule))


WHOLE_UNITS_SLACK = 4                    # plan::kWholeUnitsSlack


def whole_units_share(share, units, unit_slots, parts):
    """plan::wholeUnitsShare for units of equal slots."""
    whole = -(-units // parts) * unit_slots
    slack = min(WHOLE_UNITS_SLACK, share // 8)
    return whole if share <= whole <= share + slack else share


def balanced_plan(tiles, overhead, parts, min_slots=1):
    """plan::balancedPlan: per partition the (unit, t0, t1) pieces."""
    overhead = min(overhead, -(-sum(tiles) // parts) // 8)
    x, total = [], 0
    for t in tiles:
        x.append(total)
        total += max(1, overhead + t)
    S = max(1, min_slots, -(-total // parts))
    if tiles and all(t == tiles[0] for t in tiles):
        S = whole_units_share(S, len(tiles), max(1, overhead + tiles[0]),
                              parts)
    plan = []
    for p in range(parts):
        a, e = p * S, min((p + 1) * S, total)
        pieces = []
        for u, t in enumerate(tiles):
            first = x[u] + overhead
            if t > 0:
                if max(a, first) < min(e, first + t):
                    pieces.append((u, max(0, a - first), min(t, e - first)))
            elif a <= x[u] < e:
                pieces.append((u, 0, 0))
        plan.append(pieces)
    return plan


def model(lens, sms):
    """Per CTA the 16-key chunks it processes (P V MMAs), the TMA bytes of
    the attention kernel and the bytes the combine kernel loads."""
    parts = max(1, sms // 2)             # CTA pairs (Dv = 512)
    tiles = [-(-L // KV_TILE) for L in lens]
    blocks = [-(-L // BLOCK) for L in lens]
    granule = BLOCK if prefer_fine(sum(tiles), sum(blocks), parts) \
        else KV_TILE
    plan = balanced_plan(blocks if granule == BLOCK else tiles,
                         overhead(granule), parts, min_piece_slots(granule))

    def chunks(u, b0, b1):
        lo, hi = b0 * granule, min(lens[u], b1 * granule)
        return -(-hi // CHUNK) - lo // CHUNK if hi > lo else 0
    per_cta = []
    for pieces in plan:
        n = sum(chunks(u, b0, b1) for u, b0, b1 in pieces)
        per_cta += [n, n]                # both CTAs of the pair
    # Bytes: each piece with keys loads Q (both halves), and its chunks; a
    # split unit's pieces are read back by the combine (O in f32, the LSE,
    # the unit's record).
    npieces = [0] * len(lens)
    for pieces in plan:
        for u, t0, t1 in pieces:
            npieces[u] += 1
    tma = sum(Q_BYTES for pieces in plan for _, t0, t1 in pieces if t1 > t0)
    tma += sum(CHUNK * c for c in per_cta[::2]) * ROW_BYTES
    # The combine kernel (AttentionCombine.cpp): CTAs of 128 columns and,
    # with F = units x rows x slices / (8 sms), one row (F < 2: all four
    # warps on it) or 4W rows (a warp a row, W the largest power of two
    # <= clamp(F / 4, 1, 4)); every CTA reads its unit's record (three
    # words, once per warp of four); per (row, slice) of a split unit each
    # warp on the row reads the sink, and per piece the row's LSE is read
    # three times (max, sum, weight: the lanes of one group read one word)
    # and its 128 columns of O once.
    slices = DV // 128
    fill = len(lens) * HQ * slices // (8 * sms)
    warps_on_row = 4
    rows_per_cta = 1
    if fill >= 2:
        warps_on_row = 1
        w = min(4, max(1, fill // 4))
        rows_per_cta = 4 * (1 << (w.bit_length() - 1))
    ctas = -(-HQ // rows_per_cta) * slices
    combine = len(lens) * ctas * 4 * 3 * 4
    combine += sum(HQ * slices * (warps_on_row * 4 + n * (3 * 4 + 128 * 4))
                   for n in npieces if n > 1)
    return per_cta, tma, combine


def bytes_floor(lens, cluster, target, sms):
    """Least (bytes read) / minimum of any plan with SM fill >= target that
    splits sequences by keys over clusters of `cluster` SMs, each cluster
    reading its sequence's whole Q once and writing O in f32 (read back by
    the combine) for every piece of a split sequence. Work is counted in
    16-key chunks per SM, as the fill is. Two forced costs, the larger
    counts:
    - count: fill >= target needs ceil(target x sms) busy SMs, so at least
      R = ceil(busy / cluster) (cluster, sequence) pieces; with B sequences,
      R - B extra Q reads and R - B + 1 partials read back when R > B;
    - balance: no cluster may hold more than cap = cluster x W /
      (target x sms) chunks (W = all chunks), so a sequence of c chunks
      has at least ceil(c / cap) pieces; with equal lengths and c <= cap at
      most (clusters x floor(cap / c)) sequences stay whole, the others
      have two pieces or more."""
    B, chunks = len(lens), [-(-L // CHUNK) for L in lens]
    W, clusters = sum(chunks), sms // cluster
    minimum = sum(lens) * ROW_BYTES + B * Q_BYTES
    R = -(-math.ceil(target * sms) // cluster)
    if R > clusters or W == 0:
        return math.inf
    cap = cluster * W / (target * sms)
    pieces = [max(1, math.ceil(c / cap)) for c in chunks]
    if len(set(chunks)) == 1 and pieces[0] == 1:
        split = max(0, B - clusters * math.floor(cap / chunks[0]))
        pieces = [2] * split + [1] * (B - split)
    partial = HQ * DV * 4
    balance = sum((n - 1) * Q_BYTES + n * partial for n in pieces if n > 1)
    count = (R - B) * Q_BYTES + (R - B + 1) * partial if R > B else 0
    return (minimum + max(balance, count)) / minimum


def fill(per_cta, sms):
    busiest = max(per_cta) if per_cta else 0
    return sum(per_cta) / (sms * busiest) if busiest else 0.0


def op_text(B, L, mixed):
    q = "tensor<%dx1x%dx%dxbf16>" % (B, HQ, D)
    kv = "tensor<%dx%dx1x%dxbf16>" % (B, L, D)
    o = "tensor<%dx1x%dx%dxbf16>" % (B, HQ, DV)
    lse = "tensor<%dx%dx1xf32>" % (B, HQ)
    lens = ", %%l: tensor<%dxi32>" % B if mixed else ""
    lt = ", tensor<%dxi32>" % B if mixed else ""
    return ("func.func @dsv4(%%q: %s, %%kv: %s, %%s: tensor<%dxf32>%s)"
            " -> (%s, %s) {\n"
            "  %%o, %%lse = nvfp4.attention %%q, %%kv, %%kv sink(%%s)%s "
            "softmax_scale(0.0441941738)\n"
            "      : (%s, %s, %s, tensor<%dxf32>%s) -> (%s, %s)\n"
            "  return %%o, %%lse : %s, %s\n}\n"
            % (q, kv, HQ, lens, o, lse, " kv_lens(%l)" if mixed else "",
               q, kv, kv, HQ, lt, o, lse, o, lse))


def emulate(run, B, L, mixed, sms, tmp):
    path = os.path.join(tmp, "dsv4_%d_%d.mlir" % (B, L))
    csv = path + ".csv"
    with open(path, "w") as f:
        f.write(op_text(B, L, mixed))
    t0 = time.time()
    r = subprocess.run([run, "--backend=emulator", path, "--num-sms=%d" % sms,
                        "--cta-stats=" + csv], capture_output=True, text=True)
    secs = time.time() - t0
    out = r.stdout + r.stderr
    if r.returncode != 0:
        sys.exit("nvfp4-run failed on B=%d L=%d:\n%s" % (B, L, out[-3000:]))
    per_cta = []
    with open(csv) as f:
        next(f)
        for line in f:
            kernel, cta, smem_a, tmem_a, tma = line.strip().split(",")[:5]
            if kernel.endswith("_combine"):
                continue
            # One P V MMA (N = Dv / 2 = 256) per 16-key chunk and CTA.
            per_cta.append(int(tmem_a))
    reports = re.findall(r"(\d+) TMA bytes loaded, (\d+) bytes loaded by ld",
                         out)
    tma = int(reports[0][0])
    combine = sum(int(ld) for _, ld in reports[1:])
    m = re.search(r"tensor kv_lens: .*: ([0-9,]+)", out)
    lens = [int(x) for x in m.group(1).split(",")] if m else [L] * B
    return per_cta, tma, combine, lens, out.strip().splitlines()[-1], secs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.environ.get(
        "NVFP4_BUILD_DIR", os.path.join(ROOT, "build")))
    ap.add_argument("--sms", type=int, default=148)
    ap.add_argument("--emulate-keys", type=int, default=70000,
                    help="emulate shapes with at most this many keys in all")
    ap.add_argument("--only", help="B,L[,mixed]: one shape")
    ap.add_argument("--model-only", action="store_true",
                    help="no emulation: every figure from the model")
    args = ap.parse_args()
    run = os.path.join(args.build, "bin", "nvfp4-run")
    shapes = [(B, L, mixed) for B in (1, 2, 4, 8, 32, 128)
              for L, mixed in ((1024, False), (8192, False), (65536, False),
                               (65536, True))]
    if args.only:
        f = args.only.split(",")
        shapes = [(int(f[0]), int(f[1]), len(f) > 2)]
    print("| B | KV lengths | keys | SM fill | best possible | bytes / "
          "minimum | source | floor at fill 0.90, pairs | floor, any "
          "cluster <= 16 |")
    print("|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for B, L, mixed in shapes:
            lens = fill_lengths(B, L, 5) if mixed else [L] * B
            keys = sum(lens)
            per_cta, tma, combine = model(lens, args.sms)
            source = "model"
            if keys <= args.emulate_keys and not args.model_only:
                e_cta, e_tma, e_comb, e_lens, verdict, secs = emulate(
                    run, B, L, mixed, args.sms, tmp)
                if e_lens != lens:
                    sys.exit("lengths differ from fillLengths: %s vs %s"
                             % (e_lens, lens))
                busy = sorted(t for t in e_cta if t)
                # Tiles and TMA bytes exactly; the combine's loads within
                # 0.1% (they include a few redundant LSE and record loads
                # the model counts approximately).
                agree = (sorted(t for t in per_cta if t) == busy and
                         e_tma == tma and
                         abs(e_comb - combine) <= 1e-3 * max(combine, 1))
                if not agree:
                    print("MODEL != COUNTERS for B=%d L=%d: tiles %s vs %s, "
                          "tma %d vs %d, combine %d vs %d" % (
                              B, L, busy[-5:], sorted(per_cta)[-5:], e_tma,
                              tma, e_comb, combine), file=sys.stderr)
                per_cta, tma, combine = e_cta, e_tma, e_comb
                source = "emulator (%.0f s; model = counters: %s; %s)" % (
                    secs, "yes" if agree else "NO", verdict.split()[0])
            minimum = B * Q_BYTES + keys * ROW_BYTES
            # The bound whole granules allow, for the better granule.
            pairs = max(1, args.sms // 2)
            best = max(t / (pairs * -(-t // pairs)) for t in (
                sum(-(-x // g) for x in lens) for g in (KV_TILE, BLOCK))) * \
                min(1.0, 2 * pairs / args.sms)
            floors = [bytes_floor(lens, c, 0.90, args.sms) for c in (2, 16)]
            print("| %d | %s | %d | %.3f | %.3f | %.3f | %s | %.3f | %.3f |"
                  % (B, ("mixed 1-%dK" % (L // 1024)) if mixed else
                     "%dK" % (L // 1024), keys, fill(per_cta, args.sms),
                     best, (tma + combine) / minimum, source, floors[0],
                     floors[1]))
            sys.stdout.flush()


if __name__ == "__main__":
    main()
