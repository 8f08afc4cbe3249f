#!/usr/bin/env bash
#===- gen_mla.sh - the MLA decode kernels of bench/hopper/mla.py -----------===#
#
# Run here: compiles the MLA decode shapes of bench/hopper/shapes.py
# (MLA_SHAPES) for sm_90a into build/device-hopper-mla (or FOLDER), which
# bench/hopper/mla.py runs on the GPU machine (carry it, and build/peers
# for FlashMLA beside them). docs/Hopper.md.
#
# Usage: bench/hopper/gen_mla.sh [FOLDER]
#
#===----------------------------------------------------------------------===#
exec bash "$(dirname "${BASH_SOURCE[0]}")/gen_ours.sh" --mla "$@"
