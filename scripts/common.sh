# shellcheck shell=bash
#===- common.sh - set-up shared by scripts/demo.sh and scripts/test.sh ---===#
#
# Sourced, not run. Provides:
#   nvfp4_setup   install what is missing, check CUDA 13, configure, build
# and the variables NVFP4_ROOT, NVFP4_BUILD_DIR, NVFP4_LLVM_ROOT, CUDA_HOME.
#
# Environment:
#   NVFP4_BUILD_DIR  build directory (default: <repo>/build)
#   CUDA_HOME        CUDA 13 toolkit (default: /usr/local/cuda)
#   NVFP4_JOBS       build parallelism (default: nproc)
#
#===----------------------------------------------------------------------===#

set -euo pipefail

NVFP4_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
NVFP4_BUILD_DIR="$(realpath -m "${NVFP4_BUILD_DIR:-$NVFP4_ROOT/build}")"
NVFP4_LLVM_ROOT=/usr/lib/llvm-22
CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}"
export CUDA_HOME

# Debian packages the build needs, each with a file that shows it is there.
NVFP4_PACKAGES=(
  "libmlir-22-dev:$NVFP4_LLVM_ROOT/lib/cmake/mlir/MLIRConfig.cmake"
  "mlir-22-tools:$NVFP4_LLVM_ROOT/bin/mlir-opt"
  "llvm-22-dev:$NVFP4_LLVM_ROOT/lib/cmake/llvm/LLVMConfig.cmake"
  "llvm-22-tools:$NVFP4_LLVM_ROOT/bin/FileCheck"
  "cmake:cmake"
  "ninja-build:ninja"
  "g++:g++"
  "libgtest-dev:/usr/include/gtest/gtest.h"
)

nvfp4_log() { printf '==> %s\n' "$*"; }
nvfp4_die() {
  printf 'error: %s\n' "$*" >&2
  exit 1
}

# True when a Debian package is installed; where dpkg is absent, when the file
# or command that stands for it exists.
_nvfp4_have_package() {
  local package="$1" probe="$2"
  if command -v dpkg-query >/dev/null 2>&1; then
    [[ "$(dpkg-query -W -f='${db:Status-Status}' "$package" 2>/dev/null)" == installed ]]
  elif [[ "$probe" == /* ]]; then
    [[ -e "$probe" ]]
  else
    command -v "$probe" >/dev/null 2>&1
  fi
}

# Installs the missing packages with apt-get (sudo only when not root). Does
# nothing, and touches no package list, when everything is there.
nvfp4_install_packages() {
  local entry package missing=()
  for entry in "${NVFP4_PACKAGES[@]}"; do
    package="${entry%%:*}"
    _nvfp4_have_package "$package" "${entry#*:}" || missing+=("$package")
  done
  if ((${#missing[@]} == 0)); then
    nvfp4_log "build dependencies: all present"
    return 0
  fi

  nvfp4_log "installing missing packages: ${missing[*]}"
  command -v apt-get >/dev/null 2>&1 ||
    nvfp4_die "missing ${missing[*]} and no apt-get to install them with (nvfp4 expects Debian 12)"
  local sudo=()
  if [[ "$(id -u)" -ne 0 ]]; then
    command -v sudo >/dev/null 2>&1 ||
      nvfp4_die "missing ${missing[*]}: run as root or install sudo"
    sudo=(sudo)
  fi
  "${sudo[@]}" apt-get update ||
    nvfp4_die "apt-get update failed"
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y --no-install-recommends "${missing[@]}" ||
    nvfp4_die "apt-get install ${missing[*]} failed"
}

# Exits with a clear message unless $CUDA_HOME holds CUDA 13 (ptxas + nvcc).
nvfp4_check_cuda() {
  local ptxas="$CUDA_HOME/bin/ptxas" nvcc="$CUDA_HOME/bin/nvcc" release
  local hint="nvfp4 needs the CUDA 13 toolkit (ptxas, nvcc) at /usr/local/cuda, or set CUDA_HOME to where it is"
  [[ -x "$ptxas" ]] || nvfp4_die "no ptxas at $ptxas. $hint"
  [[ -x "$nvcc" ]] || nvfp4_die "no nvcc at $nvcc. $hint"
  release="$("$nvcc" --version | sed -n 's/.*release \([0-9][0-9]*\.[0-9][0-9]*\).*/\1/p' | head -n 1)"
  [[ -n "$release" ]] || nvfp4_die "cannot read the CUDA release from '$nvcc --version'. $hint"
  [[ "$release" == 13.* ]] || nvfp4_die "found CUDA $release at $CUDA_HOME, expected 13.x. $hint"
  nvfp4_log "CUDA $release at $CUDA_HOME"
}

# Configures (Release; Ninja when present, else Makefiles) and builds all.
nvfp4_configure_and_build() {
  local jobs="${NVFP4_JOBS:-$(nproc)}" args=()
  # A build directory keeps the generator it was made with.
  if [[ ! -f "$NVFP4_BUILD_DIR/CMakeCache.txt" ]]; then
    if command -v ninja >/dev/null 2>&1; then
      args+=(-G Ninja)
    else
      args+=(-G "Unix Makefiles")
    fi
  fi
  nvfp4_log "configuring in $NVFP4_BUILD_DIR"
  cmake -S "$NVFP4_ROOT" -B "$NVFP4_BUILD_DIR" "${args[@]}" \
    -DCMAKE_BUILD_TYPE=Release \
    -DNVFP4_LLVM_ROOT="$NVFP4_LLVM_ROOT" \
    -DNVFP4_CUDA_ROOT="$CUDA_HOME" ||
    nvfp4_die "cmake configure failed (see above)"
  nvfp4_log "building with $jobs jobs"
  cmake --build "$NVFP4_BUILD_DIR" --parallel "$jobs" ||
    nvfp4_die "build failed (see above)"
}

nvfp4_setup() {
  # LLVM's CMake modules (and pass options such as ptx-file=...) split paths
  # at whitespace.
  local dir
  for dir in "$NVFP4_ROOT" "$NVFP4_BUILD_DIR"; do
    [[ "$dir" != *[[:space:]]* ]] ||
      nvfp4_die "'$dir' contains whitespace, which the LLVM build cannot handle; use a path without (NVFP4_BUILD_DIR sets the build directory)"
  done
  nvfp4_install_packages
  nvfp4_check_cuda
  nvfp4_configure_and_build
}
