#!/usr/bin/env bash
#===- gen_flashmla_sources.sh - FlashMLA's sources for the H200 peer bench ===#
#
# Run here, after the `fetch` tool has mirrored deepseek-ai/FlashMLA and
# NVIDIA/cutlass (under /work/.mirror, or NVFP4_MIRROR): exports FlashMLA's
# csrc/ and, at the commit FlashMLA pins, CUTLASS's include/ and
# tools/util/include/ into build/peers/flashmla (ignored, never committed:
# third-party code). bench/hopper/flashmla.py builds from there on the GPU
# machine (carry build/peers). docs/Hopper.md.
#
#===----------------------------------------------------------------------===#
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
MIRROR="${NVFP4_MIRROR:-/work/.mirror}"
FLASHMLA="$MIRROR/deepseek-ai+FlashMLA/repo"
CUTLASS="$MIRROR/NVIDIA+cutlass/repo"
OUT="$ROOT/build/peers/flashmla"
[[ -d "$FLASHMLA" && -d "$CUTLASS" ]] ||
  { echo "error: fetch github:deepseek-ai/FlashMLA and github:NVIDIA/cutlass first" >&2; exit 1; }
rm -rf "$OUT" && mkdir -p "$OUT"
git -C "$FLASHMLA" archive HEAD csrc | tar -x -C "$OUT"
pin="$(git -C "$FLASHMLA" ls-tree HEAD csrc/cutlass | awk '{print $3}')"
mkdir -p "$OUT/csrc/cutlass"
git -C "$CUTLASS" archive "$pin" include tools/util/include | tar -x -C "$OUT/csrc/cutlass"
echo "FlashMLA $(git -C "$FLASHMLA" rev-parse --short HEAD), CUTLASS $pin" > "$OUT/VERSIONS"
du -sh "$OUT"
cat "$OUT/VERSIONS"
