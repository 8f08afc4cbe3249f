#!/usr/bin/env bash
# Run on the GPU machine from the repository root: builds and runs
# lg2_table_probe.cu (lg2.approx.ftz.f32 over whole binades, as
# differences from RN; docs/Hopper.md, "lg2.approx"), packs the tables
# into $OUT/lg2_tables.tar.xz and writes the counts to $OUT/lg2_probe.txt.
set -eu -o pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUTDIR="${OUT:-$ROOT/build-device-lg2}"; mkdir -p "$OUTDIR"
TMP=/tmp/lg2-tables; rm -rf "$TMP"; mkdir -p "$TMP"
/usr/local/cuda/bin/nvcc -O2 -arch=sm_90a -o /tmp/lg2_table_probe "$ROOT/scripts/device/lg2_table_probe.cu"
nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv | tee "$OUTDIR/lg2_probe.txt"
/tmp/lg2_table_probe "$TMP" | tee -a "$OUTDIR/lg2_probe.txt"
tar -C "$TMP" -cf - . | xz -T0 -6 > "$OUTDIR/lg2_tables.tar.xz"
ls -l "$OUTDIR/lg2_tables.tar.xz"
