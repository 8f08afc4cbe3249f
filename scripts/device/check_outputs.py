#!/usr/bin/env python3
# ===- check_outputs.py - check nvfp4-run's output files -------------------=== #
#
# CPU references for the kernels in test/Runtime/Inputs, run on the buffers
# nvfp4-run wrote (out= / dump-init=). Plain Python 3 (struct, array): no
# numpy, so that it runs on any machine, the GPU machine and CI alike.
#
#   check_outputs.py saxpy --a A --x X.bin --y0 Y0.bin --y Y.bin --n N
#   check_outputs.py params --out P.bin --u8 V --u16 V --u32 V --i32 V
#                    --u64 V --i64 V --f32 V --f64 V
#   check_outputs.py launch-info --out L.bin --grid X,Y --block X
#                    --cluster X --smem BYTES
#   check_outputs.py tma --global G.bin --out T.bin --dims D0,D1
#                    --stride BYTES --elem BYTES --box B0,B1 --coords C0,C1
#                    --swizzle none|32B|64B|128B
#
# Prints one line "PASS ..." or "FAIL ..." (with the first mismatches) and
# exits 0 on PASS, 1 on FAIL, 2 on bad usage or unreadable files.
#
# ===----------------------------------------------------------------------=== #

import argparse
import array
import struct
import sys


def read(path, what):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        print("FAIL %s: cannot read %s: %s" % (what, path, e))
        sys.exit(2)


def floats(data):
    a = array.array("f")
    a.frombytes(data[: len(data) // 4 * 4])
    return a


def to_f32(x):
    """Rounds a Python float (double) to the nearest float32."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def f32_bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def ulp_distance(a, b):
    """Distance in float32 units in the last place (sign-aware)."""
    def ordered(x):
        bits = f32_bits(x)
        return bits if bits < 0x80000000 else 0x80000000 - bits
    return abs(ordered(a) - ordered(b))


def check_saxpy(args):
    x = floats(read(args.x, "saxpy"))
    y0 = floats(read(args.y0, "saxpy"))
    y = floats(read(args.y, "saxpy"))
    n = args.n
    a = to_f32(args.a)
    if not (len(x) >= n and len(y0) >= n and len(y) >= n):
        print("FAIL saxpy: buffers hold %d/%d/%d floats, expected at least %d"
              % (len(x), len(y0), len(y), n))
        return 1
    exact, worst, nbad, bad = 0, 0, 0, []
    for i in range(n):
        # fma.rn.f32: a*x is exact in double (24+24 bits); a*x + y0 rounded
        # to double and then to float32 can differ from the single rounding
        # of the fma by one unit in rare ties, hence the 1-ulp tolerance.
        ref = to_f32(a * x[i] + y0[i])
        d = ulp_distance(ref, y[i]) if y[i] == y[i] else 1 << 31
        if d == 0:
            exact += 1
        worst = max(worst, d)
        nbad += d > 1
        if d > 1 and len(bad) < 5:
            bad.append("y[%d]=%r expected %r (x=%r y0=%r)" % (i, y[i], ref, x[i], y0[i]))
    untouched = sum(1 for i in range(n, len(y)) if f32_bits(y[i]) != f32_bits(y0[i]))
    if bad or untouched:
        print("FAIL saxpy n=%d: %d elements off by more than 1 ulp, %d past n changed; %s"
              % (n, nbad, untouched, "; ".join(bad)))
        return 1
    print("PASS saxpy n=%d: %d exact, max %d ulp" % (n, exact, worst))
    return 0


def check_params(args):
    data = read(args.out, "params")
    if len(data) < 64:
        print("FAIL params: %s has %d bytes, expected 64" % (args.out, len(data)))
        return 1
    got = struct.unpack("<8Q", data[:64])
    expected = [
        args.u8, args.u16, args.u32, args.i32 & 0xFFFFFFFFFFFFFFFF, args.u64,
        args.i64 & 0xFFFFFFFFFFFFFFFF, f32_bits(args.f32),
        struct.unpack("<Q", struct.pack("<d", args.f64))[0],
    ]
    names = ["u8", "u16", "u32", "i32", "u64", "i64", "f32", "f64"]
    bad = ["%s: got 0x%x expected 0x%x" % (n, g, e)
           for n, g, e in zip(names, got, expected) if g != e]
    if bad:
        print("FAIL params: " + "; ".join(bad))
        return 1
    print("PASS params: all 8 scalar widths arrived intact")
    return 0


def dims(text, n):
    values = [int(v, 0) for v in text.split(",")]
    return values + [1] * (n - len(values))


def check_launch_info(args):
    gx, gy = dims(args.grid, 2)[:2]
    cx = args.cluster
    data = read(args.out, "launch-info")
    words = array.array("I")
    words.frombytes(data[: len(data) // 4 * 4])
    ctas = gx * gy
    if len(words) < 8 * ctas:
        print("FAIL launch-info: %d words, expected %d" % (len(words), 8 * ctas))
        return 1
    bad = []
    for cta in range(ctas):
        x, y = cta % gx, cta // gx
        rec = list(words[8 * cta: 8 * cta + 8])
        expected = [x, y, x % cx, cx, x // cx, args.smem,
                    0xFF if args.smem > 0 else 0, args.block]
        if rec != expected and len(bad) < 5:
            bad.append("cta (%d,%d): got %s expected %s" % (x, y, rec, expected))
    if bad:
        print("FAIL launch-info: " + "; ".join(bad))
        return 1
    print("PASS launch-info: %d CTAs, cluster %d, %d bytes dynamic smem"
          % (ctas, cx, args.smem))
    return 0


SWIZZLE_BITS = {"none": 0, "32B": 1, "64B": 2, "128B": 3}


def swizzle(address, bits):
    """TMA/UMMA swizzle of a shared-memory byte address: bits [4, 4+B) are
    XORed with bits [7, 7+B) (CUTLASS Swizzle<B,4,3>; B = 1, 2, 3 for the
    32-, 64- and 128-byte modes)."""
    if bits == 0:
        return address
    return address ^ (((address >> 7) & ((1 << bits) - 1)) << 4)


def check_tma(args):
    g = read(args.glob, "tma")
    out = read(args.out, "tma")
    d0, d1 = dims(args.dims, 2)[:2]
    b0, b1 = dims(args.box, 2)[:2]
    c0, c1 = [int(v, 0) for v in args.coords.split(",")]
    elem, stride = args.elem, args.stride
    bits = SWIZZLE_BITS[args.swizzle]
    row = b0 * elem
    nbytes = row * b1
    tile_bytes = 8192
    if len(out) < tile_bytes + 4:
        print("FAIL tma: %s has %d bytes, expected %d" % (args.out, len(out), tile_bytes + 16))
        return 1
    base = struct.unpack("<I", out[tile_bytes: tile_bytes + 4])[0]
    if base % 1024 != 0:
        # The swizzle patterns repeat every 1024 bytes of shared-memory
        # address; tma.cu aligns the tile to that.
        print("FAIL tma: the tile's shared-memory address 0x%x is not 1024-byte "
              "aligned (or the kernel did not write it)" % base)
        return 1
    if nbytes > tile_bytes:
        print("FAIL tma: a %dx%d box of %d-byte elements is larger than the "
              "kernel's %d-byte tile" % (b0, b1, elem, tile_bytes))
        return 1
    expected = bytearray(nbytes)
    for r in range(b1):
        for e in range(b0):
            gx, gy = c0 + e, c1 + r
            inside = 0 <= gx < d0 and 0 <= gy < d1
            for k in range(elem):
                linear = (r * b0 + e) * elem + k
                physical = swizzle(base + linear, bits) - base
                expected[physical] = g[gy * stride + gx * elem + k] if inside else 0
    got = out[:nbytes]
    bad = [i for i in range(nbytes) if got[i] != expected[i]]
    if bad:
        # Which layout does the tile match, if not the expected one?
        others = []
        for name, b in SWIZZLE_BITS.items():
            alt = bytearray(nbytes)
            for r in range(b1):
                for e in range(b0):
                    gx, gy = c0 + e, c1 + r
                    inside = 0 <= gx < d0 and 0 <= gy < d1
                    for k in range(elem):
                        linear = (r * b0 + e) * elem + k
                        alt[swizzle(base + linear, b) - base] = (
                            g[gy * stride + gx * elem + k] if inside else 0)
            if bytes(alt) == bytes(got):
                others.append(name)
        first = ", ".join("byte %d: got 0x%02x expected 0x%02x" % (i, got[i], expected[i])
                          for i in bad[:5])
        if others:
            verdict = "the tile is what swizzle %s gives" % " or ".join(others)
        else:
            verdict = "the tile matches no swizzle mode at these coordinates"
        print("FAIL tma swizzle=%s coords=%d,%d: %d of %d bytes differ (%s); tile at "
              "smem 0x%x; %s"
              % (args.swizzle, c0, c1, len(bad), nbytes, first, base, verdict))
        return 1
    oob = sum(1 for r in range(b1) for e in range(b0)
              if not (0 <= c0 + e < d0 and 0 <= c1 + r < d1))
    print("PASS tma swizzle=%s box=%dx%d coords=%d,%d: %d bytes match, %d "
          "out-of-bounds elements zero-filled, tile at smem 0x%x"
          % (args.swizzle, b0, b1, c0, c1, nbytes, oob, base))
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__)
    sub = p.add_subparsers(dest="kernel", required=True)
    s = sub.add_parser("saxpy")
    s.add_argument("--a", type=float, required=True)
    s.add_argument("--x", required=True)
    s.add_argument("--y0", required=True)
    s.add_argument("--y", required=True)
    s.add_argument("--n", type=int, required=True)
    s = sub.add_parser("params")
    s.add_argument("--out", required=True)
    for name in ["u8", "u16", "u32", "i32", "u64", "i64"]:
        s.add_argument("--" + name, type=lambda v: int(v, 0), required=True)
    s.add_argument("--f32", type=float, required=True)
    s.add_argument("--f64", type=float, required=True)
    s = sub.add_parser("launch-info")
    s.add_argument("--out", required=True)
    s.add_argument("--grid", required=True)
    s.add_argument("--block", type=int, required=True)
    s.add_argument("--cluster", type=int, required=True)
    s.add_argument("--smem", type=int, required=True)
    s = sub.add_parser("tma")
    s.add_argument("--global", dest="glob", required=True)
    s.add_argument("--out", required=True)
    s.add_argument("--dims", required=True)
    s.add_argument("--stride", type=int, required=True)
    s.add_argument("--elem", type=int, required=True)
    s.add_argument("--box", required=True)
    s.add_argument("--coords", required=True)
    s.add_argument("--swizzle", choices=sorted(SWIZZLE_BITS), required=True)
    args = p.parse_args()
    check = {"saxpy": check_saxpy, "params": check_params,
             "launch-info": check_launch_info, "tma": check_tma}[args.kernel]
    sys.exit(check(args))


if __name__ == "__main__":
    main()
