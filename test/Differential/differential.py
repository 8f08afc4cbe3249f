#!/usr/bin/env python3
"""Runs the differential corpus (docs/Differential.md).

  differential.py run --nvfp4-run=BIN --backend=cuda|emulator --outdir=DIR [--only=SUBSTR]
      runs every case of manifest.py and writes DIR/<case>.<buffer>.bin
  differential.py compare --ref=DIR --test=DIR [--only=SUBSTR]
      compares two such directories (REF: the H200's, TEST: the emulator's)
  differential.py replay --nvfp4-run=BIN [--ref=DIR] [--only=SUBSTR]
      run --backend=emulator into a temporary directory, then compare with
      REF (default: the committed H200 outputs, h200/ beside this file)
  differential.py wgmma-reference [--ref=DIR]
      checks the wgmma cases' outputs in REF against D = A B + C computed
      here from the inputs (grounds the layouts and the fragment mapping)
  differential.py tma-store-reference [--ref=DIR | --nvfp4-run=BIN]
      checks the TMA store cases' tensors in REF (default: h200/), or in a
      fresh emulator run with BIN, against a model of the store written
      here (the tile's bytes with the swizzle un-applied, in-bounds elements
      only, everything else still poisoned)

A case with `faults` (the TMA stores the H200 faults on; manifest.py) must
fail to run with the expected error on both backends: run writes
DIR/<case>.fault.txt (the error line) instead of its buffers, and
compare/replay count one comparison, the two faults, for it.

--only takes a comma-separated list of substrings of case names. A wgmma
case that the emulator rejects with "not implemented yet: wgmma" is
SKIPPED (printed with the reason), not failed: the cases run by themselves
once the emulator implements wgmma. The wgmma and TMA store cases whose
H200 outputs are not captured yet are SKIPPED by compare/replay too.

Exit status of compare/replay: 0 when every comparison passed (mismatches
listed in expected_mismatches.txt are reported but do not fail), 1
otherwise. A mismatch prints the case, the operation, the first differing
element with its inputs, and both values in hex.
"""
import argparse
import math
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import manifest  # noqa: E402
import tolerances  # noqa: E402

# ---------------------------------------------------------------- operations

OP_RE = re.compile(r'\b(OP[A-Z0-9]*)\(\s*"([^"]+)"(?:\s*,\s*([^)]+?))?\s*\)')
TWO_WORD = {"OP2UW", "OPCVTL1F", "OP1D", "OP2D", "OP3D", "OPCVTDF", "OPCVTLD",
            "OPCVTDL", "OP2L", "OP1L", "OP2LU"}
F64_RESULT = {"OP1D", "OP2D", "OP3D", "OPCVTDF", "OPCVTDL"}
_ops_cache = {}


def kernel_ops(stem, kernel):
    """[(name, words, kind)] of the OP* calls between '// BEGIN OPS kernel'
    and '// END OPS' in STEM.cu, in order. kind: 'f64' for an f64 result
    (two words), else 'w32'."""
    key = (stem, kernel)
    if key in _ops_cache:
        return _ops_cache[key]
    src = open(os.path.join(HERE, stem + ".cu")).read()
    m = re.search(r"// BEGIN OPS %s\n(.*?)// END OPS" % re.escape(kernel), src, re.S)
    if not m:
        raise SystemExit("no '// BEGIN OPS %s' in %s.cu" % (kernel, stem))
    ops = []
    for mac, name, imm in OP_RE.findall(m.group(1)):
        if mac == "OPNAME":
            ops.append((name, 1, "w32"))
            continue
        full = name + (" " + imm.strip() if imm else "")
        ops.append((full, 2 if mac in TWO_WORD else 1, "f64" if mac in F64_RESULT else "w32"))
    _ops_cache[key] = ops
    return ops


def op_words(stem, kernel):
    return sum(w for _, w, _ in kernel_ops(stem, kernel))


def all_cases():
    return manifest.cases(op_words)

# -------------------------------------------------------------------- inputs


class SplitMix64:
    def __init__(self, seed):
        self.s = seed & (2**64 - 1)

    def next(self):
        self.s = (self.s + 0x9E3779B97F4A7C15) & (2**64 - 1)
        z = self.s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & (2**64 - 1)
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & (2**64 - 1)
        return z ^ (z >> 31)


F32_EDGES = [0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007fffff, 0x00800000,
             0x80800000, 0x00400000, 0x3f800000, 0xbf800000, 0x3fc00000, 0x3f800001,
             0x40490fdb, 0x33800000, 0x4b800001, 0x7f7fffff, 0xff7fffff, 0x7f800000,
             0xff800000, 0x7fc00000, 0x7fa00001, 0xffc12345, 0xc2fe0000, 0x43000000,
             0x477fe000, 0x477ff000, 0x43e00000, 0x387fc000, 0x3f7fffff, 0x4f000000,
             0xcf000000, 0x5f800000]
F64_EDGES = [0x0, 0x8000000000000000, 0x1, 0x800fffffffffffff, 0x0010000000000000,
             0x3ff0000000000000, 0xbff0000000000000, 0x3ff8000000000000, 0x3ff0000000000001,
             0x400921fb54442d18, 0x7fefffffffffffff, 0xffefffffffffffff, 0x7ff0000000000000,
             0xfff0000000000000, 0x7ff8000000000000, 0x7ff4000000000001, 0xfff8123456789abc,
             0x36a0000000000000, 0x3810000000000000, 0x47efffffe0000000, 0x47efffff10000000,
             0x41e0000000000000, 0xc3e0000000000000, 0x43f0000000000000, 0x3fe0000000000000,
             0x3ca0000000000000]
H16_EDGES = [0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0400, 0x3c00, 0xbc00, 0x3e00, 0x3c01,
             0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7e00, 0x7d01, 0xfe12, 0x0080, 0x007f, 0x3f80,
             0x7f7f, 0x7f80, 0xff80, 0x7fc0, 0x7f81, 0x5bff, 0x5c00, 0x4b00]
I32_EDGES = [0, 1, 2, 0xffffffff, 0x80000000, 0x7fffffff, 0x80000001, 31, 32, 33, 63, 64,
             0xffff, 0x10000, 0x7fff, 0x8000, 0xff, 0x80, 0x12345678, 0xdeadbeef, 5,
             0xfffffffb, 0x00ff00ff, 0x0f0f0f0f, 0xffffffe0, 0x3f800000]
I64_EDGES = [0, 1, 0xffffffffffffffff, 0x8000000000000000, 0x7fffffffffffffff, 63, 64, 65,
             0xffffffff, 0x100000000, 0x123456789abcdef0, 0xfedcba9876543210, 7,
             0xfffffffffffffff9, 0x43e0000000000000, 0x0000000100000001]


def cross(edges, n, rng, rand, extra=None):
    """a, b, c lists: all pairs of edges, then random values from RAND;
    c cycles through edges and random values."""
    a, b = [], []
    for x in edges:
        for y in edges:
            a.append(x)
            b.append(y)
    a, b = a[:n], b[:n]
    while len(a) < n:
        x, y = rand(rng), rand(rng)
        if extra:
            x, y = extra(rng, x, y, len(a))
        a.append(x)
        b.append(y)
    c = []
    for i in range(n):
        c.append(edges[(i * 7 + 3) % len(edges)] if i % 3 == 0 else rand(rng))
    return a, b, c


def rand_f32(rng):
    r = rng.next()
    kind = r & 3
    bits = (r >> 8) & 0xffffffff
    if kind == 0:
        return bits  # any pattern
    exp = ((r >> 40) % 61) + 97  # 2^-30 .. 2^30
    return (bits & 0x807fffff) | (exp << 23)


def f32_extra(rng, x, y, i):
    r = rng.next()
    sel = r % 6
    if sel == 0:  # y is exactly half an ulp of x: x + y ties
        e = (x >> 23) & 0xff
        if 25 < e < 250:
            y = (x & 0x80000000) ^ (0x80000000 if r & 256 else 0) | ((e - 24) << 23)
    elif sel == 1:  # ties for f16 / bf16 conversions
        x = (x & ~0xffff) | 0x8000
        y = (y & ~0x1fff) | 0x1000
    return x, y


def tie_values(rng, mant_bits, lo_exp, hi_exp, count):
    out = []
    for _ in range(count):
        r = rng.next()
        e = lo_exp + r % (hi_exp - lo_exp + 1)
        j = (r >> 16) % (1 << mant_bits)
        v = ((1 << mant_bits) + j + 0.5) * 2.0 ** (e - mant_bits)
        if r & (1 << 40):
            v = -v
        out.append(struct.unpack("<I", struct.pack("<f", v))[0])
    return out


def fp8_bits(v, exp_bits):
    """The e4m3 (EXP_BITS 4) / e5m2 (5) encoding of V, a value that has one."""
    man_bits = 7 - exp_bits
    bias = (1 << (exp_bits - 1)) - 1
    sign = 0x80 if v < 0 else 0
    v = abs(v)
    if v == 0:
        return sign
    e = math.floor(math.log2(v))
    m = v / 2.0 ** e - 1
    assert m * (1 << man_bits) == int(m * (1 << man_bits)) and e + bias > 0, v
    return sign | (e + bias) << man_bits | int(m * (1 << man_bits))


WGMMA_VALUES = [0.0, 0.5, -0.5, 1.0, -1.0, 1.5, -1.5, 2.0, -2.0, 3.0, -3.0, 4.0, -4.0]


def gen_wgmma_inputs():
    """A (64 x 64), B (256 x 64) of bf16 / e4m3 / e5m2 (the kernels read
    64 x 2K and N x 2K of them), C (128 x 128 f32, the initial accumulator
    fragments): small integers and halves, so that every sum is exact."""
    rng = SplitMix64(9)
    pick = lambda: WGMMA_VALUES[rng.next() % len(WGMMA_VALUES)]
    out = {}
    for name, rows in (("a", 64), ("b", 256)):
        vals = [pick() for _ in range(rows * 64)]
        # bf16 operands are rows x 32: the first rows * 32 values.
        bf = [struct.unpack("<I", struct.pack("<f", v))[0] >> 16 for v in vals[:rows * 32]]
        out[name + "_bf16"] = struct.pack("<%dH" % len(bf), *bf)
        out[name + "_e4m3"] = bytes(fp8_bits(v, 4) for v in vals)
        out[name + "_e5m2"] = bytes(fp8_bits(v, 5) for v in vals)
    c = [float((rng.next() % 129) - 64) for _ in range(128 * 128)]
    out["c"] = struct.pack("<%df" % len(c), *c)
    # The full-mantissa set (cases named *_rand): random signs, mantissas and
    # exponents (operands within 2^+-6, C within 2^-4..2^8), so that sums
    # round and the accumulation model decides the low bits (docs/Emulator.md,
    # "MMA accumulation").
    rng = SplitMix64(19)
    for name, rows in (("a", 64), ("b", 256)):
        bf = [rand_bits(rng, 8, 7, 127, -6, 6) for _ in range(rows * 32)]
        out[name + "_bf16_rand"] = struct.pack("<%dH" % len(bf), *bf)
        out[name + "_e4m3_rand"] = bytes(rand_bits(rng, 4, 3, 7, -6, 6) for _ in range(rows * 64))
        out[name + "_e5m2_rand"] = bytes(rand_bits(rng, 5, 2, 15, -6, 6) for _ in range(rows * 64))
    c = [(rng.next() & 1) << 31 | (127 + (rng.next() % 13) - 4) << 23 | (rng.next() & 0x7fffff)
         for _ in range(128 * 128)]
    out["c_rand"] = struct.pack("<%dI" % len(c), *c)
    return out


def rand_bits(rng, exp_bits, man_bits, bias, elo, ehi):
    """A random normal value's bits (sign, exponent in [elo, ehi], mantissa),
    one in 16 a zero; e4m3's NaN pattern is avoided."""
    sign = (rng.next() & 1) << (exp_bits + man_bits)
    if rng.next() % 16 == 0:
        return sign
    e = elo + rng.next() % (ehi - elo + 1)
    v = sign | (e + bias) << man_bits | (rng.next() & ((1 << man_bits) - 1))
    return v & ~1 if exp_bits == 4 and v & 0x7f == 0x7f else v


def wgmma_operands(data, case):
    """(A, B, C) of a wgmma case as lists of floats: A 64 x KT, B N x KT,
    C the 128 x N/2 fragment."""
    v = case["wgmma"]["variant"]
    kt, n = 2 * v["k"], v["n"]

    def dec(buf, t, rows):
        if t == "bf16":
            w = struct.unpack("<%dH" % (rows * kt), data[buf][:rows * kt * 2])
            return [struct.unpack("<f", struct.pack("<I", x << 16))[0] for x in w]
        eb = 4 if t == "e4m3" else 5
        mb, bias = 7 - eb, (1 << (eb - 1)) - 1
        vals = []
        for x in data[buf][:rows * kt]:
            e, m = (x >> mb) & ((1 << eb) - 1), x & ((1 << mb) - 1)
            mag = (1 + m / (1 << mb)) * 2.0 ** (e - bias) if e else m / (1 << mb) * 2.0 ** (1 - bias)
            vals.append(-mag if x & 0x80 else mag)
        return vals
    r = "_rand" if case["wgmma"].get("rand") else ""
    a = dec("a_" + v["ta"] + r, v["ta"], 64)
    b = dec("b_" + v["tb"] + r, v["tb"], n)
    c = list(struct.unpack("<%df" % (128 * n // 2), data["c" + r][:128 * n // 2 * 4]))
    return a, b, c


def wgmma_expected(data, case, bounds=None):
    """The D fragment (128 x N/2 f32 bit patterns) the case must produce:
    thread 32w + 4g + t, register j holds D[16w + g + 8((j>>1)&1)]
    [8(j>>2) + 2t + (j&1)]. BOUNDS, a list, receives per register the exact
    sum (a float) and the sum of the magnitudes |C| + sum |a b|."""
    v = case["wgmma"]["variant"]
    kt, n = 2 * v["k"], v["n"]
    a, b, c = wgmma_operands(data, case)
    out = []
    for tid in range(128):
        w, g, t = tid // 32, (tid % 32) // 4, tid % 4
        for j in range(n // 2):
            row = 16 * w + g + 8 * ((j >> 1) & 1)
            col = 8 * (j >> 2) + 2 * t + (j & 1)
            s = c[tid * (n // 2) + j] if case["wgmma"]["scale_d"] else 0.0
            mag = abs(s)
            for k in range(kt):
                s += v["sa"] * a[row * kt + k] * v["sb"] * b[col * kt + k]
                mag += abs(a[row * kt + k] * b[col * kt + k])
            out.append(struct.unpack("<I", struct.pack("<f", s))[0])
            if bounds is not None:
                bounds.append((s, mag))
    return out


def wgmma_reference(ref_dir, only=None):
    data = gen_wgmma_inputs()
    bad = 0
    cases = [c for c in all_cases() if "wgmma" in c and selected(c, only)]
    for case in cases:
        path = os.path.join(ref_dir, case["name"] + ".d.bin")
        if not os.path.exists(path):
            print("MISSING %s" % path)
            bad += 1
            continue
        bounds = []
        got, want = load_words(path), wgmma_expected(data, case, bounds)
        diff = [i for i, (x, y) in enumerate(zip(got, want)) if x != y]
        if case["wgmma"].get("rand"):
            # Sums round: the layouts and fragments are right when every
            # register is within 2^-20 (8-bit operands: 2^-7, the H200 keeps
            # 13 fraction bits) of the magnitudes of its terms; the exact
            # bits are the accumulation model's, checked by the replay.
            f32 = lambda x: struct.unpack("<f", struct.pack("<I", x))[0]
            tol = 2.0 ** (-20 if case["wgmma"]["variant"]["ta"] == "bf16" else -7)
            diff = [i for i in diff
                    if not abs(f32(got[i]) - bounds[i][0]) <= tol * bounds[i][1]]
        if diff or len(got) != len(want):
            i = diff[0] if diff else min(len(got), len(want))
            print("WRONG %s: %d of %d registers differ from A B + C; first: thread %d register %d: "
                  "got 0x%08x, A B + C 0x%08x" % (case["name"], len(diff), len(want), i // (len(want) // 128),
                                                i % (len(want) // 128), got[i] if i < len(got) else 0,
                                                want[i] if i < len(want) else 0))
            bad += 1
        else:
            print("ok %s" % case["name"])
    print("wgmma reference: %d of %d cases agree with A B + C" % (len(cases) - bad, len(cases)))
    return bad == 0


def tma_store_fault(case):
    """The rule of the H200's that the store breaks ('negative': a negative
    coordinate in any dimension; 'unaligned': dimension 0 starts at a byte
    offset that is not a multiple of 16), or None: the H200 raises an
    illegal-instruction error for these (docs/Differential.md)."""
    p = case["tma_store"]
    if any(c < 0 for c in p["coords"]):
        return "negative"
    if p["coords"][0] * p["esize"] % 16:
        return "unaligned"
    return None


def tma_store_expected(case, src):
    """The tensor a TMA store case leaves: poisoned (0xFF) except the box's
    in-bounds elements, element x of box row r (rows counted with dimension
    1 fastest) taken from tile byte swizzle(r * pitch + x * esize + k) of
    the tile (the input as it is; its base is 1024-byte aligned). pitch is
    the row's bytes, or the swizzle span when the row is narrower; swizzle
    XORs the 16-byte chunk index within the span with the 128-byte row
    index (the formula verified for loads in scripts/device/check_outputs.py).
    Dimension 0 ends at its size rounded up to 16 bytes: the H200 writes
    whole 16-byte chunks (tma_store_2d_f32_none_b64_52_1_d62)."""
    p = case["tma_store"]
    esize, box, dims, strides, coords = p["esize"], p["box"], p["dims"], p["strides"], p["coords"]
    end0 = (dims[0] * esize + 15) // 16 * 16 // esize
    span = {"none": 0, "32B": 32, "64B": 64, "128B": 128}[p["swizzle"]]
    mask = span // 16 - 1 if span else 0

    def swizzle(a):
        return a ^ (((a >> 7) & mask) << 4)

    inner = box[0] * esize
    pitch = span if span and inner < span else inner
    out = bytearray(b"\xff" * p["bytes"])
    rows = 1
    for b in box[1:]:
        rows *= b
    for row in range(rows):
        rest, base, inside = row, 0, True
        for i in range(1, len(box)):
            x = coords[i] + rest % box[i]
            rest //= box[i]
            if not 0 <= x < dims[i]:
                inside = False
                break
            base += x * strides[i - 1]
        if not inside:
            continue
        for x in range(box[0]):
            gx = coords[0] + x
            if not 0 <= gx < end0:
                continue
            for k in range(esize):
                out[base + gx * esize + k] = src[swizzle(row * pitch + x * esize + k)]
    return bytes(out)


def tma_store_reference(ref_dir, only=None):
    src = gen_inputs("tmastore", manifest.STORE_SRC_BYTES)["src"]
    bad = 0
    cases = [c for c in all_cases() if "tma_store" in c and selected(c, only)]
    for case in cases:
        path = os.path.join(ref_dir, case["name"] + ".g.bin")
        fault_path = os.path.join(ref_dir, case["name"] + ".fault.txt")
        rule = tma_store_fault(case)
        if rule != case.get("faults", {}).get("rule"):
            print("WRONG %s: the model says %s, manifest.py says %s" % (
                case["name"], rule or "no fault", case.get("faults", {}).get("rule", "no fault")))
            bad += 1
            continue
        if rule:
            if os.path.exists(fault_path):
                print("ok %s (faults: %s)" % (case["name"], rule))
            else:
                print("WRONG %s: the model says the store faults (%s), but %s" % (
                    case["name"], rule, "it ran" if os.path.exists(path) else "no fault recorded"))
                bad += 1
            continue
        if not os.path.exists(path):
            print("MISSING %s" % path)
            bad += 1
            continue
        got, want = open(path, "rb").read(), tma_store_expected(case, src)
        diff = [i for i, (x, y) in enumerate(zip(got, want)) if x != y]
        if diff or len(got) != len(want):
            i = diff[0] if diff else min(len(got), len(want))
            print("WRONG %s: %d of %d bytes differ from the model; first: byte %d: got %s, "
                  "model %s" % (case["name"], len(diff), len(want), i,
                                "0x%02x" % got[i] if i < len(got) else "end",
                                "0x%02x" % want[i] if i < len(want) else "end"))
            bad += 1
        else:
            written = sum(1 for x in want if x != 0xff)
            print("ok %s (%d bytes written)" % (case["name"], written))
    print("tma store reference: %d of %d cases agree with the model" % (len(cases) - bad, len(cases)))
    return bad == 0


def awaits_capture(case):
    """Cases run by the emulator whose H200 outputs may not be captured yet
    (docs/Differential.md): compare/replay skip them while h200/ lacks them."""
    return "wgmma" in case or "tma_store" in case


def selected(case, only):
    return not only or any(s and s in case["name"] for s in only.split(","))


def gen_inputs(kind, n):
    """{suffix: bytes} for input set KIND of N elements."""
    if kind == "wgmma":
        return gen_wgmma_inputs()
    if kind == "tmastore":
        # The TMA store tile: bytes 0..254 (never the poison 0xff).
        rng = SplitMix64(12)
        return {"src": bytes(rng.next() % 255 for _ in range(n))}
    rng = SplitMix64({"f32": 1, "f64": 2, "half": 3, "cvt": 4, "i32": 5, "i64": 6,
                      "warp": 7, "atom": 8}[kind])
    pack32 = lambda v: struct.pack("<%dI" % len(v), *v)
    pack64 = lambda v: struct.pack("<%dQ" % len(v), *v)
    if kind in ("f32", "cvt"):
        a, b, c = cross(F32_EDGES, n, rng, rand_f32, f32_extra)
        if kind == "cvt":
            # Rounding ties of f16 (10 mantissa bits), e5m2 (2), e4m3 (3),
            # bf16 (7) and the f16 / fp8 subnormal ranges.
            ties = (tie_values(rng, 10, -24, 15, 48) + tie_values(rng, 2, -17, 15, 48)
                    + tie_values(rng, 3, -10, 8, 48) + tie_values(rng, 7, -130, 127, 48))
            a[n - len(ties):] = ties
            b[n - len(ties):] = ties[::-1]
        return {"a": pack32(a), "b": pack32(b), "c": pack32(c)}
    if kind == "f64":
        def rand_f64(rng):
            r = rng.next()
            if r & 1:
                return r
            e = 1023 - 60 + (r >> 52) % 121
            return (r & 0x800fffffffffffff) | (e << 52)
        a, b, c = cross(F64_EDGES, n, rng, rand_f64)
        return {"a": pack64(a), "b": pack64(b), "c": pack64(c)}
    if kind == "half":
        def rand_h(rng):
            r = rng.next()
            return (r & 0xffff) | ((r >> 32) & 0xffff) << 16
        a, b, c = cross(H16_EDGES, n, rng, rand_h)
        # High halves: the edges again, in another order.
        a = [(x & 0xffff) | (H16_EDGES[(i * 5) % len(H16_EDGES)] << 16 if i < 800 else x & 0xffff0000)
             for i, x in enumerate(a)]
        b = [(x & 0xffff) | (H16_EDGES[(i * 11 + 1) % len(H16_EDGES)] << 16 if i < 800 else x & 0xffff0000)
             for i, x in enumerate(b)]
        return {"a": pack32(a), "b": pack32(b), "c": pack32(c)}
    if kind == "i32":
        a, b, c = cross(I32_EDGES, n, rng, lambda r: r.next() & 0xffffffff)
        return {"a": pack32(a), "b": pack32(b), "c": pack32(c)}
    if kind == "i64":
        a, b, _ = cross(I64_EDGES, n, rng, lambda r: r.next())
        c = [rng.next() & 0xffffffff for _ in range(n)]
        return {"a": pack64(a), "b": pack64(b), "c": pack32(c)}
    if kind == "warp":
        a = [rng.next() & 0xffffffff for _ in range(n)]
        b = [rng.next() & 0xffffffff for _ in range(n)]
        c = [rng.next() & 0xffffffff for _ in range(n)]
        # Some warps with uniform predicates / values.
        for w in range(0, n, 32):
            if (w // 32) % 4 == 1:
                for l in range(32):
                    a[w + l] |= 1
            if (w // 32) % 4 == 2:
                for l in range(32):
                    a[w + l] = (a[w + l] & ~0xff) | 0x11
        return {"a": pack32(a), "b": pack32(b), "c": pack32(c)}
    if kind == "atom":
        a, b, c = cross(F32_EDGES[:16], n, rng, rand_f32)
        return {"a": pack32(a), "b": pack32(b), "c": pack32(c)}
    raise SystemExit("unknown input set " + kind)

# ----------------------------------------------------------------------- run


def expand(spec, inputs_dir, out_dir, case):
    def sub(m):
        what, name = m.group(1), m.group(2)
        if what == "in":
            return os.path.join(inputs_dir, name + ".bin")
        return os.path.join(out_dir, "%s.%s.bin" % (case["name"], name))
    return re.sub(r"\{(in|out):([A-Za-z0-9_.]+)\}", sub, spec)


def run_cases(nvfp4_run, backend, outdir, only=None, timeout=120, verbose=False):
    os.makedirs(outdir, exist_ok=True)
    inputs_dir = os.path.join(outdir, "inputs")
    os.makedirs(inputs_dir, exist_ok=True)
    made = set()
    failures = []
    skipped = []
    faulted = []
    cases = [c for c in all_cases() if selected(c, only)]
    t0 = time.time()
    for case in cases:
        if "inputs" in case and case["inputs"] not in made:
            kind, n = case["inputs"]
            for suffix, data in gen_inputs(kind, n).items():
                with open(os.path.join(inputs_dir, "%s.%s.bin" % (kind, suffix)), "wb") as f:
                    f.write(data)
            made.add(case["inputs"])
        cmd = [nvfp4_run, "--backend=" + backend, os.path.join(HERE, case["ptx"]),
               "--kernel=" + case["kernel"], "--grid=%s" % case["grid"],
               "--block=%s" % case["block"], "--cluster=%s" % case["cluster"],
               "--smem=%d" % case["smem"]]
        cmd += ["--buf=" + expand(b, inputs_dir, outdir, case) for b in case["bufs"]]
        cmd += ["--arg=" + expand(a, inputs_dir, outdir, case) for a in case["args"]]
        try:
            p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               timeout=timeout, universal_newlines=True)
            ok, text = p.returncode == 0, p.stdout
        except subprocess.TimeoutExpired:
            ok, text = False, "timed out after %ds" % timeout
        m = re.search(r"not implemented yet: wgmma[^\n]*?(?= in CTA|$)", text, re.M)
        if not ok and backend == "emulator" and "wgmma" in case and m:
            # The emulator predates wgmma: skip, do not fail (docs/Differential.md).
            skipped.append(case["name"])
            with open(os.path.join(outdir, case["name"] + ".SKIPPED.txt"), "w") as f:
                f.write("emulator: " + m.group(0) + "\n")
            continue
        if "faults" in case:
            # The H200 faults on it: the run must fail with the expected error.
            want = case["faults"]["h200" if backend == "cuda" else "emulator"]
            line = next((l.strip() for l in text.splitlines() if want in l), None)
            if not ok and line:
                faulted.append(case["name"])
                if verbose:
                    print("faulted %s (%s): %s" % (case["name"], backend, line))
                with open(os.path.join(outdir, case["name"] + ".fault.txt"), "w") as f:
                    f.write(line + "\n")
                continue
            text = ("ran, but the H200 faults on it (%s)" % case["faults"]["h200"] if ok else
                    "failed without the expected error '%s'" % want) + "\n" + text
            ok = False
        if verbose or not ok:
            print("%s %s (%s)" % ("ran" if ok else "FAILED", case["name"], backend))
            if not ok:
                print("  $ " + " ".join(cmd))
                print("  " + text.strip().replace("\n", "\n  "))
        if not ok:
            failures.append(case["name"])
            with open(os.path.join(outdir, case["name"] + ".FAILED.txt"), "w") as f:
                f.write(" ".join(cmd) + "\n" + text)
    print("%s: ran %d cases in %.1f s, %d failed to run%s%s" % (
        backend, len(cases), time.time() - t0, len(failures),
        (": " + ", ".join(failures)) if failures else "",
        ", %d faulted as expected" % len(faulted) if faulted else ""))
    if skipped:
        print("%s: skipped %d wgmma cases (not implemented yet: wgmma)" % (backend, len(skipped)))
    return failures

# ------------------------------------------------------------------- compare


def f32v(w):
    return struct.unpack("<f", struct.pack("<I", w))[0]


def f64v(w):
    return struct.unpack("<d", struct.pack("<Q", w))[0]


def h16v(w, bf16):
    if bf16:
        return f32v((w & 0xffff) << 16)
    return struct.unpack("<e", struct.pack("<H", w & 0xffff))[0]


def ordered(bits, nbits):
    sign = 1 << (nbits - 1)
    return -(bits & (sign - 1)) if bits & sign else bits


def load_words(path, size=4):
    data = open(path, "rb").read()
    fmt = "<%d%s" % (len(data) // size, "I" if size == 4 else "Q")
    return list(struct.unpack(fmt, data[: len(data) // size * size]))


def expected_mismatches():
    """{(case, op): reason} from expected_mismatches.txt."""
    out = {}
    path = os.path.join(HERE, "expected_mismatches.txt")
    if os.path.exists(path):
        for line in open(path):
            line = line.split("#", 1)[0].strip()
            if line:
                case, op, reason = [s.strip() for s in line.split("|", 2)]
                out[(case, op)] = reason
    return out


class Report:
    def __init__(self):
        self.failed = 0
        self.expected = 0
        self.passed = 0
        self.skipped = 0
        self.approx = []

    def mismatch(self, expected_reason, case, what, index, ref, test, detail=""):
        tag = "EXPECTED MISMATCH" if expected_reason is not None else "MISMATCH"
        print("%s %s %s: first differing element %d: H200 %s, emulator %s%s%s" % (
            tag, case, what, index, ref, test, detail,
            (" [" + expected_reason + "]") if expected_reason else ""))
        if expected_reason is not None:
            self.expected += 1
        else:
            self.failed += 1


def fmt_inputs(case, i):
    return ""


def compare_ops(case, spec, ref_path, test_path, rep, xm, input_words):
    _, stem, kernel, n = spec.split(":")
    n = int(n)
    ref, test = load_words(ref_path), load_words(test_path)
    if len(ref) != len(test):
        rep.mismatch(None, case, "size", 0, "%d words" % len(ref), "%d words" % len(test))
        return
    k = 0
    for name, words, kind in kernel_ops(stem, kernel):
        parts = []
        for w in range(words):
            parts.append((ref[(k + w) * n:(k + w + 1) * n], test[(k + w) * n:(k + w + 1) * n]))
        k += words
        tol = tolerances.lookup(name)
        reason = xm.get((case, name))
        if kind == "f64":
            r = [lo | hi << 32 for lo, hi in zip(parts[0][0], parts[1][0])]
            t = [lo | hi << 32 for lo, hi in zip(parts[0][1], parts[1][1])]
            width = 64
        else:
            r = [x for p in parts for x in p[0]]
            t = [x for p in parts for x in p[1]]
            width = 32
        # The operand a of each element (sin/cos.approx tolerances depend on it).
        arg = (lambda i: input_words[0][i % n]) if input_words else (lambda i: None)
        bad, worst = None, 0.0
        for i, (x, y) in enumerate(zip(r, t)):
            if x == y:
                continue
            ok, dist = (False, None) if tol is None else tolerances.within(tol, x, y, width, arg(i))
            if ok:
                worst = max(worst, dist)
                continue
            bad = i
            break
        if tol is not None:
            rep.approx.append((case, name, worst, tol))
        if bad is None:
            rep.passed += 1
            if reason is not None:
                print("NOTE %s %s: listed in expected_mismatches.txt but now agrees" % (case, name))
            continue
        elem = bad % n
        ins = ""
        if input_words:
            ins = " (inputs a=%s b=%s c=%s)" % tuple(
                "0x%0*x" % (16 if len(v[0]) else 8, v[elem]) if False else "0x%x" % v[elem]
                for v in input_words)
        hexw = 16 if width == 64 else 8
        count = sum(1 for i, (x, y) in enumerate(zip(r, t))
                    if x != y and (tol is None or not tolerances.within(tol, x, y, width, arg(i))[0]))
        rep.mismatch(reason, case, "op '%s'" % name, elem,
                     "0x%0*x" % (hexw, r[bad]), "0x%0*x" % (hexw, t[bad]),
                     "%s; %d of %d elements differ" % (ins, count, len(r)))


def compare_dirs(ref_dir, test_dir, only=None):
    rep = Report()
    xm = expected_mismatches()
    for case in all_cases():
        if not selected(case, only):
            continue
        name = case["name"]
        skip = os.path.join(test_dir, name + ".SKIPPED.txt")
        if os.path.exists(skip):
            print("SKIPPED %s: %s" % (name, open(skip).read().strip()))
            rep.skipped += len(case["outputs"])
            continue
        if "faults" in case:
            # The H200 faults on it; so must the emulator.
            rp = os.path.join(ref_dir, name + ".fault.txt")
            tp = os.path.join(test_dir, name + ".fault.txt")
            if not os.path.exists(rp) and awaits_capture(case):
                print("SKIPPED %s: no H200 capture of its fault yet" % name)
                rep.skipped += 1
            elif not os.path.exists(rp):
                rep.mismatch(None, name, "fault", 0, "no fault recorded", "-")
            elif not os.path.exists(tp):
                rep.mismatch(None, name, "fault", 0, open(rp).read().strip(),
                             "no fault (ran, or failed otherwise)")
            else:
                rep.passed += 1
            continue
        for buf, spec in case["outputs"].items():
            rp = os.path.join(ref_dir, "%s.%s.bin" % (name, buf))
            tp = os.path.join(test_dir, "%s.%s.bin" % (name, buf))
            reason = xm.get((name, buf))
            if not os.path.exists(rp) and awaits_capture(case):
                # Run by the emulator, not captured on the H200 yet.
                print("SKIPPED %s: no H200 capture of buffer '%s' yet" % (name, buf))
                rep.skipped += 1
                continue
            if not os.path.exists(rp):
                rep.mismatch(reason, name, "buffer '%s'" % buf, 0, "missing", "-")
                continue
            if not os.path.exists(tp):
                rep.mismatch(reason, name, "buffer '%s'" % buf, 0, "present", "missing (the run failed)")
                continue
            if spec.startswith("ops:"):
                input_words = None
                if "inputs" in case:
                    kind, n = case["inputs"]
                    d = os.path.join(test_dir, "inputs")
                    try:
                        input_words = [load_words(os.path.join(d, "%s.%s.bin" % (kind, s)),
                                                  8 if kind in ("f64", "i64") and s != "c" else 4)
                                       for s in "abc"]
                    except OSError:
                        input_words = None
                compare_ops(name, spec, rp, tp, rep, xm, input_words)
                continue
            r, t = open(rp, "rb").read(), open(tp, "rb").read()
            if r == t:
                rep.passed += 1
                if reason is not None:
                    print("NOTE %s %s: listed in expected_mismatches.txt but now agrees" % (name, buf))
                continue
            i = next((j for j in range(min(len(r), len(t))) if r[j] != t[j]), min(len(r), len(t)))
            w = i // 4 * 4
            count = sum(1 for x, y in zip(r, t) if x != y)
            rep.mismatch(reason, name, "buffer '%s'" % buf, i,
                         "byte 0x%02x (word 0x%s)" % (r[i], r[w:w + 4][::-1].hex()) if i < len(r) else "end",
                         "byte 0x%02x (word 0x%s)" % (t[i], t[w:w + 4][::-1].hex()) if i < len(t) else "end",
                         "; %d of %d bytes differ" % (count, len(r)))
    for case, name, worst, tol in rep.approx:
        print("approx %-12s %-28s max deviation %-10.4g (tolerance %s)" % (case, name, worst, tol))
    print("%d comparisons passed, %d failed, %d expected mismatches%s" % (
        rep.passed, rep.failed, rep.expected,
        ", %d skipped (not implemented yet in the emulator, or not captured on the H200 yet)"
        % rep.skipped if rep.skipped else ""))
    return rep.failed == 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["run", "compare", "replay", "list", "wgmma-reference",
                                     "tma-store-reference"])
    ap.add_argument("--nvfp4-run")
    ap.add_argument("--backend", default="emulator")
    ap.add_argument("--outdir")
    ap.add_argument("--ref", default=os.path.join(HERE, "h200"))
    ap.add_argument("--test")
    ap.add_argument("--only")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    if args.mode == "list":
        for c in all_cases():
            print(c["name"])
        return 0
    if args.mode == "run":
        return 1 if run_cases(args.nvfp4_run, args.backend, args.outdir, args.only,
                              verbose=args.verbose) else 0
    if args.mode == "wgmma-reference":
        return 0 if wgmma_reference(args.ref, args.only) else 1
    if args.mode == "tma-store-reference":
        if not args.nvfp4_run:
            return 0 if tma_store_reference(args.ref, args.only) else 1
        # The emulator's outputs: run the store cases, then check them.
        only = args.only or "tma_store_"
        tmp = tempfile.mkdtemp(prefix="nvfp4-tma-store.")
        try:
            failed = run_cases(args.nvfp4_run, "emulator", tmp, only, verbose=args.verbose)
            return 0 if tma_store_reference(tmp, only) and not failed else 1
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    if args.mode == "compare":
        return 0 if compare_dirs(args.ref, args.test, args.only) else 1
    tmp = tempfile.mkdtemp(prefix="nvfp4-differential.")
    try:
        run_cases(args.nvfp4_run, "emulator", tmp, args.only, verbose=args.verbose)
        return 0 if compare_dirs(args.ref, tmp, args.only) else 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
