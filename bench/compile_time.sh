#!/usr/bin/env bash
# Time from examples/*.mlir (sm100 level, and attention_op: nvfp4.attention
# lowered by the pipeline's first step) to PTX + sm_100a cubin through
# `nvfp4-opt --nvfp4-sm100-to-cubin`, and ptxas alone on the same PTX, both
# measured side by side in one run. Prints the median of N runs (default 11).
#
#   bench/compile_time.sh [N]        (after scripts/demo.sh or scripts/test.sh)
#
# Environment: NVFP4_BUILD_DIR (default build), CUDA_HOME (default /usr/local/cuda).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${NVFP4_BUILD_DIR:-$root/build}
opt=$build/bin/nvfp4-opt
ptxas=${CUDA_HOME:-/usr/local/cuda}/bin/ptxas
runs=${1:-11}
[ -x "$opt" ] || { echo "error: $opt not found; build first (scripts/demo.sh)" >&2; exit 1; }
[ -x "$ptxas" ] || { echo "error: ptxas not found at $ptxas" >&2; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

now_ns() { date +%s%N; }
median_ms() { sort -n | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.1f", m/1e6}'; }

printf '%-22s %10s %10s %8s\n' example "opt->cubin" "ptxas" ratio
for ex in gemm gemm_m64 gemm_2cta attention_decode attention_op; do
  src=$root/examples/$ex.mlir
  : > "$tmp/full"; : > "$tmp/ptxas"
  for _ in $(seq "$runs"); do
    t0=$(now_ns)
    "$opt" "$src" --nvfp4-sm100-to-cubin="ptx-file=$tmp/$ex.ptx cubin-file=$tmp/$ex.cubin" -o /dev/null
    t1=$(now_ns)
    "$ptxas" -arch=sm_100a "$tmp/$ex.ptx" -o "$tmp/$ex.ptxas.cubin"
    t2=$(now_ns)
    echo $((t1 - t0)) >> "$tmp/full"; echo $((t2 - t1)) >> "$tmp/ptxas"
  done
  full=$(median_ms < "$tmp/full"); alone=$(median_ms < "$tmp/ptxas")
  printf '%-22s %8s ms %8s ms %7.2fx\n' "$ex" "$full" "$alone" "$(awk -v a="$full" -v b="$alone" 'BEGIN{print a/b}')"
done
echo "(median of $runs runs each; nvfp4-opt includes parsing, all passes, NVPTX codegen and ptxas)"
