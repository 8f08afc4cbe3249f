#!/usr/bin/env python3
"""nvfp4.quantize / nvfp4.dequantize kernels (issue 14), per shape.

For each DeepSeek-V4-sized tensor, one emulator run of the kernel(s) the
nvfp4-lower-quantize pass builds (nvfp4-run checks every byte against the
reference quantizer, so a figure is reported only for a PASS) gives:

  read / minimum   = global bytes read (ld, all launches) / the input's
                     bytes (quantize: M K x 2 for bf16; dequantize: the
                     M K / 2 data bytes, the M K / 16 scale factors and
                     the 4-byte scale);
  write / minimum  = global bytes written (st) / the output's bytes
                     (quantize: the M K / 2 data bytes and the scale
                     factors with their layout's zero padding, plus the
                     4-byte scale when computed; dequantize: M K x 2);
  CTAs / 148       = the grid's CTAs per B200 SM (waves of an elementwise
                     kernel; >= 1 fills every SM).

The quantize with a computed scale reads its input once when one cluster
of up to 16 CTAs holds the tensor in registers (the decode activations
here: one kernel, a cluster of 7), and twice otherwise (an amax kernel,
then the quantize kernel: read / minimum ~2 by construction; the scale
depends on every element, docs/NVFP4.md "Kernels").

  bench/quantize.py [--build DIR]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (name, M, K): DeepSeek-V4 hidden size 7168, expert width 2048.
SHAPES = [("decode activations", 64, 7168),
          ("prefill activations", 2048, 7168),
          ("expert weight (down)", 7168, 2048)]


def ceil_to(x, m):
    return (x + m - 1) // m * m


def quantize_mlir(m, k, computed):
    sf = "tensor<%dx%dxf8E4M3FN>" % (ceil_to(m, 128), ceil_to(k // 16, 4))
    d = "tensor<%dx%dxf4E2M1FN>" % (m, k)
    x = "tensor<%dx%dxbf16>" % (m, k)
    if computed:
        return ("func.func @f(%%x: %s) {\n  %%q, %%sf, %%gs = nvfp4.quantize %%x"
                " : (%s) -> (%s, %s, tensor<f32>)\n  return\n}\n"
                % (x, x, d, sf))
    return ("func.func @f(%%x: %s, %%gs: tensor<f32>) {\n  %%q, %%sf = "
            "nvfp4.quantize %%x scale(%%gs) : (%s, tensor<f32>) -> (%s, %s)\n"
            "  return\n}\n" % (x, x, d, sf))


def dequantize_mlir(m, k):
    sf = "tensor<%dx%dxf8E4M3FN>" % (ceil_to(m, 128), ceil_to(k // 16, 4))
    d = "tensor<%dx%dxf4E2M1FN>" % (m, k)
    y = "tensor<%dx%dxbf16>" % (m, k)
    return ("func.func @f(%%q: %s, %%sf: %s, %%gs: tensor<f32>) {\n  %%y = "
            "nvfp4.dequantize %%q, %%sf scale(%%gs) : (%s, %s, tensor<f32>) -> "
            "%s\n  return\n}\n" % (d, sf, d, sf, y))


def run(build, text):
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        f.write(text)
        path = f.name
    try:
        out = subprocess.run(
            [os.path.join(build, "bin", "nvfp4-run"), "--backend=emulator",
             path], capture_output=True, text=True)
    finally:
        os.unlink(path)
    text = out.stdout + out.stderr
    if out.returncode != 0 or not re.search(r"^PASS", text, re.M):
        sys.exit("nvfp4-run failed:\n" + text)
    loads = sum(int(x) for x in re.findall(r"(\d+) bytes loaded by ld", text))
    stores = sum(int(x) for x in re.findall(r"(\d+) bytes stored by st", text))
    grids = [int(x) for x in re.findall(r"grid=\((\d+),1,1\)", text)]
    return loads, stores, grids


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    args = ap.parse_args()
    print("%-30s %-18s %7s %7s %10s" % ("shape", "op", "read", "write",
                                        "CTAs/148"))
    for name, m, k in SHAPES:
        sf_bytes = ceil_to(m, 128) * ceil_to(k // 16, 4)
        for op, text, min_read, min_write in [
                ("quantize", quantize_mlir(m, k, False), m * k * 2 + 4,
                 m * k // 2 + sf_bytes),
                ("quantize (amax)", quantize_mlir(m, k, True), m * k * 2,
                 m * k // 2 + sf_bytes + 4),
                ("dequantize", dequantize_mlir(m, k),
                 m * k // 2 + m * k // 16 + 4, m * k * 2)]:
            loads, stores, grids = run(args.build, text)
            print("%-30s %-18s %7.3f %7.3f %10.2f" % (
                "%s %dx%d" % (name, m, k), op, loads / min_read,
                stores / min_write, grids[-1] / 148.0))


if __name__ == "__main__":
    main()
