// FlashMLA's sparse decode dispatcher (api/sparse_decode.h) names SM100
// kernels beside the sm90 one; on the H200 only sm90's is built, so these
// definitions of the SM100 entry points stand in for them and throw if ever
// reached (the dispatcher picks them on SM100 only). Ours; the
// declarations come from FlashMLA's headers.
#include <stdexcept>

#include "params.h"
#include "sm100/decode/head64/kernel.h"
#include "sm100/prefill/sparse/fwd_for_small_topk/head128/phase1.h"

namespace {
[[noreturn]] void notBuilt() {
  throw std::runtime_error("FlashMLA's SM100 sparse decode is not built "
                           "here (bench/hopper/flashmla.py, sm90 only)");
}
} // namespace

namespace sm100::decode::head64 {
template <>
void run_flash_splitkv_mla_fp8_sparse_kernel<ModelType::V32>(
    const SparseAttnDecodeParams &) {
  notBuilt();
}
template <>
void run_flash_splitkv_mla_fp8_sparse_kernel<ModelType::MODEL1>(
    const SparseAttnDecodeParams &) {
  notBuilt();
}
} // namespace sm100::decode::head64

namespace sm100::fwd_for_small_topk::head128 {
template <>
void run_fwd_for_small_topk_phase1_kernel<SparseAttnFwdMode::DecodeWithSplitKV,
                                          512>(
    const SparseFwdArgT<SparseAttnFwdMode::DecodeWithSplitKV> &) {
  notBuilt();
}
} // namespace sm100::fwd_for_small_topk::head128
