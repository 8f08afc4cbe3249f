#!/usr/bin/env bash
#===- fuzz.sh - build and run one of the libFuzzer targets ---------------===#
#
# Usage: scripts/fuzz.sh TARGET [SECONDS]        (default 600 seconds)
#
# TARGET:
#   mlir      fuzz/mlir_fuzzer.cpp: nvfp4-opt's input. MLIR text is parsed
#             with every dialect nvfp4-opt registers, verified, printed and,
#             when it verifies, lowered by sm100-plan-tmem,
#             sm100-lower-warp-roles and convert-sm100-to-nvvm. Seeds:
#             examples/*.mlir and test/**/*.mlir, split at `// -----`,
#             comment lines removed; dictionary fuzz/mlir.dict.
#   run-args  fuzz/run_args_fuzzer.cpp: nvfp4-run's command line
#             (parseRunOptions), one argument a line. Seeds: the nvfp4-run
#             command lines of test/**/*.test; dictionary fuzz/run-args.dict.
#   artifact  fuzz/artifact_fuzzer.cpp: nvfp4_kernel_load (kernel artifacts:
#             the JSON reader, the harness reader, the kernel checks), a
#             loaded kernel's queries and its artifact's fixed point.
#             Seeds: artifacts saved by the project build's libnvfp4.so
#             ($NVFP4_BUILD_DIR, default build/) for the Python tests'
#             functions; dictionary fuzz/artifact.dict.
#   ptx       fuzz/ptx_parser_fuzzer.cpp through scripts/fuzz-ptx-parser.sh
#             (the PTX parser, decoder and one short launch), with this
#             script's compiler, sanitizers and job count.
#
# mlir, run-args and artifact are built by the CMake project in fuzz/ (which adds the
# whole project as a subdirectory, so our libraries get the fuzzing
# instrumentation; MLIR and LLVM are Debian's shared libraries and are not
# instrumented) with clang++-22 and -fsanitize=fuzzer-no-link,SANITIZERS.
# At the end the script prints one line
#   fuzz TARGET: N executions in S s (J jobs, sanitizers fuzzer,...), C crashes/hangs
# (N summed over the jobs' final statistics) and exits non-zero if libFuzzer
# left a crash, timeout, leak or out-of-memory input in artifacts/ (findings
# of earlier runs stay there and are not counted).
#
# Environment:
#   NVFP4_FUZZ_DIR         work directory (default <repo>/build-fuzz-TARGET):
#                          the build, corpus/ (grows across runs), seed/,
#                          artifacts/ and the jobs' logs
#   NVFP4_FUZZ_CXX         compiler (default clang++-22: apt-get install
#                          clang-22 libclang-rt-22-dev)
#   NVFP4_FUZZ_SANITIZERS  sanitizers besides fuzzer (default
#                          address,undefined; e.g. undefined for speed)
#   NVFP4_FUZZ_JOBS        parallel jobs (default 1); each job runs for
#                          SECONDS and writes fuzz-<n>.log in the work dir
#   NVFP4_FUZZ_RUNS        mlir and run-args: stop each job after this many
#                          executions (default 0: no limit, only SECONDS)
#   NVFP4_FUZZ_TIMEOUT     seconds after which one input counts as a hang
#                          (default 10 for mlir, 5 for run-args)
#   NVFP4_JOBS             build parallelism (default nproc)
#
# Reproduce a finding by running the fuzzer binary on it, e.g.
#   build-fuzz-mlir/nvfp4-mlir-fuzzer build-fuzz-mlir/artifacts/crash-<hash>
#
#===----------------------------------------------------------------------===#

set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
usage="usage: scripts/fuzz.sh mlir|run-args|artifact|ptx [SECONDS]"
target="${1:-}"
seconds="${2:-600}"
cxx="${NVFP4_FUZZ_CXX:-clang++-22}"
sanitizers="${NVFP4_FUZZ_SANITIZERS:-address,undefined}"
jobs="${NVFP4_FUZZ_JOBS:-1}"
runs="${NVFP4_FUZZ_RUNS:-0}"
build_jobs="${NVFP4_JOBS:-$(nproc)}"

die() {
  printf 'error: %s\n' "$*" >&2
  exit 1
}

case "$target" in
mlir | run-args | artifact | ptx) ;;
-h | --help)
  sed -n '2,/^#===-----/p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
  exit 0
  ;;
*) die "$usage" ;;
esac
[[ "$seconds" =~ ^[0-9]+$ && "$seconds" -gt 0 ]] ||
  die "SECONDS must be a positive number, got '$seconds'"
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || die "NVFP4_FUZZ_JOBS must be a positive number"
[[ "$runs" =~ ^[0-9]+$ ]] || die "NVFP4_FUZZ_RUNS must be a number"
command -v "$cxx" >/dev/null 2>&1 ||
  die "$cxx not found; install it with: apt-get install -y clang-22 libclang-rt-22-dev"

work="$(realpath -m "${NVFP4_FUZZ_DIR:-$root/build-fuzz-$target}")"
mkdir -p "$work/corpus" "$work/seed" "$work/artifacts"
# Logs of an earlier run would be counted again; its findings stay in
# artifacts/ but only those newer than .start count.
rm -f "$work"/fuzz-*.log "$work/run.log"
touch "$work/.start"

# Sums the executions over the final statistics of every job and prints the
# summary line; fails when an artifact was left.
summarize() {
  local start="$1" execs findings
  execs="$(cat "$work/run.log" "$work"/fuzz-*.log 2>/dev/null |
    sed -n 's/^stat::number_of_executed_units: *\([0-9]*\).*/\1/p' |
    awk '{ s += $1 } END { print s + 0 }')"
  findings="$(find "$work/artifacts" -type f -newer "$work/.start" \( \
    -name 'crash-*' -o -name 'timeout-*' -o -name 'leak-*' -o -name 'oom-*' \) |
    wc -l)"
  printf 'fuzz %s: %d executions in %d s (%d jobs, sanitizers fuzzer,%s), %d crashes/hangs\n' \
    "$target" "$execs" "$((SECONDS - start))" "$jobs" "$sanitizers" "$findings"
  if ((findings)); then
    find "$work/artifacts" -type f -newer "$work/.start" | sed 's/^/  /'
    return 1
  fi
}

# --- Build ----------------------------------------------------------------
if [[ "$target" == ptx ]]; then
  # fuzz-ptx-parser.sh builds the fuzzer (and copies the seeds into seed/);
  # one second of fuzzing is its smoke test. The campaign runs below.
  printf '==> building with scripts/fuzz-ptx-parser.sh\n'
  # It recompiles a source only when the source is newer than its object:
  # start over when the compiler or the sanitizers changed.
  stamp="$cxx $sanitizers"
  if [[ "$(cat "$work/obj/flags" 2>/dev/null)" != "$stamp" ]]; then
    rm -rf "$work/obj"
    mkdir -p "$work/obj"
    printf '%s\n' "$stamp" >"$work/obj/flags"
  fi
  NVFP4_FUZZ_DIR="$work" NVFP4_FUZZ_CXX="$cxx" \
    NVFP4_FUZZ_SANITIZERS="$sanitizers" \
    "$root/scripts/fuzz-ptx-parser.sh" 1 >"$work/build.log" 2>&1 ||
    die "scripts/fuzz-ptx-parser.sh failed; see $work/build.log"
  rm -f "$work/run.log"
  binary="$work/ptx_parser_fuzzer"
else
  cc="${cxx/clang++/clang}"
  build="$work/build"
  flags="-fsanitize=fuzzer-no-link,$sanitizers -fno-sanitize-recover=all -fno-omit-frame-pointer -g1"
  printf '==> configuring %s (%s)\n' "$build" "$flags"
  gen=()
  [[ -f "$build/CMakeCache.txt" ]] || gen=(-G Ninja)
  cmake -S "$root/fuzz" -B "$build" "${gen[@]}" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
    "-DCMAKE_C_FLAGS=$flags" "-DCMAKE_CXX_FLAGS=$flags" \
    "-DCMAKE_C_FLAGS_RELEASE=-O1 -DNDEBUG" \
    "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -DNDEBUG" \
    "-DNVFP4_FUZZ_LINK=-fsanitize=fuzzer,$sanitizers" \
    "-DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=$sanitizers" \
    -DNVFP4_CUDA_ROOT="${CUDA_HOME:-/usr/local/cuda}" >/dev/null ||
    die "cmake configure failed (run it again without >/dev/null to see why)"
  binary="$build/nvfp4-$target-fuzzer"
  printf '==> building %s\n' "$binary"
  cmake --build "$build" --parallel "$build_jobs" --target "nvfp4-$target-fuzzer" ||
    die "build failed"
fi

# --- Seeds ----------------------------------------------------------------
if [[ "$target" == artifact ]]; then
  rm -f "$work/seed"/*
  lib="${NVFP4_BUILD_DIR:-$root/build}/lib/libnvfp4.so"
  [[ -f "$lib" ]] || die "$lib not found: the seeds are artifacts it compiles (build the project first)"
  NVFP4_LIBRARY="$lib" PYTHONPATH="$root/python:$root/test/Python" \
    python3 - "$work/seed" <<'PY' || die "making the seed artifacts failed"
"""Saves the Python tests' functions as artifacts: the seeds."""
import os
import sys

import nvfp4
from test_nvfp4 import GQA, NVFP4_FUNCTIONS

out = sys.argv[1]
for i, text in enumerate([GQA] + NVFP4_FUNCTIONS):
    nvfp4.compile(text).save(os.path.join(out, "seed-%02d.json" % i))
print("==> %d seeds" % (1 + len(NVFP4_FUNCTIONS)))
PY
elif [[ "$target" != ptx ]]; then
  rm -f "$work/seed"/*
  python3 - "$root" "$work/seed" "$target" <<'PY'
"""Writes the seed inputs of a target into a directory."""
import glob
import os
import re
import shlex
import sys

root, out, target = sys.argv[1:4]
n = 0


def write(text, ext):
    global n
    if not text.strip():
        return
    n += 1
    with open(os.path.join(out, "seed-%04d.%s" % (n, ext)), "w") as f:
        f.write(text)


if target == "mlir":
    files = sorted(glob.glob(os.path.join(root, "examples", "*.mlir")) +
                   glob.glob(os.path.join(root, "test", "**", "*.mlir"),
                             recursive=True))
    for path in files:
        with open(path) as f:
            text = f.read()
        for chunk in re.split(r"^// -----.*$", text, flags=re.M):
            lines = [l for l in chunk.splitlines()
                     if not l.lstrip().startswith("//")]
            write("\n".join(lines) + "\n", "mlir")
else:  # run-args: the nvfp4-run command lines of the lit tests
    subst = {"%t": "/tmp/t", "%rt_inputs": "test/Runtime/Inputs",
             "%nvfp4_src": ".", "%mock_cuda": "libmock.so"}
    for path in sorted(glob.glob(os.path.join(root, "test", "**", "*.test"),
                                 recursive=True)):
        with open(path) as f:
            for line in f:
                m = re.search(r"\bnvfp4-run\s+(.*)", line)
                if not m:
                    continue
                cmd = re.split(r"\s(?:[12]?>|\||&&|;)", m.group(1))[0]
                for k, v in subst.items():
                    cmd = cmd.replace(k, v)
                try:
                    args = shlex.split(cmd)
                except ValueError:
                    continue
                write("\n".join(args), "txt")
print("==> %d seeds" % n)
PY
fi

# --- Fuzz -----------------------------------------------------------------
dict="$root/fuzz/$target.dict"
rss=4096
if [[ "$target" == mlir ]]; then
  timeout="${NVFP4_FUZZ_TIMEOUT:-10}"
  max_len=32768
elif [[ "$target" == artifact ]]; then
  timeout="${NVFP4_FUZZ_TIMEOUT:-10}"
  max_len=262144
elif [[ "$target" == ptx ]]; then
  # As scripts/fuzz-ptx-parser.sh runs it.
  timeout="${NVFP4_FUZZ_TIMEOUT:-20}"
  max_len=65536
  rss=2560
  dict="$root/fuzz/ptx.dict"
else
  timeout="${NVFP4_FUZZ_TIMEOUT:-5}"
  max_len=2048
fi
# Our code inlines LLVM's BumpPtrAllocator (llvm/Support/Allocator.h), which
# under ASan poisons the slabs it creates and unpoisons what it hands out;
# Debian's libMLIR.so, not instrumented, allocates from the same slabs
# without unpoisoning, and ASan reports a use-after-poison inside MLIR that
# is not a bug. allow_user_poisoning=0 turns that manual poisoning off (ASan
# checks everything else). scripts/sanitize.sh does the same.
export ASAN_OPTIONS="allow_user_poisoning=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
parallel=()
((jobs > 1)) && parallel=(-jobs="$jobs" -workers="$jobs")
printf '==> fuzzing %s for %s seconds (%s jobs; corpus %s)\n' \
  "$target" "$seconds" "$jobs" "$work/corpus"
start=$SECONDS
status=0
cd "$work"
"$binary" \
  -max_total_time="$seconds" \
  -runs="$([[ "$runs" == 0 ]] && echo -1 || echo "$runs")" \
  -timeout="$timeout" \
  -rss_limit_mb="$rss" \
  -max_len="$max_len" \
  "${parallel[@]}" \
  -dict="$dict" \
  -artifact_prefix="$work/artifacts/" \
  -print_final_stats=1 \
  "$work/corpus" "$work/seed" 2>&1 | tee "$work/run.log" || status=1
summarize "$start" || status=1
exit "$status"
