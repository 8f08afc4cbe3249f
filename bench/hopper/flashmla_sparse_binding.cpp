// A Python binding of FlashMLA's sparse fp8 decode alone (DeepSeek-V4's
// MODEL1 cache and V3.2's): bench/hopper/flashmla.py's build_sparse()
// compiles it with FlashMLA's sm90 sparse decode sources from
// build/peers/flashmla (scripts/peers/gen_flashmla_sources.sh); the SM100
// kernels its dispatcher names are stubs (flashmla_sparse_stubs.cpp).
// Ours; no FlashMLA code here.
#include <pybind11/pybind11.h>

#include "api/sparse_decode.h"

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("sparse_decode_fwd", &sparse_attn_decode_interface);
}
