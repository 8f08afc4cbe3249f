#!/usr/bin/env bash
#===- sass.sh - the SASS of a PTX file, here, without a GPU ----------------===#
#
# A diagnostic for spills and code placement (docs/Hopper.md, "Spills of
# the larger sweep, removed"): assembles PTX with CUDA 13's ptxas for
# sm_90a (or $ARCH) and disassembles the cubin with cuobjdump. CUDA 13 here
# has no cuobjdump; Debian's non-free archive has CUDA 11.8's, which reads
# sm_90 code once the cubin's ELF header carries the old layout of its
# flags (ABI version 7, e_flags 0x5a055a: SM 90 in the low byte). The .deb
# is downloaded once into $NVFP4_SASS_CACHE (default /tmp/nvfp4-sass) and
# only cuobjdump is unpacked from it; nothing is installed. Not a build or
# test dependency. Spills show as STL / LDL; ptxas -v counts them.
#
# Usage: scripts/sass.sh KERNEL.ptx [OUT.sass]   (default: stdout)
#
#===----------------------------------------------------------------------===#
set -euo pipefail
PTX="${1:?usage: scripts/sass.sh KERNEL.ptx [OUT.sass]}"
ARCH="${ARCH:-sm_90a}"
CACHE="${NVFP4_SASS_CACHE:-/tmp/nvfp4-sass}"
CUOBJDUMP="$CACHE/x/usr/bin/cuobjdump"
if [[ ! -x "$CUOBJDUMP" ]]; then
  mkdir -p "$CACHE"
  LIST=/etc/apt/sources.list.d/nvfp4-nonfree.list
  if ! apt-cache policy nvidia-cuda-toolkit 2>/dev/null | grep -q Candidate: ||
    apt-cache policy nvidia-cuda-toolkit | grep -q "Candidate: (none)"; then
    echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]" \
      "http://deb.debian.org/debian bookworm non-free" >"$LIST"
    apt-get update -qq
  fi
  (cd "$CACHE" && apt-get download -qq nvidia-cuda-toolkit 2>/dev/null &&
    dpkg-deb -x nvidia-cuda-toolkit_*.deb x)
fi
CUBIN="$(mktemp --suffix=.cubin)"
trap 'rm -f "$CUBIN"' EXIT
/usr/local/cuda/bin/ptxas -arch="$ARCH" "$PTX" -o "$CUBIN"
python3 - "$CUBIN" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
b[8] = 7                                  # EI_ABIVERSION of CUDA <= 12
struct.pack_into("<I", b, 0x30, 0x5a055a)  # e_flags: sm_90, old layout
open(sys.argv[1], "wb").write(b)
PY
"$CUOBJDUMP" -sass "$CUBIN" | grep -v '^\s*$' | sed 's|/\* 0x[0-9a-f]* \*/||' |
  if [[ -n "${2:-}" ]]; then cat >"$2"; else cat; fi
