#!/usr/bin/env python3
"""The bug classes the seed project lost weeks to (../shared/reference/
dsv4-attention.md), injected into a kernel's PTX one at a time; each must
be caught by the emulator with a message that names the cause (issue 12,
docs/SyncMutations.md "Other bug classes").

  guard      a warp-collective tcgen05 op (the first tcgen05.ld, and
             tcgen05.alloc) executed under a one-lane guard
  quadrant   the first tcgen05.ld addresses the next 32-lane quadrant
  tx+tile    the first mbarrier.arrive.expect_tx expects one 16 KiB box more
  tx-tile    ... one box less
  swizzle    the UMMA descriptors' layout type 128B -> 64B
  stride     the UMMA descriptors' stride byte offset (SBO) + 16 bytes

  scripts/bug_mutations.py [--build DIR] [--num-sms N] [--markdown] INPUT.mlir...

Exit status 0 when every mutation applicable to a kernel was caught with
its cause named, 1 otherwise.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Each mutation: name, what the message must contain (a regex).
CAUSE = {
    "guard ld": r"\.aligned|diverged|all non-exited lanes",
    "guard alloc": r"\.aligned|diverged|all non-exited lanes",
    "quadrant": r"may only access lanes",
    "tx+tile": r"an expect_tx larger than",
    "tx-tile": r"an expect_tx smaller than|tx-count -?\d+ is outside|"
               r"announced fewer bytes than its copies deliver",
    "swizzle": r"used the \d+-byte swizzle",
    "stride": r"stride byte offset \(SBO\)",
}


def wrap(lines, i, regs, prefix, inst):
    """Line i replaced by `{ REGS PREFIX INST }` (a scope of its own, so the
    registers it declares need no kernel-level declaration)."""
    lines[i] = "{ %s %s%s }" % (regs, prefix, inst)
    return "\n".join(lines)


def first(lines, pattern):
    for i, l in enumerate(lines):
        if re.match(pattern, l):
            return i
    return None


def mutate(text, kind):
    """The mutated PTX, or None when the kernel has no such site."""
    lines = text.split("\n")
    if kind in ("guard ld", "guard alloc"):
        op = "tcgen05.ld" if kind == "guard ld" else "tcgen05.alloc"
        i = first(lines, r"\s*" + re.escape(op) + r"\.")
        if i is None:
            return None
        return wrap(lines, i, ".reg .pred %bgq; .reg .b32 %bgr;",
                    "mov.u32 %bgr, %laneid; setp.eq.u32 %bgq, %bgr, 0; @%bgq ",
                    lines[i].strip())
    if kind == "quadrant":
        i = first(lines, r"\s*tcgen05\.ld\.")
        if i is None:
            return None
        m = re.search(r"\[(%r\d+)\]", lines[i])
        if not m:
            return None
        return wrap(lines, i, ".reg .b32 %bgq;",
                    "add.u32 %bgq, " + m.group(1) + ", 2097152; ",
                    lines[i].strip().replace(m.group(0), "[%bgq]"))
    if kind in ("tx+tile", "tx-tile"):
        i = first(lines, r"\s*mbarrier\.arrive\.expect_tx")
        if i is None:
            return None
        m = re.search(r",\s*(%r\d+);", lines[i])
        if not m:
            return None
        op = "add" if kind == "tx+tile" else "sub"
        return wrap(lines, i, ".reg .b32 %bgt;",
                    op + ".u32 %bgt, " + m.group(1) + ", 16384; ",
                    lines[i].strip().replace(m.group(0), ", %bgt;"))
    if kind in ("swizzle", "stride"):
        # 64-bit constants with the descriptor's fixed version bit (46) and
        # the 128B layout type (bits 61-63 = 2).
        changed = [False]

        def fix(m):
            v = int(m.group(0))
            if v >> 61 != 2 or not (v >> 46) & 1:
                return m.group(0)
            changed[0] = True
            if kind == "swizzle":
                v = (v & ~(7 << 61)) | (4 << 61)
            else:
                v += 1 << 32  # SBO is in 16-byte units at bit 32
            return str(v)
        out = re.sub(r"(?<![\w.%])\d{15,20}(?![\w.])", fix, text)
        return out if changed[0] else None
    raise ValueError(kind)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("inputs", nargs="+")
    ap.add_argument("--build", default=os.environ.get(
        "NVFP4_BUILD_DIR", os.path.join(ROOT, "build")))
    ap.add_argument("--num-sms", type=int, default=0)
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--timeout", type=float, default=300)
    args = ap.parse_args()
    run = os.path.join(args.build, "bin", "nvfp4-run")
    opt = os.path.join(args.build, "bin", "nvfp4-opt")
    bad = 0
    if args.markdown:
        print("| kernel | mutation | verdict | message |")
        print("|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for path in args.inputs:
            name = os.path.splitext(os.path.basename(path))[0]
            lowered = os.path.join(tmp, name + ".mlir")
            o = "stop-after=attention" + (
                " num-sms=%d" % args.num_sms if args.num_sms else "")
            subprocess.run([opt, path, "--nvfp4-sm100-to-cubin=" + o, "-o",
                            lowered], check=True)
            ptx = os.path.join(tmp, name + ".ptx")
            subprocess.run([run, "--backend=emulator", lowered,
                            "--emit-ptx=" + ptx, "--dry-run"], check=True,
                           capture_output=True)
            text = open(ptx).read()
            for kind in CAUSE:
                mutant = mutate(text, kind)
                if mutant is None:
                    verdict, msg = "n/a", "no such site"
                else:
                    mp = os.path.join(tmp, "%s.%s.ptx" % (
                        name, kind.replace(" ", "_")))
                    open(mp, "w").write(mutant)
                    try:
                        r = subprocess.run(
                            [run, "--backend=emulator", lowered,
                             "--replace-ptx=" + mp,
                             "--max-warp-instructions=200000000"],
                            capture_output=True, text=True,
                            timeout=args.timeout)
                        out, rc = r.stdout + r.stderr, r.returncode
                    except subprocess.TimeoutExpired:
                        out, rc = "timeout", None
                    m = re.search(r"error: (.*)", out)
                    msg = (m.group(1) if m else out.strip().splitlines()[-1]
                           if out.strip() else "")[:300]
                    if rc == 0:
                        verdict = "silent"
                    elif re.search(CAUSE[kind], out):
                        verdict = "caught, cause named"
                    else:
                        verdict = "caught, cause not named"
                    if verdict != "caught, cause named":
                        bad += 1
                msg = msg.replace("|", "\\|")
                if args.markdown:
                    print("| %s | %s | %s | %s |" % (name, kind, verdict, msg))
                else:
                    print("%s %-12s %-24s %s" % (name, kind, verdict, msg))
                sys.stdout.flush()
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
