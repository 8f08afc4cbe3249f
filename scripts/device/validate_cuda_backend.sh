#!/usr/bin/env bash
#===- validate_cuda_backend.sh - check the cuda backend on a real GPU ------===#
#
# Run from the repository root on a machine with an NVIDIA GPU (made for an
# H200: compute capability 9.0), CUDA 13 at /usr/local/cuda (or CUDA_HOME),
# CMake or a C++17 compiler, and python3. Needs no LLVM/MLIR and no network:
# it builds only the runtime and nvfp4-run (scripts/device/CMakeLists.txt),
# then checks, each on its own so that one failure does not hide the rest:
#
#   build    the standalone build; RuntimeTests too where GoogleTest exists
#   driver   the no-driver path (NVFP4_CUDA_DRIVER_LIB=<missing>)
#   (a)      sm_90a PTX from nvcc: saxpy with seed-filled buffers written back
#            and checked against a CPU reference; every scalar width; grid,
#            cluster (2 and a non-portable 16) and 200000 bytes of dynamic
#            shared memory reaching the kernel; the same saxpy as a cubin
#            assembled here with ptxas
#   (b)      TMA tiled 2-D loads (cp.async.bulk.tensor + mbarrier) of a bf16
#            tensor with swizzle 128B, 64B, 32B and none, in bounds, partly
#            out of bounds and at negative coordinates, the tensor map by
#            value and by pointer; the shared-memory tile is copied out and
#            compared with the swizzle formula
#   (c)      an sm_100a cubin and sm_100a PTX are refused with the clear
#            message, non-zero exit
#   (d)      errors from the real driver: unknown kernel in a cubin, a PTX
#            JIT error with its log, a kernel that faults
#
# Usage: scripts/device/validate_cuda_backend.sh [OUTDIR]
#   OUTDIR defaults to $OUT, else ./build-device-validate. Written there:
#   summary.txt (one PASS/FAIL line per check, then "N passed, M failed"),
#   validate.log (everything, with each command and its output), and
#   outputs.tar.gz (the buffers the checks wrote).
# Exit status 0 when every check passed.
#
#===----------------------------------------------------------------------===#

set -u -o pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUTDIR="${1:-${OUT:-$ROOT/build-device-validate}}"
mkdir -p "$OUTDIR"
OUTDIR="$(cd "$OUTDIR" && pwd)"
CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}"
PYTHON="${PYTHON:-python3}"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/nvfp4-validate.XXXXXX")"
BUILD="$WORK/build"
DATA="$WORK/data"
INPUTS="$ROOT/test/Runtime/Inputs"
CHECK="$ROOT/scripts/device/check_outputs.py"
RUN_TIMEOUT="${NVFP4_RUN_TIMEOUT:-120}"
mkdir -p "$DATA"

LOG="$OUTDIR/validate.log"
SUMMARY="$OUTDIR/summary.txt"
: >"$SUMMARY"

PASSED=0
FAILED=0
pass() {
  PASSED=$((PASSED + 1))
  echo "PASS $1${2:+: $2}" | tee -a "$SUMMARY"
}
fail() {
  FAILED=$((FAILED + 1))
  echo "FAIL $1${2:+: $2}" | tee -a "$SUMMARY"
}
section() { printf '\n===== %s =====\n' "$*"; }

# run_tool NAME EXPECTED_STATUS ARGS...: runs nvfp4-run with a timeout,
# logs the command and its output to $DATA/NAME.txt, and returns 0 when it
# exited with EXPECTED_STATUS.
run_tool() {
  local name="$1" expected="$2"
  shift 2
  echo "\$ nvfp4-run $*"
  local status=0
  (cd "$DATA" && timeout "$RUN_TIMEOUT" "$NVFP4_RUN" "$@") >"$DATA/$name.txt" 2>&1 || status=$?
  cat "$DATA/$name.txt"
  echo "(exit status $status)"
  if [[ "$status" == 124 ]]; then
    echo "timed out after ${RUN_TIMEOUT}s (a hang: a TMA transaction or barrier that never completes?)"
  fi
  [[ "$status" == "$expected" ]]
}

# check NAME CHECKER-ARGS...: runs check_outputs.py and records its verdict.
check() {
  local name="$1"
  shift
  local line
  line="$(cd "$DATA" && "$PYTHON" "$CHECK" "$@" 2>&1)"
  local status=$?
  echo "$line"
  if [[ $status == 0 ]]; then
    pass "$name" "${line#PASS }"
  else
    fail "$name" "$line"
  fi
}

main() {
section "environment"
date -u
uname -a
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total --format=csv
"$CUDA_HOME/bin/nvcc" --version 2>/dev/null | tail -2
"$CUDA_HOME/bin/ptxas" --version 2>/dev/null | tail -1
cmake --version 2>/dev/null | head -1
c++ --version 2>/dev/null | head -1
"$PYTHON" --version
echo "repository: $ROOT"
git -C "$ROOT" log -1 --format='commit %H %s' 2>/dev/null || true
echo "work directory: $WORK"

#===----------------------------------------------------------------------===#
section "build"
#===----------------------------------------------------------------------===#
NVFP4_RUN="$BUILD/bin/nvfp4-run"
built=0
if command -v cmake >/dev/null; then
  generator=()
  command -v ninja >/dev/null && generator=(-G Ninja)
  if cmake -S "$ROOT/scripts/device" -B "$BUILD" "${generator[@]}" \
      -DCMAKE_BUILD_TYPE=Release -DNVFP4_CUDA_ROOT="$CUDA_HOME" &&
    cmake --build "$BUILD" --parallel "$(nproc)"; then
    built=1
  fi
fi
if [[ $built == 0 ]]; then
  cxx="${CXX:-$(command -v c++ || command -v g++ || command -v clang++)}"
  echo "cmake build unavailable or failed: compiling directly with ${cxx:-<no C++ compiler>}"
  mkdir -p "$BUILD/bin"
  sources=()
  for f in $(sed -n 's/^ *\([A-Za-z]*\.cpp\)$/\1/p' "$ROOT/lib/Runtime/Sources.cmake"); do
    sources+=("$ROOT/lib/Runtime/$f")
  done
  # The emulator backend: lib/Emulator and lib/Support (whose TensorMap.cpp
  # the runtime's forwarder already compiles).
  for f in "$ROOT"/lib/Emulator/*.cpp "$ROOT"/lib/Support/*.cpp; do
    [[ $f == */lib/Support/TensorMap.cpp ]] || sources+=("$f")
  done
  if [[ -n "$cxx" ]] && "$cxx" -std=c++17 -O2 -frounding-math -I"$ROOT/include" -I"$CUDA_HOME/include" \
      "${sources[@]}" "$ROOT/tools/nvfp4-run/nvfp4-run.cpp" \
      "$ROOT/tools/nvfp4-run/MlirMode.cpp" -ldl -o "$NVFP4_RUN"; then
    built=1
  fi
fi
if [[ $built == 1 && -x "$NVFP4_RUN" ]]; then
  pass build "nvfp4-run built without LLVM"
else
  fail build "could not build nvfp4-run (see validate.log)"
  printf '%d passed, %d failed\n' "$PASSED" "$FAILED" | tee -a "$SUMMARY"
  return 1
fi
if [[ -x "$BUILD/bin/RuntimeTests" ]]; then
  if "$BUILD/bin/RuntimeTests" --gtest_brief=1; then
    pass unit-tests "RuntimeTests (mock driver) passed here too"
  else
    fail unit-tests "RuntimeTests failed"
  fi
else
  echo "GoogleTest not installed: RuntimeTests not built (they run in CI)"
fi

#===----------------------------------------------------------------------===#
section "driver: the no-driver path"
#===----------------------------------------------------------------------===#
saxpy_small=(--grid=1 --block=32 --arg=f32:1 --arg=buf:x:64:seed=1:f32
  --arg=buf:y:64:zero --arg=u32:16)
if NVFP4_CUDA_DRIVER_LIB=/nonexistent/libcuda.so.1 run_tool no-driver 1 \
    "$INPUTS/saxpy_sm90a.ptx" "${saxpy_small[@]}" &&
  grep -q "no CUDA driver (/nonexistent/libcuda.so.1) on this machine" "$DATA/no-driver.txt"; then
  pass no-driver "clear error, exit 1"
else
  fail no-driver "expected 'no CUDA driver (...) on this machine' and exit 1"
fi

#===----------------------------------------------------------------------===#
section "(a) sm_90a PTX: saxpy"
#===----------------------------------------------------------------------===#
N=1000003
BLOCKS=$(((N + 255) / 256))
if run_tool saxpy 0 "$INPUTS/saxpy_sm90a.ptx" --kernel=saxpy \
    --grid=$BLOCKS --block=256 --arg=f32:2.5 \
    --arg=buf:x:$((N * 4)):seed=1:f32:out=saxpy_x.bin \
    --arg=buf:y:$((N * 4)):seed=2:f32:dump-init=saxpy_y0.bin:out=saxpy_y.bin \
    --arg=u32:$N; then
  check saxpy saxpy --a=2.5 --x=saxpy_x.bin --y0=saxpy_y0.bin --y=saxpy_y.bin --n=$N
else
  fail saxpy "nvfp4-run failed (see validate.log)"
fi

# The same kernel as a cubin assembled here (the cubin loading path).
if "$CUDA_HOME/bin/ptxas" -arch=sm_90a "$INPUTS/saxpy_sm90a.ptx" -o "$DATA/saxpy_sm90a.cubin"; then
  if run_tool saxpy-cubin 0 saxpy_sm90a.cubin --kernel=saxpy --grid=40 \
      --block=256 --arg=f32:-0.5 \
      --arg=buf:x:40000:seed=3:f32:out=cubin_x.bin \
      --arg=buf:y:40000:seed=4:f32:dump-init=cubin_y0.bin:out=cubin_y.bin \
      --arg=u32:10000; then
    check saxpy-cubin saxpy --a=-0.5 --x=cubin_x.bin --y0=cubin_y0.bin --y=cubin_y.bin --n=10000
  else
    fail saxpy-cubin "nvfp4-run failed on the cubin (see validate.log)"
  fi
else
  fail saxpy-cubin "ptxas -arch=sm_90a failed"
fi

#===----------------------------------------------------------------------===#
section "(a) sm_90a PTX: scalar parameters of every width"
#===----------------------------------------------------------------------===#
if run_tool params 0 "$INPUTS/launch_sm90a.ptx" --kernel=params --grid=1 \
    --block=32 --arg=u8:200 --arg=u16:65000 --arg=u32:4000000000 \
    --arg=i32:-123456789 --arg=u64:0x123456789abcdef0 \
    --arg=i64:-8000000000000000000 --arg=f32:1.5 --arg=f64:-2.25e-300 \
    --arg=buf:out:64:poison:out=params.bin; then
  check params params --out=params.bin --u8=200 --u16=65000 --u32=4000000000 \
    --i32=-123456789 --u64=0x123456789abcdef0 --i64=-8000000000000000000 \
    --f32=1.5 --f64=-2.25e-300
else
  fail params "nvfp4-run failed (see validate.log)"
fi

#===----------------------------------------------------------------------===#
section "(a) launch shape: grid, cluster, dynamic shared memory"
#===----------------------------------------------------------------------===#
# 8x2 CTAs in clusters of 2 with 200000 bytes of dynamic shared memory
# (above 48 KiB: needs the opt-in attribute).
if run_tool launch-cluster2 0 "$INPUTS/launch_sm90a.ptx" --kernel=launch_info \
    --grid=8,2 --block=128 --cluster=2 --smem=200000 \
    --arg=buf:out:$((16 * 32)):poison:out=launch2.bin; then
  check launch-cluster2 launch-info --out=launch2.bin --grid=8,2 --block=128 --cluster=2 --smem=200000
else
  fail launch-cluster2 "nvfp4-run failed (see validate.log)"
fi
# A non-portable cluster of 16 (needs CU_FUNC_ATTRIBUTE_NON_PORTABLE_
# CLUSTER_SIZE_ALLOWED); no dynamic shared memory.
if run_tool launch-cluster16 0 "$INPUTS/launch_sm90a.ptx" --kernel=launch_info \
    --grid=32 --block=64 --cluster=16 \
    --arg=buf:out:$((32 * 32)):poison:out=launch16.bin; then
  check launch-cluster16 launch-info --out=launch16.bin --grid=32,1 --block=64 --cluster=16 --smem=0
else
  fail launch-cluster16 "nvfp4-run failed (see validate.log)"
fi

#===----------------------------------------------------------------------===#
section "(b) TMA: cp.async.bulk.tensor 2-D tiles with swizzles"
#===----------------------------------------------------------------------===#
# A 256 x 96 bf16 tensor (rows of 512 bytes), random, never zero.
G_DIMS=256,96
G_STRIDE=512
G_BYTES=$((256 * 96 * 2))
tma_case() { # name kernel by swizzle box0 box1 c0 c1
  local name="$1" kernel="$2" by="$3" swz="$4" b0="$5" b1="$6" c0="$7" c1="$8"
  local bytes=$((b0 * b1 * 2))
  if run_tool "$name" 0 "$INPUTS/tma_sm90a.ptx" --kernel="$kernel" --grid=1 \
      --block=128 --buf=g:$G_BYTES:seed=11:bf16:out="$name-g.bin" \
      --arg=tmap:g:dtype=bf16:dims=$G_DIMS:strides=$G_STRIDE:box=$b0,$b1:swizzle=$swz:by=$by \
      --arg=buf:out:$((8192 + 16)):poison:out="$name.bin" \
      --arg=i32:$c0 --arg=i32:$c1 --arg=u32:$bytes; then
    check "$name" tma --global="$name-g.bin" --out="$name.bin" --dims=$G_DIMS \
      --stride=$G_STRIDE --elem=2 --box=$b0,$b1 --coords=$c0,$c1 --swizzle="$swz"
  else
    fail "$name" "nvfp4-run failed (see validate.log)"
  fi
}
tma_case tma-128B tma_load_2d value 128B 64 32 64 32
tma_case tma-128B-64rows tma_load_2d value 128B 64 64 128 16
tma_case tma-128B-oob tma_load_2d value 128B 64 32 224 80
tma_case tma-128B-ptr tma_load_2d_ptr pointer 128B 64 32 0 0
tma_case tma-64B tma_load_2d value 64B 32 32 32 8
tma_case tma-32B tma_load_2d value 32B 16 32 16 4
tma_case tma-none-negative tma_load_2d value none 64 32 -16 -8

#===----------------------------------------------------------------------===#
section "(c) sm_100a is refused on this GPU"
#===----------------------------------------------------------------------===#
REFUSAL='this kernel targets sm_100a but the GPU is sm_[0-9]+ \(.+\); use --backend=emulator'
refusal_case() { # name file
  local name="$1" file="$2"
  if run_tool "$name" 1 "$file" --kernel=sm100a_kernel --grid=1 --block=32 \
      --arg=buf:out:4:zero &&
    grep -Eq "$REFUSAL" "$DATA/$name.txt"; then
    pass "$name" "$(grep -Eo "$REFUSAL" "$DATA/$name.txt")"
  else
    fail "$name" "expected exit 1 and '$REFUSAL'"
  fi
}
refusal_case refuse-sm100a-cubin "$INPUTS/sm100a_kernel.cubin"
refusal_case refuse-sm100a-ptx "$INPUTS/sm100a_kernel.ptx"
if "$CUDA_HOME/bin/ptxas" -arch=sm_100a "$INPUTS/sm100a_kernel.ptx" -o "$DATA/sm100a_here.cubin"; then
  refusal_case refuse-sm100a-cubin-ptxas-here "$DATA/sm100a_here.cubin"
else
  fail refuse-sm100a-cubin-ptxas-here "ptxas -arch=sm_100a failed"
fi

#===----------------------------------------------------------------------===#
section "(d) errors from the real driver"
#===----------------------------------------------------------------------===#
if run_tool unknown-kernel 1 saxpy_sm90a.cubin --kernel=daxpy --grid=1 \
    --block=32 "${saxpy_small[@]:2}" &&
  grep -q "no kernel named 'daxpy' in saxpy_sm90a.cubin (cuModuleGetFunction: CUDA_ERROR_NOT_FOUND" "$DATA/unknown-kernel.txt"; then
  pass unknown-kernel "named with CUDA_ERROR_NOT_FOUND"
else
  fail unknown-kernel "expected \"no kernel named 'daxpy' ... CUDA_ERROR_NOT_FOUND\" and exit 1"
fi

cat >"$DATA/jit_error.ptx" <<'PTX'
// An undefined register: the driver's JIT rejects it (MOCK_JIT_ERROR makes
// the test driver of unittests/Runtime reject it too).
.version 8.0
.target sm_90
.address_size 64
.visible .entry broken(.param .u64 p)
{
	.reg .b32 %r<2>;
	mov.u32 %r1, %undefined_register;
	ret;
}
PTX
if run_tool jit-error 1 jit_error.ptx --grid=1 --block=1 --arg=buf:p:4:zero &&
  grep -q "cuModuleLoadDataEx failed: CUDA_ERROR_INVALID_PTX" "$DATA/jit-error.txt" &&
  grep -qi "ptxas" "$DATA/jit-error.txt"; then
  pass jit-error "CUDA_ERROR_INVALID_PTX with the ptxas log"
else
  fail jit-error "expected 'cuModuleLoadDataEx failed: CUDA_ERROR_INVALID_PTX' and the JIT log"
fi

cat >"$DATA/fault.ptx" <<'PTX'
.version 8.0
.target sm_90
.address_size 64
.visible .entry fault(.param .u64 p)
{
	.reg .b64 %rd<2>;
	mov.u64 %rd1, 0;
	st.global.u32 [%rd1], 1;
	ret;
}
PTX
if run_tool fault 1 fault.ptx --grid=1 --block=1 --arg=u64:0 &&
  grep -q "the kernel failed: cuCtxSynchronize: CUDA_ERROR_" "$DATA/fault.txt"; then
  pass fault "$(grep -o 'CUDA_ERROR_[A-Z_]*' "$DATA/fault.txt" | head -1) reported"
else
  fail fault "expected 'the kernel failed: cuCtxSynchronize: CUDA_ERROR_...' and exit 1"
fi

#===----------------------------------------------------------------------===#
section "summary"
#===----------------------------------------------------------------------===#
(cd "$DATA" && tar -czf "$OUTDIR/outputs.tar.gz" --exclude='saxpy_*.bin' . ) ||
  echo "could not pack the outputs"
printf '%d passed, %d failed\n' "$PASSED" "$FAILED" | tee -a "$SUMMARY"
[[ $FAILED == 0 ]]
}

# Everything goes to the terminal and to validate.log; the pipeline waits
# for tee, so the log is complete when the script returns.
main 2>&1 | tee "$LOG"
status=${PIPESTATUS[0]}
rm -rf "$WORK"
exit "$status"
