// A Python binding of FlashMLA's sm90 dense decode alone (its own api.cpp
// binds every kernel, the SM100 ones too): bench/hopper/flashmla.py builds
// it with FlashMLA's sources from build/peers/flashmla
// (scripts/peers/gen_flashmla_sources.sh). Ours; no FlashMLA code here.
#include <pybind11/pybind11.h>

#include "api/dense_decode.h"

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("dense_decode_fwd", &dense_attn_decode_interface);
}
