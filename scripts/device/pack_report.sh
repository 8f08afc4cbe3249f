#!/usr/bin/env bash
#===- pack_report.sh - every report artifact in one small archive ----------===#
#
# Run here, after the generators (docs/Hopper.md, "The report in one
# call"): packs the artifact folders under build/ that exist, of
# device-hopper (scripts/device/gen_hopper_attention.sh),
# device-hopper-bench (bench/hopper/gen_ours.sh), device-hopper-mla
# (bench/hopper/gen_mla.sh), device-hopper-v4 (gen_ours.sh --v4) and peers
# (scripts/peers/gen_flashmla_sources.sh), plus any extra folders under
# build/ named as arguments (an A/B's other build), into
# build/device-report.tar.xz. The folders are about 62 MB, more than one
# device call carries with the working tree (64 MiB); the archive is about
# 3 MB. Carry build/device-report.tar.xz alone; hopper_report.sh unpacks
# it into build/ before it runs.
#
# Usage: scripts/device/pack_report.sh [EXTRA_FOLDER...]
#
#===----------------------------------------------------------------------===#
set -eu -o pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT/build"
folders=()
# The generators' folders that exist; an extra folder must exist.
for f in device-hopper device-hopper-bench device-hopper-mla \
  device-hopper-v4 peers; do
  if [[ -d "$f" ]]; then
    folders+=("$f")
  fi
done
for f in "$@"; do
  f="${f#build/}"
  if [[ ! -d "$f" ]]; then
    echo "pack_report.sh: no folder build/$f" >&2
    exit 1
  fi
  folders+=("$f")
done
if [[ ${#folders[@]} -eq 0 ]]; then
  echo "pack_report.sh: no artifact folder under build/ (run the generators first)" >&2
  exit 1
fi
tar -cf - "${folders[@]}" | xz -T0 -6 >device-report.tar.xz.tmp
mv device-report.tar.xz.tmp device-report.tar.xz
echo "pack_report.sh: ${folders[*]} -> build/device-report.tar.xz" \
  "($(du -k device-report.tar.xz | cut -f1) KiB)"
