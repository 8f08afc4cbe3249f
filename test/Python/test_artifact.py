"""Kernel artifacts (test/Python/artifact.test, docs/CAPI.md).

`save OUT_DIR` (libnvfp4.so): compiles the GQA decode of test_nvfp4.py and
the NVFP4 quantize, saves each, and writes the GQA kernel's outputs on the
emulator for inputs from seed 3.

`load OUT_DIR` (libnvfp4_runtime.so, which has no compiler and no MLIR):
loads both, checks each against float64 on the emulator, launches the GQA
kernel on the same inputs and compares its outputs with the compiling
library's byte for byte, re-saves (the artifact is a fixed point), then
feeds the loader broken artifacts: each is refused with a message naming
the member.
"""

import json
import os
import sys

import nvfp4

from test_nvfp4 import GQA, NVFP4_FUNCTIONS


def run(k, dev, seed):
    """Launches `k` on the inputs make_inputs gives for `seed`, outputs
    poisoned; returns the outputs' bytes."""
    ins = [dev.array(b, i.shape, i.dtype)
           for b, i in zip(k.make_inputs(seed), k.inputs)]
    outs = [dev.array(b"\xff" * o.nbytes, o.shape, o.dtype)
            for o in k.outputs]
    k(*ins, out=tuple(outs), device=dev)
    return b"".join(o.to_bytes() for o in outs)


def save(out):
    k = nvfp4.compile(GQA, num_sms=148)
    k.save(os.path.join(out, "gqa.nvfp4"))
    nvfp4.compile(NVFP4_FUNCTIONS[0]).save(os.path.join(out, "quantize.nvfp4"))
    with open(os.path.join(out, "gqa.out"), "wb") as f:
        f.write(run(k, nvfp4.Device("emulator"), 3))
    print("saved", len(k.artifact), "bytes")
    return 0


def broken(good):
    """(name, artifact bytes) pairs, each broken in one way."""
    doc = json.loads(good)

    def edit(f):
        d = json.loads(good)
        f(d)
        return json.dumps(d).encode()

    def setitem(path, value):
        def f(d):
            for p in path[:-1]:
                d = d[p]
            d[path[-1]] = value
        return f

    def cut_in_string(text, key):
        cut = text.index(key) + len(key) + 64
        while b"\\" in text[cut - 6:cut]:
            cut += 1
        return cut

    return [
        ("empty", b""),
        # Cut inside the PTX string, not inside an escape.
        ("truncated", good[:cut_in_string(good, b'"ptx": "')]),
        ("not json", b"\x00\xffnvfp4"),
        ("another format", b'{"format": "onnx", "version": 1}'),
        ("newer version", edit(setitem(["version"], 2))),
        ("unknown member", edit(setitem(["colour"], "blue"))),
        ("shape not a string",
         edit(setitem(["harness", "tensors", 0, "shape", 0], 4))),
        ("unknown arg kind",
         edit(setitem(["harness", "args", 0, "kind"], "texture"))),
        ("zero grid",
         edit(setitem(["harness", "launch", "grid"], [0, 1, 1]))),
        ("unknown harness member",
         edit(setitem(["harness", "tensors", 1, "colour"], 1))),
        ("input index out of range", edit(setitem(["input_of", "q"], 9))),
        ("input of another size",
         edit(setitem(["input_of", "kv_lens"], 0))),
        ("wrong function shape",
         edit(setitem(["inputs", 0, "shape"], [2, 1, 8, 32]))),
        ("output that is an input",
         edit(setitem(["outputs", 0, "name"], "q"))),
        ("huge size", edit(setitem(["harness", "sizes", "skv"], 1 << 40))),
        ("size beyond 64 bits",
         edit(setitem(["harness", "sizes", "b"], 1 << 70))),
        ("bad base64", edit(setitem(["cubin"], "abc"))),
        ("deep nesting", b"[" * 1000 + b"]" * 1000),
        ("no ptx", edit(lambda d: d.pop("ptx"))),
    ]


def load(out):
    try:
        nvfp4.compile(GQA)
    except nvfp4.Error as e:
        print("compile:", str(e))
    dev = nvfp4.Device("emulator")
    path = os.path.join(out, "gqa.nvfp4")
    k = nvfp4.load(path)
    print("inputs", k.inputs)
    print("outputs", k.outputs)
    with open(path, "rb") as f:
        good = f.read()
    print("fixed point:", k.artifact == good,
          nvfp4.load(k.artifact).artifact == good)
    passed, report = k.check(dev, seed=4)
    print("gqa check:", report.strip().splitlines()[-1])
    with open(os.path.join(out, "gqa.out"), "rb") as f:
        print("same outputs as the compiling library:",
              run(k, dev, 3) == f.read())
    kq = nvfp4.load(os.path.join(out, "quantize.nvfp4"))
    passed_q, report_q = kq.check(dev, seed=5)
    print("quantize check:", report_q.strip().splitlines()[-1])
    for name, data in broken(good):
        try:
            nvfp4.load(data)
        except nvfp4.Error as e:
            print("%s: %s" % (name, str(e).splitlines()[0]))
        else:
            print("%s: FAIL: loaded" % name)
            return 1
    try:
        nvfp4.load(os.path.join(out, "missing.nvfp4"))
    except nvfp4.Error as e:
        print("missing file:", str(e).split(":")[0])
    return 0 if passed and passed_q else 1


if __name__ == "__main__":
    sys.exit({"save": save, "load": load}[sys.argv[1]](sys.argv[2]))
