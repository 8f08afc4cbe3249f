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
echo "== $build/unittests/EmulatorScalarBench --reps $reps (--sanitize 1, then 0)"
"$build/unittests/EmulatorScalarBench" --reps "$reps" --sanitize 1 | tee "$tmp/scalar"
"$build/unittests/EmulatorScalarBench" --reps "$reps" --sanitize 0 | tee "$tmp/scalar0"
echo "== $build/unittests/EmulatorGemmBench --k 4096 --reps $reps --case all (--sanitize 1, then 0)"
rc=0
"$build/unittests/EmulatorGemmBench" --k 4096 --reps "$reps" --case all --sanitize 1 | tee "$tmp/gemm" || rc=$?
"$build/unittests/EmulatorGemmBench" --k 4096 --reps "$reps" --case all --sanitize 0 | tee "$tmp/gemm0" || rc=$?
# The DeepSeek-V4 decode example through nvfp4-run (whole run: compile,
# launches, reference), when the LLVM/MLIR build has it.
dsv4=""
if [ -x "$build/bin/nvfp4-run" ]; then
  for mode in on off; do
    flag=""; [ $mode = off ] && flag=--no-sanitize
    for i in $(seq "$reps"); do
      s=$(date +%s.%N)
      "$build/bin/nvfp4-run" --backend=emulator "$root/examples/dsv4_decode.mlir" $flag > "$tmp/dsv4.out" 2>&1 || { cat "$tmp/dsv4.out"; rc=1; }
      e=$(date +%s.%N)
      awk -v a="$e" -v b="$s" 'BEGIN { print a - b }' >> "$tmp/dsv4.$mode"
    done
  done
  dsv4=1
fi

med() { sort -g "$1" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo
echo "== summary (median of $reps; sanitizer on / off, measured one after the other in this run)"
rate=$(sed -n 's/.* s, \([0-9.]*\) M thread-instructions\/s.*/\1/p' "$tmp/scalar")
rate0=$(sed -n 's/.* s, \([0-9.]*\) M thread-instructions\/s.*/\1/p' "$tmp/scalar0")
printf '%-34s %s / %s M thread-instructions/s (target >= 50; cost %.2fx)\n' "scalar kernel, one core" "$rate" "$rate0" "$(awk -v a="$rate0" -v b="$rate" 'BEGIN { print a / b }')"
printf '%-12s %9s %9s %9s %10s %5s %9s %10s %10s %6s %9s %6s\n' \
  case "launch s" "min s" "max s" "thr-instr" MMAs rel_l2 "state MiB" "RSS+ MiB" ratio "off s" cost
awk 'NR == FNR && /^RESULT/ {
  for (i = 2; i <= NF; ++i) { split($i, kv, "="); off[kv[1]] = kv[2] }
  split($2, c, "="); offs[c[2]] = off["median_s"]; next }
/^RESULT/ {
  for (i = 2; i <= NF; ++i) { split($i, kv, "="); v[kv[1]] = kv[2] }
  printf "%-12s %9.3f %9.3f %9.3f %10d %5d %9.2g %10.2f %10.2f %5.2fx %9.3f %5.2fx\n", v["case"],
    v["median_s"], v["min_s"], v["max_s"], v["thread_instr"], v["mmas"], v["rel_l2"],
    v["state_bytes"] / 1048576, v["rss_growth_bytes"] / 1048576, v["ratio"],
    offs[v["case"]], v["median_s"] / offs[v["case"]]
}' "$tmp/gemm0" "$tmp/gemm"
if [ -n "$dsv4" ]; then
  on=$(med "$tmp/dsv4.on"); off=$(med "$tmp/dsv4.off")
  printf '%-34s %.2f s / %.2f s (cost %.2fx)\n' "dsv4_decode.mlir, whole nvfp4-run" "$on" "$off" "$(awk -v a="$on" -v b="$off" 'BEGIN { print a / b }')"
fi
echo "(targets: gemm launch < 1 s; RSS ratio <= 2x; rel_l2 <= 1e-4 or the bench fails; sanitizer cost <= 2x)"
exit $rc
