"""Host-lowered DeepSeek-V4 decode called from Python (test/Python/
host.test, docs/Host.md): the example lowered whole and linked into a
shared library with libnvfp4_host_runtime, called through nvfp4.host on
fresh random inputs, its results checked against float64 by the C API
(Kernel.check_outputs of the same function). Standard library only.

Usage: test_host.py LIBDSV4.so LIBNVFP4_HOST_RUNTIME.so EXAMPLE.mlir [SEED]
"""
import array
import random
import sys

import nvfp4
from nvfp4.host import HostLibrary


def bf16_bytes(n, rng):
    # Random bf16 values in (-2, 2): sign, exponent 112..127, mantissa.
    words = array.array("H", rng.randbytes(2 * n))
    words = array.array("H", [(w & 0x807F) | (((w >> 7) & 15) + 112) << 7
                              for w in words])
    return words.tobytes()


def main(libpath, runtime, example, seed=1):
    rng = random.Random(seed)
    host = HostLibrary(libpath, runtime=runtime)
    q = bf16_bytes(4 * 128 * 512, rng)
    kv = bf16_bytes(4 * 4096 * 512, rng)
    sink = array.array("f", [rng.uniform(-1, 1) for _ in range(128)]).tobytes()
    lens = array.array("i", [4096, 3000, 1, 129]).tobytes()
    args = [(host.upload(q), (4, 1, 128, 512)),
            (host.upload(kv), (4, 4096, 1, 512)),
            (host.upload(sink), (128,)), (host.upload(lens), (4,))]
    (o_alloc, o_ptr, o_shape), (l_alloc, l_ptr, l_shape) = host.call(
        "dsv4_decode", args, result_ranks=[4, 3])
    print("backend", host.backend, "results", o_shape, l_shape)
    o = host.download(o_ptr, 2 * 4 * 128 * 512)
    lse = host.download(l_ptr, 4 * 4 * 128)
    for p in [o_alloc, l_alloc] + [a for a, _ in args]:
        host.free(p)
    k = nvfp4.compile_file(example)
    passed, report = k.check_outputs([q, kv, sink, lens], [o, lse])
    print(report, end="")
    try:
        k.check_outputs([q, kv, sink], [o, lse])
    except nvfp4.Error as e:
        print("error:", e)
    try:
        k.check_outputs([q, kv[:-2], sink, lens], [o, lse])
    except nvfp4.Error as e:
        print("error:", e)
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3],
                  int(sys.argv[4]) if len(sys.argv) > 4 else 1))
