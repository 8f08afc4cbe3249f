// Llama-3-8B-class GQA decode over a vLLM-style paged cache: 16 sequences,
// one new token each, 32 query heads over 8 KV heads (4 per KV head), head
// dim 128, separate K and V caches of 16-key pages (vLLM's default page)
// through a block table, per-sequence lengths up to 2048 keys.
//
// The lowering (docs/AttentionLowering.md) makes one unit per (sequence,
// KV head) (128 units of 4 query heads each) and balances their KV tiles
// over 148 CTAs; every 128-key tile is loaded as 8 boxes of one page per
// 64 columns.
//
//   build/bin/nvfp4-run --backend=emulator examples/llama_gqa_paged_decode.mlir
//   build/bin/nvfp4-opt examples/llama_gqa_paged_decode.mlir \
//       --nvfp4-sm100-to-cubin="ptx-file=llama.ptx cubin-file=llama.cubin"
func.func @llama_gqa_paged_decode(%q: tensor<16x1x32x128xbf16>,
                                  %k: tensor<2100x16x8x128xbf16>,
                                  %v: tensor<2100x16x8x128xbf16>,
                                  %lens: tensor<16xi32>,
                                  %table: tensor<16x128xi32>)
    -> (tensor<16x1x32x128xbf16>, tensor<16x32x1xf32>) {
  %o, %lse = nvfp4.attention %q, %k, %v kv_lens(%lens) block_table(%table)
      softmax_scale(0.0883883476)
      : (tensor<16x1x32x128xbf16>, tensor<2100x16x8x128xbf16>,
         tensor<2100x16x8x128xbf16>, tensor<16xi32>, tensor<16x128xi32>)
      -> (tensor<16x1x32x128xbf16>, tensor<16x32x1xf32>)
  return %o, %lse : tensor<16x1x32x128xbf16>, tensor<16x32x1xf32>
}
