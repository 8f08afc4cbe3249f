#!/usr/bin/env bash
# The SFU's exponential rate for ex2.approx f32 / f16x2 / bf16x2 on the GPU
# machine, with the SASS each form becomes (scripts/device/ex2_rate.cu;
# docs/Hopper.md, "Packed exponentials"). On the GPU machine:
#   bash scripts/device/ex2_rate.sh   (writes $OUT/ex2_rate.md)
set -euo pipefail
exec bash "$(dirname "${BASH_SOURCE[0]}")/rate_probe.sh" ex2_rate \
  'MUFU|HADD2|LOP3|F2FP|PRMT|FFMA|FADD' "MUFU and what feeds it"
