#!/usr/bin/env python3
"""Packs the GPU's lg2.approx.ftz.f32 mantissa table for the emulator.

scripts/device/lg2_table_probe.sh writes lg2_e0.bin on the GPU machine: for
m = 0 .. 2^23 - 1, the hardware's lg2(1 + m 2^-23) minus the float nearest
log2 (float(std::log2(double(x)))), int32 in signed ordered ulps. Near
m = 0 the results are tiny and the differences large (up to 6e6 ulps; all
beyond int8 lie below m = 2^17). This keeps entries m < 2^17 as int32
(lg2_lo.bin, 512 KiB) and the others as int8 (lg2_hi.bin, 8 MiB, entry m
at byte m; the first 2^17 bytes unused), and archives the two as
lib/Emulator/data/lg2_sm90.tar.xz (unpacked by CMake at configure time;
lib/Emulator/Ex2Tables.cpp embeds them; docs/Emulator.md, "lg2.approx as
measured").

  scripts/pack-lg2-table.py DIR [OUT.tar.xz]
"""
import os
import struct
import sys
from sfu_table_archive import write_archive

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
N = 1 << 23
LO = 1 << 17  # entries below this are int32, the others int8


def pack(raw):
    if len(raw) != 4 * N:
        sys.exit("pack-lg2-table: expected 2^23 int32, got %d bytes" % len(raw))
    diffs = struct.unpack("<%di" % N, raw)
    lo = struct.pack("<%di" % LO, *diffs[:LO])
    hi = bytearray(N)
    for m in range(LO, N):
        d = diffs[m]
        if not -128 <= d <= 127:
            sys.exit("pack-lg2-table: entry %d differs by %d ulps (outside "
                     "int8)" % (m, d))
        hi[m] = d & 0xff
    return lo, bytes(hi)


def main(argv):
    src = argv[0]
    dst = argv[1] if len(argv) > 1 else os.path.join(
        ROOT, "lib", "Emulator", "data", "lg2_sm90.tar.xz")
    with open(os.path.join(src, "lg2_e0.bin"), "rb") as f:
        lo, hi = pack(f.read())
    write_archive(dst, [("lg2_lo.bin", lo), ("lg2_hi.bin", hi)],
                  "pack-lg2-table")


if __name__ == "__main__":
    main(sys.argv[1:])
