#!/usr/bin/env bash
#===- demo.sh - build nvfp4, compile the example GEMM to an sm_100a cubin --===#
#
# Installs what is missing, builds nvfp4-opt, compiles examples/gemm.mlir with
# the nvfp4-sm100-to-cubin pipeline into <build>/demo/gemm.ptx and gemm.cubin,
# and prints each kernel with its registers and shared memory (ptxas -v) and
# the TMEM columns that the sm100-plan-tmem pass gave it; then compiles
# examples/dsv4_decode.mlir (nvfp4.attention, DeepSeek-V4-Pro decode), checks it
# on the emulator against float64 and prints the PASS line; then the same for
# examples/dsv4_pro_csa_layer.mlir (the DeepSeek-V4-Pro CSA decode layer: fp8
# caches, sparse top-k, one op).
#
#===----------------------------------------------------------------------===#

set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

nvfp4_setup

input="$NVFP4_ROOT/examples/gemm.mlir"
opt="$NVFP4_BUILD_DIR/bin/nvfp4-opt"
ptxas="$CUDA_HOME/bin/ptxas"
out="$NVFP4_BUILD_DIR/demo"

[[ -f "$input" ]] || nvfp4_die "no example at $input"
[[ -x "$opt" ]] || nvfp4_die "the build did not produce $opt"
mkdir -p "$out"
rm -f "$out/gemm.ptx" "$out/gemm.cubin"

nvfp4_log "compiling ${input#"$NVFP4_ROOT"/} for sm_100a"
"$opt" "$input" \
  --nvfp4-sm100-to-cubin="ptx-file=$out/gemm.ptx cubin-file=$out/gemm.cubin" \
  -o "$out/gemm.lowered.mlir" ||
  nvfp4_die "nvfp4-opt --nvfp4-sm100-to-cubin failed on $input"
[[ -s "$out/gemm.ptx" ]] || nvfp4_die "the pipeline wrote no PTX to $out/gemm.ptx"
[[ -s "$out/gemm.cubin" ]] || nvfp4_die "the pipeline wrote no cubin to $out/gemm.cubin"
[[ "$(head -c 4 "$out/gemm.cubin" | od -An -tx1 | tr -d ' \n')" == 7f454c46 ]] ||
  nvfp4_die "$out/gemm.cubin is not an ELF file"

# Kernels: the PTX .entry names.
entry_re='^[[:space:]]*(\.visible[[:space:]]+)?\.entry[[:space:]]+([A-Za-z_$][A-Za-z0-9_$]*).*'
mapfile -t kernels < <(sed -En "s/$entry_re/\\2/p" "$out/gemm.ptx")
((${#kernels[@]} > 0)) || nvfp4_die "no .entry in $out/gemm.ptx"

# Registers and static shared memory per kernel, from ptxas -v.
"$ptxas" -v -arch=sm_100a "$out/gemm.ptx" -o /dev/null \
  >"$out/ptxas.log" 2>&1 || {
  cat "$out/ptxas.log" >&2
  nvfp4_die "ptxas -arch=sm_100a rejected $out/gemm.ptx"
}
declare -A regs=() smem=()
current=""
while IFS= read -r line; do
  if [[ "$line" =~ Compiling\ entry\ function\ \'([^\']+)\' ]]; then
    current="${BASH_REMATCH[1]}"
  elif [[ -n "$current" && "$line" =~ Used\ ([0-9]+)\ registers ]]; then
    regs[$current]="${BASH_REMATCH[1]}"
    smem[$current]=0
    if [[ "$line" =~ ([0-9]+)\ bytes\ smem ]]; then
      smem[$current]="${BASH_REMATCH[1]}"
    fi
  fi
done <"$out/ptxas.log"
dynamic_smem=no
grep -q '\.extern[[:space:]]\{1,\}\.shared' "$out/gemm.ptx" && dynamic_smem=yes

# TMEM columns: the sm100.tmem_columns attribute that sm100-plan-tmem puts on
# each kernel function.
"$opt" "$input" --sm100-plan-tmem -o "$out/gemm.plan.mlir" ||
  nvfp4_die "nvfp4-opt --sm100-plan-tmem failed on $input"
declare -A tmem=()
tmem_any=""
while IFS= read -r line; do
  [[ "$line" =~ sm100\.tmem_columns\ =\ ([0-9]+) ]] || continue
  columns="${BASH_REMATCH[1]}"
  tmem_any="$columns"
  if [[ "$line" =~ @([A-Za-z0-9_$.]+) ]]; then
    tmem[${BASH_REMATCH[1]}]="$columns"
  fi
done <"$out/gemm.plan.mlir"
[[ -n "$tmem_any" ]] ||
  nvfp4_die "sm100-plan-tmem attached no sm100.tmem_columns attribute (see $out/gemm.plan.mlir)"

echo
echo "nvfp4 demo: ${input#"$NVFP4_ROOT"/} -> sm_100a"
echo "  PTX    $out/gemm.ptx ($(wc -c <"$out/gemm.ptx") bytes)"
echo "  cubin  $out/gemm.cubin ($(wc -c <"$out/gemm.cubin") bytes)"
for kernel in "${kernels[@]}"; do
  columns="${tmem[$kernel]:-}"
  # A plan of a single kernel names it once; use that when names differ.
  if [[ -z "$columns" && ${#kernels[@]} -eq 1 && ${#tmem[@]} -le 1 ]]; then
    columns="$tmem_any"
  fi
  echo "  kernel $kernel"
  echo "    registers      ${regs[$kernel]:-?} per thread (ptxas -v)"
  if [[ "$dynamic_smem" == yes ]]; then
    echo "    shared memory  ${smem[$kernel]:-0} bytes static (ptxas -v), plus dynamic shared memory set at launch"
  else
    echo "    shared memory  ${smem[$kernel]:-0} bytes static (ptxas -v)"
  fi
  echo "    TMEM columns   ${columns:-not in the plan} (sm100-plan-tmem)"
done

run="$NVFP4_BUILD_DIR/bin/nvfp4-run"
[[ -x "$run" ]] || nvfp4_die "the build did not produce $run"

# An nvfp4.attention example: lowered, compiled for sm_100a (ptxas must
# accept it with no spill), checked against float64 on the emulator (no
# SM100 here). $1: the example, $2: the name of its outputs under $out.
attention_example() {
  local input="$1" name="$2" verdict
  nvfp4_log "compiling ${input#"$NVFP4_ROOT"/} for sm_100a"
  "$opt" "$input" \
    --nvfp4-sm100-to-cubin="ptx-file=$out/$name.ptx cubin-file=$out/$name.cubin" \
    -o /dev/null || nvfp4_die "nvfp4-opt --nvfp4-sm100-to-cubin failed on $input"
  "$ptxas" -v -arch=sm_100a "$out/$name.ptx" -o /dev/null >"$out/$name.ptxas.log" 2>&1 ||
    { cat "$out/$name.ptxas.log" >&2; nvfp4_die "ptxas rejected $out/$name.ptx"; }
  echo
  echo "nvfp4 demo: ${input#"$NVFP4_ROOT"/} -> sm_100a"
  echo "  PTX    $out/$name.ptx ($(wc -c <"$out/$name.ptx") bytes)"
  echo "  ptxas  $(grep -Eo 'Used [0-9]+ registers' "$out/$name.ptxas.log" | paste -sd, -) (per kernel), $(grep -Eo '[0-9]+ bytes spill stores' "$out/$name.ptxas.log" | paste -sd, -)"
  nvfp4_log "running it on the emulator against float64"
  "$run" --backend=emulator "$input" >"$out/$name.run.log" 2>&1 || true
  grep -E '^nvfp4-run: (output|emulator)' "$out/$name.run.log" | sed 's/^/  /'
  verdict=$(tail -1 "$out/$name.run.log")
  echo "  $verdict"
  [[ "$verdict" == PASS* ]] || nvfp4_die "${input#"$NVFP4_ROOT"/} did not pass on the emulator"
}

# DeepSeek-V4-Pro decode attention (examples/dsv4_decode.mlir), one op.
attention_example "$NVFP4_ROOT/examples/dsv4_decode.mlir" dsv4
# The DeepSeek-V4-Pro CSA decode layer as one op: the window list over an
# fp8 MODEL1 cache plus the top-1024 of the compressed cache, one softmax
# with the sink, MTP; checked against float64 on the dequantized caches.
attention_example "$NVFP4_ROOT/examples/dsv4_pro_csa_layer.mlir" csa
