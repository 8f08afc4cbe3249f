#!/usr/bin/env bash
# How fast sm_90a turns e4m3 + UE8M0 into bf16, four sequences, on the GPU
# machine, with the SASS each form becomes (scripts/device/dequant_rate.cu;
# docs/Hopper.md, "The fp8 gather: four warps"). On the GPU machine:
#   bash scripts/device/dequant_rate.sh   (writes $OUT/dequant_rate.md)
set -euo pipefail
exec bash "$(dirname "${BASH_SOURCE[0]}")/rate_probe.sh" dequant_rate \
  'F2F|F2FP|HMUL2|HFMA2|I2F|LOP3|PRMT|SHF|IADD3|FMUL' \
  "the conversion and integer opcodes"
