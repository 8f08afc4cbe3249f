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
  ('abs_or_ulp', (X, N), fmt)   |ref - emu| <= X or within N ulp
  ('abs_pi', X, fmt)  |ref - emu| <= X when the operand a is in [-pi, pi];
                    outside that range the PTX ISA gives no bound: any
                    finite result in [-1, 1] is accepted (sin/cos.approx)
An 'ulp' tolerance counts the distance between codes, so a zero and the
smallest subnormal of the same sign are 1 ulp apart; an absolute tolerance
accepts a zero (of either sign) for a reference within X of zero (the
hardware's sin.approx returns 0 for |a| < ~2^-22, and -0 for negative a).
fmt: 'f32', 'f64', 'f16', 'bf16' (16-bit results in the low half of a
word; packed x2 results compare each half).
"""
import math
import struct

TABLE = [
    # (operation name prefix, tolerance)
    ("ex2.approx.f32", ("ulp", 2, "f32")),
    ("ex2.approx.ftz.f32", ("ulp", 2, "f32")),
    # PTX ISA (lg2): "maximum absolute error 2^-22 for mantissa": the bound
    # covers log2 of the significand; adding the exponent rounds once more,
    # and the H200 is 1 ulp of the result off for |result| >= 8 (lg2 of
    # 2^-24, 2^-126, FLT_MAX: corpus case f32_approx).
    ("lg2.approx", ("abs_or_ulp", (2.0 ** -22, 1), "f32")),
    ("rcp.approx.f32", ("ulp", 1, "f32")),
    ("rcp.approx.ftz.f32", ("ulp", 1, "f32")),
    ("sqrt.approx", ("ulp", 1, "f32")),
    ("rsqrt.approx.f32", ("ulp", 2, "f32")),
    ("rsqrt.approx.ftz.f32", ("ulp", 2, "f32")),
    # PTX ISA (sin, cos): "maximum absolute error 2^-20.5 in the range
    # -pi..pi"; nothing outside it (the H200 gives sin 0 / cos 1 for
    # |a| >= 2^24 and is ~2e-3 off at 65504).
    ("sin.approx", ("abs_pi", 2.0 ** -20.5, "f32")),
    ("cos.approx", ("abs_pi", 2.0 ** -20.5, "f32")),
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


def _one(tol, x, y, nbits, arg=None):
    """(ok, deviation) for one element of NBITS bits; ARG: the operand a
    (f32), for 'abs_pi'."""
    kind, val, fmt = tol
    if x == y:
        return True, 0.0
    fx, fy = _value(x, fmt), _value(y, fmt)
    if not (math.isfinite(fx) and math.isfinite(fy)):
        return False, None
    if kind == "abs_pi":
        if arg is not None and not abs(_value(arg, "f32")) <= math.pi:
            return abs(fx) <= 1 and abs(fy) <= 1, 0.0
        kind = "abs"
    if kind in ("abs", "abs_or_ulp"):
        bound = val if kind == "abs" else val[0]
        d = abs(fx - fy)
        if d <= bound:
            return True, d
        if kind == "abs":
            return False, None
    sign = 1 << (nbits - 1)
    if (x & sign) != (y & sign):
        return False, None
    if kind == "abs_or_ulp":
        d = abs(_ordered(x, nbits) - _ordered(y, nbits))
        return d <= val[1], float(d)
    if fx == 0 or fy == 0:
        if kind != "ulp":
            return False, None
    if kind == "ulp":
        d = abs(_ordered(x, nbits) - _ordered(y, nbits))
        return d <= val, float(d)
    if kind == "rel":
        d = abs(fx - fy) / abs(fx)
        return d <= val, d
    d = abs(fx - fy)
    return d <= val, d


def within(tol, x, y, width, arg=None):
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
    return _one(tol, x, y, 64 if fmt == "f64" else 32, arg)
