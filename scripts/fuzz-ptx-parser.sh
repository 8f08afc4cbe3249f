#!/usr/bin/env bash
#===- fuzz-ptx-parser.sh - Build and run the PTX front-end fuzzer --------===#
#
# Builds fuzz/ptx_parser_fuzzer.cpp and the emulator sources with clang++
# -fsanitize=fuzzer,address,undefined and runs a bounded libFuzzer campaign
# seeded with the PTX files in test/Emulator/Inputs.
#
# Usage: scripts/fuzz-ptx-parser.sh [SECONDS]      (default 600)
#
# Environment:
#   NVFP4_FUZZ_DIR         work directory (default: <repo>/build-fuzz); keeps
#                          the growing corpus in corpus/ and any crashing
#                          inputs in artifacts/
#   NVFP4_FUZZ_CXX         compiler (default: clang++; needs libFuzzer, which
#                          Debian's clang packages ship)
#   NVFP4_FUZZ_SANITIZERS  sanitizers (default: address,undefined)
#   NVFP4_FUZZ_JOBS        parallel fuzzing jobs (default: 1)
#
# Exit status: 0 when the campaign ends without a finding, non-zero (and the
# crashing input under artifacts/) otherwise. Reproduce one with
#   build-fuzz/ptx_parser_fuzzer build-fuzz/artifacts/crash-<hash>
#
#===----------------------------------------------------------------------===#

set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds="${1:-600}"
work="$(realpath -m "${NVFP4_FUZZ_DIR:-$root/build-fuzz}")"
cxx="${NVFP4_FUZZ_CXX:-clang++}"
sanitizers="${NVFP4_FUZZ_SANITIZERS:-address,undefined}"
jobs="${NVFP4_FUZZ_JOBS:-1}"

die() {
  printf 'error: %s\n' "$*" >&2
  exit 1
}

command -v "$cxx" >/dev/null 2>&1 ||
  die "$cxx not found; install it with: apt-get install -y clang"
[[ "$seconds" =~ ^[0-9]+$ ]] || die "SECONDS must be a number, got '$seconds'"

mkdir -p "$work/obj" "$work/corpus" "$work/seed" "$work/artifacts"

flags=(-std=c++17 -O1 -g -fno-exceptions -fno-omit-frame-pointer
  "-fsanitize=fuzzer-no-link,$sanitizers" -fno-sanitize-recover=all
  -I"$root/include")

# Compile each source when it is newer than its object.
objs=()
for src in "$root"/lib/Emulator/*.cpp "$root"/lib/Support/*.cpp \
  "$root/fuzz/ptx_parser_fuzzer.cpp"; do
  obj="$work/obj/$(basename "${src%.cpp}").o"
  extra=()
  [[ "$(basename "$src")" == FloatFormats.cpp ]] && extra=(-frounding-math)
  if [[ ! -f "$obj" || "$src" -nt "$obj" ||
    -n "$(find "$root/include/nvfp4" "$root/lib/Emulator" -name '*.h' -newer "$obj" 2>/dev/null)" ]]; then
    printf '==> compiling %s\n' "${src#"$root"/}"
    "$cxx" "${flags[@]}" "${extra[@]}" -c "$src" -o "$obj"
  fi
  objs+=("$obj")
done
printf '==> linking %s\n' "$work/ptx_parser_fuzzer"
"$cxx" "-fsanitize=fuzzer,$sanitizers" "${objs[@]}" -o "$work/ptx_parser_fuzzer"

# Seeds: every PTX input of the tests (copied fresh, so edits are picked up)
# and the GEMM examples' PTX a build generated (NVFP4_BUILD_DIR, default
# build), which holds the tcgen05 forms.
rm -f "$work/seed"/*
cp "$root"/test/Emulator/Inputs/*.ptx "$work/seed/"
gen="${NVFP4_BUILD_DIR:-$root/build}/unittests/Emulator/Inputs"
if compgen -G "$gen/*.ptx" >/dev/null; then
  cp "$gen"/*.ptx "$work/seed/"
fi

printf '==> fuzzing for %s seconds (corpus: %s)\n' "$seconds" "$work/corpus"
parallel=()
# With -jobs, libFuzzer writes each job's output to fuzz-<n>.log in $work.
((jobs > 1)) && parallel=(-jobs="$jobs" -workers="$jobs")
cd "$work"
exec ./ptx_parser_fuzzer \
  -max_total_time="$seconds" \
  -timeout=20 \
  -rss_limit_mb=2560 \
  -max_len=65536 \
  "${parallel[@]}" \
  -dict="$root/fuzz/ptx.dict" \
  -artifact_prefix="$work/artifacts/" \
  -print_final_stats=1 \
  "$work/corpus" "$work/seed"
