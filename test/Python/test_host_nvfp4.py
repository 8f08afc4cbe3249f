"""NVFP4 data through host-lowered code (test/Host/nvfp4.test,
docs/Host.md).

test/Host/Inputs/nvfp4_chain.mlir lowered whole: @quantize returns
f4E2M1FN data, @dequantize takes them, @roundtrip passes them from one
kernel to the next and returns them. Each call's results are checked
against float64 by the C API's kernels for @quantize and @dequantize
(Kernel.check_outputs), on full-mantissa random activations in [-4, 4] and
the engines' encode scale 448 * 6 / amax (the C API's own quantize inputs
reach the edges of the formats, where the scale factors saturate and
dequantize gives NaN by design); @roundtrip's packed
data must equal @quantize's byte for byte, and its bf16 output is checked
as dequantize of them; @quantize_into copies the data into the caller's
buffer. f4E2M1FN memrefs take the logical shape and point at
packed bytes (two e2m1 values a byte).

Usage: test_host_nvfp4.py LIB.so LIBNVFP4_HOST_RUNTIME.so CHAIN.mlir [SEED]
"""
import random
import struct
import sys

import nvfp4
from nvfp4.host import HostLibrary

M, K = 128, 256


def main(libpath, runtime, source, seed=1):
    kq = nvfp4.compile_file(source, function="quantize")
    kd = nvfp4.compile_file(source, function="dequantize")
    host = HostLibrary(libpath, runtime=runtime)
    rng = random.Random(seed)
    xs = [rng.uniform(-4, 4) for _ in range(M * K)]
    bits = []
    for v in xs:
        (u,) = struct.unpack("<I", struct.pack("<f", v))
        bits.append((u + 0x7FFF + ((u >> 16) & 1)) >> 16)
    x = struct.pack("<%dH" % len(bits), *bits)
    amax = max(abs(struct.unpack("<f", struct.pack("<I", b << 16))[0])
               for b in bits)
    gs = struct.pack("<f", 448.0 * 6.0 / amax)
    px, pgs = host.upload(x), host.upload(gs)
    failures = 0

    def check(kernel, what, inputs, outputs):
        nonlocal failures
        passed, report = kernel.check_outputs(inputs, outputs)
        failures += not passed
        print(what, report.strip().splitlines()[-1])

    def download(results, infos):
        out = [host.download(aligned, info.nbytes)
               for (_, aligned, _), info in zip(results, infos)]
        for allocated, _, _ in results:
            host.free(allocated)
        return out

    # f4E2M1FN result: the descriptor has the logical shape.
    res = host.call("quantize", [(px, (M, K)), (pgs, ())], result_ranks=[2, 2])
    print("quantize results", [shape for _, _, shape in res])
    d, s = download(res, kq.outputs)
    check(kq, "quantize:", [x, gs], [d, s])

    # f4E2M1FN argument: packed bytes behind the logical shape.
    pd, ps = host.upload(d), host.upload(s)
    res = host.call("dequantize", [(pd, (M, K)), (ps, (M, K // 16)),
                                   (pgs, ())], result_ranks=[2])
    (y,) = download(res, kd.outputs)
    check(kd, "dequantize:", [d, s, gs], [y])

    # Chained: the packed data from one kernel to the next, and returned.
    res = host.call("roundtrip", [(px, (M, K)), (pgs, ())],
                    result_ranks=[2, 2, 2])
    d2, s2, y2 = download(res, kq.outputs + kd.outputs)
    same = d2 == d and s2 == s
    failures += not same
    print("roundtrip: data and scale factors equal quantize's:", same)
    check(kd, "roundtrip dequantize:", [d2, s2, gs], [y2])
    # Copied into the caller's buffer: 16384 bytes (a byte a value would
    # write past its end, which the emulator refuses).
    into = host.upload(b"\xff" * len(d))
    res = host.call("quantize_into", [(px, (M, K)), (pgs, ()), (into, (M, K))],
                    result_ranks=[2, 2])
    d3, s3 = download(res, kq.outputs)
    d4 = host.download(into, len(d))
    same = d3 == d and d4 == d and s3 == s
    failures += not same
    print("quantize_into: the caller's buffer and the results equal "
          "quantize's:", same)
    for p in (px, pgs, pd, ps, into):
        host.free(p)
    print("PASS" if not failures else "FAIL")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3],
                  int(sys.argv[4]) if len(sys.argv) > 4 else 1))
