"""Tolerances of the approximate instructions in the differential corpus
(docs/Differential.md, docs/Emulator.md "Tolerances of approximate
instructions"). Everything not listed here is compared bit for bit.

The emulator computes these functions in double precision and rounds once;
the H200 may be off by the PTX ISA's bound. NaN and infinite results, and
the sign of zero results, must agree bit for bit; only finite non-zero
results get the tolerance.

A tolerance is (kind, value, fmt):
  ('ulp', N, fmt)   |ordered(ref) - ordered(emu)| <= N units in the last place
  ('rel', X, fmt)   |ref - emu| <= X * |ref|
  ('abs', X, fmt)   |ref - emu| <= X
fmt: 'f32', 'f64', 'f16', 'bf16' (16-bit results in the low half of a
word; packed x2 results compare each half).
"""
import math
import struct

TABLE = [
    # (operation name prefix, tolerance)
    ("ex2.approx.f32", ("ulp", 2, "f32")),
    ("ex2.approx.ftz.f32", ("ulp", 2, "f32")),
    ("lg2.approx", ("abs", 2.0 ** -22, "f32")),
    ("rcp.approx.f32", ("ulp", 1, "f32")),
    ("rcp.approx.ftz.f32", ("ulp", 1, "f32")),
    ("sqrt.approx", ("ulp", 1, "f32")),
    ("rsqrt.approx.f32", ("ulp", 2, "f32")),
    ("rsqrt.approx.ftz.f32", ("ulp", 2, "f32")),
    ("sin.approx", ("abs", 2.0 ** -20.5, "f32")),
    ("cos.approx", ("abs", 2.0 ** -20.5, "f32")),
    ("tanh.approx.f32", ("rel", 2.0 ** -10.987, "f32")),
    ("div.approx", ("ulp", 2, "f32")),
    ("div.full", ("ulp", 2, "f32")),
    ("rcp.approx.ftz.f64", ("rel", 2.0 ** -20, "f64")),
    ("rsqrt.approx.f64", ("rel", 2.0 ** -20, "f64")),
    ("rsqrt.approx.ftz.f64", ("rel", 2.0 ** -20, "f64")),
    ("ex2.approx.f16x2", ("ulp", 1, "f16")),
    ("ex2.approx.f16", ("ulp", 1, "f16")),
    ("ex2.approx.ftz.bf16", ("ulp", 1, "bf16")),
    ("tanh.approx.f16x2", ("ulp", 1, "f16")),
    ("tanh.approx.f16", ("ulp", 1, "f16")),
    ("tanh.approx.bf16", ("ulp", 1, "bf16")),
]


def lookup(name):
    for prefix, tol in TABLE:
        if name == prefix or name.startswith(prefix + " ") or name.startswith(prefix + "."):
            return tol
    return None


def _value(bits, fmt):
    if fmt == "f32":
        return struct.unpack("<f", struct.pack("<I", bits))[0]
    if fmt == "f64":
        return struct.unpack("<d", struct.pack("<Q", bits))[0]
    if fmt == "bf16":
        return struct.unpack("<f", struct.pack("<I", (bits & 0xffff) << 16))[0]
    return struct.unpack("<e", struct.pack("<H", bits & 0xffff))[0]


def _ordered(bits, nbits):
    sign = 1 << (nbits - 1)
    return -(bits & (sign - 1)) if bits & sign else bits


def _one(tol, x, y, nbits):
    """(ok, deviation) for one element of NBITS bits."""
    kind, val, fmt = tol
    if x == y:
        return True, 0.0
    fx, fy = _value(x, fmt), _value(y, fmt)
    if not (math.isfinite(fx) and math.isfinite(fy)) or fx == 0 or fy == 0:
        return False, None
    if (fx < 0) != (fy < 0):
        return False, None
    if kind == "ulp":
        d = abs(_ordered(x, nbits) - _ordered(y, nbits))
        return d <= val, float(d)
    if kind == "rel":
        d = abs(fx - fy) / abs(fx)
        return d <= val, d
    d = abs(fx - fy)
    return d <= val, d


def within(tol, x, y, width):
    """(ok, deviation) for a result word (32 or 64 bits)."""
    fmt = tol[2]
    if fmt in ("f16", "bf16"):
        worst = 0.0
        for shift in (0, 16):
            a, b = (x >> shift) & 0xffff, (y >> shift) & 0xffff
            if shift and a == b:
                continue
            ok, d = _one(tol, a, b, 16)
            if not ok:
                return False, None
            worst = max(worst, d)
        return True, worst
    return _one(tol, x, y, 64 if fmt == "f64" else 32)
