#!/usr/bin/env python3
"""Deletes each synchronization op of a kernel, one at a time, and reports
whether the emulator notices (issue 12, docs/Emulator.md "Mutation report").

For every INPUT (.mlir: an `nvfp4.attention` op, or an sm100-level kernel
such as examples/gemm.mlir):

  mlir level  the kernel after `nvfp4-sm100-to-cubin{stop-after=attention}`
              (the sm100 / nvgpu / gpu ops the lowering builds): each
              mbarrier try_wait, arrive (and arrive.expect_tx), sm100.fence,
              sm100.commit, sm100.wait, gpu.barrier, cluster arrive / wait
              and fence op, griddepcontrol and cp.async commit_group /
              wait_group is deleted in turn and the mutant run with
              nvfp4-run --backend=emulator;
  ptx level   the PTX nvfp4-run compiles: each mbarrier.try_wait (its
              predicate set to true instead), mbarrier.arrive, bar.sync /
              barrier.sync, barrier.cluster.arrive / wait, tcgen05.fence,
              tcgen05.commit, tcgen05.wait and fence.* line is deleted and
              the mutant run through --replace-ptx.

A site is "caught" when the run fails (a race or fence error, a deadlock, a
fault, a numerical FAIL) and "silent" when it still PASSes; a silent site
is "unexecuted" when the kernel with a trap in its place (PTX `trap;`)
still passes: the op never ran at these sizes, so its deletion could not
change anything; --schedules=N
also runs each silent mutant under N explored schedules
(nvfp4-run --schedules). A mutant that does not compile is "invalid" (the
deletion broke the IR, e.g. a used result), not counted either way.

  scripts/sync_mutations.py [--build DIR] [--level mlir|ptx|both]
      [--schedules N] [--jobs N] [--timeout S] [--num-sms N]
      [--only-op REGEX] [--matrix SUBSTR]
      [--limit N] [--markdown] [INPUT.mlir...]

--union REPORT... merges reports of the same kernels under different plans
(e.g. the matrix at its own SM counts and at --num-sms=2): a site (the
n-th op of its name in its kernel) is caught when any report caught it,
silent when some report ran it and none caught it.

--matrix SUBSTR adds the CI attention matrix's cases whose names contain
SUBSTR (scripts/attention_matrix.py --set=ci; "" for all 33), each with
the SM count its case plans for (--num-sms overrides it).

Exit status: 0 when every countable site was caught, 1 when some site was
silent, 2 on a usage or setup error.
"""
import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# MLIR ops whose deletion removes a synchronization (matched at the start of
# the op, after an optional "%x = ").
MLIR_SYNC = re.compile(
    r"^\s*(?:%[\w#:, %]+=\s*)?"
    r"(nvgpu\.mbarrier\.try_wait\.parity|nvgpu\.mbarrier\.arrive(?:\.expect_tx|"
    r"\.nocomplete)?|nvgpu\.mbarrier\.init|sm100\.fence|sm100\.commit|"
    r"sm100\.wait|gpu\.barrier|nvvm\.barrier\w*|nvvm\.bar\.warp\.sync|"
    r"nvvm\.cluster\.(?:arrive|wait)"
    r"[\w.]*|nvvm\.fence\.[\w.]+|nvvm\.mbarrier\.[\w.]+|"
    r"nvvm\.cp\.async\.bulk\.(?:commit|wait)[\w.]*|"
    r"nvvm\.wgmma\.(?:fence|commit|wait)[\w.]*|nvvm\.griddepcontrol)\b")
# Inline PTX the lowering emits for what upstream lacks: a sync when its
# text is one.
INLINE_SYNC = re.compile(
    r"(mbarrier\.(?:try_wait|arrive|init|expect_tx)|barrier\.cluster|bar\.sync|"
    r"bar\.arrive|"
    r"barrier\.sync|tcgen05\.(?:fence|commit|wait)|fence\.|"
    r"cp\.async\.(?:wait_group|wait_all|commit_group))")

PTX_SYNC = re.compile(
    r"^\s*(?:@!?%\w+\s+)?(mbarrier\.try_wait[\w.:]*|mbarrier\.test_wait[\w.:]*|"
    r"mbarrier\.arrive[\w.:]*|mbarrier\.init[\w.:]*|mbarrier\.expect_tx"
    r"[\w.:]*|bar\.warp\.sync|bar\.sync|barrier\.sync"
    r"[\w.]*|bar\.arrive|barrier\.arrive[\w.]*|barrier\.cluster\.\w+[\w.]*|"
    r"tcgen05\.fence[\w:]*|tcgen05\.commit[\w.:]*|tcgen05\.wait[\w:]*|"
    r"fence\.[\w.:]+|cp\.async\.bulk\.wait_group[\w.]*|"
    r"cp\.async\.(?:wait_group|wait_all|commit_group)|"
    r"cp\.async\.bulk\.commit_group|wgmma\.fence[\w.]*|"
    r"wgmma\.commit_group[\w.]*|wgmma\.wait_group[\w.]*|"
    r"griddepcontrol\.\w+)\b")


def run(cmd, timeout):
    try:
        r = subprocess.run(cmd, capture_output=True, text=True,
                           timeout=timeout)
        return r.returncode, r.stdout + r.stderr
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode(errors="replace") if isinstance(
            e.stdout, bytes) else (e.stdout or "")
        return None, out


def verdict(rc, out):
    """(kind, reason): kind caught / silent / invalid."""
    if rc is None:
        return "caught", "hang (timeout)"
    last = [l for l in out.strip().splitlines() if l.strip()]
    if rc == 0:
        return "silent", last[-1] if last else ""
    if rc == 2 or "failed (the diagnostics above)" in out:
        m = re.search(r"error: (.*)", out)
        return "invalid", (m.group(1) if m else last[-1] if last else "")[:160]
    # Name the first line of the error.
    for pat, name in ((r"race[^\n]*", "race"), (r"fence[^\n]*", "fence"),
                      (r"deadlock[^\n]*", "deadlock"),
                      (r"happens-before[^\n]*", "order"),
                      (r"stopped after[^\n]*", "livelock"),
                      (r"\nFAIL[^\n]*", "FAIL")):
        m = re.search(pat, out)
        if m:
            return "caught", "%s: %s" % (name, m.group(0).strip()[:200])
    m = re.search(r"error: ([^\n]*)", out)
    return "caught", (m.group(1) if m else last[-1] if last else "")[:200]


class Kernel:
    def __init__(self, args, path, tmp, num_sms=0):
        self.args, self.path, self.tmp = args, path, tmp
        self.name = os.path.splitext(os.path.basename(path))[0]
        # --num-sms overrides the matrix case's own SM count.
        self.num_sms = args.num_sms or num_sms

    def lower(self):
        out = os.path.join(self.tmp, self.name + ".sm100.mlir")
        opt = "stop-after=attention chip=" + self.args.chip
        if self.num_sms:
            opt += " num-sms=%d" % self.num_sms
        for o in self.args.lower_opt:
            opt += " " + o
        # With its locations: the attention lowering names every
        # synchronization op by its role (loc("mma: wait kv_full"(...))).
        rc, text = run([self.args.nvfp4_opt, self.path,
                        "--nvfp4-sm100-to-cubin=" + opt,
                        "--mlir-print-debuginfo", "--mlir-print-local-scope",
                        "-o", out], 600)
        if rc != 0:
            sys.exit("sync_mutations: cannot lower %s:\n%s" % (self.path,
                                                               text[-2000:]))
        with open(out) as f:
            return f.read()

    def ptx(self, lowered_path):
        out = os.path.join(self.tmp, self.name + ".ptx")
        rc, text = run([self.args.nvfp4_run, "--backend=emulator",
                        "--chip=" + self.args.chip, lowered_path,
                        "--emit-ptx=" + out, "--dry-run"], 600)
        if rc != 0:
            sys.exit("sync_mutations: cannot compile %s:\n%s" % (
                lowered_path, text[-2000:]))
        with open(out) as f:
            return f.read()

    def base_cmd(self, path):
        cmd = [self.args.nvfp4_run, "--backend=emulator",
               "--chip=" + self.args.chip, path,
               "--max-warp-instructions=%d" % self.args.max_warp_instructions]
        return cmd + list(self.args.run_arg)


# The role the attention lowering gives a synchronization op, printed as
# loc("role"(...)) at the end of its line.
ROLE = re.compile(r'loc\("([^"]+)"\(')


def mlir_sites(text):
    """(line index, op name) of each deletable synchronization op inside a
    gpu.module; the name ends with " [role]" when the op has one."""
    sites, depth_module = [], False
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if "gpu.module" in line:
            depth_module = True
        if not depth_module:
            continue
        r = ROLE.search(line)
        role = " [%s]" % r.group(1) if r else ""
        m = MLIR_SYNC.match(line)
        if m:
            sites.append((i, m.group(1) + role))
            continue
        if "nvvm.inline_ptx" in line or "llvm.inline_asm" in line:
            q = re.search(r'"([^"]*)"', line)
            if q and INLINE_SYNC.search(q.group(1)):
                sites.append((i, "inline: " + INLINE_SYNC.search(
                    q.group(1)).group(1) + role))
    return sites


def mlir_mutant(lines, i):
    """The text with line i deleted, or None when one of its results is
    used elsewhere (the IR would not parse)."""
    line = lines[i]
    m = re.match(r"^\s*(%[\w#:, %]+?)\s*=", line)
    if m:
        names = [n.split(":")[0].split("#")[0] for n in
                 re.findall(r"%[\w]+", m.group(1))]
        rest = "\n".join(lines[:i] + lines[i + 1:])
        for n in names:
            if re.search(re.escape(n) + r"\b", rest):
                return None
    return "\n".join(lines[:i] + lines[i + 1:])


def probe(lines, i, level):
    """The text with line i replaced by a trap: a run that does not trap
    never reached the site."""
    indent = re.match(r"^\s*", lines[i]).group(0)
    trap = 'nvvm.inline_ptx "trap;"' if level == "mlir" else "trap;"
    return "\n".join(lines[:i] + [indent + trap] + lines[i + 1:])


def ptx_sites(text):
    sites = []
    for i, line in enumerate(text.split("\n")):
        m = PTX_SYNC.match(line)
        if m:
            sites.append((i, m.group(1)))
    return sites


def ptx_mutant(lines, i):
    line = lines[i]
    # A try_wait defines a predicate the spin loop tests: keep the loop's
    # shape and make it succeed at once.
    m = re.match(r"^(\s*)(?:@!?%\w+\s+)?mbarrier\.(?:try|test)_wait[\w.:]*"
                 r"\s+(%\w+)\s*,", line)
    if m:
        repl = "%smov.pred %s, 1;" % (m.group(1), m.group(2))
        return "\n".join(lines[:i] + [repl] + lines[i + 1:])
    return "\n".join(lines[:i] + lines[i + 1:])


LINE = re.compile(r"^(\S+) (mlir|ptx):(\d+) (.+?)\s+(caught|silent|"
                  r"unexecuted|invalid)\s")


def union(reports):
    """Merges text reports: per kernel and level, a site is keyed by its op
    and its ordinal among that op's sites."""
    best = {}
    rank = {"caught": 3, "silent": 2, "unexecuted": 1, "invalid": 0}
    for path in reports:
        seen = {}
        with open(path) as f:
            rows = [m.groups() for m in map(LINE.match, f) if m]
        for name, level, line, op, kind in sorted(
                rows, key=lambda r: (r[0], r[1], int(r[2]))):
            op = op.strip()
            n = seen.setdefault((name, level, op), 0)
            seen[(name, level, op)] = n + 1
            key = (name, level, op, n)
            if key not in best or rank[kind] > rank[best[key]]:
                best[key] = kind
    totals = {}
    for (name, level, op, n), kind in sorted(best.items()):
        t = totals.setdefault((name, level), {"caught": 0, "silent": 0,
                                              "unexecuted": 0, "invalid": 0})
        t[kind] += 1
        if kind == "silent":
            print("%s %s: silent in every plan: %s #%d" % (name, level, op,
                                                          n + 1))
    all_c = all_s = 0
    print("\nunion of %d reports:" % len(reports))
    for (name, level), t in totals.items():
        all_c += t["caught"]
        all_s += t["silent"]
        print("  %s %s: caught %d of %d executed, silent %d, unexecuted %d, "
              "invalid %d" % (name, level, t["caught"], t["caught"] +
                              t["silent"], t["silent"], t["unexecuted"],
                              t["invalid"]))
    print("  all: caught %d of %d executed sites" % (all_c, all_c + all_s))
    # By role (the attention lowering's names; mlir level): in how many
    # kernels each site is caught, silent, unexecuted.
    roles = {}
    for (name, level, op, n), kind in best.items():
        if level != "mlir" or "[" not in op:
            continue
        r = roles.setdefault("%s #%d" % (op, n + 1), {
            "caught": [], "silent": [], "unexecuted": [], "invalid": []})
        r[kind].append(name)
    if roles:
        print("\nby role (kernels caught / silent / unexecuted / invalid; "
              "the silent ones named):")
        for role in sorted(roles, key=lambda x: x[x.index("["):]):
            r = roles[role]
            print("  %-75s %3d %3d %3d %3d  %s" % (
                role, len(r["caught"]), len(r["silent"]),
                len(r["unexecuted"]), len(r["invalid"]),
                " ".join(sorted(r["silent"]))))
    return 1 if all_s else 0


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--union":
        return union(sys.argv[2:])
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("inputs", nargs="*")
    ap.add_argument("--matrix", default=None, metavar="SUBSTR",
                    help="add the CI attention matrix's cases whose names "
                    "contain SUBSTR")
    ap.add_argument("--build", default=os.environ.get(
        "NVFP4_BUILD_DIR", os.path.join(ROOT, "build")))
    ap.add_argument("--level", choices=("mlir", "ptx", "both"),
                    default="mlir")
    ap.add_argument("--schedules", type=int, default=0,
                    help="also run each silent mutant under N schedules")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--max-warp-instructions", type=int, default=200000000)
    ap.add_argument("--num-sms", type=int, default=0,
                    help="lower attention for N SMs (nvfp4-sm100-to-cubin's "
                    "num-sms; few SMs give each CTA several KV tiles and "
                    "pieces, which the ring waits need to matter)")
    ap.add_argument("--only-op", default="",
                    help="only sites whose op (and role) this regular "
                    "expression matches")
    ap.add_argument("--limit", type=int, default=0,
                    help="at most N sites per kernel and level (a smoke "
                    "subset: every k-th site)")
    ap.add_argument("--run-arg", action="append", default=[],
                    help="an extra nvfp4-run argument (repeatable)")
    ap.add_argument("--lower-opt", action="append", default=[],
                    metavar="NAME=VALUE",
                    help="an extra nvfp4-sm100-to-cubin option for the "
                    "lowering the mutants are cut from, e.g. p-shared=1 "
                    "(repeatable)")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--chip", choices=("sm_100a", "sm_90a"), default="sm_100a",
                    help="lower the attention ops for this chip (the sm_90a "
                    "kernel adds wgmma.fence / commit_group / wait_group "
                    "sites)")
    ap.add_argument("--keep", help="write the mutants to this directory")
    args = ap.parse_args()
    args.nvfp4_opt = os.path.join(args.build, "bin", "nvfp4-opt")
    args.nvfp4_run = os.path.join(args.build, "bin", "nvfp4-run")
    for tool in (args.nvfp4_opt, args.nvfp4_run):
        if not os.access(tool, os.X_OK):
            sys.exit("sync_mutations: %s not found (--build)" % tool)

    totals = {}
    silent_any = False
    with tempfile.TemporaryDirectory() as tmp:
        tmp = args.keep or tmp
        os.makedirs(tmp, exist_ok=True)
        inputs = [(p, 0) for p in args.inputs]
        if args.matrix is not None:
            sys.path.insert(0, os.path.join(ROOT, "scripts"))
            import attention_matrix
            cases = attention_matrix.ci_cases()
            if args.chip == "sm_90a":
                cases = [c for c in cases if attention_matrix.hopper_takes(c)]
                cases += attention_matrix.hopper_cases()
            for c in cases:
                if args.matrix in c["name"]:
                    p = os.path.join(tmp, c["name"] + ".mlir")
                    with open(p, "w") as f:
                        f.write(attention_matrix.op_text(c))
                    inputs.append((p, c.get("sms") or 0))
        if not inputs:
            sys.exit("sync_mutations: no input (INPUT.mlir or --matrix)")
        for path, sms in inputs:
            k = Kernel(args, path, tmp, sms)
            lowered = k.lower()
            lowered_path = os.path.join(tmp, k.name + ".sm100.mlir")
            rc, out = run(k.base_cmd(lowered_path), args.timeout)
            if rc != 0:
                sys.exit("sync_mutations: the unmutated %s does not PASS:\n%s"
                         % (path, out[-2000:]))
            jobs = []
            levels = ["mlir", "ptx"] if args.level == "both" else [args.level]
            for level in levels:
                if level == "mlir":
                    text = lowered
                    sites = mlir_sites(text)
                else:
                    text = k.ptx(lowered_path)
                    sites = ptx_sites(text)
                sites = [s for s in sites if re.search(args.only_op, s[1])]
                if args.limit and len(sites) > args.limit:
                    step = len(sites) / args.limit
                    sites = [sites[int(j * step)] for j in range(args.limit)]
                lines = text.split("\n")
                for n, (i, op) in enumerate(sites):
                    if level == "mlir":
                        mtext = mlir_mutant(lines, i)
                        mpath = os.path.join(tmp, "%s.mlir.%d.mlir" % (
                            k.name, n))
                    else:
                        mtext = ptx_mutant(lines, i)
                        mpath = os.path.join(tmp, "%s.ptx.%d.ptx" % (
                            k.name, n))
                    if mtext is None:
                        jobs.append((level, i, op, None, "result used", None))
                        continue
                    ppath = mpath + ".probe" + os.path.splitext(mpath)[1]
                    with open(mpath, "w") as f:
                        f.write(mtext)
                    with open(ppath, "w") as f:
                        f.write(probe(lines, i, level))

                    def command(path):
                        return (k.base_cmd(path) if level == "mlir" else
                                k.base_cmd(lowered_path) +
                                ["--replace-ptx=" + path])
                    jobs.append((level, i, op, command(mpath), None,
                                 command(ppath)))

            def work(job):
                level, i, op, cmd, why, probe_cmd = job
                if cmd is None:
                    return job, "invalid", why
                rc, out = run(cmd, args.timeout)
                kind, reason = verdict(rc, out)
                # Did the site run at all? The kernel with a trap in its
                # place tells (instruction counts cannot: LLVM hoists what
                # computes a guarded op's operands out of its branch).
                if kind == "silent":
                    prc, pout = run(probe_cmd, args.timeout)
                    if "trap instruction executed" not in pout:
                        return job, "unexecuted", "never ran (a trap " \
                            "in its place is not reached): " + reason
                if kind == "silent" and args.schedules:
                    rc, out = run(cmd + ["--schedules=%d" % args.schedules],
                                  args.timeout * args.schedules)
                    kind2, reason2 = verdict(rc, out)
                    if kind2 == "caught":
                        kind, reason = "caught", "under schedules: " + reason2
                return job, kind, reason

            with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
                results = list(pool.map(work, jobs))
            if args.markdown:
                print("\n#### %s\n" % path)
                print("| level | line | op | verdict | what reported it |")
                print("|---|---|---|---|---|")
            for (level, i, op, _, _, _), kind, reason in results:
                key = (path, level)
                t = totals.setdefault(key, [0, 0, 0, 0])
                t[{"caught": 0, "silent": 1, "invalid": 2,
                   "unexecuted": 3}[kind]] += 1
                silent_any |= kind == "silent"
                reason = reason.replace("|", "\\|")
                if args.markdown:
                    print("| %s | %d | `%s` | %s | %s |" % (
                        level, i + 1, op, kind, reason))
                else:
                    print("%s %s:%d %-40s %-7s %s" % (
                        k.name, level, i + 1, op, kind, reason))
                sys.stdout.flush()
    print()
    print("| kernel | level | caught | silent | unexecuted | invalid |"
          if args.markdown else "summary:")
    if args.markdown:
        print("|---|---|---|---|---|---|")
    for (path, level), (c, s, inv, un) in totals.items():
        name = os.path.splitext(os.path.basename(path))[0]
        if args.markdown:
            print("| %s | %s | %d of %d | %d | %d | %d |" % (
                name, level, c, c + s, s, un, inv))
        else:
            print("  %s %s: caught %d of %d executed, silent %d, unexecuted "
                  "%d, invalid %d" % (name, level, c, c + s, s, un, inv))
    return 1 if silent_any else 0


if __name__ == "__main__":
    sys.exit(main())
