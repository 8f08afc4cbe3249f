#!/usr/bin/env python3
"""Packs the H200's ex2.approx.ftz.f32 tables for the emulator.

scripts/device/ex2_lg2_probe.sh writes ex2_grid_diff.bin and
ex2_neg_grid_diff.bin on the GPU machine: for m = 0 .. 2^23 - 1, one int8
each, the hardware's ex2(m 2^-23) (and ex2(-m 2^-23)) minus the float
nearest exp2 (float(std::exp2(double(x)))) in ulps. This keeps each
difference in 2 bits (d + 2, four to a byte, entry m in bits 2 (m % 4) of
byte m / 4), as ex2_pos.bin and ex2_neg.bin, and archives the two as
lib/Emulator/data/ex2_h200.tar.xz (unpacked by CMake at configure time;
lib/Emulator/Ex2Tables.cpp embeds them; docs/Emulator.md, "ex2.approx as
the H200").

  scripts/pack-ex2-tables.py DIR [OUT.tar.xz]
"""
import os
import sys
from sfu_table_archive import write_archive

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def pack(raw):
    if len(raw) != 1 << 23:
        sys.exit("pack-ex2-tables: expected 2^23 bytes, got %d" % len(raw))
    out = bytearray(len(raw) // 4)
    for m, b in enumerate(raw):
        d = b - 256 if b > 127 else b
        if not -2 <= d <= 1:
            sys.exit("pack-ex2-tables: entry %d differs by %d ulp (outside "
                     "[-2, 1])" % (m, d))
        out[m >> 2] |= (d + 2) << (2 * (m & 3))
    return bytes(out)


def main(argv):
    src = argv[0]
    dst = argv[1] if len(argv) > 1 else os.path.join(
        ROOT, "lib", "Emulator", "data", "ex2_h200.tar.xz")
    members = []
    for name, probe in (("ex2_pos.bin", "ex2_grid_diff.bin"),
                        ("ex2_neg.bin", "ex2_neg_grid_diff.bin")):
        with open(os.path.join(src, probe), "rb") as f:
            members.append((name, pack(f.read())))
    write_archive(dst, members, "pack-ex2-tables")


if __name__ == "__main__":
    main(sys.argv[1:])
