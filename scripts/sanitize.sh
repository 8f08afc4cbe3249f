#!/usr/bin/env bash
#===- sanitize.sh - the test suite under AddressSanitizer + UBSan ----------===#
#
# Builds nvfp4 with -fsanitize=address,undefined (-fno-sanitize-recover=all,
# so undefined behaviour stops the program; -fno-omit-frame-pointer) in a
# build directory of its own and runs the tests there. Any sanitizer report,
# from any process (also one whose exit status a test expects to be non-zero,
# or a tool a Python script runs), fails the script.
#
# Usage: scripts/sanitize.sh [--ci]
#
#   (no argument)  the whole suite: builds everything into build-asan/ and
#                  runs scripts/test.sh there (ctest: the GoogleTest unit
#                  tests and the lit suite), ending with test.sh's
#                  `N passed, M failed` line. From an empty directory
#                  about 45 minutes on two shared cores (build about 25,
#                  ctest 18 to 23); docs/Robustness.md has the figures.
#   --ci           the short subset CI runs (.ci/run): builds only the plain
#                  C++ libraries (lib/Support, lib/Emulator, lib/Runtime) and
#                  their unit tests SupportTests and RuntimeTests into
#                  build-asan-ci/ and runs those two binaries. No MLIR code
#                  is compiled. EmulatorTests is left out: building it
#                  needs nvfp4-opt (it compiles the GEMM examples to PTX).
#
# Environment:
#   NVFP4_SANITIZE_DIR  build directory (default: <repo>/build-asan, or
#                       <repo>/build-asan-ci with --ci)
#   NVFP4_JOBS          build parallelism (default: nproc)
#   CUDA_HOME           CUDA 13 toolkit (default: /usr/local/cuda)
#
# The compiler is g++ (the project's), whose sanitizer runtimes are shared
# libraries (libasan.so, libubsan.so). The build is Release with -O1 -g1
# (line tables for the reports) and NDEBUG, like Debian's LLVM.
#
# Reports go to files, not to the tests' output: ASAN_OPTIONS and
# UBSAN_OPTIONS set log_path to <build>/sanitizer-reports/, and the script
# prints every report there at the end and exits 1 if there is one.
# abort_on_error=1 makes a report end the process with SIGABRT, so that a
# test that expects exit status 1 (`not`, %expect_exit 1) cannot mistake a
# sanitizer's exit for its own. LeakSanitizer is on.
#
# allow_user_poisoning=0: our code inlines LLVM's BumpPtrAllocator
# (llvm/Support/Allocator.h), which under ASan poisons each slab it starts
# and unpoisons what it hands out. Debian's libMLIR.so is not instrumented
# and allocates from the same slabs (the MLIRContext's uniquers) without
# unpoisoning, so ASan reports a use-after-poison inside MLIR (StringAttr::get,
# FileLineColRange::get, ...) that is not a bug. The option turns that manual
# poisoning off; the compiler-inserted checks (heap, stack, globals,
# use-after-free, use-after-scope, leaks) stay.
#
# Debian's mlir-opt, which the plugin tests load build-asan/lib/
# NVFP4Plugin.so into, is not instrumented, and the ASan runtime must be the
# first library of a process. lit takes `mlir-opt` from the build's bin/
# before LLVM's (test/lit.cfg.py), so the script puts a wrapper there that
# runs /usr/lib/llvm-22/bin/mlir-opt with LD_PRELOAD=libasan.so, and
# detect_leaks=0: the leaks of an uninstrumented upstream tool are not ours
# (the plugin's code is instrumented; everything else stays checked).
#
# Exit status: 0 when every test passed and no sanitizer reported anything.
#
#===----------------------------------------------------------------------===#

set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

mode=full
case "${1:-}" in
"") ;;
--ci) mode=ci ;;
-h | --help)
  sed -n '2,/^#===-----/p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
  exit 0
  ;;
*) nvfp4_die "unknown argument '$1' (usage: scripts/sanitize.sh [--ci])" ;;
esac

if [[ "$mode" == ci ]]; then
  default_dir="$NVFP4_ROOT/build-asan-ci"
else
  default_dir="$NVFP4_ROOT/build-asan"
fi
build="$(realpath -m "${NVFP4_SANITIZE_DIR:-$default_dir}")"
jobs="${NVFP4_JOBS:-$(nproc)}"
[[ "$build" != *[[:space:]]* ]] ||
  nvfp4_die "'$build' contains whitespace, which the LLVM build cannot handle"

cflags="-fsanitize=address,undefined -fno-sanitize-recover=all"
cflags+=" -fno-omit-frame-pointer -g1"
ldflags="-fsanitize=address,undefined"

nvfp4_install_packages
nvfp4_check_cuda

libasan="$(g++ -print-file-name=libasan.so)"
[[ -e "$libasan" ]] || nvfp4_die "g++ has no libasan.so (Debian package libasan8 / g++)"
libasan="$(realpath "$libasan")"

# A build directory keeps the generator and the flags it was made with.
args=()
if [[ ! -f "$build/CMakeCache.txt" ]]; then
  if command -v ninja >/dev/null 2>&1; then
    args+=(-G Ninja)
  else
    args+=(-G "Unix Makefiles")
  fi
fi
nvfp4_log "configuring $build (-fsanitize=address,undefined)"
cmake -S "$NVFP4_ROOT" -B "$build" "${args[@]}" \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++ \
  "-DCMAKE_C_FLAGS=$cflags" "-DCMAKE_CXX_FLAGS=$cflags" \
  "-DCMAKE_C_FLAGS_RELEASE=-O1 -DNDEBUG" \
  "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -DNDEBUG" \
  "-DCMAKE_EXE_LINKER_FLAGS=$ldflags" \
  "-DCMAKE_SHARED_LINKER_FLAGS=$ldflags" \
  "-DCMAKE_MODULE_LINKER_FLAGS=$ldflags" \
  -DNVFP4_LLVM_ROOT="$NVFP4_LLVM_ROOT" \
  -DNVFP4_CUDA_ROOT="$CUDA_HOME" >/dev/null ||
  nvfp4_die "cmake configure failed (run it again without >/dev/null to see why)"

# Where every sanitizer report goes (one file per reporting process).
reports="$build/sanitizer-reports"
rm -rf "$reports"
mkdir -p "$reports"
symbolizer="$NVFP4_LLVM_ROOT/bin/llvm-symbolizer"
common="abort_on_error=1:halt_on_error=1:print_stacktrace=1"
export ASAN_OPTIONS="$common:detect_leaks=1:allow_user_poisoning=0:log_path=$reports/asan"
export UBSAN_OPTIONS="$common:log_path=$reports/ubsan"
if [[ -x "$symbolizer" ]]; then
  export ASAN_SYMBOLIZER_PATH="$symbolizer"
  export UBSAN_SYMBOLIZER_PATH="$symbolizer"
fi

# Prints the reports and fails when there is one.
check_reports() {
  local files
  mapfile -t files < <(find "$reports" -type f | sort)
  if ((${#files[@]})); then
    local f
    for f in "${files[@]}"; do
      printf '\n==> sanitizer report %s\n' "$f"
      cat "$f"
    done
    printf '\nerror: %d sanitizer report(s) in %s\n' "${#files[@]}" "$reports" >&2
    return 1
  fi
  nvfp4_log "no sanitizer reports"
}

status=0
start=$SECONDS
if [[ "$mode" == ci ]]; then
  nvfp4_log "building SupportTests and RuntimeTests with $jobs jobs"
  cmake --build "$build" --parallel "$jobs" \
    --target SupportTests RuntimeTests NVFP4MockCudaDriver ||
    nvfp4_die "build failed (see above)"
  nvfp4_log "built in $((SECONDS - start)) s"
  for test in SupportTests RuntimeTests; do
    nvfp4_log "running $test"
    "$build/unittests/$test" --gtest_brief=1 || status=1
  done
else
  # lit finds `mlir-opt` in the build's bin/ first.
  mkdir -p "$build/bin"
  cat >"$build/bin/mlir-opt" <<EOF
#!/bin/sh
# Written by scripts/sanitize.sh: Debian's mlir-opt with the ASan runtime
# loaded first, so that the instrumented NVFP4Plugin.so can be loaded.
LD_PRELOAD="$libasan\${LD_PRELOAD:+:\$LD_PRELOAD}" \\
ASAN_OPTIONS="\${ASAN_OPTIONS:+\$ASAN_OPTIONS:}detect_leaks=0" \\
  exec "$NVFP4_LLVM_ROOT/bin/mlir-opt" "\$@"
EOF
  chmod +x "$build/bin/mlir-opt"
  # scripts/test.sh configures (keeping the sanitizer flags cached above),
  # builds, runs ctest and prints the summary.
  NVFP4_BUILD_DIR="$build" NVFP4_JOBS="$jobs" "$NVFP4_ROOT/scripts/test.sh" ||
    status=1
fi
check_reports || status=1
nvfp4_log "sanitize ($mode): $((SECONDS - start)) s, exit status $status"
exit "$status"
