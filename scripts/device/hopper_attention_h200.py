"""The sm_90a attention kernels on the H200 (scripts/device/hopper_attention.sh
runs this; docs/Hopper.md).

For each kernel artifact (scripts/device/gen_hopper_attention.sh):
1. check(): random inputs (seeds 1 and 2), the GPU's outputs against
   float64 (PASS/FAIL: a pass condition);
2. the same inputs (seed 1) through the GPU and the emulator, outputs
   poisoned first: how many elements differ, by how many units in the
   last place (ordered: +0 and -0 are 0 apart) and the first four
   differences' bits (recorded; the emulator models ex2.approx and
   lg2.approx as sm_90 computes them: docs/Emulator.md).

Usage: python3 hopper_attention_h200.py ARTIFACT...   Exit status 0 when
every float64 check passed.
"""
import struct
import sys

import nvfp4

WIDTH = {"bf16": 2, "f16": 2, "f32": 4}


def ulp_diff(a, b, dtype):
    """(differing elements, elements, max ulp, the first four differences
    as "index gpu-bits/emulator-bits") between two outputs' bytes."""
    w = WIDTH.get(dtype)
    if not w:
        d = sum(x != y for x, y in zip(a, b))
        return d, len(a), None, []
    fmt = "<%d%s" % (len(a) // w, "H" if w == 2 else "I")
    x, y = struct.unpack(fmt, a), struct.unpack(fmt, b)
    sign = 1 << (8 * w - 1)

    def ordered(v):  # signed ordered units, so that +0 and -0 are 0 apart
        return -(v & (sign - 1)) if v & sign else v
    diffs = [(i, p, q) for i, (p, q) in enumerate(zip(x, y)) if p != q]
    worst = max((abs(ordered(p) - ordered(q)) for _, p, q in diffs),
                default=0)
    shown = ["%d %0*x/%0*x" % (i, 2 * w, p, 2 * w, q) for i, p, q in
             diffs[:4]]
    return len(diffs), len(x), worst, shown


def main(paths):
    cuda = nvfp4.Device("cuda")
    emu = nvfp4.Device("emulator")
    failures = 0
    exact = 0
    for path in paths:
        name = path.rsplit("/", 1)[-1][:-len(".nvfp4")]
        k = nvfp4.load(path)
        launches = [(l["kernel"], l["grid"], l["block"])
                    for l in k.metadata["launches"]]
        print("%s: %s" % (name, launches), flush=True)
        for seed in (1, 2):
            passed, text = k.check(cuda, seed=seed)
            failures += not passed
            print("%s %s float64 seed %d: %s" % (
                "PASS" if passed else "FAIL", name, seed,
                text.strip().splitlines()[-1]), flush=True)
        data = k.make_inputs(1)
        outs = {}
        for dev, tag in ((cuda, "gpu"), (emu, "emulator")):
            ins = [dev.array(d, i.shape, i.dtype)
                   for d, i in zip(data, k.inputs)]
            o = [dev.array(b"\xff" * x.nbytes, x.shape, x.dtype)
                 for x in k.outputs]
            k(*ins, out=tuple(o), device=dev)
            outs[tag] = [a.to_bytes() for a in o]
        same = True
        for o, g, e in zip(k.outputs, outs["gpu"], outs["emulator"]):
            d, n, u, shown = ulp_diff(g, e, o.dtype)
            same &= d == 0
            print("  %s gpu vs emulator %s: %d of %d elements differ%s%s" % (
                name, o.name, d, n, "" if u is None else
                ", at most %d ulp" % u,
                " (" + ", ".join(shown) + ")" if shown else ""), flush=True)
        exact += same
    print("%d kernels: %d float64 failures; %d of them bit for bit equal to "
          "the emulator" % (len(paths), failures, exact))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
