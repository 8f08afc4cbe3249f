#!/usr/bin/env python3
"""fuzz-opt.py - a bounded, seeded mutation fuzzer for nvfp4-opt.

The requirement it checks: bad input to nvfp4-opt (malformed IR, illegal
attributes, impossible shapes, bad pipeline options) gets a diagnostic and a
non-zero exit, never a crash or a hang.

Usage
-----
    python3 scripts/fuzz-opt.py [--seed N] [--iterations N] [--time-budget S]
                                [--out DIR] [--opt PATH] [--jobs N]
                                [--timeout S] [--src DIR] [--seeds-dir DIR]
                                [--modes parse,lower,cubin,host]
                                [--option-rate R] [--bytecode-rate R]
                                [--no-reduce] [--reduce-time S] [-v]

    # 60 mutants with seed 1 (what test/Fuzz/fuzz-smoke.test runs):
    python3 scripts/fuzz-opt.py --seed 1 --iterations 60 --out /tmp/fz

    # a real campaign: 10 minutes, 8 parallel runs, a copy of the binary
    cp build/bin/nvfp4-opt /tmp/fuzz/nvfp4-opt
    python3 scripts/fuzz-opt.py --opt /tmp/fuzz/nvfp4-opt --seed 7 \
        --iterations 0 --time-budget 600 --jobs 8 --out /tmp/fuzz/crashes

    # replay one saved reproducer (the command is in its .txt file)
    nvfp4-opt /tmp/fuzz/crashes/crash-001.mlir --sm100-plan-tmem

Only the Python 3 standard library is used. nvfp4-opt is taken from PATH
unless --opt names it.

Seeds: examples/*.mlir and test/**/*.mlir under --src (default: the
repository this script lives in), split at `// -----` lines, with RUN/CHECK
and other comment lines removed; each seed that parses is also added in its
generic form (`--mlir-print-op-generic`, which exposes inherent attributes
as `<{...}>` properties) and after `--sm100-lower-warp-roles`. --seeds-dir
adds the .mlir files of another directory. test/Fuzz/Inputs/targeted.mlir
holds extra seeds for corners the examples miss (generic forms, graph
regions, every ld/st shape, TMEM A operands, m64 and cta_group 2).

Mutants: mutant i is derived from random.Random("<seed>:<i>") alone, so a
given --seed and --iterations always produce the same inputs. Each applies
1-4 mutations: integers (to 0, negative, huge, off-by-one, powers of two),
sm100 enum keywords (ld/st shapes, swizzles, majors, TMEM layouts, MMA kinds,
scale types, wait/fence kinds, address spaces), element types (bf16, f32,
f4E2M1FN, i8, index, tf32, vector<...>, ...), deleting / duplicating /
swapping lines and tokens, dropping `key = value` attribute entries,
truncation, swapping / replacing SSA operands, dropping closing braces,
inserting block arguments or a graph region holding a self-referencing
tmem_slice, splicing lines from other seeds, byte flips.

Commands, per mutant, each with --timeout seconds (default 10):
    parse:  nvfp4-opt M -o T/out.mlir
    lower:  nvfp4-opt M --sm100-plan-tmem --sm100-lower-warp-roles
                        --convert-sm100-to-nvvm -o T/out.mlir
    host:   nvfp4-opt M --nvfp4-to-llvm   (not by default: --modes)
    cubin:  nvfp4-opt M --nvfp4-sm100-to-cubin="ptx-file=T/k.ptx
                        cubin-file=T/k.cubin [random option changes]"
                        -o T/out.mlir
(T is a fresh temporary directory.) lower and cubin are skipped when parse
already failed with a plain diagnostic (they would fail the same way).
A fraction --option-rate (default 0.2) of the cubin runs also changes
pipeline options (chip, features, opt-level, stop-after, format, unwritable
ptx-file paths, ...).
With --bytecode-rate R (default 0: off), a fraction R of the mutants are
instead MLIR bytecode (`--emit-bytecode` of a seed) with 1-4 random bytes
changed, run in parse mode only and saved unreduced as .mlirbc; crashes
there are in the upstream bytecode reader.

Classification: CRASH when the exit status is a signal (negative or >= 128)
or the output holds "PLEASE submit a bug report", "Stack dump:",
"Assertion", "LLVM ERROR", "UNREACHABLE" or "report_fatal_error"; HANG when a
run passes --timeout (the process then gets SIGABRT so that LLVM prints
where it was). Crashes are deduplicated by their message (LLVM ERROR) or
first symbolized stack frame plus the first nvfp4 frame; each new one is
reduced (line-based delta debugging plus removal of whole brace-balanced
blocks, at most --reduce-time seconds, with the cheapest command that still
shows the same signature; a hang is reduced with a 3 s timeout) and saved under --out as
crash-NNN.mlir (minimal), crash-NNN.orig.mlir (the mutant) and
crash-NNN.txt (command, signature, output head); hangs as hang-NNN.*.
--out/summary.txt lists them all.

Output: one line per new crash/hang, then
    fuzz: N inputs, C crashes, H hangs
(N mutants run, C / H distinct crash / hang signatures). Exit status 1 if
any crash or hang was found, 0 otherwise, 2 on a usage error.
"""

import argparse
import concurrent.futures
import glob
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

# ---------------------------------------------------------------------------
# Seeds
# ---------------------------------------------------------------------------

SPLIT_RE = re.compile(r"^\s*//\s*-----\s*$", re.M)
COMMENT_RE = re.compile(r"^\s*//")


def clean_chunk(text):
    """Drops RUN lines and comment-only lines (CHECKs, prose)."""
    lines = []
    for line in text.splitlines():
        if "RUN:" in line or COMMENT_RE.match(line):
            continue
        lines.append(line.rstrip())
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return "\n".join(lines) + "\n" if lines else ""


def find_seed_files(src, extra_dirs):
    files = sorted(glob.glob(os.path.join(src, "examples", "*.mlir")))
    files += sorted(glob.glob(os.path.join(src, "test", "**", "*.mlir"),
                              recursive=True))
    for d in extra_dirs:
        files += sorted(glob.glob(os.path.join(d, "**", "*.mlir"),
                                  recursive=True))
    return files


def load_seeds(files):
    seeds = []
    for path in files:
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
        except OSError:
            continue
        for i, chunk in enumerate(SPLIT_RE.split(text)):
            chunk = clean_chunk(chunk)
            if chunk.strip():
                seeds.append(("%s#%d" % (path, i), chunk))
    return seeds


# ---------------------------------------------------------------------------
# Mutations
# ---------------------------------------------------------------------------

INT_SPECIALS = [0, -1, 1, 2, 3, 7, 8, 15, 16, 24, 31, 32, 33, 63, 64, 96,
                127, 128, 129, 255, 256, 257, 511, 512, 513, 1023, 1024, 4096,
                65535, 65536, 262144, 2147483647, 2147483648, -2147483648,
                4294967295, 4294967296, 9223372036854775807,
                -9223372036854775808, 18446744073709551616,
                99999999999999999999]

ENUM_GROUPS = [
    ["shape_16x64b", "shape_16x128b", "shape_16x256b", "shape_32x32b",
     "shape_16x32bx2"],
    ["none", "sw128_base32", "sw128", "sw64", "sw32"],
    ["acc", "acc_m64", "operand_a", "scales"],
    ["f16", "tf32", "f8f6f4", "i8", "mxf8f6f4", "mxf4", "mxf4nvf4"],
    ["ue4m3", "ue8m0"],
    ["load", "store"],
    ["before_thread_sync", "after_thread_sync"],
    ["true", "false"],
    ["workgroup", "global", "private"],
    ["pack", "unpack"],
    ["cta_group", "multicast", "k_slice", "regs", "warps"],
    ["a_major", "b_major"],
    ["negate_a", "negate_b"],
    ["gpu.func", "func.func", "llvm.func"],
    ["kernel", ""],
]
# `k` / `mn` only where they are values (major = k), not the k = 64 key.
MAJOR_RE = re.compile(r"(major\s*=\s*)(k|mn)\b")

ELEM_TYPES = ["bf16", "f16", "f32", "f64", "tf32", "f8E4M3FN", "f8E5M2",
              "f6E2M3FN", "f6E3M2FN", "f4E2M1FN", "i1", "i8", "si8", "ui8",
              "i16", "i32", "si32", "ui32", "i64", "i0", "index", "f128",
              "vector<2xf32>", "vector<4xi32>", "vector<[4]xf32>",
              "complex<f32>", "none", "tensor<4xf32>", "memref<1xi32, 3>",
              "!llvm.ptr", "!sm100.tmem<128x32xf32, acc>"]
ELEM_RE = re.compile(
    r"(?<![A-Za-z0-9_.!#%@])(bf16|f16|f32|f64|tf32|f8E4M3FN|f8E5M2|f6E2M3FN|"
    r"f6E3M2FN|f4E2M1FN|si8|ui8|i1|i8|i16|i32|i64|index)(?![A-Za-z0-9_])")
# Also after a shape's `x`: 128x256xf32.
ELEM_AFTER_X_RE = re.compile(
    r"(?<=\dx)(bf16|f16|f32|tf32|f8E4M3FN|f8E5M2|f6E2M3FN|f6E3M2FN|f4E2M1FN|"
    r"si8|ui8|i1|i8|i16|i32|i64|index)(?![A-Za-z0-9_])")

NUM_RE = re.compile(r"-?\d+")
SSA_RE = re.compile(r"%[A-Za-z0-9_$.]+(?:#\d+)?")
ATTR_ENTRY_RE = re.compile(
    r"(,\s*)?\b[a-z_][a-z_0-9.]*\s*=\s*"
    r"(?:\"[^\"]*\"|#[\w.]+<[^<>]*(?:<[^<>]*>[^<>]*)*>|[^,{}<>()]+?)"
    r"(?=\s*[,}>)])")

BLOCK_ARG_SNIPPETS = [
    "^bb0(%fz0: i32):\n%fz1 = arith.addi %fz0, %fz0 : i32",
    "^bb0(%fz0: index):\n%fz1 = arith.addi %fz0, %fz0 : index",
    "^bb0(%fz0: i32):",
    "^bb1:",
]

GRAPH_SNIPPETS = [
    "builtin.module {\n"
    "  %fg0 = sm100.tmem_slice %fg0[0] : !sm100.tmem<128x32xf32, acc> -> "
    "!sm100.tmem<128x32xf32, acc>\n"
    "  sm100.tmem_dealloc %fg0, 32 : !sm100.tmem<128x32xf32, acc>\n"
    "}",
]


def number_spans(text):
    """Integer literals that are values or shape dimensions (not parts of
    identifiers such as %c32, i32, sm_100a or shape_32x32b)."""
    spans = []
    for m in NUM_RE.finditer(text):
        s, e = m.span()
        if text[s] == "-" and s > 0 and text[s - 1] not in " (,[=<:\t\n{":
            s += 1  # a minus that is an operator or part of a name
        prev = text[s - 1] if s > 0 else ""
        nxt = text[e] if e < len(text) else ""
        if prev == "x":
            before = text[s - 2] if s >= 2 else ""
            if not (before.isdigit() or before in "?]"):
                continue
        elif prev.isalnum() or prev in "_%#@$.!^":
            continue
        if nxt.isalpha() and nxt != "x" or nxt in "_.":
            continue
        spans.append((s, e))
    return spans


def mutate_int(rng, text):
    spans = number_spans(text)
    if not spans:
        return None
    s, e = rng.choice(spans)
    try:
        n = int(text[s:e])
    except ValueError:
        n = 0
    choice = rng.random()
    if choice < 0.35:
        v = rng.choice(INT_SPECIALS)
    elif choice < 0.55:
        v = n + rng.choice([-1, 1])
    elif choice < 0.7:
        v = 1 << rng.randint(0, 20)
    elif choice < 0.8:
        v = -n if n else -1
    elif choice < 0.9:
        v = n * rng.choice([2, 4, 8, 1024])
    else:
        v = n // rng.choice([2, 3, 4]) if n else 1
    return text[:s] + str(v) + text[e:]


def mutate_enum(rng, text):
    words = {}
    for group in ENUM_GROUPS:
        for w in group:
            if w:
                words.setdefault(w, []).append(group)
    pattern = re.compile(r"(?<![A-Za-z0-9_%#@.])(" + "|".join(
        sorted((re.escape(w) for w in words), key=len, reverse=True)) +
        r")(?![A-Za-z0-9_])")
    matches = list(pattern.finditer(text))
    majors = list(MAJOR_RE.finditer(text))
    if majors and (not matches or rng.random() < 0.15):
        m = rng.choice(majors)
        new = "mn" if m.group(2) == "k" else "k"
        if rng.random() < 0.1:
            new = rng.choice(["kmn", "K", "m", "\"k\"", "0"])
        return text[:m.start(2)] + new + text[m.end(2):]
    if not matches:
        return None
    m = rng.choice(matches)
    group = rng.choice(words[m.group(1)])
    if rng.random() < 0.08:
        new = rng.choice(["bogus", "shape_8x8b", "sw256", "acc_m32",
                          "\"" + m.group(1) + "\"", "mxf6", "ue5m3"])
    else:
        new = rng.choice([w for w in group if w != m.group(1)] or group)
    return text[:m.start(1)] + new + text[m.end(1):]


def mutate_elem(rng, text):
    matches = list(ELEM_RE.finditer(text)) + list(
        ELEM_AFTER_X_RE.finditer(text))
    if not matches:
        return None
    m = rng.choice(matches)
    return text[:m.start(1)] + rng.choice(ELEM_TYPES) + text[m.end(1):]


def mutate_lines(rng, text):
    lines = text.split("\n")
    if len(lines) < 2:
        return None
    op = rng.randrange(4)
    i = rng.randrange(len(lines))
    if op == 0:  # delete one line or a few
        n = 1 if rng.random() < 0.7 else rng.randint(2, 6)
        del lines[i:i + n]
    elif op == 1:  # duplicate
        lines.insert(i, lines[i])
    elif op == 2:  # swap two lines
        j = rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    else:  # move a line elsewhere
        line = lines.pop(i)
        lines.insert(rng.randrange(len(lines) + 1), line)
    return "\n".join(lines)


TOKEN_RE = re.compile(r"\"[^\"\n]*\"|[%#!^@]?[\w.$]+|[^\s\w]")


def mutate_token(rng, text):
    toks = list(TOKEN_RE.finditer(text))
    if not toks:
        return None
    m = rng.choice(toks)
    r = rng.random()
    if r < 0.5:  # delete
        return text[:m.start()] + text[m.end():]
    if r < 0.8:  # duplicate
        return text[:m.end()] + " " + m.group(0) + text[m.end():]
    other = rng.choice(toks).group(0)  # replace with another token
    return text[:m.start()] + other + text[m.end():]


def mutate_attr_entry(rng, text):
    """Drops a `key = value` entry of an attribute dictionary, a property
    dictionary or a parameter list."""
    matches = [m for m in ATTR_ENTRY_RE.finditer(text)]
    if not matches:
        return None
    m = rng.choice(matches)
    if rng.random() < 0.25:
        # Replace the value by a value of another kind.
        key_end = text.index("=", m.start()) + 1
        value = rng.choice([" \"x\"", " 1.5 : f32", " unit", " [1, 2]",
                            " #sm100.idesc<kind = f16, a = bf16, b = bf16, "
                            "d = f32, m = 128, n = 256>",
                            " #sm100.smem_layout<major = k, swizzle = sw128, "
                            "element = bf16, mn = 128, k = 64>",
                            " 3 : i64", " -1 : i32", " 99999999999 : i64",
                            " 1 : index", " true", " @sym", " 0 : i1"])
        return text[:key_end] + value + text[m.end():]
    return text[:m.start()] + text[m.end():]


def mutate_truncate(rng, text):
    if len(text) < 2:
        return None
    return text[:rng.randrange(1, len(text))]


def mutate_ssa(rng, text):
    uses = list(SSA_RE.finditer(text))
    if len(uses) < 2:
        return None
    names = sorted({m.group(0) for m in uses})
    if rng.random() < 0.5:
        # Swap two operands on one line.
        lines = text.split("\n")
        cands = [i for i, l in enumerate(lines) if len(SSA_RE.findall(l)) >= 2]
        if not cands:
            return None
        i = rng.choice(cands)
        ms = list(SSA_RE.finditer(lines[i]))
        a, b = rng.sample(ms, 2)
        if a.start() > b.start():
            a, b = b, a
        l = lines[i]
        lines[i] = (l[:a.start()] + b.group(0) + l[a.end():b.start()] +
                    a.group(0) + l[b.end():])
        return "\n".join(lines)
    m = rng.choice(uses)
    return text[:m.start()] + rng.choice(names) + text[m.end():]


def mutate_brace(rng, text):
    idx = [i for i, c in enumerate(text) if c == "}"]
    if not idx:
        return None
    i = rng.choice(idx)
    if rng.random() < 0.2:
        return text[:i] + "}}" + text[i + 1:]
    return text[:i] + text[i + 1:]


def mutate_block_arg(rng, text):
    lines = text.split("\n")
    cands = [i for i, l in enumerate(lines) if l.rstrip().endswith("{")]
    if not cands:
        return None
    i = rng.choice(cands)
    lines.insert(i + 1, rng.choice(BLOCK_ARG_SNIPPETS))
    return "\n".join(lines)


def mutate_graph(rng, text):
    lines = text.split("\n")
    cands = [i for i, l in enumerate(lines) if l.rstrip().endswith("{")]
    if not cands:
        return None
    lines.insert(rng.choice(cands) + 1, rng.choice(GRAPH_SNIPPETS))
    return "\n".join(lines)


def mutate_splice(rng, text, seeds):
    other = rng.choice(seeds)[1].split("\n")
    lines = text.split("\n")
    n = 1 if rng.random() < 0.7 else rng.randint(2, 5)
    j = rng.randrange(len(other))
    lines[rng.randrange(len(lines) + 1):0] = other[j:j + n]
    return "\n".join(lines)


def mutate_bytes(rng, text):
    if not text:
        return None
    b = bytearray(text.encode("utf-8", errors="replace"))
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(b))
        r = rng.random()
        if r < 0.5:
            b[i] = rng.choice(b"<>{}()[],:=%#!^@\"x0-9 \n" +
                              bytes([rng.randrange(256)]))
        elif r < 0.75:
            del b[i]
        else:
            b[i:i] = bytes([rng.randrange(32, 127)])
        if not b:
            break
    return b.decode("utf-8", errors="replace")


MUTATORS = [
    (mutate_int, 18), (mutate_enum, 12), (mutate_elem, 10),
    (mutate_lines, 10), (mutate_token, 8), (mutate_attr_entry, 8),
    (mutate_truncate, 3), (mutate_ssa, 7), (mutate_brace, 4),
    (mutate_block_arg, 3), (mutate_graph, 2), (mutate_splice, 6),
    (mutate_bytes, 5),
]


def make_mutant(rng, seeds):
    name, text = rng.choice(seeds)
    applied = []
    r = rng.random()
    count = 1 if r < 0.6 else 2 if r < 0.85 else rng.randint(3, 4)
    for _ in range(count):
        funcs = [f for f, _ in MUTATORS]
        weights = [w for _, w in MUTATORS]
        for _attempt in range(5):
            f = rng.choices(funcs, weights)[0]
            if f is mutate_splice:
                new = f(rng, text, seeds)
            else:
                new = f(rng, text)
            if new is not None and new != text:
                text = new
                applied.append(f.__name__[len("mutate_"):])
                break
    return name, applied, text


_BYTECODE = {}
_BYTECODE_LOCK = threading.Lock()


def seed_bytecode(opt, name, text, timeout):
    """The bytecode of a seed (cached); None if it does not parse."""
    with _BYTECODE_LOCK:
        if name in _BYTECODE:
            return _BYTECODE[name]
    tmp = tempfile.mkdtemp(prefix="nvfp4-fuzz-bc-")
    try:
        path = os.path.join(tmp, "s.mlir")
        with open(path, "w") as f:
            f.write(text)
        try:
            p = subprocess.run([opt, path, "--emit-bytecode"],
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, timeout=timeout)
            data = p.stdout if p.returncode == 0 and p.stdout else None
        except subprocess.TimeoutExpired:
            data = None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    with _BYTECODE_LOCK:
        _BYTECODE[name] = data
    return data


def make_bytecode_mutant(rng, seeds, opt, timeout):
    for _ in range(5):
        name, text = rng.choice(seeds)
        data = seed_bytecode(opt, name, text, timeout)
        if data:
            break
    else:
        return None
    b = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        b[rng.randrange(len(b))] = rng.randrange(256)
    return name, ["bytecode"], bytes(b)


# ---------------------------------------------------------------------------
# Pipeline-option mutations (cubin mode)
# ---------------------------------------------------------------------------

OPTION_CHOICES = {
    "chip": ["sm_100a", "sm_90a", "sm_100", "sm_80", "", "bogus", "sm_",
             "sm_100f", "sm_103a", "sm_120a"],
    "features": ["+ptx88", "+ptx86", "+ptx60", "", "bogus", "+ptx99",
                 "-ptx88"],
    "opt-level": ["0", "1", "3", "4", "99", "-1", "x"],
    "stop-after": ["plan", "roles", "sm100", "nvvm", "binary", "bogus", ""],
    "format": ["bin", "isa", "fatbin", "offloading", "llvm", "bogus", ""],
    "ptx-file": ["/nonexistent-dir/k.ptx", "{tmp}", "/proc/k.ptx", ""],
    "cubin-file": ["/nonexistent-dir/k.cubin", "{tmp}", ""],
    "ptxas-opts": ["--bogus", "-v", "-O0"],
}


def cubin_options(rng, fuzz_options):
    opts = {"ptx-file": "{tmp}/k.ptx", "cubin-file": "{tmp}/k.cubin"}
    if fuzz_options:
        for _ in range(rng.randint(1, 2)):
            key = rng.choice(sorted(OPTION_CHOICES))
            opts[key] = rng.choice(OPTION_CHOICES[key])
    return opts


def cubin_flag(opts, tmp):
    parts = []
    for k, v in opts.items():
        v = v.replace("{tmp}", tmp)
        parts.append("%s=%s" % (k, v) if v else "%s=" % k)
    return "--nvfp4-sm100-to-cubin=" + " ".join(parts)


LOWER_FLAGS = ["--sm100-plan-tmem", "--sm100-lower-warp-roles",
               "--convert-sm100-to-nvvm"]
MODES = ["parse", "lower", "cubin", "host"]


def mode_args(mode, opts, tmp):
    if mode == "parse":
        return []
    if mode == "lower":
        return list(LOWER_FLAGS)
    if mode == "host":
        # The whole function: bufferization, nvfp4-lower-host, the device
        # pipeline (PTX, no ptxas) and the host lowering to LLVM.
        return ["--nvfp4-to-llvm"]
    return [cubin_flag(opts, tmp)]


# ---------------------------------------------------------------------------
# Running and classifying
# ---------------------------------------------------------------------------

CRASH_RE = re.compile(
    r"PLEASE submit a bug report|^Stack dump:|Assertion\b.*failed|"
    r"Assertion `|^LLVM ERROR|UNREACHABLE|report_fatal_error", re.M)
FRAME_RE = re.compile(r"^\s*#\d+ 0x[0-9a-fA-F]+ (.*)$", re.M)
SKIP_FRAME = ("llvm::sys::PrintStackTrace", "llvm::sys::RunSignalHandlers",
              "SignalHandler", "__restore_rt", "raise", "abort", "gsignal",
              "__pthread_kill", "llvm::sys::RunInterruptHandlers",
              "llvm::report_fatal_error", "llvm::llvm_unreachable_internal")


class Result:
    __slots__ = ("rc", "out", "kind", "sig", "secs")

    def __init__(self, rc, out, kind, sig, secs):
        self.rc, self.out, self.kind, self.sig, self.secs = (rc, out, kind,
                                                             sig, secs)


OURS_RE = re.compile(r"nvfp4|sm100|PlanTmem|LowerWarpRoles|UMMADescriptors|"
                     r"TensorMemory|SerializeGpuModules|Pipelines\.cpp", re.I)


def simplify_frame(name):
    """Drops the module or source location, clone suffixes, template
    arguments and parameter lists."""
    name = re.sub(r"\s*\((?:/|\[)[^()]*\)\s*$", "", name).strip()
    name = re.sub(r"\s+\S+:\d+(?::\d+)?$", "", name)  # file:line:col
    name = re.sub(r"\s*\(\.[\w.]+\)", "", name)  # (.constprop.0)
    name = name.replace("(anonymous namespace)", "{anon}")
    prev = None
    while prev != name:
        prev = name
        name = re.sub(r"<[^<>]*>", "<>", name)
    prev = None
    while prev != name:
        prev = name
        name = re.sub(r"\([^()]*\)", "()", name)
    name = re.sub(r"\s+const$", "", name)
    return name[:160]


def frames(out):
    """[(simplified name, is ours)] of the symbolized frames."""
    names = []
    for rest in FRAME_RE.findall(out):
        rest = rest.strip()
        if re.match(r"^\((?:/|\[)[^()]*\)$", rest):
            continue  # unsymbolized: (/path/lib.so+0x1234)
        name = simplify_frame(rest)
        if (not name or name in ("main", "_start") or
                any(s in name for s in SKIP_FRAME)):
            continue
        # 2: ours by name, 1: ours by source file or binary, 0: upstream.
        mine = 2 if OURS_RE.search(name) else (
            1 if OURS_RE.search(rest) else 0)
        names.append((name, mine))
    return names


def signature(kind, out):
    m = re.search(r"^LLVM ERROR: (.*)$", out, re.M)
    if m:
        msg = re.sub(r"\d+", "N", m.group(1).strip())[:160]
        return "%s: LLVM ERROR: %s" % (kind, msg)
    m = re.search(r"^(.*Assertion .*failed.*)$", out, re.M)
    if m:
        return "%s: %s" % (kind, m.group(1).strip()[:200])
    m = re.search(r"^(.*UNREACHABLE executed.*)$", out, re.M)
    if m:
        return "%s: %s" % (kind, m.group(1).strip()[:200])
    names = frames(out)
    if not names:
        return "%s: (no stack)" % kind
    ours = next((n for n, mine in names if mine == 2), None) or next(
        (n for n, mine in names if mine == 1), None)
    if kind == "HANG":
        # Where a hang is interrupted varies; name the loop by our frame, or
        # by the driver it runs in.
        driver = next((n for n, _ in names if re.search(
            r"apply\w*Conversion|applyPatterns|runOnOperation|verify", n)),
            None)
        return "HANG: %s" % (ours or driver or names[0][0])
    sig = "%s: %s" % (kind, names[0][0])
    if ours and ours != names[0][0]:
        sig += " <- " + ours
    return sig


def run_opt(opt, path, args, timeout):
    start = time.time()
    proc = subprocess.Popen([opt, path] + args, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    hung = False
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        hung = True
        # SIGABRT makes LLVM's signal handler print where it was.
        try:
            proc.send_signal(signal.SIGABRT)
            out, _ = proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, _ = proc.communicate()
    secs = time.time() - start
    out = out.decode("utf-8", errors="replace")
    rc = proc.returncode
    if hung:
        return Result(rc, out, "HANG", signature("HANG", out), secs)
    if rc < 0 or rc >= 128 or CRASH_RE.search(out):
        return Result(rc, out, "CRASH", signature("CRASH", out), secs)
    return Result(rc, out, "OK" if rc == 0 else "ERROR", None, secs)


def run_mutant(opt, text, modes, opts, timeout):
    """Runs the modes in order; returns [(mode, Result)] for those run.
    `text` is MLIR source (str) or bytecode (bytes)."""
    tmp = tempfile.mkdtemp(prefix="nvfp4-fuzz-")
    try:
        if isinstance(text, bytes):
            path = os.path.join(tmp, "input.mlirbc")
            with open(path, "wb") as f:
                f.write(text)
        else:
            path = os.path.join(tmp, "input.mlir")
            with open(path, "w", encoding="utf-8", errors="replace") as f:
                f.write(text)
        results = []
        for mode in modes:
            args = mode_args(mode, opts, tmp) + ["-o",
                                                 os.path.join(tmp, "out.mlir")]
            r = run_opt(opt, path, args, timeout)
            results.append((mode, r))
            if r.kind == "ERROR" and mode in ("parse", "lower"):
                break  # later modes start with the same parse / passes
        return results
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# ---------------------------------------------------------------------------
# Reduction
# ---------------------------------------------------------------------------


def block_ranges(lines):
    """[start, end) line ranges of brace-balanced blocks spanning several
    lines (an op with its regions, a region), largest first."""
    ranges, stack = set(), []
    for i, line in enumerate(lines):
        for ch in re.sub(r'"[^"]*"', "", line):
            if ch == "{":
                stack.append(i)
            elif ch == "}" and stack:
                start = stack.pop()
                if start != i:
                    ranges.add((start, i + 1))
    return sorted(ranges, key=lambda r: (r[0] - r[1], r[0]))


def reduce_lines(opt, text, mode, opts, sig, timeout, budget):
    """Line-based delta debugging: keeps removing chunks of lines while the
    same signature reproduces, for at most `budget` seconds."""
    deadline = time.time() + budget
    tmp = tempfile.mkdtemp(prefix="nvfp4-fuzz-red-")
    runs = [0]

    def still_fails(lines):
        if time.time() > deadline:
            return False
        runs[0] += 1
        path = os.path.join(tmp, "input.mlir")
        with open(path, "w", encoding="utf-8", errors="replace") as f:
            f.write("\n".join(lines) + "\n")
        args = mode_args(mode, opts, tmp) + ["-o", os.path.join(tmp, "o")]
        r = run_opt(opt, path, args, timeout)
        return r.sig == sig

    try:
        lines = [l for l in text.split("\n")]
        # Blank lines first, cheaply.
        nonblank = [l for l in lines if l.strip()]
        if nonblank != lines and still_fails(nonblank):
            lines = nonblank
        n = 2
        while len(lines) >= 2 and time.time() < deadline:
            chunk = max(1, len(lines) // n)
            removed = False
            i = 0
            while i < len(lines) and time.time() < deadline:
                cand = lines[:i] + lines[i + chunk:]
                if cand and still_fails(cand):
                    lines = cand
                    removed = True
                else:
                    i += chunk
            if not removed:
                if chunk == 1:
                    # Whole regions / ops with regions, largest first.
                    for a, b in block_ranges(lines):
                        if time.time() > deadline:
                            break
                        cand = lines[:a] + lines[b:]
                        if cand and still_fails(cand):
                            lines = cand
                            removed = True
                            break
                    if not removed:
                        break
                    n = 2
                    continue
                n = min(len(lines), n * 2)
        return "\n".join(lines) + "\n", runs[0]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# ---------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------


def build_seed_pool(opt, raw, timeout, jobs, verbose):
    """The raw seeds plus, for each that parses, its generic form and its
    form after sm100-lower-warp-roles."""
    tmp = tempfile.mkdtemp(prefix="nvfp4-fuzz-seed-")

    def derive(k):
        name, text = raw[k]
        path = os.path.join(tmp, "s%d.mlir" % k)
        with open(path, "w") as f:
            f.write(text)
        derived = []
        variants = [("generic", ["--mlir-print-op-generic"])]
        if "sm100.warp_roles" in text or "sm100.elect_one" in text:
            variants.append(("roles", ["--sm100-lower-warp-roles"]))
        for tag, args in variants:
            try:
                p = subprocess.run([opt, path] + args,
                                   stdin=subprocess.DEVNULL,
                                   stdout=subprocess.PIPE,
                                   stderr=subprocess.DEVNULL, timeout=timeout)
            except subprocess.TimeoutExpired:
                continue
            if p.returncode == 0 and p.stdout.strip():
                derived.append(("%s[%s]" % (name, tag),
                                p.stdout.decode("utf-8", "replace")))
        return derived

    pool = list(raw)
    try:
        with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
            for derived in ex.map(derive, range(len(raw))):
                pool.extend(derived)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if verbose:
        print("fuzz: %d seeds (%d raw)" % (len(pool), len(raw)), flush=True)
    return pool


def command_line(mode, opts, path):
    args = mode_args(mode, opts, "$TMP")
    quoted = []
    for a in args:
        quoted.append('"%s"' % a if " " in a or "$" in a else a)
    return " ".join(["nvfp4-opt", path] + quoted)


def main(argv=None):
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(
        description="Seeded mutation fuzzer for nvfp4-opt (see the header "
        "of this file).")
    ap.add_argument("--seed", type=int, default=0,
                    help="random seed (default 0)")
    ap.add_argument("--iterations", type=int, default=200,
                    help="mutants to run; 0 = until --time-budget "
                    "(default 200)")
    ap.add_argument("--time-budget", type=float, default=0,
                    help="stop starting mutants after this many seconds "
                    "(default: no limit)")
    ap.add_argument("--out", default="/tmp/fuzz/crashes",
                    help="directory for reproducers (default "
                    "/tmp/fuzz/crashes)")
    ap.add_argument("--opt", default=None,
                    help="nvfp4-opt binary (default: from PATH)")
    ap.add_argument("--jobs", type=int,
                    default=max(1, min(8, os.cpu_count() or 1)),
                    help="parallel runs (default: CPUs, at most 8)")
    ap.add_argument("--timeout", type=float, default=10,
                    help="seconds per nvfp4-opt run (default 10)")
    ap.add_argument("--src", default=os.path.dirname(here),
                    help="repository root holding examples/ and test/")
    ap.add_argument("--seeds-dir", action="append", default=[],
                    help="another directory of .mlir seeds (repeatable)")
    ap.add_argument("--modes", default="parse,lower,cubin",
                    help="comma-separated subset of parse,lower,cubin,host")
    ap.add_argument("--option-rate", type=float, default=0.2,
                    help="fraction of cubin runs with changed pipeline "
                    "options (default 0.2)")
    ap.add_argument("--bytecode-rate", type=float, default=0.0,
                    help="fraction of mutants that are corrupted MLIR "
                    "bytecode (default 0: none)")
    ap.add_argument("--no-reduce", action="store_true",
                    help="save crashing mutants without reducing them")
    ap.add_argument("--reduce-time", type=float, default=60,
                    help="seconds of reduction per new crash (default 60)")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)

    opt = args.opt or shutil.which("nvfp4-opt")
    if not opt or not os.access(opt, os.X_OK):
        print("fuzz-opt.py: nvfp4-opt not found (put it on PATH or pass "
              "--opt)", file=sys.stderr)
        return 2
    modes = [m for m in args.modes.split(",") if m]
    if not modes or any(m not in MODES for m in modes):
        print("fuzz-opt.py: --modes takes parse, lower, cubin and host",
              file=sys.stderr)
        return 2
    modes = [m for m in MODES if m in modes]
    if args.iterations <= 0 and args.time_budget <= 0:
        print("fuzz-opt.py: give --iterations or --time-budget",
              file=sys.stderr)
        return 2

    raw = load_seeds(find_seed_files(args.src, args.seeds_dir))
    if not raw:
        print("fuzz-opt.py: no seeds under %s" % args.src, file=sys.stderr)
        return 2
    seeds = build_seed_pool(opt, raw, args.timeout, args.jobs, args.verbose)
    os.makedirs(args.out, exist_ok=True)

    start = time.time()
    found = {}  # signature -> record
    counts = {"inputs": 0, "crash_inputs": 0, "hang_inputs": 0}
    lock = threading.Lock()

    def job(i):
        rng = random.Random("%d:%d" % (args.seed, i))
        if args.bytecode_rate > 0 and rng.random() < args.bytecode_rate:
            mutant = make_bytecode_mutant(rng, seeds, opt, args.timeout)
            if mutant:
                name, applied, data = mutant
                return i, name, applied, data, {}, run_mutant(
                    opt, data, ["parse"], {}, args.timeout)
        name, applied, text = make_mutant(rng, seeds)
        opts = cubin_options(rng, rng.random() < args.option_rate)
        return i, name, applied, text, opts, run_mutant(
            opt, text, modes, opts, args.timeout)

    def handle(i, name, applied, text, opts, results):
        counts["inputs"] += 1
        bad = [(m, r) for m, r in results if r.kind in ("CRASH", "HANG")]
        if not bad:
            return
        mode, r = bad[0]
        counts["crash_inputs" if r.kind == "CRASH" else "hang_inputs"] += 1
        if r.sig in found:
            found[r.sig]["hits"] += 1
            return
        kind = r.kind.lower()
        index = 1 + sum(1 for v in found.values() if v["kind"] == r.kind)
        base = os.path.join(args.out, "%s-%03d" % (kind, index))
        rec = {"kind": r.kind, "hits": 1, "base": base, "mode": mode}
        found[r.sig] = rec
        if isinstance(text, bytes):
            with open(base + ".mlirbc", "wb") as f:
                f.write(text)
            cmd = "nvfp4-opt %s.mlirbc" % base
            with open(base + ".txt", "w") as f:
                f.write("signature: %s\ncommand:   %s\n" % (r.sig, cmd))
                f.write("seed:      %s (bytecode), iteration %d\n\n" %
                        (name, i))
                f.write("\n".join(r.out.splitlines()[:60]) + "\n")
            rec["cmd"] = cmd
            print("%s %s\n  %s" % (r.kind, r.sig, cmd), flush=True)
            return
        with open(base + ".orig.mlir", "w") as f:
            f.write(text)
        # Reduce with the cheapest mode that still shows the same signature.
        red_mode, reduced, runs = mode, text, 0
        red_timeout = min(args.timeout, 3.0) if r.kind == "HANG" else \
            args.timeout
        if not args.no_reduce:
            for m in modes[:modes.index(mode)]:
                tmp_results = run_mutant(opt, text, [m], opts, red_timeout)
                if tmp_results and tmp_results[-1][1].sig == r.sig:
                    red_mode = m
                    break
            reduced, runs = reduce_lines(opt, text, red_mode, opts, r.sig,
                                         red_timeout, args.reduce_time)
        with open(base + ".mlir", "w") as f:
            f.write(reduced)
        # Output of the reduced input, for the stack head.
        final = run_mutant(opt, reduced, [red_mode], opts, red_timeout)
        out = final[-1][1].out if final else r.out
        cmd = command_line(red_mode, opts, base + ".mlir")
        with open(base + ".txt", "w") as f:
            f.write("signature: %s\n" % r.sig)
            f.write("command:   %s\n" % cmd)
            f.write("           ($TMP: any writable directory)\n")
            f.write("seed:      %s, iteration %d, mutations %s\n" %
                    (name, i, ",".join(applied)))
            f.write("found in:  %s mode, exit status %s\n" % (mode, r.rc))
            f.write("reduced:   %d lines -> %d lines in %d runs\n\n" %
                    (text.count("\n") + 1, reduced.count("\n"), runs))
            f.write("\n".join(out.splitlines()[:60]) + "\n")
        rec["cmd"] = cmd
        print("%s %s\n  %s\n  reproducer: %s.mlir" %
              (r.kind, r.sig, cmd, base), flush=True)

    pending = set()
    next_i = 0
    limit = args.iterations if args.iterations > 0 else None

    def budget_left():
        return args.time_budget <= 0 or time.time() - start < args.time_budget

    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        while True:
            while (len(pending) < 2 * args.jobs and
                   (limit is None or next_i < limit) and budget_left()):
                pending.add(pool.submit(job, next_i))
                next_i += 1
            if not pending:
                break
            done, pending = concurrent.futures.wait(
                pending, return_when=concurrent.futures.FIRST_COMPLETED)
            for fut in sorted(done, key=lambda f: f.result()[0]):
                with lock:
                    handle(*fut.result())
            if args.verbose and counts["inputs"] % 500 == 0:
                print("fuzz: ... %d inputs, %.0f s" %
                      (counts["inputs"], time.time() - start), flush=True)

    crashes = sum(1 for v in found.values() if v["kind"] == "CRASH")
    hangs = sum(1 for v in found.values() if v["kind"] == "HANG")
    with open(os.path.join(args.out, "summary.txt"), "w") as f:
        f.write("seed %d, %d inputs, %.0f s\n" %
                (args.seed, counts["inputs"], time.time() - start))
        for sig, rec in sorted(found.items(), key=lambda kv: kv[1]["base"]):
            f.write("%s.mlir  hits=%d  %s\n    %s\n" %
                    (os.path.basename(rec["base"]), rec["hits"], sig,
                     rec.get("cmd", "")))
    if found:
        print("fuzz: crashing inputs %d, hanging inputs %d; reproducers in %s"
              % (counts["crash_inputs"], counts["hang_inputs"], args.out))
    print("fuzz: %d inputs, %d crashes, %d hangs" %
          (counts["inputs"], crashes, hangs), flush=True)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
