#!/usr/bin/env python3
"""fuzz-capi.py - a bounded, seeded fuzzer for the C API (libnvfp4.so).

The requirement it checks: bad input through the C API (malformed MLIR,
unsupported functions, bad options; tensors of the wrong count, dtype,
rank, shape or strides, null or wild pointers, short workspaces; out-of-
range indices) gets an error status with a message, never a crash, a hang
or a launch that faults the process.

Usage
-----
    python3 scripts/fuzz-capi.py [--seed N] [--iterations N]
                                 [--time-budget S] [--timeout S] [--out DIR]

    # what test/Fuzz/capi-fuzz-smoke.test runs:
    python3 scripts/fuzz-capi.py --seed 1 --iterations 150 --out /tmp/fz

It drives the C API through ctypes (the Python package's structures) in a
worker process, one job per line: when the worker dies (a crash) or does
not answer within --timeout seconds (a hang), the job is saved to --out as
a reproducer (crash-N.json, with the MLIR text or the tensor list) and a
fresh worker continues. Job i derives from random.Random("<seed>:<i>")
alone, so a seed and a count always give the same jobs. Kinds:

  compile  a seed function (a small GQA decode written here, the merge,
           DSV4 decode and attention examples, the grouped matmul's outs
           form) with 1-4 mutations (integers, element
           types, op names, deleted / duplicated / swapped lines, byte
           flips, truncation) and a random option string; a kernel that
           compiles is queried (inputs, outputs, metadata, PTX) and freed;
  launch   nvfp4_launch of the GQA kernel with a mutated tensor list:
           counts, dtypes, ranks (up to 2^20), shapes, strides, null and
           wild data pointers, workspace sizes, a stream; when every check
           passes the kernel runs on the emulator, each tensor in its own
           128 KiB of one buffer and the workspace in another (tensors
           that overlap each other or the workspace make the kernel race
           with itself, which the emulator reports; wild pointers fault
           inside the emulator: errors, not crashes);
  query    nvfp4_kernel_tensor with random (is_output, index), the dtype
           names, null handles;
  artifact nvfp4_kernel_load of the GQA kernel's artifact (made once by
           the worker at start) with 1-3 mutations: a JSON value replaced
           (numbers at the edges of their ranges, other types, inf/nan,
           another value of the document), a member or item deleted,
           duplicated or added, items swapped, bytes flipped, truncation.
           A kernel that loads must give valid metadata JSON and an
           artifact that loads again to itself (a fixed point); when the
           mutation left the harness and input_of alone, it is also run
           and checked on the emulator (an error is fine, a crash is not).

Only the Python 3 standard library is used. libnvfp4.so comes from
$NVFP4_LIBRARY (or next to python/nvfp4); python/ is put on sys.path.
"""

import argparse
import copy
import json
import os
import random
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

GQA = """func.func @gqa(%q: tensor<2x1x8x64xbf16>, %k: tensor<2x256x2x64xbf16>,
               %v: tensor<2x256x2x64xbf16>, %sink: tensor<8xf32>,
               %lens: tensor<2xi32>)
    -> (tensor<2x1x8x64xbf16>, tensor<2x8x1xf32>) {
  %o, %lse = nvfp4.attention %q, %k, %v sink(%sink) kv_lens(%lens)
      softmax_scale(0.125)
      : (tensor<2x1x8x64xbf16>, tensor<2x256x2x64xbf16>,
         tensor<2x256x2x64xbf16>, tensor<8xf32>, tensor<2xi32>)
      -> (tensor<2x1x8x64xbf16>, tensor<2x8x1xf32>)
  return %o, %lse : tensor<2x1x8x64xbf16>, tensor<2x8x1xf32>
}
"""
GQA_INPUTS = [(1, [2, 1, 8, 64]), (1, [2, 256, 2, 64]), (1, [2, 256, 2, 64]),
              (0, [8]), (3, [2])]
GQA_OUTPUTS = [(1, [2, 1, 8, 64]), (0, [2, 8, 1])]

# ---------------------------------------------------------------------------
# The worker: runs jobs from stdin, answers one line each.


def print_artifact():
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import nvfp4
    sys.stdout.write(nvfp4.compile(GQA).artifact.decode())


def worker():
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import ctypes
    import nvfp4
    lib = nvfp4._library()
    P = ctypes.c_void_p
    dev = nvfp4.Device("emulator")
    gqa = nvfp4.compile(GQA)
    # Tensor i of the inputs at slot i, of the outputs at slot 8 + i (a
    # mutated list holds at most 8): 128 KiB each, the GQA's largest.
    slot = 1 << 17
    buf = dev.empty((16 * slot,), "u8")
    workspace = dev.empty((1 << 20,), "u8")
    for line in sys.stdin:
        job = json.loads(line)
        kind = job["kind"]
        status = 0
        if kind == "compile":
            handle = P()
            text = job["text"].encode("utf-8", "surrogateescape")
            status = lib.nvfp4_compile(text, len(text),
                                       job["options"].encode(),
                                       ctypes.byref(handle))
            if status == 0:
                k = nvfp4.Kernel(handle)
                k.ptx
                del k
        elif kind == "launch":
            def tensors(specs, first):
                arr = (nvfp4._Tensor * max(len(specs), 1))()
                keep = []
                for i, s in enumerate(specs):
                    shape = (ctypes.c_int64 * max(len(s["shape"]), 1))(
                        *s["shape"])
                    strides = None
                    if s["strides"] is not None:
                        strides = (ctypes.c_int64 * max(len(s["strides"]),
                                                        1))(*s["strides"])
                    keep += [shape, strides]
                    data = {"buffer": buf.ptr + (first + i) * slot,
                            "null": None,
                            "wild": s.get("wild", 1 << 36)}[s["data"]]
                    arr[i] = nvfp4._Tensor(
                        data, s["dtype"], s["rank"],
                        ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64))
                        if s["shape_ptr"] else None,
                        ctypes.cast(strides, ctypes.POINTER(ctypes.c_int64))
                        if strides is not None else None)
                return arr, keep
            ins, k1 = tensors(job["inputs"], 0)
            outs, k2 = tensors(job["outputs"], 8)
            ws = {"none": None, "buffer": workspace.ptr}[job["workspace"]]
            status = lib.nvfp4_launch(
                gqa._handle if job["kernel"] else None, dev._handle,
                ins if job["inputs_ptr"] else None, job["num_inputs"],
                outs if job["outputs_ptr"] else None, job["num_outputs"],
                ws, job["workspace_bytes"],
                1 if job["stream"] else None)
        elif kind == "artifact":
            handle = P()
            data = job["text"].encode("utf-8", "surrogateescape")
            status = lib.nvfp4_kernel_load(data, len(data),
                                           ctypes.byref(handle))
            if status == 0:
                k = nvfp4.Kernel(handle)  # parses the metadata JSON
                again = P()
                if lib.nvfp4_kernel_load(k.artifact, len(k.artifact),
                                         ctypes.byref(again)) != 0:
                    print(json.dumps({"bad": "its artifact does not load: " +
                                      lib.nvfp4_last_error().decode()}),
                          flush=True)
                    continue
                k2 = nvfp4.Kernel(again)
                if k2.artifact != k.artifact:
                    print(json.dumps({"bad": "its artifact is not a fixed "
                                      "point"}), flush=True)
                    continue
                if job["run"]:
                    passed = ctypes.c_int(0)
                    lib.nvfp4_run_check(handle, dev._handle, 1,
                                        ctypes.byref(passed), None, 0)
                del k, k2
                status = 0
        elif kind == "query":
            info = nvfp4._TensorInfo()
            status = lib.nvfp4_kernel_tensor(
                gqa._handle if job["kernel"] else None, job["is_output"],
                job["index"], ctypes.byref(info) if job["info"] else None)
            lib.nvfp4_dtype_name.restype = ctypes.c_char_p
            lib.nvfp4_dtype_name(job["dtype"])
        message = lib.nvfp4_last_error().decode("utf-8", "replace")
        if status != 0 and not message:
            print(json.dumps({"bad": "status %d without a message" % status}),
                  flush=True)
            continue
        print(json.dumps({"status": status}), flush=True)


# ---------------------------------------------------------------------------
# Jobs.

TYPES = ["bf16", "f16", "f32", "i32", "i8", "ui8", "f64", "index",
         "f4E2M1FN", "f8E4M3FN", "i1", "vector<4xf32>", "complex<f32>"]
OPS = ["nvfp4.attention", "nvfp4.attention_merge", "nvfp4.quantize",
       "nvfp4.dequantize", "nvfp4.scaled_matmul", "nvfp4.grouped_scaled_matmul",
       "func.call", "arith.addf"]
OPTIONS = ["num-sms=148", "num-sms=0", "num-sms=-3", "num-sms=99999999999",
           "chip=sm_90a", "chip=sm_100a", "chip=", "chip=gfx90a",
           "features=+ptx80", "features=+ptx99", "features=ptx", "opt-level=7",
           "cta-group=2", "cta-group=5", "function=gqa", "function=",
           "function=merge", "bogus", "=1", "num-sms=abc", "min-piece-keys=0",
           "min-piece-keys=-1", "min-piece-keys=99999999999999",
           "poly-exp2=4", "poly-exp2=-1", "poly-exp2=9", "poly-exp2=x",
           "p-shared=1", "p-shared=0", "p-shared=-1", "p-shared=2",
           "p-shared=x"]


def seeds():
    out = [GQA]
    for path in ["examples/dsv4_decode.mlir", "test/Host/Inputs/merge.mlir",
                 "test/Host/Inputs/grouped_outs.mlir",
                 "examples/attention_op.mlir"]:
        with open(os.path.join(ROOT, path)) as f:
            out.append("".join(l for l in f if not l.lstrip().startswith("//")))
    return out


def mutate(text, rng, pool):
    for _ in range(rng.randint(1, 4)):
        lines = text.split("\n")
        m = rng.randrange(9)
        if m == 0:  # an integer
            nums = list(re.finditer(r"\d+", text))
            if nums:
                n = rng.choice(nums)
                new = str(rng.choice([0, 1, 2, 3, 7, 63, 64, 65, 127, 128,
                                      255, 256, 4096, 1 << 31, 1 << 40,
                                      int(n.group()) + 1,
                                      max(int(n.group()) - 1, 0)]))
                text = text[:n.start()] + new + text[n.end():]
        elif m == 1:  # an element type
            ts = list(re.finditer(r"bf16|f32|i32|f16", text))
            if ts:
                t = rng.choice(ts)
                text = text[:t.start()] + rng.choice(TYPES) + text[t.end():]
        elif m == 2:  # the op
            text = text.replace("nvfp4.attention_merge" if "merge" in text
                                else "nvfp4.attention", rng.choice(OPS), 1)
        elif m == 3 and lines:  # delete a line
            del lines[rng.randrange(len(lines))]
            text = "\n".join(lines)
        elif m == 4 and lines:  # duplicate a line
            i = rng.randrange(len(lines))
            lines.insert(i, lines[i])
            text = "\n".join(lines)
        elif m == 5 and len(lines) > 1:  # swap lines
            i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
            text = "\n".join(lines)
        elif m == 6 and text:  # byte flips
            b = bytearray(text.encode("utf-8", "surrogateescape"))
            for _ in range(rng.randint(1, 4)):
                i = rng.randrange(len(b))
                b[i] = rng.randrange(1, 256)
            text = b.decode("utf-8", "surrogateescape")
        elif m == 7:  # truncation
            text = text[:rng.randrange(len(text) + 1)]
        else:  # a line of another seed
            other = rng.choice(pool).split("\n")
            lines.insert(rng.randrange(len(lines) + 1), rng.choice(other))
            text = "\n".join(lines)
    return text


def tensor_list(rng, good):
    specs = []
    n = len(good) if rng.random() < 0.7 else rng.randrange(8)
    for i in range(n):
        dtype, shape = good[i] if i < len(good) else (rng.randrange(6), [4])
        shape = list(shape)
        s = {"dtype": dtype, "rank": len(shape), "shape": shape,
             "strides": None, "data": "buffer", "shape_ptr": True}
        if rng.random() < 0.25:
            m = rng.randrange(8)
            if m == 0:
                s["dtype"] = rng.choice([-1, 6, 99, 1 << 30, 0, 1, 2, 3, 4])
            elif m == 1:
                s["rank"] = rng.choice([0, -1, len(shape) + 1, 64, 65,
                                        1 << 20])
                s["shape"] = shape + [1] * min(max(s["rank"] - len(shape),
                                                   0), 70)
            elif m == 2 and shape:
                j = rng.randrange(len(shape))
                shape[j] = rng.choice([0, -1, shape[j] + 1, 1 << 40])
            elif m == 3:
                stride, st = 1, []
                for d in reversed(shape):
                    st.insert(0, stride)
                    stride *= d
                if st and rng.random() < 0.7:
                    st[rng.randrange(len(st))] += rng.choice([1, -1, 64])
                s["strides"] = st
            elif m == 4:
                s["data"] = "null"
            elif m == 5:
                s["data"] = "wild"
                s["wild"] = rng.choice([1, 1 << 36, (1 << 47) - 64, 4096])
            elif m == 6:
                s["shape_ptr"] = False
        specs.append(s)
    return specs


EDGE_VALUES = [0, 1, -1, 2, 3, 255, 256, 1 << 31, 1 << 32, (1 << 63) - 1,
               1 << 63, (1 << 64) - 1, 1 << 64, 1 << 70, 0.5, -0.0, 1e308,
               "inf", "-inf", "nan", "", "x", "f32", "u8", "none", "128B",
               "buffer", "scalar", "tensor_map", "q", "o", "b*sq", "k/0",
               None, True, False, [], {}, [1, 1, 1], [0, 1, 1], ["b"]]


def artifact_paths(doc, path=()):
    """Every (path, value) under `doc` but the PTX's text."""
    out = [(path, doc)]
    if isinstance(doc, dict):
        for k, v in doc.items():
            if k != "ptx":
                out += artifact_paths(v, path + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out += artifact_paths(v, path + (i,))
    return out


def mutate_artifact(text, rng):
    """(text, whether the launches and sizes are untouched)."""
    untouched = True
    for _ in range(rng.randint(1, 3)):
        m = rng.randrange(8)
        if m >= 6:  # bytes: flips or truncation
            b = bytearray(text.encode("utf-8", "surrogateescape"))
            if m == 6:
                for _ in range(rng.randint(1, 4)):
                    b[rng.randrange(len(b))] = rng.randrange(256)
            else:
                del b[rng.randrange(len(b) + 1):]
            untouched = False
            text = b.decode("utf-8", "surrogateescape")
            continue
        try:
            doc = json.loads(text)
        except ValueError:
            continue
        paths = artifact_paths(doc)
        path, value = rng.choice(paths[1:])
        parent = doc
        for p in path[:-1]:
            parent = parent[p]
        key = path[-1]
        if m <= 2:  # replace
            parent[key] = copy.deepcopy(rng.choice(paths)[1] if m == 2
                                        else rng.choice(EDGE_VALUES))
        elif m == 3:  # delete
            del parent[key]
        elif m == 4:  # duplicate / add
            if isinstance(parent, list):
                parent.insert(key, copy.deepcopy(value))
            else:
                parent[key + "_"] = copy.deepcopy(value)
        else:  # swap two items of a list
            if isinstance(parent, list) and len(parent) > 1:
                j = rng.randrange(len(parent))
                parent[key], parent[j] = parent[j], parent[key]
        # Only what the loader checks against the harness leaves a kernel
        # safe to run: a harness whose arguments pass the wrong buffer
        # (lse as kv_lens) or an input_of that names another input of the
        # same size describes another launch, which may read garbage
        # lengths and run for hours (docs/CAPI.md: artifacts are code).
        if path[:1] in (("harness",), ("input_of",)):
            untouched = False
        text = json.dumps(doc)
    return text, untouched


def job(seed, i, pool, artifact=None):
    rng = random.Random("%d:%d" % (seed, i))
    kinds, weights = ["compile", "launch", "query"], [5, 4, 1]
    if artifact:
        kinds, weights = kinds + ["artifact"], weights + [4]
    kind = rng.choices(kinds, weights)[0]
    if kind == "artifact":
        text, untouched = mutate_artifact(artifact, rng)
        return {"kind": kind, "text": text,
                "run": untouched and rng.random() < 0.3}
    if kind == "compile":
        text = rng.choice(pool)
        if rng.random() < 0.9:
            text = mutate(text, rng, pool)
        options = " ".join(rng.sample(OPTIONS, rng.randrange(3)))
        return {"kind": kind, "text": text, "options": options}
    if kind == "launch":
        ins = tensor_list(rng, GQA_INPUTS)
        outs = tensor_list(rng, GQA_OUTPUTS)
        return {"kind": kind, "inputs": ins, "outputs": outs,
                "num_inputs": len(ins) if rng.random() < 0.9 else
                rng.randrange(10),
                "num_outputs": len(outs) if rng.random() < 0.9 else
                rng.randrange(10),
                "inputs_ptr": rng.random() < 0.95,
                "outputs_ptr": rng.random() < 0.95,
                "kernel": rng.random() < 0.97,
                "workspace": rng.choice(["none", "none", "buffer"]),
                "workspace_bytes": rng.choice([0, 16, 1 << 20]),
                "stream": rng.random() < 0.05}
    return {"kind": kind, "kernel": rng.random() < 0.8,
            "is_output": rng.choice([0, 1, 2, -1]),
            "index": rng.choice([0, 1, 4, 5, 1 << 40]),
            "info": rng.random() < 0.9, "dtype": rng.randrange(-2, 9)}


# ---------------------------------------------------------------------------


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        return worker()
    if len(sys.argv) > 1 and sys.argv[1] == "--print-artifact":
        return print_artifact()
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--iterations", type=int, default=150)
    ap.add_argument("--time-budget", type=float, default=0,
                    help="stop after this many seconds (0: no limit)")
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--out", default="fuzz-capi-out")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    pool = seeds()
    artifact = subprocess.run([sys.executable, os.path.abspath(__file__),
                               "--print-artifact"], check=True,
                              stdout=subprocess.PIPE, text=True).stdout
    start = time.time()
    proc = None
    counts = {"compile": 0, "launch": 0, "query": 0, "artifact": 0}
    accepted = dict(counts)
    crashes = hangs = bad = 0

    def spawn():
        return subprocess.Popen([sys.executable, os.path.abspath(__file__),
                                 "--worker"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, text=True,
                                bufsize=1)

    def save(kind, n, j):
        path = os.path.join(a.out, "%s-%03d.json" % (kind, n))
        with open(path, "w") as f:
            json.dump(j, f, indent=1)
        print("fuzz-capi: %s, saved %s" % (kind, path))

    import select
    i = 0
    while True:
        if a.iterations and i >= a.iterations:
            break
        if a.time_budget and time.time() - start > a.time_budget:
            break
        j = job(a.seed, i, pool, artifact)
        i += 1
        counts[j["kind"]] += 1
        if proc is None or proc.poll() is not None:
            proc = spawn()
        proc.stdin.write(json.dumps(j) + "\n")
        proc.stdin.flush()
        ready, _, _ = select.select([proc.stdout], [], [], a.timeout)
        line = proc.stdout.readline() if ready else None
        if not ready:
            hangs += 1
            proc.kill()
            proc.wait()
            proc = None
            save("hang", hangs, j)
        elif not line:
            crashes += 1
            proc.wait()
            proc = None
            save("crash", crashes, j)
        elif "bad" in json.loads(line):
            bad += 1
            save("nomessage", bad, j)
        elif json.loads(line)["status"] == 0:
            accepted[j["kind"]] += 1
    if proc is not None:
        proc.stdin.close()
        proc.wait()
    print("fuzz-capi: accepted %d of %d compiles, %d of %d launches, %d of "
          "%d queries, %d of %d artifacts" % (
              accepted["compile"], counts["compile"], accepted["launch"],
              counts["launch"], accepted["query"], counts["query"],
              accepted["artifact"], counts["artifact"]))
    print("fuzz-capi: %d inputs, %d crashes, %d hangs, %d errors without a "
          "message" % (i, crashes, hangs, bad))
    return 1 if crashes or hangs or bad else 0


if __name__ == "__main__":
    sys.exit(main())
