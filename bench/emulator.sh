#!/usr/bin/env bash
# The emulator's acceptance figures (issue 3), on one host core:
#   1. thread-instructions per second on a scalar-heavy kernel
#      (EmulatorScalarBench; target >= 50 M/s);
#   2. Machine::launch wall time of the GEMM examples with K = 4096:
#      gemm (128x256), gemm_m64 (64x256), gemm_2cta (256x256 on 2 CTAs)
#      (EmulatorGemmBench; target for the 128x256x4096 tile: under 1 s);
#   3. peak-RSS growth over the emulated state (target <= 2x).
# Each figure is the median of REPS runs (default 5). docs/Emulator.md
# ("Tests, fuzzing and the benchmark") defines the emulated state.
#
#   bench/emulator.sh [REPS]
#
# Environment: NVFP4_BUILD_DIR (default build; configured already, e.g. by
# scripts/demo.sh or scripts/test.sh). Builds the two bench targets with -j2.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${NVFP4_BUILD_DIR:-$root/build}
reps=${1:-5}
[ -f "$build/CMakeCache.txt" ] || { echo "error: $build is not a configured build directory (scripts/demo.sh)" >&2; exit 1; }
cmake --build "$build" -j2 --target EmulatorScalarBench EmulatorGemmBench >/dev/null
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

echo "== $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -m), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), HEAD $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "== $build/unittests/EmulatorScalarBench --reps $reps"
"$build/unittests/EmulatorScalarBench" --reps "$reps" | tee "$tmp/scalar"
echo "== $build/unittests/EmulatorGemmBench --k 4096 --reps $reps --case all"
rc=0
"$build/unittests/EmulatorGemmBench" --k 4096 --reps "$reps" --case all | tee "$tmp/gemm" || rc=$?

echo
echo "== summary (median of $reps)"
rate=$(sed -n 's/.* s, \([0-9.]*\) M thread-instructions\/s.*/\1/p' "$tmp/scalar")
printf '%-34s %s M thread-instructions/s (target >= 50)\n' "scalar kernel, one core" "$rate"
printf '%-12s %9s %9s %9s %10s %5s %9s %10s %10s %6s\n' \
  case "launch s" "min s" "max s" "thr-instr" MMAs rel_l2 "state MiB" "RSS+ MiB" ratio
awk '/^RESULT/ {
  for (i = 2; i <= NF; ++i) { split($i, kv, "="); v[kv[1]] = kv[2] }
  printf "%-12s %9.3f %9.3f %9.3f %10d %5d %9.2g %10.2f %10.2f %5.2fx\n", v["case"],
    v["median_s"], v["min_s"], v["max_s"], v["thread_instr"], v["mmas"], v["rel_l2"],
    v["state_bytes"] / 1048576, v["rss_growth_bytes"] / 1048576, v["ratio"]
}' "$tmp/gemm"
echo "(targets: gemm launch < 1 s; ratio <= 2x; rel_l2 <= 1e-4 or the bench fails)"
exit $rc
