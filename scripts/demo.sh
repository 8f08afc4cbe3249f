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

# DeepSeek-V4-Pro decode attention (examples/dsv4_decode.mlir): the
# nvfp4.attention op lowered, compiled for sm_100a (ptxas must accept it with
# no spill) and checked against float64 on the emulator (no SM100 here).
dsv4="$NVFP4_ROOT/examples/dsv4_decode.mlir"
run="$NVFP4_BUILD_DIR/bin/nvfp4-run"
[[ -x "$run" ]] || nvfp4_die "the build did not produce $run"
nvfp4_log "compiling ${dsv4#"$NVFP4_ROOT"/} for sm_100a"
"$opt" "$dsv4" \
  --nvfp4-sm100-to-cubin="ptx-file=$out/dsv4.ptx cubin-file=$out/dsv4.cubin" \
  -o /dev/null || nvfp4_die "nvfp4-opt --nvfp4-sm100-to-cubin failed on $dsv4"
"$ptxas" -v -arch=sm_100a "$out/dsv4.ptx" -o /dev/null >"$out/dsv4.ptxas.log" 2>&1 ||
  { cat "$out/dsv4.ptxas.log" >&2; nvfp4_die "ptxas rejected $out/dsv4.ptx"; }
echo
echo "nvfp4 demo: ${dsv4#"$NVFP4_ROOT"/} -> sm_100a"
echo "  PTX    $out/dsv4.ptx ($(wc -c <"$out/dsv4.ptx") bytes)"
echo "  ptxas  $(grep -Eo 'Used [0-9]+ registers' "$out/dsv4.ptxas.log"), $(grep -Eo '[0-9]+ bytes spill stores' "$out/dsv4.ptxas.log")"
nvfp4_log "running it on the emulator against float64"
"$run" --backend=emulator "$dsv4" >"$out/dsv4.run.log" 2>&1 || true
grep -E '^nvfp4-run: (output|emulator)' "$out/dsv4.run.log" | sed 's/^/  /'
verdict=$(tail -1 "$out/dsv4.run.log")
echo "  $verdict"
[[ "$verdict" == PASS* ]] || nvfp4_die "examples/dsv4_decode.mlir did not pass on the emulator"

# The DeepSeek-V4-Pro CSA decode layer as one op (examples/dsv4_pro_csa_layer.mlir):
# the window list over an fp8 MODEL1 cache plus the top-1024 of the
# compressed cache, one softmax with the sink, MTP; compiled for sm_100a and
# checked on the emulator against float64 on the dequantized caches.
csa="$NVFP4_ROOT/examples/dsv4_pro_csa_layer.mlir"
nvfp4_log "compiling ${csa#"$NVFP4_ROOT"/} for sm_100a"
"$opt" "$csa" \
  --nvfp4-sm100-to-cubin="ptx-file=$out/csa.ptx cubin-file=$out/csa.cubin" \
  -o /dev/null || nvfp4_die "nvfp4-opt --nvfp4-sm100-to-cubin failed on $csa"
"$ptxas" -v -arch=sm_100a "$out/csa.ptx" -o /dev/null >"$out/csa.ptxas.log" 2>&1 ||
  { cat "$out/csa.ptxas.log" >&2; nvfp4_die "ptxas rejected $out/csa.ptx"; }
echo
echo "nvfp4 demo: ${csa#"$NVFP4_ROOT"/} -> sm_100a"
echo "  PTX    $out/csa.ptx ($(wc -c <"$out/csa.ptx") bytes)"
echo "  ptxas  $(grep -Eo 'Used [0-9]+ registers' "$out/csa.ptxas.log" | paste -sd, -) (the combine kernel, the attention kernel), $(grep -Eo '[0-9]+ bytes spill stores' "$out/csa.ptxas.log" | paste -sd, -)"
nvfp4_log "running it on the emulator against float64"
"$run" --backend=emulator "$csa" >"$out/csa.run.log" 2>&1 || true
grep -E '^nvfp4-run: (output|emulator)' "$out/csa.run.log" | sed 's/^/  /'
verdict=$(tail -1 "$out/csa.run.log")
echo "  $verdict"
[[ "$verdict" == PASS* ]] || nvfp4_die "examples/dsv4_pro_csa_layer.mlir did not pass on the emulator"
